"""Admissible lower bounds on the number of SPREADs a Part A position needs.

Each bound is a relaxation: a problem that every real solution also solves,
so its optimum can only be smaller.  ``docs/search.md`` gives the argument
for each one.  All of them are cached on what they depend on, because a
search meets the same blue set (and the same multiset of stack powers) again
and again.
"""
from __future__ import annotations

from functools import cache

from ..games.base import RED
from ..games.infexion.engine import BLUE_FLAG, EFFECTS, MAX_CELL_POWER
from .tables import COLLINEAR, LINES_BY_ORIENTATION, NEAR_REACH, REACH

#: What one red token turns a cell of each value into (the engine's table).
RED_TOKEN_RESULT: bytes = EFFECTS[RED][0]

SIX = MAX_CELL_POWER

#: Cell values of red stacks of power 1..6, then of blue ones.
STACK_VALUES = tuple(range(1, SIX + 1)) + tuple(range(BLUE_FLAG + 1, BLUE_FLAG + SIX + 1))

#: A bound meaning "cannot be won from here".
INFINITE = 1 << 20


def line_ceiling(mask: int) -> int:
    """An upper bound on the largest independent set in ``mask``: the fewest
    lines of one orientation holding every cell (independent cells sit on
    distinct lines of every orientation)."""
    best = 7
    for lines in LINES_BY_ORIENTATION:
        used = 0
        for line in lines:
            if line & mask:
                used += 1
        if used < best:
            best = used
    return best


class Bounds:
    """The lower bounds for one search, with their caches."""

    def __init__(self, counting_budget: int = 1000) -> None:
        self.independent_cache: dict[int, int] = {}
        self._counting: dict[tuple[int, ...], int] = {}
        self._greedy: dict[tuple[int, ...], int] = {}
        self._game = CountingGame()
        self.counting_budget = counting_budget

    # -- one SPREAD per independent blue cell ---------------------------------

    def independent(self, mask: int) -> int:
        """Size of the largest set of cells in ``mask`` no two on a common line.

        A SPREAD touches cells of one line only, so each cell of such a set
        needs a SPREAD of its own.
        """
        cache = self.independent_cache
        known = cache.get(mask)
        if known is not None:
            return known
        low = mask & -mask
        rest = mask ^ low
        if not rest:
            cache[mask] = 1
            return 1
        without_neighbours = rest & ~COLLINEAR[low.bit_length() - 1]
        best = 1 + self.independent(without_neighbours) if without_neighbours else 1
        if without_neighbours != rest and best < line_ceiling(rest):
            # Leaving this cell out can only pay if the rest could do better.
            other = self.independent(rest)
            if other > best:
                best = other
        cache[mask] = best
        return best

    # -- bounds that also look at the red stacks ------------------------------

    def quick(self, board: bytes, blue: int, red_cells: list[int]) -> int:
        """Cheap bound: the larger of the independent blue cells, and one more
        than the independent blue cells no red stack can touch yet (none of
        those can be taken by the next SPREAD).

        The solver computes the same bound inline, incrementally, for every
        position it generates; this is the plain version.
        """
        return self._reach_bounds(board, blue, red_cells, second_step=False)

    def full(self, board: bytes, blue: int, red_cells: list[int]) -> int:
        """Stronger bound, computed only for positions about to be expanded.

        Adds: two more than the independent blue cells that no single SPREAD
        can even bring into reach; one more than the independent blue cells
        when captures alone cannot take them; and the counting relaxation.
        """
        h = self._reach_bounds(board, blue, red_cells, second_step=True)
        counted = self.counting(board, h)
        return counted if counted > h else h

    def _reach_bounds(self, board: bytes, blue: int, red_cells: list[int], second_step: bool) -> int:
        h = self.independent(blue)
        reach = 0
        for c in red_cells:
            reach |= REACH[c * 8 + board[c]]
        unreached = blue & ~reach
        if not unreached:
            return h
        h2 = 1 + self.independent(unreached)
        if h2 > h:
            h = h2
        if not second_step:
            return h
        # Cells some stack could touch after one SPREAD.  A token that lands
        # on t leaves a stack of power RED_TOKEN_RESULT[board[t]] there; on an
        # empty cell that is power 1, which NEAR_REACH covers in one step.
        reach2 = reach
        occupied = blue
        for c in red_cells:
            occupied |= 1 << c
        result = RED_TOKEN_RESULT
        for c in red_cells:
            i = c * 8 + board[c]
            reach2 |= NEAR_REACH[i]
            landed = REACH[i] & occupied
            while landed:
                low = landed & -landed
                t = low.bit_length() - 1
                landed ^= low
                nv = result[board[t]]
                if 0 < nv < BLUE_FLAG:
                    reach2 |= REACH[t * 8 + nv]
        late = unreached & ~reach2
        if late:
            h3 = 2 + self.independent(late)
            if h3 > h:
                h = h3
        most = self.independent(blue)
        if h <= most and self._needs_a_helper(board, blue, unreached, red_cells, most):
            h = most + 1
        return h

    def _needs_a_helper(self, board: bytes, blue: int, unreached: int, red_cells: list[int], most: int) -> bool:
        """Whether some largest independent set I of blue cells has a cell no
        stack reaches now while no stack of power 2 or more reaches any of I.

        Then the SPREADs cannot all be captures of I's cells (docs/search.md,
        bound 5), so at least ``most + 1`` are needed.
        """
        strong_reach = 0
        for c in red_cells:
            if board[c] >= 2:
                strong_reach |= REACH[c * 8 + board[c]]
        candidates = blue & ~strong_reach
        if self.independent(candidates) < most:
            return False
        pool = unreached & candidates
        while pool:
            low = pool & -pool
            pool ^= low
            rest = candidates & ~low & ~COLLINEAR[low.bit_length() - 1]
            if 1 + (self.independent(rest) if rest else 0) == most:
                return True
        return False

    # -- the counting relaxation ---------------------------------------------

    def counting(self, board: bytes, known_bound: int = 0) -> int:
        """Moves needed when tokens may go anywhere (see :func:`counting_value`).

        Depends only on how many red and blue stacks of each power there are.
        Returns 0 without searching when a quick greedy play of the relaxation
        already shows it cannot beat ``known_bound``.
        """
        key = tuple(map(board.count, STACK_VALUES))
        known = self._counting.get(key)
        if known is None:
            greedy = self._greedy.get(key)
            if greedy is None:
                greedy = self._greedy[key] = counting_greedy(key)
            if greedy <= known_bound:
                return 0
            known = self._game.value(key, self.counting_budget)
            self._counting[key] = known
        return known


@cache
def _bounded_vectors(limits: tuple[int, ...], total: int) -> tuple[tuple[int, ...], ...]:
    """Every vector ``v`` with ``0 <= v[i] <= limits[i]`` and ``sum(v) <= total``."""
    if not limits:
        return ((),)
    out = []
    for first in range(min(limits[0], total) + 1):
        for rest in _bounded_vectors(limits[1:], total - first):
            out.append((first,) + rest)
    return tuple(out)


def _counting_moves(state: tuple[int, ...]) -> set[tuple[int, ...]]:
    # state[p - 1]: red stacks of power p; state[6 + p - 1]: blue stacks of power p.
    red, blue = state[:6], state[6:]
    out = set()
    for k in range(1, SIX + 1):
        if not red[k - 1]:
            continue
        rest_red = list(red)
        rest_red[k - 1] -= 1
        raise_limits: dict[int, tuple[int, ...]] = {}
        for hits in _bounded_vectors(tuple(min(n, k) for n in blue), k):
            spare = k - sum(hits)
            new_blue = tuple(b - h for b, h in zip(blue, hits))
            captured = list(rest_red)
            for p in range(SIX - 1):  # a captured blue p becomes red p + 1
                captured[p + 1] += hits[p]
            limits = raise_limits.get(spare)
            if limits is None:
                limits = raise_limits[spare] = tuple(min(n, spare) for n in rest_red)
            for raised in _bounded_vectors(limits, spare):
                new_red = captured[:]
                moved = 0
                for p in range(SIX):
                    r = raised[p]
                    if r:
                        moved += r
                        new_red[p] -= r  # raised stacks were among rest_red
                        if p + 1 < SIX:  # a raised 6 vanishes with the token
                            new_red[p + 1] += r
                new_red[0] += spare - moved  # tokens on empty cells
                out.add(tuple(new_red) + new_blue)
    return out


def counting_greedy(state: tuple[int, ...]) -> int:
    """Length of one simple play of the counting relaxation (an upper bound
    on :func:`counting_value`): always spread the biggest red stack onto the
    strongest blue stacks, spare tokens onto empty cells."""
    red, blue = list(state[:6]), list(state[6:])
    moves = 0
    while any(blue):
        k = next((p for p in range(SIX, 0, -1) if red[p - 1]), 0)
        if not k or moves > 49:
            return INFINITE
        red[k - 1] -= 1
        moves += 1
        spare = k
        for p in range(SIX, 0, -1):
            while spare and blue[p - 1]:
                blue[p - 1] -= 1
                spare -= 1
                if p < SIX:
                    red[p] += 1
        red[0] += spare
    return moves


class CountingGame:
    """The counting relaxation (bound 4 in docs/search.md), solved with memory.

    A move takes one red stack of power k and puts its k tokens on any k
    distinct stacks or empty cells, each with the real effect of a token;
    where the cells are is forgotten.  Every real SPREAD is such a move, so
    the fewest moves to take every blue stack here never exceeds the real
    optimum.  A position is the number of red stacks of power 1..6 then of
    blue stacks of power 1..6.

    Iterative deepening: ``_within(p, n)`` asks whether n moves can win from
    p.  Every failed question raises ``lower[p]`` to n + 1, a proved lower
    bound kept for later queries: the positions met while following one
    search overlap heavily, so later queries are mostly answered from it.
    """

    def __init__(self) -> None:
        self.lower: dict[tuple[int, ...], int] = {}
        self.exact: dict[tuple[int, ...], int] = {}
        self._moves: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
        self._cached = 0  # positions held in those successor lists
        self._work = 0

    def value(self, position: tuple[int, ...], budget: int) -> int:
        """The exact value, or the best lower bound proved within ``budget``
        position visits; ``INFINITE`` when the relaxation cannot be won."""
        known = self.exact.get(position)
        if known is not None:
            return known
        if not any(position[6:]):
            return 0
        red_power = sum(p * n for p, n in enumerate(position[:6], start=1))
        capturable = sum(p * n for p, n in enumerate(position[6:11], start=1))
        if red_power == 0 or red_power + capturable < position[11]:
            # No token to move, or too few for the blue 6s (bound 6).  Short
            # of that the relaxation can always win: take the other blue
            # stacks one per move, then drop a token on each blue 6.  So the
            # deepening below ends.
            self.exact[position] = INFINITE
            return INFINITE
        self._work = 0
        bound = self.lower.get(position, 1)
        while True:
            try:
                if self._within(position, bound, budget):
                    self.exact[position] = bound
                    return bound
            except _OutOfBudget:
                return self.lower.get(position, 1)
            bound = self.lower[position]

    def _within(self, position: tuple[int, ...], moves: int, budget: int) -> bool:
        if self.lower.get(position, 1) > moves:
            return False
        self._work += 1
        if self._work > budget:
            raise _OutOfBudget
        following = self._moves.get(position)
        if following is None:
            following = sorted(_counting_moves(position), key=_blue_left)
            if self._cached + len(following) <= MOVE_CACHE_SIZE:
                self._moves[position] = following
                self._cached += len(following)
        for nxt in following:
            if not any(nxt[6:]):
                return True
            if moves > 1 and self._within(nxt, moves - 1, budget):
                return True
        self.lower[position] = moves + 1
        return False


class _OutOfBudget(Exception):
    pass


#: Successor positions kept in the move cache, in all (about 150 bytes each).
MOVE_CACHE_SIZE = 300_000


def _blue_left(position: tuple[int, ...]) -> int:
    return sum(position[6:])


def counting_value(state: tuple[int, ...], budget: int) -> int:
    """Fewest moves to take every blue stack in the counting relaxation
    (see :class:`CountingGame`); a lower bound when ``budget`` runs out."""
    return CountingGame().value(state, budget)
