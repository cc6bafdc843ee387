"""The tournament's report.html in a real browser."""
from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess

import pytest

from referee.hosting.sandbox import Sandbox
from referee.records import GameRecord
from tests.helpers import ROOT, run_referee
from tests.support.pages import board_after, board_drawn, open_page


CONFIG = """\
name: report-test
agents:
  - {name: alpha, spec: agents.random_agent}
  - {name: beta, spec: agents.random_agent}
  - {name: gamma, spec: tests.tournament.fixtures.agents.illegal}
games_per_pair: 2
time_limit: 20
space_limit: 250
call_timeout: 60
seed: 5
"""


#: The widest standings a small field has: a Swiss's columns (score, byes, two tie-breaks) and, with an agent at
#: odds, everyone's limits; one agent breaks on its first move.  Cachex n = 4, unsealed: games of a few actions.
SWISS_AT_ODDS = """\
name: swiss-report
format: swiss
rounds: 2
agents:
  - {name: alpha_at_odds, spec: agents.random_agent, time_limit: 2, space_limit: 250}
  - {name: raises_in_action, spec: tests.tournament.fixtures.agents.raises}
  - {name: gamma, spec: agents.random_agent}
  - {name: delta, spec: agents.random_agent}
  - {name: epsilon, spec: agents.random_agent}
games_per_pair: 2
time_limit: 20
space_limit: 0
seed: 5
sandbox: off
game: cachex
game_options: {n: 4}
"""


@pytest.fixture(scope="module")
def tournament(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    config = folder / "config.yaml"
    config.write_text(CONFIG)
    out = folder / "out"
    proc = run_referee("tournament", str(config), "-q", "--workers", "2", "-o", str(out), timeout=180)
    assert proc.returncode == 0, proc.stderr
    records = [GameRecord.from_json(line) for line in (out / "games.jsonl").read_text().splitlines()]
    return out, records


@pytest.fixture(scope="module")
def swiss_at_odds(tmp_path_factory):
    folder = tmp_path_factory.mktemp("swiss-report")
    config = folder / "config.yaml"
    config.write_text(SWISS_AT_ODDS)
    proc = run_referee("tournament", str(config), "-q", "--workers", "2", "-o", str(folder / "out"), timeout=180)
    assert proc.returncode == 0, proc.stderr
    return folder / "out"


#: Each cell of a table as [text, the lines it is laid out on] (its text's boxes at distinct heights).
_LAID_OUT = """table => [...table.tBodies[0].rows].map(tr => [...tr.cells].map(td => {
  const range = document.createRange();
  range.selectNodeContents(td);
  return [td.textContent, new Set([...range.getClientRects()].map(r => Math.round(r.top))).size];
}))"""


def test_the_standings_fit_a_laptops_window_with_each_value_on_one_line(browser, swiss_at_odds):
    page, problems, _ = open_page(browser, swiss_at_odds / "report.html")
    page.set_viewport_size({"width": 1280, "height": 800})
    headers = page.locator("#standings thead th").all_inner_texts()
    assert "limits" in headers and "Swiss score" in headers and "Elo" in headers
    assert "Elo rank" not in headers  # one rank, the official one: Elo is a column of values
    rows = page.locator("#standings").evaluate(_LAID_OUT)
    limits = [row[headers.index("limits")] for row in rows]
    assert ["2 s CPU, 250 MB", 1] in limits and ["20 s CPU, no memory limit", 1] in limits
    wrapped = [cell for row in rows for cell in row if cell[1] > 1]
    assert wrapped == []
    width = page.evaluate("innerWidth")
    assert width == 1280 and page.locator("#standings").evaluate("t => t.scrollWidth") <= width
    assert problems == []
    page.close()


def test_agent_names_read_from_the_left_and_numbers_from_the_right(browser, swiss_at_odds):
    page, problems, _ = open_page(browser, swiss_at_odds / "report.html")
    align = "(t, i) => [...t.querySelectorAll(`tbody td:nth-child(${i})`)].map(td => getComputedStyle(td).textAlign)"
    for table, column, expected in [
        ("endings", 1, "left"), ("endings", 2, "right"), ("pairs", 1, "left"), ("pairs", 2, "left"),
        ("pairs", 3, "right"), ("standings", 2, "left"), ("standings", 1, "right"),
    ]:
        seen = set(page.locator(f"#{table}").evaluate(align, column))
        assert seen == {expected}, (table, column, seen)
    assert problems == []
    page.close()


def test_the_games_list_says_why_a_failed_agent_lost(browser, swiss_at_odds):
    from tests.tournament.fixtures.agents.raises import MESSAGE

    failed = [r for r in _records(swiss_at_odds) if r.reason == "agent_error"]
    assert failed  # the agent that raises played (it has no bye in both rounds)
    page, problems, _ = open_page(browser, swiss_at_odds / "report.html")
    for record in failed:
        said = record.error[record.loser]["message"]
        assert said == f"action() raised RuntimeError: {MESSAGE}"  # what the referee recorded
        row = page.locator("#games tbody tr", has=page.locator("td:first-child", has_text=str(record.game_index)))
        why = row.locator("td:nth-child(5) .why")
        shown = why.inner_text()
        # Shortened to fit a cell, at a word, said to be cut; all of it on hover.
        assert shown.endswith("…") and len(shown) < len(said) and said.startswith(shown[:-1])
        assert shown.startswith("action() raised RuntimeError: the opening book could not be read")
        assert why.get_attribute("title") == said
        assert row.locator("td:nth-child(5)").inner_text().startswith("agent_error")
    # A game nobody failed says only how it ended.
    assert page.locator("#games tbody tr .why").count() == len(failed)
    assert problems == []
    page.close()


def _records(out) -> list[GameRecord]:
    return [GameRecord.from_json(line) for line in (out / "games.jsonl").read_text().splitlines()]


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
    scores = gamma_row.locator("td.score").evaluate_all("ts => ts.map(t => t.dataset.score)")
    assert all(float(s) == 0.0 for s in scores)
    assert page.locator("#games tbody tr").count() == len(records) == 6
    # A replay link opens that game's replay, whose last step is the game's final board.
    link = page.locator("#games tbody tr").nth(0).locator("a")
    assert link.get_attribute("href") == "replays/game-0.html"
    page.close()
    game_0 = next(r for r in records if r.game_index == 0)
    replay, problems, _ = open_page(browser, out / "replays" / "game-0.html")
    replay.keyboard.press("End")
    assert board_drawn(replay) == board_after(game_0, game_0.turns)
    assert problems == []
    replay.close()


def test_games_are_numbered_by_game_index_as_replay_game_index_is(browser, tournament, tmp_path):
    out, records = tournament
    # The same tournament, its games.jsonl in another order (games are appended as
    # they finish) and with one game recorded twice (two folders' files merged).
    folder = tmp_path / "reordered"
    shutil.copytree(out, folder, ignore=shutil.ignore_patterns("replays", "report.html", ".lock"))
    lines = (out / "games.jsonl").read_text().splitlines(keepends=True)
    lines = lines[::-1] + lines[-1:]
    (folder / "games.jsonl").write_text("".join(lines))
    proc = run_referee(  # a finished folder: plays nothing, writes the tables and the report again
        "tournament", str(out.parent / "config.yaml"), "-q", "-o", str(folder), timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    by_index = {r.game_index: r for r in records}
    page, problems, _ = open_page(browser, folder / "report.html")
    rows = page.locator("#games tbody tr").evaluate_all(
        "trs => trs.map(tr => [...tr.cells].map(td => td.textContent)"
        ".concat([tr.querySelector('a').getAttribute('href')]))"
    )
    assert [int(row[0]) for row in rows] == sorted(by_index) == list(range(6))  # each game once, in index order
    for row in rows:
        index = int(row[0])
        assert (row[1], row[2]) == (by_index[index].name_of("RED"), by_index[index].name_of("BLUE"))
        assert row[-1] == f"replays/game-{index}.html"
    page.close()
    # A game whose line is not its index: its report link and `replay --game-index` show that game.
    positions = [json.loads(line)["extra"]["game_index"] for line in lines]
    index = next(i for p, i in enumerate(positions) if p != i)
    record = by_index[index]
    on_demand = tmp_path / f"game-{index}.html"
    proc = run_referee("replay", str(folder / "games.jsonl"), "--game-index", str(index), "--html", str(on_demand))
    assert proc.returncode == 0, proc.stderr
    for path in (folder / "replays" / f"game-{index}.html", on_demand):
        replay, problems, _ = open_page(browser, path)
        assert f"RED: {record.name_of('RED')}" in replay.locator("#players").inner_text()
        assert replay.locator("#moves li").count() == record.turns
        replay.keyboard.press("End")
        assert board_drawn(replay) == board_after(record, record.turns)
        assert problems == []
        replay.close()


def test_the_report_says_how_the_tournament_was_played(browser, tournament):
    out, records = tournament
    version = run_referee("--version").stdout.split()[-1]
    page, problems, _ = open_page(browser, out / "report.html")
    terms = page.locator("#how-played dt").all_inner_texts()
    said = dict(zip(terms, page.locator("#how-played dd").all_inner_texts()))
    assert terms == ["Game", "Format", "Limits", "Seed", "Played", "Machine", "Referee", "Sandbox", "Agents' code"]
    assert said["Game"] == "infexion"
    assert said["Format"] == "round robin: each pair of the 3 agents plays 2 games, both colours equally"
    assert said["Limits"] == (
        "20 s of CPU time per agent per game; 250 MB of memory per agent; any one call at most 60 s of wall time "
        "(call_timeout)"
    )
    assert said["Seed"].startswith("5 ")
    day = min(r.started_at for r in records)[:10]
    assert said["Played"].startswith(f"{day} ") and " UTC; " in said["Played"] and "in one run" in said["Played"]
    assert said["Machine"] == f"{os.cpu_count()} cores; games run by 2 workers"
    # Which referee exactly: the version, the commit of its code (a commit of this repository, "modified" when
    # referee/ had uncommitted changes), the Python and the platform; once per run, in tournament.json too.
    assert said["Referee"].startswith(f"version {version} (python -m referee --version); the games played by ")
    assert version == records[0].referee_version
    build = json.loads((out / "tournament.json").read_text())["runs"][0]["referee"]
    if (ROOT / ".git").exists():
        commit = build["commit"]
        assert build["source"] == "git" and _is_a_commit(commit)
        modified = " (modified: uncommitted changes in referee/)" if build["modified"] else ""
        assert f"{version} at commit {commit}{modified}, " in said["Referee"]
    else:
        assert f"{version}, not a git checkout, " in said["Referee"]
    assert build["python"] == f"{platform.python_version()} ({platform.python_implementation()})"
    assert f", Python {build['python']}, {platform.platform()}" in said["Referee"]
    ran = {Sandbox(**r.sandbox).describe() for r in records}
    assert said["Sandbox"] == f"auto; the games ran {ran.pop()}" and not ran
    # The same lines in results.md, after the standings.
    markdown = (out / "results.md").read_text()
    assert markdown.index("## Standings") < markdown.index("## How it was played") < markdown.index("## Crosstable")
    for term, text in said.items():
        assert f"- **{term}**: {text}" in markdown
    # The standings end with each agent's code fingerprint, as the records and tournament.json have them.
    code = json.loads((out / "tournament.json").read_text())["code"]
    rows = page.locator("#standings tbody tr").evaluate_all(
        "trs => trs.map(tr => [...tr.cells].map(c => c.textContent))"
    )
    assert {row[1]: row[-1] for row in rows} == code
    assert problems == []
    page.close()


def _is_a_commit(name: str) -> bool:
    """Whether this repository has a commit of that (short) name, as git itself says."""
    found = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"],
                           capture_output=True, text=True)
    return found.returncode == 0 and len(name) >= 7


def _standings(page) -> list[list[str]]:
    """The standings' rows a reader sees, top to bottom (hidden rows left out)."""
    return page.locator("#standings tbody tr").evaluate_all(
        "trs => trs.filter(tr => !tr.hidden).map(tr => [...tr.cells].map(c => c.textContent))"
    )


def _sort_by(page, table: str, column: str) -> None:
    """Click the title of ``table``'s column ``column``."""
    page.locator(f"#{table} thead").get_by_role("button", name=column, exact=True).click()


def test_the_standings_sort_by_any_column_and_find_agents_by_name(browser, tournament):
    out, _ = tournament
    page, problems, requests = open_page(browser, out / "report.html")
    first = _standings(page)
    headers = page.locator("#standings thead th").all_inner_texts()
    column = {name: i for i, name in enumerate(headers)}
    assert page.locator("#find").is_visible() and page.locator("#standings-count").inner_text() == "3 agents"
    page.locator("#standings-search").fill("AMM")  # any part of the name, any case
    assert [row[1] for row in _standings(page)] == ["gamma"]
    assert page.locator("#standings-count").inner_text() == "1 of 3 agents"
    page.locator("#standings-search").fill("")
    assert _standings(page) == first
    # A column's title sorts by it (numbers as numbers), again reverses; rank puts the ranking back.
    _sort_by(page, "standings", "agent")
    assert [row[1] for row in _standings(page)] == ["alpha", "beta", "gamma"]
    assert page.locator("#standings th[aria-sort=ascending]").inner_text().startswith("agent")
    _sort_by(page, "standings", "agent")
    assert [row[1] for row in _standings(page)] == ["gamma", "beta", "alpha"]
    _sort_by(page, "standings", "losses")
    losses = [int(row[column["losses"]]) for row in _standings(page)]
    assert losses == sorted(losses, reverse=True) and losses[0] == 4  # gamma plays illegally: loses all four
    _sort_by(page, "standings", "rank")
    assert _standings(page) == first
    # The games sort too: by result, then back by game index.
    _sort_by(page, "games", "reason")
    reasons = page.locator("#games tbody tr td:nth-child(5)").all_inner_texts()
    assert reasons == sorted(reasons)
    _sort_by(page, "games", "game")
    assert page.locator("#games tbody tr td:nth-child(1)").all_inner_texts() == [str(i) for i in range(6)]
    assert problems == [] and requests == [(out / "report.html").as_uri()]  # the script is the page's own
    page.close()


def test_a_300_agent_report_sorts_and_searches(browser, tmp_path):
    from referee.tournament.aggregate import aggregate
    from referee.tournament.report import report_html
    from tests.tournament.fakes import make_record

    names = [f"agent-{i:03d}" for i in range(299)] + ["<b>bold</b>"]
    records = [
        make_record(names[i], names[(i + step) % 300], ("RED", None, "BLUE")[(i * step) % 3])
        for i in range(300) for step in (1, 7)
    ]
    path = tmp_path / "report.html"
    path.write_text(report_html(aggregate(records), [], 0, "300 agents"), encoding="utf-8")
    page, problems, _ = open_page(browser, path)
    headers = page.locator("#standings thead th").all_inner_texts()
    column = {name: i for i, name in enumerate(headers)}
    assert len(_standings(page)) == 300 and page.locator("#standings-count").inner_text() == "300 agents"
    page.locator("#standings-search").fill("agent-12")
    assert sorted(row[1] for row in _standings(page)) == [f"agent-{i}" for i in range(120, 130)]
    assert page.locator("#standings-count").inner_text() == "10 of 300 agents"
    page.locator("#standings-search").fill("<b>")  # shown as text, found as text
    assert [row[1] for row in _standings(page)] == ["<b>bold</b>"]
    page.locator("#standings-search").fill("")
    _sort_by(page, "standings", "score %")
    scores = [float(row[column["score %"]]) for row in _standings(page)]
    assert len(scores) == 300 and scores == sorted(scores, reverse=True)
    _sort_by(page, "standings", "95% CI")  # "±12.3": the number after the sign
    _sort_by(page, "standings", "95% CI")
    widths = [float(row[column["95% CI"]].lstrip("±")) for row in _standings(page)]
    assert widths == sorted(widths)
    _sort_by(page, "standings", "Elo")
    elos = [float(row[column["Elo"]]) for row in _standings(page)]
    assert elos == sorted(elos, reverse=True) and elos[0] > elos[-1]
    assert problems == []
    page.close()


def test_a_decided_games_analysis_command_unfolds_under_analyse(browser, tournament):
    out, records = tournament
    decided = sorted(r.game_index for r in records if r.winner is not None and r.actions)
    assert decided  # gamma plays illegally on its first action: its games are won, by the other's actions
    page, problems, _ = open_page(browser, out / "report.html")
    row = page.locator("#games tbody tr", has=page.locator("td:first-child", has_text=str(decided[0])))
    command = row.locator("details.analyse code")
    assert not command.is_visible()  # folded: the list stays a list
    row.locator("details.analyse summary").click()
    assert command.is_visible() and command.inner_text() == (
        f"python -m referee analyse {out / 'games.jsonl'} --game-index {decided[0]} --html game-{decided[0]}.html")
    assert problems == []
    page.close()
