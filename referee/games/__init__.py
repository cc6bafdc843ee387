"""The games the referee knows, by name.

Each game is one folder, ``referee/games/<name>/``, whose ``registration.py``
declares a :class:`~referee.games.registration.Registration`: its rules, its
agent-facing types, its command-line options, its replay frames and its
default heuristics.  ``GAMES`` lists the registration modules, imported only
when asked for, so that a game's start imports no other game.  A game that
lives elsewhere is named in the ``REFEREE_GAMES`` variable
(docs/adding-a-game.md).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from .base import Game, GameOptionError
from .plugins import load_named, named_in
from .registration import Registration

#: The game every command plays when it is not told another (``--game``).
DEFAULT_GAME = "infexion"
#: Game name -> the module whose ``REGISTRATION`` describes it.
GAMES: dict[str, str] = {
    "infexion": "referee.games.infexion.registration",
    "cachex": "referee.games.cachex.registration",
    "infinitron": "referee.games.infinitron.registration",
}

#: Games from outside this package: ``REFEREE_GAMES="name=module,..."``, each
#: module with a ``REGISTRATION``; the older ``name=module:Class`` names a game
#: class whose module holds its agent types (read by the referee and by every
#: agent process, which inherit it).
PLUGIN_ENV = "REFEREE_GAMES"


def _plugin_games() -> dict[str, str]:
    return named_in(PLUGIN_ENV, GameOptionError, "name=module (a module with a REGISTRATION) or name=module:Class")


def _sources() -> dict[str, str]:
    return {**GAMES, **_plugin_games()}


def game_names() -> list[str]:
    return sorted(_sources())


@cache
def _load_registration(name: str, path: str) -> Registration:
    module_name, _, class_name = path.partition(":")
    if class_name:  # the older plug-in form: a game class, its module its own agent types
        cls = Registration(name, path, module_name).game_class()
        types = getattr(cls, "agent_types_module", "") or module_name
        return Registration(name, path, types)
    found = load_named("game", name, module_name, GameOptionError, "REGISTRATION")
    if not isinstance(found, Registration):
        raise GameOptionError(f"game {name!r}: {path}.REGISTRATION is not a Registration")
    if found.name != name:
        raise GameOptionError(f"game {name!r}: {path} registers a game named {found.name!r}")
    return found


def registration(name: str) -> Registration:
    """The named game's registration; raises GameOptionError if unknown or broken."""
    try:
        path = _sources()[name]
    except KeyError:
        raise GameOptionError(f"unknown game {name!r}; known games: {', '.join(game_names())}") from None
    return _load_registration(name, path)


def registrations() -> Iterator[Registration]:
    """The bundled games' registrations, in ``GAMES`` order."""
    return (registration(name) for name in GAMES)


def rule_reasons() -> tuple[str, ...]:
    """Every verdict reason of the bundled games' rules, each once, in ``GAMES`` order."""
    reasons = (reason for r in registrations() for reason in r.game_class().reasons)
    return tuple(dict.fromkeys(reasons))


def game_modules(name: str) -> list[str]:
    """The modules the named game's registration names (an agent's sandbox must show a plug-in's)."""
    path = _sources().get(name, "")
    return list(dict.fromkeys([path.partition(":")[0], *registration(name).modules()]))


def game_class(name: str) -> type[Game]:
    """The class of the named game; raises GameOptionError if unknown."""
    return registration(name).game_class()


def command_line_options(name: str, args: Any, seed: int | None) -> dict[str, Any]:
    """The named game's options as a command line (argparse ``args``) gives them, with what ``seed`` draws.

    The rules check the values here, before any agent starts: a bad one raises GameOptionError.
    """
    rules = game_class(name)
    options = rules.seeded_options(registration(name).options_from_args(args), seed)
    rules(**options)
    return options


def load_game(name: str, **options: Any) -> Game:
    """Make the named game with its options; raises GameOptionError if unknown."""
    return game_class(name)(**options)


def recorded_game(name: str, options: Mapping[str, Any]) -> Game:
    """The game a record was played in: its ``game`` and ``game_options``, read as the game reads old records
    (:meth:`~.base.Game.recorded_options`: Infinitron's records from before the ``rules`` option are 1.1)."""
    rules = game_class(name)
    return rules(**rules.recorded_options(options))
