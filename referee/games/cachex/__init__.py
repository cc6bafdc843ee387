"""Cachex (COMP30024, 2022): an n x n rhombus of hexes, PLACE and STEAL.

Each player connects their two sides; two stones on a diamond's opposite
corners capture the two opponent stones between them.  Rules and notation:
``docs/cachex.md``.
"""
from .engine import (
    ACTION_COUNT,
    DEFAULT_N,
    DIRECTIONS,
    MAX_ACTIONS,
    MAX_N,
    MIN_N,
    REPETITION_LIMIT,
    STEAL,
    STRIDE,
    Cachex,
    CachexState,
    action_to_str,
    cell_coords,
    cell_index,
    diamond_offsets,
    parse_action,
)

__all__ = [
    "ACTION_COUNT",
    "DEFAULT_N",
    "DIRECTIONS",
    "MAX_ACTIONS",
    "MAX_N",
    "MIN_N",
    "REPETITION_LIMIT",
    "STEAL",
    "STRIDE",
    "Cachex",
    "CachexState",
    "action_to_str",
    "cell_coords",
    "cell_index",
    "diamond_offsets",
    "parse_action",
]
