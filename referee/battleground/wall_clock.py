"""The server's wall clock for the client's side, as far as the client can tell: what its agent is told as
``wall_remaining``. The server's figure comes with each ``play``; the client takes off the time since the
``play`` came and a margin."""
from __future__ import annotations

import math
import time
from typing import Any

#: Seconds the agent's ``wall_remaining`` keeps below the server's wall clock, besides the time since the ``play``
#: came and the connection's last measured round trip (its WebSocket ping): the server takes off each move at
#: most its own, smaller, estimate of the round trip, and this client's own work around the agent's call (reading
#: the reply, sending the action) is on the server's clock too.
WALL_MARGIN = 0.25
#: A message read within this many seconds of the client's going back to its connection was already waiting: it
#: came while the client handled the one before (the agent's ``turn()``), and the server's clock ran meanwhile.
QUEUED_READ = 0.005


class Arrivals:
    """When the message being handled came and when the client last answered the server (``ready``, ``action``,
    ``failed``): since when the server's clock has run for a ``play``."""

    def __init__(self) -> None:
        #: When the message being handled came, as far as this client can tell (see :data:`QUEUED_READ`).
        self.arrived: float | None = None
        self.answered_at = 0.0
        #: When the client last went back to its connection to read.
        self.idle_since = 0.0

    def connected(self) -> None:
        """A new connection: nothing came on it yet."""
        self.arrived = None
        self.idle_since = time.monotonic()

    def came(self) -> None:
        """A message was read."""
        now = time.monotonic()
        if self.arrived is None or now - self.idle_since > QUEUED_READ:
            self.arrived = now
        # else: it waited while the message before was handled, so it came no later than that one came.

    def handled(self) -> None:
        """The message was handled: the client goes back to its connection."""
        self.idle_since = time.monotonic()

    def answered(self) -> None:
        """An answer went to the server: it asks for nothing more before it has it."""
        self.answered_at = time.monotonic()

    def play_since(self) -> float:
        """Since when the server's clock has run for the ``play`` being handled (this client's monotonic clock)."""
        # The server's figure is as of its sending: its clock has run since the play came (or, for a play that
        # waited behind a turn() call, since that turn came; never before this client's last answer).
        return max(time.monotonic() if self.arrived is None else self.arrived, self.answered_at)


class WallClock:
    """The server's wall clock for one side (``color``: RED or BLUE), as its last ``play`` told it (less the
    margin): seconds left (None: not told yet, or no wall limit), and since when it has been running (None: not
    this side's move)."""

    def __init__(self, color: str):
        self.color = color
        self.left: float | None = None
        self.since: float | None = None

    def started(self, clock: Any, since: float, margin: float) -> None:
        """A ``play`` told this side's wall clock (``clock``: its ``{"RED": s, "BLUE": s}``), which has been
        running since ``since`` (this client's monotonic clock); ``margin``: the seconds kept below it."""
        left = clock.get(self.color) if isinstance(clock, dict) else None
        if isinstance(left, bool) or not isinstance(left, (int, float)) or not math.isfinite(left):
            self.left = self.since = None  # no wall limit on the server (or no figure for this side)
            return
        self.left, self.since = max(0.0, float(left) - margin), since

    def stopped(self) -> None:
        """The action is on its way: the server's clock for this side stands until its next ``play``."""
        self.left = self.remaining()
        self.since = None

    def remaining(self) -> float | None:
        """Seconds left on the server's wall clock for this side, as far as this client can tell (None: unknown)."""
        if self.left is None:
            return None
        running = 0.0 if self.since is None else time.monotonic() - self.since
        return max(0.0, self.left - running)
