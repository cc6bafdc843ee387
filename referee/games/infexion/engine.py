"""Fast Infexion rules engine (pure: no I/O, no clocks).

The engine is split by job: :mod:`.tables` (the board, action ids and the
precomputed tables), :mod:`.notation` (action text), :mod:`.state` (the
position) and :mod:`.game`.  This module gathers their public names, so that
``from referee.games.infexion.engine import X`` keeps working.
"""
from __future__ import annotations

from ..base import BLUE, PLAYER_NAMES, RED, Game, GameState, NotationError, Outcome, check_options
from .game import Infexion
from .notation import ACTION_TEXT, action_to_str, parse_action
from .state import InfexionState
from .tables import (
    ACTION_CELL, ACTION_COUNT, ACTION_DIR, ACTIONS_BY_CELL, BLUE_ELIMINATES, BLUE_FLAG, BLUE_ON_POWER, BOARD_N, CELLS,
    DIRECTIONS, DRAW_NO_TOKENS, DRAW_ON_POWER, EFFECTS, LEGAL_FLAG, MAX_CELL_POWER, MAX_TOTAL_POWER, MAX_TURNS,
    RED_ELIMINATES, RED_ON_POWER, SIDE_BYTE, SPREAD_BASE, SPREAD_TARGETS, WIN_POWER_DIFF, cell_coords, cell_index,
    cell_value, outcome_of, spawn_action, spread_action,
)

__all__ = [
    "ACTIONS_BY_CELL", "ACTION_CELL", "ACTION_COUNT", "ACTION_DIR", "ACTION_TEXT", "BLUE", "BLUE_ELIMINATES",
    "BLUE_FLAG", "BLUE_ON_POWER", "BOARD_N", "CELLS", "DIRECTIONS", "DRAW_NO_TOKENS", "DRAW_ON_POWER", "EFFECTS",
    "Game", "GameState", "Infexion", "InfexionState", "LEGAL_FLAG", "MAX_CELL_POWER", "MAX_TOTAL_POWER", "MAX_TURNS",
    "NotationError", "Outcome", "PLAYER_NAMES", "RED", "RED_ELIMINATES", "RED_ON_POWER", "SIDE_BYTE", "SPREAD_BASE",
    "SPREAD_TARGETS", "WIN_POWER_DIFF", "action_to_str", "cell_coords", "cell_index", "cell_value", "check_options",
    "outcome_of", "parse_action", "spawn_action", "spread_action",
]
