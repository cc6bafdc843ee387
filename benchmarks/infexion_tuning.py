"""Tune the Infexion evaluation by measurement: self-play, a Texel fit, paired matches.

    python -m benchmarks.infexion_tuning selfplay OUT.jsonl [--games 120] [--move-time 0.05]
    python -m benchmarks.infexion_tuning fit OUT.jsonl [OUT2.jsonl ...]
    python -m benchmarks.infexion_tuning match A B [--games 80] [--move-time 0.05]
                                               [--openings GAMES.jsonl --at 300]

``selfplay`` plays MCTS against itself in this process (no referee, no
sandbox: thousands of moves a minute) and writes one JSON line per game: the
winner and every position the mover saw.  ``fit`` regresses who won on the
evaluation's four terms (:func:`evaluation_terms`) from the mover's side, by
Newton's method on the logistic loss, and prints the weights in the
evaluation's units (one power = 100), the value scale that makes MCTS's
``tanh(value / scale)`` match the fitted winning chances, and the loss of the
current weights for comparison.  ``match`` plays two agent settings (JSON:
``{"agent": "mcts" | "minimax", "heuristics": {...}, "search": {...},
"endgame": N}``, "search" the searcher's own settings such as ``c_puct``,
"endgame" MCTS's endgame solver's reach, 0 for none) from the same
openings with both colours and prints the score, Elo and the pairs' results:
far less noise per game than a tournament's independent games, for
deciding which change to keep; the SPRT under ``configs/`` then measures it
under the referee.

Each game starts with two random SPAWNs from its seed, so games differ; or,
with ``--openings``, from the position at action ``--at`` of each recorded
game that lasted so long (an endgame suite, for changes that matter only
near the 343-action limit).  Thinking time is CPU seconds per move.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from multiprocessing import Pool
from typing import Any, cast
from collections.abc import Sequence

from agents.common.alphabeta import AlphaBeta
from agents.common.clock import Deadline
from agents.common.endgame import EndgameSolver
from agents.common.heuristics.infexion import InfexionHeuristics, evaluation_terms
from agents.common.mcts import MCTS
from agents.mcts.program import ENDGAME_PLIES
from referee.games.infexion.engine import BLUE_FLAG, InfexionState

TERMS = ("power", "my_take", "their_take", "spread")


class _MctsWithEndgame:
    """MCTS, with the endgame solver first when the end is near (as ``agents.mcts`` plays)."""

    def __init__(self, mcts: MCTS, solver: EndgameSolver):
        self.mcts, self.solver = mcts, solver

    def choose(self, state: InfexionState, deadline: Deadline) -> Any:
        if self.solver.solve(state, deadline) is not None:
            return self.solver.last
        return self.mcts.choose(state, deadline)

    def advance(self, action: int, state: InfexionState) -> None:
        self.mcts.advance(action, state)


def _searcher(setting: dict[str, Any], seed: int, colour: int) -> MCTS | AlphaBeta | _MctsWithEndgame:
    rng = random.Random(f"{seed}:{json.dumps(setting, sort_keys=True)}:{colour}")
    h = InfexionHeuristics(**setting.get("heuristics", {}))
    search = setting.get("search", {})
    if setting.get("agent", "mcts") == "mcts":
        mcts = MCTS(h, rng=rng, max_nodes=60_000, **{"c_puct": h.c_puct, **search})
        plies = setting.get("endgame", ENDGAME_PLIES)
        return _MctsWithEndgame(mcts, EndgameSolver(h, plies, rng=rng)) if plies else mcts
    return AlphaBeta(h, rng=rng, table_entries=200_000, **search)


def play(
    seed: int, red: dict[str, Any], blue: dict[str, Any], move_time: float, start: tuple[str, int] | None = None
) -> dict[str, Any]:
    """One game; the winner (0, 1 or None) and the positions seen.

    From ``start`` (a recorded position: the board in hex and the number of
    actions played) if given, else from two random SPAWNs drawn from ``seed``.
    """
    if start is None:
        state = InfexionState()
        opening = random.Random(seed)
        for _ in range(2):
            state.apply(state.random_action(opening))
    else:
        state = InfexionState(turn=start[1])
        for cell, value in enumerate(bytes.fromhex(start[0])):
            state.set_cell(cell, value)
    players = (_searcher(red, seed, 0), _searcher(blue, seed, 1))
    positions = []
    while not state.is_over:
        positions.append((state.board.hex(), state.turn))
        action = cast(int, players[state.turn & 1].choose(state.copy(), Deadline(move_time)).action)
        state.apply(action)
        for player in players:
            if not isinstance(player, AlphaBeta):
                player.advance(action, state)
    outcome = state.outcome
    assert outcome is not None
    return {"seed": seed, "winner": outcome.winner, "reason": outcome.reason, "turns": state.turn,
            "positions": positions}


def _play(job: tuple[int, dict[str, Any], dict[str, Any], float, tuple[str, int] | None]) -> dict[str, Any]:
    return play(*job)


def late_positions(lines: list[str], turn: int) -> list[tuple[str, int]]:
    """The position at action ``turn`` of every recorded game that lasted that long."""
    found = []
    for line in lines:
        for position in json.loads(line)["positions"]:
            if position[1] == turn:
                found.append((position[0], position[1]))
                break
    return found


def _powers(board: bytes) -> tuple[int, int]:
    red = sum(v & 7 for v in board if v and not v & BLUE_FLAG)
    blue = sum(v & 7 for v in board if v & BLUE_FLAG)
    return red, blue


def samples(lines: list[str]) -> tuple[list[Sequence[float]], list[float]]:
    """The evaluation's terms and the mover's result (1, ½, 0) of every position."""
    xs: list[Sequence[float]] = []
    ys: list[float] = []
    for line in lines:
        game = json.loads(line)
        for position in game["positions"]:
            hexed, turn = position[0], position[1]
            board = bytes.fromhex(hexed)
            me = turn & 1
            xs.append(evaluation_terms(board, turn, *_powers(board)))
            ys.append(0.5 if game["winner"] is None else float(game["winner"] == me))
    return xs, ys


def logistic_fit(xs: Sequence[Sequence[float]], ys: list[float], iterations: int = 20) -> tuple[list[float], float]:
    """Weights ``w`` (no intercept) maximising the likelihood of ``ys`` under sigmoid(w·x), and the mean loss."""
    k = len(xs[0])
    w = [0.0] * k
    for _ in range(iterations):
        grad = [0.0] * k
        hess = [[1e-6 if i == j else 0.0 for j in range(k)] for i in range(k)]
        for x, y in zip(xs, ys):
            t = max(-30.0, min(30.0, sum(a * b for a, b in zip(w, x))))
            p = 1.0 / (1.0 + math.exp(-t))
            for i in range(k):
                grad[i] += (p - y) * x[i]
                for j in range(k):
                    hess[i][j] += p * (1 - p) * x[i] * x[j]
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step)]
    return w, mean_loss(xs, ys, w)


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``a⁻¹ b`` by Gaussian elimination with partial pivoting (``a`` is small and positive definite)."""
    n = len(b)
    m = [row[:] + [v] for row, v in zip(a, b)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[r][col]:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def mean_loss(xs: Sequence[Sequence[float]], ys: list[float], w: list[float]) -> float:
    total = 0.0
    for x, y in zip(xs, ys):
        t = max(-30.0, min(30.0, sum(a * b for a, b in zip(w, x))))
        p = 1.0 / (1.0 + math.exp(-t))
        total -= y * math.log(p) + (1 - y) * math.log(1 - p)
    return total / len(xs)


def cmd_selfplay(args: argparse.Namespace) -> int:
    setting = {"agent": "mcts", "heuristics": json.loads(args.heuristics)}
    jobs = [(args.seed + i, setting, setting, args.move_time, None) for i in range(args.games)]
    start = time.time()
    with open(args.out, "a") as out, Pool(args.workers) as pool:
        for n, game in enumerate(pool.imap_unordered(_play, jobs), 1):
            out.write(json.dumps(game) + "\n")
            out.flush()
            print(f"\r{n}/{args.games} games, {time.time() - start:.0f} s", end="", file=sys.stderr)
    print(file=sys.stderr)
    return 0


def _lines(paths: list[str]) -> list[str]:
    lines: list[str] = []
    for path in paths:
        with open(path) as f:
            lines.extend(line for line in f if line.strip())
    return lines


def cmd_fit(args: argparse.Namespace) -> int:
    lines = _lines(args.files)
    xs, ys = samples(lines)
    if not xs:
        print("error: no positions in " + ", ".join(args.files), file=sys.stderr)
        return 2
    w, loss = logistic_fit(xs, ys)
    per_power = w[0]
    units = [100 * v / per_power for v in w]
    print(f"{len(xs)} positions of {len(lines)} games")
    # Weights as the evaluation uses them: their_take is subtracted.
    print(f"fitted: my_take {units[1]:.0f}, their_take {-units[2]:.0f}, spread {units[3]:.0f} "
          f"(one power = {per_power:.3f} logits; value_scale {200 / per_power:.0f} "
          f"for tanh(value / scale)); loss {loss:.4f}")
    current = InfexionHeuristics(**json.loads(args.heuristics))
    unit = [100.0, current.my_take, -current.their_take, current.spread]
    one = [[sum(a * b for a, b in zip(unit, x)) / 100] for x in xs]
    (scale,), best = logistic_fit(one, ys)
    print(f"current weights: loss {mean_loss(xs, ys, [v * 2 / current.value_scale for v in unit]):.4f} at their "
          f"value_scale {current.value_scale:g}, {best:.4f} at the best scale ({200 / scale:.0f})")
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    a, b = json.loads(args.a), json.loads(args.b)
    starts: Sequence[tuple[str, int] | None] = [None] * (args.games // 2)
    if args.openings:
        starts = late_positions(_lines(args.openings), args.at)[: args.games // 2]
        if not starts:
            print(f"error: no game in {', '.join(args.openings)} lasted {args.at} actions", file=sys.stderr)
            return 2
    jobs = []
    for seed, start in enumerate(starts, args.seed):
        jobs += [(seed, a, b, args.move_time, start), (seed, b, a, args.move_time, start)]
    results: dict[int, list[float]] = {}
    with Pool(args.workers) as pool:
        for job, game in zip(jobs, pool.map(_play, jobs)):
            a_colour = 0 if job[1] is a else 1
            score = 0.5 if game["winner"] is None else float(game["winner"] == a_colour)
            results.setdefault(game["seed"], []).append(score)
    scores = [s for pair in results.values() for s in pair]
    total = sum(scores)
    p = total / len(scores)
    elo = -400 * math.log10(1 / p - 1) if 0 < p < 1 else math.copysign(math.inf, p - 0.5)
    pairs = [0] * 5
    for pair in results.values():
        pairs[round(2 * sum(pair))] += 1
    print(f"A scored {total:g}/{len(scores)} ({p:.1%}, {elo:+.0f} Elo); pairs by A's points 0, ½, 1, 1½, 2: {pairs}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.infexion_tuning", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sp = sub.add_parser("selfplay", help="MCTS self-play games, appended to OUT")
    sp.add_argument("out")
    sp.add_argument("--games", type=int, default=120)
    sp.add_argument("--seed", type=int, default=100)
    sp.add_argument("--heuristics", default="{}", help="JSON heuristics options of the players")
    fp = sub.add_parser("fit", help="fit the evaluation's weights to the games' results")
    fp.add_argument("files", nargs="+")
    fp.add_argument("--heuristics", default="{}", help="JSON options of the weights to compare with")
    mp = sub.add_parser("match", help="paired games between two settings")
    mp.add_argument("a", help='JSON, e.g. \'{"agent": "mcts", "heuristics": {"spread": 10}}\'')
    mp.add_argument("b")
    mp.add_argument("--games", type=int, default=80)
    mp.add_argument("--seed", type=int, default=1000)
    mp.add_argument("--openings", nargs="+", metavar="GAMES.jsonl",
                    help="start from the position at action --at of these self-play games instead")
    mp.add_argument("--at", type=int, default=300, help="action whose position --openings start from")
    for p in (sp, mp):
        p.add_argument("--move-time", type=float, default=0.05, help="CPU seconds per move")
        p.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    try:
        return {"selfplay": cmd_selfplay, "fit": cmd_fit, "match": cmd_match}[args.command](args)
    except (ValueError, TypeError, KeyError) as exc:  # bad JSON or an unknown heuristics option
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
