"""Coming back to the game in play after the client's connection dropped: within the grace period the server
gives, the wait doubling after each failed attempt."""
from __future__ import annotations

import time
from collections.abc import Callable

#: Reconnecting to a game after the connection dropped: the first wait, doubled after each failed attempt up to
#: the longest (and never past the grace period the server gives: its welcome's ``grace``).
RECONNECT_FIRST_WAIT = 0.25
RECONNECT_LONGEST_WAIT = 4.0


def reconnect_wait(attempt: int) -> float:
    """Seconds to wait before reconnection attempt ``attempt + 1`` (0: the first): doubling, capped."""
    return min(RECONNECT_FIRST_WAIT * 2 ** min(attempt, 16), RECONNECT_LONGEST_WAIT)


class Reconnection:
    """The attempts to reconnect to the server (``server``: its address) since the connection was lost, each
    said in one line (``say``)."""

    def __init__(self, server: str, say: Callable[[str], None]):
        self.server, self.say = server, say
        #: Seconds the server keeps a game for a side that went away (its welcome's ``grace``).
        self.grace = 20.0
        #: When the connection to the game in play was lost (None: connected), and the attempts to reconnect since.
        self.lost_at: float | None = None
        self.attempts = 0

    def welcomed(self, grace: float) -> None:
        """The server's welcome: its grace period, and (when it comes after a lost connection) the attempts end."""
        self.grace = grace
        if self.lost_at is not None:
            self.say(f"reconnected ({self.attempts + 1} attempt{'s' if self.attempts else ''})")
            self.lost_at, self.attempts = None, 0

    def next_wait(self, why: str, game: str) -> float | None:
        """Seconds to wait before the next attempt to reconnect to ``game`` (None: the grace period is over),
        the connection lost or the last attempt failed ``why``. One line when the connection is lost and one a
        failed attempt, each saying when the next is; one when the grace period is over."""
        now = time.monotonic()
        if self.lost_at is None:
            self.lost_at, self.attempts = now, 0
        else:
            self.attempts += 1
        left = self.lost_at + self.grace - now
        if left <= 0:
            self.say(f"could not reconnect to {self.server} within {self.grace:g} s: game lost")
            return None
        # The last attempt comes at the end of the grace period, not after it.
        wait = min(reconnect_wait(self.attempts), left)
        if self.attempts == 0:
            self.say(f"connection lost ({why}): reconnecting to resume {game} (the server keeps it "
                     f"{self.grace:g} s), first attempt in {wait:.2g} s")
        else:
            self.say(f"reconnection attempt {self.attempts} failed ({why}): next in {wait:.2g} s")
        return wait
