"""Cachex's replay frames: the n x n board with its coloured sides, and each placement's captures."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..frames import Frames, apply_recorded, cell_char, xy
from .engine import STRIDE

#: What the step highlights mean in Cachex: a placement, its captures, the steal.
LEGEND = [
    ("source", "the stone just placed (after a STEAL: Blue's stone on the mirrored cell)"),
    ("captured", "stones the placement captured (taken off the board)"),
    ("removed", "Red's stone taken off by the STEAL"),
]


def cachex_frames(actions: Sequence[str], state: Any) -> Frames:
    n = state.n
    order = [r * STRIDE + q for r in range(n) for q in range(n)]  # engine cell -> frame index
    index = {cell: i for i, cell in enumerate(order)}
    cells = []
    for r in range(n):
        for q in range(n):
            x, y = xy(r, q)
            cells.append({"r": r, "q": q, "x": x, "y": y})
    edge = 0.62  # how far outside the outer cells a side is drawn
    sides = [
        {"color": "red", "points": [xy(-edge, q) for q in range(n)]},
        {"color": "red", "points": [xy(n - 1 + edge, q) for q in range(n)]},
        {"color": "blue", "points": [xy(r, -edge) for r in range(n)]},
        {"color": "blue", "points": [xy(r, n - 1 + edge) for r in range(n)]},
    ]
    frames = Frames("cachex", cells, sides, legend=LEGEND, score_names=["cells"], powers=False)

    def board_string() -> str:
        b = state.board
        return "".join(cell_char(None if b[c] == 0 else b[c] - 1, 1) for c in order)

    def scores() -> list[list[int]]:
        """Each side's stones on the board (a cell holds 0 when empty, else its owner + 1)."""
        b = state.board
        return [[sum(1 for c in order if b[c] == owner)] for owner in (1, 2)]

    frames.boards.append(board_string())
    frames.scores.append(scores())
    for i, text in enumerate(actions):
        mover = state.current_player
        apply_recorded(state, text, i)
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
        frames.scores.append(scores())
    return frames
