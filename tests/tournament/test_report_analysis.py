"""The tournament's report offers each decided game's analysis: the command, in results.md and report.html, names
games.jsonl as the run was given it, and analyses that game when run from where the tournament was started."""
from __future__ import annotations

import html
import os
import re
import shlex
from pathlib import Path

import pytest

from referee.records import GameRecord
from referee.tournament.report import GameRow, report_html
from referee.tournament.tables import shown_path
from tests.helpers import run_referee

#: Two random agents at Cachex n = 4, unsealed: two games of a few actions, each won by someone.
CONFIG = """\
name: tiny
agents:
  - {name: r1, spec: agents.random_agent}
  - {name: r2, spec: agents.random_agent}
games_per_pair: 2
time_limit: 20
space_limit: 200
seed: 3
sandbox: off
game: cachex
game_options: {n: 4}
"""

#: What the report folds under a game's "analyse".
FOLDED = re.compile(r'<details class="analyse"><summary>analyse</summary><code>(.*?)</code></details>')


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder a tournament was started in, its output the relative ``results/tiny``."""
    folder = tmp_path_factory.mktemp("started")
    (folder / "config.yaml").write_text(CONFIG)
    done = run_referee("tournament", "config.yaml", "-o", "results/tiny", "-q", "--workers", "2", cwd=folder,
                       timeout=180)
    assert done.returncode == 0, done.stderr
    return folder


def test_each_decided_game_offers_the_command_that_analyses_it(started: Path):
    out = started / "results" / "tiny"
    records = {r.game_index: r for r in map(GameRecord.from_json, (out / "games.jsonl").read_text().splitlines())}
    assert sorted(records) == [0, 1] and all(r.winner and r.actions for r in records.values())
    page = (out / "report.html").read_text()
    rows = re.findall(r"<tr><td>(\d+)</td>.*?</tr>", page.split('<table id="games"', 1)[1])
    folded = [html.unescape(command) for command in FOLDED.findall(page)]
    assert [int(index) for index in rows] == sorted(records)
    # Each game's own command, in the order of the list, naming the file as the run was given it (relative).
    assert folded == [f"python -m referee analyse results/tiny/games.jsonl --game-index {index} --html "
                      f"game-{index}.html" for index in sorted(records)]
    note = "python -m referee analyse results/tiny/games.jsonl --game-index N --html game-N.html"
    assert note in page and "run from the folder the tournament was started in" in page
    assert str(started) not in page  # no machine's folder in the report
    markdown = (out / "results.md").read_text()
    assert markdown.rstrip().endswith(f"`{note}` (N: the game's index, as report.html lists the games).")
    assert "## A game's analysis" in markdown and str(started) not in markdown


def test_the_command_analyses_that_game_from_where_the_tournament_was_started(started: Path):
    out = started / "results" / "tiny"
    page = (out / "report.html").read_text()
    command = html.unescape(FOLDED.findall(page)[1])
    argv = shlex.split(command)
    assert argv[:3] == ["python", "-m", "referee"] and argv[-2:] == ["--html", "game-1.html"]
    record = next(r for r in map(GameRecord.from_json, (out / "games.jsonl").read_text().splitlines())
                  if r.game_index == 1)
    # The printed command, made cheap (a few simulations, one process, no cache): the summary says which game it
    # analysed, and the page is written where it said (what the page holds is tests/analysis/test_html.py's).
    done = run_referee(*argv[3:], "--iterations", "20", "--workers", "1", "--no-cache", cwd=started,
                       env={**os.environ, "XDG_CACHE_HOME": str(started / "cache")}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Analysis of cachex: RED {record.name_of('RED')} v BLUE {record.name_of('BLUE')}: "
                                  f"{record.message} ({len(record.actions)} actions)")
    assert (started / "game-1.html").read_text().startswith("<!DOCTYPE html>")


def test_a_game_without_a_winner_or_an_action_offers_no_analysis():
    rows = [GameRow(0, "a", "b", "draw", "turn_limit", 343, None, decided=False),
            GameRow(1, "a", "b", "a (RED) wins", "load_error", 0, None, decided=False)]
    from referee.tournament.aggregate import aggregate

    page = report_html(aggregate([]), rows, 2, "t", "results/t/games.jsonl")
    assert "<details" not in page and 'id="analysis-note"' not in page


def test_a_path_is_shown_as_given_and_an_absolute_one_inside_the_working_folder_relative_to_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert shown_path(Path("results/t/games.jsonl")) == "results/t/games.jsonl"
    assert shown_path(tmp_path / "results" / "t" / "games.jsonl") == "results/t/games.jsonl"
    elsewhere = tmp_path.parent / "elsewhere" / "games.jsonl"
    assert shown_path(elsewhere) == str(elsewhere)  # the only name that finds it from here
