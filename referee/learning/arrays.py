"""The encodings' observations as numpy arrays, for the environments that observe after every action.

:meth:`~referee.learning.encoding.Encoding.observation` is pure Python and the one definition of the planes;
building Cachex's 343 or Infexion's 686 floats that way costs several times what the engine's action
did.  For those two games the same planes are made here with a few array operations on the engine's board
(a byte a cell): a table lookup gives each cell's one-hot planes, then the whole-board planes are filled.
tests/learning/test_pettingzoo.py checks them equal to the encoding's on random positions of both players.
Other games (Infinitron) take the encoding's list as it is.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np

from referee.games.base import BLUE, RED, GameState
from referee.games.cachex.state import CachexState
from referee.games.cachex.tables import MAX_ACTIONS as CACHEX_MAX_ACTIONS
from referee.games.cachex.tables import STRIDE
from referee.games.infexion.state import InfexionState
from referee.games.infexion.tables import BLUE_FLAG, MAX_CELL_POWER, MAX_TURNS

from .encoding import CachexEncoding, Encoding, InfexionEncoding

#: ``(state, player) -> the observation``: float32, ``observation_shape``, a new array every call.
Observer = Callable[[GameState, int], np.ndarray]


def bounds(coding: Encoding) -> tuple[float, float]:
    """The smallest and largest value of ``coding``'s observations: Infexion's and Cachex's planes are 0 or 1
    but for the share of actions played (0..1); Infinitron's resource planes grow all game, unbounded above."""
    if isinstance(coding, (InfexionEncoding, CachexEncoding)):
        return 0.0, 1.0
    return 0.0, float("inf")


def observer(coding: Encoding) -> Observer:
    """The fastest way to the encoding's observation of ``coding``'s game, as an array."""
    if isinstance(coding, InfexionEncoding):
        return _infexion_observer()
    if isinstance(coding, CachexEncoding):
        return _cachex_observer(coding.n)
    shape = coding.observation_shape

    def from_list(state: GameState, player: int) -> np.ndarray:
        return np.array(coding.observation(state, player), dtype=np.float32).reshape(shape)

    return from_list


def _infexion_observer() -> Observer:
    """Infexion's 14 planes: each cell's byte (power in the low 3 bits, ``BLUE_FLAG``) looked up in a table."""
    # TABLES[player][to_move]: a cell's 13 first planes by its byte, (planes, 256): the observer's stack of
    # power p in plane p - 1, the opponent's in 6 + p - 1, and plane 12 the to-move flag, the same for every
    # cell; one ``take`` of the board's bytes then makes those planes.  Plane 13 (the actions played) is filled.
    tables = np.zeros((2, 2, 14, 256), dtype=np.float32)
    for player, mine in ((RED, 0), (BLUE, BLUE_FLAG)):
        for byte in range(256):
            power = byte & 7
            if 1 <= power <= MAX_CELL_POWER:
                plane = power - 1 + (0 if byte & BLUE_FLAG == mine else MAX_CELL_POWER)
                tables[player, :, plane, byte] = 1.0
        tables[player, 1, 12] = 1.0

    views = [[tables[player, to_move] for to_move in (0, 1)] for player in (RED, BLUE)]

    def observe(state: GameState, player: int) -> np.ndarray:
        board = np.frombuffer(cast(InfexionState, state).board, dtype=np.uint8)
        out = views[player][not state.is_over and state.current_player == player].take(board, 1)
        out[13] = state.move_count / MAX_TURNS
        out.shape = (14, 7, 7)  # in place: the gathered array is new and contiguous
        return out

    return observe


def _cachex_observer(n: int) -> Observer:
    """Cachex's 7 planes: the board's rows (``STRIDE`` bytes apart) looked up in a table."""
    # TABLES[player][to_move][steal_open]: a cell's 6 first planes by its byte, (planes, 256): 1 in plane 0 for
    # the observer's stone (``player + 1``), in 1 for the opponent's, else in 2; planes 3-5 the flags (the
    # observer is Red, is to move, STEAL is open), the same for every cell.  Plane 6 (actions played) is filled.
    tables = np.zeros((2, 2, 2, 7, 256), dtype=np.float32)
    for player in (RED, BLUE):
        cells = tables[player, :, :, :3]
        cells[..., 2, :] = 1.0
        for plane, stone in ((0, player + 1), (1, 2 - player)):
            cells[..., :, stone] = 0.0
            cells[..., plane, stone] = 1.0
        tables[player, :, :, 3] = 1.0 if player == RED else 0.0
        tables[player, 1, :, 4] = 1.0
        tables[player, :, 1, 5] = 1.0
    views = [[[tables[player, to_move, steal] for steal in (0, 1)] for to_move in (0, 1)] for player in (RED, BLUE)]
    size = n * STRIDE

    def observe(state: GameState, player: int) -> np.ndarray:
        board = np.frombuffer(cast(CachexState, state).board, dtype=np.uint8, count=size)
        over = state.is_over
        turn = state.move_count
        view = views[player][not over and state.current_player == player][not over and turn == 1]
        out = view.take(board.reshape(n, STRIDE)[:, :n], 1)
        out[6] = turn / CACHEX_MAX_ACTIONS
        return out

    return observe
