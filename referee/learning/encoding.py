"""Each game as learning toolkits see it: actions as fixed integers, chance outcomes, observations as planes.

OpenSpiel, PettingZoo and Gymnasium all want the same three things of a game: a fixed-size action space
(an integer per action, the same integer for the same action in every position, so that a policy's output
and an action mask line up), the chance outcomes with their probabilities, and an observation of fixed
shape from one player's point of view.  :class:`Encoding` gives them for one game with its options, on top
of the referee's own engines (``referee.games``): the rules are the engine's, nothing is played twice.

Pure Python (no numpy): the bridges in this package turn the lists into the arrays their toolkit wants.
The mapping of each game is written out in docs/learning.md.
"""
from __future__ import annotations

from itertools import compress
from typing import Any, cast

from referee.games import load_game
from referee.games.base import BLUE, RED, Game, GameOptionError, GameState
from referee.games.cachex.state import CachexState
from referee.games.cachex.tables import MAX_ACTIONS as CACHEX_MAX_ACTIONS
from referee.games.cachex.tables import FREE_CELL, STEAL, STRIDE
from referee.games.infexion.state import InfexionState
from referee.games.infexion.tables import ACTION_COUNT as INFEXION_ACTIONS
from referee.games.infexion.tables import BLUE_FLAG, BOARD_N, CELLS, MAX_CELL_POWER, MAX_TURNS

from .base import Action, Encoding, planes
from .infinitron_encoding import InfinitronEncoding

__all__ = ["Action", "CachexEncoding", "Encoding", "InfexionEncoding", "InfinitronEncoding", "encoding", "planes"]


# ---------------------------------------------------------------------------
# Infexion


class InfexionEncoding(Encoding):
    """Infexion: the engine's own action ids, ``0..342``.

    ``r * 7 + q`` is ``SPAWN(r, q)``; ``49 + (r * 7 + q) * 6 + d`` is ``SPREAD(r, q, dr, dq)`` with
    ``(dr, dq)`` the d-th of ``(0, 1) (-1, 1) (-1, 0) (0, -1) (1, -1) (1, 0)``.

    Observation ``(14, 7, 7)``: planes 0-5 the observer's stacks of power 1-6, 6-11 the opponent's,
    12 all ones when the observer is to move, 13 the share of the 343 actions played.
    """

    num_chance_outcomes = 0
    observation_shape = (14, BOARD_N, BOARD_N)
    max_game_length = MAX_TURNS

    def __init__(self, game: Game):
        super().__init__(game)
        self.num_actions = INFEXION_ACTIONS
        self.decoded = list(range(INFEXION_ACTIONS))

    def index(self, state: GameState, action: Action) -> int:
        return cast(int, action)

    def decode(self, state: GameState, index: int) -> Action | None:
        return index if 0 <= index < INFEXION_ACTIONS else None

    def legal_indices(self, state: GameState) -> list[int]:
        return sorted(state.legal_actions())

    def observation(self, state: GameState, player: int) -> list[float]:
        out = planes(14, CELLS)
        mine = BLUE_FLAG if player == BLUE else 0
        for cell, v in enumerate(cast(InfexionState, state).board):
            if v:
                plane = (v & 7) - 1 + (0 if v & BLUE_FLAG == mine else MAX_CELL_POWER)
                out[plane * CELLS + cell] = 1.0
        if not state.is_over and state.current_player == player:
            out[12 * CELLS : 13 * CELLS] = [1.0] * CELLS
        out[13 * CELLS :] = [state.move_count / MAX_TURNS] * CELLS
        return out


# ---------------------------------------------------------------------------
# Cachex


class CachexEncoding(Encoding):
    """Cachex on an ``n x n`` board: ``r * n + q`` is ``PLACE(r, q)``, ``n * n`` is ``STEAL``.

    Observation ``(7, n, n)``: the observer's stones, the opponent's, the empty cells, then planes all
    ones or all zeros: the observer is Red (Red joins rows 0 and n-1, Blue columns 0 and n-1), the
    observer is to move, STEAL is open (the game's second action), and a plane holding the share of
    the 343 actions played.
    """

    num_chance_outcomes = 0
    max_game_length = CACHEX_MAX_ACTIONS

    def __init__(self, game: Game):
        super().__init__(game)
        self.n: int = game.options["n"]
        self.num_actions = self.n * self.n + 1
        self.observation_shape = (7, self.n, self.n)
        #: The engine's action (``r * 16 + q``, or STEAL) -> its integer; -1 off this board.
        self._index = [-1] * (STEAL + 1)
        for r in range(self.n):
            for q in range(self.n):
                self._index[r * STRIDE + q] = r * self.n + q
        self._index[STEAL] = self.n * self.n
        n = self.n
        self._actions: list[int] = [(i // n) * STRIDE + i % n for i in range(n * n)] + [STEAL]
        self.decoded = list(self._actions)

    def index(self, state: GameState, action: Action) -> int:
        return self._index[cast(int, action)]

    def decode(self, state: GameState, index: int) -> Action | None:
        return self._actions[index] if 0 <= index < self.num_actions else None

    def legal_indices(self, state: GameState) -> list[int]:
        cachex = cast(CachexState, state)
        if cachex.move_count < 2 or cachex.is_over:
            # The engine lists its cells in board order and STEAL last, which the integers keep: no sort needed.
            return list(map(self._index.__getitem__, state.legal_actions()))
        # From the third action on, the empty cells, read off the board as the engine reads them (FREE_CELL)
        # but as integers at once: the map above costs what the engine's listing does.
        return list(compress(self._index, cachex.board.translate(FREE_CELL)))

    def observation(self, state: GameState, player: int) -> list[float]:
        n = self.n
        cells = n * n
        out = planes(7, cells)
        board = cast(CachexState, state).board
        mine, theirs = player + 1, 2 - player
        for r in range(n):
            row = board[r * STRIDE : r * STRIDE + n]
            for q, v in enumerate(row):
                plane = 0 if v == mine else 1 if v == theirs else 2
                out[plane * cells + r * n + q] = 1.0
        over = state.is_over
        turn = state.move_count
        flags = (player == RED, not over and state.current_player == player, not over and turn == 1)
        for i, flag in enumerate(flags, start=3):
            if flag:
                out[i * cells : (i + 1) * cells] = [1.0] * cells
        out[6 * cells :] = [turn / CACHEX_MAX_ACTIONS] * cells
        return out


# ---------------------------------------------------------------------------
# The games by name


def encoding(game: str, **options: Any) -> Encoding:
    """The encoding of the named game with its options (``encoding("cachex", n=4)``).

    Raises GameOptionError for an unknown game, a game without an encoding, or options the game refuses
    (or that the encoding cannot hold: Infinitron's ``armour``).
    """
    rules = load_game(game, **options)
    if game == "infexion":
        return InfexionEncoding(rules)
    if game == "cachex":
        return CachexEncoding(rules)
    if game == "infinitron":
        return InfinitronEncoding(rules)
    raise GameOptionError(f"{game}: no learning encoding (encodings exist for infexion, cachex, infinitron)")
