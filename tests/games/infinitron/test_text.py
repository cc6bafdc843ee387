"""Canonical command strings: exact forms, round trips, and clear errors for bad text."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.base import IllegalActionError, NotationError
from referee.games.infinitron import (
    ability,
    action_to_str,
    asteroid,
    attack,
    build,
    cell_of,
    define,
    fish_market,
    move,
    parse_action,
    terrain,
)
from referee.games.infinitron.engine import (
    ABILITY_NAMES,
    ARMOUR_CODES,
    CELLS,
    END_TURN_ACTION,
    NO_EVENT_ACTION,
    RANGE_NAMES,
    TERRAIN_NAMES,
)

from .common import empty_state


@pytest.mark.parametrize(
    "action, text",
    [
        (define(2, 1, 3, "MEDIUM", "HEAL1"), "DEFINE(2, 1, 3, MEDIUM, HEAL1)"),
        (build(0, 4, -1), "BUILD(0, 4, -1)"),
        (move(3, 2, -1), "MOVE(3, 2, -1)"),
        (attack(12, -5, 0), "ATTACK(12, -5, 0)"),
        (ability(0, 0, 0), "ABILITY(0, 0, 0)"),
        (terrain("LAVA", 3, -1), "TERRAIN(LAVA, 3, -1)"),
        (END_TURN_ACTION, "END_TURN"),
        (NO_EVENT_ACTION, "NO_EVENT"),
        (asteroid(0, 0), "ASTEROID(0, 0)"),
        (fish_market([(2, -3), (0, 1), (-5, 5)]), "FISH_MARKET((-5, 5), (0, 1), (2, -3))"),
    ],
)
def test_canonical_text(action, text):
    assert action_to_str(action) == text
    assert parse_action(text) == action


def test_parsing_tolerates_spaces_and_sorts_fish_cells():
    assert parse_action("  MOVE( 3 ,2,-1 ) ") == move(3, 2, -1)
    assert parse_action("DEFINE(0,1,3,MELEE,NONE)") == define(0, 1, 3, "MELEE", "NONE")
    assert parse_action("FISH_MARKET((0,1),(-5,5))") == fish_market([(-5, 5), (0, 1)])
    assert parse_action("FISH_MARKET()") == fish_market([])


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("MOVE(1, 6, 0)", "off the board"),
        ("MOVE(1, 3, 3)", "off the board"),
        ("MOVE(-1, 0, 0)", "0 or more"),
        ("MOVE(1, 0)", "takes 3 arguments"),
        ("MOVE(x, 0, 0)", "whole number"),
        ("DEFINE(5, 1, 1, MELEE, NONE)", "hp must be 0..4"),
        ("DEFINE(1, 4, 1, MELEE, NONE)", "move must be 0..3"),
        ("DEFINE(1, 1, 6, MELEE, NONE)", "dmg must be 0..5"),
        ("DEFINE(1, 1, 1, FAR, NONE)", "range must be one of MELEE"),
        ("DEFINE(1, 1, 1, MELEE, FLY)", "ability must be one of NONE"),
        ("TERRAIN(PLAIN, 0, 0)", "kind must be one of BLOCK, LAVA, REPAIR, LABEL"),
        ("END_TURN()", "takes no arguments"),
        ("JUMP(1)", "unknown command 'JUMP'"),
        ("move(1, 0, 0)", "not an Infinitron command"),
        ("", "not an Infinitron command"),
        ("FISH_MARKET((0, 0), (0, 0))", "listed twice"),
        ("FISH_MARKET((0, 0),)", "missing after the last comma"),
        ("FISH_MARKET(0, 0)", "written (r, q)"),
        ("FISH_MARKET((0,1),(0,2),(0,3),(0,4),(0,5),(1,1),(1,2))", "at most 6"),
    ],
)
def test_malformed_text_is_a_notation_error_saying_what_is_wrong(text, fragment):
    with pytest.raises(NotationError) as err:
        parse_action(text)
    assert fragment in str(err.value)


def test_non_text_is_a_notation_error():
    with pytest.raises(NotationError, match="must be text"):
        parse_action(None)  # type: ignore[arg-type]


cells = st.integers(min_value=0, max_value=len(CELLS) - 1)
actions = st.one_of(
    st.just(END_TURN_ACTION),
    st.just(NO_EVENT_ACTION),
    st.tuples(
        st.just(1),
        st.integers(0, 4),
        st.integers(0, 3),
        st.integers(0, 5),
        st.integers(0, len(RANGE_NAMES) - 1),
        st.integers(0, len(ABILITY_NAMES) - 1),
    ),
    st.tuples(
        st.just(1),
        st.integers(0, 4),
        st.integers(0, 3),
        st.integers(0, 5),
        st.integers(0, len(RANGE_NAMES) - 1),
        st.integers(0, len(ABILITY_NAMES) - 1),
        st.integers(1, ARMOUR_CODES - 1),
    ),
    st.tuples(st.sampled_from([2, 3, 4, 5, 10]), st.integers(0, 10**6), cells),  # ... and CLAIM
    st.tuples(st.just(6), st.integers(1, len(TERRAIN_NAMES) - 1), cells),
    st.tuples(st.just(8), cells),
    st.lists(cells, max_size=6, unique=True).map(lambda cs: (9, *sorted(cs))),
)


def canonical(action: tuple[int, ...]) -> tuple[int, ...]:
    """A DEFINE with dmg 0 is written MELEE whatever its range number (1.1)."""
    if action[0] == 1 and action[3] == 0:
        return action[:4] + (0,) + action[5:]
    return action


@settings(max_examples=300, deadline=None)
@given(actions)
def test_every_action_text_parses_back(action):
    text = action_to_str(action)
    assert parse_action(text) == canonical(action)
    assert action_to_str(parse_action(text)) == text


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("DEFINE(2, 1, 2, MELEE, NONE, +00-0)", "six characters"),
        ("DEFINE(2, 1, 2, MELEE, NONE, +00-0x)", "six characters"),
        ("DEFINE(2, 1, 2, MELEE, NONE, +00-00, 1)", "5 or 6 arguments"),
        ("CLAIM(2, 0)", "3 arguments"),
        ("CLAIM(-1, 0, 0)", "numbers are 0 or more"),
        ("CLAIM(x, 0, 0)", "the city number must be a whole number"),
    ],
)
def test_claim_and_armour_text_errors(text, fragment):
    with pytest.raises(NotationError, match=re.escape(fragment)):
        parse_action(text)


def test_claim_and_armour_canonical_text():
    assert action_to_str(parse_action("CLAIM( 2, 1 ,-1 )")) == "CLAIM(2, 1, -1)"
    assert parse_action("CLAIM(2, 1, -1)") == (10, 2, cell_of(1, -1))
    text = "DEFINE(2, 1, 2, MELEE, NONE, +00-00)"
    action = parse_action(text)
    assert len(action) == 7 and action_to_str(action) == text
    assert action_to_str(parse_action("DEFINE(2, 1, 0, LONG, NONE, -+0000)")) == "DEFINE(2, 1, 0, MELEE, NONE, -+0000)"


@pytest.mark.parametrize(
    "junk",
    [
        None, (), (1,), (True,), (False,), ("END",), [0], (0, 1), (3, 1, 91), (3, -1, 0), (3, True, 0), (9, 5, 2), 0,
        "END_TURN",
    ],
)
def test_junk_is_never_legal_and_is_rejected_by_name(junk):
    state = empty_state()
    assert not state.is_legal(junk)
    with pytest.raises(IllegalActionError, match="not an Infinitron action"):
        state.apply_checked(junk)
