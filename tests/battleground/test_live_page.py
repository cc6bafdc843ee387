"""The real server's pages in a real browser: the leaderboard and a game followed live as it is played.

One side of the game is a real client (``python -m referee connect``, a
subprocess); the other is this test speaking the protocol, so the game goes
on exactly as long as the test needs it to.
"""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.battleground.sides import Server, Side
from tests.helpers import ROOT, wait_until

websockets_client = pytest.importorskip("websockets.sync.client")


@pytest.fixture
def server(tmp_path: Path):
    running = Server(tmp_path, "-t", "60")
    try:
        yield running.port
    finally:
        running.kill()


def get_json(port: int, path: str):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
        return json.load(reply)


def test_the_leaderboard_and_a_game_followed_live_in_the_browser(browser, server, tmp_path):
    from playwright.sync_api import expect

    port = server
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    client = subprocess.Popen(
        [sys.executable, "-m", "referee", "connect", "agents/random_agent", "carol", "--server",
         f"127.0.0.1:{port}", "--channel", "live", "--games", "1", "--sandbox", "off",
         "--record-file", str(tmp_path / "carol.jsonl"), "-v", "0"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    stack = contextlib.ExitStack()
    me = Side(stack.enter_context(websockets_client.connect(f"ws://127.0.0.1:{port}/play", open_timeout=10)),
              "dave", "live")
    try:
        for _ in range(3):
            me.move()
        game_id = me.id
        running = wait_until(lambda: get_json(port, "/api/games")["running"], 10, "the game listed as running")
        # Colours go by arrival: whoever was paired first is Red.
        players = ("dave", "carol") if me.color == "RED" else ("carol", "dave")
        assert [(g["id"], g["red"], g["blue"]) for g in running] == [(game_id, *players)]

        problems: list[str] = []

        def watched() -> Any:
            page = browser.new_page()
            page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(f"http://127.0.0.1:{port}/")
            return page

        # A front page left open while the game is played: it must follow without a reload.
        front = watched()
        expect(front.locator("#running a", has_text=f"game {game_id}")).to_be_visible()
        carol_row = front.locator("#leaderboard tr", has_text="carol")
        expect(carol_row).to_contain_text("0/0/0")  # no finished game yet
        page = watched()
        link = page.locator("#running a", has_text=f"game {game_id}")
        expect(link).to_be_visible()
        link.click()
        page.wait_for_url(f"http://127.0.0.1:{port}/games/{game_id}")
        expect(page.locator("body")).to_have_attribute("data-shown", str(len(get_json(port, f"/api/games/{game_id}")
                                                                              ["actions"])))
        assert page.locator("svg#board g.cell").count() == 49

        # Two more moves of each side: the page follows without a reload.
        for _ in range(2):
            me.move()
        me.until_play()
        shown = len(get_json(port, f"/api/games/{game_id}")["actions"])
        assert shown >= 10
        expect(page.locator("body")).to_have_attribute("data-shown", str(shown), timeout=10_000)

        # This side breaks the protocol: it forfeits, and the page shows the end and stops.
        me.ws.send("this is not JSON")
        record = wait_until(lambda: get_json(port, f"/api/games/{game_id}")["extra"]["battleground"]["status"]
                            == "finished" and get_json(port, f"/api/games/{game_id}"), 10, "the game's end")
        assert (record["winner"], record["reason"]) == ("BLUE" if me.color == "RED" else "RED", "protocol_error")
        expect(page.locator("body")).to_have_attribute("data-polling", "no", timeout=10_000)
        expect(page.locator("#replay")).to_be_visible()
        assert problems == []

        # The real client saw the same end and wrote the same record.
        assert client.wait(30) == 0, client.stdout.read() if client.stdout else ""
        kept = json.loads((tmp_path / "carol.jsonl").read_text().splitlines()[0])
        assert kept == record

        page.goto(f"http://127.0.0.1:{port}/")
        board = page.locator("table", has_text="carol")
        expect(board.first).to_be_visible()
        rows = {row["name"]: row for row in get_json(port, "/api/leaderboard")}
        assert (rows["carol"]["wins"], rows["dave"]["losses"]) == (1, 1)
        page.close()

        # The front page opened before the end now shows it, never reloaded (its refresh count rose).
        expect(carol_row).to_contain_text("1/0/0", timeout=15_000)
        expect(front.locator("#running")).to_have_text("None right now.", timeout=15_000)
        expect(front.locator("#finished a", has_text=f"game {game_id}")).to_be_visible()
        assert int(front.locator("body").get_attribute("data-refreshes") or 0) >= 1
        assert front.evaluate("performance.getEntriesByType('navigation').length") == 1
        front.close()
        assert problems == []
    finally:
        stack.close()
        if client.poll() is None:
            client.kill()
