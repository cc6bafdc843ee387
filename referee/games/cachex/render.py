"""Text drawing of a Cachex board: the n x n rhombus with its coloured sides.

Row ``r = 0`` is at the bottom and each row up is shifted half a cell to the
right, so the six neighbours of a cell are where the rules' offsets say:
``(0, +-1)`` left and right, ``(1, -1)``/``(1, 0)`` up-left/up-right,
``(-1, 0)``/``(-1, 1)`` down-left/down-right.  Red's sides ``r = 0`` and
``r = n-1`` are drawn as rows of ``R`` below and above the board, Blue's
``q = 0`` and ``q = n-1`` as ``B`` left and right of every row.  Pure:
returns a string.
"""
from __future__ import annotations

from .tables import BLUE_STONE, RED_STONE, STRIDE

_RED = "\033[1;31m"
_BLUE = "\033[1;34m"
_DIM = "\033[2m"
_RESET = "\033[0m"

SLOT = 4  # columns from one cell to the next in a row; half of it per row up
LABEL = 6  # width of the "r=12" labels on the left


def render_board(
    n: int,
    board: bytes | bytearray,
    use_color: bool = False,
    use_unicode: bool = False,
    highlight: frozenset[int] = frozenset(),
) -> str:
    """Draw an ``n x n`` board (cells at ``r * 16 + q``); ``highlight`` cells get brackets."""
    symbols = ("\u00b7", "\u25cf", "\u25cb") if use_unicode else (".", "r", "b")

    def paint(text: str, colour: str) -> str:
        return colour + text + _RESET if use_color else text

    red_side = paint("R", _RED)
    blue_side = paint("B", _BLUE)

    def centre(r: int, q: int) -> int:
        # Column of the middle of cell (r, q); r and q may be one off the board.
        return LABEL + SLOT + SLOT * q + (SLOT // 2) * r

    def line(r: int, items: list[tuple[int, str, int]]) -> str:
        # items: (column, text, printed width); text may carry colour codes.
        out, col = [], 0
        for at, text, width in sorted(items):
            out.append(" " * (at - col) + text)
            col = at + width
        return "".join(out).rstrip()

    lines = []
    lines.append(line(n, [(centre(n, q), red_side, 1) for q in range(n)]))
    for r in range(n - 1, -1, -1):
        items = [(0, f"r={r}", len(f"r={r}")), (centre(r, -1), blue_side, 1), (centre(r, n), blue_side, 1)]
        for q in range(n):
            v = board[r * STRIDE + q]
            token = symbols[v]
            if v == RED_STONE:
                token = paint(token, _RED)
            elif v == BLUE_STONE:
                token = paint(token, _BLUE)
            elif use_color:
                token = paint(token, _DIM)
            if r * STRIDE + q in highlight:
                items.append((centre(r, q) - 1, "[" + token + "]", 3))
            else:
                items.append((centre(r, q), token, 1))
        lines.append(line(r, items))
    lines.append(line(-1, [(centre(-1, q), red_side, 1) for q in range(n)]))
    labels = [(centre(-2, q) - len(str(q)) // 2, str(q), len(str(q))) for q in range(n)]
    lines.append(line(-2, [(centre(-2, -1) - 1, "q=", 2)] + labels))
    return "\n".join(lines)
