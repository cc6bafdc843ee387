"""Cachex actions as text: ``PLACE(r, q)`` and ``STEAL``, written and read."""
from __future__ import annotations

import re

from ..base import (
    NotationError,
)
from .tables import ACTION_COUNT, MAX_N, STEAL, cell_coords, cell_index

# ---------------------------------------------------------------------------
# Action text

_PLACE_RE = re.compile(r"^\s*PLACE\s*\(\s*([+-]?[0-9]+)\s*,\s*([+-]?[0-9]+)\s*\)\s*$")
_STEAL_RE = re.compile(r"^\s*STEAL\s*$")
_WORD_RE = re.compile(r"^\s*([A-Za-z_]+)")
#: The most digits a coordinate may have. The biggest board's need two; the bound keeps a number of thousands
#: of digits (sent by a hostile client) away from int(), which refuses over 4300 digits with a ValueError
#: rather than a NotationError.
MAX_DIGITS = 9
#: How much of a bad text an error message quotes (the text may be 64 KiB long).
_QUOTED_CHARS = 80


def _quoted(text: str) -> str:
    """``text`` quoted for an error message, cut short if it is long."""
    return repr(text[:_QUOTED_CHARS]) + ("..." if len(text) > _QUOTED_CHARS else "")


def action_to_str(action: object) -> str:
    """Canonical text: ``PLACE(r, q)`` or ``STEAL``."""
    if type(action) is not int or not 0 <= action < ACTION_COUNT:
        return repr(action)
    if action == STEAL:
        return "STEAL"
    return "PLACE({}, {})".format(*cell_coords(action))


def parse_action(text: str, n: int = MAX_N) -> int:
    """Read ``PLACE(r, q)`` or ``STEAL`` for an ``n x n`` board; raises NotationError."""
    if not isinstance(text, str):
        raise NotationError(f"a Cachex action must be text, not {type(text).__name__}")
    if _STEAL_RE.match(text):
        return STEAL
    m = _PLACE_RE.match(text)
    if m is None:
        word = _WORD_RE.match(text)
        if word and word.group(1) == "STEAL":
            raise NotationError(f"STEAL takes no arguments: {_quoted(text)}")
        if word and word.group(1) == "PLACE":
            raise NotationError(f"PLACE needs a cell as two whole numbers, PLACE(r, q): {_quoted(text)}")
        raise NotationError(f"not a Cachex action: {_quoted(text)} (expected PLACE(r, q) or STEAL)")
    if any(len(m.group(i).lstrip("+-")) > MAX_DIGITS for i in (1, 2)):
        raise NotationError(f"a coordinate has at most {MAX_DIGITS} digits: {_quoted(text)}")
    r, q = int(m.group(1)), int(m.group(2))
    if not (0 <= r < n and 0 <= q < n):
        raise NotationError(f"cell ({r}, {q}) is off the {n}x{n} board in {_quoted(text)} (r and q are 0..{n - 1})")
    return cell_index(r, q)
