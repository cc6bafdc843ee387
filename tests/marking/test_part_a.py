"""The Part A autograder on fake submission folders, each a real ``search`` package run in a real subprocess."""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from referee.marking.gradescope import problems
from referee.marking.part_a import main
from tests.helpers import run_referee, wait_until
from tests.hosting.runs import alive
from tests.marking.part_a_files import TINY, TINY_SCHEME, scheme, submission
from tests.sandboxing import require_sandbox

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks" / "partA_boards"

# TINY (part_a_files.py): SPREAD 3 3 0 1 wins at once; stepping away and back is a valid win in 2.
SHORTEST = ["SPREAD 3 3 0 1"]
LONGER = ["SPREAD 3 3 1 0", "SPREAD 4 3 -1 1"]

# A correct Part A program: this package's solver, reading the board from stdin.
SOLVER = """
    import sys
    from referee.search.board import board_bytes, format_spread, parse_board
    from referee.search.solver import solve

    cells = parse_board(sys.stdin.read())
    for action in solve(board_bytes(cells)).actions:
        print(format_spread(action))
"""


def printing(tmp_path: Path, lines: list[str]) -> Path:
    """A submission that reads its board and prints ``lines``."""
    return submission(tmp_path, "import sys\nsys.stdin.read()\n" + "".join(f"print({line!r})\n" for line in lines))


def autograde(capsys, sub: Path, scheme_file: Path, tmp_path: Path) -> tuple[dict, str]:
    """Run the autograder in-process; the results.json it wrote (checked against the format) and its table."""
    results = tmp_path / "results" / "results.json"
    status = main(["--submission", str(sub), "--scheme", str(scheme_file), "--results", str(results)])
    out = capsys.readouterr().out
    assert status == 0
    data = json.loads(results.read_text())
    assert problems(data) == []
    return data, out


def test_correct_program_gets_full_marks_on_every_board(tmp_path, capsys):
    boards = {"tiny.csv": TINY, "two-rows.csv": (BENCHMARKS / "two-rows.csv").read_text()}
    scheme_file = scheme(tmp_path, """
        time_limit: 20
        boards:
          - file: tiny.csv
            marks: 1
          - file: two-rows.csv
            marks: 2
            optimum: 10
            name: Two rows
            visibility: after_due_date
    """, boards)
    data, out = autograde(capsys, submission(tmp_path, SOLVER), scheme_file, tmp_path)
    assert data["score"] == 3
    assert [(t["name"], t["score"], t["max_score"], t["status"]) for t in data["tests"]] == [
        ("tiny.csv", 1, 1, "passed"), ("Two rows", 2, 2, "passed")
    ]
    assert data["tests"][1]["visibility"] == "after_due_date"
    assert "took 10 SPREADs, the shortest possible: full marks" in data["tests"][1]["output"]
    assert "python -m search < two-rows.csv" in data["tests"][1]["output"]
    assert "Total: 3/3" in out


def test_optimum_not_given_is_computed_by_the_solver(tmp_path, capsys):
    # long-walk's optimum is 6: a program that takes 6 gets full marks, so the solver found 6.
    boards = {"long-walk.csv": (BENCHMARKS / "long-walk.csv").read_text()}
    scheme_file = scheme(tmp_path, "boards:\n  - file: long-walk.csv\n    marks: 1\n", boards)
    data, _ = autograde(capsys, submission(tmp_path, SOLVER), scheme_file, tmp_path)
    assert data["tests"][0]["score"] == 1
    assert "took 6 SPREADs, the shortest possible" in data["tests"][0]["output"]


def test_illegal_action_gets_nothing_and_says_which_and_why(tmp_path, capsys):
    sub = printing(tmp_path, ["SPREAD 0 0 0 1"])
    data, out = autograde(capsys, sub, scheme(tmp_path, TINY_SCHEME), tmp_path)
    test = data["tests"][0]
    assert (test["score"], test["max_score"], test["status"]) == (0, 4, "failed")
    assert "your 1st action, SPREAD 0 0 0 1, is not legal (cell (0, 0) is empty)" in test["output"]
    assert "as read from your output:\n    1. SPREAD 0 0 0 1\n" in test["output"]
    assert "Total: 0/4" in out


def test_the_feedbacks_commands_run_in_the_submission_folder_even_beside_a_referee_package(tmp_path, capsys):
    # The course's template folders carry a referee/ of their own: the feedback's check must still run ours.
    sub = printing(tmp_path, LONGER)
    (sub / "referee").mkdir()
    (sub / "referee" / "__init__.py").write_text("")
    (sub / "referee" / "__main__.py").write_text("print('the course referee, not this one')\n")
    data, _ = autograde(capsys, sub, scheme(tmp_path, TINY_SCHEME), tmp_path)
    output = data["tests"][0]["output"]
    reproduce = re.search(r"^    (.+) < tiny\.csv$", output, re.M)[1]
    check = re.search(r"^or check its answer with this package: (.+)$", output, re.M)[1]
    (sub / "tiny.csv").write_text(TINY)
    python = shlex.quote(sys.executable)
    ran = subprocess.run(f"{reproduce.replace('python', python, 1)} < tiny.csv", shell=True, cwd=sub,
                         capture_output=True, text=True, timeout=60)
    assert ran.stdout.split("\n")[:2] == LONGER
    graded = subprocess.run(check.replace("python", python, 1), shell=True, cwd=sub, capture_output=True, text=True,
                            timeout=120)
    assert "the course referee" not in graded.stdout + graded.stderr
    assert graded.returncode == 0 and "tiny.csv" in graded.stdout, graded.stdout + graded.stderr


def test_blue_tokens_left_gets_nothing_and_says_how_many(tmp_path, capsys):
    data, _ = autograde(capsys, printing(tmp_path, ["SPREAD 3 3 1 0"]), scheme(tmp_path, TINY_SCHEME), tmp_path)
    assert data["tests"][0]["score"] == 0
    assert "1 blue token left on 1 cell" in data["tests"][0]["output"]


def test_valid_but_longer_win_gets_the_schemes_share(tmp_path, capsys):
    data, out = autograde(capsys, printing(tmp_path, LONGER), scheme(tmp_path, TINY_SCHEME), tmp_path)
    test = data["tests"][0]
    assert (test["score"], test["status"]) == (2, "failed")  # valid_marks 0.5 by default
    assert test["output"].startswith("Your program took 2 SPREADs; the shortest takes 1: half marks")
    assert "1. SPREAD 3 3 1 0\n    2. SPREAD 4 3 -1 1" in test["output"]
    assert "1 solved in more" in data["output"]


def test_share_for_a_longer_win_comes_from_the_board_or_the_scheme(tmp_path, capsys):
    scheme_file = scheme(tmp_path, """
        valid_marks: 0
        boards:
          - file: tiny.csv
            marks: 4
          - file: tiny.csv
            marks: 4
            name: tiny again
            valid_marks: 0.25
    """)
    data, _ = autograde(capsys, printing(tmp_path, LONGER), scheme_file, tmp_path)
    assert [t["score"] for t in data["tests"]] == [0, 1]


def test_shortest_win_among_other_output_gets_full_marks(tmp_path, capsys):
    sub = printing(tmp_path, ["thinking...", *SHORTEST, "done in 0.01 s"])
    data, _ = autograde(capsys, sub, scheme(tmp_path, TINY_SCHEME), tmp_path)
    assert data["tests"][0]["score"] == 4
    assert "as read from your output" not in data["tests"][0]["output"]  # listed only when marks were lost


def test_slow_program_is_stopped_at_the_time_limit_and_gets_nothing(tmp_path, capsys):
    sub = submission(tmp_path, """
        import sys, time
        sys.stdin.read()
        print("SPREAD 3 3 0 1", flush=True)
        time.sleep(120)
    """)
    scheme_file = scheme(tmp_path, "time_limit: 2\nboards:\n  - file: tiny.csv\n    marks: 4\n")
    data, _ = autograde(capsys, sub, scheme_file, tmp_path)
    test = data["tests"][0]
    assert test["score"] == 0
    assert "Timed out: your program was stopped after 2 s" in test["output"]
    # What it printed before the limit is still read, and said to be valid.
    assert "a valid win in 1 SPREAD" in test["output"]


def test_crashing_program_gets_nothing_and_its_stderr_is_shown(tmp_path, capsys):
    sub = submission(tmp_path, """
        import sys
        sys.stdin.read()
        print("debug: reading board", file=sys.stderr)
        raise RuntimeError("my search has a bug")
    """)
    data, _ = autograde(capsys, sub, scheme(tmp_path, TINY_SCHEME), tmp_path)
    output = data["tests"][0]["output"]
    assert data["tests"][0]["score"] == 0
    assert "printed no SPREAD lines" in output
    assert "crashed (exit status 1)" in output
    assert "RuntimeError: my search has a bug" in output


def test_crash_after_a_shortest_win_is_marked_on_the_win_and_reported(tmp_path, capsys):
    sub = submission(tmp_path, """
        import sys
        sys.stdin.read()
        print("SPREAD 3 3 0 1", flush=True)
        sys.exit(3)
    """)
    data, _ = autograde(capsys, sub, scheme(tmp_path, TINY_SCHEME), tmp_path)
    assert data["tests"][0]["score"] == 4
    assert "crashed (exit status 3)" in data["tests"][0]["output"]


def test_unreadable_output_line_is_named(tmp_path, capsys):
    data, _ = autograde(capsys, printing(tmp_path, ["SPREAD 3 3 0 7"]), scheme(tmp_path, TINY_SCHEME), tmp_path)
    assert data["tests"][0]["score"] == 0
    assert "your program's output line 1" in data["tests"][0]["output"]
    assert "not one of the six directions" in data["tests"][0]["output"]


def test_zipped_folder_instead_of_the_package_gets_a_hint(tmp_path, capsys):
    sub = tmp_path / "submission"
    (sub / "part_a" / "search").mkdir(parents=True)
    data, _ = autograde(capsys, sub, scheme(tmp_path, TINY_SCHEME), tmp_path)
    assert data["score"] == 0
    assert "has no 'search' folder at its top level" in data["output"]
    assert "part_a/" in data["output"]
    assert "No module named search" in data["tests"][0]["output"]


def test_scheme_command_is_run_from_the_submission_folder(tmp_path, capsys):
    sub = tmp_path / "submission"
    sub.mkdir()
    (sub / "answer.py").write_text("import sys\nsys.stdin.read()\nprint(open('answer.txt').read())\n")
    (sub / "answer.txt").write_text("SPREAD 3 3 0 1\n")
    scheme_file = scheme(tmp_path, "command: python answer.py\nboards:\n  - file: tiny.csv\n    marks: 1\n")
    data, _ = autograde(capsys, sub, scheme_file, tmp_path)
    assert data["tests"][0]["score"] == 1
    assert "python answer.py < tiny.csv" in data["tests"][0]["output"]


#: A few hundred bytes of YAML that stand for 10**9 values once its aliases are expanded ("billion laughs").
ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(ord('a') + n)}: &{chr(ord('a') + n)} [" + ", ".join([f"*{chr(ord('a') + n - 1)}"] * 10) + "]\n"
    for n in range(1, 9)
)


@pytest.mark.parametrize(
    ("text", "boards", "expected"),
    [
        ("time_limt: 5\nboards: [{file: tiny.csv, marks: 1}]\n", None,
         "scheme.yaml:1: time_limt: unknown field (did you mean 'time_limit'?)"),
        ("boards: [{file: tiny.csv}]\n", None, "boards[0]: 'marks' is missing"),
        ("boards: [{file: tiny.csv, marks: many}]\n", None, "boards[0]: 'marks' must be a number, not 'many'"),
        ("boards: [{file: nowhere.csv, marks: 1}]\n", None, "boards[0]: 'file'"),
        ("boards: [{file: tiny.csv, marks: 1, visibility: secret}]\n", None, "'visibility' must be one of"),
        ("boards: [{file: tiny.csv, marks: 1, optimum: 0}]\n", None, "'optimum' must be a whole number"),
        ("valid_marks: 2\nboards: [{file: tiny.csv, marks: 1}]\n", None, "'valid_marks' must be at least 0"),
        ("time_limit: 0\nboards: [{file: tiny.csv, marks: 1}]\n", None, "'time_limit' must be above 0"),
        ("space_limit: -1\nboards: [{file: tiny.csv, marks: 1}]\n", None, "'space_limit' must be at least 0"),
        ("space_limit: lots\nboards: [{file: tiny.csv, marks: 1}]\n", None, "'space_limit' must be a number"),
        ("command: ''\nboards: [{file: tiny.csv, marks: 1}]\n", None, "'command' is empty"),
        ("sandbox: maybe\nboards: [{file: tiny.csv, marks: 1}]\n", None,
         "scheme.yaml:1: 'sandbox' must be one of auto, required, off, not 'maybe'"),
        ("boards: []\n", None, "'boards' must be a non-empty list"),
        ("boards: [{file: tiny.csv, marks: 1\n", None, "not valid YAML"),
        # Problems name their line (and a YAML error its column), as a tournament config's do.
        ("boards: [{file: tiny.csv, marks: 1}}]\n", None, "scheme.yaml:1:36: not valid YAML: expected ',' or ']'"),
        ("time_limit: 5\nboards:\n  - file: tiny.csv\n    marks: many\n", None,
         "scheme.yaml:4: boards[0]: 'marks' must be a number, not 'many'"),
        ("boards: [{file: tiny.csv, marks: 1}]\nboards: []\n", None, "scheme.yaml:2: boards: given twice"),
        (ALIAS_BOMB + "boards: [{file: tiny.csv, marks: 1}]\n", None,
         "values once its aliases (*name) are expanded; a marking scheme never needs so many"),
        ("boards: [{file: bad.csv, marks: 1}]\n", {"bad.csv": "3, 3, g, 1\n"}, "'file' is not a Part A board"),
        # Two blue 6s cost Red more power than its one token has: never won.
        ("boards: [{file: lost.csv, marks: 1}]\n", {"lost.csv": "3, 3, r, 1\n0, 0, b, 6\n6, 6, b, 6\n"},
         "the board cannot be won"),
    ],
)
def test_bad_scheme_is_refused_naming_the_file_and_field(tmp_path, capsys, text, boards, expected):
    scheme_file = scheme(tmp_path, text, boards)
    results = tmp_path / "results.json"
    sub = printing(tmp_path, SHORTEST)
    status = main(["--submission", str(sub), "--scheme", str(scheme_file), "--results", str(results)])
    err = capsys.readouterr().err
    assert status == 2
    assert expected in err and str(scheme_file) in err
    assert len(err.strip().splitlines()) == 1
    assert not results.exists()


def test_missing_scheme_and_missing_submission_are_usage_errors(tmp_path, capsys):
    sub = printing(tmp_path, SHORTEST)
    assert main(["--submission", str(sub), "--scheme", str(tmp_path / "none.yaml")]) == 2
    assert "cannot read the marking scheme" in capsys.readouterr().err
    assert main(["--submission", str(tmp_path / "gone"), "--scheme", str(scheme(tmp_path, TINY_SCHEME))]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_cli_writes_results_gradescope_accepts_and_prints_the_table(tmp_path):
    sub = printing(tmp_path, LONGER)
    results = tmp_path / "out" / "results.json"
    done = run_referee(
        "autograde", "partA", "--submission", str(sub),
        "--scheme", str(scheme(tmp_path, TINY_SCHEME)), "--results", str(results), timeout=120,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(results.read_text())
    assert problems(data) == []
    assert data["score"] == 2 and data["tests"][0]["max_score"] == 4
    assert "tiny.csv" in done.stdout and "Total: 2/4" in done.stdout


def test_cli_refuses_a_bad_scheme_with_one_line_and_no_traceback(tmp_path):
    scheme_file = scheme(tmp_path, "time_limit: 5\nboards:\n  - file: tiny.csv\n    mark: 1\n")
    done = run_referee(
        "autograde", "partA", "--submission", str(printing(tmp_path, SHORTEST)),
        "--scheme", str(scheme_file), "--results", str(tmp_path / "results.json"), timeout=120,
    )
    assert done.returncode == 2
    assert f"{scheme_file}:4: boards[0].mark: unknown field (did you mean 'marks'?)" in done.stderr
    assert "Traceback" not in done.stderr


#: The daemon the program below starts, found by its command line (the folder it writes in, then its two pipes):
#: it says it has started, waits for the program's end (its pipe's end of file), writes a file of the marker's
#: if it can, and lives on (until the test ends it).
DAEMON = """
import os, sys, time
started, ended = int(sys.argv[2]), int(sys.argv[3])
os.write(started, b"up")
os.close(started)
os.read(ended, 1)
try:
    with open(sys.argv[1] + "/daemon", "w") as file:
        file.write("still here")
except OSError:
    pass
time.sleep(120)
"""

TAMPERING = """
    import os, sys
    sys.stdin.read()
    SEEN = bool(os.environ.get("MARKERS_SECRET"))  # the marker's environment: then no answer, no marks
    OUTSIDE = {outside!r}
    for path in (OUTSIDE + "/tampered", "tampered_here", *([OUTSIDE + "/secret_seen"] if SEEN else [])):
        try:
            with open(path, "w") as file:
                file.write("x")
        except OSError:
            pass
    started, up = os.pipe()  # the daemon says on it that it runs
    ended, alive = os.pipe()  # only this program holds `alive`: its end of file is this program's end
    if os.fork() == 0:  # a daemon of its own session, out of the program's process group
        os.setsid()
        if os.fork() == 0:
            os.close(1)
            os.close(2)
            os.close(alive)
            os.set_inheritable(up, True)
            os.set_inheritable(ended, True)
            os.execv(sys.executable, [sys.executable, "-c", {daemon!r}, OUTSIDE, str(up), str(ended)])
        os._exit(0)
    os.close(up)
    os.close(ended)
    told = os.read(started, 2)  # b"" if the daemon ended without saying it runs
    if told and not SEEN:  # an answer (marks) only once the daemon runs
        print("SPREAD 3 3 0 1")
"""


def commands_with(argument: str) -> list[int]:
    """The living processes with ``argument`` on their command line."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if entry.isdigit() and argument in argv and alive(int(entry)):
            found.append(int(entry))
    return found


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_sealed_program_cannot_write_the_markers_files_nor_outlive_its_run(tmp_path, capsys, monkeypatch,
                                                                               sandbox):
    """Sealed (the default where bubblewrap works), a Part A program sees its own folder and the marker's
    Python read-only, not the marker's environment, and what it starts ends with it; unsealed, the same
    program reads the environment, writes a file of the marker's and leaves a daemon behind (so the sealed
    run's assertions can fail)."""
    if sandbox == "auto":
        require_sandbox()
    monkeypatch.setenv("MARKERS_SECRET", "a token of the marker's")
    outside = tmp_path / "outside"
    outside.mkdir()
    sub = submission(tmp_path, TAMPERING.format(outside=str(outside), daemon=DAEMON))
    try:
        data, _ = autograde(capsys, sub, scheme(tmp_path, TINY_SCHEME + f"    sandbox: {sandbox}\n"), tmp_path)
        if sandbox == "auto":
            assert data["extra_data"]["sandbox"] == "sealed"
            # It did not see the secret, and its answer counts: given once its daemon ran.
            assert data["score"] == 4, data["tests"][0]["output"]
            # The daemon ran before the program ended; had it outlived the run it would live on for minutes.
            wait_until(lambda: not commands_with(str(outside)), 10, "the sealed program's daemon to end with its run")
            written = sorted(p.name for p in outside.iterdir()) + sorted(p.name for p in sub.glob("tampered*"))
            assert written == []
        else:
            assert data["extra_data"]["sandbox"] == "unsealed"
            assert "The program was run unsealed" in data["output"]
            assert data["score"] == 0  # it saw the secret
            assert commands_with(str(outside)), "the unsealed program's daemon did not outlive its run"
            wait_until(lambda: (outside / "daemon").exists(), 30, "the daemon to write once the program ended")
            written = sorted(p.name for p in outside.iterdir()) + sorted(p.name for p in sub.glob("tampered*"))
            assert written == ["daemon", "secret_seen", "tampered", "tampered_here"]
    finally:
        for pid in commands_with(str(outside)):
            os.kill(pid, signal.SIGKILL)

