"""An Infinitron agent for short console tests: two random commands a turn, then END_TURN; fails in its third turn.

It fails (an error, so the game ends by forfeit) after its first command of its
third turn, so a whole game is a few seconds and ends in the middle of a turn.
"""
from __future__ import annotations

import random
from typing import Any

from referee.agentkit import GameView

COMMANDS_A_TURN = 2
FAILS_IN_TURN = 3


class Agent:
    def __init__(self, color: Any, **referee: Any):
        self.view = GameView(color, referee)
        self.rng = random.Random(f"{referee.get('seed')}:{self.view.me}")
        self.turns = 0  # this side's turns begun
        self.given = 0  # commands given in this turn

    def action(self, **referee: Any) -> Any:
        state = self.view.state
        if self.given == 0:
            self.turns += 1
        if self.turns == FAILS_IN_TURN and self.given == 1:
            raise RuntimeError("stopping the game in the middle of a turn, as the test asks")
        legal = state.legal_actions()
        others = [a for a in legal if state.action_to_str(a) != "END_TURN"]
        if self.given >= COMMANDS_A_TURN or not others:
            self.given = 0
            return self.view.to_agent(next(a for a in legal if state.action_to_str(a) == "END_TURN"))
        self.given += 1
        return self.view.to_agent(self.rng.choice(others))

    def turn(self, color: Any, action: Any, **referee: Any) -> None:
        self.view.observe(action)
