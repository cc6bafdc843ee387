"""The games the referee knows, by name.

A game is a plug-in: a class implementing :class:`referee.games.base.Game`,
registered here by its import path so that only the games in use are imported.
To add one, write ``referee/games/<name>/`` and add a line to ``GAMES``, or,
for a game that lives elsewhere, name it in the ``REFEREE_GAMES`` variable.
"""
from __future__ import annotations

import os
from importlib import import_module
from typing import Any

from .base import Game, GameOptionError

GAMES: dict[str, str] = {
    "infexion": "referee.games.infexion:Infexion",
    "cachex": "referee.games.cachex:Cachex",
    "infinitron": "referee.games.infinitron:Infinitron",
}

#: Games from outside this package: ``REFEREE_GAMES="name=module:Class,..."``
#: (read by the referee and by every agent process, which inherit it).
PLUGIN_ENV = "REFEREE_GAMES"


def _plugin_games() -> dict[str, str]:
    found = {}
    for entry in filter(None, (e.strip() for e in os.environ.get(PLUGIN_ENV, "").split(","))):
        name, sep, path = entry.partition("=")
        if not sep or ":" not in path:
            raise GameOptionError(f"{PLUGIN_ENV}: {entry!r} is not name=module:Class")
        found[name.strip()] = path.strip()
    return found


def _registry() -> dict[str, str]:
    return {**GAMES, **_plugin_games()}


def game_names() -> list[str]:
    return sorted(_registry())


def game_module(name: str) -> str:
    """The module that defines the named game (an agent's sandbox must show a plug-in's)."""
    try:
        return _registry()[name].partition(":")[0]
    except KeyError:
        raise GameOptionError(f"unknown game {name!r}; known games: {', '.join(game_names())}") from None


def game_class(name: str) -> type[Game]:
    """The class of the named game; raises GameOptionError if unknown."""
    try:
        path = _registry()[name]
    except KeyError:
        raise GameOptionError(f"unknown game {name!r}; known games: {', '.join(game_names())}") from None
    module_name, _, class_name = path.partition(":")
    try:
        return getattr(import_module(module_name), class_name)
    except (ImportError, AttributeError) as exc:
        raise GameOptionError(f"game {name!r} ({path}) cannot be loaded: {exc}") from None


def load_game(name: str, **options: Any) -> Game:
    """Make the named game with its options; raises GameOptionError if unknown."""
    return game_class(name)(**options)
