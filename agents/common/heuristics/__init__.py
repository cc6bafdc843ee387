"""Per-game knowledge for the bundled search agents, looked up by game name."""
from __future__ import annotations

from importlib import import_module
from typing import Any

from referee.games import registration
from referee.games.base import GameOptionError

from .base import WIN, WIN_ZONE, Heuristics, perspective


def heuristics_for(game: Any, **options: Any) -> Heuristics:
    """The heuristics of ``game`` (a :class:`referee.games.base.Game`).

    The game's registration names them; a game without heuristics of its
    own gets the neutral defaults, so every game the referee knows can be
    played by the search agents.
    """
    try:
        path = registration(game.name).heuristics
    except GameOptionError:  # a game made outside the registry
        path = None
    if path is None:
        return Heuristics(game, **options)
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)(game, **options)


__all__ = ["WIN", "WIN_ZONE", "Heuristics", "heuristics_for", "perspective"]
