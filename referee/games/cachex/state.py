"""The Cachex position: legal actions, apply and undo, copies, keys, position text.

Rules: ``docs/cachex.md`` (and the shared spec it follows).  Representation,
chosen for speed in plain Python:

* a cell ``(r, q)`` is the index ``r * 16 + q`` whatever the board size, so
  an action is an ``int`` that means the same on every board: ``0..255`` is
  ``PLACE`` on that cell, :data:`STEAL` (256) is the steal;
* the board is a ``bytearray`` of ``n * 16`` cells holding 0 (empty), 1 (a
  red stone), 2 (a blue stone) or 3 (the padding columns ``q >= n``), so a
  player's stone is ``player + 1`` and the opponent's is ``2 - player``;
* per board size, neighbours, diamonds, side flags and the centre are
  precomputed in a :class:`Layout`;
* the board is also kept as one exact integer, two bits per cell, updated as
  stones come and go: it counts repetitions and makes :meth:`CachexState.key`
  without scanning the board;
* each player's groups are kept in a union-find (union by size, no path
  compression, so every union can be taken back from a log): the win test
  is one lookup of the sides the new stone's group touches.  Captures split
  the victim's groups, which a union-find cannot do: the groups next to the
  captured stones are relabelled by a flood fill, logged for undo
  (``docs/cachex.md`` compares this with other ways, measured).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import compress
from random import Random
from typing import Any

from ..base import (
    BLUE,
    PLAYER_NAMES,
    RED,
    AlternatingState,
    Outcome,
    count_of,
)
from ..fields import COPY, PAIR, Field, StateFields
from .notation import action_to_str, parse_action
from .tables import (
    ACTION_COUNT,
    BLUE_STONE,
    DEFAULT_N,
    DRAW_BY_TURN_LIMIT,
    EMPTY,
    FREE_CELL,
    MAX_ACTIONS,
    MAX_N,
    MIN_N,
    RED_STONE,
    STEAL,
    STRIDE,
    WIN_BY_CONNECTION,
    cell_coords,
    cell_index,
    check_size,
    layout,
    outcome_after,
)

#: The state's fields and how each is copied.  Undo takes back a journal of
#: each action's changes rather than snapshots, and the key is the board
#: integer ``code`` with the side to move, so only copies and the slots are
#: derived from this declaration.
FIELDS = StateFields(
    (
        Field("n", key=None, undo=False),
        Field("layout", key=None, undo=False),
        Field("board", COPY, key=None, undo=False),
        Field("turn", key=None, undo=False),
        Field("code", key=None, undo=False),
        Field("stones", COPY, key=None, undo=False),
        Field("repetitions", COPY, key=None, undo=False),
        Field("_outcome", key=None, undo=False),
        Field("_parent", PAIR, key=None, undo=False),
        Field("_group_size", PAIR, key=None, undo=False),
        Field("_group_sides", PAIR, key=None, undo=False),
    ),
    transient=("_history",),
)


# ---------------------------------------------------------------------------
# The state


class CachexState(AlternatingState[int]):
    """A Cachex position with its history: board, action count, repetitions.

    ``repetitions`` maps the board integer to how often that board has
    occurred, the starting board included; a state built from a position
    counts that position once (its earlier history is unknown).
    """

    __slots__ = FIELDS.slots

    def __init__(self, n: int = DEFAULT_N, cells: Mapping[tuple[int, int], int] | None = None, turn: int = 0):
        """``cells`` maps ``(r, q)`` to ``RED``/``BLUE``; empty board by default.

        Raises ``ValueError`` for a position no game can reach in the way
        the rules define it (see :meth:`from_text`).
        """
        self.n = check_size(n)
        self.layout = lay = layout(n)
        self.board = bytearray(lay.blank)
        self.turn = turn
        self.stones = [0, 0]
        self.code = 0
        # Per action: (action, cells emptied, board integer before, outcome
        # before, unions made as (child root, new root, its sides before),
        # the victim's union-find entries a capture overwrote).
        self._history: list[tuple[int, tuple[int, ...], int, Outcome | None, tuple[Any, ...], tuple[Any, ...]]] = []
        # Union-find per player over cell indices: parent links, and the
        # size and side flags of each group at its root.
        self._parent = [list(range(lay.size)), list(range(lay.size))]
        self._group_size = [[1] * lay.size, [1] * lay.size]
        self._group_sides = [bytearray(lay.size), bytearray(lay.size)]
        for (r, q), player in (cells or {}).items():
            if not (0 <= r < n and 0 <= q < n):
                raise ValueError(f"cell ({r}, {q}) is off the {n}x{n} board")
            if player not in (RED, BLUE):
                raise ValueError(f"cell ({r}, {q}) holds {player!r}, not RED (0) or BLUE (1)")
            c = cell_index(r, q)
            self.board[c] = player + 1
            self.stones[player] += 1
            self.code += lay.stone_code[player + 1][c]
        if type(turn) is not int or not 0 <= turn <= MAX_ACTIONS:
            raise ValueError(f"action count {turn!r} is outside 0..{MAX_ACTIONS}")
        if turn == 0 and any(self.stones):
            raise ValueError("before the first action the board must be empty")
        if turn == 1 and self.stones != [1, 0]:
            raise ValueError("after one action the board holds exactly one red stone")
        for player in (RED, BLUE):
            self._label_groups(player, lay.cells, [])
        self.repetitions: dict[int, int] = {self.code: 1}
        mover, waiting = (turn - 1) & 1, turn & 1
        if self.connected(waiting):
            raise ValueError(f"{PLAYER_NAMES[waiting]} is connected but is to move: the game would have ended")
        if turn and self.connected(mover):
            self._outcome: Outcome | None = WIN_BY_CONNECTION[mover]
        else:
            self._outcome = DRAW_BY_TURN_LIMIT if turn >= MAX_ACTIONS else None

    # -- queries ------------------------------------------------------------

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    @property
    def is_over(self) -> bool:
        return self._outcome is not None

    def cell(self, r: int, q: int) -> int | None:
        """``RED``, ``BLUE`` or ``None`` (empty) for an on-board cell."""
        if not (0 <= r < self.n and 0 <= q < self.n):
            raise ValueError(f"cell ({r}, {q}) is off the {self.n}x{self.n} board")
        v = self.board[cell_index(r, q)]
        return None if v == EMPTY else v - 1

    def cells(self) -> Iterable[tuple[int, int, int]]:
        """Every stone as ``(r, q, player)``, row by row."""
        b = self.board
        for c in self.layout.cells:
            if b[c]:
                yield c // STRIDE, c % STRIDE, b[c] - 1

    def occurrences(self) -> int:
        """How often the current board has occurred so far, this time included."""
        return self.repetitions.get(self.code, 0)

    def connected(self, player: int) -> bool:
        """Whether some group of ``player``'s stones touches both of its sides."""
        b, v = self.board, player + 1
        parent, sides = self._parent[player], self._group_sides[player]
        return any(b[c] == v and parent[c] == c and sides[c] == 3 for c in self.layout.cells)

    def legal_actions(self) -> list[int]:
        if self._outcome is not None:
            return []
        actions = list(compress(range(self.layout.size), self.board.translate(FREE_CELL)))
        if self.turn < 2:
            if self.turn == 0:
                if self.layout.centre >= 0:
                    actions.remove(self.layout.centre)
            else:
                actions.append(STEAL)
        return actions

    def is_legal(self, action: object) -> bool:
        return self.illegal_reason(action) is None

    def illegal_reason(self, action: object) -> str | None:
        if type(action) is not int or not 0 <= action < ACTION_COUNT:
            return "not a Cachex action"
        if self._outcome is not None:
            return "the game is over"
        if action == STEAL:
            if self.turn != 1:
                return "STEAL is only allowed as Blue's first move (the game's second action)"
            return None
        r, q = cell_coords(action)
        n = self.n
        if r >= n or q >= n:
            return f"cell ({r}, {q}) is off the {n}x{n} board (r and q are 0..{n - 1})"
        v = self.board[action]
        if v != EMPTY:
            return f"cell ({r}, {q}) is not empty (it holds a {PLAYER_NAMES[v - 1]} stone)"
        if self.turn == 0 and action == self.layout.centre:
            return f"Red's first move may not be on the centre cell ({r}, {q})"
        return None

    def key(self) -> int:
        """The board integer and the side to move: exact, so never a collision.

        The action count and the repetition counts are not part of it (as
        with a chess position key); they matter only near the limits.
        """
        return self.code << 1 | (self.turn & 1)

    def action_to_str(self, action: int) -> str:
        return action_to_str(action)

    def parse_action(self, text: str) -> int:
        return parse_action(text, self.n)

    def last_action_effect(self) -> tuple[int, int | None, tuple[int, ...]] | None:
        """``(action, cell given a stone, cells emptied)`` for the last action, or None.

        For a STEAL the cell given a stone is the mirror and the emptied cell
        is Red's stone; for a PLACE the emptied cells are the captures.
        """
        if not self._history:
            return None
        action, removed = self._history[-1][:2]
        if action == STEAL:
            return action, self.layout.mirror[removed[0]], removed
        return action, action, removed

    # -- changes ------------------------------------------------------------

    def apply(self, action: int) -> None:
        me = self.turn & 1
        prior_code = self.code
        if action == STEAL:
            code, removed = self._steal(prior_code)
            unions: tuple[Any, ...] = ()
            overwritten: tuple[Any, ...] = ()
            won = False
        else:
            code, removed, unions, overwritten, won = self._place(action, me, prior_code)
        self.code = code
        self._history.append((action, removed, prior_code, self._outcome, unions, overwritten))
        seen = self.repetitions.get(code, 0) + 1
        self.repetitions[code] = seen
        self.turn += 1
        self._outcome = outcome_after(me, won, seen, self.turn)

    def _steal(self, code: int) -> tuple[int, tuple[int, ...]]:
        """Turn Red's one stone into Blue's on the mirror cell; (board integer, emptied cells)."""
        b = self.board
        lay = self.layout
        src = b.index(RED_STONE)
        dst = lay.mirror[src]
        b[src] = EMPTY
        b[dst] = BLUE_STONE
        self.stones[RED] -= 1
        self.stones[BLUE] += 1
        # Red is left with no stone; Blue's stone is a group of its own.
        self._parent[BLUE][dst] = dst
        self._group_size[BLUE][dst] = 1
        self._group_sides[BLUE][dst] = lay.side_flags[BLUE][dst]
        return code - lay.stone_code[RED_STONE][src] + lay.stone_code[BLUE_STONE][dst], (src,)

    def _place(
        self, action: int, me: int, code: int
    ) -> tuple[int, tuple[int, ...], tuple[Any, ...], tuple[Any, ...], bool]:
        """Put ``me``'s stone on ``action``, capture, join groups.

        Returns the new board integer, the captured cells, the unions made
        and the union-find entries the captures overwrote (both for undo),
        and whether the new stone's group joins the mover's sides.
        """
        b = self.board
        lay = self.layout
        v = me + 1
        o = 2 - me
        b[action] = v
        code += lay.stone_code[v][action]
        caught: list[int] = []
        for far, m1, m2 in lay.diamonds[action]:
            if b[m1] == o and b[m2] == o and b[far] == v:
                caught += (m1, m2)
        if caught:
            # Collect first, then remove: a stone in two diamonds goes once.
            removed = tuple(sorted(set(caught)))
            opponent_code = lay.stone_code[o]
            for cell in removed:
                b[cell] = EMPTY
                code -= opponent_code[cell]
            self.stones[1 - me] -= len(removed)
            overwritten = self._split_groups(1 - me, removed)
        else:
            removed = overwritten = ()
        self.stones[me] += 1
        # Join the new stone to the groups of its neighbours.
        parent = self._parent[me]
        size = self._group_size[me]
        sides = self._group_sides[me]
        parent[action] = root = action
        size[action] = 1
        sides[action] = lay.side_flags[me][action]
        made = []
        for nb in lay.neighbours[action]:
            if b[nb] == v:
                other = nb
                while parent[other] != other:
                    other = parent[other]
                if other != root:
                    if size[other] > size[root]:
                        other, root = root, other
                    parent[other] = root
                    size[root] += size[other]
                    made.append((other, root, sides[root]))
                    sides[root] |= sides[other]
        return code, removed, tuple(made), overwritten, sides[root] == 3

    def _split_groups(self, player: int, removed: tuple[int, ...]) -> tuple[Any, ...]:
        """Relabel ``player``'s groups that lost the ``removed`` stones.

        What is left of a group that lost stones touches a lost stone, so a
        flood fill from the lost stones' neighbours finds every new group.
        Returns the overwritten entries ``(cell, parent, size, sides)``,
        the lost stones' included, so that undo can put them back.
        """
        parent = self._parent[player]
        size = self._group_size[player]
        sides = self._group_sides[player]
        saved = [(c, parent[c], size[c], sides[c]) for c in removed]
        neighbours = self.layout.neighbours
        self._label_groups(player, [nb for lost in removed for nb in neighbours[lost]], saved)
        return tuple(saved)

    def _label_groups(self, player: int, starts: Iterable[int], saved: list[Any]) -> None:
        """Make each group of ``player``'s holding a start cell one flat tree.

        Start cells that are not ``player``'s stones are skipped; the
        entries overwritten are appended to ``saved``.
        """
        b = self.board
        v = player + 1
        neighbours = self.layout.neighbours
        flags = self.layout.side_flags[player]
        parent = self._parent[player]
        size = self._group_size[player]
        sides = self._group_sides[player]
        labelled: set[int] = set()
        for start in starts:
            if b[start] != v or start in labelled:
                continue
            labelled.add(start)
            group = [start]
            touched = 0
            for c in group:  # grows while it is read: a breadth-first fill
                saved.append((c, parent[c], size[c], sides[c]))
                parent[c] = start
                touched |= flags[c]
                for nb in neighbours[c]:
                    if b[nb] == v and nb not in labelled:
                        labelled.add(nb)
                        group.append(nb)
            size[start] = len(group)
            sides[start] = touched

    def undo(self) -> None:
        if not self._history:
            raise IndexError("no action to undo")
        action, removed, prior_code, self._outcome, unions, overwritten = self._history.pop()
        counts = self.repetitions
        seen = counts[self.code] - 1
        if seen:
            counts[self.code] = seen
        else:
            del counts[self.code]
        self.code = prior_code
        self.turn -= 1
        me = self.turn & 1
        b = self.board
        if action == STEAL:
            src = removed[0]
            b[self.layout.mirror[src]] = EMPTY
            b[src] = RED_STONE
            self.stones[RED] += 1
            self.stones[BLUE] -= 1
            self._parent[RED][src] = src
            self._group_size[RED][src] = 1
            self._group_sides[RED][src] = self.layout.side_flags[RED][src]
            return
        b[action] = EMPTY
        self.stones[me] -= 1
        if unions:
            parent = self._parent[me]
            size = self._group_size[me]
            sides = self._group_sides[me]
            for child, root, root_sides in reversed(unions):
                parent[child] = child
                size[root] -= size[child]
                sides[root] = root_sides
        if removed:
            o = 2 - me
            for cell in removed:
                b[cell] = o
            self.stones[1 - me] += len(removed)
            parent = self._parent[1 - me]
            size = self._group_size[1 - me]
            sides = self._group_sides[1 - me]
            for cell, cell_parent, cell_size, cell_sides in overwritten:
                parent[cell] = cell_parent
                size[cell] = cell_size
                sides[cell] = cell_sides

    def copy(self) -> CachexState:
        other = self.copy_without_history()
        other._history = self._history.copy()
        return other

    def copy_without_history(self) -> CachexState:
        """A copy that cannot undo past this point (cheaper, for playouts).

        The repetition counts are copied all the same: they are rules.
        """
        other: CachexState = FIELDS.copy_into(self, CachexState.__new__(CachexState))
        other._history = []
        return other

    # -- random play (agents and benchmarks) --------------------------------

    def random_action(self, rng: Random) -> int:
        """A legal action drawn uniformly, usually without listing them all.

        Draws cells uniformly and keeps the first empty one (rejection
        sampling is exactly uniform over the empty cells); after a few misses,
        and for the first two actions (centre ban, STEAL), it chooses from the
        full list, which is also uniform, so the mixture is too.
        """
        if self.turn >= 2 and self._outcome is None:
            b = self.board
            cells = self.layout.cells
            k = len(cells)
            rand = rng.random
            for _ in range(8):
                c = cells[int(rand() * k)]
                if not b[c]:
                    return c
        actions = self.legal_actions()
        if not actions:
            raise ValueError("no legal action: the game is over")
        return actions[int(rng.random() * len(actions))]

    def random_playout(self, rng: Random) -> Outcome:
        """Play uniformly random actions to the end, in place; returns the outcome.

        The same actions as calling ``apply(random_action(rng))`` until the
        end (the tests check so), without undo records and with the random
        choice inlined, for the engine benchmark (MCTS plays its own
        playouts).  The undo history is cleared, so play out a copy
        (``copy_without_history``) when the position is still needed.
        """
        self._history.clear()
        while self._outcome is None and self.turn < 2:
            self.apply(self.random_action(rng))
        self._history.clear()
        if self._outcome is not None:
            return self._outcome
        b = self.board
        lay = self.layout
        cells = lay.cells
        k = len(cells)
        rand = rng.random
        place = self._place
        counts = self.repetitions
        code = self.code
        turn = self.turn
        result = None
        while result is None:
            for _ in range(8):
                action = cells[int(rand() * k)]
                if not b[action]:
                    break
            else:
                empty = list(compress(range(lay.size), b.translate(FREE_CELL)))
                action = empty[int(rand() * len(empty))]
            me = turn & 1
            code, _, _, _, won = place(action, me, code)
            seen = counts.get(code, 0) + 1
            counts[code] = seen
            turn += 1
            result = outcome_after(me, won, seen, turn)
        self.code = code
        self.turn = turn
        self._outcome = result
        return result

    # -- position text --------------------------------------------------------

    def to_text(self) -> str:
        """Rows ``r = 0..n-1`` split by ``/`` (``.``, ``r``, ``b``), then the action count.

        For example ``...../..r../...../...b./..... 2``.
        """
        n, b = self.n, self.board
        rows = ("".join(".rb"[b[r * STRIDE + q]] for q in range(n)) for r in range(n))
        return "/".join(rows) + f" {self.turn}"

    @classmethod
    def from_text(cls, text: str) -> CachexState:
        """Read :meth:`to_text`'s format; raises ``ValueError`` saying what is wrong.

        The board size is the number of rows.  Positions no game reaches are
        refused: stones before the first action, anything but one red stone
        after it, the player to move already connected.
        """
        board_part, _, turn_part = text.strip().partition(" ")
        try:
            turn = int(turn_part) if turn_part.strip() else 0
        except ValueError:
            raise ValueError(f"action count {turn_part.strip()!r} is not a number") from None
        rows = board_part.split("/")
        n = len(rows)
        if not MIN_N <= n <= MAX_N:
            raise ValueError(f"{n} rows: the board size must be {MIN_N}..{MAX_N} rows separated by '/'")
        cells = {}
        for r, row in enumerate(rows):
            if len(row) != n:
                raise ValueError(f"row {r} has {len(row)} cells, expected {n}")
            for q, ch in enumerate(row):
                if ch in "rb":
                    cells[(r, q)] = RED if ch == "r" else BLUE
                elif ch != ".":
                    raise ValueError(f"row {r}, column {q}: unexpected {ch!r} (cells are '.', 'r' or 'b')")
        return cls(n, cells, turn)

    # -- equality and display -----------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CachexState):
            return NotImplemented
        return (
            self.n == other.n
            and self.board == other.board
            and self.turn == other.turn
            and self.repetitions == other.repetitions
        )

    __hash__ = None  # type: ignore[assignment]  # mutable: use key()

    def __repr__(self) -> str:
        return f"CachexState(n={self.n}, {self.to_text()!r})"

    def render(self, use_color: bool = False, use_unicode: bool = False) -> str:
        """The rhombus with its coloured sides; the last action's cells in brackets."""
        from .render import render_board

        effect = self.last_action_effect()
        marked: frozenset[int] = frozenset()
        if effect is not None:
            _, placed, removed = effect
            marked = frozenset(removed) if placed is None else frozenset(removed) | {placed}
        return render_board(self.n, self.board, use_color=use_color, use_unicode=use_unicode, highlight=marked)

    def summary(self) -> str:
        red, blue = self.stones
        stones = f"RED {count_of(red, 'stone')}, BLUE {count_of(blue, 'stone')}"
        return f"{stones}; {self.turn} of {MAX_ACTIONS} actions played"
