"""Infexion's rules as numbers and precomputed tables: the board, action ids, what a token does, outcomes.

Representation, chosen for speed in plain Python:

* the board is a ``bytearray`` of 49 cells, index ``r * 7 + q``; a cell holds
  0 when empty, ``p`` for a red stack of power ``p`` and ``8 + p`` for a blue
  one (so ``v & 7`` is the power and ``v >> 3`` the owner);
* an action is an ``int`` in ``0..342``: ``0..48`` is SPAWN on that cell,
  ``49 + cell * 6 + d`` is SPREAD from ``cell`` in direction ``d`` (the six
  directions in the order of :data:`DIRECTIONS`);
* everything that depends only on (cell, direction, power) or on a cell value
  is precomputed here, so applying an action is a few indexed loads per
  touched cell.
"""
from __future__ import annotations

from ..base import (
    BLUE,
    RED,
    Outcome,
)

BOARD_N = 7
CELLS = BOARD_N * BOARD_N
MAX_TOTAL_POWER = 49
MAX_CELL_POWER = 6
MAX_TURNS = 343
WIN_POWER_DIFF = 2

#: The six hex directions ``(dr, dq)``, in the rules' order.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0))

SPREAD_BASE = CELLS  # first SPREAD action id
ACTION_COUNT = CELLS + CELLS * len(DIRECTIONS)  # 343 action ids in all

BLUE_FLAG = 8


def cell_index(r: int, q: int) -> int:
    """Cell index of ``(r, q)``, both already in ``0..6``."""
    return r * BOARD_N + q


def cell_coords(cell: int) -> tuple[int, int]:
    return divmod(cell, BOARD_N)


def spawn_action(r: int, q: int) -> int:
    return r * BOARD_N + q


def spread_action(r: int, q: int, direction: int) -> int:
    return SPREAD_BASE + (r * BOARD_N + q) * 6 + direction


def cell_value(player: int, power: int) -> int:
    """Encode a stack; ``power == 0`` is an empty cell."""
    if power == 0:
        return 0
    return power | (BLUE_FLAG if player == BLUE else 0)


# ---------------------------------------------------------------------------
# Precomputed tables

#: ``ACTION_CELL[a]``: the cell an action acts on (spawn target / spread source).
ACTION_CELL: tuple[int, ...] = tuple(
    a if a < SPREAD_BASE else (a - SPREAD_BASE) // 6 for a in range(ACTION_COUNT)
)
#: ``ACTION_DIR[a]``: direction index of a SPREAD, -1 for a SPAWN.
ACTION_DIR: tuple[int, ...] = tuple(
    -1 if a < SPREAD_BASE else (a - SPREAD_BASE) % 6 for a in range(ACTION_COUNT)
)


def _spread_targets() -> list[tuple[int, ...]]:
    # SPREAD_TARGETS[a * 8 + k]: the k cells a SPREAD action of power k touches.
    table: list[tuple[int, ...]] = [()] * (ACTION_COUNT * 8)
    for a in range(SPREAD_BASE, ACTION_COUNT):
        r, q = cell_coords(ACTION_CELL[a])
        dr, dq = DIRECTIONS[ACTION_DIR[a]]
        for k in range(1, MAX_CELL_POWER + 1):
            table[a * 8 + k] = tuple(
                cell_index((r + i * dr) % BOARD_N, (q + i * dq) % BOARD_N) for i in range(1, k + 1)
            )
    return table


SPREAD_TARGETS = _spread_targets()


def _effect_tables(mover: int) -> tuple[bytes, tuple[int, ...], tuple[int, ...]]:
    """What one token placed by ``mover`` does to a cell of each value.

    Returns (new value, change of red power, change of blue power), each
    indexed by the cell's old value.
    """
    own = BLUE_FLAG if mover == BLUE else 0
    new = bytearray(16)
    d_red = [0] * 16
    d_blue = [0] * 16
    for v in range(16):
        p, owner = v & 7, v >> 3
        if p == 0 or p > MAX_CELL_POWER:
            if v == 0:
                new[v] = own | 1
                (d_red if mover == RED else d_blue)[v] = 1
            continue
        if p == MAX_CELL_POWER:
            new[v] = 0  # the stack and the placed token both vanish
            (d_red if owner == RED else d_blue)[v] = -p
        else:
            new[v] = own | (p + 1)
            if owner == mover:
                (d_red if mover == RED else d_blue)[v] = 1
            elif mover == RED:
                d_red[v], d_blue[v] = p + 1, -p
            else:
                d_blue[v], d_red[v] = p + 1, -p
    return bytes(new), tuple(d_red), tuple(d_blue)


EFFECTS = (_effect_tables(RED), _effect_tables(BLUE))


def _owned_by(mover: int, v: int) -> bool:
    return v != 0 and (v >> 3) == mover


def _action_tables() -> dict[tuple[int, bool], tuple[tuple[tuple[int, ...], ...], ...]]:
    # ACTIONS_BY_CELL[(mover, spawn_ok)][cell][value]: the legal actions at a
    # cell of that value, so legal_actions() is one map() over the board.
    tables = {}
    for mover in (RED, BLUE):
        for spawn_ok in (False, True):
            per_cell = []
            for cell in range(CELLS):
                per_value: list[tuple[int, ...]] = []
                for v in range(16):
                    if v == 0:
                        per_value.append((cell,) if spawn_ok else ())
                    elif _owned_by(mover, v):
                        base = SPREAD_BASE + cell * 6
                        per_value.append(tuple(range(base, base + 6)))
                    else:
                        per_value.append(())
                per_cell.append(tuple(per_value))
            tables[(mover, spawn_ok)] = tuple(per_cell)
    return tables


ACTIONS_BY_CELL = _action_tables()


def _legal_flags() -> dict[tuple[int, bool], bytes]:
    # LEGAL_FLAG[(mover, spawn_ok)][a * 16 + value of a's cell]: 1 if legal.
    # Every SPAWN shares one 16-byte row and every SPREAD another, so the
    # table is two rows repeated (built at import in every agent process).
    flags = {}
    for mover in (RED, BLUE):
        spread_row = bytes(_owned_by(mover, v) and (v & 7) <= MAX_CELL_POWER for v in range(16))
        for spawn_ok in (False, True):
            spawn_row = bytes([spawn_ok] + [0] * 15)
            flags[(mover, spawn_ok)] = spawn_row * SPREAD_BASE + spread_row * (ACTION_COUNT - SPREAD_BASE)
    return flags


LEGAL_FLAG = _legal_flags()

SIDE_BYTE = (b"r", b"b")

# Outcomes are shared immutable values.
RED_ELIMINATES = Outcome(RED, "elimination")
BLUE_ELIMINATES = Outcome(BLUE, "elimination")
DRAW_NO_TOKENS = Outcome(None, "no_tokens")
RED_ON_POWER = Outcome(RED, "turn_limit")
BLUE_ON_POWER = Outcome(BLUE, "turn_limit")
DRAW_ON_POWER = Outcome(None, "turn_limit")


def outcome_of(turn: int, red_power: int, blue_power: int) -> Outcome | None:
    """The rules' end-of-game test after ``turn`` actions (see the spec)."""
    if turn >= 2 and (red_power == 0 or blue_power == 0):
        if red_power == blue_power:
            return DRAW_NO_TOKENS
        return BLUE_ELIMINATES if red_power == 0 else RED_ELIMINATES
    if turn >= MAX_TURNS:
        if red_power - blue_power >= WIN_POWER_DIFF:
            return RED_ON_POWER
        if blue_power - red_power >= WIN_POWER_DIFF:
            return BLUE_ON_POWER
        return DRAW_ON_POWER
    return None
