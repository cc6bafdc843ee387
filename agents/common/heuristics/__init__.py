"""Per-game knowledge for the bundled search agents, looked up by game name."""
from __future__ import annotations

from importlib import import_module
from typing import Any

from .base import WIN, WIN_ZONE, Heuristics, perspective

#: Game name -> ``module:Class`` of its heuristics (imported only when used).
HEURISTICS = {
    "infexion": "agents.common.heuristics.infexion:InfexionHeuristics",
    "cachex": "agents.common.heuristics.cachex:CachexHeuristics",
    "infinitron": "agents.common.heuristics.infinitron:InfinitronHeuristics",
}


def heuristics_for(game: Any, **options: Any) -> Heuristics:
    """The heuristics of ``game`` (a :class:`referee.games.base.Game`).

    A game without heuristics of its own gets the neutral defaults, so every
    game the referee knows can be played by the search agents.
    """
    path = HEURISTICS.get(game.name)
    if path is None:
        return Heuristics(game, **options)
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)(game, **options)


__all__ = ["WIN", "WIN_ZONE", "Heuristics", "heuristics_for", "perspective"]
