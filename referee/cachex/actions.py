"""Cachex action objects for agents, and their engine action ids."""
from __future__ import annotations

from dataclasses import dataclass

from ..games.base import whole_number
from ..games.cachex.engine import ACTION_COUNT, MAX_N, STEAL, cell_coords, cell_index


@dataclass(frozen=True, slots=True)
class PlaceAction:
    """Put a stone of your colour on the empty cell ``(r, q)``."""

    r: int
    q: int

    def __post_init__(self) -> None:
        # Whole numbers of another type (numpy's, ``__index__``) are stored as
        # ``int``, so the action equals and prints like one built from ints.
        for name in ("r", "q"):
            value = getattr(self, name)
            if type(value) is not int:
                number = whole_number(value)
                if number is not None:
                    object.__setattr__(self, name, number)

    @property
    def cell(self) -> tuple[int, int]:
        return (self.r, self.q)

    def __str__(self) -> str:
        return f"PLACE({self.r}, {self.q})"


@dataclass(frozen=True, slots=True)
class StealAction:
    """Blue's first move only: take Red's stone, mirrored to ``(q, r)``."""

    def __str__(self) -> str:
        return "STEAL"


Action = PlaceAction | StealAction


def coordinate(value: object) -> int | None:
    """``value`` as a cell coordinate of some Cachex board (0..14), else None.

    Whole numbers only: ``int`` or any integer type (numpy's, anything with
    ``__index__``); never ``bool``, ``float`` or text.
    """
    number = whole_number(value)
    return number if number is not None and 0 <= number < MAX_N else None


def cell_action(r: object, q: object) -> int | None:
    """The engine action placing on ``(r, q)``, or None if those are not coordinates."""
    row, col = coordinate(r), coordinate(q)
    if row is None or col is None:
        return None
    return cell_index(row, col)


def to_engine_action(action: object) -> int | None:
    """The engine's action id for an agent's action object, or ``None``.

    ``None`` means the object is not a Cachex action at all: another type,
    or coordinates that are not whole numbers 0..14.  A cell off the board in
    play (``PLACE(9, 9)`` with ``n = 7``) converts, and is illegal there.
    """
    if type(action) is PlaceAction:
        return cell_action(action.r, action.q)
    if type(action) is StealAction:
        return STEAL
    return None


_FROM_ENGINE: tuple[Action, ...] = tuple(
    StealAction() if a == STEAL else PlaceAction(*cell_coords(a)) for a in range(ACTION_COUNT)
)


def from_engine_action(action: int) -> Action:
    """The action object for an engine action id (cached, immutable)."""
    return _FROM_ENGINE[action]
