"""The course agent held to the protocol's letter: it fails loudly otherwise.

* ``color`` is keyword-only in ``__init__`` (the referee must pass it by name);
* ``turn()`` after the action that ended the game is an error (the course
  referee never made that call, and agents relied on it).
"""
from referee.game import PlayerColor

from .program import Agent as CourseAgent


class Agent(CourseAgent):
    def __init__(self, *, color: PlayerColor, **referee: dict):
        super().__init__(color, **referee)

    def turn(self, color: PlayerColor, action, **referee: dict):
        super().turn(color, action, **referee)
        if self._board.game_over:
            raise RuntimeError(f"turn() was called for {action}, which ended the game")
