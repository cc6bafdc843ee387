"""Optimal single-player SPREAD search for Part A (A* with admissible bounds).

Only Red moves and every action is a SPREAD.  Blue never moves, so a blue
stack only ever disappears (captured or, at power 6, removed): the set of blue
cells shrinks, and a position is won once it is empty.  Successors come from
the engine's own tables (:data:`SPREAD_TARGETS` and the effect table of a red
token), applied to the engine's 49-byte board encoding.

The lower bounds used by the heuristic are explained, with the reason each
never overestimates, in ``docs/search.md``.
"""
from __future__ import annotations

from dataclasses import dataclass
from heapq import heappop, heappush

from ..games.infexion.engine import BLUE_FLAG, CELLS, SPREAD_BASE, SPREAD_TARGETS
from .bounds import INFINITE, RED_TOKEN_RESULT, SIX, Bounds
from .tables import REACH, TOUCHED


# Stages of a heap entry: h is the quick bound; h is the full bound; the
# children that capture something are done and the others are still due.
FRESH, BOUNDED, QUIET_PENDING = 0, 1, 2


class Unsolvable(Exception):
    """Red cannot take every blue token from this position."""


@dataclass(frozen=True)
class SolveResult:
    """What a search found.

    ``actions`` is a shortest winning sequence (engine action ids), or
    ``None`` when the node limit stopped the search first; ``lower_bound``
    is then the best proven lower bound on the optimum.
    """

    actions: tuple[int, ...] | None
    lower_bound: int
    expanded: int
    generated: int

    @property
    def optimal(self) -> bool:
        return self.actions is not None


def blue_mask(board: bytes) -> int:
    """Mask of the cells holding a blue stack."""
    mask = 0
    for cell, v in enumerate(board):
        if v > BLUE_FLAG:
            mask |= 1 << cell
    return mask


def slack(board: bytes) -> int:
    """Red power + capturable blue power - blue stacks of power 6.

    Every SPREAD keeps this unchanged except one that lands on a red stack of
    power 6, which costs 7 (docs/search.md); once no blue is left it equals
    Red's power, so a position with a negative slack can never be won.
    """
    total = 0
    for v in board:
        if v == 0:
            continue
        p = v & 7
        if v < BLUE_FLAG:
            total += p
        elif p == SIX:
            total -= 1
        else:
            total += p
    return total


def apply_spread(board: bytes, action: int) -> bytes:
    """The board after Red's SPREAD ``action`` (unchecked: the source must be red)."""
    source = (action - SPREAD_BASE) // 6
    nb = bytearray(board)
    k = nb[source]
    nb[source] = 0
    for t in SPREAD_TARGETS[action * 8 + k]:
        nb[t] = RED_TOKEN_RESULT[nb[t]]
    return bytes(nb)


def solve(board: bytes, max_expanded: int | None = None) -> SolveResult:
    """A shortest sequence of Red SPREADs that leaves no blue token.

    ``board`` is the engine's 49-byte encoding.  Raises :class:`Unsolvable`
    when no sequence exists.  With ``max_expanded``, gives up after that many
    expansions and reports the best lower bound proven so far.
    """
    # One function on purpose: the search's inner loop keeps its state in locals; split into helpers it
    # would pay a call per expansion in its hottest loop (its speed: benchmarks/partA.py).
    start = bytes(board)
    blue0 = blue_mask(start)
    if not blue0:
        return SolveResult((), 0, 0, 0)
    if slack(start) < 0:
        raise Unsolvable(
            "Red can never take every blue token: each blue stack of power 6 costs "
            "a red token, and Red has fewer tokens than that even after capturing the rest"
        )
    bounds = Bounds()
    full = bounds.full
    independent = bounds.independent
    independent_known = bounds.independent_cache.get
    reach_table = REACH
    result = RED_TOKEN_RESULT
    targets_of = SPREAD_TARGETS
    touched = TOUCHED

    red0 = [c for c in range(CELLS) if 0 < start[c] < BLUE_FLAG]
    h0 = full(start, blue0, red0)
    if h0 >= INFINITE:
        raise Unsolvable("Red can never take every blue token (not even with tokens placed freely)")
    # best[key] = (g, parent key, action): the cheapest known way in.
    best: dict[bytes, tuple[int, bytes | None, int]] = {start: (0, None, -1)}
    # Heap entries: (f, -g, board, blue mask, h, stage).
    heap: list[tuple[int, int, bytes, int, int, int]] = [(h0, 0, start, blue0, h0, BOUNDED)]
    expanded = generated = 0
    lower = h0

    def path_to(key: bytes, last: int) -> tuple[int, ...]:
        actions = [last]
        g, parent, action = best[key]
        while parent is not None:
            actions.append(action)
            g, parent, action = best[parent]
        actions.reverse()
        return tuple(actions)

    while heap:
        f, neg_g, b, blue, h, stage = heappop(heap)
        g = -neg_g
        if best[b][0] < g:
            continue  # a cheaper way here was found after this entry
        if f > lower:
            lower = f
        red_cells = [c for c in range(CELLS) if 0 < b[c] < BLUE_FLAG]
        if stage == FRESH:
            hf = full(b, blue, red_cells)
            if hf >= INFINITE:
                continue  # even the relaxation cannot win from here
            if hf > h:
                heappush(heap, (g + hf, neg_g, b, blue, hf, BOUNDED))
                continue
        if max_expanded is not None and expanded >= max_expanded:
            return SolveResult(None, lower, expanded, generated)
        expanded += 1
        # A SPREAD that touches no blue cell leaves the blue set as it is, so
        # that child still needs independent(blue) more SPREADs.  When that
        # already exceeds this f, such children are generated only if the
        # search ever reaches their f (partial expansion: same order, fewer
        # children built).
        if stage == QUIET_PENDING:
            want_hits, want_quiet = False, True
        else:
            quiet_f = g + 1 + max(bounds.independent(blue), h - 1)
            want_hits = True
            want_quiet = quiet_f <= f
            if not want_quiet:
                heappush(heap, (quiet_f, neg_g, b, blue, h, QUIET_PENDING))
        ng = g + 1
        hp = h - 1  # pathmax: a child needs at least one SPREAD fewer
        # What each stack reaches, and for each stack what all the others
        # reach: a child's reach is then that of the stacks the SPREAD left
        # alone plus the stacks on its targets.  (A target that was a red
        # stack keeps its old reach in this union; its new, higher power
        # reaches at least as far, and a red 6 that vanished only makes the
        # union too big, which can only weaken the bound.)
        parts = [reach_table[c * 8 + b[c]] for c in red_cells]
        after = [0] * (len(parts) + 1)
        for i in range(len(parts) - 1, -1, -1):
            after[i] = after[i + 1] | parts[i]
        before = 0
        for i, src in enumerate(red_cells):
            others = before | after[i + 1]
            before |= parts[i]
            k = b[src]
            base = (SPREAD_BASE + src * 6) * 8 + k
            for idx in range(base, base + 48, 8):
                hits = blue & touched[idx]
                if hits:
                    if not want_hits:
                        continue
                elif not want_quiet:
                    continue
                nb = bytearray(b)
                nb[src] = 0
                loses_six = False
                reach = others
                for t in targets_of[idx]:
                    v = nb[t]
                    if v == SIX:
                        loses_six = True
                    nv = nb[t] = result[v]
                    if 0 < nv < BLUE_FLAG:
                        reach |= reach_table[t * 8 + nv]
                key = bytes(nb)
                generated += 1
                if loses_six and slack(key) < 0:
                    continue  # a red 6 overflowed and Red can no longer win
                nblue = blue ^ hits
                action = idx // 8
                if not nblue:
                    best[key] = (ng, b, action)
                    return SolveResult(path_to(b, action), ng, expanded, generated)
                old = best.get(key)
                if old is not None and old[0] <= ng:
                    continue
                hc = independent_known(nblue)
                if hc is None:
                    hc = independent(nblue)
                unreached = nblue & ~reach
                if unreached:
                    h2 = independent_known(unreached)
                    if h2 is None:
                        h2 = independent(unreached)
                    if h2 >= hc:
                        hc = h2 + 1
                if hc < hp:
                    hc = hp
                best[key] = (ng, b, action)
                heappush(heap, (ng + hc, -ng, key, nblue, hc, FRESH))
    raise Unsolvable("Red runs out of moves before taking every blue token")


def beam_search(board: bytes, width: int = 2000, max_depth: int = 60) -> tuple[int, ...] | None:
    """A short (not necessarily shortest) winning sequence, or None.

    Breadth-first, keeping only the ``width`` positions with the smallest
    lower bound at each depth: an upper bound for boards the exact search
    gives up on.
    """
    start = bytes(board)
    if not blue_mask(start):
        return ()
    bounds = Bounds()
    layer: dict[bytes, tuple[int, ...]] = {start: ()}
    seen = {start}
    for _ in range(max_depth):
        scored = []
        for position, path in layer.items():
            blue = blue_mask(position)
            for src in [c for c in range(CELLS) if 0 < position[c] < BLUE_FLAG]:
                for action in range(SPREAD_BASE + src * 6, SPREAD_BASE + src * 6 + 6):
                    child = apply_spread(position, action)
                    if child in seen:
                        continue
                    seen.add(child)
                    if slack(child) < 0:
                        continue
                    child_blue = blue & ~TOUCHED[action * 8 + position[src]]
                    if not child_blue:
                        return path + (action,)
                    red = [c for c in range(CELLS) if 0 < child[c] < BLUE_FLAG]
                    if not red:
                        continue
                    score = (bounds.quick(child, child_blue, red), bin(child_blue).count("1"), child)
                    scored.append((score, child, path + (action,)))
        if not scored:
            return None
        scored.sort(key=lambda item: item[0])
        layer = {child: path for _, child, path in scored[:width]}
    return None
