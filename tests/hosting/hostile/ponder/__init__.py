"""Pondering: thinking on the opponent's time.

Play against ``victim:SlowVictim``, whose first moves take 0.6 s each.
"""
from __future__ import annotations

import bisect
import threading
import time

from ..common import Plays, report

#: Time cut off each end of a stretch between calls before looking at it:
#: the moments the referee takes to stop the agent after a reply and to
#: start it before a call are not the stretch's middle.
MARGIN = 0.1
#: Stretches whose middle (after the margins) is shorter than this are not reported.
LONG = 0.15
#: The thread stops after this many actions (the slow moves are over by then).
ACTIONS = 12


class PondersBetweenCalls(Plays):
    """A thread works (counts) all the time; the agent measures how much it did
    between its calls.

    The thread notes the time after every unit of work (2000 increments).
    At the start of each call the agent looks at the stretch since its last
    call returned and reports, for a long one, how many units the thread
    finished in its middle (``MARGIN`` cut off each end):
    ``{"gap": seconds, "middle": seconds, "work": units}``.  An agent frozen
    between calls does no work there at all.
    """

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        self.stamps: list[float] = []
        self.stop = False
        self.last_return: float | None = None
        self.actions = 0
        threading.Thread(target=self.ponder, daemon=True).start()

    def ponder(self):
        while not self.stop:
            count = 0
            for _ in range(2000):
                count += 1
            self.stamps.append(time.monotonic())

    def look_back(self):
        now = time.monotonic()
        if self.last_return is None or self.stop:
            return
        start, end = self.last_return + MARGIN, now - MARGIN
        if end - start >= LONG:
            stamps = self.stamps
            work = bisect.bisect_left(stamps, end) - bisect.bisect_right(stamps, start)
            report(gap=round(now - self.last_return, 3), middle=round(end - start, 3), work=work)

    def action(self, **referee):
        self.look_back()
        self.actions += 1
        if self.actions >= ACTIONS and not self.stop:
            self.stop = True
            report(total_work=len(self.stamps))
        try:
            if not self.stop:
                # Nothing captured before the victim's slow moves are over: a
                # game that ended on move 3 would leave no stretches to judge.
                return self.move_peacefully()
            return super().action(**referee)
        finally:
            self.last_return = time.monotonic()

    def turn(self, color, action, **referee):
        self.look_back()
        try:
            super().turn(color, action, **referee)
        finally:
            self.last_return = time.monotonic()
