"""The schedule: balanced, lazy, reproducible."""
from __future__ import annotations

from collections import Counter
from itertools import combinations, islice

import pytest

from referee.limits import Limits
from referee.match import AgentEntry
from referee.tournament.formats.gauntlet import Gauntlet
from referee.tournament.formats.round_robin import RoundRobin
from referee.tournament.schedule import TournamentPlan, game_seed, job, schedule


def plan(n: int = 4, games_per_pair: int = 4, **kwargs) -> TournamentPlan:
    agents = tuple(AgentEntry(f"pkg.a{i}", f"a{i}") for i in range(n))
    return TournamentPlan(name="t", agents=agents, games_per_pair=games_per_pair, **kwargs)


def test_round_robin_plays_every_pairing_with_both_colours_equally():
    jobs = list(schedule(plan(4, 4)))
    assert len(jobs) == plan(4, 4).total_games == 6 * 4
    assert [j.index for j in jobs] == list(range(24))
    colours = Counter((j.red.name, j.blue.name) for j in jobs)
    pairs = {frozenset(p) for p in colours}
    assert len(pairs) == 6
    assert all(count == 2 for count in colours.values())  # each pairing: 2 games each way


def test_any_prefix_is_balanced():
    # Round-major order: after each round every pairing has played the same number of games.
    jobs = list(schedule(plan(4, 4)))
    first_round = jobs[:6]
    assert len({frozenset((j.red.name, j.blue.name)) for j in first_round}) == 6


def test_gauntlet_pairs_the_challenger_with_each_other_agent():
    gauntlet = plan(4, 2, format=Gauntlet("a2", 2))
    jobs = list(schedule(gauntlet))
    assert len(jobs) == gauntlet.total_games == 3 * 2
    assert all("a2" in (j.red.name, j.blue.name) for j in jobs)
    assert Counter(j.red.name for j in jobs)["a2"] == 3


def test_the_schedule_is_lazy():
    # 1000 agents, 1000 games per pairing: half a billion games, never built.
    huge = plan(1000, 1000)
    assert huge.total_games == 499_500_000
    first = list(islice(schedule(huge), 3))
    assert [j.index for j in first] == [0, 1, 2]


def test_seeds_are_reproducible_and_differ_between_games():
    jobs = list(schedule(plan(3, 2, seed=5)))
    again = list(schedule(plan(3, 2, seed=5)))
    assert [j.settings.seed for j in jobs] == [j.settings.seed for j in again]
    assert len({j.settings.seed for j in jobs}) == len(jobs)
    assert [j.settings.seed for j in schedule(plan(3, 2, seed=6))] != [j.settings.seed for j in jobs]
    assert game_seed(5, 3) == jobs[3].settings.seed


def test_each_infinitron_game_gets_its_own_map_unless_the_config_fixes_it():
    from referee.games import load_game

    jobs = list(schedule(plan(2, 6, seed=1, game="infinitron", game_options={"chaos": True})))
    # Each game's own seed, and the rules version said outright (so that its record names it).
    assert all(j.settings.game_options == {"chaos": True, "seed": j.settings.seed, "rules": "1.2"} for j in jobs)
    maps = {tuple(load_game("infinitron", **j.settings.game_options).neutral_cities) for j in jobs}
    assert len(maps) > 1
    fixed = list(schedule(plan(2, 2, game="infinitron", game_options={"seed": 3})))
    assert all(j.settings.game_options == {"seed": 3, "rules": "1.2"} for j in fixed)
    # Other games take their options as they are.
    assert all(j.settings.game_options == {"n": 5} for j in schedule(plan(2, 2, game="cachex", game_options={"n": 5})))


def test_skipped_games_keep_their_places_and_seeds():
    full = {j.index: j for j in schedule(plan(3, 4))}
    rest = list(schedule(plan(3, 4), skip={0, 5, 7}))
    assert [j.index for j in rest] == [i for i in range(12) if i not in {0, 5, 7}]
    assert all(j == full[j.index] for j in rest)


def test_games_carry_their_context_for_the_record():
    p = plan(3, 2, game_options={}, limits=Limits(time_limit=5.0, space_limit=50.0))
    job = next(iter(schedule(p)))
    assert job.settings.limits == Limits(time_limit=5.0, space_limit=50.0)
    assert job.settings.extra == {
        "tournament": "t",
        "config_hash": p.fingerprint,
        "game_index": 0,
        "round": 0,
        "pairing": ["a0", "a1"],
    }


def test_the_fingerprint_follows_what_decides_the_games():
    base = plan(3, 2)
    assert base.fingerprint == plan(3, 2).fingerprint
    assert base.fingerprint != plan(3, 4).fingerprint
    assert base.fingerprint != plan(3, 2, seed=1).fingerprint
    assert base.fingerprint != plan(3, 2, limits=Limits(time_limit=1.0)).fingerprint
    assert base.fingerprint != plan(4, 2).fingerprint


@pytest.mark.parametrize("n", [2, 3, 4, 7])
@pytest.mark.parametrize("challenger", [None, 0, 1])
def test_any_game_of_the_schedule_is_found_by_its_index_alone(n, challenger):
    # Checking a record needs game k's agents without listing games 0..k-1.
    form = RoundRobin() if challenger is None else Gauntlet(f"a{challenger}", challenger)
    p = plan(n, 4, format=form)
    pairings = [form.pairing(p, k) for k in range(form.pairing_count(p))]
    if challenger is None:
        assert pairings == list(combinations(range(n), 2))
    else:
        assert pairings == [(challenger, j) for j in range(n) if j != challenger]
    assert [job(p, k) for k in range(p.total_games)] == list(schedule(p))
    for outside in (-1, p.total_games):
        with pytest.raises(IndexError):
            job(p, outside)
