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

ACTION_TEXT: tuple[str, ...] = tuple(
    (
        "SPAWN({}, {})".format(*cell_coords(a))
        if a < SPREAD_BASE
        else "SPREAD({}, {}, {}, {})".format(*cell_coords(ACTION_CELL[a]), *DIRECTIONS[ACTION_DIR[a]])
    )
    for a in range(ACTION_COUNT)
)


def action_to_str(action: int) -> str:
    """Canonical text: ``SPAWN(r, q)`` or ``SPREAD(r, q, dr, dq)``."""
    if type(action) is not int or not 0 <= action < ACTION_COUNT:
        return repr(action)
    return ACTION_TEXT[action]


def parse_action(text: str) -> int:
    """Read ``SPAWN(r, q)`` or ``SPREAD(r, q, dr, dq)``; raises NotationError."""
    if not isinstance(text, str):
        raise NotationError(f"an action must be text, not {type(text).__name__}")
    m = _ACTION_RE.match(text)
    if m is None:
        raise NotationError(f"not an Infexion action: {text[:80]!r} (expected SPAWN(r, q) or SPREAD(r, q, dr, dq))")
    kind, r, q, dr, dq = m.groups()
    r, q = int(r), int(q)
    if not (0 <= r < BOARD_N and 0 <= q < BOARD_N):
        raise NotationError(f"cell ({r}, {q}) is off the board in {text!r} (r and q are 0..6)")
    if kind == "SPAWN":
        if dr is not None:
            raise NotationError(f"SPAWN takes a cell only: {text!r}")
        return spawn_action(r, q)
    if dr is None:
        raise NotationError(f"SPREAD needs a direction: {text!r}")
    try:
        d = DIRECTIONS.index((int(dr), int(dq)))
    except ValueError:
        raise NotationError(
            f"({dr}, {dq}) is not a hex direction in {text!r}; directions are "
            + ", ".join(f"({a}, {b})" for a, b in DIRECTIONS)
        ) from None
    return spread_action(r, q, d)
