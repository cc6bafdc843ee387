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


class Passive:
    """Ends every turn at once and takes chaos events as told: it never wins, so a game against a person who
    only ends turns lasts until chaos strikes (a random agent sometimes took the capital first)."""

    def __init__(self, color, **referee):
        self.color = color

    def action(self, **referee):
        return EndTurn()

    def turn(self, color, action, **referee):
        pass
