"""Grade a Part A program: run it on boards, replay its answers, tabulate.

The program runs once per board as a subprocess in a session of its own,
the board on its stdin; at the time limit the whole process group is killed,
so a hung program (or one that left children behind) cannot stall grading.
What it prints is read to the end (it never blocks on a full pipe) but kept
only up to :data:`OUTPUT_CAP` a stream: the start of stdout (the answer),
the end of stderr (where a crash says why); the run says how much was cut.

Here the program runs as an ordinary process (``python -m referee search
--grade`` is a check of one's own program; this package imports nothing of
the sandbox's).  ``python -m referee autograde partA`` runs the same
:func:`run_program` on a sealed command (:mod:`referee.hosting.program`).
"""
from __future__ import annotations

import csv
import os
import re
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence

from tabulate import tabulate

from ..agent_text import inert
from .board import ActionLineError, Cells, parse_spread_line
from .replay import Verdict, check_sequence

_SPREAD_WORD = re.compile(r"\s*SPREAD\b")

#: Output kept per stream (bytes); a program that prints more is cut off (and drained).
OUTPUT_CAP = 1 << 20


@dataclass(frozen=True)
class ProgramRun:
    """What one run of the graded program did."""

    stdout: str
    stderr: str
    exit_status: int | None  # None when killed at the time limit or never started
    timed_out: bool
    seconds: float
    start_error: str = ""
    #: Bytes printed but not kept (:data:`OUTPUT_CAP`): the end of stdout, the start of stderr.
    stdout_cut: int = 0
    stderr_cut: int = 0
    #: What the kernel counted, where a cgroup held the run (:mod:`referee.hosting.program`); None: not counted.
    cpu_seconds: float | None = None
    peak_bytes: int | None = None
    #: The kernel stopped the program at its memory cap.
    over_memory: bool = False


class _Kept:
    """What is kept of one output stream: its first (``head``) or its last :data:`OUTPUT_CAP` bytes."""

    def __init__(self, head: bool) -> None:
        self.head = head
        self.chunks: deque[bytes] = deque()
        self.kept = 0
        self.seen = 0

    def add(self, chunk: bytes) -> None:
        self.seen += len(chunk)
        if self.head:
            chunk = chunk[: OUTPUT_CAP - self.kept]
        if chunk:
            self.chunks.append(chunk)
            self.kept += len(chunk)
        # The end: whole chunks are dropped from the front while the rest still holds OUTPUT_CAP bytes.
        while not self.head and self.kept - len(self.chunks[0]) >= OUTPUT_CAP:
            self.kept -= len(self.chunks.popleft())

    @property
    def cut(self) -> int:
        return self.seen - min(self.kept, OUTPUT_CAP)

    def text(self) -> str:
        data = b"".join(self.chunks)
        if self.head:
            if self.cut:
                data = data[: data.rfind(b"\n") + 1]  # a line cut in two is not read as a (wrong) answer
        else:
            data = data[-OUTPUT_CAP:]
        return data.decode("utf-8", "replace")


def _drain(stream, keep: _Kept) -> None:
    # Read to EOF so the program never blocks on a full pipe; keep what fits.
    while True:
        chunk = stream.read(65536)
        if not chunk:
            return
        keep.add(chunk)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_program(
    command: Sequence[str], stdin: bytes, time_limit: float, cwd: str | None = None,
    env: Mapping[str, str] | None = None, pass_fds: Sequence[int] = (),
) -> ProgramRun:
    """Run ``command`` with ``stdin`` (and ``env``, default ours); kill its process group after ``time_limit`` s.

    ``pass_fds``: descriptors the command inherits (a sealed command's filter, for bubblewrap).
    """
    start = time.perf_counter()
    try:
        proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            pass_fds=tuple(pass_fds),
            start_new_session=True,  # its own process group, killed as a whole
        )
    except OSError as exc:
        reason = f"could not start {command[0]!r}: {exc.strerror or exc}"
        return ProgramRun("", "", None, False, 0.0, start_error=reason)
    out, err = _Kept(head=True), _Kept(head=False)
    readers = [
        threading.Thread(target=_drain, args=(proc.stdout, out), daemon=True),
        threading.Thread(target=_drain, args=(proc.stderr, err), daemon=True),
    ]
    for reader in readers:
        reader.start()
    assert proc.stdin is not None  # stdin=PIPE
    try:
        proc.stdin.write(stdin)
        proc.stdin.close()
    except (BrokenPipeError, OSError):
        pass  # the program does not read its input; its answer will say so
    timed_out = False
    try:
        proc.wait(timeout=time_limit)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc.pid)
        proc.wait()
    seconds = time.perf_counter() - start
    _kill_group(proc.pid)  # whatever it left running in its group
    for reader in readers:
        reader.join(timeout=2.0)
    return ProgramRun(
        out.text(), err.text(), None if timed_out else proc.returncode, timed_out, seconds,
        stdout_cut=out.cut, stderr_cut=err.cut,
    )


def spread_lines(stdout: str) -> list[int] | str:
    """The actions of the ``SPREAD`` lines in a program's output, other lines
    ignored; or the reason the output cannot be read."""
    actions = []
    for number, line in enumerate(stdout.splitlines(), start=1):
        if not _SPREAD_WORD.match(line):
            continue
        try:
            actions.append(parse_spread_line(line))
        except ActionLineError as exc:
            return f"output line {number}: {exc}"
    return actions


@dataclass(frozen=True)
class BadBoard:
    """A board file that cannot be read: it gets a row saying why, and is not graded."""

    reason: str


@dataclass(frozen=True)
class GradeRow:
    """One board's grade."""

    board: str
    verdict: Verdict
    optimum: int | None
    optimum_text: str  # e.g. "5", ">= 7", "?"
    seconds: float
    note: str
    bad_board: bool = False  # the board itself is bad: the program was not run on it

    @property
    def optimal(self) -> bool:
        return self.verdict.valid and self.optimum is not None and self.verdict.length == self.optimum


def bad_board_row(board: str, reason: str) -> GradeRow:
    """The row of a board that could not be read."""
    return GradeRow(
        board, Verdict(False, reason, 0), None, "-", 0.0, f"bad board, not graded: {reason}", bad_board=True
    )


def judge(board: str, cells: Cells, run: ProgramRun, optimum: int | None, optimum_text: str) -> GradeRow:
    """Turn one program run into a grade."""
    if run.start_error:
        return GradeRow(board, Verdict(False, run.start_error, 0), optimum, optimum_text, run.seconds, run.start_error)
    parsed = spread_lines(run.stdout)
    if isinstance(parsed, str):
        verdict = Verdict(False, parsed, 0)
    else:
        verdict = check_sequence(cells, parsed)
    notes = []
    if run.timed_out:
        notes.append(f"killed at the time limit ({run.seconds:.1f} s)")
    elif run.exit_status:
        # The program's own text, in a note shown on the console: its last line, inert.
        last = inert(run.stderr).strip().splitlines()[-1:] or [""]
        notes.append(f"exit status {run.exit_status}" + (f": {last[0][:80]}" if last[0] else ""))
    if run.stdout_cut:
        notes.append(f"stdout cut after {OUTPUT_CAP >> 20} MB")
    if not verdict.valid:
        if isinstance(parsed, list) and not parsed:
            notes.insert(0, "no SPREAD lines")
        else:
            notes.insert(0, verdict.reason)
    elif optimum is not None and verdict.length != optimum:
        diff = verdict.length - optimum
        notes.insert(
            0, f"not optimal (+{diff})" if diff > 0 else f"shorter than the optimum {optimum}: check the optimum"
        )
    return GradeRow(board, verdict, optimum, optimum_text, run.seconds, "; ".join(notes))


def read_index(path: str) -> dict[str, int]:
    """Proven optima from an ``INDEX.tsv`` (columns ``file`` and ``optimal_moves``);
    rows whose optimum is not a number are skipped."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        if not reader.fieldnames or "file" not in reader.fieldnames or "optimal_moves" not in reader.fieldnames:
            raise ValueError(f"{path}: expected a tab-separated header with 'file' and 'optimal_moves'")
        optima = {}
        for row in reader:
            value = (row.get("optimal_moves") or "").strip()
            if value.isdigit():
                optima[row["file"]] = int(value)
        return optima


def grade_table(rows: list[GradeRow]) -> str:
    """The grades as a table, with a total row (bad boards are listed, not counted)."""
    body: list[list[object]] = []
    for row in rows:
        if row.bad_board:
            body.append([row.board, "-", "-", "-", "-", row.note])
            continue
        body.append(
            [
                row.board,
                "yes" if row.verdict.valid else "no",
                row.verdict.length if row.verdict.valid else "-",
                row.optimum_text,
                f"{row.seconds:.2f}",
                row.note,
            ]
        )
    graded = [row for row in rows if not row.bad_board]
    bad = len(rows) - len(graded)
    valid = sum(row.verdict.valid for row in graded)
    optimal = sum(row.optimal for row in graded)
    body.append(
        [
            "total",
            f"{valid}/{len(graded)}",
            sum(row.verdict.length for row in graded if row.verdict.valid),
            f"{optimal}/{len(graded)} optimal",
            f"{sum(row.seconds for row in graded):.2f}",
            f"{bad} bad board{'s' * (bad != 1)} not graded" if bad else "",
        ]
    )
    return tabulate(body, headers=["board", "valid", "length", "optimum", "time (s)", "note"], disable_numparse=True)


def grade(
    command: Sequence[str],
    boards: list[tuple[str, str, Cells | BadBoard]],
    time_limit: float,
    optimum_of: Callable[[str, Cells], tuple[int | None, str]],
    cwd: str | None = None,
    progress: Callable[[GradeRow], None] | None = None,
) -> list[GradeRow]:
    """Run ``command`` on each ``(name, text, cells)`` board and judge it.

    A :class:`BadBoard` in place of the cells gets its row without running
    the program, and grading goes on with the next board.
    """
    rows = []
    for name, text, cells in boards:
        if isinstance(cells, BadBoard):
            row = bad_board_row(name, cells.reason)
        else:
            run = run_program(command, text.encode("utf-8"), time_limit, cwd)
            optimum, optimum_text = optimum_of(name, cells)
            row = judge(name, cells, run, optimum, optimum_text)
        rows.append(row)
        if progress is not None:
            progress(row)
    return rows


def display_names(paths: list[str]) -> list[str]:
    """File names, or the paths as given where two boards share a name."""
    names = [Path(p).name for p in paths]
    return [name if names.count(name) == 1 else path for name, path in zip(names, paths)]
