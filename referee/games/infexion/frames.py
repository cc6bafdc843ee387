"""Infexion's replay frames: a 7x7 board string per step, and what each SPAWN or SPREAD touched."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..frames import Frames, apply_recorded, cell_char, xy
from .engine import ACTION_CELL, SPREAD_BASE, SPREAD_TARGETS


def infexion_frames(actions: Sequence[str], state: Any) -> Frames:
    n = 7
    cells = []
    for r in range(n):
        for q in range(n):
            x, y = xy(r, q)
            cells.append({"r": r, "q": q, "x": x, "y": y})
    frames = Frames("infexion", cells, score_names=["power", "cells"])

    def board_string() -> str:
        return "".join(cell_char(None if v == 0 else v >> 3, v & 7) for v in state.board)

    def scores() -> list[list[int]]:
        """Each side's total power and number of stacks (a cell holds the owner in bit 3, the power below)."""
        power, stacks = [0, 0], [0, 0]
        for v in state.board:
            if v:
                power[v >> 3] += v & 7
                stacks[v >> 3] += 1
        return [[power[0], stacks[0]], [power[1], stacks[1]]]

    frames.boards.append(board_string())
    frames.scores.append(scores())
    for i, text in enumerate(actions):
        action = apply_recorded(state, text, i)
        assert isinstance(action, int)  # Infexion's actions are ids
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
        frames.scores.append(scores())
    return frames
