"""``python -m referee search``: output, statistics and errors."""
from __future__ import annotations

import io
import subprocess
import sys

import pytest

from referee.search.board import parse_board, parse_spread_line
from referee.search.cli import main
from referee.search.replay import check_sequence
from tests.helpers import run_referee

BOARD = "0,0,r,1\n0,1,b,3\n1,1,b,1\n2,1,b,1\n3,1,b,1\n4,1,b,1\n"


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return run_referee("search", *args, input=stdin)


def test_stdout_holds_only_the_spread_lines_and_v_reports_on_stderr():
    done = run_cli("-v", stdin=BOARD)
    assert done.returncode == 0
    assert done.stdout == "SPREAD 0 0 0 1\nSPREAD 0 1 1 0\n"
    assert "2 SPREADs, proved optimal (lower bound 2)" in done.stderr
    assert "nodes expanded" in done.stderr and " s" in done.stderr
    assert run_cli(stdin=BOARD).stderr == ""


def test_board_from_a_file(tmp_path, capsys):
    path = tmp_path / "b.csv"
    path.write_text(BOARD)
    assert main([str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert check_sequence(parse_board(BOARD), [parse_spread_line(line) for line in lines]).valid


@pytest.mark.parametrize(
    "board, message",
    [
        ("0,0,r\n", "<stdin>:1: expected 4 comma-separated fields"),
        ("0,0,r,1\n0,9,b,1\n", "<stdin>:2: coordinate q = 9 is outside 0..6"),
        ("0,0,r,1\n\n0,1,b,0\n", "<stdin>:3: power 0 is outside 1..6"),
        ("0,0,red,1\n0,1,b,1\n", "<stdin>:1: unknown colour 'red'"),
        ("0,0,r,1\n0,1,b,1\n0,1,b,2\n", "<stdin>:3: cell (0, 1) is already given on line 2"),
        ("0,1,b,1\n", "<stdin>: no red cell"),
        ("0,1,r,1\n", "<stdin>: no blue cell"),
    ],
)
def test_bad_input_exits_2_naming_the_line(board, message):
    done = run_cli(stdin=board)
    assert done.returncode == 2
    assert done.stdout == ""
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_a_line_repeated_exactly_is_accepted_with_a_note_on_stderr():
    done = run_cli(stdin=BOARD + "0, 1, b, 3\n")
    assert done.returncode == 0
    assert done.stdout == "SPREAD 0 0 0 1\nSPREAD 0 1 1 0\n"
    assert done.stderr == "note: <stdin>:7: cell (0, 1) repeats line 2 exactly; the repeat is ignored\n"


def test_repeated_cells_are_accepted_with_last_wins(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1,4,b,2\n1,4,r,2\n2,4,b,2\n"))
    assert main(["--last-wins"]) == 0
    assert capsys.readouterr().out == "SPREAD 1 4 1 0\n"


def test_unwinnable_board_exits_1_with_a_message_on_stderr():
    done = run_cli(stdin="0,0,r,1\n1,1,b,6\n2,2,b,6\n")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "cannot be won" in done.stderr


def test_node_limit_exits_3_with_the_bound(capsys, tmp_path):
    path = tmp_path / "far.csv"
    path.write_text("3,3,r,1\n0,0,b,1\n0,3,b,1\n6,6,b,1\n")
    assert main([str(path), "--max-nodes", "1"]) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "gave up after 1 expansions; the optimum is at least" in captured.err


def test_missing_file_and_usage_errors_exit_2(tmp_path, capsys):
    assert main([str(tmp_path / "nope.csv")]) == 2
    assert "nope.csv: cannot read" in capsys.readouterr().err
    for argv in (["a.csv", "b.csv"], ["--grade", "prog"], ["--grade", "", "a.csv"], ["--max-nodes", "0"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
    (tmp_path / "bad.csv").write_text("0,0,r,1\n0,0,b,1\n")
    assert main(["--grade", "true", str(tmp_path / "bad.csv")]) == 2
    assert "bad.csv:2: cell (0, 0) is already given on line 1" in capsys.readouterr().err


def test_not_utf8_file_is_an_input_error(tmp_path, capsys):
    path = tmp_path / "latin.csv"
    path.write_bytes(b"0,0,r,1\n0,1,b,1 \xff\n")
    assert main([str(path)]) == 2
    assert "not UTF-8" in capsys.readouterr().err
