"""The encoding's interface (:class:`Encoding`), apart from the games' encodings so that each game's module
(``encoding.py`` for Infexion and Cachex, ``infinitron_encoding.py``) imports it and nothing imports back.

docs/learning.md describes what an encoding is for; :mod:`.encoding` makes one by the game's name.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from typing import Any

from referee.games.base import RED, Game, GameState

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
    #: Where an index names the same engine action in every position (Infexion, Cachex): that action by
    #: index, for callers that decode every action (``decode`` gives the same); None where it does not
    #: (Infinitron names a unit by its cell).
    decoded: list[Action] | None = None

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
