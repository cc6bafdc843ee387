"""The battleground's ratings (referee/battleground/rating.py): which games count, the anchored fit, the order.

Pure functions on made-up results: no server.  The league used throughout is six honest players whose
results follow the Elo curve of true ratings 0, 100, 200, 300, 400 and 600 (8 games a pair, colours
alternating, one day), so its best player, fay, has real wins against everyone.
"""
from __future__ import annotations

import itertools
import math
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.battleground.rating import (
    ANCHOR, PER_PAIR, counted_results, fit_ratings, leaderboard_key, leaderboard_order, pair_tallies, ratings_of,
)
from referee.tournament.ratings import bradley_terry

TRUE = {"ann": 0, "bo": 100, "cy": 200, "dee": 300, "eli": 400, "fay": 600}
DAY = "2026-11-02"


def league(true: dict[str, int] = TRUE, games: int = 8, day: str = DAY) -> list[tuple[str, str, str | None, str]]:
    """Each pair's games, the stronger winning its expected share (rounded), colours alternating."""
    results: list[tuple[str, str, str | None, str]] = []
    for (a, rating_a), (b, rating_b) in itertools.combinations(true.items(), 2):
        wins = round(games / (1 + 10 ** ((rating_b - rating_a) / 400)))
        for g in range(games):
            red, blue = (a, b) if g % 2 == 0 else (b, a)
            winner = a if g < wins else b
            results.append((red, blue, "RED" if winner == red else "BLUE", f"{day}T{9 + g:02d}:00:00+00:00"))
    return results


def thrown(games: int, day: str = "2026-11-03") -> list[tuple[str, str, str | None, str]]:
    """Puppet P (red) loses ``games`` games to Q in one day, a second apart."""
    return [("P", "Q", "BLUE", f"{day}T12:{i // 60:02d}:{i % 60:02d}+00:00") for i in range(games)]


def plain(results: list[tuple[str, str, str | None, str]]) -> dict[str, float]:
    """What the server rated before: bradley_terry on every finished game."""
    names = sorted({name for game in results for name in game[:2]})
    fit = bradley_terry(names, pair_tallies([game[:3] for game in results]))
    return {name: rating.elo for name, rating in fit.ratings.items()}


def elo(ratings: dict[str, tuple[float, float | None]]) -> dict[str, float]:
    return {name: value for name, (value, _) in ratings.items()}


# -- which games count ----------------------------------------------------------------------------------


def test_the_first_games_of_a_pair_in_a_day_count_whichever_colour_it_played() -> None:
    games = [("a", "b", "RED", f"{DAY}T10:00:{i:02d}+00:00") if i % 2 else
             ("b", "a", None, f"{DAY}T10:00:{i:02d}+00:00") for i in range(6)]
    other = ("a", "c", "BLUE", f"{DAY}T10:01:00+00:00")
    counted = counted_results([*games[:3], other, *games[3:]], per_pair=4)
    # Four of a-b's six (two as red, two as blue), then none; a-c is another pair; the order is kept.
    assert counted == [game[:3] for game in (*games[:3], other, games[3])]


def test_a_game_without_an_end_time_always_counts() -> None:
    old = [("a", "b", "RED", None)] * 30
    assert counted_results(old) == [("a", "b", "RED")] * 30
    # They use none of the day's allowance either; nor does a time that cannot be read.
    new = [("b", "a", None, f"{DAY}T10:00:{i:02d}+00:00") for i in range(PER_PAIR + 5)]
    unreadable = ("a", "b", "BLUE", "yesterday")
    assert counted_results([*old, unreadable, *new]) == [*([("a", "b", "RED")] * 30), ("a", "b", "BLUE"),
                                                         *([("b", "a", None)] * PER_PAIR)]


def test_the_allowance_is_per_utc_day() -> None:
    late = [("a", "b", "RED", f"{DAY}T23:59:{i:02d}+00:00") for i in range(3)]
    # 01:30 at +02:00 is 23:30 UTC the day before: still that day.
    east = ("a", "b", "RED", "2026-11-03T01:30:00+02:00")
    early = [("a", "b", "RED", f"2026-11-03T00:00:{i:02d}+00:00") for i in range(3)]
    assert len(counted_results([*late, east, *early], per_pair=2)) == 2 + 0 + 2
    # A shorter period: the hour.
    hourly = [("a", "b", "RED", f"{DAY}T{h:02d}:{m:02d}:00+00:00") for h in range(3) for m in range(5)]
    assert len(counted_results(hourly, per_pair=2, period_hours=1)) == 3 * 2


def test_two_hundred_thrown_games_count_ten_in_a_day_and_all_over_two_hundred_days() -> None:
    assert counted_results(thrown(200)) == [("P", "Q", "BLUE")] * PER_PAIR == [("P", "Q", "BLUE")] * 10
    spread = [("P", "Q", "BLUE", f"2026-{1 + i // 28:02d}-{1 + i % 28:02d}T12:00:00+00:00") for i in range(200)]
    assert len(counted_results(spread)) == 200


# -- the anchored fit -------------------------------------------------------------------------------


def test_the_fit_is_bradley_terry_with_the_anchor_as_a_player() -> None:
    """The Newton fit gives bradley_terry's maximum-likelihood ratings (the anchor one more player), shifted so
    that the anchor is 0: to bradley_terry's own tolerance (1e-10 in log-strength, 2e-8 Elo), 1e-4 Elo here."""
    results = [*league(), *thrown(200), ("ann", "Q", None, None), ("cy", "new", "BLUE", None)]
    pairs = pair_tallies([game[:3] for game in results])
    names = sorted({name for pair in pairs for name in pair})
    reference = bradley_terry([*names, ANCHOR], {**pairs, **{(ANCHOR, name): (0, 1, 0) for name in names}})
    zero = reference.ratings[ANCHOR].elo
    fitted = fit_ratings(names, pairs)
    assert sorted(fitted) == names
    for name in names:
        assert fitted[name][0] == pytest.approx(reference.ratings[name].elo - zero, abs=1e-4)


def test_one_game_between_two_fresh_names_changes_no_one_else() -> None:
    """Today's wipe: two fresh names' one game left bradley_terry with no common scale, so no one had a rating.

    Anchored, the established players' likelihood equations do not involve the fresh pair (the anchor is
    fixed at 0, not fitted), so their ratings are unchanged up to the fit's tolerance (1e-9 in
    log-strength, 2e-7 Elo): asserted to 1e-3 Elo.  The pair get -+131, one draw each with the anchor
    against a 1-0 between them."""
    before = fit_ratings([], pair_tallies(counted_results(league())))
    wiped = [*league(), ("fresh1", "fresh2", "RED", "2026-11-03T10:00:00+00:00")]
    assert plain(league()) and plain(wiped) == {}
    after = ratings_of(wiped)
    assert sorted(after) == sorted([*TRUE, "fresh1", "fresh2"])
    for name, (rating, interval) in before.items():
        assert after[name][0] == pytest.approx(rating, abs=1e-3)
        assert interval is not None and after[name][1] is not None
    assert after["fresh1"][0] == pytest.approx(131.4, abs=0.1)
    assert after["fresh2"][0] == pytest.approx(-131.4, abs=0.1)


def test_a_puppet_throwing_two_hundred_games_in_a_day_does_not_put_its_partner_above_real_wins() -> None:
    """The numbers: the league alone rates fay (the best) +343.  P throws 200 games to Q in a day:

    * P and Q alone (today: nobody rated, the wipe): Q +290 (10 counted wins), below fay's +343;
    * P also loses one game to ann (the worst), which connects them to the league, as today's farmer did:
      bradley_terry on every game puts Q at +604, first, far above fay's +252; counted and anchored: Q +181,
      second to fay's +371;
    * the same 200 games one a day for 200 days all count, and Q reaches +529: the rule is about the day.
    """
    honest = elo(ratings_of(league()))
    assert max(honest, key=honest.__getitem__) == "fay"
    assert honest["fay"] == pytest.approx(343, abs=1)

    alone = elo(ratings_of([*league(), *thrown(200)]))
    assert alone["Q"] == pytest.approx(290, abs=1) and alone["fay"] == pytest.approx(343, abs=1)
    assert alone["Q"] < alone["fay"]

    connected = [*league(), *thrown(200), ("ann", "P", "RED", "2026-11-03T13:00:00+00:00")]
    today = plain(connected)
    assert today["Q"] == pytest.approx(604, abs=1) and today["fay"] == pytest.approx(252, abs=1)
    assert max(today, key=today.__getitem__) == "Q"
    anchored = elo(ratings_of(connected))
    assert anchored["Q"] == pytest.approx(181, abs=1) and anchored["fay"] == pytest.approx(371, abs=1)
    assert sorted(anchored, key=anchored.__getitem__, reverse=True)[:2] == ["fay", "Q"]

    spread = [("P", "Q", "BLUE", f"2026-{1 + i // 28:02d}-{1 + i % 28:02d}T12:00:00+00:00") for i in range(200)]
    persistent = elo(ratings_of([*league(), *spread]))
    assert persistent["Q"] == pytest.approx(529, abs=1) and persistent["Q"] > persistent["fay"]


def test_intervals_are_the_players_own_and_never_zero() -> None:
    """1.96 / sqrt(the player's Fisher information), in Elo: 1.96 * 173.7 / sqrt(2 * 1/4) = +-481 for a fresh
    name's one draw (with the anchor's draw), not bradley_terry's sandwich 0 +- 0."""
    (x, x_interval), (y, y_interval) = fit_ratings([], {("x", "y"): (0, 1, 0)}).values()
    assert x == y == 0.0 and x_interval == pytest.approx(481.5, abs=0.1) and y_interval == pytest.approx(481.5, abs=0.1)
    # 40 games: narrower.  A farmed pair rated only through the anchor leaves the league's intervals as they were.
    honest = fit_ratings([], pair_tallies(counted_results(league())))
    farmed = ratings_of([*league(), *thrown(200)])
    for name, (_, interval) in honest.items():
        assert interval is not None and interval < 200 and farmed[name][1] == pytest.approx(interval, abs=1e-3)
    assert honest["fay"][1] == pytest.approx(175, abs=1)


def test_only_players_with_a_game_are_rated_and_the_anchor_is_no_name() -> None:
    assert fit_ratings(["idle"], {}) == {}
    assert fit_ratings(["idle", "a", "b"], {("a", "b"): (0, 0, 0), ("a", "c"): (1, 0, 0)}).keys() == {"a", "c"}
    with pytest.raises(ValueError, match="anchor"):
        fit_ratings([ANCHOR], {})


def test_the_functions_can_be_sent_to_a_process_pool() -> None:
    for function in (ratings_of, fit_ratings, counted_results):
        assert pickle.loads(pickle.dumps(function)) is function


# -- the leaderboard's order ------------------------------------------------------------------------


def test_unrated_players_come_after_rated_ones() -> None:
    rows = [{"name": "new", "rating": None, "games": 40}, {"name": "low", "rating": -300, "games": 1},
            {"name": "zed", "rating": 5, "games": 3}, {"name": "abe", "rating": 5, "games": 3},
            {"name": "more", "rating": 5, "games": 9}, {"name": "idle", "rating": None, "games": 0},
            {"name": "best", "rating": 400.5, "games": 2}, {"name": "also", "rating": None, "games": 40}]
    assert [row["name"] for row in leaderboard_order(rows)] == ["best", "more", "abe", "zed", "low",
                                                                 "also", "new", "idle"]
    assert sorted(rows, key=leaderboard_key) == leaderboard_order(rows)


# -- any results ----------------------------------------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "c", "d", "e", "f"])
TIMES = st.one_of(st.none(), st.builds("2026-11-0{}T{:02d}:00:00+00:00".format,
                                       st.integers(1, 3), st.integers(0, 23)))
GAME = st.tuples(NAMES, NAMES, st.sampled_from(["RED", "BLUE", None]), TIMES).filter(lambda g: g[0] != g[1])


@settings(max_examples=300, deadline=None)
@given(st.lists(GAME, max_size=40), st.integers(0, 4))
def test_every_player_with_a_counted_game_gets_a_finite_rating(games: list, per_pair: int) -> None:
    counted = counted_results(games, per_pair=per_pair)
    ratings = fit_ratings([name for game in games for name in game[:2]], pair_tallies(counted))
    assert ratings.keys() == {name for game in counted for name in game[:2]}
    for rating, interval in ratings.values():
        assert math.isfinite(rating) and interval is not None and math.isfinite(interval) and interval > 0
    # Anyone's first game with an opponent in a day counts, unless nothing may.
    if per_pair:
        assert ratings.keys() == {name for game in games for name in game[:2]}
