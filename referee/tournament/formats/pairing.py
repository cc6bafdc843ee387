"""Swiss pairing and ladder (adaptive) selection: pure functions, no I/O.

Swiss (Dutch style), one round at a time:

* agents are ranked by score (then by their order in the field) and grouped
  by score; inside a group the top half meets the bottom half (1st of the
  top half against 1st of the bottom half, ...); an agent left over floats
  down and meets the best of the next group;
* two agents who already met are not paired again while any other pairing
  avoids it: the search backtracks (within a step budget, after which it
  allows rematches rather than hang; ``Round.rematches`` counts them);
* two agents due the same colour (both already one Red up, or both one Blue
  up) are not paired while another rematch-free pairing avoids it, so the
  colour balance stays within 1 where the field allows (else within 2); inside
  a score group such a clash is tried last; the agent due Red (fewer Reds so
  far, then Blue last time, then the higher ranked) plays Red;
* an odd field gives a bye to the lowest-ranked agent that has not had one
  (while any has not).  The bye scores ``BYE_SCORE`` = a draw: the bye goes to
  the weakest-looking agent, which would most likely have lost, so the chess
  convention of a full point would lift it above its level and distort the
  ranking more than half a point does.

Tie-breaks: Buchholz (sum of the opponents' scores) and Sonneborn-Berger
(sum of each opponent's score weighted by the points taken from it).

Ladder: ``ladder_pairs`` picks a batch of the most informative pairings from
current ratings and their uncertainty, each agent at most once per batch.
"""
from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

BYE_SCORE = 0.5  # fraction of the round's points; see the module docstring
SEARCH_BUDGET = 20_000  # backtracking steps before rematches are allowed


@dataclass(frozen=True)
class Round:
    """One round's pairings: ``pairs`` as (red, blue), the bye (or None) and how many rematches it had to make."""

    pairs: tuple[tuple[str, str], ...]
    bye: str | None
    rematches: int = 0


def default_rounds(agents: int) -> int:
    """⌈log2 n⌉ + 2 rounds, never more than a round robin's (n - 1; n for an odd field, a bye each round)."""
    if agents < 2:
        return 0
    return min(math.ceil(math.log2(agents)) + 2, agents - 1 if agents % 2 == 0 else agents)


def _due_red(a: str, b: str, colours: Mapping[str, str]) -> bool:
    """Whether ``a`` (the higher ranked of the two) is due Red rather than ``b``."""
    ha, hb = colours.get(a, ""), colours.get(b, "")
    da, db = ha.count("R") - ha.count("B"), hb.count("R") - hb.count("B")
    if da != db:
        return da < db
    if ha and hb and ha[-1] != hb[-1]:
        return ha[-1] == "B"
    return True


def _imbalance(agent: str, colours: Mapping[str, str]) -> int:
    history = colours.get(agent, "")
    return history.count("R") - history.count("B")


def _clash(a: str, b: str, colours: Mapping[str, str]) -> bool:
    """Both agents are due the same colour (one of them would move two away from balance)."""
    ia, ib = _imbalance(a, colours), _imbalance(b, colours)
    return (ia > 0 and ib > 0) or (ia < 0 and ib < 0)


def _candidates(ranked: list[str], scores: Mapping[str, float], colours: Mapping[str, str]) -> list[int]:
    """Indices (in ``ranked``) of the opponents for ``ranked[0]``, most wanted first."""
    top = ranked[0]
    size = 1
    while size < len(ranked) and scores.get(ranked[size], 0.0) == scores.get(top, 0.0):
        size += 1
    # Top half against bottom half: the group's 1st meets its (size//2)-th, then the
    # next ones below, then the rest of the top half; the lower groups come last.
    half = size // 2
    group = list(range(max(half, 1), size)) + list(range(half - 1, 0, -1))
    group.sort(key=lambda i: _clash(top, ranked[i], colours))  # stable: keeps the Dutch order
    return group + list(range(size, len(ranked)))


def _search(ranked: list[str], scores: Mapping[str, float], colours: Mapping[str, str],
            met: Collection[frozenset[str]], strict: bool, budget: list[int]) -> list[tuple[str, str]] | None:
    """Pairs for all of ``ranked`` with no rematch (and, if ``strict``, no colour clash), or None.

    None also when the budget runs out.
    """
    if not ranked:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    top = ranked[0]
    for i in _candidates(ranked, scores, colours):
        other = ranked[i]
        if frozenset((top, other)) in met or (strict and _clash(top, other, colours)):
            continue
        rest = _search(ranked[1:i] + ranked[i + 1:], scores, colours, met, strict, budget)
        if rest is not None:
            return [(top, other), *rest]
        if budget[0] < 0:
            return None
    return None


def _greedy(ranked: list[str], scores: Mapping[str, float], colours: Mapping[str, str],
            met: Collection[frozenset[str]]) -> list[tuple[str, str]]:
    """The fallback: each top agent takes its first-choice opponent it has not met, else its first choice."""
    pairs = []
    while ranked:
        order = _candidates(ranked, scores, colours)
        fresh = [i for i in order if frozenset((ranked[0], ranked[i])) not in met]
        i = (fresh or order)[0]
        pairs.append((ranked[0], ranked[i]))
        ranked = ranked[1:i] + ranked[i + 1:]
    return pairs


def pair_round(agents: Sequence[str], scores: Mapping[str, float], met: Collection[frozenset[str]],
               colours: Mapping[str, str], byes: Collection[str] = ()) -> Round:
    """Pair one Swiss round.

    ``scores``: points so far (missing = 0); ``met``: the pairs already played;
    ``colours``: each agent's colours so far as a string of ``R``/``B``;
    ``byes``: the agents that have had a bye.  Ties in score keep the order of ``agents``.
    """
    position = {name: i for i, name in enumerate(agents)}
    ranked = sorted(agents, key=lambda name: (-scores.get(name, 0.0), position[name]))
    met = set(met)
    options: list[str | None] = [None]
    if len(ranked) % 2:
        # Lowest ranked without a bye first; agents that had one only when all have.
        options = [a for a in reversed(ranked) if a not in byes]
        options += [a for a in reversed(ranked) if a in byes]
    spent = 0
    for bye in options:
        rest = [a for a in ranked if a != bye]
        # Colour balance within 1 where some pairing allows it, else within 2.
        for strict in (True, False):
            budget = [SEARCH_BUDGET]
            pairs = _search(rest, scores, colours, met, strict, budget)
            if pairs is not None:
                return Round(coloured(pairs, colours), bye)
            spent += SEARCH_BUDGET - budget[0]
        if spent > 4 * SEARCH_BUDGET:  # a hard case: settle rather than try every bye
            break
    bye = options[0]
    pairs = _greedy([a for a in ranked if a != bye], scores, colours, met)
    rematches = sum(frozenset(p) in met for p in pairs)
    return Round(coloured(pairs, colours), bye, rematches)


def coloured(pairs: Sequence[tuple[str, str]], colours: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """Each pair as (red, blue): the one due Red (fewer Reds so far, then Blue last time, then the first) plays Red."""
    return tuple((a, b) if _due_red(a, b, colours) else (b, a) for a, b in pairs)


Result = tuple[str, str, float]
"""(a, b, a's score in [0, 1]) for one game or one mini-match."""


def scores(agents: Sequence[str], results: Sequence[Result], byes: Sequence[str] = ()) -> dict[str, float]:
    """Points per agent: the results' scores plus ``BYE_SCORE`` per bye."""
    points = {name: 0.0 for name in agents}
    for a, b, score in results:
        points[a] += score
        points[b] += 1.0 - score
    for name in byes:
        points[name] += BYE_SCORE
    return points


def buchholz(agents: Sequence[str], results: Sequence[Result], byes: Sequence[str] = ()) -> dict[str, float]:
    """Sum of the final scores of each agent's opponents (once per meeting; a bye adds nothing)."""
    points = scores(agents, results, byes)
    total = {name: 0.0 for name in agents}
    for a, b, _ in results:
        total[a] += points[b]
        total[b] += points[a]
    return total


def sonneborn_berger(agents: Sequence[str], results: Sequence[Result], byes: Sequence[str] = ()) -> dict[str, float]:
    """Sum over meetings of (points taken from the opponent) x (the opponent's final score)."""
    points = scores(agents, results, byes)
    total = {name: 0.0 for name in agents}
    for a, b, score in results:
        total[a] += score * points[b]
        total[b] += (1.0 - score) * points[a]
    return total


def standings(agents: Sequence[str], results: Sequence[Result], byes: Sequence[str] = ()) -> list[str]:
    """Agents best first: by score, then Buchholz, then Sonneborn-Berger, then field order."""
    points = scores(agents, results, byes)
    bh = buchholz(agents, results, byes)
    sb = sonneborn_berger(agents, results, byes)
    position = {name: i for i, name in enumerate(agents)}
    return sorted(agents, key=lambda n: (-points[n], -bh[n], -sb[n], position[n]))


def information(elo_a: float, elo_b: float, spread_a: float, spread_b: float) -> float:
    """How much one game between a and b is worth: outcome variance p(1-p) times the pair's rating uncertainty.

    p(1-p) is largest for equal ratings (the result is least predictable); the
    summed variances favour agents whose rating is least known.
    """
    p = 1.0 / (1.0 + 10.0 ** ((elo_b - elo_a) / 400.0))
    return p * (1.0 - p) * (spread_a ** 2 + spread_b ** 2)


def ladder_pairs(ratings: Mapping[str, tuple[float, float]], batch: int | None = None,
                 avoid: Collection[frozenset[str]] = ()) -> list[tuple[str, str]]:
    """The next batch of pairings, most informative first; no agent twice in the batch.

    ``ratings[name] = (elo, uncertainty)`` (e.g. the 95% half-width, or
    something like 400/sqrt(games + 1) when no fit is at hand); ``batch``: at
    most this many pairs (default: as many as the field allows); ``avoid``:
    pairs not to choose (e.g. the previous batch, to spread opponents).
    Greedy on the information of ``information``; ties keep the names' order.
    """
    names = sorted(ratings)
    limit = len(names) // 2 if batch is None else min(batch, len(names) // 2)
    options = []
    for i, a in enumerate(names):
        ea, sa = ratings[a]
        for b in names[i + 1:]:
            if frozenset((a, b)) in avoid:
                continue
            eb, sb = ratings[b]
            options.append((-information(ea, eb, sa, sb), a, b))
    options.sort()
    busy: set[str] = set()
    chosen: list[tuple[str, str]] = []
    for _, a, b in options:
        if len(chosen) >= limit:
            break
        if a in busy or b in busy:
            continue
        busy.update((a, b))
        chosen.append((a, b))
    return chosen
