"""How long to think about one move, from the referee's ``time_remaining`` (and ``wall_remaining``).

The referee's limit is CPU seconds per agent per game, so agents measure
their own thinking with the process CPU clock as well: on a loaded machine
wall time runs ahead of it and would waste budget.  On the battleground the
server also keeps a wall clock per side (``wall_remaining``): there an agent
budgets from the smaller of the two clocks (:func:`clock_remaining`) and its
deadline is on whichever clock runs faster (``Deadline(..., wall=True)``),
since a side loses when either clock runs out.
"""
from __future__ import annotations

import time

#: Thinking time per move when the referee sets no time limit.
DEFAULT_MOVE_SECONDS = 0.5


class Deadline:
    """A point on the process CPU clock after which a search should stop.

    ``most`` (at least ``seconds``) is how long a search may go on past it
    when the move is still in doubt (:meth:`overdue`); without it, none.
    With ``wall``, the seconds are counted on the wall clock as well, and the
    deadline comes when either has run them: for a budget taken from the
    battleground's wall clock, which a loaded machine runs ahead of the CPU's.
    """

    __slots__ = ("start", "end", "last", "wall_start")

    def __init__(self, seconds: float, most: float | None = None, *, wall: bool = False):
        self.start = time.process_time()
        self.end = self.start + max(0.0, seconds)
        self.last = self.end if most is None else max(self.end, self.start + most)
        self.wall_start = time.monotonic() if wall else None

    @property
    def on_wall(self) -> bool:
        """Whether the wall clock counts too (a deadline derived from this one should count it as well)."""
        return self.wall_start is not None

    def _now(self) -> float:
        # A point on the CPU clock's scale: as far past the start as the faster of the two clocks has gone.
        cpu = time.process_time()
        if self.wall_start is None:
            return cpu
        return max(cpu, self.start + (time.monotonic() - self.wall_start))

    def expired(self) -> bool:
        return self._now() >= self.end

    def overdue(self) -> bool:
        """Past even the extended limit."""
        return self._now() >= self.last

    def elapsed(self) -> float:
        return self._now() - self.start

    def left(self) -> float:
        return self.end - self._now()

    def left_extended(self) -> float:
        """Seconds until :meth:`overdue`."""
        return self.last - self._now()


def clock_remaining(time_remaining: float | None, wall_remaining: float | None = None) -> float | None:
    """The seconds a move is budgeted from: the smaller of the referee's two clocks, or the one given.

    ``time_remaining`` is the agent's CPU time left; ``wall_remaining`` the
    battleground server's wall clock for it (None in a local game, which has
    none).  The wall clock is 1.25 times the CPU limit, but on a loaded machine
    the agent's wall time runs ahead of its CPU time, and a side loses on
    whichever clock runs out first.  None: neither clock is limited.
    """
    if wall_remaining is None:
        return time_remaining
    if time_remaining is None:
        return wall_remaining
    return min(time_remaining, wall_remaining)


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
