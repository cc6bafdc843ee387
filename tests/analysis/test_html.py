"""``python -m referee analyse --html``: the analysis page in a real browser (``browser`` is in tests/conftest.py).

Each game is a real record, analysed cheaply (what is tested is the page, not the depth of the judgement).  What
the page should show is worked out from the record and the engine (the boards, the decisions' cells), and from
the analysis's own values (which decisions are marked), never from the page.
"""
from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from referee.analysis import Analysis, Cache, EngineSettings, analyse
from referee.analysis.cli import main
from referee.games import recorded_game
from referee.records import GameRecord
from tests.helpers import play_recorded
from tests.support.pages import open_page

#: Each game: how it is played (a lost game of the greedy agent against the random one) and the simulations a
#: position (Infinitron's decisions are whole turns, each a search a command: fewer).
GAMES = {
    "infexion": ((), 60),
    "cachex": (("--game", "cachex", "-n", "4"), 60),
    "infinitron": (("--game", "infinitron"), 20),
}


def analyse_command(*args: str, cache: Path | None = None) -> tuple[int, str, str]:
    """``python -m referee analyse ARGS`` by its ``main``, in this process (the command's own process is
    test_analyse.py's): its exit status, standard output and standard error."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, redirect_stdout(out), redirect_stderr(err):
        if cache is not None:
            patch.setenv("XDG_CACHE_HOME", str(cache))
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, tuple[GameRecord, Analysis, Path]]:
    """Each game's record, its analysis, and the page ``analyse --html`` wrote for it."""
    folder = tmp_path_factory.mktemp("analysis-pages")
    found = {}
    for game, (options, iterations) in GAMES.items():
        _, record = play_recorded(folder / f"{game}.json", "-v", "0", "--seed", "2", *options, "agents.greedy",
                                  "agents.random_agent")
        # Analysed here first, into the cache the command then reads: the same settings judge alike.
        settings = EngineSettings(iterations=iterations)
        analysis = analyse(record, settings, workers=1, cache=Cache(folder / "referee" / "analysis.jsonl"))
        page = folder / f"{game}.html"
        status, out, err = analyse_command(str(folder / f"{game}.json"), "--iterations", str(iterations),
                                           "--workers", "1", "--html", str(page), cache=folder)
        assert status == 0, err
        assert out.startswith(f"Analysis of {game}:"), "the summary is printed as well"
        assert f"wrote {page}" in err
        found[game] = (record, analysis, page)
    return found


def decisions_of(record: GameRecord) -> int:
    """How many decisions the game had, counted from its actions: an action each in Infexion and Cachex, a turn
    (up to its END_TURN, or to the game's end) in Infinitron (these games are played without chance)."""
    if record.game != "infinitron":
        return len(record.actions)
    return record.actions.count("END_TURN") + (record.actions[-1] != "END_TURN")


def owners_after(record: GameRecord, steps: int) -> dict[tuple[int, int], str]:
    """Who holds each cell after the record's first ``steps`` actions, by the engine."""
    state = recorded_game(record.game, record.game_options).new_state()
    for text in record.actions[:steps]:
        state.apply_checked(state.parse_action(text))
    return {(cell[0], cell[1]): "red" if cell[2] == 0 else "blue" for cell in state.cells()}


def owners_shown(page) -> dict[tuple[int, int], str]:
    cells = page.eval_on_selector_all("svg#board g.cell",
                                      "gs => gs.map(g => [g.dataset.r, g.dataset.q, g.dataset.owner])")
    return {(int(r), int(q)): owner for r, q, owner in cells if owner}


def counter(page) -> tuple[int, int]:
    shown, total = page.locator("#counter").inner_text().split(" / ")
    return int(shown), int(total)


def cells_marked(page, who: str, kind: str = "") -> set[tuple[int, int]]:
    """The cells the page draws the ``who`` (played, engine) decision on; ``kind``: only its rings (at) or its
    outlines (reach)."""
    found = page.eval_on_selector_all(f"#decision-marks .mark.{who}{'.' + kind if kind else ''}",
                                      "ms => ms.map(m => [m.dataset.r, m.dataset.q])")
    return {(int(r), int(q)) for r, q in found}


def first_cell(action: str) -> tuple[int, int] | None:
    """The cell an Infexion or Cachex action names first: ``SPREAD(2, 5, 0, -1)`` acts from (2, 5)."""
    found = re.match(r"^\w+\((-?\d+), (-?\d+)", action)
    return (int(found[1]), int(found[2])) if found else None


@pytest.mark.parametrize("game", list(GAMES))
def test_the_graph_has_a_point_for_every_decision_and_the_end(browser, pages, game):
    record, _, path = pages[game]
    page, problems, requests = open_page(browser, path)
    assert page.locator("#graph polyline.curve").count() == 1
    assert page.locator("#graph circle.point").count() == decisions_of(record) + 1
    steps = [int(s) for s in page.eval_on_selector_all("#graph circle.point", "cs => cs.map(c => c.dataset.step)")]
    assert steps[0] == 0 and steps[-1] == len(record.actions) and steps == sorted(steps)
    # Red won by the rules: the last point is at 100 %, the graph's top line.
    assert record.winner == "RED" and not record.cut_short
    top = page.eval_on_selector("#graph line.grid", "l => Number(l.getAttribute('y1'))")
    assert page.eval_on_selector("#graph circle.point:last-of-type", "c => Number(c.getAttribute('cy'))") == top
    assert problems == [] and requests == [path.as_uri()], "the page loads clean and fetches nothing"
    page.close()


@pytest.mark.parametrize("game", ["infexion", "cachex"])
def test_clicking_a_graph_point_moves_the_board_to_that_position(browser, pages, game):
    record, _, path = pages[game]
    page, problems, _ = open_page(browser, path)
    points = page.locator("#graph circle.point")
    assert counter(page) == (0, len(record.actions))
    for k in (len(record.actions) // 2, len(record.actions), 1):
        points.nth(k).click()
        assert counter(page) == (k, len(record.actions))  # a point for each action: the k-th is after k actions
        assert owners_shown(page) == owners_after(record, k)
        assert page.locator("#graph circle.point.current").get_attribute("data-step") == str(k)
    assert problems == []
    page.close()


@pytest.mark.parametrize("game", ["infexion", "cachex"])
def test_the_marked_decisions_are_listed_and_each_shows_the_engines_action_on_the_board(browser, pages, game):
    record, analysis, path = pages[game]
    marked = [j for j in analysis.judged if j.severity is not None]
    assert marked, "the game has marked decisions to show"
    page, problems, _ = open_page(browser, path)
    items = page.locator("#marked li.decision")
    listed = [j for j in analysis.judged if j.severity is not None or j == analysis.turning]
    assert items.count() == len(listed)
    for item, judged in zip(items.all(), listed):
        text = item.inner_text()
        assert judged.color in text and judged.played in text
        assert (judged.severity or "turning point") in text
        if judged == analysis.turning:
            assert "turning point" in text
        assert judged.better is not None and judged.better in text
        item.click()
        # The position the decision was made from, with the played action and the engine's drawn on it.
        assert counter(page) == (judged.decision.start, len(record.actions))
        assert owners_shown(page) == owners_after(record, judged.decision.start)
        engine, played = first_cell(judged.better), first_cell(judged.played)
        if engine is not None:
            assert engine in cells_marked(page, "engine", "at")
        if played is not None:
            assert played in cells_marked(page, "played", "at")
        ring = page.locator("#decision-marks .mark.engine.at").first
        box = ring.bounding_box()
        assert box is not None and box["width"] > 0, "the engine's action is drawn"
        strokes = {who: page.eval_on_selector(f"#decision-marks .mark.{who}", "m => getComputedStyle(m).stroke")
                   for who in ("engine", "played")}
        assert strokes["engine"] != strokes["played"], "the engine's action looks unlike the one played"
        assert judged.better in page.locator("#decision-note").inner_text()
    # Elsewhere in the game no decision is drawn.
    unlisted = next(n for n in range(len(record.actions) + 1) if n not in {j.decision.start for j in listed})
    page.locator("#graph circle.point").nth(unlisted).click()
    assert counter(page)[0] == unlisted
    assert page.locator("#decision-marks .mark").count() == 0 and page.locator("#decision-note").inner_text() == ""
    assert problems == []
    page.close()


#: An Infinitron command that names a cell last: ``MOVE(u, r, q)``, ``CLAIM(c, r, q)`` (docs/infinitron.md).
NAMES_A_CELL = re.compile(r"^(?:BUILD|MOVE|ATTACK|ABILITY|TERRAIN|CLAIM)\(.*?(-?\d+), (-?\d+)\)$")


def test_an_infinitron_turn_is_drawn_whole(browser, pages):
    record, analysis, path = pages["infinitron"]
    listed = [j for j in analysis.judged if j.severity is not None or j == analysis.turning]
    assert listed and all(j.better is not None for j in listed)
    page, problems, _ = open_page(browser, path)
    for item, judged in zip(page.locator("#marked li.decision").all(), listed):
        item.click()
        assert counter(page) == (judged.decision.start, len(record.actions))
        assert page.locator("#turn").inner_text().endswith(f"{judged.color} to command")
        # Every cell a command of the engine's turn names (its last two numbers) is drawn, and of the turn played.
        for who, line in (("engine", judged.line), ("played", judged.decision.actions)):
            named = {(int(m[1]), int(m[2])) for m in (NAMES_A_CELL.match(a) for a in line) if m}
            assert named and named <= cells_marked(page, who)
    assert problems == []
    page.close()


def test_a_page_that_cannot_be_written_is_said_before_the_analysis(pages, tmp_path):
    record_path = pages["cachex"][2].with_suffix(".json")
    for out, said in ((tmp_path / "missing" / "a.html", f"no folder {tmp_path / 'missing'}"),
                      (tmp_path, "it is a folder")):
        status, printed, err = analyse_command(str(record_path), "--no-cache", "--html", str(out))
        assert status == 2 and printed == ""
        assert err.strip() == f"python -m referee analyse: error: cannot write {out}: {said}"
