"""The grader, on small fake "student programs" run as real subprocesses."""
from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest

from referee.search.cli import main
from tests.helpers import run_referee, wait_until

# The red 1 must take the blue 3 (making a red 4) and then sweep the column:
# optimum 2, see test_solver.test_capture_grows_a_red_stack_that_then_reaches_further.
BOARD = "0,0,r,1\n0,1,b,3\n1,1,b,1\n2,1,b,1\n3,1,b,1\n4,1,b,1\n"
BEST = ["SPREAD 0 0 0 1", "SPREAD 0 1 1 0"]


def program(tmp_path: Path, name: str, body: str) -> str:
    """A fake Part A program that reads the board from stdin, then runs ``body``."""
    path = tmp_path / f"{name}.py"
    path.write_text("import sys\nboard = sys.stdin.read()\n" + textwrap.dedent(body))
    return f"{sys.executable} {path}"


def printing(tmp_path: Path, name: str, lines: list[str]) -> str:
    return program(tmp_path, name, "".join(f"print({line!r})\n" for line in lines))


@pytest.fixture
def board(tmp_path: Path) -> str:
    path = tmp_path / "board.csv"
    path.write_text(BOARD)
    return str(path)


def grade(capsys, command: str, *boards: str, extra: tuple[str, ...] = ()) -> tuple[int, str]:
    status = main(["--grade", command, *boards, *extra])
    return status, capsys.readouterr().out


def row_of(table: str, name: str) -> str:
    return next(line for line in table.splitlines() if line.startswith(name))


def test_optimal_answer_among_other_output_is_valid_and_optimal(tmp_path, board, capsys):
    command = printing(tmp_path, "good", ["# searching...", BEST[0], "debug: halfway", BEST[1], "done"])
    status, table = grade(capsys, command, board)
    assert status == 0
    row = row_of(table, "board.csv")
    assert row.split()[:4] == ["board.csv", "yes", "2", "2"]
    assert "1/1 optimal" in row_of(table, "total")


def test_course_style_action_text_is_accepted(tmp_path, board, capsys):
    command = printing(tmp_path, "parens", ["SPREAD(0, 0, 0, 1)", "SPREAD(0, 1, 1, 0)"])
    status, table = grade(capsys, command, board)
    assert status == 0 and row_of(table, "board.csv").split()[1] == "yes"


def test_illegal_action_is_caught_with_its_step(tmp_path, board, capsys):
    command = printing(tmp_path, "illegal", [BEST[0], "SPREAD 3 3 0 1", BEST[1]])
    status, table = grade(capsys, command, board)
    assert status == 1
    row = row_of(table, "board.csv")
    assert row.split()[1] == "no"
    assert "illegal action at step 2: SPREAD 3 3 0 1: cell (3, 3) is empty" in row


def test_spread_from_a_blue_cell_is_illegal(tmp_path, board, capsys):
    status, table = grade(capsys, printing(tmp_path, "blue", ["SPREAD 0 1 1 0"]), board)
    assert status == 1 and "belongs to BLUE" in row_of(table, "board.csv")


def test_blue_tokens_left_is_invalid(tmp_path, board, capsys):
    status, table = grade(capsys, printing(tmp_path, "partial", [BEST[0]]), board)
    assert status == 1
    assert "4 blue tokens left on 4 cells" in row_of(table, "board.csv")


def test_moves_after_the_win_are_invalid(tmp_path, board, capsys):
    status, table = grade(capsys, printing(tmp_path, "extra", BEST + ["SPREAD 1 1 0 1"]), board)
    assert status == 1 and "step 3" in row_of(table, "board.csv")


def test_suboptimal_answer_is_valid_but_flagged(tmp_path, board, capsys):
    # Step away and back first: valid, two SPREADs longer than needed.
    detour = ["SPREAD 0 0 1 0", "SPREAD 1 0 -1 0"] + BEST
    status, table = grade(capsys, printing(tmp_path, "detour", detour), board)
    assert status == 0  # every board solved validly
    row = row_of(table, "board.csv")
    assert row.split()[:4] == ["board.csv", "yes", "4", "2"]
    assert "not optimal (+2)" in row
    assert "0/1 optimal" in row_of(table, "total")


def test_malformed_spread_line_is_invalid(tmp_path, board, capsys):
    status, table = grade(capsys, printing(tmp_path, "diagonal", ["SPREAD 0 0 1 1"]), board)
    assert status == 1
    assert "output line 1: (1, 1) is not one of the six directions" in row_of(table, "board.csv")


def test_crash_is_reported_with_its_exit_status(tmp_path, board, capsys):
    command = program(tmp_path, "crash", "raise SystemExit('cannot parse the board')\n")
    status, table = grade(capsys, command, board)
    assert status == 1
    row = row_of(table, "board.csv")
    assert "no SPREAD lines" in row and "exit status 1: cannot parse the board" in row


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is dead, just not reaped


def test_hanging_program_and_its_children_are_killed_at_the_limit(tmp_path, board, capsys):
    pid_file = tmp_path / "child.pid"
    command = program(
        tmp_path,
        "hang",
        f"""
        import subprocess, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open({str(pid_file)!r}, "w").write(str(child.pid))
        print("SPREAD 0 0 0 1", flush=True)
        time.sleep(600)
        """,
    )
    start = time.monotonic()
    status, table = grade(capsys, command, board, extra=("-t", "1.5"))
    assert time.monotonic() - start < 30  # not the program's 600 s
    assert status == 1
    row = row_of(table, "board.csv")
    assert "killed at the time limit" in row
    assert "blue tokens left" in row  # what it printed before hanging was still read
    child = int(pid_file.read_text())
    wait_until(lambda: not _alive(child), 5, f"the solver's child {child} to end")


def test_optimum_column_uses_the_index_when_given(tmp_path, board, capsys):
    index = tmp_path / "INDEX.tsv"
    index.write_text("file\toptimal_moves\nboard.csv\t1\nother.csv\tunverified\n")
    status, table = grade(capsys, printing(tmp_path, "good", BEST), board, extra=("--index", str(index)))
    # The index claims 1, the answer has 2: the grader says so.
    assert status == 0
    assert row_of(table, "board.csv").split()[:4] == ["board.csv", "yes", "2", "1"]
    assert "not optimal (+1)" in row_of(table, "board.csv")


def test_several_boards_and_a_missing_program(tmp_path, board, capsys):
    second = tmp_path / "second.csv"
    second.write_text("0,6,r,1\n0,0,b,2\n")
    status, table = grade(capsys, f"{tmp_path}/no-such-program", board, str(second))
    assert status == 1
    assert "could not start" in row_of(table, "board.csv")
    assert "0/2" in row_of(table, "total")


def test_a_bad_board_is_a_row_of_the_table_and_the_others_are_graded(tmp_path):
    # Through the real CLI, grading our own solver on the bundled boards plus
    # a board that repeats a line exactly (fine) and one whose repeat differs.
    root = Path(__file__).resolve().parents[2]
    bundled = sorted(str(p) for p in (root / "benchmarks" / "partA_boards").glob("*.csv"))
    bad = tmp_path / "conflict.csv"
    bad.write_text("0,0,r,1\n1,1,b,2\n1,1,b,3\n")
    repeated = tmp_path / "repeated.csv"
    repeated.write_text(BOARD + BOARD.splitlines()[1] + "\n")
    done = run_referee(
        "search", "--grade", f"{sys.executable} -m referee search",
        *bundled, str(bad), str(repeated), str(tmp_path / "missing.csv"), cwd=root, timeout=300,
    )
    assert done.returncode == 2  # some board is bad, though every good one was graded
    table = done.stdout
    for path in bundled:
        assert row_of(table, Path(path).name).split()[1] == "yes"
    assert row_of(table, "repeated.csv").split()[:4] == ["repeated.csv", "yes", "2", "2"]
    row = row_of(table, "conflict.csv")
    assert row.split()[1:5] == ["-", "-", "-", "-"]
    assert "bad board, not graded: " in row and "conflict.csv:3: cell (1, 1) is already given on line 2" in row
    assert "bad board, not graded: " in row_of(table, "missing.csv") and "cannot read" in row_of(table, "missing.csv")
    total = row_of(table, "total")
    assert f"{len(bundled) + 1}/{len(bundled) + 1}" in total and "2 bad boards not graded" in total
    assert "error: " in done.stderr and "conflict.csv:3" in done.stderr
    assert "note: " in done.stderr and "repeated.csv:7: cell (0, 1) repeats line 2 exactly" in done.stderr
    assert "Traceback" not in done.stderr
