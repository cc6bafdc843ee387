"""How close the agents came to their time limit, from a tournament's records.

    python -m benchmarks.clock_margin RESULTS_DIR

Reads ``RESULTS_DIR/games.jsonl`` (e.g. after ``python -m referee tournament
configs/clock_margin.yaml --workers 4``) and prints, per agent, the games it
played, its time forfeits, and the smallest and median CPU seconds left of
the limit at the end of a game, against the margin the search agents keep
(:func:`agents.common.clock.safety_margin`).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from agents.common.clock import safety_margin


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.clock_margin", description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="a tournament's results folder")
    args = parser.parse_args(argv)
    path = args.results / "games.jsonl"
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        print(f"error: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    left: dict[str, list[float]] = defaultdict(list)
    forfeits: dict[str, int] = defaultdict(int)
    limit = None
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a torn last line
        limit = record.get("time_limit") or limit
        if not limit:
            continue
        for colour in ("RED", "BLUE"):
            side = colour.lower()
            name = record.get(f"{side}_name") or record[side]
            left[name].append(limit - record["time_used"][colour])
            if record.get("reason") == "time_limit" and record.get("winner") not in (colour, None):
                forfeits[name] += 1
    if not left:
        print(f"error: {path} has no games with a time limit", file=sys.stderr)
        return 2
    margin = safety_margin(limit)
    print(f"time limit {limit:g} s, margin kept by the search agents {margin:.2f} s")
    print(f"{'agent':<12} {'games':>5} {'time losses':>11} {'least left':>10} {'median left':>11}")
    for name in sorted(left):
        values = left[name]
        least, median = min(values), statistics.median(values)
        print(f"{name:<12} {len(values):>5} {forfeits[name]:>11} {least:>10.2f} {median:>11.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
