"""Random playouts through each learning interface, next to OpenSpiel's C++ Hex and a PettingZoo classic game.

    python -m benchmarks.learning_speed [--seconds S] [--rounds R]

For Cachex n = 7 and Infexion, uniformly random games from the start, in one process, counted in actions
(a player's actions; chance's are not counted) and whole games per CPU second:
  * our engine's own random playout (``random_playout``: its choice inlined, no undo records);
  * our engine through the game interface: ``legal_actions()``, a uniform choice, ``apply`` (what every
    wrapper below does underneath): the rate the wrappers are held to (issue 50: at most 2x its time);
  * the OpenSpiel game (``referee.learning.openspiel``): ``legal_actions()``, a choice, ``apply_action``;
  * the PettingZoo environment as a learner drives it: ``last()`` (the observation planes and the action
    mask, new arrays each action) and ``step``, the random choice read from the mask;
  * the same environment's ``step`` alone, the choice made from its ``legal_indices()`` list: what the
    wrapper costs before it makes a learner's arrays;
  * the Gymnasium environment against ``agents.random_agent`` (both sides' actions counted; the agent keeps
    its own copy of the game, as every course agent does);
and, as references, OpenSpiel's C++ ``hex(board_size=7)`` through its Python bindings and PettingZoo's
``connect_four_v3`` (PettingZoo's classic games import pygame: ``pip install pygame-ce``, or the row says it
is missing).  CPU time of this process, so other processes on a busy machine do not count; each row is the
best of ``--rounds`` runs of ``--seconds``, the rows taken in turn so that a slow spell falls on all of them.
"""
from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from tabulate import tabulate

from referee.games import load_game
from referee.games.base import CHANCE

#: A measurement: one batch of random games, returning (actions, games) played.
Run = Callable[[], tuple[int, int]]
#: A row of the table: (interface, game, its measurement or why it is missing).
Row = tuple[str, str, Run | str]

#: The settings measured: (label, game, options).
GAMES: list[tuple[str, str, dict[str, Any]]] = [("Cachex n = 7", "cachex", {"n": 7}), ("Infexion", "infexion", {})]


def engine_playouts(game: str, options: dict, rng: random.Random) -> Run:
    """The engine's own random playout from the start."""
    rules = load_game(game, **options)

    def run() -> tuple[int, int]:
        actions = 0
        for _ in range(10):
            state = rules.new_state()
            state.random_playout(rng)  # type: ignore[attr-defined]
            actions += state.move_count
        return actions, 10

    return run


def engine_interface(game: str, options: dict, rng: random.Random) -> Run:
    """The engine through the game interface: list the legal actions, pick one, apply it."""
    rules = load_game(game, **options)

    def run() -> tuple[int, int]:
        actions = 0
        for _ in range(10):
            state = rules.new_state()
            while not state.is_over:
                if state.current_player == CHANCE:
                    state.apply(state.sample_chance(rng))
                    continue
                legal = state.legal_actions()
                state.apply(legal[int(rng.random() * len(legal))])
                actions += 1
        return actions, 10

    return run


def openspiel_game(spiel_game: object, rng: random.Random, games: int = 10) -> Run:
    """An OpenSpiel game (ours or its own C++ one): legal_actions(), a choice, apply_action()."""

    def run() -> tuple[int, int]:
        actions = 0
        for _ in range(games):
            state = spiel_game.new_initial_state()  # type: ignore[attr-defined]
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, weights = zip(*state.chance_outcomes())
                    state.apply_action(rng.choices(outcomes, weights)[0])
                    continue
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
                actions += 1
        return actions, games

    return run


def pettingzoo_env(env: object, rng: random.Random, games: int = 10) -> Run:
    """A PettingZoo AEC environment driven as a learner drives it: last() with the observation, then step."""

    def run() -> tuple[int, int]:
        actions = 0
        for _ in range(games):
            env.reset()  # type: ignore[attr-defined]
            for _agent in env.agent_iter():  # type: ignore[attr-defined]
                observation, _, termination, truncation, _ = env.last()  # type: ignore[attr-defined]
                if termination or truncation:
                    env.step(None)  # type: ignore[attr-defined]
                    continue
                legal = observation["action_mask"].nonzero()[0]
                env.step(int(legal[int(rng.random() * len(legal))]))  # type: ignore[attr-defined]
                actions += 1
        return actions, games

    return run


def pettingzoo_steps(env: object, rng: random.Random) -> Run:
    """Our PettingZoo environment's steps alone: the legal indices as a list, no observation, no mask."""

    def run() -> tuple[int, int]:
        actions = 0
        for _ in range(10):
            env.reset()  # type: ignore[attr-defined]
            for _agent in env.agent_iter():  # type: ignore[attr-defined]
                if not env.terminations[_agent] and not env.truncations[_agent]:  # type: ignore[attr-defined]
                    legal = env.legal_indices()  # type: ignore[attr-defined]
                    env.step(legal[int(rng.random() * len(legal))])  # type: ignore[attr-defined]
                    actions += 1
                else:
                    env.step(None)  # type: ignore[attr-defined]
        return actions, 10

    return run


def gymnasium_env(env: object, rng: random.Random) -> Run:
    """The Gymnasium environment against agents.random_agent: both sides' actions."""

    def run() -> tuple[int, int]:
        actions = 0
        for _ in range(10):
            observation, _ = env.reset()  # type: ignore[attr-defined]
            done = False
            while not done:
                legal = observation["action_mask"].nonzero()[0]
                observation, _, terminated, truncated, _ = env.step(  # type: ignore[attr-defined]
                    int(legal[int(rng.random() * len(legal))]))
                done = terminated or truncated
            actions += env.game_state.move_count  # type: ignore[attr-defined]
        return actions, 10

    return run


def connect_four() -> object | str:
    """PettingZoo's classic Connect Four environment, or why it cannot be made here."""
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as exc:
        return f"not installed ({exc}; pip install pygame-ce)"
    return connect_four_v3.env()


def rows_to_measure(rng: random.Random) -> list[Row]:
    """(interface, game, measurement or why it is missing) for every row of the table."""
    rows: list[Row] = []
    for label, game, options in GAMES:
        rows.append(("our engine: random_playout", label, engine_playouts(game, options, rng)))
        rows.append(("our engine: legal_actions, apply", label, engine_interface(game, options, rng)))
        rows += learning_rows(label, game, options, rng)
    try:
        import pyspiel

        hex_game: Run | str = openspiel_game(pyspiel.load_game("hex(board_size=7)"), rng, games=50)
    except ImportError as exc:
        hex_game = f"not installed ({exc})"
    rows.append(("OpenSpiel C++ (Python bindings)", "hex(board_size=7)", hex_game))
    four = connect_four()
    rows.append(("PettingZoo classic: last() + step", "connect_four_v3", four if isinstance(four, str)
                 else pettingzoo_env(four, rng, games=50)))
    return rows


def learning_rows(label: str, game: str, options: dict[str, Any], rng: random.Random) -> list[Row]:
    """The rows of our OpenSpiel game and environments (said missing without the learning extra)."""
    interfaces = ["OpenSpiel game (referee.learning)", "PettingZoo env: last() + step", "PettingZoo env: step only",
                  "Gymnasium env vs random_agent"]
    try:
        from referee.learning import openspiel
        from referee.learning.gymnasium import SingleAgentEnv
        from referee.learning.pettingzoo import GameEnv
    except ImportError as exc:
        return [(interface, label, f'not installed ({exc}; pip install -e ".[learning]")') for interface in interfaces]
    runs = [
        openspiel_game(openspiel.load(game, **options), rng),
        pettingzoo_env(GameEnv(game, **options), rng),
        pettingzoo_steps(GameEnv(game, **options), rng),
        gymnasium_env(SingleAgentEnv(game, **options), rng),
    ]
    return [(interface, label, run) for interface, run in zip(interfaces, runs)]


def measure(rows: list[Row], seconds: float, rounds: int) -> list[tuple[float, float] | str]:
    """Each row's best (actions/s, games/s) over ``rounds`` turns of about ``seconds`` CPU seconds each."""
    best: list[tuple[float, float] | str] = [run if isinstance(run, str) else (0.0, 0.0) for _, _, run in rows]
    for _ in range(rounds):
        for i, (_, _, run) in enumerate(rows):
            if isinstance(run, str):
                continue
            actions = games = 0
            start = time.process_time()
            while (elapsed := time.process_time() - start) < seconds:
                a, g = run()
                actions, games = actions + a, games + g
            rate = (actions / elapsed, games / elapsed)
            previous = best[i]
            if isinstance(previous, tuple) and rate[0] > previous[0]:
                best[i] = rate
    return best


def table(rows: list[Row], rates: list[tuple[float, float] | str]) -> list[tuple[Any, ...]]:
    """The printed rows: each rate and how many times the time of the engine's interface loop it takes."""
    engine = {game: rate[0] for (interface, game, _), rate in zip(rows, rates)
              if interface.startswith("our engine: legal") and isinstance(rate, tuple)}
    out: list[tuple[Any, ...]] = []
    for (interface, game, _), rate in zip(rows, rates):
        if isinstance(rate, str):
            out.append((interface, game, rate, None, None))
            continue
        cost = engine[game] / rate[0] if game in engine else None
        out.append((interface, game, rate[0], rate[1], cost))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.learning_speed", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per run of a row (default 1)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each row, the best kept (default 3)")
    args = parser.parse_args(argv)
    rows = rows_to_measure(random.Random(1))
    rates = measure(rows, args.seconds, args.rounds)
    print(f"random playouts, best of {args.rounds} runs of {args.seconds} CPU s per row")
    print(tabulate(
        table(rows, rates),
        headers=("interface", "game", "actions/s", "games/s", "time vs engine interface"),
        floatfmt=("", "", ",.0f", ",.1f", ".1f"),
        missingval="-",
    ))


if __name__ == "__main__":
    main()
