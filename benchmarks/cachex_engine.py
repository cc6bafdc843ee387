"""Cachex engine speed: actions applied per second and random playouts per second.

    python -m benchmarks.cachex_engine [--sizes 5 7 11] [--games N] [--seconds S]

For each board size, over the same recorded random games:
  * the fast engine applying actions (``CachexState.apply``, which also
    settles the outcome: captures, connection, repetition, action limit);
  * the same with ``apply`` and ``undo`` of every action (what minimax does);
  * the plain dict-based reference implementation from the tests, as the
    baseline run in the same process;
and complete uniformly random playouts from the empty board per second, for
the engine and for the baseline.
"""
from __future__ import annotations

import argparse
import random
import time
from typing import Callable

from referee.games.cachex import CachexState
from tests.games.cachex import reference


def record_games(n: int, count: int, seed: int) -> list[list[int]]:
    games = []
    rng = random.Random(seed)
    for _ in range(count):
        state = CachexState(n)
        actions = []
        while not state.is_over:
            action = rng.choice(state.legal_actions())
            state.apply(action)
            actions.append(action)
        games.append(actions)
    return games


def best_rate(run: Callable[[], int], seconds: float) -> float:
    """Units per second: the best of repeated runs within the time budget."""
    best = 0.0
    deadline = time.perf_counter() + seconds
    while True:
        start = time.perf_counter()
        units = run()
        elapsed = time.perf_counter() - start
        best = max(best, units / elapsed)
        if time.perf_counter() > deadline:
            return best


def measure(n: int, games_count: int, seconds: float) -> dict[str, float]:
    games = record_games(n, games_count, seed=n)
    total_actions = sum(map(len, games))
    probe = CachexState(n)
    tuple_games = [[_reference_action(probe.action_to_str(a)) for a in g] for g in games]

    def engine_apply() -> int:
        for actions in games:
            state = CachexState(n)
            apply = state.apply
            for a in actions:
                apply(a)
        return total_actions

    def engine_apply_undo() -> int:
        for actions in games:
            state = CachexState(n)
            apply, undo = state.apply, state.undo
            for a in actions:
                apply(a)
                undo()
                apply(a)
        return total_actions

    def reference_apply() -> int:
        for actions in tuple_games:
            game = reference.RefGame(n)
            for a in actions:
                game.play(a)
        return total_actions

    rng = random.Random(2)
    playout_batch = max(1, 2000 // (n * n))

    def engine_playouts() -> int:
        for _ in range(playout_batch):
            CachexState(n).random_playout(rng)
        return playout_batch

    reference_batch = max(1, playout_batch // 10)

    def reference_playouts() -> int:
        for _ in range(reference_batch):
            game = reference.RefGame(n)
            while game.result is None:
                game.play(rng.choice(game.legal()))
        return reference_batch

    print(f"n = {n}: {len(games)} recorded random games, {total_actions / len(games):.0f} actions on average")
    rows = [
        ("fast engine: apply", engine_apply, "actions/s"),
        ("fast engine: apply + undo + apply", engine_apply_undo, "actions/s"),
        ("baseline (dict reference): play", reference_apply, "actions/s"),
        ("fast engine: random playouts from empty", engine_playouts, "games/s"),
        ("baseline (dict reference): random playouts", reference_playouts, "games/s"),
    ]
    results = {}
    for label, run, unit in rows:
        results[label] = rate = best_rate(run, seconds)
        print(f"  {label:<44} {rate:>12,.0f} {unit}")
    apply_ratio = results["fast engine: apply"] / results["baseline (dict reference): play"]
    playout_ratio = results["fast engine: random playouts from empty"] / results[
        "baseline (dict reference): random playouts"
    ]
    print(f"  engine apply vs baseline:    {apply_ratio:6.1f}x")
    print(f"  engine playouts vs baseline: {playout_ratio:6.1f}x\n")
    return results


def _reference_action(text: str) -> tuple:
    if text == "STEAL":
        return ("STEAL",)
    r, q = text[len("PLACE(") : -1].split(",")
    return ("PLACE", int(r), int(q))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cachex_engine", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 7, 11], help="board sizes (default 5 7 11)")
    parser.add_argument("--games", type=int, default=100, help="recorded random games to replay per size")
    parser.add_argument("--seconds", type=float, default=1.5, help="time per measurement")
    args = parser.parse_args(argv)
    for n in args.sizes:
        measure(n, args.games, args.seconds)


if __name__ == "__main__":
    main()
