"""The Infexion position: legal actions, apply and undo, copies, keys, position text.

Undo keeps a 49-byte snapshot per action: cheaper in Python than recording
each changed cell.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import chain
from operator import getitem
from random import Random

from ..base import (
    BLUE,
    PLAYER_NAMES,
    RED,
    AlternatingState,
    Outcome,
    count_of,
)
from ..fields import COPY, Field, StateFields
from .notation import action_to_str, parse_action
from .tables import (
    ACTION_CELL,
    ACTION_COUNT,
    ACTIONS_BY_CELL,
    BLUE_FLAG,
    BOARD_N,
    CELLS,
    EFFECTS,
    LEGAL_FLAG,
    MAX_CELL_POWER,
    MAX_TOTAL_POWER,
    MAX_TURNS,
    SIDE_BYTE,
    SPREAD_BASE,
    SPREAD_TARGETS,
    cell_coords,
    cell_index,
    cell_value,
    outcome_of,
)

# ---------------------------------------------------------------------------
# The state


#: The state's fields and how each is copied.  Undo keeps its own compact
#: snapshot (the board's bytes and the two powers; ``turn`` just steps back)
#: and the key is the board's bytes with the side to move, so only copies and
#: the slots are derived from this declaration.
FIELDS = StateFields(
    (
        Field("board", COPY, key=None, undo=False),
        Field("turn", key=None, undo=False),
        Field("red_power", key=None, undo=False),
        Field("blue_power", key=None, undo=False),
    ),
    transient=("_history",),
)


class InfexionState(AlternatingState[int]):
    """An Infexion position: the board, the action count and the powers."""

    __slots__ = FIELDS.slots

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

    def is_legal(self, action: object) -> bool:
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
            r, q = cell_coords(cell)
            return f"cell ({r}, {q}) belongs to {PLAYER_NAMES[v >> 3]}, not {PLAYER_NAMES[me]}"
        return None

    def key(self) -> bytes:
        """The 49 cell bytes plus the side to move: exact, so never a collision."""
        return bytes(self.board) + SIDE_BYTE[self.turn & 1]

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
        other: InfexionState = FIELDS.copy_into(self, InfexionState.__new__(InfexionState))
        other._history = self._history.copy()
        return other

    def copy_without_history(self) -> InfexionState:
        """A copy that cannot undo past this point (cheaper, for playouts)."""
        other: InfexionState = FIELDS.copy_into(self, InfexionState.__new__(InfexionState))
        other._history = []
        return other

    # -- random play (agents and benchmarks) ----------------------------------

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
            f"RED power {self.red_power} on {count_of(red_cells, 'cell')}, "
            f"BLUE power {self.blue_power} on {count_of(blue_cells, 'cell')}; {self.turn} of {MAX_TURNS} actions played"
        )
