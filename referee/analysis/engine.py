"""One position judged by a bundled engine: each side's chance of winning from it, and the engine's action.

The evaluation is a win probability, read from the engine the bundled agents play with (``agents/common``):

* ``mcts`` (the default): the PUCT search's value of its most visited action after a fixed number of
  simulations, an expected result for the side to move in -1..1, as ``(value + 1) / 2``.  A search that proves
  the result gives it exactly.  Its values are averages of the game's evaluation squashed into -1..1 over a
  tree, so they move smoothly from one position to the next: what a graph of the game needs.
* ``minimax``: the alpha-beta search's score at a fixed depth, squashed as MCTS squashes a leaf,
  ``tanh(score / value_scale)`` (the game's heuristics' ``value_scale``), then mapped to 0..1 the same way;
  a proven win or loss is 1 or 0.  Sharper on tactics, but a fixed-depth score jumps with the parity of the
  depth, so its swings are less often mistakes.

A position where chance acts next (Infinitron's) is worth the mean of its outcomes: the engine judges
:data:`CHANCE_SAMPLES` drawn outcomes.  Every search is seeded from the position and the settings, so the same
settings judge the same position the same way (a second run, with or without the cache, agrees); the
``seed`` setting draws other samples.
"""
from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ..games.base import CHANCE, RED, Game, GameState

#: The engines an analysis can use.
ENGINES = ("mcts", "minimax")
#: MCTS simulations per position by default: a 343-action Infexion game in well under a minute on two cores
#: (benchmarks/analysis.py).
DEFAULT_ITERATIONS = 1200
#: Minimax's depth by default (plies).
DEFAULT_DEPTH = 2
#: Outcomes judged where chance acts next.
CHANCE_SAMPLES = 4


@dataclass(frozen=True)
class EngineSettings:
    """How each position is judged: the engine, its effort per position and the seed of its samples."""

    engine: str = "mcts"
    iterations: int = DEFAULT_ITERATIONS
    depth: int = DEFAULT_DEPTH
    #: Seconds of thought per position instead of a fixed effort (not reproducible: the machine's speed counts).
    seconds: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {self.engine!r}")
        if self.iterations < 1 or self.depth < 1 or self.seconds is not None and not self.seconds > 0:
            raise ValueError("iterations, depth and seconds must be positive")

    def describe(self) -> str:
        """The settings in words, for the summary's first line."""
        if self.seconds is not None:
            effort = f"{self.seconds:g} s a position"
        elif self.engine == "mcts":
            effort = f"{self.iterations} simulations a position"
        else:
            effort = f"depth {self.depth}"
        return f"{self.engine}, {effort}, seed {self.seed}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Evaluation:
    """A position judged: Red's chance of winning (0..1, a draw counting half) and the mover's best action."""

    red: float
    best: str | None = None
    proven: bool = False

    def win(self, color: int) -> float:
        """The chance of winning of the side playing ``color``."""
        return self.red if color == RED else 1.0 - self.red

    def as_dict(self) -> dict[str, Any]:
        return {"red": self.red, "best": self.best, "proven": self.proven}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evaluation:
        return cls(float(data["red"]), data.get("best"), bool(data.get("proven", False)))


def position_digest(game: Game, state: GameState, settings: EngineSettings) -> str:
    """A key of the position under these settings: the game, its options, the state's exact key."""
    text = repr((game.name, sorted(game.options.items()), state.key(), sorted(settings.as_dict().items())))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _final(state: GameState) -> Evaluation:
    outcome = state.outcome
    assert outcome is not None
    winner = outcome.winner
    return Evaluation(0.5 if winner is None else 1.0 if winner == RED else 0.0, None, True)


def evaluate(game: Game, state: GameState, settings: EngineSettings, heuristics: Any = None) -> Evaluation:
    """Judge ``state`` (left unchanged); ``heuristics``: the game's, if the caller keeps them between calls."""
    if state.is_over:
        return _final(state)
    if heuristics is None:
        heuristics = _heuristics(game)
    rng = random.Random(position_digest(game, state, settings))
    if state.current_player == CHANCE:
        judged = []
        for _ in range(CHANCE_SAMPLES):
            after = state.copy()
            after.apply(after.sample_chance(rng))
            judged.append(evaluate(game, after, settings, heuristics).red)
        return Evaluation(sum(judged) / len(judged))
    mover = state.current_player
    if settings.engine == "mcts":
        value, action, proven = _mcts(heuristics, state, settings, rng)
    else:
        value, action, proven = _minimax(heuristics, state, settings, rng)
    win = min(1.0, max(0.0, (value + 1.0) / 2.0))
    return Evaluation(win if mover == RED else 1.0 - win, state.action_to_str(action), proven)


def _heuristics(game: Game) -> Any:
    from agents.common.heuristics import heuristics_for

    return heuristics_for(game)


def _deadline(settings: EngineSettings) -> Any:
    from agents.common.clock import Deadline

    return Deadline(settings.seconds if settings.seconds is not None else 1e9)


def _mcts(heuristics: Any, state: GameState, settings: EngineSettings, rng: random.Random) -> tuple[float, Any, bool]:
    from agents.common.mcts import MCTS

    search = MCTS(heuristics, c_puct=heuristics.c_puct, stop_early=False, rng=rng)
    iterations = None if settings.seconds is not None else settings.iterations
    result = search.choose(state, _deadline(settings), iterations)
    if result.proven is not None:
        return float(result.proven), result.action, True
    return result.value, result.action, False


def _minimax(
    heuristics: Any, state: GameState, settings: EngineSettings, rng: random.Random
) -> tuple[float, Any, bool]:
    from agents.common.alphabeta import AlphaBeta
    from agents.common.heuristics import WIN, WIN_ZONE

    search = AlphaBeta(heuristics, rng=rng)
    depth = None if settings.seconds is not None else settings.depth
    result = search.choose(state, _deadline(settings), max_depth=depth)
    if abs(result.value) > WIN - WIN_ZONE:
        return (1.0 if result.value > 0 else -1.0), result.action, True
    return math.tanh(result.value / heuristics.value_scale), result.action, False


__all__ = [
    "CHANCE_SAMPLES", "DEFAULT_DEPTH", "DEFAULT_ITERATIONS", "ENGINES", "EngineSettings", "Evaluation", "evaluate",
    "position_digest",
]
