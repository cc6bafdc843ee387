"""Property tests: the engine's invariants over arbitrary action sequences."""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.infexion import MAX_TOTAL_POWER, InfexionState

from . import reference


def _recounted(state: InfexionState) -> tuple[int, int]:
    red = sum(p for _, _, o, p in state.cells() if o == 0)
    blue = sum(p for _, _, o, p in state.cells() if o == 1)
    return red, blue


# A game is driven by a list of numbers: each picks one of the legal actions.
choices = st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=120)


@settings(max_examples=150, deadline=None)
@given(choices)
def test_engine_agrees_with_reference_step_by_step(picks):
    state = InfexionState()
    ref = reference.RefGame()
    for pick in picks:
        legal = state.legal_actions()
        ref_legal = ref.legal()
        assert sorted(map(state.action_to_str, legal)) == sorted(map(reference.action_text, ref_legal))
        if not legal:
            break
        action = legal[pick % len(legal)]
        text = state.action_to_str(action)
        state.apply(action)
        ref.play(next(a for a in ref_legal if reference.action_text(a) == text))
        assert state.to_text() == InfexionState.from_text(state.to_text()).to_text()
        assert {(r, q): ("rb"[o], p) for r, q, o, p in state.cells()} == ref.cells
        result = ref.result()
        outcome = state.outcome
        if result is None:
            assert outcome is None
        else:
            assert outcome is not None
            assert (None if outcome.winner is None else "rb"[outcome.winner], outcome.reason) == result


@settings(max_examples=150, deadline=None)
@given(choices)
def test_invariants_hold_after_every_action(picks):
    state = InfexionState()
    for pick in picks:
        legal = state.legal_actions()
        if not legal:
            break
        state.apply(legal[pick % len(legal)])
        # Power bookkeeping equals a recount; total power never exceeds 49
        # (SPAWN needs < 49 and SPREAD never adds power); stacks hold 1..6.
        assert (state.power(0), state.power(1)) == _recounted(state)
        assert state.total_power <= MAX_TOTAL_POWER
        assert all(1 <= p <= 6 for *_, p in state.cells())


@settings(max_examples=100, deadline=None)
@given(choices)
def test_undo_walks_back_through_the_whole_game(picks):
    state = InfexionState()
    trail = [(state.to_text(), state.key())]
    for pick in picks:
        legal = state.legal_actions()
        if not legal:
            break
        state.apply(legal[pick % len(legal)])
        trail.append((state.to_text(), state.key()))
    while len(trail) > 1:
        trail.pop()
        state.undo()
        assert (state.to_text(), state.key()) == trail[-1]


@settings(max_examples=100, deadline=None)
@given(choices, st.integers(min_value=0, max_value=2**32))
def test_random_action_is_always_legal(picks, seed):
    state = InfexionState()
    rng = random.Random(seed)
    for pick in picks:
        legal = state.legal_actions()
        if not legal:
            break
        assert state.random_action(rng) in legal
        state.apply(legal[pick % len(legal)])


def test_random_action_is_uniform():
    # 1 red stack and 47 empty cells + Blue's token: 47 spawns + 6 spreads.
    state = InfexionState({(0, 0): (0, 2), (3, 3): (1, 1)}, turn=2)
    legal = state.legal_actions()
    assert len(legal) == 47 + 6
    rng = random.Random(7)
    draws = 53 * 400
    counts = dict.fromkeys(legal, 0)
    for _ in range(draws):
        counts[state.random_action(rng)] += 1
    expected = draws / len(legal)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    # 52 degrees of freedom: the 99.9% quantile is about 90.
    assert chi2 < 90, chi2
