"""``PlayerColor``, as the course referee defined it."""
from __future__ import annotations

from enum import Enum


class PlayerColor(Enum):
    RED = 0
    BLUE = 1

    def __str__(self) -> str:
        return self.name

    def __index__(self) -> int:
        return self.value

    def __int__(self) -> int:
        # The course's convention: +1 for Red, -1 for Blue.
        return 1 - 2 * self.value

    @property
    def symbol(self) -> str:
        return "rb"[self.value]

    @property
    def opponent(self) -> PlayerColor:
        return _OPPONENT[self]


_OPPONENT = {PlayerColor.RED: PlayerColor.BLUE, PlayerColor.BLUE: PlayerColor.RED}
