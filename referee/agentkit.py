"""Help for agents: follow a game through the framework's game interface.

An agent is handed its colour and, in the referee's keyword arguments, the
game's name and options.  :class:`GameView` rebuilds the game from them, keeps
the position up to date from ``turn()`` calls and converts between the action
objects agents exchange with the referee and the engine's own actions::

    class Agent:
        def __init__(self, color, **referee):
            self.view = GameView(color, referee)

        def action(self, **referee):
            return self.view.to_agent(choose(self.view.state))

        def turn(self, color, action, **referee):
            self.view.observe(action)
"""
from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from .games import DEFAULT_GAME, registration
from .games.base import Action, GameState


class GameView:
    """One agent's copy of the game: the state and the action conversions."""

    def __init__(self, color: Any, referee: Mapping[str, Any]):
        game = registration(referee.get("game", DEFAULT_GAME))
        self.game = game.game_class()(**dict(referee.get("game_options") or {}))
        self.state: GameState = self.game.new_state()
        self.me: int = int(getattr(color, "value", color))
        types = game.agent_types_module()
        self._to_engine = types.to_engine_action
        self._from_engine = types.from_engine_action

    def observe(self, action: Any) -> Action:
        """Apply an action object the referee reported; returns the engine action."""
        engine_action = self._to_engine(action)
        self.state.apply_checked(engine_action)
        return engine_action

    def to_agent(self, action: Action) -> Any:
        """The action object to return from ``action()``."""
        return self._from_engine(action)

    @property
    def my_turn(self) -> bool:
        return self.state.current_player == self.me
