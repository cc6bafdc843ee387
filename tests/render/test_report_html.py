"""The tournament's report.html in a real browser."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from referee.records import GameRecord

from .test_html_replay import board_after, board_drawn, open_page

ROOT = Path(__file__).resolve().parents[2]

CONFIG = """\
name: report-test
agents:
  - {name: alpha, spec: agents.random_agent}
  - {name: beta, spec: agents.random_agent}
  - {name: gamma, spec: tests.tournament.fixtures.agents.illegal}
games_per_pair: 2
seed: 5
"""


@pytest.fixture(scope="module")
def tournament(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    config = folder / "config.yaml"
    config.write_text(CONFIG)
    out = folder / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", str(config), "-q", "--workers", "2", "-o", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    records = [GameRecord.from_json(line) for line in (out / "games.jsonl").read_text().splitlines()]
    return out, records


def test_report_shows_every_agent_and_links_replays(browser, tournament):
    out, records = tournament
    page, problems, requests = open_page(browser, out / "report.html")
    assert problems == [] and requests == [(out / "report.html").as_uri()]
    names = {"alpha", "beta", "gamma"}
    standings = page.locator("#standings tbody tr td:nth-child(2)").all_inner_texts()
    assert set(standings) == names
    assert set(page.locator("#crosstable tbody th").all_inner_texts()) == names
    assert set(page.locator("#endings tbody tr td:nth-child(1)").all_inner_texts()) == names
    # Scores are coloured: the agent that always plays illegally scores 0.
    cells = page.locator("#crosstable td.score")
    assert cells.count() == 6
    for i in range(cells.count()):
        assert cells.nth(i).get_attribute("style").startswith("background:rgb(")
    gamma_row = page.locator("#crosstable tbody tr", has=page.locator("th", has_text="gamma"))
    assert all(float(s) == 0.0 for s in gamma_row.locator("td.score").evaluate_all("ts => ts.map(t => t.dataset.score)"))
    assert page.locator("#games tbody tr").count() == len(records) == 6
    # A replay link opens that game's replay, whose last step is the game's final board.
    link = page.locator("#games tbody tr").nth(0).locator("a")
    assert link.get_attribute("href") == "replays/game-0.html"
    page.close()
    replay, problems, _ = open_page(browser, out / "replays" / "game-0.html")
    replay.keyboard.press("End")
    assert board_drawn(replay) == board_after(records[0], records[0].turns)
    assert problems == []
    replay.close()
