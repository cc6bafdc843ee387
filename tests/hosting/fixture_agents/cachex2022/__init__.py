"""Written as agents for the course's 2022 Cachex referee were written.

``Player(player, n)``, ``action()`` returning ``("PLACE", r, q)`` or
``("STEAL",)``, ``turn(player, action)`` for every action, its own included.
It keeps its own board (captures included) and checks what it is told.
"""
import random


class Player:
    def __init__(self, player, n):
        assert player in ("red", "blue") and isinstance(n, int), (player, n)
        self.player, self.n = player, n
        self.board = {}
        self.turns = 0
        self.pending = None
        self.rng = random.Random(n)

    def action(self):
        if self.turns == 1 and self.player == "blue":
            self.pending = ("STEAL",)
            return self.pending
        empty = [
            (r, q)
            for r in range(self.n)
            for q in range(self.n)
            if (r, q) not in self.board and not (self.turns == 0 and self.n % 2 and r == q == self.n // 2)
        ]
        r, q = self.rng.choice(empty)
        self.pending = ("PLACE", r, q)
        return self.pending

    def turn(self, player, action):
        assert player in ("red", "blue") and isinstance(action, tuple), (player, action)
        if player == self.player:
            assert action == self.pending, "told about my own action"
        if action[0] == "STEAL":
            (cell, _), = self.board.items()
            del self.board[cell]
            self.board[(cell[1], cell[0])] = "blue"
        else:
            _, r, q = action
            self.board[(r, q)] = player
            self._capture(r, q, player)
        self.turns += 1

    def _capture(self, r, q, me):
        # The diamond rule: every rhombus with (r, q) as a corner whose
        # opposite corner is mine and other two corners are the opponent's.
        offsets = [(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)]
        gone = set()
        for i in range(6):
            for j in (i + 1, i + 2):
                a, b = offsets[i], offsets[j % 6]
                c1, c2 = (r + a[0], q + a[1]), (r + b[0], q + b[1])
                far = (r + a[0] + b[0], q + a[1] + b[1])
                if all(0 <= x < self.n and 0 <= y < self.n for x, y in (c1, c2, far)):
                    them = [self.board.get(c) for c in (c1, c2)]
                    if self.board.get(far) == me and all(t not in (None, me) for t in them):
                        gone.update((c1, c2))
        for cell in gone:
            del self.board[cell]
