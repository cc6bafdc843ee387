"""``SpawnAction`` and ``SpreadAction``, and their engine action ids."""
from __future__ import annotations

from dataclasses import dataclass

from ..games.base import whole_number
from ..games.infexion.engine import ACTION_CELL, ACTION_DIR, BOARD_N, DIRECTIONS, SPREAD_BASE
from .hex import HEX_DIRS, HexDir, HexPos, hex_pos


@dataclass(frozen=True, slots=True)
class SpawnAction:
    cell: HexPos

    def __str__(self) -> str:
        return f"SPAWN({self.cell.r}, {self.cell.q})"


@dataclass(frozen=True, slots=True)
class SpreadAction:
    cell: HexPos
    direction: HexDir

    def __str__(self) -> str:
        return f"SPREAD({self.cell.r}, {self.cell.q}, {self.direction.r}, {self.direction.q})"


Action = SpawnAction | SpreadAction

_DIR_BY_VECTOR = {d: i for i, d in enumerate(DIRECTIONS)}


def to_engine_action(action: object) -> int | None:
    """The engine's action id for an agent's action object, or ``None``.

    ``None`` means the object is not an Infexion action at all (wrong type,
    a cell that is not a ``HexPos`` of whole numbers, a direction that is not
    one of the six).  Whole numbers of any integer type count (``HexPos``
    stores them as ``int``); the id is always a plain ``int``.
    """
    if type(action) is SpawnAction:
        cell = action.cell
        if type(cell) is not HexPos and not isinstance(cell, HexPos):
            return None
        r, q = cell.r, cell.q
        # HexPos keeps coordinates that are not whole numbers (a float) as given.
        if type(r) is not int or type(q) is not int:
            return None
        return r * BOARD_N + q
    if type(action) is SpreadAction:
        cell, direction = action.cell, action.direction
        if type(cell) is not HexPos and not isinstance(cell, HexPos):
            return None
        r, q = cell.r, cell.q
        if type(r) is not int or type(q) is not int:
            return None
        if type(direction) is HexDir:
            index = direction.index
        else:
            try:
                dr, dq = whole_number(direction.r, True), whole_number(direction.q, True)
            except AttributeError:
                return None
            found = None if dr is None or dq is None else _DIR_BY_VECTOR.get((dr, dq))
            if found is None:
                return None
            index = found
        return SPREAD_BASE + (r * BOARD_N + q) * 6 + index
    return None


_FROM_ENGINE: tuple[SpawnAction | SpreadAction, ...] = tuple(
    SpawnAction(hex_pos(a)) if a < SPREAD_BASE else SpreadAction(hex_pos(ACTION_CELL[a]), HEX_DIRS[ACTION_DIR[a]])
    for a in range(len(ACTION_CELL))
)


def from_engine_action(action: int) -> SpawnAction | SpreadAction:
    """The action object for an engine action id (cached, immutable)."""
    return _FROM_ENGINE[action]
