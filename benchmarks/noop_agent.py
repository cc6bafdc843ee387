"""An agent that does nothing in turn(): for measuring the referee's own round trip."""
from referee.game import HexPos, SpawnAction


class Agent:
    def __init__(self, color, **referee):
        pass

    def action(self, **referee):
        return SpawnAction(HexPos(3, 3))

    def turn(self, color, action, **referee):
        pass
