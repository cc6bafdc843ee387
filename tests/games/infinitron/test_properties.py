"""Property tests: the engine against the simple reference, and its invariants."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.base import BLUE, CHANCE, RED
from referee.games.infinitron import Infinitron
from referee.games.infinitron.engine import (
    ASTEROID,
    BLOCK,
    CELL_COUNT,
    CELLS,
    FACING,
    DEFINE,
    END_TURN_ACTION,
    MAX_COMMANDS,
    MAX_TEMPLATES,
    MAX_UNITS,
    NO_EVENT_ACTION,
    TERRAIN,
)

from .common import ref_view, reference_twin, rich_state, view
from .reference import facing_sides

# A game is driven by numbers: each picks a command (every fifth pick ends the
# turn, so that games get through several turns) or a chance outcome.
picks = st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=60)


def chance_action(state, pick: int):
    """Chance's action, chosen to give every kind of event often."""
    kind = pick % 3
    rng = random.Random(pick)
    if kind == 0:
        return NO_EVENT_ACTION
    if kind == 1:
        cells = state.setup.asteroid_cells
        return (ASTEROID, cells[rng.randrange(len(cells))])
    while True:  # redraw until the roll is a fish market
        action = state.sample_chance(rng)
        if action[0] not in (ASTEROID, NO_EVENT_ACTION[0]):
            return action


def pick_action(state, pick: int):
    """Every fifth pick ends the turn; the others pick a command kind, then a command of it.

    Picking the kind first keeps the thousands of DEFINEs from crowding out
    the rarer commands (CLAIM, ATTACK, TERRAIN...).
    """
    if state.current_player == CHANCE:
        return chance_action(state, pick)
    legal = state.legal_actions()
    if pick % 5 == 0:
        return END_TURN_ACTION
    # The DEFINEs (up to 387,000 with armour) come first: found from the end, not grouped one by one.
    first_other = len(legal)
    while first_other and legal[first_other - 1][0] != DEFINE:
        first_other -= 1
    by_kind: dict[int, list] = {DEFINE: legal[:first_other]} if first_other else {}
    for action in legal[first_other:]:
        by_kind.setdefault(action[0], []).append(action)
    kinds = sorted(by_kind)
    of_kind = by_kind[kinds[(pick // 5) % len(kinds)]]
    return of_kind[(pick // 5 // len(kinds)) % len(of_kind)]


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=10**9), st.booleans(), st.booleans(), st.sampled_from(["1.1", "1.2"]), picks)
def test_engine_agrees_with_reference_step_by_step(seed, chaos, armour, rules, choices):
    state = rich_state(seed, chaos=chaos, max_turns=30, armour=armour, rules=rules)
    ref = reference_twin(state)
    assert view(state) == ref_view(ref)
    for pick in choices:
        if state.is_over:
            break
        if state.current_player != CHANCE:
            legal = state.legal_actions()
            # The reference lists every command but the armoured DEFINEs, which it counts.
            armoured = [a for a in legal if a[0] == DEFINE and len(a) == 7]
            assert {state.action_to_str(a) for a in legal if len(a) != 7 or a[0] != DEFINE} == ref.legal()
            assert len(armoured) == ref.armoured_defines()
        action = pick_action(state, pick)
        text = state.action_to_str(action)
        assert state.is_legal(action), text
        state.apply(action)
        ref.play(text)
        assert view(state) == ref_view(ref), f"after {text}"


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=10**9), st.booleans(), picks)
def test_invariants_hold_and_undo_is_exact(seed, chaos, choices):
    # Armour changes nothing here but the templates (and listing its DEFINEs is slow): off.
    state = rich_state(seed, chaos=chaos, max_turns=30)
    start = state.copy()
    keys = [state.key()]
    for pick in choices:
        if state.is_over:
            break
        action = pick_action(state, pick)
        before = state.copy()
        state.apply_checked(action)
        # Copies are independent, and one undo restores the position exactly.
        assert before.key() == keys[-1]
        after = state.copy()
        state.undo()
        assert state == before and state.key() == before.key()
        state.apply(action)
        assert state == after
        keys.append(state.key())
        if action[0] == TERRAIN and action[1] == BLOCK:
            assert state.capitals_joined(), "a legal BLOCK never walls a capital off"
        for p in (RED, BLUE):
            assert state.rp[p] >= 0
            assert len(state.templates[p]) <= MAX_TEMPLATES
            assert len(state.units[p]) <= MAX_UNITS or not state.move_count  # set-up may start above
            for uid, (cell, hp, t) in state.units[p].items():
                assert 0 < hp <= state.templates[p][t].max_hp
                assert state.occ[cell] == uid * 2 + p
        assert sum(o >= 0 for o in state.occ) == len(state.units[RED]) + len(state.units[BLUE])
        assert 0 <= state.commands <= MAX_COMMANDS
        assert all(state.is_legal(a) for a in state.legal_actions())
    # Undoing everything gives back the starting position.
    while state.move_count:
        state.undo()
        keys.pop()
        assert state.key() == keys[-1]
    assert state == start


def test_the_first_position_has_the_legal_commands_counted_by_hand():
    # Red, 3 RP, no template, no unit: the 2,744 DEFINEs, 4 terrain kinds on the
    # capital's 6 neighbours, CLAIMs of the 9 on-board cells at distance 2 from
    # (4, -2), and END_TURN.
    state = Infinitron(cities=[]).new_state()
    assert len(state.legal_actions()) == 2744 + 4 * 6 + 9 + 1
    assert len(Infinitron(cities=[], armour=True).new_state().legal_actions()) == 2744 * 141 + 4 * 6 + 9 + 1


@pytest.mark.parametrize(
    "seed, chaos, armour, rules", [(1, False, False, "1.2"), (2, True, True, "1.2"), (3, False, False, "1.1")]
)
def test_legal_command_counts_along_random_games_match_the_reference(seed, chaos, armour, rules):
    """Perft-like: the number of legal commands at every step of a game from the start."""
    # (Armour lists 387,000 DEFINEs at every step: a shorter game.)
    state = Infinitron(
        seed=seed, chaos=chaos, armour=armour, max_turns=12 if armour else 24, rules=rules
    ).new_state()
    ref = reference_twin(state)
    rng = random.Random(seed)
    counts = []
    while not state.is_over:
        if state.current_player != CHANCE:
            count = len(state.legal_actions())
            assert count == len(ref.legal()) + ref.armoured_defines(), f"after {state.move_count} actions"
            counts.append(count)
        action = pick_action(state, rng.randrange(10**6))
        state.apply(action)
        ref.play(state.action_to_str(action))
    assert len(counts) > 20 and len(set(counts)) > 10, "a game long and varied enough to test something"


@pytest.mark.parametrize("unit", [(0, 0), (4, -2), (-5, 5), (2, 1), (0, -5)])
def test_the_facing_table_agrees_with_exact_geometry(unit):
    # The engine's table (nudged float hex lines) against the reference's exact fractions,
    # from a unit at the centre, a capital, a corner, inside and an edge to every cell.
    a = CELLS.index(unit)
    ties = 0
    for b, rq_b in enumerate(CELLS):
        sides = facing_sides(unit, rq_b)
        assert list(FACING[a * CELL_COUNT + b]) == sides, rq_b
        ties += len(sides) == 2
    assert ties, "some cells sit on a diagonal: both sides face them"
