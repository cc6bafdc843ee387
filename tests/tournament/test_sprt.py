"""The SPRT: its log-likelihood ratio against closed forms, and its verdicts."""
from __future__ import annotations

import math

import pytest

from referee.tournament.sprt import (
    H0_ACCEPTED, H1_ACCEPTED, INCONCLUSIVE, RUNNING, SprtSettings, expected_score, log_likelihood_ratio,
    pentanomial_llr, sprt_result,
)


def test_bounds_are_walds():
    lower, upper = SprtSettings(0, 10, alpha=0.05, beta=0.05).bounds
    assert lower == pytest.approx(math.log(0.05 / 0.95))
    assert upper == pytest.approx(math.log(0.95 / 0.05))  # 2.944


def test_without_draws_it_is_the_binomial_ratio():
    # With no draws the closest distributions under H0/H1 put no mass on draws,
    # so the LLR is W ln(s1/s0) + L ln((1-s1)/(1-s0)).
    s0, s1 = expected_score(0), expected_score(20)
    expected = 30 * math.log(s1 / s0) + 10 * math.log((1 - s1) / (1 - s0))
    assert log_likelihood_ratio(30, 0, 10, 0, 20) == pytest.approx(expected, abs=1e-3)


def _best_log_likelihood(wins: int, draws: int, losses: int, mean: float) -> float:
    """Brute force: the largest log-likelihood among outcome distributions with this mean score.

    Such a distribution is (mean - d/2, d, 1 - mean - d/2) for a draw rate d;
    the log-likelihood is concave in d, so a ternary search finds its top.
    """

    def log_likelihood(d: float) -> float:
        p = (mean - d / 2, d, 1 - mean - d / 2)
        return sum(n * math.log(q) for n, q in zip((wins, draws, losses), p) if n)

    low, high = 1e-12, min(2 * mean, 2 - 2 * mean) - 1e-12
    for _ in range(300):
        a, b = low + (high - low) / 3, high - (high - low) / 3
        if log_likelihood(a) < log_likelihood(b):
            low = a
        else:
            high = b
    return log_likelihood((low + high) / 2)


@pytest.mark.parametrize("counts", [(520, 100, 380), (12, 30, 9), (3, 1, 7), (50, 400, 45)])
def test_matches_the_generalised_likelihood_ratio_by_brute_force(counts):
    s0, s1 = expected_score(0), expected_score(10)
    expected = _best_log_likelihood(*counts, s1) - _best_log_likelihood(*counts, s0)
    assert log_likelihood_ratio(*counts, 0, 10) == pytest.approx(expected, rel=1e-3, abs=1e-3)


def test_no_games_no_evidence():
    assert log_likelihood_ratio(0, 0, 0, 0, 10) == 0.0


def test_verdicts():
    settings = SprtSettings(elo0=0, elo1=50)
    assert sprt_result(40, 0, 0, settings, games_left=True).verdict == H1_ACCEPTED
    assert sprt_result(300, 100, 300, settings, games_left=True).verdict == H0_ACCEPTED
    assert sprt_result(3, 1, 2, settings, games_left=True).verdict == RUNNING
    assert sprt_result(3, 1, 2, settings, games_left=False).verdict == INCONCLUSIVE


def test_a_clean_sweep_needs_enough_games():
    # Each win adds about ln(s1/s0) = ln(0.5714/0.5) = 0.134: 22 wins reach 2.944.
    settings = SprtSettings(elo0=0, elo1=50)
    assert sprt_result(21, 0, 0, settings, True).verdict == RUNNING
    assert sprt_result(23, 0, 0, settings, True).verdict == H1_ACCEPTED


def test_elo0_and_elo1_are_logistic_elo():
    # 400 log10(3) logistic Elo is a 75% score (normalized Elo would depend on the variance).
    assert expected_score(400 * math.log10(3)) == pytest.approx(0.75)


# -- pentanomial: pairs of games with colours swapped ------------------------------------

PER_GAME = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's score per game: 0, 1/2, 1, 1 1/2, 2 points of 2


def _golden_max(f, low: float, high: float, steps: int = 40) -> float:
    """The maximum of a concave function on [low, high] by golden-section search."""
    ratio = (math.sqrt(5) - 1) / 2
    a, b = low + (1 - ratio) * (high - low), low + ratio * (high - low)
    fa, fb = f(a), f(b)
    for _ in range(steps):
        if fa < fb:
            low, a, fa = a, b, fb
            b = low + ratio * (high - low)
            fb = f(b)
        else:
            high, b, fb = b, a, fa
            a = low + (1 - ratio) * (high - low)
            fa = f(a)
    return max(fa, fb)


def _best_pentanomial_log_likelihood(counts: tuple[int, ...], mean: float) -> float:
    """Brute force: the largest log-likelihood among five-outcome distributions with this mean per-game score.

    Free: p1, p2, p3; then p4 = mean - p1/4 - p2/2 - 3 p3/4 and p0 = 1 - p1 - p2 - p3 - p4.
    The log-likelihood is concave, so nested one-dimensional searches find its top.
    """
    tiny = 1e-12

    def log_likelihood(p1: float, p2: float, p3: float) -> float:
        p4 = mean - p1 / 4 - p2 / 2 - 3 * p3 / 4
        p = (1 - p1 - p2 - p3 - p4, p1, p2, p3, p4)
        if min(p) <= 0:
            return -math.inf
        return sum(n * math.log(q) for n, q in zip(counts, p) if n)

    def over_p3(p1: float, p2: float) -> float:
        top = min((mean - p1 / 4 - p2 / 2) / 0.75, (1 - mean - 0.75 * p1 - p2 / 2) / 0.25)
        return _golden_max(lambda p3: log_likelihood(p1, p2, p3), tiny, top - tiny)

    def over_p2(p1: float) -> float:
        top = min((mean - p1 / 4) / 0.5, (1 - mean - 0.75 * p1) / 0.5)
        return _golden_max(lambda p2: over_p3(p1, p2), tiny, top - tiny)

    return _golden_max(over_p2, tiny, min(4 * mean, (1 - mean) / 0.75) - tiny)


@pytest.mark.parametrize("counts", [(20, 95, 210, 120, 30), (1, 4, 9, 6, 2), (0, 3, 12, 5, 0)])
def test_pentanomial_llr_matches_the_generalised_likelihood_ratio_by_brute_force(counts):
    s0, s1 = expected_score(0), expected_score(10)
    expected = _best_pentanomial_log_likelihood(counts, s1) - _best_pentanomial_log_likelihood(counts, s0)
    assert pentanomial_llr(counts, 0, 10) == pytest.approx(expected, rel=1e-4, abs=1e-5)


def test_pentanomial_llr_with_two_kinds_of_pair_is_a_binomial_ratio():
    # Only pairs of 1/2 and 1 1/2 points: the best distributions keep to them, with
    # P(1 1/2) = (s - 1/4) / (1/2) for a mean per-game score s.
    s0, s1 = expected_score(0), expected_score(20)
    q0, q1 = (s0 - 0.25) / 0.5, (s1 - 0.25) / 0.5
    expected = 30 * math.log(q1 / q0) + 22 * math.log((1 - q1) / (1 - q0))
    assert pentanomial_llr((0, 22, 0, 30, 0), 0, 20) == pytest.approx(expected, abs=1e-5)
