"""An Infinitron agent that ends every turn at once and fails when told of a chaos event."""
from __future__ import annotations

from referee.infinitron import EndTurn


class Agent:
    def __init__(self, color, **referee):
        self.color = color

    def action(self, **referee):
        return EndTurn()

    def turn(self, color, action, **referee):
        if color is None:
            raise RuntimeError(f"told of chance's {action}")
