"""Part A solver: time, nodes and length on the public boards and on our own.

    python -m benchmarks.partA [--boards DIR] [--generated N] [--baseline]

Runs the A* solver on
  * the public boards in DIR (default ../shared/partA-boards next to the
    repository) against the proven optima in DIR/INDEX.tsv;
  * the hand-made boards in benchmarks/partA_boards/;
  * N random boards from a fixed seed.
Boards without a recorded optimum get one from the baseline run in the same
process: plain breadth-first search over positions (with a visited set),
capped at --baseline-states positions.  ``--baseline`` runs the baseline on
every board, to compare speeds.  Boards whose search runs past --max-nodes
expansions report the lower bound proved and the best sequence a beam search
finds (an upper bound).
"""
from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from referee.games.base import BLUE, RED
from referee.search.board import Cells, board_bytes, parse_board
from referee.search.grader import read_index
from referee.search.replay import check_sequence
from referee.search.solver import Unsolvable, apply_spread, beam_search, blue_mask, solve
from referee.search.tables import TOUCHED

HERE = Path(__file__).resolve().parent
PUBLIC_BOARDS = HERE.parent.parent / "shared" / "partA-boards"
OWN_BOARDS = HERE / "partA_boards"


@dataclass
class Board:
    name: str
    group: str  # public / hand-made / generated
    cells: Cells
    recorded: int | None  # proven optimum from an index, if any
    recorded_note: str = ""


def load_dir(directory: Path, group: str) -> list[Board]:
    index_path = directory / "INDEX.tsv"
    optima = read_index(str(index_path)) if index_path.exists() else {}
    notes = {}
    if index_path.exists():
        for line in index_path.read_text().splitlines()[1:]:
            fields = line.split("\t")
            if len(fields) > 3 and not fields[3].strip().isdigit():
                notes[fields[0]] = "open"
    boards = []
    for path in sorted(directory.glob("*.csv")):
        # The course's reader let a repeated cell's last line win; one public
        # board relies on it.
        cells = parse_board(path.read_text(), str(path), last_wins=True)
        boards.append(Board(path.name, group, cells, optima.get(path.name), notes.get(path.name, "")))
    return boards


def generated(count: int, seed: int) -> list[Board]:
    """Random boards: 1-3 red stacks and 2-9 blue ones of any power."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        cells = rng.sample(range(49), rng.randint(3, 12))
        n_red = rng.randint(1, min(3, len(cells) - 2))
        board = {}
        for i, cell in enumerate(cells):
            player = RED if i < n_red else BLUE
            board[divmod(cell, 7)] = (player, rng.randint(1, 6))
        boards.append(Board(f"random-{seed}-{len(boards) + 1:02d}", "generated", board, None))
    return boards


def breadth_first(board: bytes, max_states: int) -> tuple[int | None, int, int]:
    """The baseline: (optimum or None, positions seen, depth fully searched).

    A depth searched of -1 means the whole space was searched: unwinnable.
    """
    blue = blue_mask(board)
    if not blue:
        return 0, 1, 0
    frontier = [(board, blue)]
    seen = {board}
    depth = 0
    while frontier:
        depth += 1
        following = []
        for position, blue in frontier:
            for cell in range(49):
                power = position[cell]
                if 0 < power < 8:
                    for action in range(49 + cell * 6, 55 + cell * 6):
                        child = apply_spread(position, action)
                        if child in seen:
                            continue
                        child_blue = blue & ~TOUCHED[action * 8 + power]
                        if not child_blue:
                            return depth, len(seen), depth
                        seen.add(child)
                        following.append((child, child_blue))
            if len(seen) > max_states:
                return None, len(seen), depth - 1
        frontier = following
    return None, len(seen), -1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.partA", description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=Path, default=PUBLIC_BOARDS, help="directory of public boards + INDEX.tsv")
    parser.add_argument("--generated", type=int, default=20, help="random boards to add (20)")
    parser.add_argument("--seed", type=int, default=30024)
    parser.add_argument(
        "--max-nodes",
        type=int,
        default=100_000,
        help="A* expansions per board before giving up (100000; memory grows by about 4 KB per expansion)",
    )
    parser.add_argument("--baseline", action="store_true", help="run the breadth-first baseline on every board")
    parser.add_argument("--baseline-states", type=int, default=300_000, help="cap on the baseline's positions")
    parser.add_argument("--only", help="run only boards whose name contains this text")
    args = parser.parse_args(argv)

    boards: list[Board] = []
    if args.boards.is_dir():
        boards += load_dir(args.boards, "public")
    else:
        print(f"(no public boards at {args.boards}; use --boards DIR)\n")
    boards += load_dir(OWN_BOARDS, "hand-made")
    boards += generated(args.generated, args.seed)
    if args.only:
        boards = [b for b in boards if args.only in b.name]

    rows = []
    times = []
    matched = unresolved = wrong = 0
    for entry in boards:
        board = board_bytes(entry.cells)
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            result = solve(board, args.max_nodes)
        except Unsolvable:
            result = None
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        times.append(wall)

        baseline = ""
        recorded = entry.recorded
        recorded_text = str(recorded) if recorded is not None else entry.recorded_note
        at_least = 0  # what the baseline proved when it stopped early
        unwinnable = False
        if args.baseline or (recorded is None and not entry.recorded_note):
            start = time.perf_counter()
            found, states, searched = breadth_first(board, args.baseline_states)
            baseline = f"{time.perf_counter() - start:.2f}s/{states}"
            if found is not None:
                recorded, recorded_text = found, f"{found} (BFS)"
            elif searched < 0:
                unwinnable, recorded_text = True, "unwinnable (BFS)"
            elif recorded is None:
                at_least, recorded_text = searched + 1, f">= {searched + 1} (BFS)"

        stats: tuple[object, object] = ("-", "-")
        length: int | str
        if result is None:
            length = "-"
            verdict = "matches" if unwinnable else ("said unwinnable" if recorded is None else "WRONG: said unwinnable")
        elif result.actions is None:
            unresolved += 1
            upper = beam_search(board)
            if upper is not None and not check_sequence(entry.cells, list(upper)).valid:
                upper = None  # only a replayed answer counts as an upper bound
            length = f"[{result.lower_bound}, {len(upper) if upper is not None else '?'}]"
            verdict = "bounds only"
            stats = (result.expanded, result.generated)
        else:
            length = len(result.actions)
            stats = (result.expanded, result.generated)
            replay = check_sequence(entry.cells, list(result.actions))
            if not replay.valid:
                verdict = f"WRONG: {replay.reason}"
            elif unwinnable or (recorded is not None and length != recorded) or length < at_least:
                verdict = f"WRONG: recorded {recorded_text}"
            elif recorded is not None:
                verdict = "matches"
                matched += 1
            elif entry.recorded_note == "open":
                verdict = "new proof"
            elif at_least:
                verdict = "consistent"
            else:
                verdict = "-"
            if verdict.startswith("WRONG"):
                wrong += 1
        times_text = [f"{wall:.3f}", f"{cpu:.3f}"]
        rows.append([entry.name, entry.group, recorded_text or "-", length, verdict, *times_text, *stats, baseline])

    print(
        tabulate(
            rows,
            headers=[
                "board", "group", "recorded", "length", "check", "time (s)", "cpu (s)",
                "expanded", "generated", "baseline BFS time/positions",
            ],
            disable_numparse=True,
        )
    )
    print()
    solved = len(boards) - unresolved
    print(
        f"{len(boards)} boards: {solved} solved (A* proves each answer optimal), {unresolved} left with bounds only; "
        f"{matched} equal to a recorded optimum, {wrong} disagreeing with one"
    )
    if times:
        print(
            f"time per board: median {statistics.median(times):.3f} s, max {max(times):.3f} s, "
            f"total {sum(times):.1f} s"
        )
    for row, entry in zip(rows, boards):
        if entry.recorded_note == "open":
            print(f"open board {entry.name}: {row[3]} ({row[4]}), {row[7]} expansions")
    public = [t for t, b in zip(times, boards) if b.group == "public" and b.recorded is not None]
    if public:
        slow = sum(t >= 1.0 for t in public)
        print(
            f"public boards with a recorded optimum: {len(public)}, max {max(public):.3f} s, "
            f"median {statistics.median(public):.3f} s, {slow} at 1 s or more"
        )


if __name__ == "__main__":
    main()
