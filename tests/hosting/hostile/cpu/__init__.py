"""CPU spent outside the agent's measured process (play with ``-t 3``).

At the first action each agent forks helpers that burn :data:`BURN` CPU
seconds in a busy loop, and returns at once.  The helpers name their
processes ``helper_name(seed)`` (so a test can look for survivors) and keep
the CPU seconds they have burnt in shared memory; at every action the agent
reports the total, ``{"burnt": seconds}``, which the referee's count of its
time must cover.  Each helper stops on its own after its share, so nothing
burns for ever even when nothing stops it.
"""
from __future__ import annotations

import mmap
import os
import signal
import struct
import time

from ..common import Plays, helper_name, report, set_process_name

#: CPU seconds burnt in all, over the time limit the tests give (3 s).
BURN = 4.0


class Burns(Plays):
    helpers = 1

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        self.shared = mmap.mmap(-1, 8 * self.helpers)  # MAP_SHARED: the helpers' counters

    def burnt(self) -> float:
        return sum(struct.unpack_from("d", self.shared, 8 * i)[0] for i in range(self.helpers))

    def action(self, **referee):
        if self.attacked:
            report(burnt=round(self.burnt(), 3))
        return super().action(**referee)

    def burn(self, slot: int, seconds: float, linger: float = 0.0) -> None:
        """In a helper process: burn ``seconds`` of CPU, counting in ``slot``, then
        sleep ``linger`` seconds; never returns."""
        set_process_name(helper_name(self.seed))
        try:
            used = 0.0
            while used < seconds:
                for _ in range(20000):
                    pass
                used = time.process_time()
                struct.pack_into("d", self.shared, 8 * slot, used)
            time.sleep(linger)
        finally:
            os._exit(0)

    def fork(self, child) -> int:
        """Fork; the child runs ``child()`` and exits, whatever happens."""
        pid = os.fork()
        if pid == 0:
            try:
                child()
            finally:
                os._exit(0)
        return pid


class BurnsInIgnoredChildren(Burns):
    """Children with SIGCHLD ignored: the kernel reaps them as they exit, so their
    CPU never reaches the agent's "children's CPU" (cutime).

    A burst of two children at each of the first :data:`BURSTS` actions,
    each child burning its share and exiting before the agent's next call
    (play against ``victim:SlowVictim``, whose first moves take 0.6 s).
    """

    BURSTS = 6
    helpers = 2 * BURSTS

    def attack(self, **referee):
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        self.bursts = 0
        report(attack="children with SIGCHLD ignored", helpers=self.helpers, burn=BURN)

    def action(self, **referee):
        chosen = super().action(**referee)
        if self.bursts < self.BURSTS:
            for slot in (2 * self.bursts, 2 * self.bursts + 1):
                self.fork(lambda slot=slot: self.burn(slot, BURN / self.helpers))
            self.bursts += 1
        return chosen


class BurnsInADoubleForkedGrandchild(Burns):
    """A grandchild whose parent exits at once: it is no descendant of the agent any more.

    It burns, then stays (asleep) for up to a minute, to be seen if it outlives the game.
    """

    detach = False

    def attack(self, **referee):
        def middle():
            if self.detach:
                os.setsid()
            self.fork(lambda: self.burn(0, BURN, linger=60))

        os.waitpid(self.fork(middle), 0)
        report(attack="double-forked grandchild" + (" in its own session" if self.detach else ""), burn=BURN)


class BurnsInASetsidGrandchild(BurnsInADoubleForkedGrandchild):
    """The same, and in a session of its own: killing the agent's session misses it."""

    detach = True
