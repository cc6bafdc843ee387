"""Hex coordinates and directions with the course referee's names and behaviour.

``HexPos`` values are cached (49 of them), so ``pos + direction`` in an agent's
inner loop is a table lookup rather than a new dataclass.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterator

from ..games.infexion.engine import BOARD_N, DIRECTIONS


@dataclass(frozen=True, slots=True)
class HexVec:
    """A displacement on the hex grid (no bounds, no wrap)."""

    r: int = 0
    q: int = 0

    def __add__(self, other: "HexVec | HexDir") -> "HexVec":
        return HexVec(self.r + other.r, self.q + other.q)

    def __sub__(self, other: "HexVec | HexDir") -> "HexVec":
        return HexVec(self.r - other.r, self.q - other.q)

    def __neg__(self) -> "HexVec":
        return HexVec(-self.r, -self.q)

    def __mul__(self, scalar: int) -> "HexVec":
        return HexVec(self.r * scalar, self.q * scalar)

    __rmul__ = __mul__

    def __iter__(self) -> Iterator[int]:
        yield self.r
        yield self.q


@dataclass(frozen=True, slots=True, order=True)
class HexPos(HexVec):
    """A cell of the 7x7 torus; arithmetic wraps modulo 7."""

    def __post_init__(self) -> None:
        if not (0 <= self.r < BOARD_N and 0 <= self.q < BOARD_N):
            raise ValueError(f"({self.r}, {self.q}) is not a cell: r and q must be in 0..{BOARD_N - 1}")

    def __add__(self, other: "HexVec | HexDir") -> "HexPos":  # type: ignore[override]
        return _POSITIONS[(self.r + other.r) % BOARD_N * BOARD_N + (self.q + other.q) % BOARD_N]

    def __sub__(self, other: "HexVec | HexDir") -> "HexPos":  # type: ignore[override]
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
    def _missing_(cls, value: object) -> "HexDir | None":
        if isinstance(value, tuple) and len(value) == 2:
            for member in cls:
                if (member.r, member.q) == value:
                    return member
        return None

    def __neg__(self) -> "HexDir":
        return HexDir((-self.r, -self.q))

    def __mul__(self, scalar: int) -> HexVec:
        return HexVec(self.r * scalar, self.q * scalar)

    __rmul__ = __mul__

    def __iter__(self) -> Iterator[int]:
        yield self.r
        yield self.q

    def __str__(self) -> str:
        return _ARROWS[self.index]


_ARROWS = ("[\u2198]", "[\u2193]", "[\u2199]", "[\u2196]", "[\u2191]", "[\u2197]")
#: ``HexDir`` by engine direction index.
HEX_DIRS: tuple[HexDir, ...] = tuple(HexDir(d) for d in DIRECTIONS)
