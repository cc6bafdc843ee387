"""A deliberately simple Cachex implementation, written from the rules text.

No tables, no encodings: a dict from ``(r, q)`` to ``"r"``/``"b"``, a list of
every board seen so far, and each rule of ``shared/specs/cachex.md`` spelled
out as it reads.  The fast engine is checked against it.  Actions are tuples
``("PLACE", r, q)`` and ``("STEAL",)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# "Neighbours of (r, q): offsets (1,-1) (1,0) (0,1) (-1,1) (-1,0) (0,-1)"
OFFSETS = [(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)]


def other(colour: str) -> str:
    return "b" if colour == "r" else "r"


@dataclass
class RefGame:
    n: int
    cells: dict = field(default_factory=dict)  # (r, q) -> "r" | "b"
    actions_played: int = 0
    boards_seen: list = field(default_factory=list)  # every board so far, the start included
    result: tuple | None = None  # ("r" | "b" | None, reason) once over

    def __post_init__(self):
        if not self.boards_seen:
            self.boards_seen = [frozenset(self.cells.items())]
        # A position given part-way: the player who moved last may already
        # have connected; at the action limit it is a draw.
        if self.result is None and self.actions_played > 0:
            last = "r" if self.actions_played % 2 == 1 else "b"
            if any(self.connects(cell, last) for cell, c in self.cells.items() if c == last):
                self.result = (last, "connection")
            elif self.actions_played >= 343:
                self.result = (None, "turn_limit")

    def on_board(self, r: int, q: int) -> bool:
        return 0 <= r < self.n and 0 <= q < self.n

    def to_move(self) -> str:
        return "r" if self.actions_played % 2 == 0 else "b"

    def legal(self) -> list:
        if self.result is not None:
            return []
        out = []
        centre = (self.n - 1) // 2
        for r in range(self.n):
            for q in range(self.n):
                if (r, q) in self.cells:
                    continue
                if self.actions_played == 0 and self.n % 2 == 1 and (r, q) == (centre, centre):
                    continue
                out.append(("PLACE", r, q))
        if self.actions_played == 1:
            out.append(("STEAL",))
        return out

    def connects(self, start: tuple, colour: str) -> bool:
        """Does the group of ``colour`` stones holding ``start`` touch both sides?"""
        group = {start}
        frontier = [start]
        while frontier:
            r, q = frontier.pop()
            for dr, dq in OFFSETS:
                nb = (r + dr, q + dq)
                if self.cells.get(nb) == colour and nb not in group:
                    group.add(nb)
                    frontier.append(nb)
        if colour == "r":
            return any(r == 0 for r, _ in group) and any(r == self.n - 1 for r, _ in group)
        return any(q == 0 for _, q in group) and any(q == self.n - 1 for _, q in group)

    def play(self, action: tuple) -> None:
        me = self.to_move()
        assert action in self.legal(), action
        if action[0] == "STEAL":
            ((r, q),) = self.cells.keys()
            del self.cells[(r, q)]
            placed = (q, r)
            self.cells[placed] = me
        else:
            _, r, q = action
            placed = (r, q)
            self.cells[placed] = me
            # The diamond rule: pairs of offsets adjacent in the cyclic order
            # or one apart; c and c+n1+n2 mine, c+n1 and c+n2 the opponent's.
            doomed = set()
            for i in range(6):
                for j in (i + 1, i + 2):
                    n1, n2 = OFFSETS[i], OFFSETS[j % 6]
                    a = (r + n1[0], q + n1[1])
                    b = (r + n2[0], q + n2[1])
                    far = (r + n1[0] + n2[0], q + n1[1] + n2[1])
                    if not all(self.on_board(*x) for x in (a, b, far)):
                        continue
                    if self.cells.get(far) == me and self.cells.get(a) == other(me) and self.cells.get(b) == other(me):
                        doomed.update([a, b])
            for cell in doomed:
                del self.cells[cell]
        self.actions_played += 1
        board = frozenset(self.cells.items())
        self.boards_seen.append(board)
        if self.connects(placed, me):
            self.result = (me, "connection")
        elif self.boards_seen.count(board) >= 7:
            self.result = (None, "repetition")
        elif self.actions_played >= 343:
            self.result = (None, "turn_limit")

    def copy(self) -> RefGame:
        return RefGame(self.n, dict(self.cells), self.actions_played, list(self.boards_seen), self.result)


def action_text(action: tuple) -> str:
    if action[0] == "STEAL":
        return "STEAL"
    return f"PLACE({action[1]}, {action[2]})"


def perft(game: RefGame, depth: int) -> int:
    """Number of action sequences of exactly ``depth`` actions."""
    if depth == 0:
        return 1
    if depth == 1:
        return len(game.legal())
    total = 0
    for action in game.legal():
        child = game.copy()
        child.play(action)
        total += perft(child, depth - 1)
    return total


def from_text(text: str) -> RefGame:
    """Read the engine's position text (rows r = 0.. split by '/', then the count)."""
    board, count = text.split()
    rows = board.split("/")
    cells = {(r, q): ch for r, row in enumerate(rows) for q, ch in enumerate(row) if ch != "."}
    return RefGame(len(rows), cells, int(count))


def to_text(game: RefGame) -> str:
    rows = ("".join(game.cells.get((r, q), ".") for q in range(game.n)) for r in range(game.n))
    return "/".join(rows) + f" {game.actions_played}"
