"""Steps and paths over the hexagon: what a MOVE may enter, and whether the capitals are joined.

Pure functions of the board (``occ``: -1 for an empty cell; ``ground``: the
cell codes) and the unit's template.
"""
from __future__ import annotations

from collections.abc import Sequence

from .geometry import CELL_COUNT, STEPS
from .rules import CAPITALS, IMPASSABLE, LABEL, Template


def step_cost(tm: Template, g: int) -> int:
    """Movement points a step onto ground ``g`` costs: 1, or 0 for a SWIFT unit onto LABEL."""
    return 0 if tm.swift and g == LABEL else 1


def step_cells(occ: Sequence[int], ground: bytearray, start: int, points: int, tm: Template) -> list[int]:
    """The cells a unit on ``start`` with ``points`` movement points left can step to, ascending."""
    swift = tm.swift
    out = []
    for _, n in STEPS[start]:
        g = ground[n]
        if occ[n] < 0 and not IMPASSABLE[g] and (points >= 1 or (swift and g == LABEL)):
            out.append(n)
    out.sort()
    return out


def capitals_joined(ground: bytearray, also_blocked: int = -1) -> bool:
    """Whether a path of passable cells (not BLOCK or RUBBLE; units ignored) joins the two capitals.

    ``also_blocked`` is a cell to treat as BLOCK (the one a TERRAIN(BLOCK) would fill).
    """
    red, blue = CAPITALS
    seen = bytearray(CELL_COUNT)
    seen[red] = 1
    if also_blocked >= 0:
        seen[also_blocked] = 1  # never entered
    frontier = [red]
    while frontier:
        nxt = []
        for c in frontier:
            for _, n in STEPS[c]:
                if not seen[n] and not IMPASSABLE[ground[n]]:
                    if n == blue:
                        return True
                    seen[n] = 1
                    nxt.append(n)
        frontier = nxt
    return False
