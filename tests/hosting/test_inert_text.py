"""Agent text is inert (issue 35): the forge agent's control sequences reach no console, log, results.md or CSV raw.

The forge agent (tests/hosting/hostile/forge/) prints clear-screen, window
title, erase-line, C1 and bidi sequences and forged ``* referee @ result:``
lines on standard output and standard error at every call, and raises at
its third action with all of them in its message.  Played through the real
command line (``python -m referee`` in a subprocess, agents unsealed: this
is about text, not the sandbox), every byte the commands write is checked:
nothing a terminal would obey, no ``* referee @`` line the referee did not
write, and the agent's text still there to read, escaped.  The record keeps
the raw text (JSON escapes it), which shows the agent really sent it.
"""
from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

from .hostile.forge import FORGED, FORGED_LINE, FORGED_WORDS, RAISES_AT
from .hostile_runs import copy_tree

FORGE = "tests.hosting.hostile.forge"
RANDOM = "agents.random_agent"
UNSEALED = ["--sandbox", "off"]
PREFIX = "* referee @ "
#: The characters a terminal or a bidi renderer acts on (newline and tab apart), checked without referee/agent_text.py.
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"


def raw_controls(text: str) -> list[str]:
    """Every character of ``text`` a terminal would obey: C0 but newline and tab, DEL, C1, bidi controls."""
    return [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F or c in BIDI]


def run(args: list[str], cwd: Path = ROOT, stdin: bytes = b"", timeout: float = 60) -> tuple[int, str, str]:
    """A command of the referee: its exit status, standard output and standard error (UTF-8, strictly)."""
    proc = subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, input=stdin, capture_output=True,
                          timeout=timeout)
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


def assert_inert(text: str, where: str) -> None:
    """Nothing raw, and no ``* referee @`` line that the agent forged (its lines start escaped, or after a label)."""
    raw = raw_controls(text)
    assert not raw, f"{where} holds raw control characters {sorted(set(raw))!r}:\n{text[-3000:]}"
    # The agent's lines say "* referee @ result: RED wins (forged ...)": shown, they come after an escape or a label.
    forged = [line for line in text.splitlines() if line.startswith(f"{PREFIX}result: RED wins ({FORGED_WORDS}")]
    assert not forged, f"{where} has lines the agent forged: {forged}"


def result_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(f"{PREFIX}result:")]


def assert_record_holds_the_raw_text(record: dict, color: str) -> None:
    """The record keeps what the agent sent, raw: the escaping above had something to escape."""
    error = record["error"][color]
    assert error["kind"] == "agent_error"
    for text in (error["message"], error["traceback"], error["output_tail"]):
        assert "\x1b[2J" in text and FORGED in text and "\u202e" in text and "\x9b" in text, text
        assert raw_controls(text)


# -- one game, every verbosity ------------------------------------------------------------


@pytest.mark.parametrize("verbosity", [0, 1, 2, 3])
def test_a_game_shows_nothing_the_agent_sent_raw(tmp_path, verbosity):
    record_path, log = tmp_path / "game.json", tmp_path / "game.log"
    code, out, err = run(["-v", str(verbosity), "-l", str(log), "--record", str(record_path), *UNSEALED,
                          "--seed", "7", FORGE, RANDOM])
    assert code == 0, err
    for text, where in ((out, "standard output"), (err, "standard error"), (log.read_text("utf-8"), "the log")):
        assert_inert(text, where)
    # The one result line is the referee's: Blue wins, Red's message quoted in it, escaped.
    (result,) = result_lines(out)
    assert result.startswith(f"{PREFIX}result: BLUE wins (RED agent_error") and "\\x1b[2J" in result
    if verbosity >= 1:
        assert "RED agent failed (agent_error): action() raised ValueError: forge raised \\x1b[2J" in out
        assert "\\r* referee @ result: RED wins (forged by the agent)" in out  # in the message and its traceback
    if verbosity >= 2:
        # What it printed, a line each after its label: on standard output and on standard error alike.
        assert "  RED | forge action 1: \\x1b[2J\\x1b[H\\x1b]0;forged window title\\x07" in out
        assert "  RED | forge __init__ on stderr: \\x1b[2J" in out
        assert f"  RED | {FORGED_LINE.strip()}" in out.splitlines()
    else:
        assert "RED | " not in out
    record = json.loads(record_path.read_text())
    assert record["winner"] == "BLUE" and record["moves"]["RED"] == RAISES_AT - 1
    assert_record_holds_the_raw_text(record, "RED")


def test_an_action_that_quotes_the_agent_and_the_record_on_standard_output(tmp_path):
    # Its action() returns an object whose repr, quoted in the illegal action's message, is all control sequences.
    code, out, err = run(["-v", "3", "--record", "-", *UNSEALED, RANDOM, f"{FORGE}:ReturnsAForgery"])
    assert code == 0, err
    assert_inert(err, "the commentary (standard error)")
    assert_inert(out, "the record (standard output)")  # JSON: every control escaped there
    record = json.loads(out)
    assert record["winner"] == "RED" and record["reason"] == "illegal_action"
    assert "\x1b[2J" in record["error"]["BLUE"]["message"] and FORGED in record["error"]["BLUE"]["message"]
    assert "BLUE agent failed (illegal_action): action() returned Forgery Forgery(\\x1b[2J" in err
    assert len(result_lines(err)) == 1


def test_a_load_error_is_shown_inert(tmp_path):
    code, out, err = run(["-v", "3", "--record", str(tmp_path / "r.json"), *UNSEALED, f"{FORGE}:FailsToLoad", RANDOM])
    assert code == 0, err
    assert_inert(out + err, "the output")
    assert result_lines(out) == [result_lines(out)[0]] and "RED load_error: FailsToLoad() raised RuntimeError" in out
    assert FORGED in json.loads((tmp_path / "r.json").read_text())["error"]["RED"]["message"]


# -- replay and play --------------------------------------------------------------------------------


def test_the_replay_of_the_record_shows_it_inert(tmp_path):
    record_path = tmp_path / "game.json"
    code, _, err = run(["-v", "0", "--record", str(record_path), *UNSEALED, "--seed", "3", FORGE, RANDOM])
    assert code == 0, err
    assert_record_holds_the_raw_text(json.loads(record_path.read_text()), "RED")
    code, out, err = run(["replay", str(record_path), "--wait", "0"])
    assert code == 0, err
    assert_inert(out + err, "the replay")
    assert "RED agent failed (agent_error): action() raised ValueError: forge raised \\x1b[2J" in out
    assert len(result_lines(out)) == 1


def test_playing_the_agent_in_the_terminal_shows_it_inert(tmp_path):
    # A person (standard input) plays Red; every cell is offered in turn, those taken are refused and the next tried.
    moves = "".join(f"SPAWN({r}, {q})\n" for r in range(7) for q in range(7)).encode()
    record_path = tmp_path / "human.json"
    code, out, err = run(["play", *UNSEALED, "--seed", "5", "--record", str(record_path), FORGE], stdin=moves)
    assert code == 0, err
    assert_inert(out + err, "the terminal game")
    assert "  BLUE | forge action 1: \\x1b[2J" in out and f"  BLUE | {FORGED_LINE.strip()}" in out.splitlines()
    assert len(result_lines(out)) == 1 and result_lines(out)[0].startswith(f"{PREFIX}result: BLUE agent: action() ")
    assert_record_holds_the_raw_text(json.loads(record_path.read_text()), "BLUE")


# -- a tournament ----------------------------------------------------------------------------------

#: Discovered folders that cannot be agents; their names and load errors are their authors' text.
BROKEN_FOLDERS = {
    "evil": "from tests.hosting.hostile.forge import FailsToLoad as Agent\n",  # a load error full of sequences
    "@cmd|x": "",  # not an identifier: left out unread, its name shown
    "esc\x1b[2J\u202e": "",  # a name that is itself control sequences
}
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


@pytest.fixture(scope="module")
def tournament_tree(tmp_path_factory) -> Path:
    """A copy of the tree with a folder of discovered submissions that fail to load, names and all."""
    tree = copy_tree(tmp_path_factory.mktemp("inert"))
    for name, code in BROKEN_FOLDERS.items():
        (tree / "subs" / name).mkdir(parents=True)
        (tree / "subs" / name / "__init__.py").write_text(code)
    return tree


def test_a_tournament_writes_nothing_raw_and_no_formula(tournament_tree, tmp_path):
    config = tmp_path / "inert.yaml"
    config.write_text(
        "name: inert\ngame: infexion\nagents:\n"
        f"  - {{name: forge, spec: {FORGE}}}\n  - {{name: random, spec: {RANDOM}}}\n"
        "  - {discover: subs, on_error: exclude}\n"
        "games_per_pair: 2\nworkers: 1\nseed: 11\nsandbox: 'off'\n"
    )
    output = tmp_path / "out"
    code, out, err = run(["tournament", str(config), "-q", "-o", str(output)], cwd=tournament_tree, timeout=120)
    assert code == 0, err
    assert_inert(out + err, "the tournament's console")
    assert "esc\\x1b[2J\\u202e" in out + err and "raised RuntimeError: forge cannot load \\x1b[2J" in out + err
    markdown = (output / "results.md").read_text("utf-8")
    assert_inert(markdown, "results.md")
    assert "esc\\x1b[2J\\u202e" in markdown and "@cmd\\|x" in markdown
    assert "forge cannot load \\x1b[2J" in markdown
    tables = sorted(output.glob("*.csv"))
    assert tables
    for path in tables:
        text = path.read_text("utf-8")
        assert_inert(text, path.name)
        with open(path, newline="", encoding="utf-8") as file:
            for row in csv.reader(file):
                formulas = [cell for cell in row if cell.startswith(FORMULA_START) and not NUMBER.fullmatch(cell)]
                assert not formulas, f"{path.name}: cells a spreadsheet would run: {formulas}"
    # The agent did send it all: the games' records keep it raw.
    # Split at newlines only: a record keeps U+2028 and U+0085 raw, and splitlines() would split there.
    records = [json.loads(line) for line in (output / "games.jsonl").read_text("utf-8").split("\n") if line]
    assert len(records) == 2
    for record in records:
        color = "RED" if record["red_name"] == "forge" else "BLUE"
        assert_record_holds_the_raw_text(record, color)


def test_a_named_agent_that_fails_to_load_stops_the_tournament_with_its_error_inert(tournament_tree, tmp_path):
    config = tmp_path / "broken.yaml"
    config.write_text(
        f"name: broken\nagents:\n  - {{name: broken, spec: '{FORGE}:FailsToLoad'}}\n  - {RANDOM}\n"
        "sandbox: 'off'\nworkers: 1\n"
    )
    code, out, err = run(["tournament", str(config), "-q", "-o", str(tmp_path / "out")], cwd=tournament_tree)
    assert code == 2, out + err
    assert_inert(out + err, "the tournament's errors")
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    # One error line: the agent's newline did not start another.
    assert len(errors) == 1 and "cannot be loaded: FailsToLoad() raised RuntimeError: forge cannot load \\x1b" in err
    assert not (tmp_path / "out" / "games.jsonl").exists()  # nothing was played
