"""Hex coordinates and directions with the course referee's names and behaviour.

``HexPos`` values are cached (49 of them), so ``pos + direction`` in an agent's
inner loop is a table lookup rather than a new dataclass.

Coordinates may be given as any whole-number type (numpy's integers, anything
with ``__index__``): they are stored as plain ``int``s, so such a ``HexPos``
equals, hashes and converts like one built from ``int``s.  Values that are not
whole numbers are kept as given, as the course's classes kept them.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from collections.abc import Iterable, Iterator
from typing import cast

from ..games.base import whole_number
from ..games.infexion.engine import BOARD_N, DIRECTIONS


def _plain(vec: HexVec) -> None:
    """Store ``vec``'s coordinates as ``int`` where they are whole numbers of another type."""
    for name in ("r", "q"):
        value = getattr(vec, name)
        if type(value) is not int:
            number = whole_number(value, allow_bool=True)  # the course's HexPos took True as 1
            if number is not None:
                object.__setattr__(vec, name, number)


@dataclass(frozen=True, slots=True)
class HexVec:
    """A displacement on the hex grid (no bounds, no wrap)."""

    r: int = 0
    q: int = 0

    def __post_init__(self) -> None:
        if type(self.r) is not int or type(self.q) is not int:
            _plain(self)

    def __add__(self, other: HexVec | HexDir) -> HexVec:
        return HexVec(self.r + other.r, self.q + other.q)

    def __sub__(self, other: HexVec | HexDir) -> HexVec:
        return HexVec(self.r - other.r, self.q - other.q)

    def __neg__(self) -> HexVec:
        return HexVec(-self.r, -self.q)

    def __mul__(self, scalar: int) -> HexVec:
        return HexVec(self.r * _scalar(scalar), self.q * _scalar(scalar))

    __rmul__ = __mul__

    def __iter__(self) -> Iterator[int]:
        yield self.r
        yield self.q


def _scalar(value: int) -> int:
    """A multiplier as ``int`` when it is a whole number (an object with only
    ``__index__`` cannot be multiplied by an ``int`` itself)."""
    if type(value) is int:
        return value
    number = whole_number(value, allow_bool=True)
    return value if number is None else number


@dataclass(frozen=True, slots=True, order=True)
class HexPos(HexVec):
    """A cell of the 7x7 torus; arithmetic wraps modulo 7."""

    def __post_init__(self) -> None:
        if type(self.r) is not int or type(self.q) is not int:
            _plain(self)
        if not (0 <= self.r < BOARD_N and 0 <= self.q < BOARD_N):
            raise ValueError(f"({self.r}, {self.q}) is not a cell: r and q must be in 0..{BOARD_N - 1}")

    def __add__(self, other: HexVec | HexDir) -> HexPos:
        return _POSITIONS[(self.r + other.r) % BOARD_N * BOARD_N + (self.q + other.q) % BOARD_N]

    def __sub__(self, other: HexVec | HexDir) -> HexPos:
        return _POSITIONS[(self.r - other.r) % BOARD_N * BOARD_N + (self.q - other.q) % BOARD_N]

    def __str__(self) -> str:
        return f"{self.r}-{self.q}"


_POSITIONS: tuple[HexPos, ...] = tuple(HexPos(r, q) for r in range(BOARD_N) for q in range(BOARD_N))


def hex_pos(index: int) -> HexPos:
    """The cached ``HexPos`` of an engine cell index (``r * 7 + q``)."""
    return _POSITIONS[index]


class HexDir(Enum):
    """The six directions, named as the course referee named them."""

    DownRight = HexVec(*DIRECTIONS[0])
    Down = HexVec(*DIRECTIONS[1])
    DownLeft = HexVec(*DIRECTIONS[2])
    UpLeft = HexVec(*DIRECTIONS[3])
    Up = HexVec(*DIRECTIONS[4])
    UpRight = HexVec(*DIRECTIONS[5])

    def __init__(self, vec: HexVec):
        # Plain attributes rather than properties: read in agents' hot loops.
        self.r = vec.r
        self.q = vec.q
        self.index = DIRECTIONS.index((vec.r, vec.q))

    @classmethod
    def _missing_(cls, value: object) -> HexDir | None:
        # As the course's HexDir did: any pair (tuple, list, HexVec) of whole numbers.
        try:
            dr, dq = cast("Iterable[object]", value)  # anything else fails here, as it should
        except (TypeError, ValueError):
            return None
        # Not named r, q, index: mypy takes locals of an Enum's methods for
        # its members' attributes ("cannot assign to final name").
        whole_r, whole_q = whole_number(dr, allow_bool=True), whole_number(dq, allow_bool=True)
        found = None if whole_r is None or whole_q is None else _DIR_INDEX.get((whole_r, whole_q))
        return None if found is None else HEX_DIRS[found]

    def __neg__(self) -> HexDir:
        return HEX_DIRS[_DIR_INDEX[(-self.r, -self.q)]]

    def __mul__(self, scalar: int) -> HexVec:
        return HexVec(self.r * _scalar(scalar), self.q * _scalar(scalar))

    __rmul__ = __mul__

    def __iter__(self) -> Iterator[int]:
        yield self.r
        yield self.q

    def __str__(self) -> str:
        return _ARROWS[self.index]


_ARROWS = ("[\u2198]", "[\u2193]", "[\u2199]", "[\u2196]", "[\u2191]", "[\u2197]")
#: ``HexDir`` by engine direction index.
HEX_DIRS: tuple[HexDir, ...] = tuple(HexDir(HexVec(*d)) for d in DIRECTIONS)
#: Engine direction index by ``(dr, dq)``.
_DIR_INDEX: dict[tuple[int, int], int] = {d: i for i, d in enumerate(DIRECTIONS)}
