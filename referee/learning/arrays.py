"""The encodings' observations and action masks as numpy arrays, for the environments that observe after
every action.

:meth:`~referee.learning.encoding.Encoding.observation` is pure Python and the one definition of the planes;
building Cachex's 343 or Infexion's 686 floats that way costs several times what the engine's action
did.  For those two games the same planes are made here with a few array operations on the engine's board
(a byte a cell): a table lookup gives each cell's one-hot planes, then the whole-board planes are filled.
Their action masks are made the same way, from the engine's own tables of what a cell allows
(``FREE_CELL``, ``ACTIONS_BY_CELL``), instead of listing the legal actions, mapping them to indices and
setting those in an array: three times the time.
tests/learning/test_pettingzoo.py checks both equal to the encoding's on random positions of both players.
Other games (Infinitron) take the encoding's lists as they are.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from referee.games.base import BLUE, RED, GameState
from referee.games.cachex.tables import FREE_CELL, STRIDE
from referee.games.cachex.tables import MAX_ACTIONS as CACHEX_MAX_ACTIONS
from referee.games.infexion.state import InfexionState
from referee.games.infexion.tables import (
    ACTIONS_BY_CELL,
    BLUE_FLAG,
    BOARD_N,
    CELLS,
    MAX_CELL_POWER,
    MAX_TOTAL_POWER,
    MAX_TURNS,
    SPREAD_BASE,
)

from .encoding import CachexEncoding, Encoding, InfexionEncoding

#: ``(state, player) -> the observation``: float32, ``observation_shape``, a new array every call.
Observer = Callable[[GameState, int], np.ndarray]
#: ``state -> the mask of the legal indices of the player to move``: int8, 1 for a legal index (all 0 once
#: the game is over), ``(num_actions,)``, a new array every call.
Masker = Callable[[GameState], np.ndarray]
#: ``state -> the legal indices of the player to move``, ascending, a new list every call.
Lister = Callable[[GameState], list[int]]


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


def _board_arrays(view: Callable[[np.ndarray], np.ndarray]) -> Callable[[GameState], np.ndarray]:
    """``state -> view(its board's bytes as a uint8 array)``, made once per board, not once per call.

    The array is the board itself, not a copy: the engines change a board (a ``bytearray``) in place, so the
    array follows the game as it is played, and ``np.frombuffer`` (which costs what the rest of an observation
    does) runs once a game.  A state given a new board object gets a new array.  Holding the array keeps the
    last board seen alive, and (numpy holds its buffer) refuses to resize it: the engines never do.  The board
    and its array are kept as one tuple, read and replaced whole, so threads sharing this never mix two boards.
    Not to be pickled (a copy of the array would no longer be the board's): the environments make theirs anew.
    """
    last: list[tuple[object, np.ndarray]] = [(None, np.zeros(0, dtype=np.uint8))]

    def arrays(state: GameState) -> np.ndarray:
        board = state.board  # type: ignore[attr-defined]
        seen, made = last[0]
        if seen is not board:
            made = view(np.frombuffer(board, dtype=np.uint8))
            last[0] = (board, made)
        return made

    return arrays


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
    cells_of = _board_arrays(lambda board: board.reshape(BOARD_N, BOARD_N))

    def observe(state: GameState, player: int) -> np.ndarray:
        out = views[player][not state.is_over and state.current_player == player].take(cells_of(state), 1)
        out[13] = state.move_count / MAX_TURNS
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
    cells_of = _board_arrays(lambda board: board[: n * STRIDE].reshape(n, STRIDE)[:, :n])

    def observe(state: GameState, player: int) -> np.ndarray:
        over = state.is_over
        turn = state.move_count
        view = views[player][not over and state.current_player == player][not over and turn == 1]
        out = view.take(cells_of(state), 1)
        out[6] = turn / CACHEX_MAX_ACTIONS
        return out

    return observe


def masker(coding: Encoding) -> Masker:
    """The fastest way to the mask of the legal indices of ``coding``'s game."""
    if isinstance(coding, InfexionEncoding):
        return _infexion_masker()
    listed = _listed_masker(coding)
    if isinstance(coding, CachexEncoding):
        return _cachex_masker(coding.n, listed)
    return listed


def lister(coding: Encoding) -> Lister:
    """The fastest way to the encoding's ``legal_indices`` of ``coding``'s game: Infexion's read off the mask
    made from the board (sorting the engine's actions into indices costs more), others the encoding's own."""
    if not isinstance(coding, InfexionEncoding):
        return coding.legal_indices
    mask_of = masker(coding)

    def legal(state: GameState) -> list[int]:
        return cast(list[int], mask_of(state).nonzero()[0].tolist())

    return legal


def _listed_masker(coding: Encoding) -> Masker:
    """The mask from the encoding's list of legal indices (any game)."""
    size = coding.num_actions

    def mask(state: GameState) -> np.ndarray:
        out = np.zeros(size, dtype=np.int8)
        if not state.is_over:
            out.put(coding.legal_indices(state), 1)
        return out

    return mask


def _cachex_masker(n: int, listed: Masker) -> Masker:
    """Cachex from its third action on: the board's empty cells (``FREE_CELL``, as the engine lists them).

    The game's first two actions (the centre refused, STEAL offered) and its end take the encoding's list.
    """
    # Each index's byte on the board (``r * STRIDE + q``); STEAL's, last, is row 0's padding byte past the
    # board's edge (``n < STRIDE``), never free: STEAL is closed from the third action on.
    gather = np.array([r * STRIDE + q for r in range(n) for q in range(n)] + [n], dtype=np.intp)
    free = np.frombuffer(FREE_CELL, dtype=np.int8)
    board_of = _board_arrays(lambda board: board)

    def mask(state: GameState) -> np.ndarray:
        if state.move_count < 2 or state.is_over:
            return listed(state)
        return free.take(board_of(state).take(gather))

    return mask


def _infexion_masker() -> Masker:
    """Infexion: each cell's byte looked up in a table of what it allows, made from the engine's
    ``ACTIONS_BY_CELL`` (by the mover and whether SPAWN is open), then put in the indices' order."""
    # TABLES[(mover, spawn_ok)][byte]: (SPAWN here, SPREAD here in direction 0..5), read from cell 0's entry
    # (the torus makes every cell alike).  Taking it by the board gives (cell, 7) cell by cell; ORDER puts
    # that in the encoding's order: the 49 SPAWNs, then each cell's 6 SPREADs.
    tables: dict[tuple[int, bool], np.ndarray] = {}
    for key, per_cell in ACTIONS_BY_CELL.items():
        table = np.zeros((len(per_cell[0]), 7), dtype=np.int8)
        for byte, actions in enumerate(per_cell[0]):
            for action in actions:
                table[byte, 0 if action < SPREAD_BASE else action - SPREAD_BASE + 1] = 1
        tables[key] = table
    order = np.array([cell * 7 for cell in range(CELLS)]
                     + [cell * 7 + 1 + d for cell in range(CELLS) for d in range(6)], dtype=np.intp)
    over = np.zeros(len(order), dtype=np.int8)
    cells_of = _board_arrays(lambda board: board.reshape(BOARD_N, BOARD_N))

    def mask(state: GameState) -> np.ndarray:
        if state.is_over:
            return over.copy()
        infexion = cast(InfexionState, state)
        table = tables[(infexion.turn & 1, infexion.red_power + infexion.blue_power < MAX_TOTAL_POWER)]
        return table.take(cells_of(state), 0).ravel().take(order)

    return mask


class ArrayMakers:
    """For an environment over ``encoding``: ``_observe`` and ``_make_mask`` (this module's makers), made by
    :meth:`_make_arrays` and left out of its pickled state, then made anew.

    Pickled (a vector environment's worker, Ray, cloudpickle), a maker would carry a copy of its view of the live
    board, which would then no longer follow the game (and closures do not pickle at all).
    """

    encoding: Encoding
    _observe: Observer
    _make_mask: Masker

    def _make_arrays(self) -> None:
        self._observe = observer(self.encoding)
        self._make_mask = masker(self.encoding)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_observe"], state["_make_mask"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._make_arrays()
