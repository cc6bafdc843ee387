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
    """A point on the process CPU clock after which a search should stop.

    ``most`` (at least ``seconds``) is how long a search may go on past it
    when the move is still in doubt (:meth:`overdue`); without it, none.
    """

    __slots__ = ("start", "end", "last")

    def __init__(self, seconds: float, most: float | None = None):
        self.start = time.process_time()
        self.end = self.start + max(0.0, seconds)
        self.last = self.end if most is None else max(self.end, self.start + most)

    def expired(self) -> bool:
        return time.process_time() >= self.end

    def overdue(self) -> bool:
        """Past even the extended limit."""
        return time.process_time() >= self.last

    def elapsed(self) -> float:
        return time.process_time() - self.start

    def left(self) -> float:
        return self.end - time.process_time()

    def left_extended(self) -> float:
        """Seconds until :meth:`overdue`."""
        return self.last - time.process_time()


#: The share of the game's time limit a search agent never spends, and its floor in seconds.
MARGIN_SHARE, MARGIN_FLOOR = 0.02, 1.0

#: Budgets stop this share of the margin above it: the last search's overshoot
#: past its deadline and the ``turn()`` calls after it land in the cushion, not
#: in the margin (at -t 10 without it, one game ended 1.3 ms inside the margin).
CUSHION_SHARE = 0.1


def safety_margin(time_limit: float | None) -> float:
    """CPU seconds of a game's ``time_limit`` an agent keeps unspent.

    The larger of 2 % of the limit and 1 s: what a slow call on a loaded
    machine (or a late garbage collection) may cost beyond the search's own
    deadline.  For limits under 2 s the floor would leave nothing to think
    with, so the margin is then half the limit.
    """
    if not time_limit:
        return 0.0
    return min(max(MARGIN_SHARE * time_limit, MARGIN_FLOOR), 0.5 * time_limit)


#: The most of what is left (above the reserve) any one move may take, extended or not.
MOST_SHARE = 0.25


def _usable(time_remaining: float, margin: float) -> float:
    # What a move may draw on: the clock less the margin, its cushion and a reserve.
    reserve = max(margin * (1.0 + CUSHION_SHARE), min(2.0, 0.1 + 0.05 * time_remaining))
    return max(0.0, time_remaining - reserve)


def move_budget(
    time_remaining: float | None,
    moves_left: float,
    *,
    default: float = DEFAULT_MOVE_SECONDS,
    cap: float | None = None,
    margin: float = 0.0,
) -> float:
    """Seconds of CPU to spend on this move.

    ``moves_left`` is the agent's estimate of its own moves still to come.
    The budget spreads what is left over those moves and two more, after
    holding back a reserve for the calls that are not searches (``turn()``,
    the interpreter's own work) and for estimates that were too low: it never
    spends more than a fixed share of what remains, so the clock decays
    geometrically and cannot reach zero however long the game lasts.
    ``margin`` (see :func:`safety_margin`) is never touched: a budget never
    takes the clock below it and its cushion (:data:`CUSHION_SHARE`).
    """
    if time_remaining is None:
        budget = default
    else:
        usable = _usable(time_remaining, margin)
        budget = min(usable / (max(1.0, moves_left) + 2.0), MOST_SHARE * usable)
    if cap is not None:
        budget = min(budget, cap)
    return max(0.0, budget)


def move_extension(
    time_remaining: float | None, budget: float, extend: float, *, cap: float | None = None, margin: float = 0.0
) -> float:
    """The most a move budgeted ``budget`` may take when its search is still in doubt.

    ``extend`` times the budget, but never more than :data:`MOST_SHARE` of
    what :func:`move_budget` could use, so the clock still decays
    geometrically; with no time limit, no extension.
    """
    if time_remaining is None or extend <= 1.0:
        return budget
    most = min(extend * budget, MOST_SHARE * _usable(time_remaining, margin))
    if cap is not None:
        most = min(most, cap)
    return max(budget, most)
