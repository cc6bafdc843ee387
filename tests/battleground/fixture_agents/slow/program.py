"""A slow agent for the battleground's tests: the bundled greedy agent, 0.05 s of wall time per action.

A game against another agent then lasts a few seconds, long enough for a test to stop a client (or the
server) in the middle of it.  Its choices are greedy's, deterministic given the referee's ``seed``.
"""
from __future__ import annotations

import time
from typing import Any

from agents.greedy import Agent as Greedy


class Agent(Greedy):
    def action(self, **referee: Any) -> Any:
        time.sleep(0.05)
        return super().action(**referee)
