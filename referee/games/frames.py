"""The frames of a game's HTML replay: the layout and one board per recorded step.

Each game's registration names a function ``(actions, state) -> Frames`` that
replays the recorded action texts into ``state`` (so the viewer needs no
rules of its own) and says where the game's cells are drawn and what each
step touched; this module holds what those functions share.  Layout
coordinates follow the rules' directions: flat-topped hexes, +r up-right,
+q down-right.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from .base import ActionT, GameRuleError, GameState

SQRT3 = math.sqrt(3)


class ReplayError(ValueError):
    """A record that cannot be replayed (unknown game, illegal action)."""


@dataclass
class Frames:
    """What a viewer needs: static layout, one board per step, step details."""

    game: str
    cells: list[dict[str, Any]]  # {"r", "q", "x", "y"} for every cell, in board order
    sides: list[dict[str, Any]] = field(default_factory=list)  # coloured board edges (Cachex)
    #: One per step: a string with a character per cell (games whose cells
    #: hold one stack), or a list of ``[cell, kinds, owner, text]`` for the
    #: cells that are not plain (games with terrain, cities and units).
    boards: list[Any] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)  # per action: who, text, touched cells
    #: Why the actions do not lead to the recorded result (None: they do).
    warning: str | None = None
    #: What the step highlights mean: ``(mark, text)`` pairs, the mark being
    #: the class a step gives a cell (``source``, ``touched``, ``captured``,
    #: ``removed``, ``killed``).  None: the page's default wording (Infexion's).
    legend: list[tuple[str, str]] | None = None
    #: What the board's looks mean (games with terrain and cities): ``(kinds,
    #: owner, territory, text)``, each drawn as a small cell styled like the board's.
    board_key: list[tuple[str, str, str, str]] = field(default_factory=list)
    #: The names of each side's figures, shown beside the clocks at every step
    #: (Infexion: power, cells; Cachex: cells; Infinitron: RP, income, score).
    score_names: list[str] = field(default_factory=list)
    #: One per board: ``[Red's figures, Blue's figures]``, each in the order of ``score_names``.
    scores: list[list[list[int]]] = field(default_factory=list)
    #: One per board, the game's own state beside the board (Infinitron: the
    #: turn, templates, territories); empty for games without any.
    status: list[dict[str, Any]] = field(default_factory=list)
    #: Values the statuses refer to by index (``status[i]["templates"]`` is an
    #: index into ``shared["templates"]``), so that a long game sends each once.
    shared: dict[str, list[Any]] = field(default_factory=dict)
    #: Whether a cell's stack shows its number (Infexion's power); False: a cell holds one stone (Cachex).
    powers: bool = True

    def to_json_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": self.game,
            "cells": self.cells,
            "sides": self.sides,
            "boards": self.boards,
            "steps": self.steps,
            "warning": self.warning,
        }
        # Only games with figures get these keys: the other games' data stays as it was.
        if self.score_names:
            data["score_names"] = self.score_names
            data["scores"] = self.scores
        if self.status:
            data["status"] = self.status
            data["shared"] = self.shared
        if not self.powers:
            data["powers"] = False
        return data


class Interned:
    """Distinct values in first-seen order, each given once: ``index(v)`` is its place in ``values``."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._seen: dict[str, int] = {}

    def index(self, value: Any) -> int:
        # Keyed by the JSON text, so lists (unhashable) are interned as they will be sent.
        key = json.dumps(value, separators=(",", ":"))
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = len(self.values)
            self.values.append(value)
        return found


# Board strings: one character per cell; "." empty, "a".."f" red power 1..6,
# "A".."F" blue power 1..6; for games without power, "a" red and "A" blue.
def cell_char(owner: int | None, power: int) -> str:
    """The board-string character of a cell: its owner and power."""
    if owner is None or power <= 0:
        return "."
    return chr((ord("a") if owner == 0 else ord("A")) + power - 1)


def xy(r: float, q: float) -> tuple[float, float]:
    """Where the centre of cell ``(r, q)`` is drawn."""
    # Unit distance between neighbouring centres; flat-topped hexes.
    x = (r + q) * SQRT3 / 2
    y = -(r - q) / 2
    return round(x, 4), round(y, 4)


def apply_recorded(state: GameState[ActionT], text: str, index: int) -> ActionT:
    """Apply the record's ``index``-th action text to ``state``; ReplayError if it cannot be."""
    try:
        action = state.parse_action(text)
        state.apply_checked(action)
    except GameRuleError as exc:
        raise ReplayError(f"action {index + 1} of the record ({text!r}) cannot be replayed: {exc}") from None
    return action
