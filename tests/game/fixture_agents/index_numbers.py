"""Builds every action it returns from numbers that are not ``int``.

Like an agent that computes its moves with numpy and passes numpy integers
to ``HexPos``, ``PlaceAction`` or an Infinitron command: here each whole
number is an object that only has ``__index__``, so the test needs no numpy.
Plays a random legal action of any game, through ``GameView``.
"""
from __future__ import annotations

import dataclasses
import random

from referee.agentkit import GameView
from referee.game import HexDir


class Index:
    """A whole number that is not an ``int``: it only converts through ``__index__``."""

    def __init__(self, value: int):
        self.value = value

    def __index__(self) -> int:
        return self.value

    def __repr__(self) -> str:
        return f"Index({self.value})"


def rebuilt(value: object) -> object:
    """``value`` built again with every ``int`` in it replaced by an ``Index``."""
    if type(value) is int:
        return Index(value)
    if isinstance(value, HexDir):
        return HexDir((Index(value.r), Index(value.q)))
    if isinstance(value, tuple):
        items = [rebuilt(item) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return type(value)(*(rebuilt(getattr(value, f.name)) for f in dataclasses.fields(value)))
    return value


class Agent:
    def __init__(self, color, **referee):
        self.view = GameView(color, referee)
        self.rng = random.Random(referee.get("seed"))

    def action(self, **referee):
        choice = self.rng.choice(self.view.state.legal_actions())
        return rebuilt(self.view.to_agent(choice))

    def turn(self, color, action, **referee):
        self.view.observe(action)
