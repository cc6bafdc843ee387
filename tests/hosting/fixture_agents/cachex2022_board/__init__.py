"""A 2022 Cachex agent that keeps its board with the 2022 referee's own module.

``import referee.board`` and ``referee.board.Board(n)``, updated with
``place`` and ``swap``; it plays next to its biggest group (``connected_coords``),
on cells ``is_occupied`` says are free, and counts board digests as the 2022
referee did.  Were its board ever wrong it would play on an occupied cell
and lose by illegal_action.
"""
import collections
import random

import referee.board


class Player:
    def __init__(self, player, n):
        self.player, self.n = player, n
        self.board = referee.board.Board(n)
        self.seen = collections.Counter({self.board.digest(): 1})
        self.turns = 0
        self.rng = random.Random(n)

    def action(self):
        board, n = self.board, self.n
        if self.turns == 1 and self.player == "blue":
            return ("STEAL",)
        free = [
            (r, q)
            for r in range(n)
            for q in range(n)
            if not board.is_occupied((r, q)) and not (self.turns == 0 and n % 2 and r == q == n // 2)
        ]
        mine = [(r, q) for r in range(n) for q in range(n) if board[(r, q)] == self.player]
        if mine:
            group = max((board.connected_coords(cell) for cell in mine), key=len)
            near = sorted({c for cell in group for c in board._coord_neighbours(cell) if c in free})
            if near and self.rng.random() < 0.7:
                return ("PLACE", *self.rng.choice(near))
        return ("PLACE", *self.rng.choice(free))

    def turn(self, player, action):
        if action[0] == "STEAL":
            self.board.swap()
        else:
            _, r, q = action
            assert self.board.inside_bounds((r, q)) and not self.board.is_occupied((r, q))
            captured = self.board.place(player, (r, q))
            assert all(self.board[cell] is None for cell in captured)
        self.seen[self.board.digest()] += 1
        self.turns += 1
