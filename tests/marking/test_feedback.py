"""The pieces of Part B's Markdown feedback: code that shows agents' text as written, moves, the command."""
from __future__ import annotations

import shlex

import pytest
import yaml

from referee.limits import Limits
from referee.marking.feedback import (
    MAX_MOVE_LINES,
    Side,
    Turn,
    code_block,
    code_span,
    error_text,
    move_lines,
    moves_text,
    plain,
    play_command,
    replay,
    tail,
    yaml_value,
)
from referee.records import GameRecord


@pytest.mark.parametrize("value", [
    4, -3, 0, True, False, None, 0.2, 1e-05, 2.5e20, float("inf"), float("-inf"),
    "fast", "agents.greedy", "4", "0.5", "yes", "off", "null", "", " padded ", "a: b", "#hash", "[1]",
    "it's \"quoted\"", "line\nbreak", "ünïcödé", [1, "two", 3.0], {"depth": 2, "weights": [1, 2]},
])
def test_an_option_value_reads_back_as_itself_in_yaml(value):
    text = yaml_value(value)
    back = yaml.safe_load(text)
    assert back == value and type(back) is type(value), (value, text, back)
    # The whole NAME=VALUE survives the shell as one word.
    assert shlex.split(shlex.quote(f"depth={text}")) == [f"depth={text}"]


def test_nan_is_written_as_yamls_nan():
    assert yaml_value(float("nan")) == ".nan"


def test_simple_values_are_written_plainly():
    assert [yaml_value(v) for v in (4, 0.2, True, "fast")] == ["4", "0.2", "true", "fast"]
    assert yaml_value("4") == '"4"' and yaml_value(1e-05) == "1.0e-05"


def test_a_code_block_cannot_be_closed_by_the_text_it_holds():
    text = "before\n```\n# heading\n````\n![img](http://x/y.png) <script>\x1b[2J"
    block = code_block(text)
    fence = block.split("\n", 1)[0].removesuffix("text")
    assert fence == "`" * 5  # longer than any run of backticks inside
    assert block.endswith("\n" + fence)
    inner = block[len(fence) + len("text") + 1: -len(fence) - 1]
    assert inner == text.replace("\x1b", "\\x1b")  # shown as written, escapes made visible
    assert f"\n{fence}\n" not in inner + "\n"


def test_a_code_span_and_plain_text_stay_one_inert_line():
    assert code_span("comp30024-partb/") == "`comp30024-partb/`"
    assert code_span("a`b") == "``a`b``" and code_span("`x") == "`` `x ``"
    assert code_span("two\nlines") == "`two\\nlines`"
    assert plain("[click](http://x) *bold* <b>") == r"\[click\](http://x) \*bold\* \<b\>"
    assert plain("RED wins (elimination)") == "RED wins (elimination)"


def test_tail_keeps_the_end_and_says_what_was_cut():
    text = "\n".join(f"line {n}" for n in range(1, 31))
    assert tail(text, 5, 1000) == "... (25 lines above left out)\nline 26\nline 27\nline 28\nline 29\nline 30"
    assert tail("short\n", 5, 1000) == "short"
    cut = tail("x" * 50 + "\n" + "y" * 10, 5, 20)
    assert cut == "... (1 line above left out)\n" + "y" * 10


def test_an_error_shows_its_message_traceback_and_output():
    shown = error_text({
        "kind": "agent_error", "message": "action() raised ValueError: oops",
        "traceback": "Traceback (most recent call last):\n  File \"agent/program.py\", line 3\nValueError: oops\n",
        "output_tail": "thinking...\n",
    })
    assert shown is not None
    assert "action() raised ValueError: oops\n\nTraceback (most recent call last):" in shown
    assert "What it printed last:\n\n```text\nthinking...\n```" in shown
    assert error_text(None) is None and error_text({"kind": "x", "message": ""}) is None


def record(game: str, actions: list[str], **fields) -> GameRecord:
    return GameRecord(game=game, red="a", blue="b", winner=None, reason="turn_limit", turns=len(actions),
                      actions=actions, time_used={}, peak_memory_mb={}, error={}, **fields)


def test_infexion_moves_are_red_and_blue_side_by_side_with_the_final_board():
    replayed = replay(record("infexion", ["SPAWN(3, 3)", "SPAWN(2, 2)", "SPREAD(3, 3, 0, 1)"]))
    assert [(t.first, t.player, t.actions) for t in replayed.turns] == [
        (1, "RED", ("SPAWN(3, 3)",)), (2, "BLUE", ("SPAWN(2, 2)",)), (3, "RED", ("SPREAD(3, 3, 0, 1)",)),
    ]
    assert moves_text(replayed.turns).splitlines() == [
        "   RED" + " " * 20 + "BLUE",
        "1  SPAWN(3, 3)" + " " * 9 + "2  SPAWN(2, 2)",
        "3  SPREAD(3, 3, 0, 1)",
    ]
    assert replayed.board is not None and "r1" in replayed.board and "b1" in replayed.board
    assert replayed.board.splitlines()[-1].startswith("RED power")


def test_a_record_that_does_not_replay_still_lists_its_moves_without_a_board():
    replayed = replay(record("infexion", ["SPAWN(3, 3)", "SPAWN(3, 3)", "SPAWN(1, 1)"]))
    assert [t.player for t in replayed.turns] == ["RED", "?"] and replayed.board is None
    assert replayed.turns[1].actions == ("SPAWN(3, 3)", "SPAWN(1, 1)")


def test_turns_of_many_actions_are_one_line_each_and_long_games_keep_their_end():
    turns = [Turn(1, "chance", ("NO_EVENT",)), Turn(2, "RED", tuple(f"CLAIM(0, {n}, 0)" for n in range(40)))]
    lines = move_lines(turns)
    assert lines[0] == "1  chance NO_EVENT"
    assert lines[1].startswith("2  RED    CLAIM(0, 0, 0), CLAIM(0, 1, 0)") and lines[1].endswith(" more)")
    long = [Turn(n, ("RED", "BLUE")[(n - 1) % 2], (f"SPAWN({n % 7}, 0)",)) for n in range(1, 501)]
    text = moves_text(long).splitlines()
    assert len(text) == MAX_MOVE_LINES + 1
    assert text[0].split() == ["RED", "BLUE"] and text[1] == "... (the moves before action 143 are left out)"
    assert text[-1].split()[:2] == ["499", "SPAWN(2,"]


def test_the_command_gives_limits_seeds_game_options_and_every_agent_option():
    command, missing = play_command(
        Side("agent", {}), Side("agents.minimax", {"depth": 4, "max_move_time": 0.2, "name": "4"}),
        "cachex", {"n": 5}, Limits(time_limit=60, space_limit=250, call_timeout=30), 7, None,
    )
    assert missing == []
    assert command == (
        "python -I -m referee agent agents.minimax --game cachex --size 5 -t 60 -s 250 --call-timeout 30 --seed 7 "
        "--blue-option depth=4 --blue-option max_move_time=0.2 --blue-option 'name=\"4\"'"
    )
    command, missing = play_command(
        Side("agents.greedy", {"move_time": 1, "heuristics": {"mobility": 2}, "book": None}), Side("agent", {}),
        "infinitron", {"chaos": True, "armour": False, "cities": [[0, 1]]}, Limits(), 3, "ab12",
    )
    assert command == (
        "python -I -m referee agents.greedy agent --game infinitron --chaos --seed 3 --chance-seed ab12 "
        "--red-option move_time=1"
    )
    # No flag for the cities (the command would start another game); --red-option takes only scalars.
    assert missing == ["cities=[[0, 1]]", "red's option heuristics={\"mobility\": 2}", "red's option book=null"]
