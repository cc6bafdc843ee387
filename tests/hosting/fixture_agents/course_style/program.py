"""Written the way agents for the course's 2023 referee were written.

It imports the course's names, pattern-matches on actions, does hex arithmetic
and simulates with ``Board`` itself: a one-ply greedy player.
"""
from referee.game import (
    BOARD_N,
    MAX_TOTAL_POWER,
    Action,
    Board,
    HexDir,
    HexPos,
    PlayerColor,
    SpawnAction,
    SpreadAction,
)
from referee.game.exceptions import IllegalActionException


class Agent:
    def __init__(self, color: PlayerColor, **referee: dict):
        self._color = color
        self._board = Board()

    def _candidates(self) -> list[Action]:
        mine = [
            HexPos(r, q)
            for r in range(BOARD_N)
            for q in range(BOARD_N)
            if self._board[HexPos(r, q)].player == self._color
        ]
        total = sum(self._board[HexPos(r, q)].power for r in range(BOARD_N) for q in range(BOARD_N))
        actions: list[Action] = [SpreadAction(cell, d) for cell in mine for d in HexDir]
        if total < MAX_TOTAL_POWER:
            actions += [
                SpawnAction(HexPos(r, q))
                for r in range(BOARD_N)
                for q in range(BOARD_N)
                if self._board[HexPos(r, q)].player is None
            ]
        return actions

    def _score(self) -> int:
        score = 0
        for r in range(BOARD_N):
            for q in range(BOARD_N):
                player, power = self._board[HexPos(r, q)]
                if player is not None:
                    score += power * int(player) * int(self._color)
        return score

    def action(self, **referee: dict) -> Action:
        best, best_score = None, None
        for candidate in self._candidates():
            try:
                self._board.apply_action(candidate)
            except IllegalActionException:
                continue
            score = self._score()
            self._board.undo_action()
            if best_score is None or score > best_score:
                best, best_score = candidate, score
        return best

    def turn(self, color: PlayerColor, action: Action, **referee: dict):
        match action:
            case SpawnAction(cell):
                assert self._board[cell].player is None
            case SpreadAction(cell, direction):
                assert self._board[cell].player == color
                _ = cell + direction * 2  # arithmetic as course agents do
        self._board.apply_action(action)
