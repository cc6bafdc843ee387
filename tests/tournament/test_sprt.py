"""The SPRT: its log-likelihood ratio against closed forms, and its verdicts."""
from __future__ import annotations

import math

import pytest

from referee.tournament.sprt import (
    H0_ACCEPTED, H1_ACCEPTED, INCONCLUSIVE, RUNNING, SprtSettings, expected_score, log_likelihood_ratio, sprt_result,
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
