"""Knockout brackets: the pure rules (referee.tournament.formats.bracket), and a bracket played for real and resumed."""
from __future__ import annotations

import json

import pytest

from referee.records import GameRecord
from referee.tournament import load_config, run
from referee.tournament.checks import RecordsRefused, check_records
from referee.tournament.config import ConfigError, parse_config
from referee.tournament.journal import GamesFile
from referee.tournament.formats.bracket import EXTRA_PAIRS, bracket, placings, state, tie_games, total_games
from referee.tournament.lineup import build_lineup

from .commands import table

from tests.helpers import ROOT


def test_the_bracket_keeps_the_top_seeds_apart_until_the_end():
    assert bracket(2) == [1, 2]
    assert bracket(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    # Neighbours meet in round 1 and seeds sum to 9; 1 and 2 are in different halves.
    order = bracket(16)
    assert all(order[i] + order[i + 1] == 17 for i in range(0, 16, 2))
    assert order.index(2) >= 8 > order.index(1)
    with pytest.raises(ValueError, match="power of two"):
        bracket(6)


def test_five_agents_give_byes_to_the_top_three_seeds():
    result = state("abcde", 2, {})
    first = [t for t in result.ties if t.round == 0]
    assert sorted(t.high for t in first if t.low is None) == ["a", "b", "c"]
    played = [t for t in first if t.low is not None]
    assert [(t.high, t.low) for t in played] == [("d", "e")]  # seeds 4 and 5
    # Only that tie's two games are pairable: the higher seed Red first.
    assert result.games == {6: ("d", "e", 0), 7: ("e", "d", 0)}
    assert result.champion is None
    assert total_games(5, 2) == 7 * tie_games(2)


def test_a_level_tie_plays_extra_pairs_then_goes_to_the_higher_seed():
    per_tie = tie_games(2)
    assert per_tie == 2 + 2 * EXTRA_PAIRS
    # Four agents: a-d is tie 0 (games 0..5), b-c is tie 1 (games 6..11).
    drawn = {0: None, 1: None}
    result = state("abcd", 2, {**drawn, 6: "RED", 7: "RED"})
    tie = result.ties[0]
    assert (tie.high, tie.low, tie.winner) == ("a", "d", None)
    assert tie.games == (0, 1, 2, 3) and result.games[2] == ("a", "d", 0) and result.games[3] == ("d", "a", 0)
    assert result.ties[1].winner is None  # b and c: one win each, level too
    # Level after every extra pair: the higher seed goes through, then meets the winner of b-c.
    everything_drawn = dict.fromkeys(range(per_tie), None)
    result = state("abcd", 2, {**everything_drawn, 6: "RED", 7: "BLUE"})
    tie = result.ties[0]
    assert tie.winner == "a" and tie.on_seed and tie.games == tuple(range(per_tie))
    # The lower seed ahead after its games goes through: c (Blue in game 6, Red in 7) wins both.
    result = state("abcd", 2, {**everything_drawn, 6: "BLUE", 7: "RED"})
    assert result.ties[1].winner == "c" and not result.ties[1].on_seed
    final = [t for t in result.ties if t.round == 1]
    assert [(t.high, t.low) for t in final] == [("a", "c")]
    start = 2 * per_tie  # the final's block comes after round 1's two ties
    assert result.games[start] == ("a", "c", 1) and result.champion is None
    result = state("abcd", 2, {**everything_drawn, 6: "BLUE", 7: "RED", start: "BLUE", start + 1: "RED"})
    assert result.champion == "c"


def test_a_ties_extra_pair_needs_only_its_own_games():
    # Tie 0 drawn, tie 1 not played yet: tie 0's extra pair can be paired (records are checked in index order).
    result = state("abcd", 2, {0: None, 1: None})
    assert {2, 3} <= set(result.games) and {6, 7} <= set(result.games)


KNOCKOUT = """\
name: ko3
format: knockout
agents:
  - {name: a, spec: agents.random_agent}
  - {name: b, spec: agents.random_agent}
  - {name: c, spec: agents.random_agent}
games_per_pair: 2
time_limit: 20
space_limit: 0
wall_grace: 3
workers: 2
seed: 4
sandbox: off
"""


def test_the_bracket_ranks_by_the_round_reached_sharing_ranks_listed_by_seed():
    names = list("abcdef")  # 8 slots: a and b have byes into the semi-finals
    winners: dict[int, str | None] = {}
    for _ in range(3):  # round by round, the higher seed (Red in a tie's even games) wins every game
        for index, (red, blue, _round) in state(names, 2, winners).games.items():
            winners.setdefault(index, "RED" if names.index(red) < names.index(blue) else "BLUE")
    assert placings(names, state(names, 2, winners)) == [
        (1, "a", "winner"), (2, "b", "lost in the final"), (3, "c", "lost in the semi-finals"),
        (3, "d", "lost in the semi-finals"), (5, "e", "lost in the quarter-finals"),
        (5, "f", "lost in the quarter-finals"),
    ]


def test_a_knockout_stopped_by_limit_resumes_and_lists_its_bracket(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    path = tmp_path / "ko.yaml"
    path.write_text(KNOCKOUT)
    config = load_config(path, agents_from=ROOT)
    out = tmp_path / "out"
    first = run(config, output=out, limit=1)
    assert first.summary.played == 1 and not first.results.notes
    # Unfinished, the bracket ranks who is still in where: a (the bye) in the final, b and c in their semi-final.
    assert first.results.columns[0].header == "reached"
    reached = first.results.columns[0].values
    assert reached == {"a": "in the final", "b": "in the semi-finals", "c": "in the semi-finals"}
    assert [(rank, agent.name) for rank, agent in first.results.ranking()] == [(1, "a"), (2, "b"), (2, "c")]
    # Its report says first that it is unfinished, of how many games at most, and the command that goes on.
    top = (out / "results.md").read_text().split("## Standings", 1)[0]
    assert f"UNFINISHED: 1 of at most {first.summary.total} games played. " in top
    assert "The standings so far are ranked by the bracket: the winner, the runner-up" in top
    assert f"`python -m referee tournament {path} --resume -o {out}`" in top
    done = run(config, output=out)  # checks the first run's record against the bracket, then goes on
    # Over once the bracket has nothing left to play, though fewer games than the most it could have taken.
    assert done.unfinished is None and done.summary.recorded < done.summary.total
    assert "UNFINISHED" not in (out / "results.md").read_text()
    records = [GameRecord.from_json(line) for line in done.games_file.read_text().splitlines()]
    winners = {r.game_index: r.winner for r in records if r.game_index is not None}
    bracket_now = state(["a", "b", "c"], 2, winners)
    # Exactly the games the bracket needed, each once: seed 1 had the bye, b-c played, then the final.
    assert sorted(winners) == sorted(bracket_now.games) and len(winners) == len(records)
    assert bracket_now.champion is not None and done.results.notes == (f"Knockout winner: {bracket_now.champion}.",)
    assert [(t.round, t.high, t.low) for t in bracket_now.ties][:2] == [(0, "a", None), (0, "b", "c")]
    # The official ranking is the bracket's: how far each got; Elo is a column of values, not a second rank.
    header, *standings = table(out, "standings")
    assert header[:4] == ["rank", "agent", "reached", "games"] and "Elo" in header and "Elo rank" not in header
    finalist = next(name for name in (bracket_now.ties[-1].high, bracket_now.ties[-1].low)
                    if name != bracket_now.champion)
    semi_loser = ({"b", "c"} - {bracket_now.ties[-1].low}).pop()
    assert [row[:3] for row in standings] == [
        ["1", bracket_now.champion, "winner"], ["2", finalist, "lost in the final"],
        ["3", semi_loser, "lost in the semi-finals"],
    ]
    assert "Official ranking: by the bracket: the winner, the runner-up" in (out / "results.md").read_text()
    header, *rows = table(out, "rounds")
    assert header == ["round", "higher seed", "lower seed", "result", "games"]
    assert rows[0][:4] == ["1", "a", "—", "bye"] and rows[1][:3] == ["1", "b", "c"]
    assert [row[0] for row in rows] == ["1", "1", "2"]
    markdown = (out / "results.md").read_text()
    assert f"Knockout winner: {bracket_now.champion}." in markdown and "## Rounds: pairings and results" in markdown
    assert '<table id="rounds" class="sortable">' in (out / "report.html").read_text()
    # A record of a game the bracket never needed (the final's last slot) is refused by the checks.
    final = bracket_now.ties[-1]
    unneeded = final.games[0] + tie_games(2) - 1
    assert unneeded not in winners
    forged = json.loads(done.games_file.read_text().splitlines()[-1])
    forged["extra"]["game_index"] = unneeded
    with open(done.games_file, "a") as file:
        file.write(json.dumps(forged) + "\n")
    with pytest.raises(RecordsRefused, match=f"game {unneeded} .*is not a game of the knockout so far"):
        check_records(build_lineup(config).plan, GamesFile(done.games_file), "hint")


def test_a_knockout_of_two_and_its_misplaced_keys_are_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    two = KNOCKOUT.replace("  - {name: c, spec: agents.random_agent}\n", "")
    with pytest.raises(ConfigError, match="ko.yaml:2: .*a knockout needs at least three agents"):
        build_lineup(parse_config(two, tmp_path / "ko.yaml", agents_from=ROOT))
    with pytest.raises(ConfigError, match="ko.yaml:3: games: games is only used by format: ladder"):
        parse_config(KNOCKOUT.replace("agents:\n", "games: 4\nagents:\n"), tmp_path / "ko.yaml", agents_from=ROOT)
