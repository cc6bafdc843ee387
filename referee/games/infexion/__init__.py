"""Infexion (COMP30024, 2023): a 7x7 torus of hex cells, SPAWN and SPREAD."""
from .engine import (
    ACTION_COUNT,
    BOARD_N,
    DIRECTIONS,
    MAX_CELL_POWER,
    MAX_TOTAL_POWER,
    MAX_TURNS,
    WIN_POWER_DIFF,
    Infexion,
    InfexionState,
    action_to_str,
    parse_action,
    spawn_action,
    spread_action,
)

__all__ = [
    "ACTION_COUNT",
    "BOARD_N",
    "DIRECTIONS",
    "MAX_CELL_POWER",
    "MAX_TOTAL_POWER",
    "MAX_TURNS",
    "WIN_POWER_DIFF",
    "Infexion",
    "InfexionState",
    "action_to_str",
    "parse_action",
    "spawn_action",
    "spread_action",
]
