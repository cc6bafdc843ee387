"""Infexion actions as text: ``SPAWN(r, q)`` and ``SPREAD(r, q, dr, dq)``, written and read."""
from __future__ import annotations

import re

from ..base import (
    NotationError,
)
from .tables import (
    ACTION_CELL,
    ACTION_COUNT,
    ACTION_DIR,
    BOARD_N,
    DIRECTIONS,
    SPREAD_BASE,
    cell_coords,
    spawn_action,
    spread_action,
)

# ---------------------------------------------------------------------------
# Action text

_ACTION_RE = re.compile(
    r"^\s*(SPAWN|SPREAD)\s*\(\s*([+-]?\d+)\s*,\s*([+-]?\d+)\s*(?:,\s*([+-]?\d+)\s*,\s*([+-]?\d+)\s*)?\)\s*$"
)
#: The most digits a number in an action may have. Every real coordinate has one; the bound keeps a
#: number of thousands of digits (sent by a hostile client) away from int(), which refuses over 4300 digits
#: with a ValueError rather than a NotationError.
MAX_DIGITS = 9
#: How much of a bad text an error message quotes (the text may be 64 KiB long).
_QUOTED_CHARS = 80


def _quoted(text: str) -> str:
    """``text`` quoted for an error message, cut short if it is long."""
    return repr(text[:_QUOTED_CHARS]) + ("..." if len(text) > _QUOTED_CHARS else "")


def _number(digits: str, text: str) -> int:
    """A signed number of the action's text; raises NotationError if it has too many digits."""
    if len(digits.lstrip("+-")) > MAX_DIGITS:
        raise NotationError(f"a number in an action has at most {MAX_DIGITS} digits: {_quoted(text)}")
    return int(digits)

ACTION_TEXT: tuple[str, ...] = tuple(
    (
        "SPAWN({}, {})".format(*cell_coords(a))
        if a < SPREAD_BASE
        else "SPREAD({}, {}, {}, {})".format(*cell_coords(ACTION_CELL[a]), *DIRECTIONS[ACTION_DIR[a]])
    )
    for a in range(ACTION_COUNT)
)

_CANONICAL = {text: action for action, text in enumerate(ACTION_TEXT)}


def action_to_str(action: int) -> str:
    """Canonical text: ``SPAWN(r, q)`` or ``SPREAD(r, q, dr, dq)``."""
    if type(action) is not int or not 0 <= action < ACTION_COUNT:
        return repr(action)
    return ACTION_TEXT[action]


def parse_action(text: str) -> int:
    """Read ``SPAWN(r, q)`` or ``SPREAD(r, q, dr, dq)``; raises NotationError."""
    if not isinstance(text, str):
        raise NotationError(f"an action must be text, not {type(text).__name__}")
    canonical = _CANONICAL.get(text)
    if canonical is not None:  # what the referee and its clients send: read at the cost of a look-up
        return canonical
    m = _ACTION_RE.match(text)
    if m is None:
        raise NotationError(f"not an Infexion action: {_quoted(text)} (expected SPAWN(r, q) or SPREAD(r, q, dr, dq))")
    kind, r_text, q_text, dr_text, dq_text = m.groups()
    r, q = _number(r_text, text), _number(q_text, text)
    if not (0 <= r < BOARD_N and 0 <= q < BOARD_N):
        raise NotationError(f"cell ({r}, {q}) is off the board in {_quoted(text)} (r and q are 0..6)")
    if kind == "SPAWN":
        if dr_text is not None:
            raise NotationError(f"SPAWN takes a cell only: {_quoted(text)}")
        return spawn_action(r, q)
    if dr_text is None or dq_text is None:
        raise NotationError(f"SPREAD needs a direction: {_quoted(text)}")
    direction = (_number(dr_text, text), _number(dq_text, text))
    if direction not in DIRECTIONS:
        raise NotationError(
            f"{direction} is not a hex direction in {_quoted(text)}; directions are "
            + ", ".join(f"({a}, {b})" for a, b in DIRECTIONS)
        )
    return spread_action(r, q, DIRECTIONS.index(direction))
