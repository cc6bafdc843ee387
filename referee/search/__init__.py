"""Part A (single-player Infexion): an optimal SPREAD solver and a grader.

``python -m referee search`` is the command line (:mod:`.cli`); docs/search.md
explains the search and why each of its bounds is admissible.
"""
from .board import BoardError, board_bytes, format_spread, parse_board
from .replay import Verdict, check_sequence
from .solver import SolveResult, Unsolvable, solve

__all__ = [
    "BoardError",
    "SolveResult",
    "Unsolvable",
    "Verdict",
    "board_bytes",
    "check_sequence",
    "format_spread",
    "parse_board",
    "solve",
]
