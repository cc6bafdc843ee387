"""What the framework knows of one game, declared in one place.

A game is its rules (a :class:`~referee.games.base.Game`) plus what the rest
of the framework needs around them: the action objects agents exchange with
the referee, an adapter for an older agent protocol, the game's own
command-line options, the frames of its HTML replay and the heuristics of
the bundled search agents.  A :class:`Registration` names all of them, each
by import path, so that registering a game imports none of it: the referee
loads only what a run uses, and the engine itself names none of these.

Every game folder has a ``registration.py`` whose ``REGISTRATION`` is listed
in :data:`referee.games.GAMES` (docs/adding-a-game.md).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from .base import Game, GameOptionError

if TYPE_CHECKING:
    from .frames import Frames


class AgentTypes(Protocol):
    """The module of a game's agent-facing action types."""

    def to_engine_action(self, obj: object) -> Any:
        """The engine action of an agent's action object, or None if it is not one."""

    def from_engine_action(self, action: Any) -> Any:
        """The action object agents receive for an engine action."""


class LegacyAdapter(Protocol):
    """An older agent protocol a game still plays (Cachex's 2022 ``Player``).

    Such an agent is recognised by its class name; it is built as
    ``cls(*constructor_args(color, agent_kwargs))``, its ``action()`` takes no
    arguments and its ``turn(player, action)`` takes the protocol's own values.
    """

    class_name: str

    def constructor_args(self, color: int, agent_kwargs: Mapping[str, Any]) -> tuple[Any, ...]:
        """The positional arguments of the agent's constructor for ``color`` (0 Red, 1 Blue)."""

    def player(self, color: int) -> Any:
        """The ``player`` value ``turn()`` receives for ``color``."""

    def from_legacy(self, obj: object) -> Any:
        """The engine action of what the agent's ``action()`` returned, or None."""

    def describe_legacy(self, obj: object) -> str:
        """Why ``from_legacy`` refused ``obj``."""

    def to_legacy(self, action: Any) -> Any:
        """What the agent's ``turn()`` receives for an engine action."""


#: Builds a replay's frames: ``(recorded action texts, initial state) -> Frames``.
FramesBuilder = Callable[..., "Frames"]


@dataclass(frozen=True)
class GameOption:
    """One game option the play command takes as a command-line option.

    A ``bool`` option is a flag and is always given to the game (False when
    absent); any other is given only when the command line sets it, so the
    game's own default holds otherwise.  Tournament configurations set the
    same options under ``game_options``, where the game checks them.
    """

    name: str
    flags: tuple[str, ...]
    help: str
    type: type = int
    metavar: str | None = None
    choices: tuple[Any, ...] | None = None

    def add_to(self, parser: Any) -> None:
        """Add this option to an argparse parser or argument group."""
        if self.type is bool:
            parser.add_argument(*self.flags, dest=self.name, action="store_true", help=self.help)
            return
        parser.add_argument(
            *self.flags, dest=self.name, type=self.type, default=None, metavar=self.metavar,
            choices=self.choices, help=self.help,
        )

    def value_from(self, args: Any) -> tuple[bool, Any]:
        """``(given, value)`` of this option in parsed arguments."""
        value = getattr(args, self.name, None)
        if self.type is bool:
            return True, bool(value)
        return value is not None, value


#: The cells a person clicks to play one legal action: ``(state, action's text) -> cell indexes``.
ClickCells = Callable[[Any, str], "list[int]"]


@dataclass(frozen=True)
class WebPlay:
    """How a person plays the game on the page of ``python -m referee play --web``.

    ``clicks`` is ``module:function`` of a :data:`ClickCells`: the cells
    (indexes in the cell list of the game's replay frames, which the page
    draws) a person clicks to play a legal action in a position: one, or two
    (a cell, then a second one, as Infexion's SPREAD); none makes the action a
    button (Cachex's STEAL).  Without ``clicks`` the game is played by typed
    commands on its text board.  ``cell_action`` is what a click on a cell that
    starts no legal action asks for (``{r}`` and ``{q}`` are the cell's), so
    the refusal carries the rules' reason; ``how`` tells a person how to play;
    ``power`` says whether a cell's power is written on it.
    """

    clicks: str | None = None
    cell_action: str = ""
    how: str = ""
    power: bool = True


def load(path: str) -> Any:
    """The object a ``module:attribute`` path names, or the module a plain path names."""
    module_name, _, attribute = path.partition(":")
    module = import_module(module_name)
    return getattr(module, attribute) if attribute else module


@dataclass(frozen=True)
class Registration:
    """A game and everything the framework needs around it, by import path.

    ``game`` is ``module:Class`` of the rules; ``agent_types`` the module of
    the action objects agents see (with ``to_engine_action`` and
    ``from_engine_action``); ``legacy`` ``module:object`` of a
    :class:`LegacyAdapter`; ``frames`` ``module:function`` building the HTML
    replay's frames; ``web`` how a person plays it in the browser (a
    :class:`WebPlay`; None: by typed commands); ``heuristics`` ``module:Class`` of the search agents'
    heuristics (the referee never imports it).  ``agent_surfaces``: the
    modules of the course's packages the game's agents import (its 2022
    ``referee.board``, say), which a sealed agent is shown.  The game's
    verdict reasons are its class's ``reasons``.
    """

    name: str
    game: str
    agent_types: str
    options: tuple[GameOption, ...] = ()
    legacy: str | None = None
    frames: str | None = None
    heuristics: str | None = None
    agent_surfaces: tuple[str, ...] = ()
    web: WebPlay | None = None

    def game_class(self) -> type[Game]:
        """The rules' class; raises GameOptionError if it cannot be imported."""
        try:
            cls = load(self.game)
        except (ImportError, AttributeError) as exc:
            raise GameOptionError(f"game {self.name!r} ({self.game}) cannot be loaded: {exc}") from None
        if not (isinstance(cls, type) and issubclass(cls, Game)):
            raise GameOptionError(f"game {self.name!r}: {self.game} is not a Game class")
        return cls

    def agent_types_module(self) -> AgentTypes:
        """The module of the agent-facing action types."""
        module: ModuleType = load(self.agent_types)
        return module

    def legacy_adapter(self) -> LegacyAdapter | None:
        """The adapter of the game's older agent protocol, if it has one."""
        return None if self.legacy is None else load(self.legacy)

    def frames_builder(self) -> FramesBuilder | None:
        """The function building this game's replay frames, if it has a replay viewer."""
        return None if self.frames is None else load(self.frames)

    def click_cells(self) -> ClickCells | None:
        """The function giving the cells a person clicks for an action on the web page, if the game has one."""
        return None if self.web is None or self.web.clicks is None else load(self.web.clicks)

    def modules(self) -> list[str]:
        """Every module this registration names (an agent's sandbox must show a plug-in's)."""
        paths = [self.game, self.agent_types, *(p for p in (self.legacy, self.frames) if p), *self.agent_surfaces]
        return list(dict.fromkeys(path.partition(":")[0] for path in paths))

    def add_arguments(self, parser: Any) -> None:
        """Add the game's command-line options to an argparse parser or group."""
        for option in self.options:
            option.add_to(parser)

    def options_from_args(self, args: Any) -> dict[str, Any]:
        """The game options set on a parsed command line."""
        options = {}
        for option in self.options:
            given, value = option.value_from(args)
            if given:
                options[option.name] = value
        return options
