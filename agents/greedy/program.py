from __future__ import annotations

from typing import Any
from collections.abc import Hashable

from agents.common.alphabeta import AlphaBeta
from agents.common.agent import SearchAgent
from agents.common.clock import Deadline


class Agent(SearchAgent):
    """One ply: the action whose resulting position the game's evaluation likes best.

    Ties are broken at random (seeded from the referee's ``seed``).  It looks
    at every legal action and never deeper, whatever the clock says.
    """

    name = "greedy"

    def __init__(self, color: Any, **referee: Any):
        super().__init__(color, **referee)
        # A depth-1 alpha-beta without quiescence is exactly a one-ply search.
        self.search = AlphaBeta(self.heuristics, max_depth=1, quiescence_depth=0, table_entries=0, rng=self.rng)

    def choose(self, deadline: Deadline) -> Hashable:
        self.last = self.search.choose(self.view.state, deadline)
        return self.last.action
