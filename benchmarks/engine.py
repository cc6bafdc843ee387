"""Engine speed: actions applied per second and random playouts per second.

    python -m benchmarks.engine [--games N] [--seconds S]

Measures, over the same recorded random games:
  * the fast engine applying actions (``InfexionState.apply``);
  * the course-compatible ``referee.game.Board`` applying action objects and
    reading ``game_over`` after each;
  * the plain dict-based reference implementation from the tests, as the
    baseline run in the same process (a "build every legal list" design);
and complete uniformly random playouts from the empty board per second, for
the engine and for the baseline.
"""
from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from referee.game import Board
from referee.game.actions import from_engine_action
from referee.games.infexion import InfexionState
from tests.games.infexion import reference


def record_games(count: int, seed: int) -> list[list[int]]:
    games = []
    rng = random.Random(seed)
    for _ in range(count):
        state = InfexionState()
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.engine", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="recorded random games to replay")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args(argv)

    games = record_games(args.games, seed=1)
    total_actions = sum(map(len, games))
    object_games = [[from_engine_action(a) for a in g] for g in games]
    text_games = [[reference_action(from_engine_action(a)) for a in g] for g in games]

    def engine_apply() -> int:
        for actions in games:
            state = InfexionState()
            apply = state.apply
            for a in actions:
                apply(a)
        return total_actions

    def engine_apply_and_check() -> int:
        for actions in games:
            state = InfexionState()
            apply = state.apply
            for a in actions:
                apply(a)
                _ = state.outcome  # the end-of-game check being measured
        return total_actions

    def board_apply() -> int:
        for actions in object_games:
            board = Board()
            apply = board.apply_action
            for a in actions:
                apply(a)
                _ = board.game_over  # the end-of-game check being measured
        return total_actions

    def reference_apply() -> int:
        for actions in text_games:
            game = reference.RefGame()
            for a in actions:
                game.play(a)
                game.result()
        return total_actions

    rng = random.Random(2)

    def engine_playouts() -> int:
        n = 200
        for _ in range(n):
            InfexionState().random_playout(rng)
        return n

    def reference_playouts() -> int:
        n = 5
        for _ in range(n):
            game = reference.RefGame()
            while game.result() is None:
                game.play(rng.choice(game.legal()))
        return n

    average_length = total_actions / len(games)
    print(f"{len(games)} recorded random games, {average_length:.0f} actions on average\n")
    rows = [
        ("fast engine: apply", engine_apply, "actions/s"),
        ("fast engine: apply + outcome", engine_apply_and_check, "actions/s"),
        ("referee.game.Board: apply_action + game_over", board_apply, "actions/s"),
        ("baseline (dict reference): play + result", reference_apply, "actions/s"),
        ("fast engine: random playouts from empty", engine_playouts, "games/s"),
        ("baseline (dict reference): random playouts", reference_playouts, "games/s"),
    ]
    results = {}
    for label, run, unit in rows:
        results[label] = rate = best_rate(run, args.seconds)
        print(f"{label:<48} {rate:>12,.0f} {unit}")
    base_apply = results["baseline (dict reference): play + result"]
    base_games = results["baseline (dict reference): random playouts"]
    print()
    print(f"engine apply vs baseline:    {results['fast engine: apply + outcome'] / base_apply:6.1f}x")
    print(f"Board vs baseline:           {results['referee.game.Board: apply_action + game_over'] / base_apply:6.1f}x")
    print(f"engine playouts vs baseline: {results['fast engine: random playouts from empty'] / base_games:6.1f}x")


def reference_action(action) -> tuple:
    from referee.game import SpawnAction

    if isinstance(action, SpawnAction):
        return ("SPAWN", action.cell.r, action.cell.q)
    return ("SPREAD", action.cell.r, action.cell.q, action.direction.r, action.direction.q)


if __name__ == "__main__":
    main()
