"""A deliberately simple Infexion implementation, written from the rules text.

No tables, no encoding tricks: a dict from ``(r, q)`` to ``(colour, power)``
and the rules spelled out line by line.  The fast engine is checked against it.
Colours are the strings "r" and "b".
"""
from __future__ import annotations

from dataclasses import dataclass, field

N = 7
DIRS = [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)]


@dataclass
class RefGame:
    cells: dict = field(default_factory=dict)  # (r, q) -> (colour, power)
    actions_played: int = 0

    def to_move(self) -> str:
        return "r" if self.actions_played % 2 == 0 else "b"

    def power_of(self, colour: str) -> int:
        return sum(p for (c, p) in self.cells.values() if c == colour)

    def result(self):
        """None while the game goes on, else ("r"|"b"|None, reason)."""
        red, blue = self.power_of("r"), self.power_of("b")
        if self.actions_played >= 2:
            if red == 0 and blue == 0:
                return (None, "no_tokens")
            if blue == 0:
                return ("r", "elimination")
            if red == 0:
                return ("b", "elimination")
        if self.actions_played >= 343:
            if red - blue >= 2:
                return ("r", "turn_limit")
            if blue - red >= 2:
                return ("b", "turn_limit")
            return (None, "turn_limit")
        return None

    def legal(self) -> list:
        """Actions as tuples: ("SPAWN", r, q) and ("SPREAD", r, q, dr, dq)."""
        if self.result() is not None:
            return []
        me = self.to_move()
        out = []
        total = self.power_of("r") + self.power_of("b")
        for r in range(N):
            for q in range(N):
                if (r, q) not in self.cells:
                    if total < 49:
                        out.append(("SPAWN", r, q))
                elif self.cells[(r, q)][0] == me:
                    for dr, dq in DIRS:
                        out.append(("SPREAD", r, q, dr, dq))
        return out

    def play(self, action) -> None:
        me = self.to_move()
        if action[0] == "SPAWN":
            _, r, q = action
            assert (r, q) not in self.cells
            self.cells[(r, q)] = (me, 1)
        else:
            _, r, q, dr, dq = action
            colour, k = self.cells.pop((r, q))
            assert colour == me
            for i in range(1, k + 1):
                target = ((r + i * dr) % N, (q + i * dq) % N)
                if target not in self.cells:
                    self.cells[target] = (me, 1)
                else:
                    p = self.cells[target][1]
                    if p == 6:
                        del self.cells[target]
                    else:
                        self.cells[target] = (me, p + 1)
        self.actions_played += 1

    def copy(self) -> RefGame:
        return RefGame(dict(self.cells), self.actions_played)


def action_text(action) -> str:
    if action[0] == "SPAWN":
        return f"SPAWN({action[1]}, {action[2]})"
    return "SPREAD({}, {}, {}, {})".format(*action[1:])


def perft(game: RefGame, depth: int) -> int:
    """Number of action sequences of exactly ``depth`` actions."""
    if depth == 0:
        return 1
    total = 0
    for action in game.legal():
        child = game.copy()
        child.play(action)
        total += perft(child, depth - 1)
    return total


def from_text(text: str) -> RefGame:
    """Read the engine's position text (rows split by '/', then the count)."""
    board, count = text.split()
    game = RefGame(actions_played=int(count))
    for r, row in enumerate(board.split("/")):
        q = i = 0
        while i < len(row):
            if row[i] == ".":
                i += 1
            else:
                game.cells[(r, q)] = (row[i], int(row[i + 1]))
                i += 2
            q += 1
    return game
