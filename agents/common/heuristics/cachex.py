"""Cachex knowledge: how far each side is from connecting, and captures.

Cachex is Hex on an ``n x n`` rhombus with a capture rule, so the evaluation
is Hex's: for each player, how many more stones it needs to join its two
sides, and the difference between the two counts.  Two measures are offered:

* ``"one"`` (default), the plain shortest path: own stones cost 0, empty
  cells 1, opponent stones block;
* ``"two"``, the *two-distance*: an empty cell is ``d`` away from a side
  when at least **two** of its neighbours are ``d - 1`` away (the cells next
  to the side are 1 away), since the opponent can block any one route; the
  distance is the first level that reaches two cells next to the far side.
  In Hex it is the stronger measure; here, measured in games, it was not
  (greedy agents using it lost 10-30 and 5-35 at n = 5 and 7 to the plain
  one), and it is slower.

In both, a player's connected group of stones (a *chain*) acts as one node:
the empty cells around it are all next to each other through it, and a
chain on a side puts the cells around it next to that side.

Both are computed on bitboards: the engine keeps the board as one integer
(``state.code``, two bits per cell, cell ``r * n + q``), so a player's stones
are one mask and a whole frontier moves one step with six shifts, with no
loop over cells.  That is what makes the search fast enough in plain Python.

The static value, for the player to move::

    weight * (their distance - my distance) + tempo
        + routes * (my routes - their routes)        (each capped at 3)

where a player's *routes* are the cells next to its far side reached at its
distance (the more, the harder to block).  A mover one stone from connecting
gets ``NEAR_WIN`` (it connects next move); a waiting opponent with two such
cells gives ``-NEAR_WIN // 2``.

Captures (a placement completing a diamond removes two opposing stones) cut
routes in a way no distance foresees, so :meth:`CachexHeuristics.evaluate`
also tries the mover's best few captures and keeps the best of standing
pat and capturing (a one-ply capture search; it made a greedy agent win 40
games of 40 against the same agent without it).  ``tactical_actions`` lists
the captures for the quiescence search.

Move ordering puts connecting cells, captures, blocks of the opponent's
connecting cells, the cells that stop the opponent's captures and the cells
on both sides' shortest routes first.  Where the full list is asked for (a
search's root, every MCTS node) the best-scored actions are ranked by their
value one move deep instead, and the MCTS priors are a softmax of those
values.
"""
from __future__ import annotations

import math
import random
from functools import cache
from typing import Any
from collections.abc import Iterator, Sequence

from referee.games.cachex.engine import STEAL, STRIDE, CachexState, diamond_offsets

from .base import Heuristics

#: Value of a position where the mover connects next move (far below ``WIN``).
NEAR_WIN = 20_000
#: The distance of a player who cannot reach its far side at all.
FAR = 64
#: Routes beyond this many add nothing to the evaluation.
ROUTES_CAP = 3


class Geometry:
    """Bit masks of one board size, in the layout of ``CachexState.code``.

    Cell ``(r, q)`` is bit ``2 * (r * n + q)``: the red stones are
    ``code & full`` and the blue ones ``(code >> 1) & full``.
    """

    def __init__(self, n: int):
        self.n = n
        self.row = row = 2 * n
        full = first_col = last_col = first_row = last_row = 0
        #: ``action_of[bit position]``: the engine action placing on that cell.
        self.action_of: dict[int, int] = {}
        #: ``pos_of[action]``: the bit position of that cell.
        self.pos_of: dict[int, int] = {}
        for r in range(n):
            for q in range(n):
                pos = row * r + 2 * q
                bit = 1 << pos
                self.action_of[pos] = r * STRIDE + q
                self.pos_of[r * STRIDE + q] = pos
                full |= bit
                first_col |= bit if q == 0 else 0
                last_col |= bit if q == n - 1 else 0
                first_row |= bit if r == 0 else 0
                last_row |= bit if r == n - 1 else 0
        self.full = full
        self.not_first_col = full ^ first_col
        self.not_last_col = full ^ last_col
        #: ``sides[player]``: (the side it starts from, the far side).
        self.sides = ((first_row, last_row), (first_col, last_col))
        # The diamond rule as shifts: a stone placed on c captures with
        # c + far its own and c + m1, c + m2 the opponent's; ``valid`` holds
        # the cells c for which all four corners are on the board.
        diamonds = []
        for (r1, q1), (r2, q2) in diamond_offsets():
            valid = 0
            for r in range(n):
                for q in range(n):
                    corners = ((r + r1 + r2, q + q1 + q2), (r + r1, q + q1), (r + r2, q + q2))
                    if all(0 <= a < n and 0 <= b < n for a, b in corners):
                        valid |= 1 << (row * r + 2 * q)
            if valid:
                diamonds.append((valid, row * (r1 + r2) + 2 * (q1 + q2), row * r1 + 2 * q1, row * r2 + 2 * q2))
        self.diamonds: tuple[tuple[int, int, int, int], ...] = tuple(diamonds)
        # Hex distance of each cell from the centre, for the steal decision.
        c = (n - 1) / 2
        self.centrality = {
            r * STRIDE + q: max(abs(r - c), abs(q - c), abs((r - c) + (q - c))) for r in range(n) for q in range(n)
        }

    def neighbours(self, cells: int) -> int:
        """Every on-board cell next to one of ``cells`` (``cells`` themselves may be in it)."""
        row = self.row
        left = cells & self.not_first_col  # those that may step to q - 1
        right = cells & self.not_last_col  # those that may step to q + 1
        return (
            (left << (row - 2)) | (left >> 2) | (right << 2) | (right >> (row - 2)) | (cells << row) | (cells >> row)
        ) & self.full

    def masks(self, state: CachexState) -> tuple[int, int, int]:
        """(red stones, blue stones, empty cells) of ``state``."""
        full = self.full
        code = state.code
        red = code & full
        blue = (code >> 1) & full
        return red, blue, full ^ red ^ blue


@cache
def geometry(n: int) -> Geometry:
    """The (shared) masks of the ``n x n`` board."""
    return Geometry(n)


def bits_of(mask: int) -> Iterator[int]:
    """The bit positions set in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def chains(geo: Geometry, own: int, empty: int) -> list[tuple[int, int]]:
    """Each group of a player's stones as ``(its stones, the empty cells around it)``."""
    out = []
    nb = geo.neighbours
    while own:
        group = own & -own
        while True:
            grown = group | (nb(group) & own)
            if grown == group:
                break
            group = grown
        own ^= group
        out.append((group, nb(group) & empty))
    return out


class Levels:
    """How far a player's empty cells are from one of its sides.

    ``reached[d - 1]`` is the mask of the empty cells at most ``d`` away;
    ``goal`` the empty cells next to the other side; ``distance`` the first
    level that reaches enough of them (two for the two-distance, one for
    the plain one; ``FAR`` if none does) and ``routes`` how many it reaches.
    """

    __slots__ = ("reached", "goal", "distance", "routes")

    def __init__(self, reached: list[int], goal: int, distance: int, routes: int):
        self.reached = reached
        self.goal = goal
        self.distance = distance
        self.routes = routes

    def connects_now(self) -> int:
        """The empty cells that join both sides at once (the player wins by any)."""
        return self.reached[0] & self.goal


def levels(geo: Geometry, groups: list[tuple[int, int]], empty: int, start: int, far: int, two: bool) -> Levels:
    """The distance levels of a player with chains ``groups`` from side ``start`` to ``far``."""
    goal = far & empty
    reached = start & empty
    for stones, around in groups:
        if stones & far:
            goal |= around
        if stones & start:
            reached |= around
    out = [reached]
    need = 2 if two else 1
    hits = (reached & goal).bit_count()
    if hits >= need:
        return Levels(out, goal, 1, hits)
    first_hit = 1 if hits else 0
    row = geo.row
    up, not_first, not_last = row - 2, geo.not_first_col, geo.not_last_col
    nb = geo.neighbours
    # A chain matters while some cell around it is still to be reached (so
    # those on the start side, whose cells are all reached, never do).
    active = [around for _, around in groups if around & ~reached]
    d = 1
    while True:
        d += 1
        if two:
            # Count each empty cell's reached neighbours, up to two: ``once``
            # holds the cells with at least one, ``twice`` at least two.
            left = reached & not_first
            right = reached & not_last
            once = twice = 0
            for step in (left << up, left >> 2, right << 2, right >> up, reached << row, reached >> row):
                step &= empty
                twice |= once & step
                once |= step
            for around in active:
                count = (around & reached).bit_count()
                if count >= 2:
                    twice |= around
                elif count:
                    twice |= once & around
                    once |= around
            grown = reached | twice
        else:
            grown = reached | (nb(reached) & empty)
            for around in active:
                if around & reached:
                    grown |= around
        if grown == reached:
            # Stuck.  Reaching the far side by one route only is still a
            # route: count it a little worse than the level that found it.
            return Levels(out, goal, first_hit + 2 if first_hit else FAR, 1 if first_hit else 0)
        reached = grown
        out.append(reached)
        active = [around for around in active if around & ~reached]
        hits = (reached & goal).bit_count()
        if hits >= need:
            return Levels(out, goal, d, hits)
        if hits and not first_hit:
            first_hit = d


def capture_cells(geo: Geometry, own: int, other: int, empty: int) -> dict[int, int]:
    """``{bit position: stones taken}`` for every empty cell where ``own`` captures ``other``."""
    found: dict[int, int] = {}
    for valid, far, m1, m2 in geo.diamonds:
        if far >= 0:
            hit = own >> far
        else:
            hit = own << -far
        if not hit & empty & valid:
            continue
        hit &= (other >> m1 if m1 >= 0 else other << -m1) & (other >> m2 if m2 >= 0 else other << -m2)
        hit &= empty & valid
        for pos in bits_of(hit):
            # Two stones per diamond; diamonds sharing a stone overcount it,
            # which is fine for ordering.
            found[pos] = found.get(pos, 0) + 2
    return found


#: Boards from which Red opens on its own edge (smaller ones are solved by the search).
EDGE_OPENING_FROM = 5


@cache
def _edge_openings(n: int) -> frozenset[int]:
    """Red's first moves under the steal rule: its own edge rows, from the middle to the acute corners.

    A first stone near the centre or an obtuse corner is a gift to a Blue that
    steals it, and the evaluation cannot tell how much of one this early:
    MCTS as Red lost n = 7 games to an agent that always steals after opening
    at (4, 4), (0, 6) and (0, 5), and won them after (0, 2) and (0, 3).
    Stolen, such a stone lands on Blue's own edge column, where it does
    little; kept, it still starts Red's chain. (The acute corners (0, 0) and
    (n - 1, n - 1) themselves are left out: two neighbours, no use to either.)
    """
    middle = (n - 1) // 2
    return frozenset([*range(1, middle + 1), *((n - 1) * STRIDE + q for q in range(n - 1 - middle, n - 1))])


class CachexHeuristics(Heuristics[CachexState, int]):
    """Evaluation, ordering and priors for Cachex (see the module docstring).

    Options: ``distance`` (``"one"`` or ``"two"``); the weights ``weight``,
    ``tempo`` and ``routes``; ``captures`` (captures the evaluation tries,
    0 for none); ``width`` (most actions searched below a search's root, 0
    for all); ``lookahead`` (how many of the full list are ranked one move
    deep, 0 for none); ``value_temperature`` and ``temperature`` (of the MCTS
    priors, in evaluation points and in ordering points when there is no
    lookahead); ``value_scale`` (evaluation points worth about 75 % for
    MCTS); ``edge_opening`` (Red's first move on its own edge, from the
    middle to an acute corner, on boards from 5: :func:`_edge_openings`).
    An unknown option is a ``TypeError``, as is an unknown distance.
    """

    value_scale = 150.0

    def __init__(
        self,
        game: Any = None,
        *,
        distance: str = "one",
        weight: int = 100,
        tempo: int = 30,
        routes: int = 10,
        width: int = 14,
        temperature: float = 6.0,
        value_scale: float = 150.0,
        captures: int = 3,
        lookahead: int = 24,
        value_temperature: float = 40.0,
        edge_opening: bool = True,
    ):
        super().__init__(game)
        if distance not in ("two", "one"):
            raise TypeError(f"distance must be 'two' or 'one', not {distance!r}")
        self.two = distance == "two"
        self.weight = weight
        self.tempo = tempo
        self.routes = routes
        self.width = width
        self.temperature = temperature
        self.value_scale = value_scale
        self.captures = captures
        self.lookahead = lookahead
        self.value_temperature = value_temperature
        #: Red's first move on its own edges (see :func:`_edge_openings`).
        self.edge_opening = edge_opening
        # The scores of the last position ordered, so that MCTS's priors for
        # the same position do not compute them again.
        self._scored_key: Any = None
        self._scored_turn = -1
        self._scored: dict[int, int] = {}
        self._valued_key: Any = None
        self._valued_turn = -1
        self._valued: dict[int, int] = {}

    # -- distances ---------------------------------------------------------------

    def both_levels(self, state: CachexState) -> tuple[Levels, Levels]:
        """The distance levels of (the player to move, the other), each from its start side."""
        geo = geometry(state.n)
        red, blue, empty = geo.masks(state)
        me = state.turn & 1
        stones = (red, blue)
        out = []
        for player in (me, 1 - me):
            start, far = geo.sides[player]
            out.append(levels(geo, chains(geo, stones[player], empty), empty, start, far, self.two))
        return out[0], out[1]

    # -- evaluation --------------------------------------------------------------

    def evaluate(self, state: CachexState) -> int:
        """The static value, or the value after one of the mover's captures if that is better."""
        value = self.static_value(state)
        if not self.captures or state.turn < 2 or value >= NEAR_WIN:
            return value
        geo = geometry(state.n)
        red, blue, empty = geo.masks(state)
        own, other = (red, blue) if state.turn & 1 == 0 else (blue, red)
        found = capture_cells(geo, own, other, empty)
        if not found:
            return value
        action_of = geo.action_of
        me = state.turn & 1
        for pos in sorted(found, key=found.__getitem__, reverse=True)[: self.captures]:
            state.apply(action_of[pos])
            try:
                outcome = state.outcome
                if outcome is None:
                    v = -self.static_value(state)
                elif outcome.winner == me:
                    return NEAR_WIN
                else:
                    v = 0  # a draw by repetition or the action limit
            finally:
                state.undo()
            if v > value:
                value = v
        return value

    def static_value(self, state: CachexState) -> int:
        """The evaluation without looking at captures."""
        mine, theirs = self.both_levels(state)
        if mine.connects_now():
            return NEAR_WIN
        if theirs.connects_now().bit_count() >= 2:
            return -NEAR_WIN // 2
        return (
            self.weight * (theirs.distance - mine.distance)
            + self.tempo
            + self.routes * (min(mine.routes, ROUTES_CAP) - min(theirs.routes, ROUTES_CAP))
        )

    # -- ordering ----------------------------------------------------------------

    def scores(self, state: CachexState) -> dict[int, int]:
        """An ordering score for every legal action (higher first)."""
        key = state.key()
        if key == self._scored_key and state.turn == self._scored_turn:
            return self._scored
        geo = geometry(state.n)
        red, blue, empty = geo.masks(state)
        me = state.turn & 1
        stones = (red, blue)
        own, other = stones[me], stones[1 - me]
        score: dict[int, int] = {}
        # Slack of each empty cell on each player's best routes: its distance
        # from one side plus from the other, minus the player's best such sum.
        win_cells = block_cells = 0
        for player, weight in ((me, 10), (1 - me, 9)):
            start, far = geo.sides[player]
            groups = chains(geo, stones[player], empty)
            there = levels(geo, groups, empty, start, far, self.two).reached
            back = levels(geo, groups, empty, far, start, self.two).reached
            depth: dict[int, int] = {}
            seen = 0
            for d, mask in enumerate(there, 1):
                for pos in bits_of(mask & ~seen):
                    depth[pos] = d
                seen = mask
            best = FAR * 2
            total: dict[int, int] = {}
            seen = 0
            for d, mask in enumerate(back, 1):
                for pos in bits_of(mask & ~seen):
                    if pos in depth:
                        t = depth[pos] + d
                        total[pos] = t
                        if t < best:
                            best = t
                seen = mask
            for pos, t in total.items():
                slack = t - best
                if slack < 3:
                    score[pos] = score.get(pos, 0) + weight * (3 - slack)
            # Cells next to both sides (directly or through a chain) connect.
            if player == me:
                win_cells = there[0] & back[0]
            else:
                block_cells = there[0] & back[0]
        for pos in bits_of(win_cells):
            score[pos] = score.get(pos, 0) + 1000
        for pos in bits_of(block_cells):
            score[pos] = score.get(pos, 0) + 200
        for pos, taken in capture_cells(geo, own, other, empty).items():
            # Captures first (after connecting): they can cut the opponent's
            # route or save the mover's, which the distances cannot see.
            score[pos] = score.get(pos, 0) + 250 + 25 * taken
        for pos, taken in capture_cells(geo, other, own, empty).items():
            # Filling the cell stops the opponent's capture.
            score[pos] = score.get(pos, 0) + 12 * taken
        for pos in bits_of(geo.neighbours(red | blue) & empty):
            score[pos] = score.get(pos, 0) + 1
        pos_of = geo.pos_of
        out = {a: score.get(pos_of[a], 0) for a in state.legal_actions() if a != STEAL}
        if state.turn == 1:
            out[STEAL] = self._steal_score(state, geo)
        self._scored_key, self._scored_turn, self._scored = key, state.turn, out
        return out

    def _steal_score(self, state: CachexState, geo: Geometry) -> int:
        # Stones near the centre are worth taking, as in Hex with the swap
        # rule; the search weighs the steal against the placements.
        red_cell = state.board.index(1)
        return 60 if geo.centrality[red_cell] <= max(1.0, state.n / 4) else 5

    def ordered_actions(
        self, state: CachexState, rng: random.Random | None = None, prune: bool = True
    ) -> list[int]:
        if state.is_over:
            return []
        score = self.scores(state)
        actions = list(score)
        if rng is not None:
            rng.shuffle(actions)
        actions.sort(key=score.__getitem__, reverse=True)
        if state.turn == 0 and self.edge_opening and state.n >= EDGE_OPENING_FROM:
            openings = _edge_openings(state.n)
            actions = [a for a in actions if a in openings]
        if prune:
            if self.width and len(actions) > self.width:
                # Far from both sides' best routes nothing much happens:
                # search the most promising cells only (and always the
                # steal, which the cell scores cannot judge).
                kept = actions[: self.width]
                if state.turn == 1 and STEAL not in kept:
                    kept.append(STEAL)
                actions = kept
            return actions
        if self.lookahead:
            # The whole list is asked for at a search's root and at every
            # MCTS node, where a better order is worth one evaluation per
            # action: the best-scored ones are ranked by their value.
            values = self.action_values(state, actions[: self.lookahead])
            head = sorted(values, key=values.__getitem__, reverse=True)
            actions = head + actions[len(head):]
        return actions

    def action_values(self, state: CachexState, actions: Sequence[int]) -> dict[int, int]:
        """The value of each of ``actions`` one move deep, for the player to move (cached)."""
        key = state.key()
        if key == self._valued_key and state.turn == self._valued_turn:
            return self._valued
        me = state.turn & 1
        values = {}
        for action in actions:
            state.apply(action)
            try:
                outcome = state.outcome
                if outcome is None:
                    values[action] = -self.evaluate(state)
                else:
                    values[action] = (
                        0 if outcome.winner is None else 2 * NEAR_WIN if outcome.winner == me else -2 * NEAR_WIN
                    )
            finally:
                state.undo()
        self._valued_key, self._valued_turn, self._valued = key, state.turn, values
        return values

    def tactical_actions(self, state: CachexState) -> list[int]:
        if state.is_over or state.turn < 2:
            return []
        geo = geometry(state.n)
        red, blue, empty = geo.masks(state)
        me = state.turn & 1
        own, other = (red, blue) if me == 0 else (blue, red)
        caps = capture_cells(geo, own, other, empty)
        order = sorted(caps, key=caps.__getitem__, reverse=True)
        return [geo.action_of[pos] for pos in order[:6]]

    # -- MCTS --------------------------------------------------------------------

    def priors(self, state: CachexState, actions: Sequence[int]) -> list[float]:
        if self.lookahead and state.key() == self._valued_key and state.turn == self._valued_turn:
            # A softmax of the values one move deep; actions not looked at
            # rank below all those that were.
            values = self._valued
            top = max(values.values())
            floor = min(values.values()) - self.weight
            t = self.value_temperature
            weights = [math.exp((max(values.get(a, floor), top - 30 * t) - top) / t) for a in actions]
        else:
            score = self.scores(state)
            top = max((score.get(a, 0) for a in actions), default=0)
            t = self.temperature
            weights = [math.exp((min(score.get(a, 0), top) - top) / t) for a in actions]
        total = sum(weights)
        return [w / total for w in weights]

    def rollout_action(self, state: CachexState, rng: random.Random) -> int:
        return state.random_action(rng)

    def moves_left(self, state: CachexState) -> float:
        geo = geometry(state.n)
        empty = geo.masks(state)[2].bit_count()
        # About as many own moves as the longer of the two connections needs,
        # and a few for the fights on the way.
        mine, theirs = self.both_levels(state)
        need = min(max(mine.distance, theirs.distance), 2 * state.n)
        return max(2.0, min(empty / 2, need + 3.0))
