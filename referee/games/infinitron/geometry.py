"""The Infinitron board: a hexagon of radius 5, as precomputed tables.

Cells are numbered 0..90 in ascending ``(r, q)`` order; every question the
rules ask about geometry (neighbours, distances, discs, the cells between two
cells on a hex line) is answered by a table lookup.  Pure: no state.
"""
from __future__ import annotations

RADIUS = 5

#: The six hex directions ``(dr, dq)`` in the rules' order (as in Infexion);
#: "direction order" in MOVE's tie-break means this order.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0))


def on_board(r: int, q: int) -> bool:
    return max(abs(r), abs(q), abs(r + q)) <= RADIUS


CELLS: tuple[tuple[int, int], ...] = tuple(
    (r, q) for r in range(-RADIUS, RADIUS + 1) for q in range(-RADIUS, RADIUS + 1) if on_board(r, q)
)
CELL_COUNT = len(CELLS)  # 91
INDEX: dict[tuple[int, int], int] = {rq: i for i, rq in enumerate(CELLS)}


def hex_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    dr, dq = a[0] - b[0], a[1] - b[1]
    return (abs(dr) + abs(dq) + abs(dr + dq)) // 2


#: ``DISTANCE[a * CELL_COUNT + b]``.
DISTANCE: tuple[int, ...] = tuple(hex_distance(a, b) for a in CELLS for b in CELLS)

#: ``STEPS[c]``: ``(direction index, neighbour cell)`` in direction order.
STEPS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((d, INDEX[(r + dr, q + dq)]) for d, (dr, dq) in enumerate(DIRECTIONS) if on_board(r + dr, q + dq))
    for r, q in CELLS
)


def _within(radius: int) -> tuple[tuple[int, ...], ...]:
    return tuple(
        tuple(b for b in range(CELL_COUNT) if DISTANCE[a * CELL_COUNT + b] <= radius) for a in range(CELL_COUNT)
    )


#: Cells at distance <= 1 / <= 2 of a cell (the cell itself included).
WITHIN_1 = _within(1)
WITHIN_2 = _within(2)


def _line(a: tuple[int, int], b: tuple[int, int], nudge: float) -> list[tuple[int, int]]:
    """The hex line from a to b, both ends shifted by ``nudge`` to break ties one way."""
    n = hex_distance(a, b)
    # Cube coordinates (r, q, s) with s = -r - q; the nudge has components
    # summing to zero and is not parallel to any hex edge, so a point exactly
    # on an edge between two cells falls to one side for +nudge, the other for -nudge.
    ar, aq, as_ = a[0] + nudge, a[1] + 2 * nudge, -a[0] - a[1] - 3 * nudge
    br, bq, bs = b[0] + nudge, b[1] + 2 * nudge, -b[0] - b[1] - 3 * nudge
    cells = []
    for i in range(n + 1):
        t = i / n
        r, q, s = ar + (br - ar) * t, aq + (bq - aq) * t, as_ + (bs - as_) * t
        rr, rq, rs = round(r), round(q), round(s)
        er, eq, es = abs(rr - r), abs(rq - q), abs(rs - s)
        if er > eq and er > es:
            rr = -rq - rs
        elif eq > es:
            rq = -rr - rs
        cells.append((rr, rq))
    return cells


def _offsets(dr: int, dq: int) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """For a cell ``(dr, dq)`` away: the offsets of the cells strictly between (both nudged lines), and of the
    first cell of each nudged line.  A hex line depends only on how far apart its ends are, so the tables
    below are made from the 331 offsets within the board's span, not the 8,281 pairs of cells."""
    lines = (_line((0, 0), (dr, dq), 1e-6), _line((0, 0), (dr, dq), -1e-6))
    return {cell for line in lines for cell in line[1:-1]}, {line[1] for line in lines}


def _tables() -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    span = range(-2 * RADIUS, 2 * RADIUS + 1)
    offsets = {(dr, dq): _offsets(dr, dq) for dr in span for dq in span if 0 < hex_distance((0, 0), (dr, dq))}
    blockers: list[tuple[int, ...]] = []
    facing: list[tuple[int, ...]] = []
    for a in CELLS:
        for b in CELLS:
            if a == b:
                blockers.append(())
                facing.append(())
                continue
            between, firsts = offsets[(b[0] - a[0], b[1] - a[1])]
            blockers.append(tuple(sorted(INDEX[(a[0] + r, a[1] + q)] for r, q in between)))
            facing.append(tuple(sorted(DIRECTIONS.index(first) for first in firsts)))
    return tuple(blockers), tuple(facing)


#: ``BLOCKERS[a * CELL_COUNT + b]``: the cells strictly between a and b on the
#: hex line, both cells of every tie included (the rules: either cell blocks).
#: ``FACING[a * CELL_COUNT + b]``: the direction indices of a's side(s) facing b
#: along the hex line (the first cell of the hex line from a towards b is the
#: neighbour across the side facing b; where the line runs along the edge
#: between two neighbours, the two nudged lines give both): one side, or two
#: on a tie; empty when a == b.
BLOCKERS, FACING = _tables()
