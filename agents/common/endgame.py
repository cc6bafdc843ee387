"""Exact play near a game's end: alpha-beta searched all the way to it.

Some games end after a fixed number of actions (Infexion's 343), and the
last ones decide close games.  Once the heuristics can value every position
a few plies ahead exactly (:meth:`~.heuristics.base.Heuristics.plies_to_exact`),
a complete alpha-beta search to that depth finds the best action outright,
where MCTS, widening its nodes slowly and proving a draw or a loss only when
every child is proven, may not (measured in agents/mcts/README.md).
"""
from __future__ import annotations

import random
from collections.abc import Hashable

from referee.games.base import GameState

from .alphabeta import AlphaBeta, SearchResult
from .clock import Deadline
from .heuristics.base import WIN, WIN_ZONE, Heuristics


class EndgameSolver:
    """Finds the exactly best action when the end is at most ``max_plies`` away."""

    def __init__(
        self, heuristics: Heuristics, max_plies: int, *, table_entries: int = 50_000, rng: random.Random | None = None
    ):
        self.h = heuristics
        self.max_plies = max_plies
        # Every legal action, and no quiescence: the leaves are valued exactly already.
        self.search = AlphaBeta(heuristics, quiescence_depth=0, table_entries=table_entries, prune=False, rng=rng)
        self.last: SearchResult | None = None

    def plies(self, state: GameState) -> int | None:
        """The depth of a complete search from ``state``, if within reach."""
        plies = self.h.plies_to_exact(state)
        if plies is None or plies > self.max_plies:
            return None
        return max(1, plies)

    def solve(self, state: GameState, deadline: Deadline) -> Hashable | None:
        """The best action, or None when the end is too far or the search does not finish in time.

        It searches for half of what is left before the move's ``deadline``:
        the other half is for the search it stands in front of.  (With one
        legal action the search finishes no iteration: None, nothing to solve.)
        """
        plies = self.plies(state)
        if plies is None:
            return None
        self.last = self.search.choose(state, Deadline(deadline.left() / 2, wall=deadline.on_wall), max_depth=plies)
        # A proven win or loss ends the deepening early, and is exact too.
        exact = self.last.depth >= plies or self.last.depth > 0 and abs(self.last.value) > WIN - WIN_ZONE
        return self.last.action if exact else None
