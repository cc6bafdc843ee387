"""A brute-force Part A solver for the tests, written apart from the real one.

It uses only the engine's public state API (``InfexionState.apply``), never
the solver's tables or bounds, so the two can check each other.
"""
from __future__ import annotations

from referee.games.base import RED
from referee.games.infexion import InfexionState, spread_action


def red_spreads(state: InfexionState) -> list[int]:
    """Every SPREAD Red could make here."""
    return [spread_action(r, q, d) for r, q, owner, _ in state.cells() if owner == RED for d in range(6)]


def after(state: InfexionState, action: int) -> InfexionState:
    """The position after Red's ``action`` (Red moves again next: Part A)."""
    child = state.copy_without_history()
    child.turn = 0
    child.apply(action)
    child.turn = 0
    return child


class TooBig(Exception):
    """The breadth-first search hit its state cap."""


def shortest_win(cells: dict, max_depth: int, cap: int = 200_000) -> int | None:
    """Length of the shortest all-SPREAD win up to ``max_depth``, else None."""
    start = InfexionState(cells)
    if start.blue_power == 0:
        return 0
    frontier = [start]
    seen = {start.key()}
    for depth in range(1, max_depth + 1):
        following = []
        for state in frontier:
            for action in red_spreads(state):
                child = after(state, action)
                if child.blue_power == 0:
                    return depth
                key = child.key()
                if key not in seen:
                    seen.add(key)
                    following.append(child)
        if len(seen) > cap:
            raise TooBig(len(seen))
        frontier = following
    return None
