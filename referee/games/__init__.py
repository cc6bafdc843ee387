"""The games the referee knows, by name.

A game is a plug-in: a class implementing :class:`referee.games.base.Game`,
registered here by its import path so that only the games in use are imported.
To add one, write ``referee/games/<name>/`` and add a line to ``GAMES``.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

from .base import Game, GameOptionError

GAMES: dict[str, str] = {
    "infexion": "referee.games.infexion:Infexion",
}


def game_names() -> list[str]:
    return sorted(GAMES)


def game_class(name: str) -> type[Game]:
    """The class of the named game; raises GameOptionError if unknown."""
    try:
        path = GAMES[name]
    except KeyError:
        raise GameOptionError(f"unknown game {name!r}; known games: {', '.join(game_names())}") from None
    module_name, _, class_name = path.partition(":")
    return getattr(import_module(module_name), class_name)


def load_game(name: str, **options: Any) -> Game:
    """Make the named game with its options; raises GameOptionError if unknown."""
    return game_class(name)(**options)
