"""The opponents of the hostile agents: harmless legal random players.

The victim names its process after the game's seed (``victim_name``), so an
attacker can tell its own opponent from another game's agent, and keeps a
secret in its memory for an attacker to look for.
"""
from __future__ import annotations

import time

from ..common import Plays, set_process_name, victim_name


class Victim(Plays):
    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        set_process_name(victim_name(self.seed))
        # Built at run time: these bytes exist only in this process's memory.
        self.secret = f"victim-secret-{self.seed or 0:d}"


class SlowVictim(Victim):
    """A victim that thinks (sleeps) for :data:`PAUSE` seconds in each of its first
    :data:`SLOW_MOVES` actions: long stretches in which the attacker is between calls.
    Those moves are SPAWNs only, so the victim captures nothing: the attacker
    survives them however it plays, and the stretches happen."""

    SLOW_MOVES = 6
    PAUSE = 0.6

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        self.moves = 0

    def action(self, **referee):
        self.moves += 1
        if self.moves <= self.SLOW_MOVES:
            time.sleep(self.PAUSE)
            return self.move_peacefully()
        return super().action(**referee)
