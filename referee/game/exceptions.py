"""Exceptions agents may catch, as the course referee named them."""
from __future__ import annotations

from typing import Any


class PlayerException(Exception):
    """Something a player did wrong."""

    def __init__(self, message: str = "", player: Any = None):
        super().__init__(message, player)
        self.message = message
        self.player = player

    def __str__(self) -> str:
        return self.message


class IllegalActionException(PlayerException):
    """An action the rules do not allow."""
