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

from tabulate import tabulate

from benchmarks.engine import best_rate
from referee.cachex.legacy import to_legacy
from referee.games.cachex import CachexState
from tests.games.cachex import reference


def record_games(n: int, count: int, seed: int) -> list[list[int]]:
    """The actions of ``count`` uniformly random games on an ``n x n`` board."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        state = CachexState(n)
        actions = []
        while not state.is_over:
            actions.append(state.random_action(rng))
            state.apply(actions[-1])
        games.append(actions)
    return games


def measure(n: int, games_count: int, seconds: float) -> list[tuple]:
    """Table rows ``(n, what, engine rate, baseline rate, engine / baseline)`` for one size."""
    games = record_games(n, games_count, seed=n)
    total_actions = sum(map(len, games))
    # The reference's actions are the 2022 tuples.
    tuple_games = [[to_legacy(a) for a in g] for g in games]

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
    reference_batch = max(1, playout_batch // 10)

    def engine_playouts() -> int:
        for _ in range(playout_batch):
            CachexState(n).random_playout(rng)
        return playout_batch

    def reference_playouts() -> int:
        for _ in range(reference_batch):
            game = reference.RefGame(n)
            while game.result is None:
                game.play(rng.choice(game.legal()))
        return reference_batch

    apply_rate, base_apply = best_rate(engine_apply, seconds), best_rate(reference_apply, seconds)
    undo_rate = best_rate(engine_apply_undo, seconds)
    playout_rate, base_playout = best_rate(engine_playouts, seconds), best_rate(reference_playouts, seconds)
    length = f"{total_actions / len(games):.0f}"
    return [
        (n, f"actions/s: apply ({length} per game)", apply_rate, base_apply, apply_rate / base_apply),
        (n, "actions/s: apply, undo, apply again", undo_rate, None, None),
        (n, "random playouts/s from the empty board", playout_rate, base_playout, playout_rate / base_playout),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cachex_engine", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 7, 11], help="board sizes (default 5 7 11)")
    parser.add_argument("--games", type=int, default=100, help="recorded random games to replay per size")
    parser.add_argument("--seconds", type=float, default=1.5, help="time per measurement")
    args = parser.parse_args(argv)
    rows = []
    for n in args.sizes:
        rows += measure(n, args.games, args.seconds)
    print(f"{args.games} recorded random games per size; best of repeated runs of {args.seconds} s each")
    print(
        tabulate(
            rows,
            headers=("n", "measure", "engine", "baseline (reference)", "engine / baseline"),
            floatfmt=("g", "g", ",.0f", ",.0f", ".1f"),  # "g": tabulate's default (no floats there)
            missingval="-",
        )
    )


if __name__ == "__main__":
    main()
