"""Fast Cachex rules engine (pure: no I/O, no clocks).

The engine is split by job: :mod:`.tables` (limits, cell ids, outcomes and
the per-size layouts), :mod:`.notation` (action text), :mod:`.state` (the
position, with its representation described) and :mod:`.game`.  This module
gathers their public names, so that ``from referee.games.cachex.engine import
X`` keeps working.
"""
from __future__ import annotations

from ..base import BLUE, PLAYER_NAMES, RED, Game, GameOptionError, GameState, NotationError, Outcome, check_options
from .game import Cachex
from .notation import action_to_str, parse_action
from .state import CachexState
from .tables import (
    ACTION_COUNT, BLUE_STONE, DEFAULT_N, DIRECTIONS, DRAW_BY_REPETITION, DRAW_BY_TURN_LIMIT, EMPTY, FREE_CELL,
    MAX_ACTIONS, MAX_N, MIN_N, PADDING, REASONS, RED_STONE, REPETITION_LIMIT, STEAL, STRIDE, WIN_BY_CONNECTION,
    Layout, cell_coords, cell_index, check_size, diamond_offsets, layout, outcome_after,
)

__all__ = [
    "ACTION_COUNT", "BLUE", "BLUE_STONE", "Cachex", "CachexState", "DEFAULT_N", "DIRECTIONS", "DRAW_BY_REPETITION",
    "DRAW_BY_TURN_LIMIT", "EMPTY", "FREE_CELL", "Game", "GameOptionError", "GameState", "Layout", "MAX_ACTIONS",
    "MAX_N", "MIN_N", "NotationError", "Outcome", "PADDING", "PLAYER_NAMES", "REASONS", "RED", "RED_STONE",
    "REPETITION_LIMIT", "STEAL", "STRIDE", "WIN_BY_CONNECTION", "action_to_str", "cell_coords", "cell_index",
    "check_options", "check_size", "diamond_offsets", "layout", "outcome_after", "parse_action",
]
