"""Where a unit can MOVE and the path it takes: searches over the hexagon's cells.

Pure functions of the board (``occ``: -1 for an empty cell; ``ground``: the
cell codes) and the unit's template; the state caches their results.
"""
from __future__ import annotations

from collections.abc import Sequence

from .geometry import STEPS
from .rules import BLOCK, LABEL, LAVA, Template


def reachable(occ: Sequence[int], ground: bytearray, start: int, tm: Template) -> list[int]:
    """Cells a unit on ``start`` can MOVE to: cheapest paths over empty passable cells."""
    budget = tm.budget
    if not tm.swift:
        seen = {start}
        frontier = [start]
        for _ in range(tm.move):
            nxt = []
            for c in frontier:
                for _, n in STEPS[c]:
                    if n not in seen and occ[n] < 0 and ground[n] != BLOCK:
                        seen.add(n)
                        nxt.append(n)
            frontier = nxt
        seen.discard(start)
        return sorted(seen)
    best = {start: 0}
    buckets: list[list[int]] = [[] for _ in range(budget + 1)]
    buckets[0].append(start)
    for cost in range(budget + 1):
        for c in buckets[cost]:
            if best[c] != cost:
                continue
            for _, n in STEPS[c]:
                g = ground[n]
                if occ[n] >= 0 or g == BLOCK:
                    continue
                nc = cost + (1 if g == LABEL else 2)
                if nc <= budget and nc < best.get(n, budget + 1):
                    best[n] = nc
                    buckets[nc].append(n)
    del best[start]
    return sorted(best)


def move_path(occ: Sequence[int], ground: bytearray, start: int, target: int, tm: Template) -> list[int] | None:
    """The cells a MOVE from ``start`` to ``target`` enters, in order, or None.

    Among paths within the unit's movement allowance: fewest steps, then
    fewest LAVA cells entered, then the earliest directions (compared
    step by step in direction order).  Keeping the best partial path per
    (cell, points used) is exact, because extending two partial paths by
    the same steps keeps their order.
    """
    budget, swift = tm.budget, tm.swift
    layer: dict[tuple[int, int], tuple[int, tuple[int, ...], tuple[int, ...]]] = {(start, 0): (0, (), ())}
    for _ in range(budget):
        nxt: dict[tuple[int, int], tuple[int, tuple[int, ...], tuple[int, ...]]] = {}
        for (cell, used), (lava, dirs, path) in layer.items():
            for d, n in STEPS[cell]:
                g = ground[n]
                if occ[n] >= 0 or g == BLOCK:
                    continue
                nu = used + (1 if swift and g == LABEL else 2)
                if nu > budget:
                    continue
                value = (lava + (g == LAVA), dirs + (d,), path + (n,))
                key = (n, nu)
                old = nxt.get(key)
                if old is None or value[:2] < old[:2]:
                    nxt[key] = value
        arrivals = [v for (c, _), v in nxt.items() if c == target]
        if arrivals:
            return list(min(arrivals)[2])
        if not nxt:
            return None
        layer = nxt
    return None
