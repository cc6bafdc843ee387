"""HTML replays in a real browser (the system's headless Chromium; ``browser`` is in conftest.py).

The expected boards come from replaying the record with the engine, not from
the page's own data.
"""
from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from referee.games.infexion import InfexionState
from referee.records import GameRecord
from tests.helpers import play_recorded, run_referee
from tests.support.pages import board_after, board_drawn, drawn_cells, open_page, seconds


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """A real game, recorded and written as HTML by the play command."""
    folder = tmp_path_factory.mktemp("replay")
    record_path, html_path = folder / "game.json", folder / "game.html"
    _, record = play_recorded(
        record_path, "-v", "0", "--seed", "21", "--html", str(html_path), "agents.random_agent", "agents.random_agent"
    )
    return record, html_path


def board_shown(page) -> dict[tuple[int, int], tuple[str, int]]:
    cells = page.eval_on_selector_all(
        "svg#board g.cell",
        "gs => gs.map(g => [g.dataset.r, g.dataset.q, g.dataset.owner, g.dataset.power])",
    )
    return {(int(r), int(q)): (owner, int(power)) for r, q, owner, power in cells if owner}


def test_page_loads_clean_and_offline(browser, game):
    record, html_path = game
    page, problems, requests = open_page(browser, html_path)
    assert page.locator("svg#board g.cell").count() == 49
    assert problems == []
    assert requests == [html_path.as_uri()], "the page must not fetch anything"
    assert page.locator("#moves li").count() == record.turns
    assert page.locator("#counter").inner_text() == f"0 / {record.turns}"
    result = page.locator("#result").inner_text()
    assert record.reason in result and (record.winner or "Draw") in result
    page.close()


def test_last_step_shows_the_final_board(browser, game):
    record, html_path = game
    page, problems, _ = open_page(browser, html_path)
    page.keyboard.press("End")
    expected = board_after(record, record.turns)
    assert board_shown(page) == expected  # the page's own idea of each cell
    drawn = board_drawn(page)  # and what is on the screen: colours and the powers written
    assert drawn == expected
    # Count by colour and power, as a person would read the picture.
    final = InfexionState()
    for text in record.actions:
        final.apply_checked(final.parse_action(text))
    for colour, player in (("red", 0), ("blue", 1)):
        stacks = [p for o, p in drawn.values() if o == colour]
        assert len(stacks) == sum(1 for *_, o, _ in final.cells() if o == player)
        assert sum(stacks) == final.power(player)
    assert page.locator("#counter").inner_text() == f"{record.turns} / {record.turns}"
    assert problems == []
    page.close()


SPREAD = re.compile(r"^SPREAD\((\d+), (\d+), (-?\d+), (-?\d+)\)$")


def spread_effect(record: GameRecord, index: int) -> dict[str, set[tuple[int, int]]] | None:
    """What action ``index`` did, if it is a SPREAD, worked out from the rules and the engine's boards.

    A SPREAD from a stack of power p puts one token on each of the next p
    cells in its direction (on the torus); an opponent's stack there becomes
    the mover's (captured), a stack that reaches power 7 is removed.
    """
    match = SPREAD.match(record.actions[index])
    if not match:
        return None
    before = board_after(record, index)
    after = board_after(record, index + 1)
    r, q, dr, dq = (int(v) for v in match.groups())
    mover, power = before[(r, q)]
    reached = {((r + k * dr) % 7, (q + k * dq) % 7) for k in range(1, power + 1)}
    removed = {c for c in reached if c in before and c not in after}
    captured = {c for c in reached if c in before and before[c][0] != mover and c in after}
    return {"source": {(r, q)}, "reached": reached, "captured": captured, "removed": removed}


def test_the_highlighted_cells_are_the_spreads_source_reach_and_captures(browser, game):
    record, html_path = game
    effects = [(i, spread_effect(record, i)) for i in range(record.turns)]
    with_capture = [(i, e) for i, e in effects if e and e["captured"]]
    assert with_capture, "the game has no SPREAD that captures"
    # Prefer one that also removes a stack of 7, if the game has one.
    index, effect = next(((i, e) for i, e in with_capture if e["removed"]), with_capture[0])
    page, problems, _ = open_page(browser, html_path)
    # What each highlight means is read from the legend, as a person would.
    legend = page.evaluate("""() => Object.fromEntries(['source', 'touched', 'captured', 'removed'].map(k => {
        const s = getComputedStyle(document.querySelector('.key.' + k));
        return [k, [s.borderTopColor, s.backgroundColor]];
    }))""")
    source, touched, captured = (legend[k][0] for k in ("source", "touched", "captured"))
    removed = legend["removed"][1]
    assert len({source, touched, captured, removed}) == 4
    page.eval_on_selector("#slider", f"s => {{ s.value = '{index + 1}'; s.dispatchEvent(new Event('input')); }}")
    assert record.actions[index] in page.locator("#current").inner_text()
    cells = drawn_cells(page)

    def outlined(colour: str) -> set[tuple[int, int]]:
        return {c for c, look in cells.items() if look["stroke"] == colour}

    assert outlined(source) == effect["source"]
    assert cells[next(iter(effect["source"]))]["dashes"] not in ("", "none")  # dashed, as in the legend
    assert outlined(captured) == effect["captured"]
    assert outlined(touched) == effect["reached"] - effect["captured"] - effect["removed"]
    assert {c for c, look in cells.items() if look["fill"] == removed} == effect["removed"]
    assert problems == []
    page.close()


def test_keys_slider_buttons_and_move_list_move_through_the_game(browser, game):
    record, html_path = game
    page, problems, _ = open_page(browser, html_path)
    for _ in range(7):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert page.locator("#counter").inner_text().startswith("6 /")
    assert board_shown(page) == board_after(record, 6)
    assert record.actions[5] in page.locator("#current").inner_text()
    # The slider: put it at step 40 as a drag would.
    page.eval_on_selector("#slider", "s => { s.value = '40'; s.dispatchEvent(new Event('input')); }")
    assert board_shown(page) == board_after(record, 40)
    page.locator("#moves li").nth(99).click()
    assert page.locator("#counter").inner_text().startswith("100 /")
    assert board_shown(page) == board_after(record, 100)
    assert page.locator("#slider").input_value() == "100"
    page.click("#first")
    assert board_shown(page) == {}
    page.click("#next")
    page.click("#next")
    assert board_shown(page) == board_after(record, 2)
    page.keyboard.press("Home")
    page.keyboard.press("Space")  # play: the counter advances by itself
    from playwright.sync_api import expect  # after the browser fixture: the package is there

    expect(page.locator("#counter")).to_have_text(re.compile(r"^([3-9]|\d\d+) /"), timeout=10000)
    page.keyboard.press("Space")  # pause
    assert page.locator("#play").inner_text() == "play"
    assert problems == []
    page.close()


def test_text_from_the_record_is_shown_as_text_not_run(browser, game, tmp_path):
    record, _ = game
    data = record.to_dict()
    data["red_name"] = "<img src=x onerror=alert(1)><script>alert(2)</script>"
    data["message"] = "</script><script>alert(3)</script>"
    hostile = GameRecord.from_dict(data)
    path = tmp_path / "hostile.html"
    proc = run_referee("replay", "-", "--html", str(path), input=json.dumps(hostile.to_dict()))
    assert proc.returncode == 0, proc.stderr
    page, problems, requests = open_page(browser, path)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.reload()
    assert dialogs == []
    assert "<script>alert(2)</script>" in page.locator("#players").inner_text()
    assert page.locator("svg#board g.cell").count() == 49
    assert [u for u in requests if not u.startswith("file:")] == []
    page.close()


def test_replay_from_a_games_jsonl_line(browser, game, tmp_path):
    record, _ = game
    other = GameRecord.from_dict({**record.to_dict(), "red_name": "second game"})
    jsonl = tmp_path / "games.jsonl"
    jsonl.write_text(record.to_json() + "\n" + other.to_json() + "\n")
    out = tmp_path / "second.html"
    proc = run_referee("replay", str(jsonl), "--game-index", "1", "--html", str(out))
    assert proc.returncode == 0, proc.stderr
    page, problems, _ = open_page(browser, out)
    assert "second game" in page.locator("#players").inner_text()
    assert problems == []
    page.close()


def test_cachex_replay_shows_the_rhombus_and_the_final_board(browser, tmp_path):
    from referee.games.cachex import CachexState

    record_path, html_path = tmp_path / "cachex.json", tmp_path / "cachex.html"
    proc = run_referee(
        "--game", "cachex", "-n", "6", "-v", "0", "--seed", "4",
        "--record", str(record_path), "--html", str(html_path), "agents.random_agent", "agents.random_agent",
    )
    assert proc.returncode == 0, proc.stderr
    record = GameRecord.from_json(record_path.read_text())
    page, problems, requests = open_page(browser, html_path)
    assert page.locator("svg#board g.cell").count() == 36
    assert page.locator("svg#board polyline.side.red").count() == 2
    assert page.locator("svg#board polyline.side.blue").count() == 2
    page.keyboard.press("End")
    state = CachexState(6)
    for text in record.actions:
        state.apply_checked(state.parse_action(text))
    expected = {(r, q): ("red" if p == 0 else "blue", 1) for r, q, p in state.cells()}
    assert board_shown(page) == expected
    # Each side's stones, counted as the engine counts them.
    stones = [sum(1 for *_, p in state.cells() if p == player) for player in (0, 1)]
    assert page.locator("#figures thead th").all_inner_texts() == ["", "cells", "time used"]
    assert [page.inner_text(f"#figures tr.{side} td.cells") for side in ("red", "blue")] == [str(n) for n in stones]
    # Cachex's own legend: placements, captures and the steal, in no Infexion words.
    legend = page.locator(".legend").inner_text()
    for infexion_words in ("the acting cell", "cells it reached", "taken from the opponent", "emptied"):
        assert infexion_words not in legend
    for words in ("placed", "captured", "STEAL"):
        assert words in legend
    assert problems == [] and requests == [html_path.as_uri()]
    page.close()


def test_infexion_keeps_its_legend_and_has_no_infinitron_panels(browser, game):
    _, html_path = game
    page, problems, _ = open_page(browser, html_path)
    legend = page.locator(".legend").inner_text()
    for words in ("the acting cell", "cells it reached", "taken from the opponent", "emptied"):
        assert words in legend
    assert page.locator("#turn, #templates, #cell-info, #board-key, svg#board polygon.terr").count() == 0
    assert problems == []
    page.close()


def test_a_truncated_record_shows_a_visible_warning(browser, game, tmp_path):
    record, html_path = game
    assert record.turns > 100
    page, problems, _ = open_page(browser, html_path)
    assert not page.locator("#warning").is_visible()  # the complete record adds up
    page.close()
    cut = GameRecord.from_dict({**record.to_dict(), "actions": record.actions[:100]})
    out = tmp_path / "cut.html"
    proc = run_referee("replay", "-", "--html", str(out), input=cut.to_json())
    assert proc.returncode == 0, proc.stderr
    page, problems, _ = open_page(browser, out)
    warning = page.locator("#warning")
    assert warning.is_visible()
    text = warning.inner_text()
    assert text.startswith("Warning: this record's actions do not lead to its result")
    assert f"it says {record.turns} actions were played but holds 100" in text
    assert "after its 100 actions the game is not over" in text
    box = warning.bounding_box()
    assert box is not None and box["height"] > 10 and box["width"] > 100
    # It sits above the board, in the page's first screen.
    assert box["y"] < page.locator("svg#board").bounding_box()["y"]
    assert page.locator("#counter").inner_text() == "0 / 100"
    assert problems == []
    page.close()


def go_to(page, step: int) -> None:
    page.eval_on_selector("#slider", f"s => {{ s.value = '{step}'; s.dispatchEvent(new Event('input')); }}")
    assert page.locator("#counter").inner_text().startswith(f"{step} /")


def figures_shown(page) -> dict[str, list[str]]:
    """The figures table as a person reads it: the header, then each side's row, cell by cell."""
    return {
        row: page.locator(f"#figures {row}").first.locator("th, td").all_inner_texts()
        for row in ("thead tr", "tr.red", "tr.blue")
    }


def html_of(record: dict, tmp_path: Path, name: str) -> Path:
    """The replay command's HTML page of ``record`` (a dict, as in a file)."""
    out = tmp_path / f"{name}.html"
    proc = run_referee("replay", "-", "--html", str(out), input=json.dumps(record))
    assert proc.returncode == 0, proc.stderr
    return out


def test_each_sides_power_cells_and_clock_at_every_step(browser, game, tmp_path):
    record, _ = game
    data = record.to_dict()
    # Per-action clocks, as the record keeps them: RED's rises on its own actions, BLUE's on its own.
    clocks, red, blue = [], 0.0, 0.0
    for i in range(record.turns):
        red, blue = (red + 0.25 * (i % 5 + 1), blue) if i % 2 == 0 else (red, blue + 0.5)
        clocks.append([round(red, 3), round(blue, 3)])
    data.update(time_used_after=clocks, time_limit=300.0, time_used={"RED": red + 0.01, "BLUE": blue + 0.01})
    page, problems, _ = open_page(browser, html_of(data, tmp_path, "clocks"))
    assert figures_shown(page)["thead tr"] == ["", "power", "cells", "time used", "left"]
    assert figures_shown(page)["tr.red"] == ["RED", "0", "0", "0.00 s", "300.0 s"]
    for step in (1, 2, 7, 40, record.turns - 1):
        go_to(page, step)
        state = InfexionState()
        for text in record.actions[:step]:
            state.apply_checked(state.parse_action(text))
        shown = figures_shown(page)
        for colour, player, row in (("RED", 0, "tr.red"), ("BLUE", 1, "tr.blue")):
            cells = sum(1 for *_, owner, _ in state.cells() if owner == player)
            used = clocks[step - 1][player]
            before = clocks[step - 2][player] if step > 1 else 0.0
            took = used - before
            mover = f" (+{Decimal(took).quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)})"
            clock = seconds(used) + (mover if (step - 1) % 2 == player else "")  # the mover's: its action's time
            assert shown[row] == [colour, str(state.power(player)), str(cells), clock, seconds(300 - used)], shown
    # The last step shows the clocks at the game's end: the record's totals.
    page.keyboard.press("End")
    assert figures_shown(page)["tr.red"][3].startswith(seconds(red + 0.01))
    assert "CPU seconds each agent used" in page.inner_text("#clock-note")
    assert "total only" not in page.inner_text("#clock-note")
    assert problems == []
    page.close()


def test_a_record_written_before_per_action_clocks_shows_the_totals_at_the_end(browser, game, tmp_path):
    record, _ = game
    data = record.to_dict()
    del data["time_used_after"]  # as records were written before it
    page, problems, _ = open_page(browser, html_of(data, tmp_path, "old"))
    go_to(page, 20)
    assert figures_shown(page)["thead tr"] == ["", "power", "cells", "time used"]  # no limit: no "left"
    assert [row[3] for row in list(figures_shown(page).values())[1:]] == ["\u2014", "\u2014"]
    page.keyboard.press("End")
    for colour, row in (("RED", "tr.red"), ("BLUE", "tr.blue")):
        assert figures_shown(page)[row][3] == seconds(record.time_used[colour])
    assert "keeps each side's total only" in page.inner_text("#clock-note")
    assert problems == []
    page.close()


def test_a_game_at_odds_shows_each_sides_own_time_left(browser, game, tmp_path):
    record, _ = game
    data = record.to_dict()
    clocks = [[0.5 * (i + 1), 0.25 * (i + 1)] for i in range(record.turns)]
    odds = {"RED": {"time_limit": 18.0, "space_limit": 250.0}, "BLUE": {"time_limit": 180.0, "space_limit": 250.0}}
    data.update(time_used_after=clocks, time_limit=None, space_limit=250.0, odds=odds)
    page, problems, _ = open_page(browser, html_of(data, tmp_path, "odds"))
    go_to(page, 4)
    shown = figures_shown(page)
    assert shown["tr.red"][-1] == seconds(18 - 2.0)
    assert shown["tr.blue"][-1] == seconds(180 - 1.0)
    note = page.inner_text("#clock-note")
    assert "at odds" in note and "RED had 18 s CPU, 250 MB" in note and "BLUE had 180 s CPU, 250 MB" in note
    assert problems == []
    page.close()
