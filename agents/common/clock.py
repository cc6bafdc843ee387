"""How long to think about one move, from the referee's ``time_remaining``.

The referee's limit is CPU seconds per agent per game, so agents measure
their own thinking with the process CPU clock as well: on a loaded machine
wall time runs ahead of it and would waste budget.
"""
from __future__ import annotations

import time

#: Thinking time per move when the referee sets no time limit.
DEFAULT_MOVE_SECONDS = 0.5


class Deadline:
    """A point on the process CPU clock after which a search should stop."""

    __slots__ = ("start", "end")

    def __init__(self, seconds: float):
        self.start = time.process_time()
        self.end = self.start + max(0.0, seconds)

    def expired(self) -> bool:
        return time.process_time() >= self.end

    def elapsed(self) -> float:
        return time.process_time() - self.start

    def left(self) -> float:
        return self.end - time.process_time()


def move_budget(
    time_remaining: float | None,
    moves_left: float,
    *,
    default: float = DEFAULT_MOVE_SECONDS,
    cap: float | None = None,
) -> float:
    """Seconds of CPU to spend on this move.

    ``moves_left`` is the agent's estimate of its own moves still to come.
    The budget spreads what is left over those moves and two more, after
    holding back a reserve for the calls that are not searches (``turn()``,
    the interpreter's own work) and for estimates that were too low: it never
    spends more than a fixed share of what remains, so the clock decays
    geometrically and cannot reach zero however long the game lasts.
    """
    if time_remaining is None:
        budget = default
    else:
        reserve = min(2.0, 0.1 + 0.05 * time_remaining)
        usable = max(0.0, time_remaining - reserve)
        budget = min(usable / (max(1.0, moves_left) + 2.0), 0.25 * usable)
    if cap is not None:
        budget = min(budget, cap)
    return max(0.0, budget)
