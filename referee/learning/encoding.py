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

from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from typing import Any, cast

from referee.games import load_game
from referee.games.base import BLUE, RED, Game, GameOptionError, GameState
from referee.games.cachex.state import CachexState
from referee.games.cachex.tables import MAX_ACTIONS as CACHEX_MAX_ACTIONS
from referee.games.cachex.tables import STEAL, STRIDE
from referee.games.infexion.state import InfexionState
from referee.games.infexion.tables import ACTION_COUNT as INFEXION_ACTIONS
from referee.games.infexion.tables import BLUE_FLAG, BOARD_N, CELLS, MAX_CELL_POWER, MAX_TURNS

#: An engine's action: each game chooses its own hashable type (an ``int``, a tuple).
Action = Hashable


class Encoding(ABC):
    """One game with its options (e.g. Cachex ``n``): its actions as integers ``0..num_actions - 1``.

    ``index`` and ``action`` translate between the engine's actions and the integers in a given position
    (an Infinitron unit is named by the cell it stands on, so its number is read from the position);
    ``observation`` is flat, ``prod(observation_shape)`` floats, planes first then rows and columns.
    """

    name: str
    options: dict[str, Any]
    #: The size of the players' action space for these options.
    num_actions: int
    #: The size of the chance outcomes' space (0 for a deterministic game).
    num_chance_outcomes: int
    observation_shape: tuple[int, ...]
    #: The most player actions a game can take (OpenSpiel's max_game_length); chance draws not counted.
    max_game_length: int

    def __init__(self, game: Game):
        self.game = game
        self.name = game.name
        self.options = dict(game.options)

    def new_state(self) -> GameState:
        """The starting position (an engine state: legal_actions, apply, current_player, outcome...)."""
        return self.game.new_state()

    # -- players' actions -----------------------------------------------------

    @abstractmethod
    def index(self, state: GameState, action: Action) -> int:
        """The integer of ``action`` (an engine action of the player to move in ``state``)."""

    @abstractmethod
    def decode(self, state: GameState, index: int) -> Action | None:
        """The engine action an integer stands for in ``state``, legal or not; None if it names none here."""

    def action(self, state: GameState, index: int) -> Action:
        """The engine action of ``index`` in ``state``; ValueError unless it is legal there."""
        found = self.decode(state, index) if type(index) is int and 0 <= index < self.num_actions else None
        if found is None or not state.is_legal(found):
            raise ValueError(f"{self.name}: action {index!r} is not legal here")
        return found

    def legal_indices(self, state: GameState) -> list[int]:
        """The integers of the legal actions of the player to move, ascending ([] at a chance node)."""
        index = self.index
        return sorted(index(state, a) for a in state.legal_actions())

    def action_string(self, state: GameState, index: int) -> str:
        """The game's canonical text of the action ``index`` stands for in ``state``."""
        found = self.decode(state, index)
        if found is None:
            return f"<{self.name} action {index} names nothing here>"
        return state.action_to_str(found)

    # -- chance -----------------------------------------------------------------

    def chance_outcomes(self, state: GameState, drawn: Sequence[int] = ()) -> list[tuple[int, float]]:
        """At a chance node: ``(outcome index, probability)`` of the next draw, ascending, summing to 1.

        Most chance events are one draw.  An event with too many outcomes to list is drawn in several
        (Infinitron's fish market: its cells one at a time); ``drawn`` holds the indices drawn so far
        at this chance node, and :meth:`chance_action` says when the event is whole.
        """
        raise ValueError(f"{self.name} has no chance events")

    def chance_action(self, state: GameState, index: int, drawn: Sequence[int] = ()) -> Action | None:
        """The engine's chance action once ``drawn + (index,)`` is a whole event, else None (draw again)."""
        raise ValueError(f"{self.name} has no chance events")

    def chance_string(self, state: GameState, index: int, drawn: Sequence[int] = ()) -> str:
        """Text for a chance outcome's index."""
        raise ValueError(f"{self.name} has no chance events")

    # -- observations and results -----------------------------------------------

    @abstractmethod
    def observation(self, state: GameState, player: int) -> list[float]:
        """The position as planes from ``player``'s point of view, flat (``prod(observation_shape)`` floats)."""

    def returns(self, state: GameState) -> list[float]:
        """Each player's result, Red's first: +1 a win, -1 a loss, 0 a draw or a game not over."""
        outcome = state.outcome
        if outcome is None or outcome.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if outcome.winner == RED else [-1.0, 1.0]


def planes(count: int, cells: int) -> list[float]:
    """``count`` zeroed planes of ``cells`` cells each, as one flat list."""
    return [0.0] * (count * cells)


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

    def index(self, state: GameState, action: Action) -> int:
        return self._index[cast(int, action)]

    def decode(self, state: GameState, index: int) -> Action | None:
        n = self.n
        if index == n * n:
            return STEAL
        return (index // n) * STRIDE + index % n if 0 <= index < n * n else None

    def legal_indices(self, state: GameState) -> list[int]:
        # The engine lists its cells in board order and STEAL last, which the integers keep: no sort needed.
        return list(map(self._index.__getitem__, state.legal_actions()))

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
        from .infinitron_encoding import InfinitronEncoding

        return InfinitronEncoding(rules)
    raise GameOptionError(f"{game}: no learning encoding (encodings exist for infexion, cachex, infinitron)")
