"""An agent for the battleground's wall-clock test: it writes down the clocks it is told, in every call.

Each call appends one JSON line (``call``, ``time_remaining``, ``wall_remaining``, and for ``action()`` the wall
seconds it took) to the file named by the environment variable :data:`LOG_VARIABLE` (the test passes it through
``REFEREE_PASS_ENV`` and plays the agent unsealed, so that it can write there).  Each action sleeps
:data:`SLEEP` seconds, which use the server's wall clock and no CPU.  Its first :data:`CAUTIOUS` actions are
the slow fixture's safe spawns, so that the game lasts some moves whoever it plays; then random legal actions,
so that the house's greedy agent ends it soon.
"""
from __future__ import annotations

import json
import os
import time
from typing import Any

from ..slow.program import Agent as Slow

LOG_VARIABLE = "CLOCKS_AGENT_LOG"
SLEEP = 0.1
CAUTIOUS = 6


class Agent(Slow):
    def __init__(self, color: Any, **referee: Any):
        super().__init__(color, **referee)
        self.log("__init__", referee)

    def action(self, **referee: Any) -> Any:
        started = time.monotonic()
        time.sleep(SLEEP)
        self.played += 1
        spawn = self.safe_spawn() if self.played <= CAUTIOUS else None
        action = spawn if spawn is not None else self.rng.choice(self.view.state.legal_actions())
        self.log("action", referee, took=time.monotonic() - started)
        return self.view.to_agent(action)

    def turn(self, color: Any, action: Any, **referee: Any) -> None:
        super().turn(color, action, **referee)
        self.log("turn", referee)

    def log(self, call: str, referee: dict[str, Any], **more: float) -> None:
        line = {"call": call, "time_remaining": referee.get("time_remaining"),
                "wall_remaining": referee.get("wall_remaining", "absent"), **more}
        with open(os.environ[LOG_VARIABLE], "a", encoding="utf-8") as file:
            file.write(json.dumps(line) + "\n")
