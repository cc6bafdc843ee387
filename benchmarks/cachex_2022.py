"""Cachex: the bundled agents against the 2022 students' agents, one row per pairing (issue 39).

``python -m benchmarks.cachex_2022 results/cachex_2022_*/``

Reads the ``games.jsonl`` of the gauntlets in ``configs/external/cachex_2022_*.yaml``
(a folder stands for its ``games.jsonl``), in which the 2022 agent is the
challenger, and prints a Markdown table: per board size and pairing, the
games, the bundled agent's score (a draw counts half), its points with each
colour, the forfeits of each side (time, memory, illegal action, crash,
error), the mean CPU seconds each side used of the n² limit, and how the
games ended.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .game_records import read_records


@dataclass
class Row:
    """One pairing at one size, from the bundled agent's side."""

    points: dict[str, float] = field(default_factory=lambda: {"RED": 0.0, "BLUE": 0.0})
    games: dict[str, int] = field(default_factory=lambda: {"RED": 0, "BLUE": 0})
    forfeits: list[int] = field(default_factory=lambda: [0, 0])  # ours, theirs
    cpu: list[float] = field(default_factory=lambda: [0.0, 0.0])  # ours, theirs
    endings: Counter[str] = field(default_factory=Counter)

    def add(self, record: Mapping[str, Any], us: str) -> None:
        them = "BLUE" if us == "RED" else "RED"
        winner = record["winner"]
        self.games[us] += 1
        self.points[us] += 1.0 if winner == us else 0.0 if winner == them else 0.5
        self.forfeits[0] += bool(record["error"][us])
        self.forfeits[1] += bool(record["error"][them])
        self.cpu[0] += record["time_used"][us]
        self.cpu[1] += record["time_used"][them]
        self.endings[record["reason"]] += 1

    def cells(self, n: int) -> list[str]:
        total = sum(self.games.values())
        score = sum(self.points.values()) / total
        return [
            str(total),
            f"{100 * score:.0f} %",
            f"{self.points['RED']:g}/{self.games['RED']}",
            f"{self.points['BLUE']:g}/{self.games['BLUE']}",
            f"{self.forfeits[0]}/{self.forfeits[1]}",
            f"{self.cpu[0] / total:.1f} / {self.cpu[1] / total:.1f} of {n * n}",
            ", ".join(f"{reason} {count}" for reason, count in sorted(self.endings.items())),
        ]


def table(games: Iterable[Mapping[str, Any]]) -> list[str]:
    """The Markdown table's lines."""
    rows: dict[tuple[int, str, str], Row] = defaultdict(Row)
    for record in games:
        theirs = record["extra"]["pairing"][0]  # the gauntlet's challenger: the 2022 agent
        us = "BLUE" if record["red_name"] == theirs else "RED"
        rows[record["game_options"]["n"], record[us.lower() + "_name"], theirs].add(record, us)
    lines = [
        "| n | bundled | 2022 agent | games | score | as Red | as Blue | forfeits (bundled/2022) "
        "| mean CPU s used (bundled / 2022) | endings |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (n, ours, theirs), row in sorted(rows.items()):
        lines.append("| " + " | ".join([str(n), ours, theirs, *row.cells(n)]) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="games.jsonl files or tournament folders")
    args = parser.parse_args(argv)
    missing = [p for p in args.paths if not (p / "games.jsonl" if p.is_dir() else p).is_file()]
    if missing:
        print(f"cachex_2022: no games.jsonl at {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    print("\n".join(table(read_records(args.paths))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
