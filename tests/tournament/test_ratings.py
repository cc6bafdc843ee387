"""Elo ratings against cases worked out by hand."""
from __future__ import annotations

import math
import random
from statistics import fmean, pvariance, quantiles

import pytest

from referee.tournament.ratings import bradley_terry, elo_from_score, head_to_head, pentanomial

ELO_75 = 400 * math.log10(3)  # a 75% score: 10^(d/400) = 0.75/0.25 = 3, d = 190.85


def test_elo_of_a_score():
    assert elo_from_score(0.5) == pytest.approx(0.0)
    assert elo_from_score(0.75) == pytest.approx(190.8485, abs=1e-3)
    assert elo_from_score(0.25) == pytest.approx(-190.8485, abs=1e-3)


def test_two_agents_75_percent():
    match = head_to_head(wins=70, draws=10, losses=20)  # 75 points of 100
    assert match.elo == pytest.approx(ELO_75, abs=1e-6)
    assert match.draw_ratio == pytest.approx(0.10)
    assert not match.regularised


def test_two_agent_interval_by_hand():
    # s = 0.6; per-game variance (60*0.4^2 + 40*0.6^2)/100 = 0.24;
    # s.e. = sqrt(0.24/100) = 0.04899; s +- 1.96 s.e. = [0.50398, 0.69602]
    # -> Elo [2.767, 143.909]; half-width 70.571.
    match = head_to_head(wins=60, draws=0, losses=40)
    assert match.ci95 == pytest.approx(70.571, abs=1e-3)


def test_likelihood_of_superiority():
    assert head_to_head(5, 3, 5).los == pytest.approx(0.5)
    # LOS = (1 + erf((W - L) / sqrt(2 (W + L)))) / 2 = (1 + erf(10 / sqrt(20))) / 2
    assert head_to_head(10, 0, 0).los == pytest.approx(0.999217, abs=1e-6)
    assert head_to_head(0, 4, 0).los == 0.5  # no decisive game: no evidence either way


def test_a_clean_sweep_is_regularised_not_infinite():
    match = head_to_head(10, 0, 0)
    assert match.regularised
    # one virtual draw: score (10 + 0.5) / 11
    assert match.elo == pytest.approx(elo_from_score(10.5 / 11))


def test_joint_fit_recovers_a_consistent_three_agent_case():
    # A:B 75%, B:C 75%, A:C 90%: strengths 9:3:1 fit these exactly (9/10, 3/4, 9/12 ... 3/(3+1)),
    # so A - B = B - C = 400 log10 3 and the mean is 0.
    fit = bradley_terry("ABC", {("A", "B"): (75, 0, 25), ("B", "C"): (75, 0, 25), ("A", "C"): (90, 0, 10)})
    assert fit.ratings["A"].elo == pytest.approx(ELO_75, abs=1e-4)
    assert fit.ratings["B"].elo == pytest.approx(0.0, abs=1e-4)
    assert fit.ratings["C"].elo == pytest.approx(-ELO_75, abs=1e-4)
    assert not fit.regularised


def test_symmetric_results_give_equal_ratings():
    pairs = {(a, b): (5, 0, 5) for a in "ABCD" for b in "ABCD" if a < b}
    fit = bradley_terry("ABCD", pairs)
    assert all(r.elo == pytest.approx(0.0, abs=1e-6) for r in fit.ratings.values())
    cis = {round(r.ci95, 9) for r in fit.ratings.values()}
    assert len(cis) == 1  # same data for everyone, same uncertainty


def test_fisher_interval_by_hand():
    # Without draws, and with a fit that matches the score exactly, the robust
    # interval is the Fisher one.  Two agents, 100 games, 75 points:
    # information n p (1-p) = 18.75 for the difference; each rating is +-d/2,
    # so its variance is 1/(4 * 18.75) = 1/75 (natural units);
    # 1.96 * (400 / ln 10) * sqrt(1/75) = 39.315 Elo.
    fit = bradley_terry("AB", {("A", "B"): (75, 0, 25)})
    assert fit.ratings["A"].elo == pytest.approx(ELO_75 / 2, abs=1e-6)
    assert fit.ratings["A"].ci95 == pytest.approx(39.315, abs=1e-3)


def test_an_unbeaten_agent_makes_the_fit_regularised():
    fit = bradley_terry("ABC", {("A", "B"): (4, 0, 0), ("A", "C"): (4, 0, 0), ("B", "C"): (2, 0, 2)})
    assert fit.regularised and "virtual draw" in fit.note
    assert fit.ratings["A"].elo > fit.ratings["B"].elo == pytest.approx(fit.ratings["C"].elo)
    assert all(math.isfinite(r.elo) for r in fit.ratings.values())


def test_unconnected_agents_get_no_common_scale():
    fit = bradley_terry("ABCD", {("A", "B"): (1, 0, 1), ("C", "D"): (1, 0, 1)})
    assert fit.ratings == {} and "connect" in fit.note


def test_draws_narrow_the_interval_as_the_delta_method_says():
    # 60 wins, 30 draws, 10 losses: s = 0.75, per-game score variance
    # (60 * 0.25^2 + 30 * 0.25^2 + 10 * 0.75^2) / 100 = 0.1125.  The delta method
    # on theta = ln(s / (1 - s)) gives Var = 0.1125 / (100 * (0.75 * 0.25)^2) = 0.032;
    # each rating is half the difference.
    half_width = 1.96 * (400 / math.log(10)) * math.sqrt(0.032) / 2
    fit = bradley_terry("AB", {("A", "B"): (60, 30, 10)})
    assert fit.ratings["A"].ci95 == pytest.approx(half_width, rel=1e-3)
    # The two-agent interval maps s +- 1.96 s.e. through the Elo curve instead
    # of linearising it: close, not equal.  (Counting the draws as half wins gave 39.3.)
    assert fit.ratings["A"].ci95 == pytest.approx(head_to_head(60, 30, 10).ci95 / 2, rel=0.03)


# -- the joint interval against a bootstrap over games ----------------------------------

#: Expected scores of the first agent of each pairing (close to a Bradley-Terry fit).
SPREAD = {("A", "B"): 0.6, ("A", "C"): 0.65, ("A", "D"): 0.7, ("B", "C"): 0.55, ("B", "D"): 0.6, ("C", "D"): 0.55}
#: With two draws in three games the scores must stay near 50%.
CLOSE = {("A", "B"): 0.55, ("A", "C"): 0.6, ("A", "D"): 0.65, ("B", "C"): 0.55, ("B", "D"): 0.6, ("C", "D"): 0.55}


def _games(draw_rate: float, scores: dict, per_pairing: int = 50) -> list[tuple[str, str, float]]:
    """Each pairing's games with this draw rate and (about) this score, as (a, b, a's score)."""
    games = []
    for (a, b), score in scores.items():
        draws = round(per_pairing * draw_rate)
        wins = round(per_pairing * score - draws / 2)
        losses = per_pairing - draws - wins
        assert min(wins, losses) >= 0
        games += [(a, b, 1.0)] * wins + [(a, b, 0.5)] * draws + [(a, b, 0.0)] * losses
    return games


def _fit(games: list[tuple[str, str, float]]):
    counts: dict[tuple[str, str], list[int]] = {}
    for a, b, x in games:
        counts.setdefault((a, b), [0, 0, 0])[{1.0: 0, 0.5: 1, 0.0: 2}[x]] += 1
    return bradley_terry("ABCD", {key: tuple(c) for key, c in counts.items()})


def _bootstrap_half_widths(games: list[tuple[str, str, float]], resamples: int, seed: int) -> dict[str, float]:
    """Half the distance between the 2.5th and 97.5th percentiles of each rating
    over fits to the games resampled with replacement."""
    rng = random.Random(seed)
    elos: dict[str, list[float]] = {name: [] for name in "ABCD"}
    for _ in range(resamples):
        fit = _fit([games[rng.randrange(len(games))] for _ in games])
        assert not fit.regularised
        for name, rating in fit.ratings.items():
            elos[name].append(rating.elo)
    widths = {}
    for name, values in elos.items():
        cuts = quantiles(values, n=40, method="inclusive")  # cuts[0]: 2.5%, cuts[-1]: 97.5%
        widths[name] = (cuts[-1] - cuts[0]) / 2
    return widths


@pytest.mark.parametrize("draw_rate, scores", [(0.0, SPREAD), (0.24, SPREAD), (0.5, SPREAD), (0.66, CLOSE)])
def test_the_joint_interval_agrees_with_a_bootstrap_over_games(draw_rate, scores):
    games = _games(draw_rate, scores)
    fit = _fit(games)
    bootstrap = _bootstrap_half_widths(games, resamples=2000, seed=7)
    ratios = {name: fit.ratings[name].ci95 / bootstrap[name] for name in "ABCD"}
    # 2000 resamples leave each percentile width about 2% uncertain; counting
    # draws as half wins made the interval 11-19% too wide at 24% draws and
    # 70-80% at 66%.
    assert all(abs(r - 1) < 0.10 for r in ratios.values()), ratios
    assert abs(sum(ratios.values()) / 4 - 1) < 0.05, ratios


# -- pentanomial: colour-swapped pairs of games ----------------------------------------


def _logistic_elo(score: float) -> float:
    return 400 * math.log10(score / (1 - score))


def test_pentanomial_interval_is_the_normal_interval_of_the_mean_pair_score():
    counts = (3, 10, 20, 12, 5)  # pairs scoring 0, 1/2, 1, 1 1/2, 2 points
    per_game = [k / 4 for k, n in enumerate(counts) for _ in range(n)]  # each pair's score per game
    mean, standard_error = fmean(per_game), math.sqrt(pvariance(per_game) / len(per_game))
    low, high = mean - 1.96 * standard_error, mean + 1.96 * standard_error
    paired = pentanomial(counts)
    assert paired.pairs == 50 and paired.counts == counts and not paired.regularised
    assert paired.elo == pytest.approx(_logistic_elo(mean), abs=1e-9)
    assert paired.ci95 == pytest.approx((_logistic_elo(high) - _logistic_elo(low)) / 2, rel=1e-4)


def test_pairs_cancel_a_colour_advantage_that_widens_the_trinomial_interval():
    # 30 pairs won as Red and lost as Blue, 6 won twice, 4 lost twice: 42 wins, 38 losses.
    paired = pentanomial((4, 0, 30, 0, 6))
    games = head_to_head(wins=30 + 2 * 6, draws=0, losses=30 + 2 * 4)
    assert paired.elo == pytest.approx(games.elo)
    # Per-game score variance 0.249 over 80 games against 0.0619 over 40 pairs: ~0.7 the width.
    assert paired.ci95 < 0.75 * games.ci95


def test_a_clean_sweep_of_pairs_gets_one_virtual_drawn_pair():
    paired = pentanomial((0, 0, 0, 0, 8))
    assert paired.regularised and paired.counts == (0, 0, 0, 0, 8)
    assert paired.elo == pytest.approx(elo_from_score((8 + 0.5) / 9))
    assert pentanomial((0, 0, 0, 0, 0)) is None
