"""``python -m referee autograde partA``: mark a Part A program on Gradescope, or locally.

    python -m referee autograde partA [--submission DIR] [--scheme FILE] [--results FILE]

The submission folder (default ``/autograder/submission``) is the student's
Part A: the scheme's command (default ``python -m search``) is run from it,
once per board, as ``python -m referee search --grade`` runs a
program: in a process group of its own, the board on its stdin, the whole
group killed at the time limit, its ``SPREAD`` lines on stdout read as the
answer (other lines ignored; the first MB of stdout and the last MB of
stderr are kept, the rest read and dropped, and the feedback says so).
Each board is one Gradescope test; the results go to ``--results`` (default
``/autograder/results/results.json``) and a table of them to the terminal.

Where the machine allows it the program runs sealed, behind the walls Part
B's agents have (:class:`referee.hosting.program.SealedRun`): its own
namespaces (its folder read-only, no network, nothing it starts outlives
it), the system-call filter (no keyring, no namespaces of its own), a user
of its own when the marker is root (never root, never a user another
program had at the same time), and a cgroup: a hard memory cap at
``space_limit`` for all its processes together, at most 64 processes and
threads, and its CPU time counted by the kernel.  A program the kernel
stops at the cap is reported as over its memory limit.  Time stays wall
clock, as the course's Part A gave it: the CPU time is reported, not
limited (the limit is per board, the machine the submission's own).  The
results say what held: ``extra_data`` has ``sandbox`` (``sealed``, ``partly
sealed`` or ``unsealed``), ``sandbox_layers`` (each wall, and the cap in
MB) and ``runs`` (each board's wall and CPU seconds, peak memory, and
whether it was stopped at the cap), and the feedback one sentence.

The marking scheme (default ``/autograder/source/scheme.yaml``, where
Gradescope unpacks the autograder) is a small YAML file::

    command: python -m search   # run from the submission folder; a leading
                                # python/python3 is the autograder's Python
    sandbox: auto               # auto (sealed where bubblewrap works),
                                # required, or off
    time_limit: 30              # seconds of wall clock per board
    space_limit: 512            # MB for all the program's processes together
                                # (a hard cap, where a cgroup can be made; 0: none)
    valid_marks: 0.5            # share of a board's marks for a valid win that
                                # is longer than the shortest (0..1)
    optimum_budget: 100000      # solver node expansions for an optimum not given
    boards:
      - file: boards/two-rows.csv   # relative to the scheme file
        marks: 2
        optimum: 5              # optional: else our solver computes it
        name: Two rows          # optional: the test's name (default: the file's)
        visibility: visible     # optional: visible (default), hidden,
                                # after_due_date or after_published
        valid_marks: 0.25       # optional: this board's own share

Only ``boards`` (with ``file`` and ``marks`` in each) is required.  A board
earns its marks when the program's SPREADs are a legal sequence taking every
blue token in the optimum's number of actions, ``valid_marks`` of them when
the sequence is legal and winning but longer, and nothing when it is not a
winning sequence or the program ran out of time.  A crash after printing a
winning sequence is marked on the sequence, with the crash reported.  A bad
scheme (an unknown or missing field, a bad value, an unreadable or
unwinnable board, an optimum the solver cannot find within its budget) is
refused before anything runs, with one line naming the file, the line and
the field (the file is read as a tournament config is: :mod:`referee.yaml_file`),
and exit status 2.  Exit status 0 whenever results were written, whatever
the marks.
"""
from __future__ import annotations

import argparse
import itertools
import os
import shlex
import stat
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..agent_text import inert, inert_line
from ..search.board import BoardError, Cells, board_bytes, format_spread, parse_board
from ..hosting.environment import agent_environment, library_path
from ..hosting.program import MB, SealedRun, layers
from ..hosting.sandbox import MODES as SANDBOX_MODES
from ..hosting.sandbox import Sandbox, SandboxUnavailable, resolve, setting_mode
from ..search.grader import OUTPUT_CAP, GradeRow, ProgramRun, judge, run_program, spread_lines
from ..search.solver import Unsolvable, solve
from ..yaml_file import Document, YamlFileError, field_path, unknown_fields
from .gradescope import (
    METADATA_FILE, RESULTS_FILE, SCHEME_FILE, SUBMISSION_DIR, VISIBILITIES, AutograderResults, TestResult,
    feedback_table, submission_users,
)
from ..exit_status import ExitStatus


DEFAULT_COMMAND = "python -m search"
DEFAULT_TIME_LIMIT = 30.0
#: MB for all the program's processes together.  The course's Part A gave no figure.  Gradescope's container
#: has 768 MB unless the course asks for more: 512 MB leaves the marker (tens of MB) and the system room
#: under it, so a program that runs away is stopped by its cap, not the whole autograder by the container's;
#: and it is twice Part B's 250 MB per agent, far above what an honest solver of the course's boards needs.
DEFAULT_SPACE_LIMIT = 512.0
DEFAULT_VALID_MARKS = 0.5
DEFAULT_OPTIMUM_BUDGET = 100_000
#: Lines of the program's stderr shown when it crashes.
STDERR_TAIL = 15
#: SPREADs of a wrong or longer answer listed in its feedback.
SHOWN_ACTIONS = 30

_TOP_FIELDS = ("command", "time_limit", "space_limit", "valid_marks", "optimum_budget", "sandbox", "boards")
_BOARD_FIELDS = ("file", "marks", "optimum", "name", "visibility", "valid_marks")


class SchemeError(ValueError):
    """A marking scheme that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Board:
    """One board of the scheme, read and with its optimum known."""

    name: str
    file: Path
    text: str
    cells: Cells
    optimum: int
    marks: float
    valid_marks: float
    visibility: str


@dataclass(frozen=True)
class Scheme:
    """A Part A marking scheme."""

    command: tuple[str, ...]
    time_limit: float
    boards: tuple[Board, ...]
    #: auto, required or off (:data:`referee.hosting.sandbox.MODES`): whether the program runs sealed.
    sandbox: str = "auto"
    #: MB all the program's processes may hold together, a hard cap (0: none).
    space_limit: float = DEFAULT_SPACE_LIMIT


def _at(doc: Document, path: tuple[Any, ...], key: object = None) -> str:
    """``FILE:line`` of ``key`` in the mapping at ``path`` (or of the mapping), then the mapping's name if it is
    not the top: ``FILE:7: boards[0]``."""
    place = doc.place(*path) if key is None else doc.place(*path, key)
    return f"{place}: {field_path(path)}" if path else place


def _unknown(doc: Document, path: tuple[Any, ...], mapping: dict[Any, Any], allowed: tuple[str, ...]) -> None:
    """The first unknown field of the mapping at ``path``, named as every settings file names one."""
    problems = unknown_fields(doc, path, mapping, allowed)
    if problems:
        raise SchemeError(problems[0])


def _number(doc: Document, path: tuple[Any, ...], data: dict[str, Any], key: str, default: float | None, low: float,
            high: float | None, strict_low: bool = False) -> float:
    """``data[key]`` (the mapping at ``path``) as a number within bounds."""
    where = _at(doc, path, key)
    value = data.get(key, default)
    if value is None:
        raise SchemeError(f"{where}: '{key}' is missing")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SchemeError(f"{where}: '{key}' must be a number, not {value!r}")
    too_low = value <= low if strict_low else value < low
    if too_low or (high is not None and value > high):
        bound = f"above {low}" if strict_low else f"at least {low}"
        raise SchemeError(f"{where}: '{key}' must be {bound}" + (f" and at most {high}" if high is not None else "")
                          + f", not {value!r}")
    return float(value)


def load_scheme(path: Path) -> Scheme:
    """Read and check a scheme; raises :class:`SchemeError` naming ``path``, the line and the field.

    The file is read as every settings file is (:mod:`referee.yaml_file`: no
    alias bombs, bad YAML placed at its line and column); the first problem
    found is the one reported.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SchemeError(f"{path}: cannot read the marking scheme: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SchemeError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        doc = Document(path, text, kind="a marking scheme", guide="docs/marking.md")
    except YamlFileError as exc:
        raise SchemeError(exc.problems[0]) from None
    if doc.problems:  # a field given twice
        raise SchemeError(doc.problems[0])
    data = doc.data
    if not isinstance(data, dict):
        raise SchemeError(f"{path}: the marking scheme must be a mapping with a 'boards' list")
    _unknown(doc, (), data, _TOP_FIELDS)
    command_text = data.get("command", DEFAULT_COMMAND)
    if not isinstance(command_text, str):
        raise SchemeError(f"{_at(doc, (), 'command')}: 'command' must be a string, not {command_text!r}")
    try:
        command = shlex.split(command_text)
    except ValueError as exc:
        raise SchemeError(f"{_at(doc, (), 'command')}: 'command' cannot be split into words: {exc}") from None
    if not command:
        raise SchemeError(f"{_at(doc, (), 'command')}: 'command' is empty")
    time_limit = _number(doc, (), data, "time_limit", DEFAULT_TIME_LIMIT, 0, None, strict_low=True)
    space_limit = _number(doc, (), data, "space_limit", DEFAULT_SPACE_LIMIT, 0, None)
    valid_marks = _number(doc, (), data, "valid_marks", DEFAULT_VALID_MARKS, 0, 1)
    budget = _number(doc, (), data, "optimum_budget", DEFAULT_OPTIMUM_BUDGET, 1, None)
    sandbox = setting_mode(data.get("sandbox", "auto"))
    if sandbox is None:
        raise SchemeError(f"{_at(doc, (), 'sandbox')}: 'sandbox' must be one of {', '.join(SANDBOX_MODES)}, "
                          f"not {data['sandbox']!r}")
    entries = data.get("boards")
    if not isinstance(entries, list) or not entries:
        raise SchemeError(f"{_at(doc, (), 'boards')}: 'boards' must be a non-empty list of boards "
                          "({file: ..., marks: ...})")
    boards = tuple(
        _board(doc, index, entry, path.parent, valid_marks, int(budget)) for index, entry in enumerate(entries)
    )
    return Scheme(tuple(command), time_limit, boards, sandbox, space_limit)


def _board(doc: Document, index: int, entry: object, base: Path, valid_marks: float, budget: int) -> Board:
    at = ("boards", index)

    def where(key: str | None = None) -> str:
        return _at(doc, at, key)

    if not isinstance(entry, dict):
        raise SchemeError(f"{where()}: a board must be a mapping with 'file' and 'marks', not {entry!r}")
    _unknown(doc, at, entry, _BOARD_FIELDS)
    file = entry.get("file")
    if not isinstance(file, str) or not file:
        raise SchemeError(f"{where('file')}: 'file' must be a board file's path (relative to the scheme)")
    path = base / file
    try:
        text = path.read_text(encoding="utf-8")
        cells = parse_board(text, str(path))
    except OSError as exc:
        raise SchemeError(f"{where('file')}: 'file' {str(path)!r} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SchemeError(f"{where('file')}: 'file' {str(path)!r} is not UTF-8 text ({exc.reason})") from None
    except BoardError as exc:
        raise SchemeError(f"{where('file')}: 'file' is not a Part A board: {exc}") from None
    marks = _number(doc, at, entry, "marks", None, 0, None)
    own_valid = _number(doc, at, entry, "valid_marks", valid_marks, 0, 1)
    name = entry.get("name", Path(file).name)
    if not isinstance(name, str) or not name.strip():
        raise SchemeError(f"{where('name')}: 'name' must be a non-empty string, not {name!r}")
    visibility = entry.get("visibility", "visible")
    if visibility not in VISIBILITIES:
        raise SchemeError(
            f"{where('visibility')}: 'visibility' must be one of {', '.join(VISIBILITIES)}, not {visibility!r}"
        )
    if "optimum" in entry:
        optimum = entry["optimum"]
        if isinstance(optimum, bool) or not isinstance(optimum, int) or optimum < 1:
            raise SchemeError(
                f"{where('optimum')}: 'optimum' must be a whole number of SPREADs (at least 1), not {optimum!r}"
            )
    else:
        optimum = _solve(cells, budget, where())
    return Board(name, path, text, cells, optimum, marks, own_valid, visibility)


def _solve(cells: Cells, budget: int, where: str) -> int:
    try:
        result = solve(board_bytes(cells), budget)
    except Unsolvable as exc:
        raise SchemeError(f"{where}: the board cannot be won ({exc}); mark another board") from None
    if result.actions is None:
        raise SchemeError(
            f"{where}: the solver gave up after {budget} expansions (the optimum is at least "
            f"{result.lower_bound}); give the board's 'optimum' or raise 'optimum_budget'"
        )
    return len(result.actions)


def _command(scheme_command: tuple[str, ...]) -> list[str]:
    """The command to run: a leading ``python`` is the Python running the autograder, where
    this package (and whatever setup.sh installed) lives, whatever ``python`` is on PATH."""
    words = list(scheme_command)
    if words[0] in ("python", "python3"):
        words[0] = sys.executable
    return words


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _tail(text: str, lines: int = STDERR_TAIL) -> str:
    """The last lines of what the program printed, inert and indented (none passes for the feedback's own)."""
    kept = inert(text).rstrip().splitlines()[-lines:]
    return "\n".join("    " + line for line in kept)


def _crash(run: ProgramRun, space_limit: float = 0) -> str:
    """A sentence on how the program ended badly, or empty when it did not."""
    if run.exit_status is None or run.exit_status == 0:
        return ""
    if run.over_memory:
        how = (f"Your program went over its memory limit of {space_limit:g} MB (all its processes together) "
               "and was stopped by the kernel")
    elif run.exit_status < 0:
        how = f"Your program was killed by signal {-run.exit_status}"
        if run.exit_status == -9:
            how += " (often: it ran out of memory)"
    else:
        how = f"Your program crashed (exit status {run.exit_status})"
    if run.stderr.strip():
        return f"{how}. The end of what it printed to stderr:\n{_tail(run.stderr)}"
    return f"{how}, printing nothing to stderr."


def _usage(run: ProgramRun) -> str:
    """What the run took, and what of its output was not read; empty when it never started."""
    if run.start_error:
        return ""
    if run.cpu_seconds is None or run.peak_bytes is None:
        lines = [f"It ran for {run.seconds:.2f} s."]
    else:
        lines = [f"It ran for {run.seconds:.2f} s and used {run.cpu_seconds:.2f} s of CPU time and at most "
                 f"{run.peak_bytes / MB:.1f} MB of memory (all its processes together, counted by the kernel)."]
    cap = f"{OUTPUT_CAP / MB:g} MB"
    if run.stdout_cut:
        lines.append(f"It printed more than {cap} to stdout: only the first {cap} was read.")
    if run.stderr_cut:
        lines.append(f"It printed more than {cap} to stderr: only the last {cap} was kept.")
    return " ".join(lines)


def mark_board(board: Board, run: ProgramRun, time_limit: float, reproduce: str, space_limit: float = 0) -> TestResult:
    """One board's test: marks and what happened, in words a student understands."""
    row: GradeRow = judge(board.name, board.cells, run, board.optimum, str(board.optimum))
    verdict = row.verdict
    lines: list[str] = []
    score = 0.0
    if run.start_error:
        lines.append(f"Your program could not be started: {run.start_error}. No marks.")
    elif run.timed_out:
        lines.append(f"Timed out: your program was stopped after {time_limit:g} s (the limit per board). No marks.")
        if verdict.valid:
            lines.append(f"What it had printed by then was a valid win in {_plural(verdict.length, 'SPREAD')}.")
    elif verdict.valid:
        taken = _plural(verdict.length, "SPREAD")
        if verdict.length == board.optimum:
            score = board.marks
            lines.append(f"Your program took {taken}, the shortest possible: full marks.")
        elif verdict.length < board.optimum:
            # The scheme's optimum is wrong; the student is not the one to pay for it.
            score = board.marks
            lines.append(f"Your program took {taken}, fewer than the {board.optimum} the marking scheme expects: "
                         "full marks (please tell your teaching staff).")
        else:
            score = board.marks * board.valid_marks
            lines.append(
                f"Your program took {taken}; the shortest takes {board.optimum}: "
                f"{_share(board.valid_marks)} for a valid but longer win."
            )
    elif not verdict.reason.startswith("output line") and verdict.length == 0:
        lines.append("Your program printed no SPREAD lines, so it did not win the board. No marks.")
    else:
        lines.append(f"Your answer is not a winning sequence: {_why(verdict.reason)}. No marks.")
    crash = _crash(run, space_limit) if not run.timed_out else ""
    if crash:
        lines.append(crash)
    usage = _usage(run)
    if usage:
        lines.append(usage)
    actions = spread_lines(run.stdout)
    if score < board.marks and isinstance(actions, list) and actions:
        # The answer as we read it, so a student can replay it by hand.
        listed = [f"    {step}. {format_spread(a)}" for step, a in enumerate(actions[:SHOWN_ACTIONS], start=1)]
        more = len(actions) - SHOWN_ACTIONS
        lines.append("Your SPREADs, as read from your output:\n" + "\n".join(listed)
                     + (f"\n    ... and {more} more" if more > 0 else ""))
    shown = "\n".join("    " + line for line in board.text.strip().splitlines())
    lines.append(f"The board ({board.file.name}):\n{shown}")
    lines.append(f"To run it yourself, save the board as {board.file.name} and, in your submission folder, run:\n"
                 f"    {reproduce} < {board.file.name}\n"
                 f"or check its answer with this package: python -I -m referee search --grade {shlex.quote(reproduce)} "
                 f"{board.file.name}")
    return TestResult(board.name, score, board.marks, "\n".join(lines), board.visibility)


def _share(fraction: float) -> str:
    if fraction == 0:
        return "no marks"
    if fraction == 0.5:
        return "half marks"
    return f"{fraction:.0%} of the marks"


def _why(reason: str) -> str:
    """The replay's reason in the student's terms ("step 3" is their 3rd action)."""
    prefix = "illegal action at step "
    if reason.startswith(prefix):
        step, _, rest = reason[len(prefix):].partition(": ")
        action, _, problem = rest.partition(": ")
        if step.isdigit():
            return f"your {_ordinal(int(step))} action, {action}, is not legal ({problem})"
    if reason.startswith("step "):
        step, _, rest = reason[len("step "):].partition(": ")
        if step.isdigit():
            return f"your {_ordinal(int(step))} action, {rest}"
    if reason.startswith("output line"):
        return f"your program's {reason}"
    return f"after your SPREADs, {reason}" if "left on" in reason else reason


def _layout_note(submission: Path, command: tuple[str, ...]) -> str:
    """A hint when ``python -m NAME`` cannot find NAME at the submission's top level (a zipped folder)."""
    if len(command) == 3 and command[0] in ("python", "python3") and command[1] == "-m":
        module = command[2].split(".")[0]
        if not (submission / module).is_dir() and not (submission / f"{module}.py").is_file():
            found = sorted(p.name + "/" * p.is_dir() for p in submission.iterdir())[:10]
            return (
                f"Note: your submission has no '{module}' folder at its top level, so '{' '.join(command)}' "
                f"cannot find it. Upload the folder '{module}' itself (found: {', '.join(found) or 'nothing'})."
            )
    return ""


def _user(sandbox: Sandbox) -> tuple[bool, str]:
    """Whether the program ran as a user of its own (or, the marker not being root, as the marker's), in words."""
    if not sandbox.namespaces:
        return False, "it ran as the marker's user"
    if not sandbox.unprivileged:
        return False, "it ran as root (without capabilities)"
    if sandbox.own_user:
        return True, "as a user of its own"
    if os.geteuid() != 0:
        return True, "as the marker's own user (not root)"
    return False, "it ran as a user shared with other programs"


def sealing(sandbox: Sandbox, space_limit: float) -> tuple[str, str]:
    """``sealed``, ``partly sealed`` or ``unsealed``, and a sentence for the student saying which walls held."""
    if not sandbox.namespaces and not sandbox.cgroup:
        return "unsealed", ("The program was run unsealed: as an ordinary process of the grading machine, "
                            "not in a sandbox.")
    own_user, user = _user(sandbox)
    walls = [  # (held, said when it held, said when it did not)
        (sandbox.namespaces, "in a sandbox of its own (no network, its folder read-only, nothing it starts "
                             "outliving it)", "no sandbox of its own"),
        (sandbox.namespaces and sandbox.seccomp, "with a system-call filter", "no system-call filter"),
        (own_user, user, user),
        (sandbox.cgroup and space_limit > 0, f"at most {space_limit:g} MB of memory for all its processes",
         "no memory cap"),
        (sandbox.cgroup, "its CPU time counted by the kernel", "its CPU time not counted"),
    ]
    held = [said for up, said, _ in walls if up]
    missing = [said for up, _, said in walls if not up]
    state = "partly sealed" if missing else "sealed"
    return state, f"Your program ran {state}: {', '.join(held)}" + (f"; but {', '.join(missing)}." if missing else ".")


def _unreadable(submission: Path, most: int = 5000) -> str:
    """The first file or folder of the submission that a user other than its owner cannot read ("": none)."""
    for path in itertools.islice(itertools.chain([submission], submission.rglob("*")), most):
        try:
            mode = path.lstat().st_mode
        except OSError:
            continue
        needs = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
        if not stat.S_ISLNK(mode) and mode & needs != needs:
            return str(path.relative_to(submission)) if path != submission else "."
    return ""


def autograde(scheme: Scheme, submission: Path, command_text: str) -> AutograderResults:
    """Run the submission on every board of the scheme and mark it.

    Raises :class:`~referee.hosting.sandbox.SandboxUnavailable` when the
    scheme requires the sandbox and this machine has none.
    """
    start = time.perf_counter()
    command = _command(scheme.command)
    sandbox = resolve(scheme.sandbox)
    cap = int(scheme.space_limit * MB) or None
    env = None  # unsealed: ours, as `search --grade` runs a program
    libraries: list[str] = []
    if sandbox.namespaces:
        # The student's program is kept from the marker's files, results and environment (which may hold
        # anything), and nothing it starts outlives it.
        env = agent_environment(sealed=True)
        libraries = library_path(env)
    tests, runs = [], []
    for board in scheme.boards:
        with SealedRun(sandbox, command, submission, libraries, cap) as sealed:
            run = run_program(sealed.command, board.text.encode("utf-8"), scheme.time_limit, cwd=str(submission),
                              env=env, pass_fds=sealed.pass_fds)
        usage = sealed.usage
        # The kernel may also reach the cap reclaiming cache: over memory is a program it then stopped.
        stopped = usage.over_memory and not run.timed_out and run.exit_status not in (0, None)
        run = replace(run, cpu_seconds=usage.cpu_seconds, peak_bytes=usage.peak_bytes, over_memory=stopped)
        tests.append(mark_board(board, run, scheme.time_limit, command_text, scheme.space_limit))
        runs.append(_run_data(board.name, run))
    full = sum(t.score >= t.max_score for t in tests)
    partial = sum(0 < t.score < t.max_score for t in tests)
    summary = (
        f"Part A: {_plural(len(tests), 'board')}; {full} solved in the fewest SPREADs, "
        f"{partial} solved in more, {len(tests) - full - partial} with no marks."
    )
    note = _layout_note(submission, scheme.command)
    unreadable = _unreadable(submission) if sandbox.drops_privileges else ""
    if unreadable:
        note += ("\n" if note else "") + (
            f"Note: your program runs as an unprivileged user, which cannot read '{inert_line(unreadable)}' of "
            "your submission: make its files readable by others (chmod -R a+rX) before you zip it."
        )
    state, walls = sealing(sandbox, scheme.space_limit)
    output = "\n".join(part for part in (summary, note, walls) if part)
    extra = {"sandbox": state, "sandbox_layers": layers(sandbox, cap), "runs": runs}
    return AutograderResults(tuple(tests), time.perf_counter() - start, output, extra_data=extra)


def _run_data(name: str, run: ProgramRun) -> dict[str, object]:
    """One board's run for the results' ``extra_data``: what it took, as measured."""
    return {
        "board": name, "seconds": round(run.seconds, 3), "exit_status": run.exit_status, "timed_out": run.timed_out,
        "cpu_seconds": None if run.cpu_seconds is None else round(run.cpu_seconds, 3),
        "peak_memory_mb": None if run.peak_bytes is None else round(run.peak_bytes / MB, 1),
        "over_memory": run.over_memory, "stdout_cut": run.stdout_cut, "stderr_cut": run.stderr_cut,
    }


def _parser() -> argparse.ArgumentParser:
    from ..arguments import ArgumentParser  # an unknown option named, with a did-you-mean

    parser = ArgumentParser(
        prog="python -m referee autograde partA",
        description="Mark a Part A program on the scheme's boards and write Gradescope's results.json.",
    )
    parser.add_argument("--submission", type=Path, default=SUBMISSION_DIR, metavar="DIR",
                        help=f"the student's folder, the command's working directory ({SUBMISSION_DIR})")
    parser.add_argument("--scheme", type=Path, default=SCHEME_FILE, metavar="FILE",
                        help=f"the marking scheme ({SCHEME_FILE})")
    parser.add_argument("--results", type=Path, default=RESULTS_FILE, metavar="FILE",
                        help=f"where to write results.json ({RESULTS_FILE})")
    parser.add_argument("--metadata", type=Path, default=METADATA_FILE, metavar="FILE",
                        help=f"Gradescope's submission metadata, whose users the results name ({METADATA_FILE}; "
                             "none there: no names)")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    prog = "python -m referee autograde partA"
    if not args.submission.is_dir():
        print(f"{prog}: error: --submission {args.submission}: not a folder", file=sys.stderr)
        return ExitStatus.USAGE
    try:
        scheme = load_scheme(args.scheme)
    except SchemeError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    try:
        results = autograde(scheme, args.submission, shlex.join(scheme.command))
    except SandboxUnavailable as exc:
        print(f"{prog}: error: {args.scheme}: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    users, problem = submission_users(args.metadata)
    if problem:
        print(f"{prog}: note: {inert_line(problem)}")
    if users:
        # Who submitted, for the cohort's marks.csv (extra_data is not shown to students).
        results = replace(results, extra_data={**results.extra_data, "users": [dict(user) for user in users]})
    try:
        results.write(args.results)
    except OSError as exc:
        print(f"{prog}: error: cannot write {args.results}: {exc.strerror or exc}", file=sys.stderr)
        return ExitStatus.USAGE
    print(feedback_table(results))
    return 0
