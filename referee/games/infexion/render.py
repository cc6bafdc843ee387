"""Text drawing of an Infexion board, laid out as the rules draw it.

The rules name +q "down-right" and +r "up-right", so the 7x7 board is a
diamond: (0, 0) at the left, (6, 0) at the top, (0, 6) at the bottom and
(6, 6) at the right.  Pure: returns a string.
"""
from __future__ import annotations

from .tables import BLUE_FLAG, BOARD_N

_RED = "\033[1;31m"
_BLUE = "\033[1;34m"
_DIM = "\033[2m"
_RESET = "\033[0m"

CELL_WIDTH = 3  # columns between neighbouring cells on one text row


def render_board(
    board: bytes | bytearray,
    use_color: bool = False,
    use_unicode: bool = False,
    highlight: frozenset[int] = frozenset(),
) -> str:
    """Draw the board; ``highlight`` cells (indices) are marked with brackets."""
    n = BOARD_N
    span = 2 * n - 1  # text rows and diamond columns
    margin = 5
    width = margin + span * CELL_WIDTH + 2
    rows = [[" "] * width for _ in range(span)]

    def put(row: int, col: int, text: str) -> None:
        for i, ch in enumerate(text):
            rows[row][col + i] = ch

    for r in range(n):
        for q in range(n):
            v = board[r * n + q]
            row = (n - 1) - (r - q)
            col = margin + (r + q) * CELL_WIDTH
            if v == 0:
                token = " \u00b7" if use_unicode else " ."
                if use_color:
                    token = _DIM + token + _RESET
            else:
                power = v & 7
                blue = v >= BLUE_FLAG
                token = ("b" if blue else "r") + str(power)
                if use_unicode:
                    token = token.upper()
                if use_color:
                    token = (_BLUE if blue else _RED) + token + _RESET
            cell_index = r * n + q
            if cell_index in highlight:
                rows[row][col - 1] = "["
                rows[row][col + 2] = "]"
            # The token (two characters, maybe wrapped in colour codes) sits in
            # one slot and the next slot is emptied, so columns stay aligned.
            rows[row][col] = token
            rows[row][col + 1] = ""
    # Edge labels: r up the upper-left edge (q = 0), q down the lower-left
        # edge (r = 0), so every cell can be read off by counting.
    for i in range(n):
        row, col = (n - 1) - i, margin + i * CELL_WIDTH
        if i:
            put(row, col - 5, f"r={i}")
        row = (n - 1) + i
        if i:
            put(row, col - 5, f"q={i}")
    put(n - 1, 0, "0,0 ")
    lines = ["".join(r).rstrip() for r in rows]
    return "\n".join(lines)
