"""Fast Infexion rules engine (pure: no I/O, no clocks).

Representation, chosen for speed in plain Python:

* the board is a ``bytearray`` of 49 cells, index ``r * 7 + q``; a cell holds
  0 when empty, ``p`` for a red stack of power ``p`` and ``8 + p`` for a blue
  one (so ``v & 7`` is the power and ``v >> 3`` the owner);
* an action is an ``int`` in ``0..342``: ``0..48`` is SPAWN on that cell,
  ``49 + cell * 6 + d`` is SPREAD from ``cell`` in direction ``d`` (the six
  directions in the order of :data:`DIRECTIONS`);
* everything that depends only on (cell, direction, power) or on a cell value
  is precomputed in tables, so applying an action is a few indexed loads per
  touched cell.  Undo keeps a 49-byte snapshot per action: cheaper in Python
  than recording each changed cell.
"""
from __future__ import annotations

import re
from itertools import chain
from operator import getitem
from random import Random
from collections.abc import Iterable, Mapping

from ..base import (
    BLUE,
    PLAYER_NAMES,
    RED,
    Game,
    GameState,
    NotationError,
    Outcome,
    check_options,
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
                per_value = []
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

_SIDE_BYTE = (b"r", b"b")

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


# ---------------------------------------------------------------------------
# The state


class InfexionState(GameState):
    """An Infexion position: the board, the action count and the powers."""

    __slots__ = ("board", "turn", "red_power", "blue_power", "_history")

    def __init__(self, cells: Mapping[tuple[int, int], tuple[int, int]] | None = None, turn: int = 0):
        """``cells`` maps ``(r, q)`` to ``(player, power)``; empty board by default."""
        self.board = bytearray(CELLS)
        self.turn = turn
        self._history: list[tuple[bytes, int, int]] = []
        for (r, q), (player, power) in (cells or {}).items():
            if not (0 <= r < BOARD_N and 0 <= q < BOARD_N):
                raise ValueError(f"cell ({r}, {q}) is off the board")
            if not 0 <= power <= MAX_CELL_POWER or player not in (RED, BLUE):
                raise ValueError(f"bad stack at ({r}, {q}): player {player}, power {power}")
            self.board[cell_index(r, q)] = cell_value(player, power)
        self._recount()

    def _recount(self) -> None:
        b = self.board
        self.red_power = sum(v for v in b if v and v < BLUE_FLAG)
        self.blue_power = sum(v & 7 for v in b if v > BLUE_FLAG)

    # -- queries ------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self.turn & 1

    @property
    def move_count(self) -> int:
        return self.turn

    @property
    def total_power(self) -> int:
        return self.red_power + self.blue_power

    def power(self, player: int) -> int:
        return self.blue_power if player == BLUE else self.red_power

    def cell(self, r: int, q: int) -> tuple[int | None, int]:
        """``(owner, power)`` of a cell; ``(None, 0)`` when empty."""
        v = self.board[cell_index(r % BOARD_N, q % BOARD_N)]
        return (None, 0) if v == 0 else (v >> 3, v & 7)

    def cells(self) -> Iterable[tuple[int, int, int, int]]:
        """Every occupied cell as ``(r, q, owner, power)``."""
        for i, v in enumerate(self.board):
            if v:
                yield i // BOARD_N, i % BOARD_N, v >> 3, v & 7

    @property
    def outcome(self) -> Outcome | None:
        return outcome_of(self.turn, self.red_power, self.blue_power)

    @property
    def is_over(self) -> bool:
        return outcome_of(self.turn, self.red_power, self.blue_power) is not None

    def legal_actions(self) -> list[int]:
        if outcome_of(self.turn, self.red_power, self.blue_power) is not None:
            return []
        table = ACTIONS_BY_CELL[(self.turn & 1, self.red_power + self.blue_power < MAX_TOTAL_POWER)]
        return list(chain.from_iterable(map(getitem, table, self.board)))

    def is_legal(self, action: int) -> bool:
        return self.illegal_reason(action) is None

    def illegal_reason(self, action: object) -> str | None:
        if type(action) is not int or not 0 <= action < ACTION_COUNT:
            return "not an Infexion action"
        if self.is_over:
            return "the game is over"
        return self.action_problem(action)

    def action_problem(self, action: int) -> str | None:
        """Why the action breaks the rules of SPAWN/SPREAD here, else ``None``.

        Unlike :meth:`illegal_reason` this ignores whether the game is over
        (the course's ``Board`` let agents simulate past the end).
        """
        me = self.turn & 1
        cell = ACTION_CELL[action]
        v = self.board[cell]
        # The cell's text is made only for a reason: legal actions (the
        # course Board checks every one) cost no formatting.
        if action < SPREAD_BASE:
            if v:
                return "cell ({}, {}) is not empty".format(*cell_coords(cell))
            total = self.red_power + self.blue_power
            if total >= MAX_TOTAL_POWER:
                return f"total power on the board is {total}; SPAWN needs less than {MAX_TOTAL_POWER}"
            return None
        if v == 0:
            return "cell ({}, {}) is empty".format(*cell_coords(cell))
        if v >> 3 != me:
            return "cell ({}, {}) belongs to {}, not {}".format(*cell_coords(cell), PLAYER_NAMES[v >> 3], PLAYER_NAMES[me])
        return None

    def key(self) -> bytes:
        """The 49 cell bytes plus the side to move: exact, so never a collision."""
        return bytes(self.board) + _SIDE_BYTE[self.turn & 1]

    def action_to_str(self, action: int) -> str:
        return action_to_str(action)

    def parse_action(self, text: str) -> int:
        return parse_action(text)

    # -- changes ------------------------------------------------------------

    def apply(self, action: int) -> None:
        b = self.board
        self._history.append((bytes(b), self.red_power, self.blue_power))
        me = self.turn & 1
        if action < SPREAD_BASE:
            if me:
                b[action] = BLUE_FLAG | 1
                self.blue_power += 1
            else:
                b[action] = 1
                self.red_power += 1
        else:
            src = ACTION_CELL[action]
            k = b[src] & 7
            b[src] = 0
            new, d_red, d_blue = EFFECTS[me]
            rp = self.red_power
            bp = self.blue_power
            if me:
                bp -= k
            else:
                rp -= k
            for t in SPREAD_TARGETS[action * 8 + k]:
                v = b[t]
                b[t] = new[v]
                rp += d_red[v]
                bp += d_blue[v]
            self.red_power = rp
            self.blue_power = bp
        self.turn += 1

    def set_cell(self, cell: int, value: int) -> None:
        """Put ``value`` (0, or a stack as :func:`cell_value` encodes it) on ``cell``.

        Outside the rules and the undo history: for editing a position (the
        course's ``Board`` let agents write its cells directly).  The powers
        follow; ``undo`` still restores the board as it was before the last
        action.
        """
        if not (value == 0 or 1 <= value & 7 <= MAX_CELL_POWER and value & ~(BLUE_FLAG | 7) == 0):
            raise ValueError(f"not a cell value: {value!r}")
        old = self.board[cell]
        self.board[cell] = value
        for v, sign in ((old, -1), (value, 1)):
            if v & BLUE_FLAG:
                self.blue_power += sign * (v & 7)
            elif v:
                self.red_power += sign * v

    def last_snapshot(self) -> bytes:
        """The board as it was before the last applied action."""
        return self._history[-1][0]

    def undo(self) -> None:
        if not self._history:
            raise IndexError("no action to undo")
        snapshot, self.red_power, self.blue_power = self._history.pop()
        self.board[:] = snapshot
        self.turn -= 1

    def copy(self) -> InfexionState:
        other = InfexionState.__new__(InfexionState)
        other.board = bytearray(self.board)
        other.turn = self.turn
        other.red_power = self.red_power
        other.blue_power = self.blue_power
        other._history = self._history.copy()
        return other

    def copy_without_history(self) -> InfexionState:
        """A copy that cannot undo past this point (cheaper, for playouts)."""
        other = InfexionState.__new__(InfexionState)
        other.board = bytearray(self.board)
        other.turn = self.turn
        other.red_power = self.red_power
        other.blue_power = self.blue_power
        other._history = []
        return other

    # -- random play (MCTS and benchmarks) ----------------------------------

    def random_action(self, rng: Random) -> int:
        """A legal action drawn uniformly, usually without listing them all.

        Draws action ids uniformly from all 343 and keeps the first legal one
        (rejection sampling is exactly uniform over the legal ones); after a
        few misses it falls back to choosing from the full list, which is also
        uniform, so the mixture is too.
        """
        b = self.board
        me = self.turn & 1
        flags = LEGAL_FLAG[(me, self.red_power + self.blue_power < MAX_TOTAL_POWER)]
        rand = rng.random
        for _ in range(12):
            a = int(rand() * ACTION_COUNT)
            if flags[a * 16 + b[ACTION_CELL[a]]]:
                return a
        actions = self.legal_actions()
        if not actions:
            raise ValueError("no legal action: the game is over")
        return actions[int(rand() * len(actions))]

    def random_playout(self, rng: Random) -> Outcome:
        """Play uniformly random actions to the end, in place; returns the outcome.

        Exactly ``apply(random_action(rng))`` until the game ends (the engine
        benchmark measures it; MCTS plays its own playouts).  Afterwards the
        history is cleared, so ``undo`` raises rather than restoring a wrong
        position: play out a copy to keep the original.
        """
        apply, draw = self.apply, self.random_action
        result = self.outcome
        while result is None:
            apply(draw(rng))
            result = self.outcome
        self._history = []
        return result

    # -- position text --------------------------------------------------------

    def to_text(self) -> str:
        """The position as text: rows r = 0..6 split by ``/``, then the action count.

        A cell is ``.`` when empty or ``r``/``b`` and its power, for example
        ``r2......./......./......./...b1.../......./......./....... 2``.
        """
        b = self.board
        rows = (
            "".join("." if v == 0 else "rb"[v >> 3] + str(v & 7) for v in b[r * BOARD_N : (r + 1) * BOARD_N])
            for r in range(BOARD_N)
        )
        return "/".join(rows) + f" {self.turn}"

    @classmethod
    def from_text(cls, text: str) -> InfexionState:
        """Read :meth:`to_text`'s format; raises ``ValueError`` saying what is wrong."""
        board_part, _, turn_part = text.strip().partition(" ")
        try:
            turn = int(turn_part) if turn_part.strip() else 0
        except ValueError:
            raise ValueError(f"action count {turn_part.strip()!r} is not a number") from None
        if not 0 <= turn <= MAX_TURNS:
            raise ValueError(f"action count {turn} is outside 0..{MAX_TURNS}")
        rows = board_part.split("/")
        if len(rows) != BOARD_N:
            raise ValueError(f"expected {BOARD_N} rows separated by '/', got {len(rows)}")
        cells: dict[tuple[int, int], tuple[int, int]] = {}
        for r, row in enumerate(rows):
            q = i = 0
            while i < len(row):
                ch = row[i]
                if ch == ".":
                    i += 1
                elif ch in "rb" and i + 1 < len(row) and row[i + 1] in "123456":
                    if q < BOARD_N:
                        cells[(r, q)] = (RED if ch == "r" else BLUE, int(row[i + 1]))
                    i += 2
                else:
                    raise ValueError(f"row {r}: unexpected {row[i:i + 2]!r} (cells are '.', r1..r6 or b1..b6)")
                q += 1
            if q != BOARD_N:
                raise ValueError(f"row {r} has {q} cells, expected {BOARD_N}")
        return cls(cells, turn)

    # -- equality and display -----------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, InfexionState):
            return NotImplemented
        return self.board == other.board and self.turn == other.turn

    __hash__ = None  # type: ignore[assignment]  # mutable: use key()

    def __repr__(self) -> str:
        stacks = ", ".join(f"{'rb'[o]}{p}@{r},{q}" for r, q, o, p in self.cells())
        return f"InfexionState(turn={self.turn}, {stacks or 'empty'})"

    def render(self, use_color: bool = False, use_unicode: bool = False) -> str:
        """The board; cells the last action changed are shown in brackets."""
        from .render import render_board

        changed: frozenset[int] = frozenset()
        if self._history:
            before = self._history[-1][0]
            changed = frozenset(i for i, (a, b) in enumerate(zip(before, self.board)) if a != b)
        return render_board(self.board, use_color=use_color, use_unicode=use_unicode, highlight=changed)

    def summary(self) -> str:
        red_cells = sum(1 for v in self.board if v and v < BLUE_FLAG)
        blue_cells = sum(1 for v in self.board if v > BLUE_FLAG)
        return (
            f"RED power {self.red_power} on {red_cells} cells, BLUE power {self.blue_power} on {blue_cells} cells; "
            f"{self.turn} of {MAX_TURNS} actions played"
        )


class Infexion(Game):
    """The Infexion game (COMP30024, 2023). It takes no options."""

    name = "infexion"
    reasons = ("elimination", "turn_limit", "no_tokens")
    agent_types_module = "referee.game.actions"

    def __init__(self, **options: object):
        check_options(self.name, options, ())
        super().__init__(**options)

    def new_state(self) -> InfexionState:
        return InfexionState()
