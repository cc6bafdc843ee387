"""An agent that floods its standard output and error, to spend the referee's CPU (issue 46).

Everything an agent prints goes through one pipe that the referee drains,
in its own process: outside every agent's cgroup, so the agent's clock
never sees that CPU, and in a tournament it is taken from the game beside.
At its first action() :class:`Floods` forks :data:`WRITERS` helpers that,
with the agent's own process, write 1 MB blocks to stdout and stderr as
fast as the pipe takes them, and never returns.  It reports
``{"writers": n}`` first (how many helpers it started), then floods.

The referee must stop it on ``output_limit`` after at most its output
limit; without that limit (``REFEREE_OUTPUT_LIMIT=0``) it reads until the
agent's CPU time runs out: gigabytes.  Helpers stop on their own once the
agent's process is gone or after :data:`FLOOD_FOR` seconds, so nothing
floods on if the agent is killed mid-call or plays unsealed.  It writes no
file: ``benchmarks/output_flood.py`` plays it from the checkout.

Options (keyword arguments of every call): ``writers``.

:class:`Chatty` is the honest one: a random player printing the board and a
few lines of thought at every call (about 1 KB), as a student debugging does.
"""
from __future__ import annotations

import os
import time

from ..common import MB, Plays, fork_helpers, report

#: Helpers forked beside the agent's own process.
WRITERS = 6
#: Wall seconds a helper floods at most.
FLOOD_FOR = 60.0
BLOCK = b"flood " * (MB // 6) + b"\n"


def flood(until: float, parent: int | None = None) -> None:
    """Write :data:`BLOCK` to stdout and stderr in turn until ``until`` (or ``parent`` is gone)."""
    fd = 1
    while time.monotonic() < until and (parent is None or os.getppid() == parent):
        try:
            os.write(fd, BLOCK)
        except OSError:
            return  # the pipe's reader is gone
        fd = 3 - fd


class Floods(Plays):
    """Floods stdout and stderr from :data:`WRITERS` helpers and its own process at its first action()."""

    def action(self, **referee):
        wanted = int(referee.get("writers", WRITERS))
        until = time.monotonic() + FLOOD_FOR
        parent = os.getpid()
        go_r, go_w = os.pipe()  # the helpers start when it closes: after the report, which comes first

        def wait_then_flood() -> None:
            os.close(go_w)
            os.read(go_r, 1)
            flood(until, parent)

        started = len(fork_helpers(self.seed, wanted, wait_then_flood))
        report(writers=started, wanted=wanted)
        os.close(go_w)
        os.close(go_r)
        flood(until)
        return self.move()


class Chatty(Plays):
    """Honest: prints the board and a few lines of thought (about 1 KB) in every call, then plays at random."""

    def action(self, **referee):
        self.think_out_loud("action", referee)
        return super().action(**referee)

    def turn(self, color, action, **referee):
        super().turn(color, action, **referee)
        self.think_out_loud(f"turn {color} {action}", referee)

    def think_out_loud(self, call: str, referee: dict) -> None:
        print(f"{call}: {len(self.state.legal_actions())} legal actions, {referee.get('time_remaining')} s left")
        print(self.state.render())
        considered = self.state.legal_actions()[:40]
        print("considering " + ", ".join(self.state.action_to_str(a) for a in considered), flush=True)
