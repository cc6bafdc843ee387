"""Games at odds: each side under its own time and space limit, through the command line and a tournament's YAML.

Real games: the agents run in their own (sealed) processes and really run out of their own budget.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from referee.records import GameRecord, RecordError
from referee.tournament.aggregate import aggregate
from tests.helpers import play_recorded, run_referee

MISBEHAVE = "tests.hosting.fixture_agents.misbehave"


def test_each_side_is_told_its_own_limits(tmp_path):
    # Both agents refuse to start, each saying what the referee told it: a draw with both errors kept.
    _, record = play_recorded(tmp_path / "r.json", f"{MISBEHAVE}:TellsItsLimits", f"{MISBEHAVE}:TellsItsLimits",
                              "-t", "18,180", "-s", "100,300")
    assert "RED: time_remaining=18.0 space_limit=100.0" in record.error["RED"]["message"]
    assert "BLUE: time_remaining=180.0 space_limit=300.0" in record.error["BLUE"]["message"]
    assert record.odds == {"RED": {"time_limit": 18.0, "space_limit": 100.0},
                           "BLUE": {"time_limit": 180.0, "space_limit": 300.0}}
    assert (record.time_limit, record.space_limit) == (None, None)  # the sides differ on both
    assert record.at_odds and record.limit_of("BLUE", "time_limit") == 180.0


@pytest.mark.parametrize("looper, limits, winner, loser_limit", [
    ("RED", "0.5,60", "BLUE", "0.5 s"),
    ("BLUE", "60,0.5", "RED", "0.5 s"),
])
def test_a_side_runs_out_of_its_own_time_not_the_others(tmp_path, looper, limits, winner, loser_limit):
    red, blue = (f"{MISBEHAVE}:CpuLoop", f"{MISBEHAVE}:Plays")[:: 1 if looper == "RED" else -1]
    _, record = play_recorded(tmp_path / "r.json", red, blue, "-t", limits, "-s", "250", timeout=120)
    assert (record.winner, record.reason) == (winner, "time_limit")
    assert f"over its limit of {loser_limit}" in record.error[looper]["message"]
    assert record.space_limit == 250.0 and record.time_limit is None


def test_a_side_runs_out_of_its_own_memory(tmp_path):
    _, record = play_recorded(tmp_path / "r.json", f"{MISBEHAVE}:Plays", f"{MISBEHAVE}:MemoryHog",
                              "-s", "500,40", "-t", "30", timeout=120)
    assert (record.winner, record.reason) == ("RED", "space_limit")
    assert "over its limit of 40 MB" in record.error["BLUE"]["message"]
    assert record.time_limit == 30.0 and record.odds["RED"]["space_limit"] == 500.0


def test_the_console_says_the_game_is_at_odds(tmp_path):
    proc, _ = play_recorded(tmp_path / "r.json", "agents.random_agent", "agents.random_agent",
                            "-t", "18,180", "-s", "250", "--seed", "3", "-v", "1", "-C")
    assert "at odds: RED 18 s CPU, 250 MB; BLUE 180 s CPU, 250 MB" in proc.stdout


def test_two_equal_numbers_are_an_even_game(tmp_path):
    proc, record = play_recorded(tmp_path / "r.json", "agents.random_agent", "agents.random_agent",
                                 "-t", "20,20", "-s", "250", "--seed", "3", "-v", "1")
    assert "at odds" not in proc.stdout
    assert record.odds is None and not record.at_odds
    assert (record.time_limit, record.space_limit) == (20.0, 250.0)


@pytest.mark.parametrize("args, says", [
    (("-t", "18,180,5"), "one number for both agents or two, Red's and Blue's"),
    (("-t", "18,fast"), "the time limit must be a number, not 'fast'"),
    (("-s", "250,-1"), "the space limit must be 0 or more, not -1"),
    (("-t", ","), "the time limit must be a number, not ''"),
])
def test_bad_pairs_are_refused_plainly(args, says):
    proc = run_referee("agents.random_agent", "agents.random_agent", *args)
    assert proc.returncode == 2
    assert says in proc.stderr and "Traceback" not in proc.stderr


def write_config(tmp_path: Path, agents: str) -> Path:
    config = tmp_path / "odds.yaml"
    config.write_text(
        "name: odds\ngame: infexion\n"
        f"agents:\n{agents}"
        "games_per_pair: 2\ntime_limit: 20\nspace_limit: 250\nseed: 4\n"
        f"output: {tmp_path / 'out'}\n"
    )
    return config


def test_a_tournament_agent_keeps_its_own_limits_in_both_colours(tmp_path):
    config = write_config(tmp_path, "  - {name: fast, spec: agents.greedy, time_limit: 2}\n  - agents.random_agent\n")
    proc = run_referee("tournament", str(config), "-q", timeout=180)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out"
    records = [GameRecord.from_json(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2 and {r.red_name for r in records} == {"fast", "random_agent"}
    for record in records:
        fast = "RED" if record.red_name == "fast" else "BLUE"
        other = "BLUE" if fast == "RED" else "RED"
        assert record.limit_of(fast, "time_limit") == 2.0 and record.limit_of(other, "time_limit") == 20.0
        assert record.space_limit == 250.0 and record.time_limit is None
    with open(out / "standings.csv", newline="") as f:
        rows = {row["agent"]: row for row in csv.DictReader(f)}
    assert rows["fast"]["limits"] == "2 s CPU, 250 MB"
    assert rows["random_agent"]["limits"] == "20 s CPU, 250 MB"
    report = (out / "results.md").read_text()
    assert "at odds: fast plays under its own 2 s CPU, 250 MB" in report
    plan = json.loads((out / "tournament.json").read_text())
    agents = plan.get("plan", plan)["agents"]
    assert {a["name"]: a.get("time_limit") for a in agents} == {"fast": 2.0, "random_agent": None}


def test_an_even_tournament_has_no_limits_column(tmp_path):
    config = write_config(tmp_path, "  - agents.greedy\n  - agents.random_agent\n")
    proc = run_referee("tournament", str(config), "-q", timeout=180)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "out" / "standings.csv", newline="") as f:
        assert "limits" not in next(csv.reader(f))
    assert "at odds" not in (tmp_path / "out" / "results.md").read_text()


def test_a_bad_agent_limit_in_yaml_names_its_line(tmp_path):
    config = write_config(tmp_path, "  - agents.random_agent\n  - {spec: agents.greedy, time_limit: soon}\n")
    proc = run_referee("tournament", str(config), "-q")
    assert proc.returncode == 2
    assert f"{config}:5" in proc.stderr and "time_limit" in proc.stderr and "'soon'" in proc.stderr
    assert "Traceback" not in proc.stderr


def record(red: str, blue: str, winner: str | None, red_time: float, blue_time: float) -> GameRecord:
    odds = None if red_time == blue_time else {
        "RED": {"time_limit": red_time, "space_limit": 250.0}, "BLUE": {"time_limit": blue_time, "space_limit": 250.0}
    }
    return GameRecord(
        game="infexion", red=f"agents.{red}", blue=f"agents.{blue}", red_name=red, blue_name=blue, winner=winner,
        reason="elimination", turns=10, actions=["SPAWN(0, 0)"] * 10, time_used={"RED": 1.0, "BLUE": 1.0},
        peak_memory_mb={"RED": 1.0, "BLUE": 1.0}, error={"RED": None, "BLUE": None},
        time_limit=red_time if odds is None else None, space_limit=250.0, odds=odds,
    )


def test_an_agents_games_at_other_odds_are_another_agents():
    games = [
        record("mcts", "edwin", "RED", 180, 180), record("edwin", "mcts", "BLUE", 180, 180),
        record("mcts", "edwin", "BLUE", 18, 180), record("edwin", "mcts", "RED", 180, 18),
    ]
    results = aggregate(games)
    assert set(results.agents) == {"mcts [180 s CPU, 250 MB]", "mcts [18 s CPU, 250 MB]", "edwin"}
    assert results.agents["mcts [180 s CPU, 250 MB]"].wins == 2
    assert results.agents["mcts [18 s CPU, 250 MB]"].losses == 2
    # Only an agent seen at more than one set of limits is named apart.
    assert set(aggregate(games[:2]).agents) == {"mcts", "edwin"}


@pytest.mark.parametrize("odds", [
    {"RED": {"time_limit": 18}},
    {"RED": {"time_limit": 18}, "BLUE": {"time_limit": "slow"}},
    {"RED": {"time_limit": 18}, "BLUE": {"clock": 180}},
    [18, 180],
])
def test_a_record_with_malformed_odds_is_refused(odds):
    data = record("a", "b", "RED", 18, 180).to_dict()
    data["odds"] = odds
    with pytest.raises(RecordError, match="odds"):
        GameRecord.from_dict(data)


def test_a_record_at_odds_round_trips_through_json():
    original = record("a", "b", None, 18, 180)
    again = GameRecord.from_json(original.to_json())
    assert again == original and again.limit_of("RED", "time_limit") == 18.0


@pytest.mark.parametrize("house, says", [
    ("fast=agents.mcts,q=3", "after the spec come only t=SECONDS (its own time limit) and s=MB"),
    ("fast=agents.mcts,t=soon", "the time limit must be a number, not 'soon'"),
    ("fast=", "a house agent is NAME=SPEC[,t=SECONDS][,s=MB]"),
])
def test_a_bad_house_agent_is_refused_plainly(house, says):
    proc = run_referee("serve", "--port", "0", "--house", house)
    assert proc.returncode == 2
    assert says in proc.stderr and "Traceback" not in proc.stderr
