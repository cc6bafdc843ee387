"""Action text from an untrusted agent or client: every text is an action or a NotationError, and fast.

The battleground's server reads a client's action with ``state.parse_action``
and catches NotationError only: anything else (int()'s ValueError over 4300
digits, a slow regex) would crash or stall the game's task.
"""
from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games import load_game
from referee.games.base import GameState, NotationError
from referee.games.infinitron.rules import FISH_TOKENS

GAMES = ["infexion", "cachex", "infinitron"]
#: A number far past int()'s 4300-digit limit on text.
HUGE = "1" * 5000
#: The largest frame a client may send: an action text this long must parse or fail fast.
LONG = 64 * 1024


def new_state(game: str) -> GameState[Any]:
    return load_game(game).new_state()


def parses_or_refuses(state: GameState[Any], text: str) -> None:
    """The property: an action whose canonical text reads back as itself, or a NotationError."""
    try:
        action = state.parse_action(text)
    except NotationError as exc:
        assert len(str(exc)) < 1000, "an error message quotes a long text whole"
        return
    assert state.parse_action(state.action_to_str(action)) == action


# -- the attacks -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "game, text",
    [
        ("infexion", f"SPAWN({HUGE}, 0)"),
        ("infexion", f"SPAWN(0, -{HUGE})"),
        ("infexion", f"SPREAD(0, 0, {HUGE}, 0)"),
        ("infexion", f"SPREAD(0, 0, 1, +{HUGE})"),
        ("cachex", f"PLACE({HUGE}, 0)"),
        ("cachex", f"PLACE(0, +{HUGE})"),
        ("infinitron", f"MOVE({HUGE}, 0, 0)"),
        ("infinitron", f"MOVE(1, {HUGE}, 0)"),
        ("infinitron", f"CLAIM(1, 0, -{HUGE})"),
        ("infinitron", f"DEFINE({HUGE}, 1, 1, MELEE, NONE)"),
        ("infinitron", f"ASTEROID({HUGE}, 0)"),
        ("infinitron", f"TERRAIN(LAVA, 0, {HUGE})"),
        ("infinitron", f"FISH_MARKET((0, 0), ({HUGE}, 0))"),
    ],
)
def test_a_5000_digit_number_is_a_notation_error_naming_the_digits(game, text):
    with pytest.raises(NotationError, match="at most 9 digits") as err:
        new_state(game).parse_action(text)
    assert len(str(err.value)) < 300


@pytest.mark.parametrize("game", GAMES)
def test_a_number_just_under_int_limit_is_refused_too(game):
    # 4000 digits: int() reads it, but such a number has no place in an action, a record or a message.
    text = {"infexion": "SPAWN({}, 0)", "cachex": "PLACE({}, 0)", "infinitron": "MOVE({}, 0, 0)"}[game]
    with pytest.raises(NotationError, match="at most 9 digits"):
        new_state(game).parse_action(text.format("7" * 4000))


def test_a_unit_number_of_nine_digits_still_reads():
    state = new_state("infinitron")
    action = state.parse_action("MOVE(999999999, 0, 0)")
    assert state.action_to_str(action) == "MOVE(999999999, 0, 0)"


def test_int_spellings_other_than_digits_are_not_infinitron_numbers():
    # int() took "1_0" as 10: the notation is digits with an optional sign.
    with pytest.raises(NotationError, match="whole number, not '1_0'"):
        new_state("infinitron").parse_action("MOVE(1_0, 0, 0)")


def test_a_long_fish_market_is_refused_at_its_first_cell_too_many():
    cells = ", ".join(f"(0, {q})" for q in range(-5, 6))
    with pytest.raises(NotationError, match=f"at most {FISH_TOKENS} cells"):
        new_state("infinitron").parse_action(f"FISH_MARKET({cells})")


def test_a_long_armour_text_is_quoted_short():
    with pytest.raises(NotationError, match="six characters") as err:
        new_state("infinitron").parse_action("DEFINE(2, 1, 2, MELEE, NONE, " + "+" * LONG + ")")
    assert len(str(err.value)) < 300


def _long_texts() -> list[str]:
    """64 KiB texts shaped to make a backtracking regex or a copying loop slow."""
    n = LONG
    pairs = ",".join(["(0,0)"] * (n // 6))
    return [
        "1" * n,
        " " * n,
        " " * (n - 1) + "x",
        "SPAWN(" + "1" * n,
        "SPAWN(" + " " * n + "x",
        "SPAWN(1" + " " * n + ",",
        "SPREAD(1, 2, 3" + " " * n,
        "PLACE(" + "1" * (n // 2) + "," + " " * (n // 2),
        "A" * n + "x",
        "A(" + ")" * n + "x",
        "A(" + ") " * (n // 2) + "x",
        "MOVE(" + "," * n + ")",
        "MOVE(" + "(" * n,
        "FISH_MARKET(" + pairs + ")",
        "FISH_MARKET(" + " " * n + ")",
        "FISH_MARKET(" + "(" * n + ")",
        "DEFINE(" + "1," * (n // 2) + ")",
        "\u0661" * n,  # Arabic-Indic digits: \d and int() take them
        "STEAL" + " " * n + "x",
    ]


@pytest.mark.parametrize("game", GAMES)
def test_64_kib_texts_parse_or_fail_fast(game):
    state = new_state(game)
    for text in _long_texts():
        start = time.perf_counter()
        parses_or_refuses(state, text)
        # Generous for a loaded machine: a quadratic parse of 64 KiB takes seconds.
        assert time.perf_counter() - start < 0.5, text[:40]


# -- the property ------------------------------------------------------------------------------------------

_WORDS = ["SPAWN", "SPREAD", "PLACE", "STEAL", "MOVE", "CLAIM", "BUILD", "ATTACK", "ABILITY", "DEFINE", "TERRAIN",
          "ASTEROID", "FISH_MARKET", "END_TURN", "NO_EVENT", "MELEE", "NONE", "LAVA", "+-0+-0"]
_PIECES = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(["(", ")", ",", ", ", " ", "-", "+", "_", "\n", "\t", "\u00a0", "\u0663", "\ud800"]),
    st.integers(-8, 12).map(str),
    st.text(alphabet="0123456789", min_size=1, max_size=6000),  # digit runs past int()'s limit
    st.text(max_size=6),
)
#: Text that often comes close to an action: command words, brackets, commas and numbers of any length.
ACTION_LIKE = st.lists(_PIECES, max_size=12).map("".join)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=150, deadline=None)
@given(text=st.one_of(ACTION_LIKE, st.text(max_size=40)))
def test_any_text_is_an_action_that_round_trips_or_a_notation_error(game, text):
    parses_or_refuses(new_state(game), text)
