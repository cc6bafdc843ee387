"""``format: swiss`` played for real: random agents in real processes, round by round."""
from __future__ import annotations

import html
import json
import os
import subprocess
import uuid
from pathlib import Path

import pytest

from referee.records import GameRecord
from referee.tournament import load_config, run
from referee.tournament.config import ConfigError, parse_config
from referee.tournament.formats.swiss import Swiss
from referee.tournament.journal import GamesFile
from referee.tournament.checks import RecordsRefused, check_records
from referee.tournament.lineup import build_lineup

from .commands import run as run_command
from .commands import start, table, wait_for_lines
from .procs import MARK, wait_until_gone
from .setups import SWISS
from .setups import SWISS_GAMES as GAMES

from tests.helpers import ROOT


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # agents are imported from the project folder, as the command does
    path = tmp_path / "swiss.yaml"
    path.write_text(SWISS)
    return load_config(path, agents_from=ROOT)


def _records(path: Path) -> list[GameRecord]:
    return [GameRecord.from_json(line) for line in path.read_text().splitlines()]


def _pairings(records: list[GameRecord]) -> dict[int, frozenset[frozenset[str]]]:
    """Each round's pairs, by name."""
    rounds: dict[int, set[frozenset[str]]] = {}
    for record in records:
        rounds.setdefault(record.extra["round"], set()).add(frozenset(record.extra["pairing"]))
    return {r: frozenset(pairs) for r, pairs in rounds.items()}


def test_a_swiss_run_plays_every_round_without_rematches(config, tmp_path):
    done = run(config, output=tmp_path / "out")
    assert done.summary.total == GAMES and done.summary.played == GAMES and not done.summary.referee_failures
    records = _records(done.games_file)
    assert sorted(r.game_index for r in records) == list(range(GAMES))
    rounds = _pairings(records)
    assert sorted(rounds) == [0, 1, 2] and all(len(pairs) == 2 for pairs in rounds.values())
    every = [pair for pairs in rounds.values() for pair in pairs]
    assert len(every) == len(set(every))  # no rematch
    # Each mini-match plays both colours once.
    for pair in set(every):
        games = [r for r in records if frozenset(r.extra["pairing"]) == pair]
        assert len(games) == 2 and {g.name_of("RED") for g in games} == set(pair)
    # Three rounds, five agents: every agent sits out at most once, and three agents sit out once each.
    sitting_out = [next(iter(set("abcde") - {n for p in pairs for n in p})) for pairs in rounds.values()]
    assert len(set(sitting_out)) == 3
    # The Swiss standings, with the byes' scores and the tie-breaks, are in the results and the files.
    columns = {column.header: column.values for column in done.results.columns}
    assert sorted(columns["Swiss score"]) == list("abcde")
    assert sum(columns["byes"].values()) == 3
    # 2 mini-matches a round + byes
    assert sum(float(score) for score in columns["Swiss score"].values()) == pytest.approx(2 * 3 + 0.5 * 3)
    # One ranked table, by the Swiss's own rule: score, Buchholz, Sonneborn-Berger; Elo is a column of values in
    # it, never a second rank.
    header, *standings = table(done.output, "standings")
    assert header == [
        "rank", "agent", "Swiss score", "byes", "Buchholz", "Sonneborn-Berger", "games", "wins", "draws", "losses",
        "points", "score %", "Elo", "95% CI", "code",
    ]
    assert [row[1] for row in standings] == [name for _, name in done.results.official]
    def key(row: list[str]) -> tuple[float, ...]:
        return float(row[2]), float(row[4]), float(row[5])  # Swiss score, Buchholz, Sonneborn-Berger

    for above, below in zip(standings, standings[1:]):
        assert key(above) >= key(below) and (below[0] == above[0]) == (key(above) == key(below))
    ratings = done.results.ratings.ratings
    assert {row[1]: float(row[12]) for row in standings} == {name: round(r.elo, 1) for name, r in ratings.items()}
    assert not (done.output / "swiss.csv").exists()
    text = (done.output / "results.md").read_text()
    rule = "Official ranking: by Swiss score (each mini-match's share of its points, a bye ½), then Buchholz, then"
    assert text.count("## Standings") == 1 and f"**{rule}" in text
    assert "Swiss standings" not in text and "trust it" not in text
    assert text.index(rule) < text.index("rank |")
    # Each round listed: its mini-matches (first Red, first Blue, points, game indices) and its bye.
    header, *listed = table(done.output, "rounds")
    assert header == ["round", "Red", "Blue", "result", "games"]
    by_round: dict[int, list[list[str]]] = {}
    for row in listed:
        by_round.setdefault(int(row[0]), []).append(row)
    assert sorted(by_round) == [1, 2, 3]
    for number, rows in by_round.items():
        matches = [r for r in rows if r[2] != "—"]
        assert {frozenset(r[1:3]) for r in matches} == rounds[number - 1]
        for r in matches:
            first, second = (int(i) for i in r[4].split(", "))
            game = next(g for g in records if g.game_index == first)
            assert game.name_of("RED") == r[1] and second == first + 1
            red, blue = (float(x) for x in r[3].split("-"))
            assert red + blue == 2
        idle = set("abcde") - {name for pair in rounds[number - 1] for name in pair}
        assert [({r[1]}, r[3]) for r in rows if r[2] == "—"] == [(idle, "bye +0.5")]
    assert "## Rounds: pairings and results" in text
    report = (done.output / "report.html").read_text()
    assert '<table id="rounds" class="sortable">' in report and '<table id="swiss"' not in report
    assert "bye +0.5" in report
    assert html.escape(rule) in report and report.count("<h2>Standings</h2>") == 1 and "Swiss standings" not in report


def test_a_stopped_swiss_run_resumes_with_the_same_pairings(config, tmp_path):
    whole = run(config, output=tmp_path / "whole")
    expected = _pairings(_records(whole.games_file))

    output = tmp_path / "parts"
    first = run(config, output=output, limit=5)  # stops inside round 1
    assert first.summary.played == 5
    assert sorted(r.game_index for r in _records(first.games_file)) == list(range(5))
    second = run(config, output=output, limit=2)  # the rest of round 1, from the records of round 0
    assert second.summary.played == 2
    last = run(config, output=output)
    assert last.summary.played == GAMES - 7 and last.summary.recorded == GAMES
    records = _records(last.games_file)
    assert sorted(r.game_index for r in records) == list(range(GAMES))
    # Same seed, same games: random agents draw from the game's seed, so every result, and so
    # every later round's pairing, is the same as in the run that was never stopped.
    assert _pairings(records) == expected


def test_a_killed_swiss_run_resumes_with_the_same_pairings_and_tables(config, tmp_path):
    whole = run(config, output=tmp_path / "whole")
    out = tmp_path / "killed"
    mark = uuid.uuid4().hex
    proc = start(config.path, out, env={**os.environ, MARK: mark}, stdout=subprocess.DEVNULL, text=False)
    wait_for_lines(out / "games.jsonl", 2, proc)
    proc.kill()  # SIGKILL: no cleanup in the tournament process at all
    proc.wait()
    proc.stderr.close()
    assert wait_until_gone(mark) == []
    recorded = len(_records(out / "games.jsonl"))
    assert 2 <= recorded < GAMES
    resumed = run_command(str(config.path), "-o", str(out), "--resume", "--workers", "2", "-q")
    assert resumed.returncode == 0, resumed.stderr
    assert "Official ranking: by Swiss score" in resumed.stdout and "Sonneborn-Berger" in resumed.stdout
    records = _records(out / "games.jsonl")
    assert sorted(r.game_index for r in records) == list(range(GAMES))
    assert _pairings(records) == _pairings(_records(whole.games_file))
    for name in ("standings", "pairs"):
        assert table(out, name) == table(whole.output, name), name


def test_a_record_of_a_round_that_cannot_be_paired_yet_is_refused(config, tmp_path):
    output = tmp_path / "out"
    done = run(config, output=output, limit=4)  # round 0 only
    records = done.games_file.read_text().splitlines()
    plan = build_lineup(config).plan
    # Game 4 (round 1) copied from game 0: round 0 is complete, so its pairs are known and it is checked against them.
    forged = json.loads(records[0])
    forged["extra"]["game_index"] = 4
    forged["extra"]["round"] = 1
    # Drop game 3: round 1 cannot be paired, so the forged record cannot be a game of the plan.
    lines = records[:3] + [json.dumps(forged)]
    done.games_file.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordsRefused) as caught:
        check_records(plan, GamesFile(done.games_file), "hint")
    assert "round 1, which cannot be paired yet" in str(caught.value)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("rounds: 0", "rounds: must be at least 1, not 0"),
        ("rounds: two", "rounds: must be a whole number, not 'two'"),
        ("rounds: 6", "rounds: must be at most 5 for 5 agents"),
    ],
)
def test_a_bad_rounds_value_is_refused_naming_the_field_and_line(tmp_path, line, message):
    text = SWISS.replace("rounds: 3", line)
    with pytest.raises(ConfigError) as caught:
        parse_config(text, tmp_path / "swiss.yaml", agents_from=ROOT)
    assert message in str(caught.value) and "swiss.yaml:3" in str(caught.value)


def test_rounds_only_goes_with_format_swiss(tmp_path):
    text = SWISS.replace("format: swiss", "format: round_robin")
    with pytest.raises(ConfigError, match="rounds is only used by format: swiss"):
        parse_config(text, tmp_path / "swiss.yaml", agents_from=ROOT)


def test_rounds_defaults_to_the_swiss_default(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    config = parse_config(SWISS.replace("rounds: 3\n", ""), tmp_path / "swiss.yaml", agents_from=ROOT)
    plan = build_lineup(config).plan
    assert config.format == Swiss() and plan.total_games == 5 * 4
    assert plan.describe()["rounds"] == 5


def test_a_swiss_of_two_agents_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    text = SWISS.replace("rounds: 3\n", "")
    for name in "cde":
        text = text.replace(f"  - {{name: {name}, spec: agents.random_agent}}\n", "")
    config = parse_config(text, tmp_path / "swiss.yaml", agents_from=ROOT)
    with pytest.raises(ConfigError, match="swiss.yaml:2: .*a Swiss tournament needs at least three agents"):
        build_lineup(config)
