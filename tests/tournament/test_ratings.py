"""Elo ratings against cases worked out by hand."""
from __future__ import annotations

import math

import pytest

from referee.tournament.ratings import bradley_terry, elo_from_score, head_to_head

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
    fit = bradley_terry("ABC", {("A", "B"): (100, 75), ("B", "C"): (100, 75), ("A", "C"): (100, 90)})
    assert fit.ratings["A"].elo == pytest.approx(ELO_75, abs=1e-4)
    assert fit.ratings["B"].elo == pytest.approx(0.0, abs=1e-4)
    assert fit.ratings["C"].elo == pytest.approx(-ELO_75, abs=1e-4)
    assert not fit.regularised


def test_symmetric_results_give_equal_ratings():
    pairs = {(a, b): (10, 5.0) for a in "ABCD" for b in "ABCD" if a < b}
    fit = bradley_terry("ABCD", pairs)
    assert all(r.elo == pytest.approx(0.0, abs=1e-6) for r in fit.ratings.values())
    cis = {round(r.ci95, 9) for r in fit.ratings.values()}
    assert len(cis) == 1  # same data for everyone, same uncertainty


def test_fisher_interval_by_hand():
    # Two agents, 100 games, 75 points: information n p (1-p) = 18.75 for the
    # difference; each rating is +-d/2, so its variance is 1/(4 * 18.75) = 1/75
    # (natural units); 1.96 * (400 / ln 10) * sqrt(1/75) = 39.315 Elo.
    fit = bradley_terry("AB", {("A", "B"): (100, 75)})
    assert fit.ratings["A"].elo == pytest.approx(ELO_75 / 2, abs=1e-6)
    assert fit.ratings["A"].ci95 == pytest.approx(39.315, abs=1e-3)


def test_an_unbeaten_agent_makes_the_fit_regularised():
    fit = bradley_terry("ABC", {("A", "B"): (4, 4), ("A", "C"): (4, 4), ("B", "C"): (4, 2)})
    assert fit.regularised and "virtual draw" in fit.note
    assert fit.ratings["A"].elo > fit.ratings["B"].elo == pytest.approx(fit.ratings["C"].elo)
    assert all(math.isfinite(r.elo) for r in fit.ratings.values())


def test_unconnected_agents_get_no_common_scale():
    fit = bradley_terry("ABCD", {("A", "B"): (2, 1), ("C", "D"): (2, 1)})
    assert fit.ratings == {} and "connect" in fit.note
