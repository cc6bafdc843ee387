"""The limits an agent plays under: one value from the command line or YAML to the record.

:class:`Limits` is made once, where the user's numbers are read (``python -m
referee``'s flags, a tournament's YAML), and carried unchanged: tournament
plan, :class:`~referee.match.MatchSettings`, the hosted agent's process, the
game's record.  "0 means none" is applied here and nowhere else.

Each side may play under its own time and space limit (a game *at odds*:
``-t 18,180``, an agent's own ``time_limit`` in YAML): the agent's entry
then carries its own :class:`Limits`, and the record keeps both sides'
(:func:`record_fields`).  The watchdog's grace and call timeout are the
game's, the same for both sides.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

#: The watchdog's default: a call may last its remaining CPU time plus this (wall seconds).
DEFAULT_GRACE = 5.0
_MB = 1024 * 1024

#: Each limit's name (as in YAML and records) -> what its number counts, for messages.
MEANINGS = {
    "time_limit": "CPU seconds per agent per game",
    "space_limit": "MB per agent",
    "wall_grace": "wall seconds a call may last beyond the agent's remaining CPU time",
    "call_timeout": "wall seconds per agent call",
}
#: The limits where 0 (or empty) means no limit; a grace of 0 is simply no grace.
_OPTIONAL = ("time_limit", "space_limit", "call_timeout")


class LimitError(ValueError):
    """A limit that is not a number of 0 or more."""

    def __init__(self, name: str, value: object):
        super().__init__(f"{name} must be a number of 0 or more ({MEANINGS[name]}), not {value!r}")
        self.name = name
        self.value = value


def checked(name: str, value: object) -> float:
    """``value`` as the limit ``name``'s number; raises :class:`LimitError` unless it is a finite number >= 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise LimitError(name, value)
    return float(value)


@dataclass(frozen=True)
class Limits:
    """An agent's limits; ``None`` means none (0 given for an optional limit becomes ``None``)."""

    time_limit: float | None = None  # CPU seconds for the whole game
    space_limit: float | None = None  # MB above the interpreter's baseline
    wall_grace: float = DEFAULT_GRACE  # watchdog: remaining CPU time + this, per call
    call_timeout: float | None = None  # watchdog: wall cap on any one call

    def __post_init__(self) -> None:
        for name in _OPTIONAL:
            value = getattr(self, name)
            # The one place where "0 means none": every later reader sees None.
            object.__setattr__(self, name, None if value is None else (checked(name, value) or None))
        object.__setattr__(self, "wall_grace", checked("wall_grace", self.wall_grace))

    @property
    def cpu(self) -> float | None:
        """The CPU budget in seconds, or None."""
        return self.time_limit

    @property
    def space_bytes(self) -> float | None:
        """The memory limit in bytes, or None."""
        return self.space_limit * _MB if self.space_limit is not None else None


#: The limits a side may have of its own (a game at odds); the others are the game's.
SIDE_LIMITS = ("time_limit", "space_limit")


def own_limits(game: Limits, time_limit: float | None = None, space_limit: float | None = None) -> Limits:
    """The game's limits with a side's own time and/or space limit (None: the game's)."""
    changes = {name: value for name, value in (("time_limit", time_limit), ("space_limit", space_limit))
               if value is not None}
    return replace(game, **changes) if changes else game


def at_odds(red: Limits, blue: Limits) -> bool:
    """Whether the two sides' time or space limits differ."""
    return any(getattr(red, name) != getattr(blue, name) for name in SIDE_LIMITS)


def record_fields(red: Limits, blue: Limits) -> dict[str, Any]:
    """A record's ``time_limit``, ``space_limit`` and ``odds`` for a game with these sides' limits.

    An even game: the shared limits and ``odds`` null.  At odds: ``odds`` holds each side's
    ``{"time_limit", "space_limit"}``, and ``time_limit``/``space_limit`` the limit only where both sides
    agree (null where they differ: read :meth:`referee.records.GameRecord.limit_of`).
    """
    fields: dict[str, Any] = {
        name: getattr(red, name) if getattr(red, name) == getattr(blue, name) else None for name in SIDE_LIMITS
    }
    fields["odds"] = {color: {name: getattr(limits, name) for name in SIDE_LIMITS}
                      for color, limits in (("RED", red), ("BLUE", blue))} if at_odds(red, blue) else None
    return fields


def limits_text(time_limit: float | None, space_limit: float | None) -> str:
    """A side's limits in a few words for tables and reports: ``18 s CPU, 250 MB``."""
    return ", ".join((f"{time_limit:g} s CPU" if time_limit else "no time limit",
                      f"{space_limit:g} MB" if space_limit else "no memory limit"))
