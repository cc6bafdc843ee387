"""A slow agent for the battleground's tests: 0.05 s of wall time for each of its first 40 actions, deterministic
choices.

A game then lasts long enough for a test to stop a client (or the server) in
the middle of it (the tests do that by its 6th turn); then it plays at full speed, so that a game played out
after the interruption does not last 343 slow actions (17 s).  So that a game cannot end in its first turns (an opponent
capturing the one piece it has), its first :data:`CAUTIOUS` actions are spawns
that keep it the most power whatever the opponent replies (never a capture,
so it does not end the game either); from then on it plays as the bundled greedy agent (its ties
broken by the referee's ``seed``).
"""
from __future__ import annotations

import time
from typing import Any

from agents.greedy import Agent as Greedy

#: Actions played cautiously before playing greedily.
CAUTIOUS = 8
SLEEP = 0.05
#: Actions slowed down, each game.
SLOW_ACTIONS = 40


class Agent(Greedy):
    def __init__(self, color: Any, **referee: Any):
        super().__init__(color, **referee)
        self.played = 0

    def action(self, **referee: Any) -> Any:
        if self.played < SLOW_ACTIONS:
            time.sleep(SLEEP)
        self.played += 1
        if self.played <= CAUTIOUS:
            spawn = self.safe_spawn()
            if spawn is not None:
                return self.view.to_agent(spawn)
        return super().action(**referee)

    def safe_spawn(self) -> Any:
        """The spawn after which the opponent's best reply leaves it the most power (the first such in notation
        order): it never captures, so the game goes on, and loses as little as it can."""
        state, me = self.view.state.copy(), self.view.me
        best, best_kept = None, -1
        for action in sorted(state.legal_actions(), key=state.action_to_str):
            if not state.action_to_str(action).startswith("SPAWN"):
                continue
            state.apply(action)
            kept = min((self._kept(state, reply, me) for reply in state.legal_actions()), default=state.power(me))
            state.undo()
            if kept > best_kept:
                best, best_kept = action, kept
        return best

    @staticmethod
    def _kept(state: Any, reply: Any, me: int) -> int:
        state.apply(reply)
        kept = state.power(me)
        state.undo()
        return int(kept)
