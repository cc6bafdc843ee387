"""Written as some agents for the course's 2023 referee were: it reads the
course ``Board``'s private ``_state``.

It finds its own cells by iterating ``board._state.items()`` and, for a
SPAWN, takes the first cell the board has never touched (one that is not a
key of ``_state``), which only works if ``_state`` holds just the touched
cells, as the course's ``defaultdict`` did.
"""
from referee.game import Board, HexDir, HexPos, PlayerColor, SpawnAction, SpreadAction


class Agent:
    def __init__(self, color: PlayerColor, **referee):
        self._color = color
        self._board = Board()
        self._turns = 0

    def action(self, **referee):
        board = self._board
        self._turns += 1
        mine = [cell for cell, state in board._state.items() if state.player == self._color]
        untouched = [HexPos(r, q) for r in range(7) for q in range(7) if HexPos(r, q) not in board._state]
        if not mine or (self._turns % 3 and untouched and board._total_power < 49):
            return SpawnAction(untouched[0])
        # Spread from the cell touched first, in the first direction it owns no neighbour in.
        cell = mine[0]
        for direction in HexDir:
            if board[cell + direction].player != self._color:
                return SpreadAction(cell, direction)
        return SpreadAction(cell, HexDir.DownRight)

    def turn(self, color: PlayerColor, action, **referee):
        self._board.apply_action(action)
