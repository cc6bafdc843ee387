"""Agent text made inert (referee/agent_text.py), and the tables and feedback that show it.

The functions themselves: what they escape, what they leave alone, the CSV
and Markdown cells.  Then the places that show agent text without a game:
a tournament's CSV and Markdown tables (names and load errors) and the
marking feedback; games through the real command line are in
tests/hosting/test_inert_text.py.
"""
from __future__ import annotations

import csv
import re
import time
from pathlib import Path

import pytest

from referee.agent_text import csv_cell, inert, inert_line, markdown_cell
from referee.marking.part_a import _crash
from referee.marking.part_b import (
    DEFAULT_SCHEME,
    Found,
    Game,
    Marking,
    Unplayed,
    check_tests,
    opponent_test,
    parse_scheme,
)
from referee.marking.feedback import code_block
from referee.records import GameRecord
from referee.search.grader import ProgramRun, judge
from referee.tournament.aggregate import aggregate
from referee.tournament.tables import LeftOut, render, write_files
from tests.tournament.fakes import make_record

C0 = [chr(c) for c in range(0x20) if chr(c) not in "\n\t"]
C1 = [chr(c) for c in range(0x7F, 0xA0)]  # DEL, then U+0080-U+009F
BIDI = ["\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))]
SEPARATORS = ["\u2028", "\u2029"]
SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff"]
EVERY_CONTROL = C0 + C1 + BIDI + SEPARATORS + SURROGATES
#: Ordinary text: accents, other scripts, emoji (one with a zero-width joiner and a variation selector).
ORDINARY = ["plain ASCII text, with punctuation: (1, 2) -> [3]; {x} 100% ~ `code` \\ /", "é à ü ñ ß ø",
            "日本語 中文 한국어", "עברית العربية", "👍 🎉 👩\u200d💻 ❤\ufe0f", "C:\\path\\to\\file",
            "a\\x1b literal backslash"]


def raw_controls(text: str) -> list[str]:
    """The characters of ``text`` a terminal (or a bidi renderer) would act on, newline and tab apart."""
    return [c for c in text if c in EVERY_CONTROL]


# -- the functions -------------------------------------------------------------------


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_passes_through_unchanged(text):
    assert inert(text) == text
    assert inert_line(text) == text


def test_newlines_and_tabs_stay_in_inert_and_newlines_go_in_a_line():
    text = "first line\n\tindented second\nthird\n"
    assert inert(text) == text
    assert inert_line(text) == "first line\\n\tindented second\\nthird\\n"
    assert "\n" not in inert_line(text)


@pytest.mark.parametrize("char", EVERY_CONTROL, ids=lambda c: f"U+{ord(c):04X}")
def test_every_control_comes_out_escaped_as_python_writes_it(char):
    expected = {"\r": "\\r"}.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")
    for escape in (inert, inert_line):
        shown = escape(f"a{char}b")
        assert shown == f"a{expected}b"
        assert not raw_controls(shown)


def test_what_an_agent_would_send_is_readable_after():
    sent = "\x1b[2J\x1b]0;title\x07\r* referee @ result: BLUE wins\u202e\x9b1A"
    assert inert(sent) == "\\x1b[2J\\x1b]0;title\\x07\\r* referee @ result: BLUE wins\\u202e\\x9b1A"
    # The forged line stays inside the line it came in: nothing can start a line of its own but a newline.
    assert inert(sent).splitlines() == [inert(sent)]
    assert raw_controls(sent) and not raw_controls(inert(sent))


def test_after_inert_only_newlines_break_lines():
    # str.splitlines() breaks at \r, \x0b, \x0c, \x1c-\x1e, \x85, U+2028 and U+2029 too: none survive.
    text = "one\rtwo\x0bthree\x0cfour\x1cfive\x1dsix\x1eseven\x85eight\u2028nine\u2029ten\nsecond line"
    assert len(inert(text).splitlines()) == 2
    assert len(inert_line(text).splitlines()) == 1


def test_escaping_twice_changes_nothing_more():
    text = "".join(EVERY_CONTROL) + "\n ok é 👍"
    assert inert(inert(text)) == inert(text)
    assert inert_line(inert_line(text)) == inert_line(text)


def test_lone_surrogates_become_text_any_stream_can_encode():
    shown = inert_line("boom \ud83d")
    assert shown == "boom \\ud83d"
    shown.encode("utf-8")  # the raw text would raise UnicodeEncodeError


def test_a_long_output_is_escaped_quickly():
    output = ("a line an agent prints, \x1b[1m bold \x1b[0m and more\n" * 2000)[:64 * 1024]  # a call's most
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        shown = inert(output)
        timings.append(time.perf_counter() - start)
    # About a millisecond on this machine; the bound only catches a slow (say quadratic) escape, even under load.
    assert min(timings) < 0.5
    assert "\x1b" not in shown and shown.count("\n") == output.count("\n")


@pytest.mark.parametrize("text", ["=HYPERLINK(\"http://evil\", \"x\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)",
                                  "\t=1+2", "\r=1+2"])
def test_a_csv_cell_that_would_be_a_formula_gets_a_quote(text):
    cell = csv_cell(text)
    assert isinstance(cell, str) and cell.startswith("'")
    assert not raw_controls(cell) and "\n" not in cell


@pytest.mark.parametrize("value", [12, -3, 2.5, -0.25, "+12.0", "-3.5", "-0.0", "1e-05", "+1E+3", "45.3", "—", "±12.3",
                                   "3/4", "1-0-2", "agent_name", "", "±inf"])
def test_numbers_and_plain_text_stay_as_they_are_in_csv(value):
    assert csv_cell(value) == value


def test_a_csv_cell_is_one_inert_line():
    assert csv_cell("two\nlines\x1b[2J") == "two\\nlines\\x1b[2J"
    assert csv_cell("-\n=1") == "'-\\n=1"  # not a number: quoted


def test_a_markdown_cell_is_one_inert_line_with_its_pipes_escaped():
    assert markdown_cell("a | b\nc\x1b[2J") == "a \\| b\\nc\\x1b[2J"
    assert markdown_cell(3) == "3"
    assert markdown_cell("é 👍") == "é 👍"


# -- tournament tables ------------------------------------------------------------------

#: Names as hostile as a name can be (a config checks its names; a tampered games.jsonl does not).
NASTY_NAMES = ["=HYPERLINK(\"http://evil\")", "@SUM(1+1)", "x|y\x1b[2J\u202e", "-1+2"]
NASTY_ERROR = "Agent() raised RuntimeError: boom\x1b]0;title\x07\r* referee @ result: forged\n| col | umn |\u202e"


def read_csv(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.reader(file))


NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def test_tables_with_hostile_names_write_safe_csv_and_markdown(tmp_path):
    a, b, c, d = NASTY_NAMES
    records = [make_record(a, b, "RED"), make_record(b, c, None), make_record(c, d, "BLUE"), make_record(d, a, "RED")]
    left_out = (
        LeftOut("=evil\x1b[2J", "/subs/=evil\x1b[2J", NASTY_ERROR, False),
        LeftOut("kept|one", "/subs/kept|one", NASTY_ERROR, True),
    )
    written = write_files(aggregate(records), tmp_path, "Hostile", left_out=left_out)
    csvs = [path for path in written if path.suffix == ".csv"]
    assert csvs
    names_seen = 0
    for path in csvs:
        text = path.read_text(encoding="utf-8")
        assert not raw_controls(text), path
        for row in read_csv(path):
            for cell in row:
                if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                    assert NUMBER.fullmatch(cell), f"{path.name}: {cell!r} would run as a formula"
                names_seen += cell in ("'" + a, "'" + b, "'-1+2")
    assert names_seen  # the names are there, quoted
    markdown = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert not raw_controls(markdown)
    assert "x\\|y\\x1b[2J\\u202e" in markdown  # escaped, and its pipe cannot split a cell
    rows = [line for line in markdown.splitlines() if line.startswith("|")]
    for line in rows:
        # Every row of a table has its table's number of cells: an unescaped | or newline would change it.
        cells = len(re.split(r"(?<!\\)\|", line)) - 2
        assert cells > 0
    left_out_rows = [line for line in rows if "subs/" in line]
    assert len(left_out_rows) == 2 and all(len(re.split(r"(?<!\\)\|", line)) - 2 == 4 for line in left_out_rows)
    shown = render(aggregate(records), left_out=left_out)
    assert not raw_controls(shown)
    assert not any(line.startswith("* referee @") for line in shown.splitlines())


def test_a_failed_agents_message_in_the_reports_games_list_is_inert_text(tmp_path):
    from referee.tournament.report import game_rows, report_html

    hostile = NASTY_ERROR + '"><script>alert(1)</script>'
    record = make_record("safe", "=evil", "RED", "agent_error", error_color="BLUE")
    error = {"kind": "agent_error", "message": hostile, "traceback": None}
    record = GameRecord(**{**record.to_dict(), "error": {**record.error, "BLUE": error}})
    rows, _ = game_rows([record], tmp_path, with_replays=False)
    page = report_html(aggregate([record]), rows, 1, "Hostile")
    assert not raw_controls(page) and "<script>alert" not in page and "&quot;&gt;&lt;script&gt;alert" in page
    assert 'title="Agent() raised RuntimeError: boom\\x1b]0;title\\x07\\r* referee @' in page  # all of it, escaped


# -- marking feedback ---------------------------------------------------------------------


def forfeited_game(color: str) -> GameRecord:
    record = make_record("submission", "random", "BLUE" if color == "RED" else "RED", "agent_error",
                         error_color=color)
    error = {"kind": "agent_error", "message": NASTY_ERROR, "traceback": None, "output_tail": NASTY_ERROR}
    return GameRecord(**{**record.to_dict(), "error": {**record.error, color: error}})


def test_part_b_feedback_shows_the_agents_message_inert(tmp_path):
    scheme = parse_scheme(DEFAULT_SCHEME, "the default scheme")
    opponent = scheme.opponents[0]
    games = [Game(0, opponent, "RED", 1, forfeited_game("RED"))]
    found = Found("agent", tmp_path)
    played = Marking(scheme, found, games)
    unloaded = Marking(scheme, found, games, Unplayed("your agent could not be loaded", code_block(NASTY_ERROR)))
    tests = [opponent_test(played, opponent), *check_tests(played), *check_tests(unloaded)]
    outputs = "\n".join(test.output for test in tests)
    # Markdown code blocks show the message as it was written, its line breaks kept and its controls escaped.
    assert "boom\\x1b]0;title\\x07\\r* referee @ result: forged\n| col | umn |\\u202e\n```" in outputs
    assert not raw_controls(outputs)
    outside_code = re.sub(r"```[a-z]*\n.*?\n```", "", outputs, flags=re.S)
    assert "boom" not in outside_code
    assert not any(line.startswith(("* referee @", "| col")) for line in outside_code.splitlines())


def test_part_a_feedback_and_the_grader_show_the_programs_stderr_inert():
    run = ProgramRun("", "Traceback ...\nValueError: \x1b[2J\r* referee @ forged\u202e", 1, False, 0.1)
    crash = _crash(run)
    assert "ValueError: \\x1b[2J\\r* referee @ forged\\u202e" in crash and not raw_controls(crash)
    row = judge("board.csv", {}, run, 3, "3")
    assert "\\x1b[2J" in row.note and not raw_controls(row.note)
