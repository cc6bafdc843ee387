"""Elo ratings from game results (stdlib only).

* More than two agents: a joint Bradley-Terry fit (a draw counts as half a
  win and half a loss), maximum likelihood by minorisation-maximisation
  iterations, anchored so that the agents' mean rating is 0.  The 95% interval
  of each rating comes from the robust (sandwich) covariance: the inverse
  Fisher information around the observed per-game score variance, so that
  draws, which vary less than half a win does, narrow it.
* Two agents: the classic Elo difference from the score, its 95% interval
  from the trinomial (win/draw/loss) variance of the score, the likelihood of
  superiority and the draw ratio; when the games come in colour-swapped
  pairs, also the pentanomial interval, from the variance of the pairs' scores.

When some agent won or lost everything (more exactly: when the "scored a
point against" graph is not strongly connected) the maximum-likelihood
ratings are infinite; then one virtual draw is added to every pairing that
played, and the fit says so.  docs/tournament.md gives the formulas.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import cast
from collections.abc import Mapping, Sequence

ELO_PER_NAT = 400.0 / math.log(10.0)
Z95 = NormalDist().inv_cdf(0.975)
TOLERANCE = 1e-10  # on log-strengths, ~6e-9 Elo
MAX_ITERATIONS = 100_000


@dataclass(frozen=True)
class Rating:
    elo: float
    ci95: float | None  # half-width of the 95% interval; None when unbounded


@dataclass(frozen=True)
class RatingFit:
    """Ratings by agent name (empty when they cannot be put on one scale)."""

    ratings: Mapping[str, Rating]
    regularised: bool = False
    note: str = ""


def elo_from_score(score: float) -> float:
    """Elo difference that makes ``score`` (0 < score < 1) the expected score."""
    return -ELO_PER_NAT * math.log(1.0 / score - 1.0)


@dataclass(frozen=True)
class HeadToHead:
    """Two agents: the first one's Elo advantage and the match statistics."""

    elo: float
    ci95: float | None
    los: float  # probability that the first is the stronger (likelihood of superiority)
    draw_ratio: float
    regularised: bool


def _score_interval(score: float, variance: float, samples: int) -> float | None:
    """Half-width in Elo of score +- 1.96 sqrt(variance / samples) mapped through
    the Elo curve; None (unbounded) when it reaches 0% or 100%."""
    margin = Z95 * math.sqrt(variance / samples)
    low, high = score - margin, score + margin
    return (elo_from_score(high) - elo_from_score(low)) / 2 if 0 < low and high < 1 else None


def head_to_head(wins: int, draws: int, losses: int) -> HeadToHead | None:
    """Elo difference, 95% interval, LOS and draw ratio from the first agent's W/D/L."""
    games = wins + draws + losses
    if games == 0:
        return None
    decisive = wins + losses
    los = 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * decisive))) if decisive else 0.5
    draw_ratio = draws / games
    regularised = wins + draws == 0 or losses + draws == 0
    if regularised:
        draws, games = draws + 1, games + 1
    score = (wins + draws / 2) / games
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    return HeadToHead(elo_from_score(score), _score_interval(score, variance, games), los, draw_ratio, regularised)


@dataclass(frozen=True)
class PairedMatch:
    """Two agents, games in colour-swapped pairs: the first agent's pentanomial statistics."""

    counts: tuple[int, int, int, int, int]  # pairs in which it scored 0, 1/2, 1, 1 1/2, 2 points
    elo: float
    ci95: float | None  # half-width of the 95% interval of the Elo difference; None when unbounded
    regularised: bool

    @property
    def pairs(self) -> int:
        return sum(self.counts)


def pentanomial(counts: Sequence[int]) -> PairedMatch | None:
    """Elo difference and its 95% interval from the pair scores (0, 1/2, 1, 1 1/2, 2 points of 2).

    Each pair is one sample of the per-game score (its points / 2), so the
    interval uses the variance between pairs: a colour advantage that one pair
    of games cancels out no longer widens it, as counting games as independent does.
    """
    observed = cast("tuple[int, int, int, int, int]", tuple(int(n) for n in counts))
    pairs = sum(observed)
    if pairs == 0:
        return None
    weights = list(observed)
    regularised = observed[0] == pairs or observed[4] == pairs  # all pairs lost, or all won
    if regularised:
        weights[2] += 1  # one virtual drawn pair, as the two-agent fit adds a virtual draw
        pairs += 1
    per_game = [k / 4 for k in range(5)]
    score = math.fsum(n * x for n, x in zip(weights, per_game)) / pairs
    variance = math.fsum(n * (x - score) ** 2 for n, x in zip(weights, per_game)) / pairs
    return PairedMatch(observed, elo_from_score(score), _score_interval(score, variance, pairs), regularised)


def _reaches_all(edges: list[set[int]]) -> bool:
    seen, stack = {0}, [0]
    while stack:
        for nxt in edges[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return len(seen) == len(edges)


def _inverse(matrix: list[list[float]]) -> list[list[float]] | None:
    """Gauss-Jordan inverse with partial pivoting; None if singular."""
    size = len(matrix)
    rows = [row[:] + [1.0 if i == j else 0.0 for j in range(size)] for i, row in enumerate(matrix)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-12:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col]
        scale = 1.0 / lead[col]
        lead = rows[col] = [x * scale for x in lead]
        for r in range(size):
            factor = rows[r][col]
            if r != col and factor:
                rows[r] = [x - factor * y for x, y in zip(rows[r], lead)]
    return [row[size:] for row in rows]


def _robust_variances(inverse: list[list[float]], residuals: Mapping[tuple[int, int], float]) -> list[float]:
    """Sandwich variance of each theta_i minus the mean of all thetas.

    The fit solves sum_g (x_g - p_g)(e_i - e_j) = 0 over games g between i
    and j, so its covariance is M B M with M the inverse information and
    B = sum over pairings of r_ij (e_i - e_j)(e_i - e_j)^T, r_ij the observed
    squared residuals.  Agent k's contrast c_k = e_k - 1/n has variance
    u_k^T B u_k with u_k = M c_k, i.e. sum over pairings of r_ij (u_k[i] - u_k[j])^2.
    Only what B is made of is visited: O(n * pairings) after the inversion.
    """
    size = len(inverse)
    means = [math.fsum(row) / size for row in inverse]
    # centred[i][k] = u_k[i] (M is symmetric).
    centred = [[value - means[i] for value in row] for i, row in enumerate(inverse)]
    variances = [0.0] * size
    for (i, j), r in residuals.items():
        if r:
            variances = [v + r * (a - b) ** 2 for v, a, b in zip(variances, centred[i], centred[j])]
    return [max(0.0, v) for v in variances]


def bradley_terry(names: Sequence[str], pairs: Mapping[tuple[str, str], tuple[int, int, int]]) -> RatingFit:
    """Joint Elo fit.  ``pairs[(a, b)] = (wins, draws, losses)`` of a against b, one key per pairing.

    Ratings have mean 0; each interval is that of the agent's rating relative
    to the mean, from the sandwich covariance A^-1 B A^-1 of the fit (A: the
    Fisher information, B: the observed squared per-game score residuals).
    """
    order = sorted(set(names))
    if len(order) < 2:
        return RatingFit({}, note="fewer than two agents have played")
    index = {name: i for i, name in enumerate(order)}
    size = len(order)
    games: list[dict[int, float]] = [{} for _ in order]
    points: list[dict[int, float]] = [{} for _ in order]
    # score[i][j]: i's wins, draws and losses against j (for the per-game score variance).
    score: list[dict[int, list[float]]] = [{} for _ in order]
    for (a, b), (wins, draws, losses) in sorted(pairs.items()):
        played = wins + draws + losses
        if not played:
            continue
        i, j = index[a], index[b]
        games[i][j] = games[i].get(j, 0.0) + played
        games[j][i] = games[j].get(i, 0.0) + played
        points[i][j] = points[i].get(j, 0.0) + wins + draws / 2
        points[j][i] = points[j].get(i, 0.0) + losses + draws / 2
        for x, y, wdl in ((i, j, (wins, draws, losses)), (j, i, (losses, draws, wins))):
            old = score[x].setdefault(y, [0.0, 0.0, 0.0])
            score[x][y] = [u + v for u, v in zip(old, wdl)]

    if not _reaches_all([set(g) for g in games]):
        return RatingFit({}, note="the games played do not connect all agents, so no common rating scale exists yet")
    beats = [{j for j, p in row.items() if p > 0} for row in points]
    beaten_by = [{j for j in range(size) if i in beats[j]} for i in range(size)]
    regularised = not (_reaches_all(beats) and _reaches_all(beaten_by))
    if regularised:
        for i in range(size):
            for j in games[i]:
                games[i][j] += 1.0
                points[i][j] += 0.5
                score[i][j][1] += 1.0

    totals = [math.fsum(row.values()) for row in points]
    strength = [1.0] * size
    for _ in range(MAX_ITERATIONS):
        updated = [
            totals[i] / math.fsum(n / (strength[i] + strength[j]) for j, n in games[i].items()) for i in range(size)
        ]
        logs = [math.log(s) for s in updated]
        centre = math.fsum(logs) / size
        updated = [math.exp(x - centre) for x in logs]
        change = max(abs(math.log(u / s)) for u, s in zip(updated, strength))
        strength = updated
        if change < TOLERANCE:
            break
    theta = [math.log(s) for s in strength]

    # Fisher information of the log-strengths, with agent 0 fixed at 0, and the
    # observed squared score residuals of each pairing: sum over its games of
    # (x - p)^2 = W (1-p)^2 + D (1/2-p)^2 + L p^2.
    information = [[0.0] * size for _ in range(size)]
    residuals: dict[tuple[int, int], float] = {}
    for i in range(size):
        for j, n in games[i].items():
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            information[i][j] -= n * p * (1 - p)
            information[i][i] += n * p * (1 - p)
            if i < j:
                won, drew, lost = score[i][j]
                residuals[(i, j)] = won * (1 - p) ** 2 + drew * (0.5 - p) ** 2 + lost * p**2
    reduced = _inverse([row[1:] for row in information[1:]])
    ratings = {}
    if reduced is None:
        cis: list[float | None] = [None] * size
    else:
        inverse = [[0.0] * size] + [[0.0] + row for row in reduced]
        cis = [Z95 * ELO_PER_NAT * math.sqrt(v) for v in _robust_variances(inverse, residuals)]
    for i, name in enumerate(order):
        ratings[name] = Rating(theta[i] * ELO_PER_NAT, cis[i])
    note = (
        "one virtual draw was added to every pairing, since some agent won or lost all its games" if regularised else ""
    )
    return RatingFit(ratings, regularised, note)
