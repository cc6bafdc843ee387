"""Game analysis speed: a whole 343-action Infexion game analysed, as ``python -m referee analyse`` does.

    python -m benchmarks.analysis [--iterations N] [--workers N] [--games N]

Plays greedy against greedy (seeded: games that run to the 343-action limit), then analyses each record with
no cache at the default settings (or the ones given): the wall time, the positions judged (the game's own and
the engine's decisions from them) and positions a second.  The target (docs/analysis.md): at most 60 s for a
343-action game on two cores at the default setting.
"""
from __future__ import annotations

import argparse
import os
import time

from referee.analysis import Cache, EngineSettings, analyse
from referee.analysis.engine import DEFAULT_ITERATIONS
from referee.match import AgentEntry, MatchSettings, play_match


def long_game(seed: int):
    """A greedy-against-greedy Infexion game of 343 actions (seeds are tried from ``seed`` on)."""
    for tried in range(seed, seed + 20):
        record = play_match(AgentEntry("agents.greedy"), AgentEntry("agents.greedy"),
                            MatchSettings(seed=tried, sandbox="off"))
        if len(record.actions) == 343:
            return record
    raise SystemExit("no 343-action game in 20 seeds")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.analysis", description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--games", type=int, default=2)
    args = parser.parse_args()
    settings = EngineSettings(iterations=args.iterations)
    print(f"# benchmarks.analysis: {settings.describe()}, {args.workers} workers, {os.cpu_count()} cores")
    seed = 1
    for _ in range(args.games):
        record = long_game(seed)
        seed = record.seed + 1 if record.seed is not None else seed + 1
        cache = Cache(None)
        began = time.monotonic()
        result = analyse(record, settings, workers=args.workers, cache=cache)
        seconds = time.monotonic() - began
        judged = len(cache.known)
        marked = sum(1 for j in result.judged if j.severity)
        print(f"game seed {record.seed}: {len(record.actions)} actions ({record.message}): {seconds:.1f} s, "
              f"{judged} positions judged ({judged / seconds:.0f}/s), {marked} decisions marked")


if __name__ == "__main__":
    main()
