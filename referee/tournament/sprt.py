"""Sequential probability ratio test for a two-agent match.

H0: the tested agent is ``elo0`` Elo stronger than its opponent; H1: ``elo1``.
Both are **logistic** Elo (an agent ``d`` stronger scores 1 / (1 + 10^(-d/400))
a game), as in cutechess-cli and fastchess's ``model=logistic`` -- not the
normalized Elo of fastchess's default model.  After each game the generalised
log-likelihood ratio (GSPRT) of the win/draw/loss counts is compared with
Wald's bounds ``ln(beta / (1 - alpha))`` and ``ln((1 - beta) / alpha)``.  The
same ratio over the scores of colour-swapped pairs of games (pentanomial, as
fastchess reports) is computed for the report.  The formulas are explained in
docs/tournament.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

#: The score of a win, a draw and a loss.
SCORES = (1.0, 0.5, 0.0)
#: The per-game score of a colour-swapped pair of games that scored 0, 1/2, 1, 1 1/2 or 2 points.
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: The Elo model that elo0 and elo1 are in (see expected_score).
ELO_MODEL = "logistic"
#: Added to each outcome's count when estimating the outcome probabilities, so
#: that the constrained fit exists even before all three outcomes were seen.
PSEUDO_COUNT = 1e-3

H1_ACCEPTED, H0_ACCEPTED, INCONCLUSIVE, RUNNING = "H1 accepted", "H0 accepted", "inconclusive", "running"


@dataclass(frozen=True)
class SprtSettings:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): accept H0 at or below the lower, H1 at or above the upper."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)


def expected_score(elo: float) -> float:
    """The logistic Elo model: the expected score of an agent ``elo`` points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _closest_with_mean(probabilities: list[float], mean: float, scores: tuple[float, ...] = SCORES) -> list[float]:
    """The outcome distribution of largest likelihood whose mean score is ``mean``.

    Lagrange: p_k = q_k / (1 + lam * (x_k - mean)) with lam the root of
    sum q_k (x_k - mean) / (1 + lam (x_k - mean)), which decreases strictly in
    lam over the interval keeping every denominator positive; bisection finds it.
    """
    shifts = [x - mean for x in scores]
    low, high = -1.0 / max(shifts), -1.0 / min(shifts)

    def slope(lam: float) -> float:
        return sum(q * s / (1.0 + lam * s) for q, s in zip(probabilities, shifts))

    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    lam = (low + high) / 2
    fitted = [q / (1.0 + lam * s) for q, s in zip(probabilities, shifts)]
    total = sum(fitted)
    return [p / total for p in fitted]


def _generalised_llr(counts: tuple[int, ...], scores: tuple[float, ...], elo0: float, elo1: float) -> float:
    """GSPRT log-likelihood ratio of H1 against H0 for counts of outcomes with these scores."""
    samples = sum(counts)
    if samples == 0:
        return 0.0
    observed = [(n + PSEUDO_COUNT) / (samples + len(counts) * PSEUDO_COUNT) for n in counts]
    under_h0 = _closest_with_mean(observed, expected_score(elo0), scores)
    under_h1 = _closest_with_mean(observed, expected_score(elo1), scores)
    return math.fsum(n * math.log(p1 / p0) for n, p0, p1 in zip(counts, under_h0, under_h1) if n)


def log_likelihood_ratio(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for W/D/L counts."""
    return _generalised_llr((wins, draws, losses), SCORES, elo0, elo1)


def pentanomial_llr(counts: tuple[int, int, int, int, int], elo0: float, elo1: float) -> float:
    """The same ratio for pairs of games that scored 0, 1/2, 1, 1 1/2 and 2 points (per-game score 0 .. 1)."""
    return _generalised_llr(tuple(counts), PAIR_SCORES, elo0, elo1)


@dataclass(frozen=True)
class SprtResult:
    wins: int
    draws: int
    losses: int
    llr: float
    lower: float
    upper: float
    verdict: str  # H1_ACCEPTED, H0_ACCEPTED, INCONCLUSIVE or RUNNING
    #: Reported beside the verdict (which is the W/D/L one's): the pentanomial
    #: LLR over the complete colour-swapped pairs, and their number.
    pentanomial_llr: float | None = None
    pairs: int = 0

    @property
    def decided(self) -> bool:
        return self.verdict in (H0_ACCEPTED, H1_ACCEPTED)

    def describe(self) -> str:
        return f"LLR {self.llr:.2f} ({self.lower:.2f}, {self.upper:.2f}): {self.verdict}"


def sprt_result(wins: int, draws: int, losses: int, settings: SprtSettings, games_left: bool) -> SprtResult:
    """The test's state after these games; ``games_left``: more may still be played."""
    llr = log_likelihood_ratio(wins, draws, losses, settings.elo0, settings.elo1)
    lower, upper = settings.bounds
    if llr >= upper:
        verdict = H1_ACCEPTED
    elif llr <= lower:
        verdict = H0_ACCEPTED
    else:
        verdict = RUNNING if games_left else INCONCLUSIVE
    return SprtResult(wins, draws, losses, llr, lower, upper, verdict)
