"""The course referee's ``referee.game`` names, for agents written for it.

Agents written for COMP30024's 2023 referee import these names (from here or
from the submodules ``hex``, ``board``, ``actions``, ``player``, ``constants``
and ``exceptions``) and run unchanged.  Everything here is a thin layer on the
fast engine in :mod:`referee.games.infexion`.
"""
from .actions import Action, SpawnAction, SpreadAction
from .board import Board, BoardMutation, CellMutation, CellState
from .constants import BOARD_N, MAX_CELL_POWER, MAX_TOTAL_POWER, MAX_TURNS, WIN_POWER_DIFF
from .exceptions import IllegalActionException, PlayerException
from .hex import HexDir, HexPos, HexVec
from .player import PlayerColor

__all__ = [
    "Action",
    "BOARD_N",
    "Board",
    "BoardMutation",
    "CellMutation",
    "CellState",
    "HexDir",
    "HexPos",
    "HexVec",
    "IllegalActionException",
    "MAX_CELL_POWER",
    "MAX_TOTAL_POWER",
    "MAX_TURNS",
    "PlayerColor",
    "PlayerException",
    "SpawnAction",
    "SpreadAction",
    "WIN_POWER_DIFF",
]
