from __future__ import annotations

import random
from typing import Any

from referee.agentkit import GameView


class Agent:
    """Plays a uniformly random legal action; works for every game."""

    def __init__(self, color: Any, **referee: Any):
        self.view = GameView(color, referee)
        seed = referee.get("seed")
        # Mix the colour in so two seeded random agents do not mirror each other.
        self.rng = random.Random(None if seed is None else f"{seed}:{self.view.me}")

    def action(self, **referee: Any) -> Any:
        return self.view.to_agent(self.rng.choice(self.view.state.legal_actions()))

    def turn(self, color: Any, action: Any, **referee: Any) -> None:
        self.view.observe(action)
