"""Infexion constants, under the names and module path of the course referee."""
from ..games.infexion.engine import (  # noqa: F401  (re-exported)
    BOARD_N,
    MAX_CELL_POWER,
    MAX_TOTAL_POWER,
    MAX_TURNS,
    WIN_POWER_DIFF,
)

__all__ = ["BOARD_N", "MAX_CELL_POWER", "MAX_TOTAL_POWER", "MAX_TURNS", "WIN_POWER_DIFF"]
