"""A recorded game as frames for the replay viewers: board layout + every step.

The record's actions are replayed with the game's own engine (so the viewer
needs no rules of its own); each game contributes a small adapter that says
where its cells are drawn and what each step touched.  Layout coordinates
follow the rules' directions: flat-topped hexes, +r up-right, +q down-right.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from ..games import load_game
from ..games.base import GameRuleError, GameState, Outcome
from ..records import GameRecord

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
    boards: list = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)  # per action: who, text, touched cells
    #: Why the actions do not lead to the recorded result (None: they do).
    warning: str | None = None

    def to_json_data(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "cells": self.cells,
            "sides": self.sides,
            "boards": self.boards,
            "steps": self.steps,
            "warning": self.warning,
        }


def _ending(winner: str | None, reason: str) -> str:
    return f"{winner} wins ({reason})" if winner else f"draw ({reason})"


def record_mismatch(record: GameRecord, final: GameState) -> str | None:
    """Why ``record``'s actions, replayed to ``final``, do not lead to its result; None if they do.

    A game the rules ended must end, after exactly the recorded actions, in
    the recorded winner and reason; a game an agent's failure ended (a
    forfeit) must not be over by the rules.  Either way the record must hold
    as many actions as it says were played.  A record cut short (or edited)
    otherwise replays as if complete.
    """
    held = len(record.actions)
    problems = []
    if record.turns != held:
        problems.append(f"it says {record.turns} actions were played but holds {held}")
    outcome: Outcome | None = final.outcome
    if record.forfeit:
        if outcome is not None:
            problems.append(f"its actions end the game by the rules, in {_ending(outcome.winner_name, outcome.reason)}")
    elif outcome is None:
        problems.append(f"after its {held} actions the game is not over")
    elif (outcome.winner_name, outcome.reason) != (record.winner, record.reason):
        problems.append(f"its actions end the game in {_ending(outcome.winner_name, outcome.reason)}")
    if not problems:
        return None
    return (
        f"this record's actions do not lead to its result, {_ending(record.winner, record.reason)}: "
        + "; ".join(problems)
        + ". It may have been cut short or edited."
    )


# Board strings: one character per cell; "." empty, "a".."f" red power 1..6,
# "A".."F" blue power 1..6; for games without power, "a" red and "A" blue.
def cell_char(owner: int | None, power: int) -> str:
    if owner is None or power <= 0:
        return "."
    return chr((ord("a") if owner == 0 else ord("A")) + power - 1)


def _infexion(record: GameRecord, state: GameState) -> Frames:
    from ..games.infexion.engine import ACTION_CELL, SPREAD_BASE, SPREAD_TARGETS

    n = 7
    cells = []
    for r in range(n):
        for q in range(n):
            x, y = _xy(r, q)
            cells.append({"r": r, "q": q, "x": x, "y": y})
    frames = Frames("infexion", cells)

    def board_string() -> str:
        return "".join(cell_char(None if v == 0 else v >> 3, v & 7) for v in state.board)

    frames.boards.append(board_string())
    for i, text in enumerate(record.actions):
        action = _apply(state, text, i)
        before = state.last_snapshot()
        mover = (state.turn - 1) & 1
        source = ACTION_CELL[action]
        if action < SPREAD_BASE:
            path: tuple[int, ...] = ()
        else:
            path = SPREAD_TARGETS[action * 8 + (before[source] & 7)]
        captured = [c for c in path if before[c] and (before[c] >> 3) != mover and state.board[c]]
        removed = [c for c in path if before[c] and not state.board[c]]
        frames.steps.append(
            {
                "player": "RED" if mover == 0 else "BLUE",
                "action": text,
                "source": source,
                "path": list(path),
                "captured": captured,
                "removed": removed,
            }
        )
        frames.boards.append(board_string())
    return frames


def _xy(r: float, q: float) -> tuple[float, float]:
    # Unit distance between neighbouring centres; flat-topped hexes.
    x = (r + q) * SQRT3 / 2
    y = -(r - q) / 2
    return round(x, 4), round(y, 4)


def _apply(state: GameState, text: str, index: int):
    try:
        action = state.parse_action(text)
        state.apply_checked(action)
    except GameRuleError as exc:
        raise ReplayError(f"action {index + 1} of the record ({text!r}) cannot be replayed: {exc}") from None
    return action


def _cachex(record: GameRecord, state: GameState) -> Frames:
    from ..games.cachex.engine import STRIDE

    n = state.n
    order = [r * STRIDE + q for r in range(n) for q in range(n)]  # engine cell -> frame index
    index = {cell: i for i, cell in enumerate(order)}
    cells = []
    for r in range(n):
        for q in range(n):
            x, y = _xy(r, q)
            cells.append({"r": r, "q": q, "x": x, "y": y})
    edge = 0.62  # how far outside the outer cells a side is drawn
    sides = [
        {"color": "red", "points": [_xy(-edge, q) for q in range(n)]},
        {"color": "red", "points": [_xy(n - 1 + edge, q) for q in range(n)]},
        {"color": "blue", "points": [_xy(r, -edge) for r in range(n)]},
        {"color": "blue", "points": [_xy(r, n - 1 + edge) for r in range(n)]},
    ]
    frames = Frames("cachex", cells, sides)

    def board_string() -> str:
        b = state.board
        return "".join(cell_char(None if b[c] == 0 else b[c] - 1, 1) for c in order)

    frames.boards.append(board_string())
    for i, text in enumerate(record.actions):
        mover = state.current_player
        _apply(state, text, i)
        _, placed, emptied = state.last_action_effect()
        steal = text == "STEAL"
        frames.steps.append(
            {
                "player": "RED" if mover == 0 else "BLUE",
                "action": text,
                "source": index[placed],
                "path": [],
                "captured": [] if steal else [index[c] for c in emptied],
                "removed": [index[c] for c in emptied] if steal else [],
            }
        )
        frames.boards.append(board_string())
    return frames


_TARGET = re.compile(r"(-?\d+),\s*(-?\d+)\)$")
_UNIT_COMMAND = re.compile(r"^(MOVE|ATTACK|ABILITY)\((\d+),")


def _infinitron(record: GameRecord, state: GameState) -> Frames:
    """Frames listing only the cells that are not plain ground.

    Each entry is ``[cell, kinds, owner, text]``: kinds are CSS words
    (``block lava repair label fish city capital destroyed unit``), owner
    ``red``/``blue``/``""`` (the unit's, else the city's), text the unit's
    number and HP (``3:60``).
    """
    from ..games.base import CHANCE
    from ..games.infinitron.engine import BLOCK, DESTROYED, FISH, LABEL, LAVA, REPAIR
    from ..games.infinitron.geometry import CELLS, INDEX

    ground_kind = {BLOCK: "block", LAVA: "lava", REPAIR: "repair", LABEL: "label", FISH: "fish"}
    cells = []
    for r, q in CELLS:
        x, y = _xy(r, q)
        cells.append({"r": r, "q": q, "x": x, "y": y})
    frames = Frames("infinitron", cells)
    setup = state.setup
    owners = ("red", "blue")

    def units() -> dict[int, tuple[int, int, int]]:
        """cell -> (player, uid, hp)"""
        return {pos: (p, uid, hp) for p in (0, 1) for uid, (pos, hp, _) in state.units[p].items()}

    def board() -> list:
        entries = []
        on = units()
        for i in range(len(CELLS)):
            kinds, owner, text = [], "", ""
            g = state.ground[i]
            if g in ground_kind:
                kinds.append(ground_kind[g])
            city = setup.city_at[i]
            if city >= 0:
                kinds.append("city")
                if city < 2:
                    kinds.append("capital")
                if state.city_flags[city] & DESTROYED:
                    kinds.append("destroyed")
                elif state.city_owner[city] >= 0:
                    owner = owners[state.city_owner[city]]
            if i in on:
                p, uid, hp = on[i]
                kinds.append("unit")
                owner, text = owners[p], f"{uid}:{hp}"
            if kinds:
                entries.append([i, " ".join(kinds), owner, text])
        return entries

    frames.boards.append(board())
    for i, text in enumerate(record.actions):
        mover = state.current_player
        before = units()
        source = None
        m = _UNIT_COMMAND.match(text)
        if m and mover != CHANCE:
            found = state.unit(mover, int(m.group(2)))
            source = INDEX[found[0]] if found else None
        _apply(state, text, i)
        target = _TARGET.search(text)
        path = [INDEX[(int(target.group(1)), int(target.group(2)))]] if target and "(" in text and not text.startswith("FISH") else []
        after = units()
        gone = [c for c, (p, uid, _) in before.items() if not any(u[:2] == (p, uid) for u in after.values())]
        frames.steps.append(
            {
                "player": "CHANCE" if mover == CHANCE else ("RED" if mover == 0 else "BLUE"),
                "action": text,
                "source": source,
                "path": path,
                "captured": gone,
                "removed": [],
            }
        )
        frames.boards.append(board())
    return frames


#: Per-game frame builders; a game without one cannot be replayed as HTML yet.
ADAPTERS: dict[str, Callable[[GameRecord, GameState], Frames]] = {
    "infexion": _infexion,
    "cachex": _cachex,
    "infinitron": _infinitron,
}


def build_frames(record: GameRecord) -> Frames:
    """Replay ``record`` with its game's engine into :class:`Frames`."""
    adapter = ADAPTERS.get(record.game)
    if adapter is None:
        raise ReplayError(f"no replay viewer for the game {record.game!r} (viewers exist for {', '.join(ADAPTERS)})")
    try:
        state = load_game(record.game, **dict(record.game_options)).new_state()
    except GameRuleError as exc:
        raise ReplayError(f"the record's game cannot be set up: {exc}") from None
    frames = adapter(record, state)  # replays every action into ``state``
    frames.warning = record_mismatch(record, state)
    return frames
