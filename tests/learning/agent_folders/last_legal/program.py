from __future__ import annotations

from typing import Any

from referee.agentkit import GameView


class Agent:
    """Plays the last legal action (the engine's order): a choice a test can predict."""

    def __init__(self, color: Any, **referee: Any):
        self.view = GameView(color, referee)

    def action(self, **referee: Any) -> Any:
        return self.view.to_agent(self.view.state.legal_actions()[-1])

    def turn(self, color: Any, action: Any, **referee: Any) -> None:
        self.view.observe(action)
