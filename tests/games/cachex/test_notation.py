"""Action text, the agent-facing action objects and the 2022 tuple protocol."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.agentkit import GameView
from referee.cachex import (
    LEGACY_PLAYER_NAMES,
    PlaceAction,
    PlayerColor,
    StealAction,
    describe_legacy,
    from_engine_action,
    from_legacy,
    to_engine_action,
    to_legacy,
)
from referee.game.player import PlayerColor as CoursePlayerColor
from referee.games.base import IllegalActionError, NotationError
from referee.games.cachex import STEAL, CachexState, action_to_str, cell_index, parse_action

# -- canonical text ----------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 8, 15])
def test_every_action_text_round_trips(n):
    state = CachexState(n)
    actions = [cell_index(r, q) for r in range(n) for q in range(n)] + [STEAL]
    texts = [state.action_to_str(a) for a in actions]
    assert len(set(texts)) == len(actions)
    assert [state.parse_action(t) for t in texts] == actions


def test_canonical_forms():
    assert action_to_str(cell_index(3, 12)) == "PLACE(3, 12)"
    assert action_to_str(STEAL) == "STEAL"
    assert action_to_str("junk") == "'junk'" and action_to_str(-1) == "-1"


@pytest.mark.parametrize(
    "text, expected",
    [(" PLACE( 2 ,3 ) ", (2, 3)), ("PLACE(0,0)", (0, 0)), ("PLACE(+4, 4)", (4, 4)), ("\tSTEAL\n", None)],
)
def test_spacing_is_forgiven(text, expected):
    action = parse_action(text, 5)
    assert action == (STEAL if expected is None else cell_index(*expected))


@pytest.mark.parametrize(
    "text, message",
    [
        ("PLACE(7, 0)", r"cell \(7, 0\) is off the 7x7 board in 'PLACE\(7, 0\)' \(r and q are 0..6\)"),
        ("PLACE(0, -1)", r"cell \(0, -1\) is off the 7x7 board"),
        ("STEAL()", "STEAL takes no arguments"),
        ("STEAL(1, 2)", "STEAL takes no arguments"),
        ("PLACE(1)", r"PLACE needs a cell as two whole numbers, PLACE\(r, q\)"),
        ("PLACE(1.5, 2)", "PLACE needs a cell"),
        ("place(1, 2)", r"not a Cachex action: 'place\(1, 2\)' \(expected PLACE\(r, q\) or STEAL\)"),
        ("SPAWN(1, 2)", "not a Cachex action"),
        ("", "not a Cachex action"),
    ],
)
def test_malformed_text_gets_a_clear_notation_error(text, message):
    with pytest.raises(NotationError, match=message):
        CachexState(7).parse_action(text)


def test_non_text_is_a_notation_error():
    with pytest.raises(NotationError, match="must be text, not tuple"):
        parse_action(("PLACE", 1, 2))


def test_a_cell_on_a_bigger_board_parses_there_only():
    assert CachexState(11).parse_action("PLACE(9, 9)") == cell_index(9, 9)
    with pytest.raises(NotationError, match="off the 9x9 board"):
        CachexState(9).parse_action("PLACE(9, 9)")


@given(st.text(max_size=30))
def test_arbitrary_text_parses_or_raises_notation_error(text):
    try:
        action = parse_action(text, 15)
    except NotationError:
        return
    assert parse_action(action_to_str(action), 15) == action


# -- action objects for agents ------------------------------------------------------------


def test_action_objects_print_their_canonical_text():
    assert str(PlaceAction(3, 12)) == "PLACE(3, 12)" and PlaceAction(3, 12).cell == (3, 12)
    assert str(StealAction()) == "STEAL"
    assert StealAction() == StealAction() and hash(PlaceAction(1, 2)) == hash(PlaceAction(1, 2))


#: Every action of the biggest board: each other board's are among them.
ALL_ACTIONS = [cell_index(r, q) for r in range(15) for q in range(15)] + [STEAL]


def test_every_engine_action_converts_to_an_object_and_back():
    for action in ALL_ACTIONS:
        obj = from_engine_action(action)
        assert to_engine_action(obj) == action
        assert str(obj) == action_to_str(action)
    assert from_engine_action(STEAL) == StealAction()


class NumpyLikeInt:
    """An integer type that is not ``int`` (as numpy's ``int64``)."""

    def __init__(self, value: int):
        self.value = value

    def __index__(self) -> int:
        return self.value


def test_integer_types_other_than_int_are_accepted():
    assert to_engine_action(PlaceAction(NumpyLikeInt(2), NumpyLikeInt(3))) == cell_index(2, 3)


@pytest.mark.parametrize(
    "obj",
    [
        None,
        "PLACE(1, 2)",
        ("PLACE", 1, 2),
        cell_index(1, 2),
        PlaceAction(1.0, 2),
        PlaceAction("1", 2),
        PlaceAction(True, 2),
        PlaceAction(-1, 2),
        PlaceAction(1, 15),
        StealAction,
    ],
)
def test_anything_else_is_not_an_action(obj):
    assert to_engine_action(obj) is None


def test_subclasses_are_not_accepted():
    class Sneaky(PlaceAction):
        pass

    assert to_engine_action(Sneaky(1, 2)) is None


def test_player_color_is_the_frameworks():
    assert PlayerColor is CoursePlayerColor
    assert [c.value for c in PlayerColor] == [0, 1]


# -- the 2022 tuple protocol --------------------------------------------------------------


def test_legacy_tuples_round_trip():
    for action in ALL_ACTIONS:
        legacy = to_legacy(action)
        assert from_legacy(legacy) == action
    assert to_legacy(cell_index(4, 7)) == ("PLACE", 4, 7)
    assert to_legacy(STEAL) == ("STEAL",)
    assert LEGACY_PLAYER_NAMES == ("red", "blue")


def test_to_legacy_refuses_non_actions():
    for junk in (-1, 257, "STEAL", None):
        with pytest.raises(ValueError, match="not a Cachex engine action"):
            to_legacy(junk)


def test_legacy_integer_types_other_than_int_are_accepted():
    assert from_legacy(("PLACE", NumpyLikeInt(0), NumpyLikeInt(14))) == cell_index(0, 14)


@pytest.mark.parametrize(
    "obj, reason",
    [
        (["PLACE", 1, 2], "expected a tuple"),
        ("PLACE(1, 2)", "expected a tuple"),
        (None, "expected a tuple"),
        ((), "first item"),
        (("place", 1, 2), "first item"),
        (("SPAWN", 1, 2), "first item"),
        ((b"PLACE", 1, 2), "first item"),
        (("STEAL", 1), "takes nothing else"),
        (("PLACE", 1), "exactly two coordinates"),
        (("PLACE", 1, 2, 3), "exactly two coordinates"),
        (("PLACE", (1, 2)), "exactly two coordinates"),
        (("PLACE", 1.0, 2), "whole numbers"),
        (("PLACE", "1", 2), "whole numbers"),
        (("PLACE", True, 2), "whole numbers"),
        (("PLACE", -1, 2), "whole numbers"),
        (("PLACE", 1, 15), "whole numbers"),
    ],
)
def test_from_legacy_is_strict_and_says_why(obj, reason):
    assert from_legacy(obj) is None
    assert reason in describe_legacy(obj)


def test_describe_legacy_accepts_valid_tuples():
    assert describe_legacy(("STEAL",)) == "a valid Cachex action"


# -- GameView, as agents use it -------------------------------------------------------------


def test_game_view_follows_a_cachex_game():
    view = GameView(PlayerColor.BLUE, {"game": "cachex", "game_options": {"n": 5}, "n": 5})
    assert view.state.n == 5 and not view.my_turn
    assert view.observe(PlaceAction(1, 3)) == cell_index(1, 3)
    assert view.my_turn
    assert STEAL in view.state.legal_actions()
    reply = view.to_agent(STEAL)
    assert reply == StealAction()
    view.observe(reply)
    assert view.state.cell(3, 1) == 1 and view.state.cell(1, 3) is None
    with pytest.raises(IllegalActionError, match="off the 5x5 board"):
        view.observe(PlaceAction(6, 0))
