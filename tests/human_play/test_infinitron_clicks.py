"""Infinitron played by clicks on the play page, in a real Chromium against a real agent (``play --web``).

The registration's clicks (referee/games/infinitron/clicks.py) drive the page:
a cell alone for CLAIM, TERRAIN and BUILD, a unit then its target for MOVE,
ATTACK and ABILITY, buttons to choose where several commands fit, END_TURN a
button and DEFINE typed.
"""
from __future__ import annotations

from tests.helpers import wait_until
from tests.support.human_play import WAIT, Server, cell, settled

AGENT = "tests.games.infinitron.few_commands_agent"  # two commands a turn: the agent's turns are short


def choice(page, action: str):
    return page.locator(f'#choices button[data-action="{action}"]')


def end_turn(page, seat) -> dict:
    """Click END_TURN and wait for the agent's whole turn; the state then."""
    before = len(seat.get("/api/state")["actions"])
    page.click('#buttons button[data-action="END_TURN"]')
    wait_until(lambda: len(seat.get("/api/state")["actions"]) > before, WAIT, "the page to send END_TURN")
    state = seat.get("/api/state?wait=1")
    assert state["turn"] == "RED" and not state["thinking"] and state["actions"][before] == "END_TURN", state
    settled(page, len(state["actions"]))
    return state


def test_a_person_plays_infinitron_by_clicks_in_a_real_browser(browser):
    # The agent fails in its third turn: Red's turns 1, 3 and 5 are played here, Blue's 2 and 4 by the agent.
    seat = Server("--game", "infinitron", "--seed", "5", "--sandbox", "off", AGENT)
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    try:
        page.goto(seat.url + "/")
        settled(page, 0)
        state = seat.get("/api/state")
        assert not state["typed"] and state["clicks"]["END_TURN"] == [] and state["clicks"]["CLAIM(0, 2, 0)"]
        # The drawn board, with the text board (RP, templates) and the command box beside it.
        assert page.is_visible("svg#board") and page.is_visible("#text-board") and page.is_visible("#command")
        assert page.locator("svg#board g.cell.city.capital").count() == 2
        # END_TURN is a button; the thousands of DEFINEs are not.
        assert page.locator("#buttons button").all_inner_texts() == ["END_TURN"]
        starts = {c[0] for c in state["clicks"].values() if c}
        assert page.locator("svg#board g.cell.legal").count() == len(starts) > 6
        # A cell where one command fits: clicked, it is played.
        cell(page, 2, 0).click()
        settled(page, 1)
        assert seat.get("/api/state")["actions"] == ["CLAIM(0, 2, 0)"]
        # A cell where four fit (a TERRAIN of each kind): they are offered, one is picked.
        cell(page, 3, -1).click()
        assert page.is_visible("#choices")
        assert sorted(page.locator("#choices button[data-action]").all_inner_texts()) == [
            f"TERRAIN({kind}, 3, -1)" for kind in ("BLOCK", "LABEL", "LAVA", "REPAIR")
        ]
        choice(page, "TERRAIN(REPAIR, 3, -1)").click()
        settled(page, 2)
        assert page.is_hidden("#choices")
        assert cell(page, 3, -1).get_attribute("data-kind") == "repair"
        # A template is typed.
        page.fill("#command-text", "define 1 2 2 melee none")
        page.press("#command-text", "Enter")
        settled(page, 3)
        assert "t0 DEFINE(1, 2, 2, MELEE, NONE)" in page.inner_text("#text-board")
        end_turn(page, seat)
        # Red's turn 3: BUILD by a click on a cell next to the capital (no terrain points left: one command fits).
        before = len(seat.get("/api/state")["actions"])
        cell(page, 4, -1).click()
        settled(page, before + 1)
        assert seat.get("/api/state")["actions"][-1] == "BUILD(0, 4, -1)"
        assert cell(page, 4, -1).get_attribute("data-kind") == "unit"
        end_turn(page, seat)
        # Red's turn 5: the unit, then a highlighted neighbour: a step.
        before = len(seat.get("/api/state")["actions"])
        cell(page, 4, -1).click()
        assert "selected" in cell(page, 4, -1).get_attribute("class")
        assert page.locator("svg#board g.cell.target").count() >= 2
        assert page.inner_text("#message").startswith("Now click a highlighted cell to MOVE")
        cell(page, 3, 0).click()
        settled(page, before + 1)
        assert seat.get("/api/state")["actions"][-1] == "MOVE(0, 3, 0)"
        assert cell(page, 3, 0).get_attribute("data-kind") == "unit"
        assert problems == []
    finally:
        page.close()
        seat.stop()
