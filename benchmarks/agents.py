"""Search speed of the bundled agents on Infexion positions from real games.

    python -m benchmarks.agents [--seconds 1.0] [--positions 12] [--game infexion]

Positions are taken every few actions from seeded greedy-vs-greedy games
(early, middle and late play).  On each, with the same CPU budget:

* minimax: nodes per second and the depth its iterative deepening completes;
* MCTS: simulations per second;
* alpha-beta's pruning at a fixed depth 2, against a plain minimax to the
  same depth in this same process (no pruning, no table, no ordering): nodes
  visited and time.  Both must return the same value: that is checked.

Absolute speeds depend on the machine and its load; the ratio against the
plain minimax is the number to compare across runs.
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

from tabulate import tabulate

from agents.common.alphabeta import AlphaBeta
from agents.common.clock import Deadline
from agents.common.heuristics import heuristics_for, perspective
from agents.common.mcts import MCTS
from referee.games import load_game
from referee.games.base import GameState


def sample_positions(game_name: str, count: int, seed: int = 1) -> list[GameState]:
    """Positions every few actions of seeded greedy self-play games."""
    game = load_game(game_name)
    h = heuristics_for(game)
    rng = random.Random(seed)
    greedy = AlphaBeta(h, max_depth=1, quiescence_depth=0, rng=rng)
    positions: list[GameState] = []
    while len(positions) < count:
        state = game.new_state()
        while not state.is_over and len(positions) < count:
            if state.move_count >= 6 and rng.random() < 0.12:
                positions.append(state.copy())
            action = greedy.choose(state, Deadline(10)).action
            state.apply(action)
    return positions


def plain_minimax(state: GameState, h, depth: int, counter: list[int], root: bool = True) -> int:
    """Negamax with no pruning at all, over the same actions alpha-beta searches.

    Alpha-beta must return exactly the same value.
    """
    counter[0] += 1
    outcome = state.outcome
    if outcome is not None:
        # Proven results are scored differently (by distance) and left out
        # of the comparison in main.
        return 0 if outcome.winner is None else (10**6 if outcome.winner == perspective(state) else -(10**6))
    if depth == 0:
        return h.evaluate(state)
    me = perspective(state)
    best = None
    for action in h.ordered_actions(state, prune=not root):
        state.apply(action)
        v = plain_minimax(state, h, depth - 1, counter, root=False)
        if perspective(state) != me:
            v = -v
        state.undo()
        best = v if best is None else max(best, v)
    assert best is not None, "a position that is not over has a legal action"
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.agents", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per search (default 1)")
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--game", default="infexion")
    args = parser.parse_args(argv)

    game = load_game(args.game)
    h = heuristics_for(game)
    positions = sample_positions(args.game, args.positions)
    rows = []
    rates: dict[str, list[float]] = {"minimax nodes/s": [], "mcts simulations/s": [], "depth": [], "pruning": []}
    for i, state in enumerate(positions):
        ab = AlphaBeta(h, rng=random.Random(i))
        found = ab.choose(state, Deadline(args.seconds))
        tree = MCTS(h, rng=random.Random(i)).choose(state, Deadline(args.seconds))

        fixed = AlphaBeta(h, quiescence_depth=0, rng=random.Random(i))
        start = time.process_time()
        pruned = fixed.choose(state, Deadline(1e9), max_depth=2)
        pruned_time = time.process_time() - start
        counter = [0]
        start = time.process_time()
        plain = plain_minimax(state.copy(), h, 2, counter)
        plain_time = time.process_time() - start
        if abs(plain) < 10**5 and plain != pruned.value:
            raise SystemExit(f"position {i}: alpha-beta says {pruned.value}, plain minimax {plain}")

        rates["minimax nodes/s"].append(found.nodes / max(found.seconds, 1e-9))
        rates["mcts simulations/s"].append(tree.simulations / max(tree.seconds, 1e-9))
        rates["depth"].append(found.depth)
        rates["pruning"].append(counter[0] / max(pruned.nodes, 1))
        rows.append([
            i, state.move_count, len(state.legal_actions()),
            f"{found.nodes / max(found.seconds, 1e-9):,.0f}", found.depth,
            f"{tree.simulations / max(tree.seconds, 1e-9):,.0f}",
            f"{pruned.nodes:,} / {counter[0]:,}", f"{pruned_time * 1000:.0f} / {plain_time * 1000:.0f}",
        ])
    print(tabulate(rows, headers=[
        "pos", "actions played", "legal", "minimax nodes/s", "depth", "MCTS sims/s",
        "depth 2 nodes: α-β / plain", "depth 2 ms: α-β / plain",
    ]))
    print()
    print(f"median minimax nodes/s      {statistics.median(rates['minimax nodes/s']):,.0f}")
    print(f"median depth completed      {statistics.median(rates['depth'])} (in {args.seconds} s)")
    print(f"median MCTS simulations/s   {statistics.median(rates['mcts simulations/s']):,.0f}")
    print(f"median depth-2 node saving  {statistics.median(rates['pruning']):.1f}x fewer nodes than plain minimax")


if __name__ == "__main__":
    main()
