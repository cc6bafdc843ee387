"""Infinitron engine speed: commands applied per second and random playouts per second.

    python -m benchmarks.infinitron_engine [--games N] [--seconds S] [--chaos]

Measures, over the same recorded random games (uniform over the legal
commands, END_TURN included; chance drawn from a seeded RNG):
  * the engine applying the recorded commands, with undo records (``apply``)
    and without (a history-free copy, as playouts use);
  * applying them checked (``apply_checked``: what the referee does);
  * a random player's step: list the legal commands, pick one, apply it;
  * the plain reference implementation from the tests doing that same step,
    as the baseline run in the same process;
and complete uniformly random playouts from the start per second.
"""
from __future__ import annotations

import argparse
import random

from benchmarks.engine import best_rate
from referee.games.base import CHANCE
from referee.games.infinitron import Infinitron
from referee.games.infinitron.geometry import CELLS
from tests.games.infinitron import reference


def record_games(game: Infinitron, count: int, seed: int) -> list[list[tuple[int, ...]]]:
    games = []
    rng = random.Random(seed)
    for _ in range(count):
        state = game.new_state()
        actions = []
        while not state.is_over:
            if state.current_player == CHANCE:
                action = state.sample_chance(rng)
            else:
                action = rng.choice(state.legal_actions())
            state.apply(action)
            actions.append(action)
        games.append(actions)
    return games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.infinitron_engine", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="recorded random games to replay")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--chaos", action="store_true", help="play with chaos events")
    args = parser.parse_args(argv)

    game = Infinitron(chaos=args.chaos, seed=1)
    games = record_games(game, args.games, seed=1)
    total = sum(map(len, games))

    def engine_apply() -> int:
        for actions in games:
            state = game.new_state()
            apply = state.apply
            for a in actions:
                apply(a)
        return total

    def engine_apply_no_history() -> int:
        for actions in games:
            state = game.new_state().copy_without_history()
            apply = state.apply
            for a in actions:
                apply(a)
        return total

    def engine_apply_checked() -> int:
        for actions in games:
            state = game.new_state()
            apply = state.apply_checked
            for a in actions:
                apply(a)
        return total

    # Every run below reseeds its RNG, so repeated runs do the same work and
    # the best-of-runs rate measures the engine, not luckier games.

    def engine_random_steps() -> int:
        # Five whole random games: list the legal commands, choose one, apply it.
        rng = random.Random(2)
        steps = 0
        for _ in range(5):
            state = game.new_state().copy_without_history()
            while not state.is_over:
                if state.current_player == CHANCE:
                    state.apply(state.sample_chance(rng))
                else:
                    legal = state.legal_actions()
                    state.apply(legal[int(rng.random() * len(legal))])
                steps += 1
        return steps

    opening = Infinitron(seed=1)  # no chaos: the baseline below has none in its opening

    def engine_opening_steps() -> int:
        # The same kind of 100 opening steps as the baseline, for a fair ratio.
        rng = random.Random(4)
        for _ in range(10):
            state = opening.new_state().copy_without_history()
            for _ in range(100):
                legal = state.legal_actions()
                state.apply(legal[int(rng.random() * len(legal))])
        return 1000

    def reference_opening_steps() -> int:
        rng = random.Random(4)
        ref = reference.RefGame([CELLS[c] for c in opening.setup.cities[2:]])
        for _ in range(100):
            legal = sorted(ref.legal())
            ref.play(legal[int(rng.random() * len(legal))])
        return 100

    def engine_playouts() -> int:
        rng = random.Random(3)
        for _ in range(5):
            game.new_state().copy_without_history().random_playout(rng)
        return 5

    print(f"{len(games)} recorded random games (chaos {'on' if args.chaos else 'off'}), "
          f"{total / len(games):.0f} actions on average\n")
    rows = [
        ("engine: apply (with undo records)", engine_apply, "commands/s"),
        ("engine: apply (no history)", engine_apply_no_history, "commands/s"),
        ("engine: apply_checked", engine_apply_checked, "commands/s"),
        ("engine: random step (legal_actions + apply)", engine_random_steps, "steps/s"),
        ("engine: random step, first 100 of a game", engine_opening_steps, "steps/s"),
        ("baseline (plain reference): the same", reference_opening_steps, "steps/s"),
        ("engine: random playouts from the start", engine_playouts, "games/s"),
    ]
    results = {}
    for label, run, unit in rows:
        results[label] = rate = best_rate(run, args.seconds)
        print(f"{label:<48} {rate:>12,.1f} {unit}")
    print()
    ratio = results["engine: random step, first 100 of a game"] / results["baseline (plain reference): the same"]
    print(f"engine random step vs baseline: {ratio:6.0f}x")


if __name__ == "__main__":
    main()
