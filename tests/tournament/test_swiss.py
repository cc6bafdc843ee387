"""Swiss pairing rules, tie-breaks and the ladder selector (referee.tournament.formats.pairing)."""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.tournament.formats.pairing import (
    BYE_SCORE, buchholz, default_rounds, ladder_pairs, pair_round, scores, sonneborn_berger, standings,
)

NAMES = [chr(ord("A") + i) for i in range(12)]


def _matchable(agents: list[str], met: set[frozenset[str]], colours: dict[str, str] | None = None) -> bool:
    """Brute force: can ``agents`` (even count) all be paired with no pair in ``met`` (nor clashing colours)?"""
    if not agents:
        return True
    first, rest = agents[0], agents[1:]
    return any(
        frozenset((first, other)) not in met and not (colours and _clash(first, other, colours))
        and _matchable(rest[:i] + rest[i + 1:], met, colours)
        for i, other in enumerate(rest)
    )


def _clash(a: str, b: str, colours: dict[str, str]) -> bool:
    """Both one or more of the same colour up: their game takes one of them two away from balance."""
    da = colours[a].count("R") - colours[a].count("B")
    db = colours[b].count("R") - colours[b].count("B")
    return da * db > 0


def _avoidable(agents: list[str], met: set[frozenset[str]]) -> bool:
    """Whether some round (any bye for an odd field) has no rematch."""
    if len(agents) % 2 == 0:
        return _matchable(agents, met)
    return any(_matchable([a for a in agents if a != bye], met) for bye in agents)


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[str], dict[str, float], set[frozenset[str]], dict[str, str], list[str]]:
    """A random field: scores, pairs already met, colour histories, byes had."""
    n = draw(st.integers(2, 10))
    agents = NAMES[:n]
    points = {a: draw(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0])) for a in agents}
    pairs = [frozenset((a, b)) for i, a in enumerate(agents) for b in agents[i + 1:]]
    met = set(draw(st.lists(st.sampled_from(pairs), max_size=len(pairs))))
    colours = {a: draw(st.text(alphabet="RB", max_size=4)) for a in agents}
    byes = draw(st.lists(st.sampled_from(agents), max_size=2, unique=True))
    return agents, points, met, colours, byes


@settings(max_examples=300, deadline=None)
@given(tables())
def test_every_agent_plays_once_or_has_the_bye(table: tuple) -> None:  # type: ignore[type-arg]
    agents, points, met, colours, byes = table
    result = pair_round(agents, points, met, colours, byes)
    seen = [a for pair in result.pairs for a in pair] + ([result.bye] if result.bye else [])
    assert sorted(seen) == sorted(agents)
    assert (result.bye is not None) == (len(agents) % 2 == 1)


@settings(max_examples=300, deadline=None)
@given(tables())
def test_no_rematch_while_avoidable(table: tuple) -> None:  # type: ignore[type-arg]
    agents, points, met, colours, byes = table
    result = pair_round(agents, points, met, colours, byes)
    rematches = sum(frozenset(p) in met for p in result.pairs)
    assert rematches == result.rematches
    if _avoidable(agents, met):
        assert rematches == 0


@settings(max_examples=300, deadline=None)
@given(tables())
def test_no_colour_clash_while_avoidable(table: tuple) -> None:  # type: ignore[type-arg]
    agents, points, met, colours, byes = table
    if len(agents) % 2:
        return
    result = pair_round(agents, points, met, colours, byes)
    if _matchable(agents, met, colours):
        assert not any(_clash(a, b, colours) for a, b in result.pairs)


@settings(max_examples=300, deadline=None)
@given(tables())
def test_the_bye_goes_to_an_agent_without_one_while_possible(table: tuple) -> None:  # type: ignore[type-arg]
    agents, points, met, colours, byes = table
    if len(agents) % 2 == 0:
        return
    result = pair_round(agents, points, met, colours, byes)
    fresh = [a for a in agents if a not in byes]
    if any(_matchable([a for a in agents if a != bye], met) for bye in fresh):
        assert result.bye not in byes


def test_top_half_meets_bottom_half_of_each_score_group() -> None:
    points = {"A": 1, "B": 1, "C": 1, "D": 1, "E": 0, "F": 0, "G": 0, "H": 0}
    result = pair_round(list("ABCDEFGH"), points, set(), {})
    assert {frozenset(p) for p in result.pairs} == {
        frozenset("AC"), frozenset("BD"), frozenset("EG"), frozenset("FH")}


def test_the_odd_one_out_floats_down_to_the_top_of_the_next_group() -> None:
    points = {"A": 1, "B": 1, "C": 1, "D": 0, "E": 0, "F": 0}
    result = pair_round(list("ABCDEF"), points, set(), {})
    assert {frozenset(p) for p in result.pairs} == {frozenset("AB"), frozenset("CD"), frozenset("EF")}


def test_backtracks_when_the_first_choice_forces_a_rematch() -> None:
    # A's first fresh choice is D, which would leave B-C, who have met: A must take B instead.
    met = {frozenset("AC"), frozenset("BC")}
    result = pair_round(list("ABCD"), {}, met, {})
    assert {frozenset(p) for p in result.pairs} == {frozenset("AB"), frozenset("CD")}
    assert result.rematches == 0


def test_unavoidable_rematch_is_made_and_counted() -> None:
    result = pair_round(["A", "B"], {}, {frozenset("AB")}, {})
    assert result.pairs in ((("A", "B"),), (("B", "A"),))
    assert result.rematches == 1


def test_the_agent_due_red_gets_it() -> None:
    # A-B and C-D (A and C have met, so A takes the lower group's best).  B has had
    # fewer Reds than A; C and D are level, and C played Blue last.
    result = pair_round(list("ABCD"), {"A": 1, "B": 0, "C": 1, "D": 0},
                        {frozenset("AC"), frozenset("BD")}, {"A": "RR", "B": "BB", "C": "RB", "D": "BR"})
    assert result.pairs == (("B", "A"), ("C", "D"))


def test_bye_goes_to_the_lowest_ranked_without_one() -> None:
    points = {"A": 2, "B": 1, "C": 0}
    assert pair_round(list("ABC"), points, set(), {}).bye == "C"
    assert pair_round(list("ABC"), points, set(), {}, byes=["C"]).bye == "B"
    assert pair_round(list("ABC"), points, set(), {}, byes=["A", "B", "C"]).bye == "C"


def _simulate(agents: list[str], rounds: int, seed: int) -> tuple[list[str], dict[str, str], int]:
    """Play ``rounds`` Swiss rounds with random results: the byes, the colour histories, rematches made."""
    rng = random.Random(seed)
    results: list[tuple[str, str, float]] = []
    met: set[frozenset[str]] = set()
    colours = {a: "" for a in agents}
    byes: list[str] = []
    rematches = 0
    for _ in range(rounds):
        result = pair_round(agents, scores(agents, results, byes), met, colours, byes)
        rematches += result.rematches
        if result.bye:
            byes.append(result.bye)
        for red, blue in result.pairs:
            results.append((red, blue, rng.choice([0.0, 0.5, 1.0])))
            met.add(frozenset((red, blue)))
            colours[red] += "R"
            colours[blue] += "B"
    return byes, colours, rematches


@settings(max_examples=100, deadline=None)
@given(st.integers(3, 5).map(lambda k: 2 * k + 1), st.integers(0, 10_000))
def test_byes_go_to_different_agents(n: int, seed: int) -> None:
    # From 7 agents up the default event is shorter than a round robin, so nothing forces a second bye.
    byes, _, _ = _simulate(NAMES[:n], default_rounds(n), seed)
    assert len(byes) == default_rounds(n)
    assert len(set(byes)) == len(byes)


@settings(max_examples=100, deadline=None)
@given(st.integers(4, 6).map(lambda k: 2 * k), st.integers(0, 10_000))
def test_no_rematches_and_colours_within_two_over_a_default_event(n: int, seed: int) -> None:
    # From 8 agents up; below, the default event is a whole round robin, which pairing one
    # round at a time can paint into a corner (the last round's only pairings are rematches).
    # Within 1 is kept round by round where a pairing allows it (test above); over an
    # event earlier rounds can leave no such pairing, and then a clash beats a rematch.
    _, colours, rematches = _simulate(NAMES[:n], default_rounds(n), seed)
    assert rematches == 0
    assert all(abs(h.count("R") - h.count("B")) <= 2 for h in colours.values()), colours


def test_tie_breaks_on_a_hand_made_event() -> None:
    # R1: A beats B, C draws D.  R2: A draws C, B beats D.  R3: D beats A, B beats C.
    results = [("A", "B", 1.0), ("C", "D", 0.5), ("A", "C", 0.5), ("B", "D", 1.0), ("A", "D", 0.0), ("B", "C", 1.0)]
    agents = list("ABCD")
    assert scores(agents, results) == {"A": 1.5, "B": 2.0, "C": 1.0, "D": 1.5}
    # Buchholz A: B 2 + C 1 + D 1.5; B: A 1.5 + D 1.5 + C 1; C: D 1.5 + A 1.5 + B 2; D: C 1 + B 2 + A 1.5.
    assert buchholz(agents, results) == {"A": 4.5, "B": 4.0, "C": 5.0, "D": 4.5}
    # SB A: 1x2 + 0.5x1 + 0x1.5; B: 0x1.5 + 1x1.5 + 1x1; C: 0.5x1.5 + 0.5x1.5 + 0x2; D: 0.5x1 + 0x2 + 1x1.5.
    assert sonneborn_berger(agents, results) == {"A": 2.5, "B": 2.5, "C": 1.5, "D": 2.0}
    # A and D tie on score and Buchholz; Sonneborn-Berger puts A first.
    assert standings(agents, results) == ["B", "A", "D", "C"]


def test_a_bye_scores_a_draw_and_adds_no_buchholz() -> None:
    assert BYE_SCORE == 0.5
    results = [("A", "B", 1.0)]
    assert scores(list("ABC"), results, ["C"]) == {"A": 1.0, "B": 0.0, "C": 0.5}
    assert buchholz(list("ABC"), results, ["C"]) == {"A": 0.0, "B": 1.0, "C": 0.0}


def test_default_rounds() -> None:
    assert [default_rounds(n) for n in (0, 1, 2, 4, 8, 9, 64, 300)] == [0, 0, 1, 3, 5, 6, 8, 11]


def test_ladder_prefers_close_ratings_and_wide_intervals() -> None:
    ratings = {"A": (1000.0, 50.0), "B": (1010.0, 50.0), "C": (1500.0, 50.0), "D": (1510.0, 50.0)}
    assert {frozenset(p) for p in ladder_pairs(ratings)} == {frozenset("AB"), frozenset("CD")}
    # Same gaps, but C and D are barely known: their game is worth more, so it comes first.
    ratings = {"A": (1000.0, 50.0), "B": (1010.0, 50.0), "C": (1500.0, 300.0), "D": (1510.0, 300.0)}
    assert ladder_pairs(ratings, batch=1) == [("C", "D")]
    assert ladder_pairs(ratings, avoid={frozenset("CD")}, batch=1) != [("C", "D")]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(NAMES), st.tuples(st.floats(0, 2000), st.floats(1, 500)), max_size=12),
       st.none() | st.integers(0, 8))
def test_ladder_never_uses_an_agent_twice_in_a_batch(ratings: dict[str, tuple[float, float]],
                                                     batch: int | None) -> None:
    pairs = ladder_pairs(ratings, batch)
    used = [a for p in pairs for a in p]
    assert len(used) == len(set(used))
    assert len(pairs) == (len(ratings) // 2 if batch is None else min(batch, len(ratings) // 2))


def test_a_large_field_runs_its_default_event_without_rematches() -> None:
    # The benchmark's sizes: the search must not fall back on rematches there either.
    for n, seed in ((64, 1), (65, 2)):
        byes, colours, rematches = _simulate([f"a{i:03d}" for i in range(n)], default_rounds(n), seed)
        assert rematches == 0
        assert len(set(byes)) == len(byes) == (default_rounds(n) if n % 2 else 0)
        assert all(abs(h.count("R") - h.count("B")) <= 2 for h in colours.values())
