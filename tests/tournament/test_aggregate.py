"""Aggregation: a pure function of the records, whatever their order."""
from __future__ import annotations

import csv
import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.records import GameRecord
from referee.tournament.aggregate import OPPONENT_FAILED, GameSummary, RoundRow, aggregate
from referee.tournament.sprt import H1_ACCEPTED, INCONCLUSIVE, SprtSettings, log_likelihood_ratio, pentanomial_llr
from referee.tournament.tables import summary_lines
from referee.tournament.tables import crosstable, endings_table, pairs_table, render, standings_table, write_files

from .fakes import make_record


def test_counts_points_and_colours():
    records = [
        make_record("a", "b", "RED"),
        make_record("b", "a", None, reason="turn_limit"),
        make_record("a", "c", "BLUE"),
        make_record("c", "b", "RED"),
    ]
    results = aggregate(records)
    a, b, c = (results.agents[n] for n in "abc")
    assert (a.games, a.wins, a.draws, a.losses, a.points) == (3, 1, 1, 1, 1.5)
    assert (b.wins, b.draws, b.losses) == (0, 1, 2)
    assert (c.wins, c.losses) == (2, 0)
    ab = results.pairs[("a", "b")]
    assert (ab.wins, ab.draws, ab.losses, ab.points) == (1, 1, 0, 1.5)
    assert ab.as_red["W"] == 1 and ab.as_blue["D"] == 1
    assert results.pairs[("b", "a")].points == 0.5
    assert [agent.name for agent in results.standings()] == ["c", "a", "b"]
    rows = standings_table(results).rows
    assert [row[1] for row in rows] == ["c", "a", "b"] and [row[0] for row in rows] == [1, 2, 3]
    cross = {row[0]: row[1:] for row in crosstable(results).rows}
    assert cross["a"] == ["0/1", "—", "1.5/2"]  # columns in standings order: c, a, b


def test_equal_points_share_a_rank():
    results = aggregate([make_record("a", "b", None), make_record("b", "a", None)])
    rows = standings_table(results).rows
    assert [row[0] for row in rows] == [1, 1]
    assert [row[8] for row in rows] == ["+0.0", "+0.0"]  # no "-0.0"


def test_failures_count_for_the_agent_that_failed():
    records = [
        make_record("a", "b", "BLUE", reason="time_limit", error_color="RED"),
        make_record("b", "a", "RED", reason="illegal_action", error_color="BLUE"),
        make_record("a", "b", "RED", reason="agent_crashed", error_color="BLUE"),
        make_record("a", "b", None, reason="turn_limit"),
    ]
    results = aggregate(records)
    a, b = results.agents["a"], results.agents["b"]
    assert a.endings == {"time": 1, "illegal": 1, OPPONENT_FAILED: 1, "turn_limit": 1}
    assert b.endings == {OPPONENT_FAILED: 2, "crash": 1, "turn_limit": 1}
    headers = endings_table(results).headers
    assert (
        headers[:3] == ["agent", "games", "turn limit"]
        and "memory" in headers
        and headers[-2:] == ["CPU ms/move", "peak MB"]
    )


def both_failed(red: str, blue: str, **kwargs) -> GameRecord:
    """A game neither agent could be loaded for (on_error: forfeit): no winner, an error for each."""
    record = make_record(red, blue, None, reason="load_error", error_color="RED", **kwargs)
    return GameRecord(
        **{**record.to_dict(), "error": {c: {"kind": "load_error", "message": "x"} for c in ("RED", "BLUE")}}
    )


def test_a_game_neither_agent_could_load_is_half_a_point_each_with_an_error_for_both():
    results = aggregate([both_failed("a", "b"), make_record("a", "b", "RED")])
    a, b = results.agents["a"], results.agents["b"]
    # No winner: ½ each, the one rule of tables, formats' pairings and marks (referee.records.points).
    assert (a.wins, a.draws, a.losses, a.points) == (1, 1, 0, 1.5)
    assert (b.wins, b.draws, b.losses, b.points) == (0, 1, 1, 0.5)
    assert results.pairs[("a", "b")].points == 1.5 and results.pairs[("b", "a")].points == 0.5
    assert results.pairs[("a", "b")].rated == (1, 0, 0)
    assert a.endings == {"error": 1, "elimination": 1} and b.endings == {"error": 1, "elimination": 1}
    # The head-to-head statistics see only the game that was played: one win of a's.
    assert results.head_to_head.draw_ratio == 0.0 and results.head_to_head.los > 0.5
    assert results.head_to_head == aggregate([make_record("a", "b", "RED")]).head_to_head


def test_games_both_agents_failed_stay_out_of_the_ratings_and_the_sprt():
    played = [
        make_record(r, b, w) for r, b, w in [("a", "b", "RED"), ("b", "c", None), ("c", "a", "BLUE"), ("a", "c", None)]
    ]
    played += [make_record("x", n, "BLUE") for n in "abc"] + [make_record(n, "y", "RED") for n in "abc"]
    played += [make_record("x", "y", "RED"), make_record("y", "x", "RED")]
    # Two more games between x and y that neither could play: the ratings must not move.
    with_both = aggregate(played + [both_failed("x", "y"), both_failed("y", "x")])
    assert with_both.ratings == aggregate(played).ratings
    x = with_both.agents["x"]
    assert (x.games, x.wins, x.draws, x.losses) == (3 + 2 + 2, 1, 2, 3 + 1)
    # Two agents under an SPRT: the failed games are neither in the LLR nor in its trajectory.
    match = [make_record("p", "q", "RED", extra={"config_hash": "h", "game_index": i}) for i in range(6)]
    failed = [both_failed("p", "q", extra={"config_hash": "h", "game_index": 6 + i}) for i in range(4)]
    settings = SprtSettings(0, 50)
    with_failed = aggregate(match + failed, sprt=settings, tested="p")
    alone = aggregate(match, sprt=settings, tested="p")
    assert with_failed.sprt == alone.sprt and with_failed.sprt_trajectory == alone.sprt_trajectory
    assert with_failed.ratings == alone.ratings and with_failed.agents["p"].draws == 4


def test_agents_that_only_failed_together_get_no_rating():
    results = aggregate([both_failed("x", "y"), both_failed("y", "x")])
    assert results.ratings.ratings == {} and results.head_to_head is None
    assert {row[1]: row[9] for row in standings_table(results).rows} == {"x": "—", "y": "—"}


def test_cpu_per_move_and_peak_memory():
    records = [
        make_record("a", "b", "RED", cpu=(1.0, 0.0), moves=(10, 10), memory=(5.0, 1.0)),
        make_record("b", "a", "RED", cpu=(0.0, 3.0), moves=(10, 30), memory=(1.0, 7.5)),
    ]
    a = aggregate(records).agents["a"]
    assert a.cpu_per_move == pytest.approx(4.0 / 40)
    assert a.peak_memory_mb == 7.5
    row = next(r for r in endings_table(aggregate(records)).rows if r[0] == "a")
    assert row[-2:] == ["100.00", "7.5"]


def test_a_game_recorded_twice_counts_once():
    extra = {"config_hash": "h", "game_index": 4}
    once = aggregate([make_record("a", "b", "RED", extra=extra)])
    twice = aggregate([make_record("a", "b", "RED", extra=extra)] * 2)
    assert twice.games == once.games == 1
    assert render(twice) == render(once)


def test_two_agents_head_to_head_and_sprt():
    records = [make_record("x", "y", "RED", extra={"config_hash": "h", "game_index": i}) for i in range(30)]
    results = aggregate(records, sprt=SprtSettings(0, 50), tested="x")
    assert results.head_to_head.los > 0.99 and results.head_to_head.draw_ratio == 0
    assert results.sprt.verdict == H1_ACCEPTED
    assert [step[0] for step in results.sprt_trajectory] == list(range(1, 31))
    assert [step[1] for step in results.sprt_trajectory] == list(range(30))
    llrs = [step[2] for step in results.sprt_trajectory]
    assert llrs == sorted(llrs)  # every win raises it
    # Seen from y's side the same games are evidence against it.
    from_y = aggregate(records, sprt=SprtSettings(0, 50), tested="y")
    assert from_y.sprt.llr < 0 and from_y.sprt.verdict != H1_ACCEPTED
    assert from_y.ratings.ratings["y"].elo < 0


def test_sprt_inconclusive_when_no_games_are_left():
    records = [make_record("x", "y", w) for w in ("RED", "BLUE", None, "RED")]
    assert aggregate(records, sprt=SprtSettings(0, 50), tested="x", games_left=False).sprt.verdict == INCONCLUSIVE


def test_files_are_written(tmp_path):
    records = [make_record("a", "b", "RED"), make_record("b", "c", None), make_record("c", "a", "BLUE")]
    written = write_files(aggregate(records), tmp_path, "Test")
    assert {p.name for p in written} == {"standings.csv", "crosstable.csv", "pairs.csv", "endings.csv", "results.md"}
    with open(tmp_path / "standings.csv", newline="") as file:
        rows = list(csv.reader(file))
    assert rows[0][:3] == ["rank", "agent", "games"] and len(rows) == 4
    markdown = (tmp_path / "results.md").read_text()
    assert markdown.startswith("# Test") and "## Standings" in markdown and "| agent" in markdown


# -- order does not matter -------------------------------------------------------

NAMES = ["ann", "bo", "cy", "dee"]
REASONS = ["elimination", "turn_limit", "time_limit", "space_limit", "output_limit", "illegal_action", "agent_crashed",
           "agent_error"]


@st.composite
def records(draw):
    red, blue = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True))
    winner = draw(st.sampled_from(["RED", "BLUE", None]))
    reason = draw(st.sampled_from(REASONS))
    failing = None
    if winner and reason not in ("elimination", "turn_limit"):
        failing = "BLUE" if winner == "RED" else "RED"
    elif reason not in ("elimination", "turn_limit"):
        reason = "turn_limit"
    cpu = draw(st.tuples(*[st.floats(0, 50, allow_nan=False)] * 2))
    moves = draw(st.tuples(*[st.integers(0, 200)] * 2))
    memory = draw(st.tuples(*[st.floats(0, 300, allow_nan=False)] * 2))
    index = draw(st.integers(0, 40))
    return make_record(
        red, blue, winner, reason, cpu=cpu, moves=moves, memory=memory, error_color=failing,
        extra={"config_hash": "h", "game_index": index, "round": index},
    )


def _everything(results):
    tables = [standings_table(results), crosstable(results), pairs_table(results), endings_table(results)]
    return render(results, SprtSettings(0, 20)), [t.rows for t in tables], results.sprt_trajectory


@settings(max_examples=60, deadline=None)
@given(st.lists(records(), max_size=25).flatmap(lambda rs: st.tuples(st.just(rs), st.permutations(rs))))
def test_tables_do_not_depend_on_record_order(pair):
    original, shuffled = pair
    kwargs = {"sprt": SprtSettings(0, 20), "tested": "ann"}
    assert _everything(aggregate(original, **kwargs)) == _everything(aggregate(shuffled, **kwargs))
    # Summaries (what the CLI streams from games.jsonl) give the same as whole records.
    assert _everything(aggregate([GameSummary.of(r) for r in shuffled], **kwargs)) == _everything(
        aggregate(original, **kwargs)
    )


def test_the_live_sprt_count_leaves_out_games_both_agents_failed_as_the_tables_do():
    from referee.tournament.aggregate import Tally

    records = [make_record("p", "q", w) for w in ("RED", "BLUE", None, "RED")] + [both_failed("q", "p")]
    tally = Tally("p")
    for record in records:
        tally.add(GameSummary.of(record))
    final = aggregate(records, sprt=SprtSettings(0, 50), tested="p").sprt
    assert (tally.wins, tally.draws, tally.losses) == (final.wins, final.draws, final.losses) == (2, 1, 1)



# -- two agents in colour-swapped pairs ------------------------------------------------------


def match_game(round_: int, p_scores: float | None, failed: bool = False):
    """Round ``round_`` of a two-agent schedule (p Red in even rounds); p's score 1, 0.5 or 0."""
    red, blue = ("p", "q") if round_ % 2 == 0 else ("q", "p")
    extra = {"config_hash": "h", "game_index": round_, "round": round_}
    if failed:
        return both_failed(red, blue, extra=extra)
    winner = None if p_scores == 0.5 else ("RED" if (p_scores == 1) == (red == "p") else "BLUE")
    return make_record(red, blue, winner, extra=extra)


def test_pairs_of_rounds_give_the_pentanomial_counts():
    scores = [1, 0, 1, 1, 0.5, 0.5, 0, 0.5, 1, 0.5, 0, 0, 1]  # round 12 has no partner yet
    records = [match_game(r, x) for r, x in enumerate(scores)]
    # Pairs (rounds 0-1, 2-3, ...) scoring 1, 2, 1, 1/2, 1 1/2, 0 points: counts of 0, 1/2, 1, 1 1/2, 2 points.
    expected = (1, 1, 2, 1, 1)
    settings = SprtSettings(0, 20)
    results = aggregate(records, sprt=settings, tested="p")
    assert results.paired.counts == expected and results.unpaired == 1
    assert results.sprt.pentanomial_llr == pentanomial_llr(expected, 0, 20) and results.sprt.pairs == 6
    # The verdict stays the W/D/L one.
    assert results.sprt.llr == log_likelihood_ratio(5, 4, 4, 0, 20)
    lines = "\n".join(summary_lines(results, settings))
    assert "Pentanomial, 6 colour-swapped pairs scoring 0/½/1/1½/2: 1/1/2/1/1" in lines
    assert "1 games outside a complete pair left out" in lines
    assert "SPRT (logistic Elo: elo0 0, elo1 20," in lines and "pentanomial LLR" in lines
    # From q's side every pair is mirrored.
    assert aggregate(records, tested="q").paired.counts == expected[::-1]


def test_only_complete_colour_swapped_pairs_count():
    records = [match_game(0, 1), match_game(1, 1), match_game(2, 1), match_game(3, None, failed=True)]
    # Rounds 2-3: round 3 both agents failed, so round 2 has no partner.
    results = aggregate(records, tested="p")
    assert results.paired.counts == (0, 0, 0, 0, 1) and results.unpaired == 1
    # The same colours twice are no pair (records not from the schedule).
    same = aggregate(
        [
            match_game(0, 1),
            GameRecord(**{**match_game(0, 0).to_dict(), "extra": {"config_hash": "h", "game_index": 1, "round": 1}}),
        ],
        tested="p",
    )
    assert same.paired is None and same.unpaired == 2
    # Records without rounds (not from a tournament) have no pairs at all.
    assert aggregate([make_record("p", "q", "RED"), make_record("q", "p", "RED")], tested="p").paired is None



# -- ranking ---------------------------------------------------------------------------


def gauntlet(challenger: str, opponents: str, wins: int, losses: int) -> list[GameRecord]:
    """The challenger's games against each opponent: ``wins`` won and ``losses`` lost, colours alternating."""
    records = []
    for opponent in opponents:
        for k, won in enumerate([True] * wins + [False] * losses):
            red, blue = (challenger, opponent) if k % 2 == 0 else (opponent, challenger)
            records.append(make_record(red, blue, "RED" if won == (red == challenger) else "BLUE"))
    return records


def test_a_gauntlet_ranks_by_rating_not_by_points():
    # The case: 40% against each of three opponents, 20 games each, is
    # 24 points to the opponents' 12, and the lowest rating (each opponent
    # scored 60% against it, so all three are elo(0.6) = 70.4 above it).
    results = aggregate(gauntlet("C", ["o1", "o2", "o3"], wins=8, losses=12))
    assert results.agents["C"].points == 24 and results.agents["o1"].points == 12
    assert results.ranked_by == "Elo"
    rows = standings_table(results).rows
    assert [(row[0], row[1]) for row in rows] == [(1, "o1"), (1, "o2"), (1, "o3"), (4, "C")]
    ratings = results.ratings.ratings
    assert ratings["o1"].elo - ratings["C"].elo == pytest.approx(400 * math.log10(0.6 / 0.4), abs=1e-6)
    assert (
        "Ranked by Elo (the joint fit of every game), then score %, then name: the agents have played different "
        "numbers of games (20 to 60), so points do not compare them." in render(results)
    )
    # The crosstable and the other tables follow the same order.
    assert [row[0] for row in crosstable(results).rows] == ["o1", "o2", "o3", "C"]


def test_equal_ratings_are_ranked_by_score_then_name():
    # x (4 games) and y (2) both scored 50% against C, so both are rated as C
    # is; z beat C twice.  Equal Elo falls to the score %: x and y 50% (sharing
    # a rank), C 3 of 8 = 37.5% after its losses to z.
    records = gauntlet("C", ["x"], wins=2, losses=2) + gauntlet("C", ["y"], wins=1, losses=1)
    records += gauntlet("C", ["z"], wins=0, losses=2)
    results = aggregate(records)
    ratings = results.ratings.ratings
    assert ratings["x"].elo == pytest.approx(ratings["C"].elo, abs=1e-6) == pytest.approx(ratings["y"].elo, abs=1e-6)
    rows = standings_table(results).rows
    assert [(row[0], row[1], row[7]) for row in rows] == [
        (1, "z", "100.0"),
        (2, "x", "50.0"),
        (2, "y", "50.0"),
        (4, "C", "37.5"),
    ]


def test_paired_formats_rank_by_elo_even_with_equal_numbers_of_games():
    # The same games as below, listed as rounds (a Swiss, ladder or knockout): opponents followed the results.
    records = [make_record("a", "b", "RED"), make_record("b", "c", None), make_record("c", "a", None)]
    results = replace(aggregate(records), rounds=(RoundRow(1, "a", "b", "1-0"),))
    assert results.ranked_by == "Elo"
    assert standings_table(results).note == (
        "Ranked by Elo (the joint fit of every game), then score %, then name: the pairings followed the results: "
        "agents met opponents of different strengths, so points do not compare them."
    )


def test_equal_numbers_of_games_rank_by_points():
    # a 1.5 points, c 1, b 0.5, each in two games.
    records = [make_record("a", "b", "RED"), make_record("b", "c", None), make_record("c", "a", None)]
    results = aggregate(records)
    assert results.ranked_by == "points" and "Ranked by points (win 1, draw ½)" in render(results)
    assert "Elo, then score" not in render(results)
    assert [(row[0], row[1], row[6]) for row in standings_table(results).rows] == [
        (1, "a", "1.5"),
        (2, "c", "1"),
        (3, "b", "0.5"),
    ]


def test_without_ratings_unequal_games_rank_by_score():
    # Two separate matches: no common scale, so no ratings; c played 4 games, the others 2.
    records = [make_record("a", "b", "RED"), make_record("b", "a", None)]
    records += [
        make_record("c", "d", "RED"),
        make_record("d", "c", "RED"),
        make_record("c", "d", "RED"),
        make_record("d", "c", "BLUE"),
    ]
    results = aggregate(records)
    assert results.ratings.ratings == {} and results.ranked_by == "score"
    assert [(row[0], row[1]) for row in standings_table(results).rows] == [(1, "a"), (1, "c"), (3, "b"), (3, "d")]
