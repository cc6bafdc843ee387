"""The tournament formats the referee knows, by the config's ``format:`` name.

Each format is one module here, a :class:`~.base.Format` subclass behind
the interface of :mod:`.base`; :data:`FORMATS` lists them by import path,
one line each.  A format that lives elsewhere is named in the
``REFEREE_FORMATS`` variable (docs/adding-a-format.md).
"""
from __future__ import annotations

from functools import cache

from ...games.plugins import load_named, named_in
from ..problems import ConfigError
from .base import Format

#: Format name -> ``module:Class``, in the order the config's messages list them.
FORMATS: dict[str, str] = {
    "round_robin": "referee.tournament.formats.round_robin:RoundRobin",
    "gauntlet": "referee.tournament.formats.gauntlet:Gauntlet",
    "swiss": "referee.tournament.formats.swiss:Swiss",
    "ladder": "referee.tournament.formats.ladder:Ladder",
    "knockout": "referee.tournament.formats.knockout:Knockout",
}

#: The format of a config that names none.
DEFAULT_FORMAT = next(iter(FORMATS))

#: Formats from outside this package: ``REFEREE_FORMATS="name=module:Class,..."``.
PLUGIN_ENV = "REFEREE_FORMATS"


def _sources() -> dict[str, str]:
    return {**FORMATS, **named_in(PLUGIN_ENV, ConfigError, "name=module:Class (a Format subclass)", True)}


@cache
def _load(name: str, path: str) -> type[Format]:
    found = load_named("format", name, path, ConfigError)
    if not (isinstance(found, type) and issubclass(found, Format)):
        raise ConfigError(f"format {name!r}: {path} is not a Format subclass")
    if found.name != name:
        raise ConfigError(f"format {name!r}: {path} is the format named {found.name!r}")
    return found


def formats() -> dict[str, type[Format]]:
    """Every known format by name (the referee's, then ``REFEREE_FORMATS``'s); raises ConfigError if one is broken."""
    return {name: _load(name, path) for name, path in _sources().items()}


def format_class(name: str) -> type[Format] | None:
    """The format of that name, None if there is none."""
    path = _sources().get(name)
    return None if path is None else _load(name, path)


__all__ = ["DEFAULT_FORMAT", "FORMATS", "PLUGIN_ENV", "Format", "format_class", "formats"]
