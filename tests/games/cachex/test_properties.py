"""Property tests: the engine against the reference over arbitrary play."""
from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.cachex import CachexState

from . import reference

sizes = st.integers(min_value=3, max_value=9)
# A game is driven by a list of numbers: each picks one of the legal actions.
picks = st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=150)


def outcome_as_reference(state: CachexState):
    outcome = state.outcome
    if outcome is None:
        return None
    return (None if outcome.winner is None else "rb"[outcome.winner], outcome.reason)


def steps(state: CachexState, choices: list[int]) -> Iterator[None]:
    """Apply the legal action each number picks, yielding after each, until the game ends."""
    for pick in choices:
        legal = state.legal_actions()
        if not legal:
            return
        state.apply(legal[pick % len(legal)])
        yield


def play_picks(state: CachexState, choices: list[int]) -> None:
    for _ in steps(state, choices):
        pass


def reference_action(ref: reference.RefGame, text: str) -> tuple:
    return next(a for a in ref.legal() if reference.action_text(a) == text)


def same(state: CachexState, ref: reference.RefGame) -> None:
    assert state.to_text() == reference.to_text(ref)
    assert sorted(map(state.action_to_str, state.legal_actions())) == sorted(map(reference.action_text, ref.legal()))
    assert outcome_as_reference(state) == ref.result
    assert state.occurrences() == ref.boards_seen.count(ref.boards_seen[-1])


@settings(max_examples=150, deadline=None)
@given(sizes, picks)
def test_engine_agrees_with_reference_step_by_step(n, choices):
    state = CachexState(n)
    ref = reference.RefGame(n)
    for pick in choices:
        same(state, ref)
        legal = state.legal_actions()
        if not legal:
            break
        text = state.action_to_str(legal[pick % len(legal)])
        state.apply(legal[pick % len(legal)])
        ref.play(reference_action(ref, text))
    same(state, ref)


@settings(max_examples=120, deadline=None)
@given(sizes, st.lists(st.tuples(st.booleans(), st.integers(min_value=0, max_value=10**6)), max_size=200))
def test_apply_and_undo_in_any_order_match_the_reference(n, ops):
    # Undo must restore everything a later action depends on: stones, the
    # groups used for the connection test, repetition counts.
    state = CachexState(n)
    trail = [reference.RefGame(n)]
    for undo, pick in ops:
        if undo and state.move_count:
            state.undo()
            trail.pop()
        else:
            legal = state.legal_actions()
            if not legal:
                continue
            action = legal[pick % len(legal)]
            ref = trail[-1].copy()
            ref.play(reference_action(ref, state.action_to_str(action)))
            state.apply(action)
            trail.append(ref)
        same(state, trail[-1])


@settings(max_examples=100, deadline=None)
@given(sizes, picks)
def test_undo_walks_back_through_the_whole_game(n, choices):
    state = CachexState(n)
    trail = [(state.to_text(), state.key(), dict(state.repetitions), state.summary())]
    for _ in steps(state, choices):
        trail.append((state.to_text(), state.key(), dict(state.repetitions), state.summary()))
    while len(trail) > 1:
        trail.pop()
        state.undo()
        assert (state.to_text(), state.key(), state.repetitions, state.summary()) == trail[-1]
        assert state.outcome is None


@settings(max_examples=100, deadline=None)
@given(sizes, picks)
def test_key_is_the_board_and_side_to_move(n, choices):
    state = CachexState(n)
    for _ in steps(state, choices):
        rebuilt = CachexState.from_text(state.to_text())
        assert rebuilt.key() == state.key()
        assert rebuilt.outcome == state.outcome or state.outcome.reason == "repetition"
        red = sum(1 for *_, p in state.cells() if p == 0)
        blue = len(list(state.cells())) - red
        stones = {count: f"{count} stone" + ("" if count == 1 else "s") for count in (red, blue)}
        assert state.summary().startswith(f"RED {stones[red]}, BLUE {stones[blue]};")


@settings(max_examples=80, deadline=None)
@given(sizes, picks, picks)
def test_copies_are_independent(n, before, after):
    state = CachexState(n)
    play_picks(state, before)
    for copied in (state.copy(), state.copy_without_history()):
        snapshot = (state.to_text(), state.key(), dict(state.repetitions))
        assert copied == state
        play_picks(copied, after)
        assert (state.to_text(), state.key(), state.repetitions) == snapshot
        if state.move_count and state.outcome is None:
            state.apply(state.legal_actions()[0])
            state.undo()
            assert (state.to_text(), state.key(), state.repetitions) == snapshot


@settings(max_examples=80, deadline=None)
@given(sizes, picks, st.integers(min_value=0, max_value=2**32))
def test_random_playout_is_random_actions_applied(n, choices, seed):
    state = CachexState(n)
    play_picks(state, choices[: len(choices) // 3])
    slow = state.copy()
    fast = state.copy_without_history()
    rng = random.Random(seed)
    while not slow.is_over:
        action = slow.random_action(rng)
        assert slow.is_legal(action)
        slow.apply(action)
    outcome = fast.random_playout(random.Random(seed))
    assert outcome == slow.outcome == fast.outcome
    assert fast == slow and fast.key() == slow.key()
    # Whichever way it got there, the position plays on identically.
    assert fast.legal_actions() == slow.legal_actions() == []


def test_random_action_is_uniform():
    # 16 empty cells, STEAL excluded after the first two actions.
    state = CachexState.from_text("rb../br../..../.... 4")
    legal = state.legal_actions()
    assert len(legal) == 12
    rng = random.Random(7)
    draws = len(legal) * 500
    counts = dict.fromkeys(legal, 0)
    for _ in range(draws):
        counts[state.random_action(rng)] += 1
    expected = draws / len(legal)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    # 11 degrees of freedom: the 99.9% quantile is about 31.3.
    assert chi2 < 31.3, chi2


def test_random_action_covers_the_first_two_moves_rules():
    rng = random.Random(3)
    state = CachexState(3)
    first = {state.random_action(rng) for _ in range(400)}
    assert first == set(state.legal_actions()) and len(first) == 8
    state.apply(0)
    second = {state.random_action(rng) for _ in range(600)}
    assert second == set(state.legal_actions()) and len(second) == 9
