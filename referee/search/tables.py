"""Precomputed geometry for the Part A solver, derived from the engine's tables.

Cells are the engine's indices ``r * 7 + q``; a set of cells is an ``int``
bit mask (bit ``c`` for cell ``c``).  Everything here is computed once at
import from :data:`SPREAD_TARGETS`, so the solver and the engine cannot
disagree about which cells a SPREAD touches.
"""
from __future__ import annotations

from ..games.infexion.engine import (
    BOARD_N,
    CELLS,
    DIRECTIONS,
    MAX_CELL_POWER,
    SPREAD_BASE,
    SPREAD_TARGETS,
)

#: ``TOUCHED[(SPREAD_BASE + cell * 6 + d) * 8 + k]``: mask of the ``k`` cells
#: a SPREAD of power ``k`` from ``cell`` in direction ``d`` places tokens on.
TOUCHED: tuple[int, ...] = tuple(sum(1 << t for t in targets) for targets in SPREAD_TARGETS)


def cells_of(mask: int) -> list[int]:
    """The cell indices in a mask, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _reach() -> tuple[int, ...]:
    # REACH[cell * 8 + k]: every cell a stack of power k on ``cell`` can touch
    # with one SPREAD, in any of the six directions.
    table = [0] * (CELLS * 8)
    for cell in range(CELLS):
        for k in range(1, MAX_CELL_POWER + 1):
            mask = 0
            for d in range(len(DIRECTIONS)):
                mask |= TOUCHED[(SPREAD_BASE + cell * 6 + d) * 8 + k]
            table[cell * 8 + k] = mask
    return tuple(table)


REACH = _reach()

def _near_reach() -> tuple[int, ...]:
    # NEAR_REACH[cell * 8 + k]: every cell one step from a cell of
    # REACH[cell * 8 + k] (what the power-1 stacks that one SPREAD of that
    # stack leaves behind could touch next).
    table = [0] * (CELLS * 8)
    for i, mask in enumerate(REACH):
        for t in cells_of(mask):
            table[i] |= REACH[t * 8 + 1]
    return tuple(table)


NEAR_REACH = _near_reach()

#: ``COLLINEAR[cell]``: the 18 other cells on the three lines through ``cell``.
#: A power-6 SPREAD reaches every other cell of its line, so this is REACH at 6.
COLLINEAR: tuple[int, ...] = tuple(REACH[cell * 8 + MAX_CELL_POWER] for cell in range(CELLS))


def _line_masks() -> tuple[tuple[int, ...], ...]:
    n = BOARD_N
    rows = tuple(sum(1 << (r * n + q) for q in range(n)) for r in range(n))
    cols = tuple(sum(1 << (r * n + q) for r in range(n)) for q in range(n))
    diagonals = tuple(sum(1 << (r * n + (s - r) % n) for r in range(n)) for s in range(n))
    return rows, cols, diagonals


#: The 21 lines of the torus, grouped by orientation: rows (direction (0, 1)),
#: columns ((1, 0)) and the lines of constant r + q ((1, -1)).
LINES_BY_ORIENTATION: tuple[tuple[int, ...], ...] = _line_masks()
