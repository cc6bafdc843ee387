"""Cachex's rules as numbers and per-size tables: limits, cell ids, outcomes, a board size's :class:`Layout`.

A cell ``(r, q)`` is the index ``r * 16 + q`` whatever the board size, so an
action is an ``int`` that means the same on every board: ``0..255`` is
``PLACE`` on that cell, :data:`STEAL` (256) is the steal.  Per board size,
neighbours, diamonds, side flags and the centre are precomputed in a
:class:`Layout`.
"""
from __future__ import annotations

from functools import cache

from ..base import (
    BLUE,
    RED,
    GameOptionError,
    Outcome,
)

MIN_N = 3
MAX_N = 15
DEFAULT_N = 7
#: The game is drawn once this many actions have been played.
MAX_ACTIONS = 343
#: The game is drawn when a board occurs for this many times.
REPETITION_LIMIT = 7

STRIDE = 16  # cells per row of the board array, for every n
STEAL = STRIDE * STRIDE  # the one action that is not a cell
ACTION_COUNT = STEAL + 1  # action ids 0..256 (most cells exist only on big boards)

EMPTY, RED_STONE, BLUE_STONE, PADDING = 0, 1, 2, 3

#: The six neighbour offsets ``(dr, dq)``, in the rules' cyclic order.
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))

# Outcomes are shared immutable values.
WIN_BY_CONNECTION = (Outcome(RED, "connection"), Outcome(BLUE, "connection"))
DRAW_BY_REPETITION = Outcome(None, "repetition")
DRAW_BY_TURN_LIMIT = Outcome(None, "turn_limit")
REASONS = ("connection", "repetition", "turn_limit")

def outcome_after(mover: int, won: bool, occurrences: int, actions: int) -> Outcome | None:
    """The end-of-game test after an action: connection, repetition, limit, in that order."""
    if won:
        return WIN_BY_CONNECTION[mover]
    if occurrences >= REPETITION_LIMIT:
        return DRAW_BY_REPETITION
    if actions >= MAX_ACTIONS:
        return DRAW_BY_TURN_LIMIT
    return None


# FREE_CELL[v] is 1 for an empty cell: ``board.translate(FREE_CELL)`` marks
# the cells a stone may go on, for ``compress``.
FREE_CELL = bytes([1] + [0] * 255)


def cell_index(r: int, q: int) -> int:
    """The action id / board index of ``(r, q)``."""
    return r * STRIDE + q


def cell_coords(cell: int) -> tuple[int, int]:
    return divmod(cell, STRIDE)


def check_size(n: object) -> int:
    """``n`` if it is an allowed board size, else GameOptionError."""
    if type(n) is not int or not MIN_N <= n <= MAX_N:
        raise GameOptionError(f"cachex: board size n must be a whole number from {MIN_N} to {MAX_N}, not {n!r}")
    return n


# ---------------------------------------------------------------------------
# Precomputed tables, one set per board size


class Layout:
    """Everything about an ``n x n`` board that does not change in a game."""

    def __init__(self, n: int):
        self.n = n
        self.size = n * STRIDE
        inside = [(r, q) for r in range(n) for q in range(n)]
        self.cells: tuple[int, ...] = tuple(cell_index(r, q) for r, q in inside)
        blank = bytearray([PADDING] * self.size)
        for c in self.cells:
            blank[c] = EMPTY
        self.blank = bytes(blank)
        self.centre = cell_index(n // 2, n // 2) if n % 2 else -1

        def on_board(r: int, q: int) -> bool:
            return 0 <= r < n and 0 <= q < n

        neighbours: list[tuple[int, ...]] = [()] * self.size
        diamonds: list[tuple[tuple[int, int, int], ...]] = [()] * self.size
        mirror = [0] * self.size
        for r, q in inside:
            c = cell_index(r, q)
            mirror[c] = cell_index(q, r)
            neighbours[c] = tuple(cell_index(r + dr, q + dq) for dr, dq in DIRECTIONS if on_board(r + dr, q + dq))
            found = []
            for (r1, q1), (r2, q2) in diamond_offsets():
                corners = ((r + r1 + r2, q + q1 + q2), (r + r1, q + q1), (r + r2, q + q2))
                if all(on_board(*cell) for cell in corners):
                    found.append(tuple(cell_index(*cell) for cell in corners))
            diamonds[c] = tuple(found)  # type: ignore[arg-type]
        #: ``neighbours[c]``: the cells next to ``c`` on the board.
        self.neighbours = tuple(neighbours)
        #: ``diamonds[c]``: ``(far, mid1, mid2)`` for every diamond with a corner at ``c``.
        self.diamonds = tuple(diamonds)
        self.mirror = tuple(mirror)
        # side_flags[player][c]: 1 on the player's first side, 2 on the second
        # (3 for a cell on both, which only n = 1 would have).
        red_sides = bytearray(self.size)
        blue_sides = bytearray(self.size)
        for r, q in inside:
            c = cell_index(r, q)
            red_sides[c] = (r == 0) | (r == n - 1) << 1
            blue_sides[c] = (q == 0) | (q == n - 1) << 1
        self.side_flags = (bytes(red_sides), bytes(blue_sides))
        # stone_code[v][c]: the bits of a stone of value v at c in the board
        # integer (two bits per cell, cells numbered r * n + q).
        self.stone_code = tuple(
            tuple((v << (2 * (r * n + q))) if q < n else 0 for r in range(n) for q in range(STRIDE))
            for v in range(3)
        )


def diamond_offsets() -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
    """The 12 ``(n1, n2)`` offset pairs of the diamond rule.

    Pairs of neighbour offsets that are adjacent in the cyclic order (the
    placed stone is a tip, the far corner the other tip) or one apart in it
    (the placed stone and the far corner are the short diagonal).
    """
    six = len(DIRECTIONS)
    return tuple((DIRECTIONS[i], DIRECTIONS[(i + step) % six]) for step in (1, 2) for i in range(six))


@cache
def layout(n: int) -> Layout:
    return Layout(check_size(n))
