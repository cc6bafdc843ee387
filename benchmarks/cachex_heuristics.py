"""Speed of the bundled agents' Cachex heuristics: evaluations and orderings per second.

    python -m benchmarks.cachex_heuristics [--sizes 5 7 11 15] [--positions N] [--seconds S]

Positions are cut from uniformly random games at a random point (the
opening to the middle game), the same for every measurement of a size.
Columns: the static value (distances only); ``evaluate`` (that plus the
mover's captures, each one more static value: random positions are full of
them, so this is a pessimistic figure); ``ordered_actions`` as alpha-beta
calls it below the root (scores, pruned) and as MCTS calls it at each new
node (the full list, its best ``lookahead`` actions valued one move deep).
The per-position caches are defeated, as a search meets each position once.  Rates are per second of process CPU time
(the clock the referee's limits use), the best of repeated runs, so a busy
machine disturbs them less than wall time would.
"""
from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from functools import partial

from tabulate import tabulate

from agents.common.heuristics.cachex import CachexHeuristics
from referee.games.cachex import CachexState


def positions(n: int, count: int, seed: int) -> list[CachexState]:
    rng = random.Random(seed)
    out: list[CachexState] = []
    while len(out) < count:
        state = CachexState(n)
        stop = rng.randrange(2, n * n // 2 + 2)
        while not state.is_over and state.turn < stop:
            state.apply(state.random_action(rng))
        if not state.is_over:
            out.append(state)
    return out


def best_rate(run: Callable[[], int], seconds: float) -> float:
    """Units per CPU second: the best of repeated runs within ``seconds`` of CPU."""
    best = 0.0
    deadline = time.process_time() + seconds
    while True:
        start = time.process_time()
        units = run()
        elapsed = max(time.process_time() - start, 1e-9)
        best = max(best, units / elapsed)
        if time.process_time() > deadline:
            return best


def measure(n: int, count: int, seconds: float) -> list[tuple]:
    states = positions(n, count, seed=n)
    rows = []

    def rate(h: CachexHeuristics, call: Callable[[CachexState], object]) -> str:
        def run() -> int:
            for state in states:
                # Defeat the per-position caches: a search meets each position once.
                h._scored_key = h._valued_key = None
                call(state)
            return len(states)

        return f"{best_rate(run, seconds):,.0f}"

    for distance in ("one", "two"):
        h = CachexHeuristics(distance=distance)
        rows.append((
            n, distance, rate(h, h.static_value), rate(h, h.evaluate), rate(h, h.ordered_actions),
            rate(h, partial(h.ordered_actions, prune=False)),
        ))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cachex_heuristics", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 7, 11, 15])
    parser.add_argument("--positions", type=int, default=50, help="positions per size")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    args = parser.parse_args(argv)
    rows = []
    for n in args.sizes:
        rows += measure(n, args.positions, args.seconds)
    headers = ["n", "distance", "static values/s", "evaluations/s", "pruned orders/s", "full orders/s"]
    print(tabulate(rows, headers=headers))


if __name__ == "__main__":
    main()
