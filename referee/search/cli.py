"""``python -m referee search``: solve a Part A board, or grade a Part A program.

    python -m referee search [FILE] [-v] [--last-wins] [--max-nodes N]
    python -m referee search --grade "COMMAND" BOARD.csv... [-t SECONDS] [--index INDEX.tsv]

Exit status: 0 solved (or, grading, every board solved validly); 1 the board
cannot be won (grading: some board not solved validly); 2 bad usage or input
(grading: some board file is bad; the others are still graded, and it has a
row in the table); 3 the search gave up at ``--max-nodes``; 130 interrupted.
"""
from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from .board import BoardError, Cells, board_bytes, format_spread, parse_board
from .grader import BadBoard, GradeRow, display_names, grade, grade_table, read_index
from .solver import Unsolvable, solve
from ..exit_status import ExitStatus


#: Default search budget (node expansions) for the optimum column when grading.
GRADE_OPTIMUM_BUDGET = 100_000


def _parser() -> argparse.ArgumentParser:
    from ..arguments import ArgumentParser  # an unknown option named, with a did-you-mean

    parser = ArgumentParser(
        prog="python -m referee search",
        description="Part A: print a shortest sequence of Red SPREADs that takes every blue token, "
        "or (--grade) run a Part A program on boards and check its answers.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="board file(s) ('r, q, p, k' per line); stdin if none")
    parser.add_argument("-v", "--verbose", action="store_true", help="statistics on stderr")
    parser.add_argument(
        "--last-wins",
        action="store_true",
        help="accept a cell given twice, keeping its last line (the course's reader did this)",
    )
    parser.add_argument(
        "--max-nodes", type=int, metavar="N", help="give up after N node expansions (reports the bound reached)"
    )
    grading = parser.add_argument_group("grading")
    grading.add_argument("--grade", metavar="COMMAND", help="program to grade, run once per board with it on stdin")
    grading.add_argument(
        "-t", "--time-limit", type=float, default=30.0, metavar="SECONDS", help="wall-clock limit per board (30)"
    )
    grading.add_argument("--index", metavar="INDEX.tsv", help="known optima (columns 'file' and 'optimal_moves')")
    grading.add_argument("--cwd", metavar="DIR", help="working directory for COMMAND")
    return parser


def _read(path: str | None) -> tuple[str, str]:
    """(text, name) of a board file, or of stdin for None or '-'."""
    if path in (None, "-"):
        return sys.stdin.read(), "<stdin>"
    try:
        return Path(path).read_text(encoding="utf-8"), path
    except OSError as exc:
        raise BoardError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise BoardError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def main(argv: list[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.max_nodes is not None and args.max_nodes < 1:
        parser.error("--max-nodes must be at least 1")
    try:
        if args.grade is not None:
            return _grade(parser, args)
        if len(args.files) > 1:
            parser.error("give one board FILE (or use --grade COMMAND BOARD...)")
        return _solve(args)
    except BoardError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitStatus.INTERRUPTED


def _print_notes(notes: list[str]) -> None:
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


def _solve(args: argparse.Namespace) -> int:
    text, name = _read(args.files[0] if args.files else None)
    notes: list[str] = []
    cells = parse_board(text, name, last_wins=args.last_wins, notes=notes)
    _print_notes(notes)
    start = time.perf_counter()
    try:
        result = solve(board_bytes(cells), args.max_nodes)
    except Unsolvable as exc:
        print(f"{name}: cannot be won: {exc}", file=sys.stderr)
        return ExitStatus.UNWINNABLE
    seconds = time.perf_counter() - start
    if result.actions is None:
        print(
            f"{name}: gave up after {result.expanded} expansions; the optimum is at least {result.lower_bound} SPREADs",
            file=sys.stderr,
        )
        return ExitStatus.GAVE_UP
    sys.stdout.write("".join(format_spread(a) + "\n" for a in result.actions))
    if args.verbose:
        print(
            f"{name}: {len(result.actions)} SPREADs, proved optimal (lower bound {result.lower_bound}); "
            f"{result.expanded} nodes expanded, {result.generated} generated, {seconds:.3f} s",
            file=sys.stderr,
        )
    return 0


def _grade(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        command = shlex.split(args.grade)
    except ValueError as exc:
        parser.error(f"--grade: cannot split COMMAND: {exc}")
    if not command:
        parser.error("--grade needs a COMMAND")
    if not args.files:
        parser.error("--grade needs at least one BOARD file")
    if not args.time_limit > 0:
        parser.error("--time-limit must be positive")
    optima: dict[str, int] = {}
    if args.index:
        try:
            optima = read_index(args.index)
        except (OSError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return ExitStatus.USAGE
    names = display_names(args.files)
    boards: list[tuple[str, str, Cells | BadBoard]] = []
    for path, name in zip(args.files, names):
        # One bad board must not stop the grading: it gets its row and the
        # others are graded (the exit status still says there was one).
        notes: list[str] = []
        try:
            text, _ = _read(path)
            boards.append((name, text, parse_board(text, path, last_wins=args.last_wins, notes=notes)))
        except BoardError as exc:
            print(f"error: {exc}", file=sys.stderr)
            boards.append((name, "", BadBoard(str(exc))))
        _print_notes(notes)
    budget = args.max_nodes or GRADE_OPTIMUM_BUDGET

    def optimum_of(name: str, cells: Cells) -> tuple[int | None, str]:
        known = optima.get(Path(name).name)
        if known is not None:
            return known, str(known)
        try:
            result = solve(board_bytes(cells), budget)
        except Unsolvable:
            return None, "unwinnable"
        if result.actions is None:
            return None, f">= {result.lower_bound}"
        return len(result.actions), str(len(result.actions))

    def progress(row: GradeRow) -> None:
        if args.verbose:
            state = "valid" if row.verdict.valid else "INVALID"
            print(f"{row.board}: {state} {row.note}".rstrip(), file=sys.stderr)

    rows = grade(command, boards, args.time_limit, optimum_of, cwd=args.cwd, progress=progress)
    print(grade_table(rows))
    if any(row.bad_board for row in rows):
        return ExitStatus.USAGE
    return 0 if all(row.verdict.valid for row in rows) else 1
