"""The battleground's web pages and JSON API (referee.battleground.web) over an in-memory site of real records.

The records come from real games (random vs greedy); a running game is a
finished one cut at its tenth action, marked as the server marks it.
"""
from __future__ import annotations

import dataclasses
import http.server
import json
import threading
from typing import Any

import pytest

from referee.battleground.web import CSP, ORIGIN_MARK, Answer, answer, with_origin
from referee.match import AgentEntry, MatchSettings, play_match
from referee.records import GameRecord

EVIL = "<script>alert(1)</script>"
QUOTES = "o'neil\"s"
CHANNEL = "team \"7\" <b>"
RUNNING = 3


def summary(game_id: int, record: GameRecord, status: str, channel: str = "") -> dict[str, Any]:
    over = status != "running"
    return {"id": game_id, "red": record.name_of("RED"), "blue": record.name_of("BLUE"), "channel": channel,
            "status": status, "winner": record.winner if over else None, "reason": record.reason if over else None,
            "turns": len(record.actions), "started_at": "2026-11-28T10:00:00Z",
            "ended_at": "2026-11-28T10:01:00Z" if over else None}


class FakeSite:
    """A :class:`referee.battleground.web.Site` holding its games in dicts (a test changes them in place)."""

    title = "battleground: infexion"

    def __init__(self, records: dict[int, GameRecord], summaries: dict[int, dict[str, Any]],
                 rows: list[dict[str, Any]]):
        self.records, self.summaries, self.rows = records, summaries, rows

    def leaderboard(self) -> list[dict[str, Any]]:
        return self.rows

    def games(self) -> dict[str, list[dict[str, Any]]]:
        newest = sorted(self.summaries.values(), key=lambda s: -s["id"])
        return {"running": [s for s in newest if s["status"] == "running"][::-1],
                "finished": [s for s in newest if s["status"] == "finished"]}

    def game(self, game_id: int) -> dict[str, Any] | None:
        return self.summaries.get(game_id)

    def record(self, game_id: int) -> GameRecord | None:
        return self.records.get(game_id)

    def player(self, name: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]] | None:
        games = [s for s in self.games()["running"] + self.games()["finished"] if name in (s["red"], s["blue"])]
        row = next((r for r in self.rows if r["name"] == name), None)
        if row is None and not games:
            return None
        return row, games


@pytest.fixture(scope="module")
def played() -> tuple[GameRecord, GameRecord, GameRecord]:
    """Two real finished games (players renamed to hostile names) and a running game's record so far."""
    settings = MatchSettings(sandbox="off")
    first = play_match(AgentEntry("agents.random_agent"), AgentEntry("agents.greedy"), settings)
    second = play_match(AgentEntry("agents.greedy"), AgentEntry("agents.random_agent"), settings)
    first = dataclasses.replace(first, red_name=EVIL, blue_name=QUOTES)
    second = dataclasses.replace(second, red_name=QUOTES, blue_name=EVIL)
    running = dataclasses.replace(
        first, actions=first.actions[:10], turns=10, winner=None, reason="unfinished", message="in play",
        time_used_after=first.time_used_after[:10], extra={"battleground": {"status": "running"}},
    )
    return first, second, running


def make_site(played: tuple[GameRecord, GameRecord, GameRecord]) -> FakeSite:
    first, second, running = played
    rows = [
        {"rank": 1, "name": QUOTES, "rating": 1520, "interval": 140, "games": 2, "wins": 1, "draws": 0, "losses": 1,
         "last_seen": "2026-11-28T10:01:00Z"},
        {"rank": 2, "name": EVIL, "rating": None, "interval": None, "games": 2, "wins": 1, "draws": 0, "losses": 1,
         "last_seen": "2026-11-28T10:01:00Z"},
    ]
    return FakeSite(
        {1: first, 2: second, RUNNING: running},
        {1: summary(1, first, "finished", CHANNEL), 2: summary(2, second, "finished"),
         RUNNING: summary(RUNNING, running, "running")},
        rows,
    )


def get(site: FakeSite, target: str) -> Answer:
    return answer(site, "GET", target)


def as_json(reply: Answer) -> Any:
    assert reply.content_type.startswith("application/json"), reply
    return json.loads(reply.body)


def test_json_api(played):
    site = make_site(played)
    first, _, running = played
    assert as_json(get(site, "/api/leaderboard")) == site.rows
    games = as_json(get(site, "/api/games"))
    assert [g["id"] for g in games["running"]] == [RUNNING]
    assert [g["id"] for g in games["finished"]] == [2, 1]
    assert set(games["finished"][0]) == {"id", "red", "blue", "channel", "status", "winner", "reason", "turns",
                                         "started_at", "ended_at"}
    assert GameRecord.from_json(get(site, "/api/games/1").body.decode()) == first
    so_far = as_json(get(site, f"/api/games/{RUNNING}"))
    assert so_far["reason"] == "unfinished" and so_far["extra"]["battleground"]["status"] == "running"
    assert so_far["actions"] == list(running.actions)

    frames = as_json(get(site, f"/api/games/{RUNNING}/frames"))
    assert len(frames["boards"]) == 11 and len(frames["steps"]) == 10 and frames["cells"]
    assert "warning" not in frames  # a game being played is not a damaged record
    finished = as_json(get(site, "/api/games/1/frames"))
    assert len(finished["boards"]) == first.turns + 1 and finished["warning"] is None


def test_pages_escape_what_players_chose(played):
    site = make_site(played)
    for target in ("/", "/games/1", "/games/2", f"/games/{RUNNING}", "/players/%3Cscript%3Ealert(1)%3C%2Fscript%3E",
                   "/players/o'neil%22s"):
        reply = get(site, target)
        assert reply.status == 200, target
        assert reply.content_type.startswith("text/html")
        page = reply.body.decode()
        assert EVIL not in page and "<b>" not in page, target
        assert f'content="{CSP}"' in page
        assert dict(reply.headers)["Content-Security-Policy"].startswith(CSP)
    front = get(site, "/").body.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in front
    assert "o&#x27;neil&quot;s" in front and "team &quot;7&quot; &lt;b&gt;" in front
    assert 'href="/players/%3Cscript%3Ealert%281%29%3C%2Fscript%3E"' in front
    assert f'href="/games/{RUNNING}"' in front and 'href="/games/1"' in front
    assert "1520 \u00b1 140" in front and "\u2014" in front  # an unrated player's rating is a dash
    player = get(site, "/players/%3Cscript%3Ealert(1)%3C%2Fscript%3E").body.decode()
    assert 'href="/games/1"' in player and 'href="/games/2"' in player


def test_a_game_page_offers_its_analysis_at_the_address_the_reader_used(played):
    """The server analyses nothing (its processors keep the games' clocks): the page gives the command that analyses
    the game on the reader's machine, naming this server as the request did; a Host that is not an address is not
    repeated to the reader."""
    site = make_site(played)
    command = f"python -m referee analyse {ORIGIN_MARK}/api/games/1 --html game-1.html"
    page = get(site, "/games/1")
    assert '<p id="analysis">' in page.body.decode() and command in page.body.decode()
    assert '<p id="analysis" hidden>' in get(site, f"/games/{RUNNING}").body.decode()  # shown once it is over
    said = with_origin(page, "battleground.example:7030").body.decode()
    assert ("python -m referee analyse <span class=\"origin\">http://battleground.example:7030</span>/api/games/1 "
            "--html game-1.html") in said
    assert with_origin(page, "[::1]:7030").body.decode().count("http://[::1]:7030</span>/api/games/1") == 1
    for host in (None, "", 'x"><script>alert(1)</script>', "evil.example/phish?", "a b"):
        assert with_origin(page, host) == page, host
    # Only a page's own mark is filled in: a player's name that spells it is escaped, and JSON is left alone.
    record = get(site, "/api/games/1")
    assert with_origin(record, "battleground.example:7030") == record
    named = dataclasses.replace(played[0], red_name=ORIGIN_MARK)
    site = make_site((named, played[1], played[2]))
    site.summaries[1]["red"] = ORIGIN_MARK
    assert with_origin(get(site, "/games/1"), "h:1").body.decode().count("http://h:1") == 1


def test_replay_and_record_download(played):
    site = make_site(played)
    first = played[0]
    download = get(site, "/games/1/record")
    assert download.status == 200
    assert dict(download.headers)["Content-Disposition"] == 'attachment; filename="game-1.json"'
    assert GameRecord.from_json(download.body.decode()) == first
    replay = get(site, "/games/1/replay")
    assert replay.status == 200 and b'id="replay-data"' in replay.body and EVIL.encode() not in replay.body
    assert get(site, f"/games/{RUNNING}/replay").status == 404  # not over yet: its page follows it live


@pytest.mark.parametrize("target", [
    "/nope", "/games", "/games/", "/games/abc", "/games/-1", "/games/1.0", "/games/42",
    "/games/99999999999999999999999", "/games/" + "9" * 5000,
    "/games/\u0661", "/games/1/nope", "/games/1/replay/x", "/players/nobody", "/players/",
    "//evil.example/x", "/api", "/api/nope", "/api/games/abc", "/api/games/42/frames", "/api/games/1/record",
    "/api/players/x", "/%ZZ", "/games/1%00", "\x00", "/games/1?x=<script>",
])
def test_unknown_paths_are_404(played, target):
    site = make_site(played)
    reply = get(site, target)
    if target == "/games/1?x=<script>":
        assert reply.status == 200 and b"x=<script>" not in reply.body  # a query is ignored, never echoed
        return
    assert reply.status == 404, target
    if target.startswith("/api"):
        assert "error" in as_json(reply)
    else:
        assert reply.content_type.startswith("text/html") and b"<script>" not in reply.body


def test_methods_head_and_failures(played):
    site = make_site(played)
    for method in ("POST", "PUT", "DELETE", "BREW"):
        reply = answer(site, method, "/")
        assert reply.status == 405 and ("Allow", "GET, HEAD") in reply.headers
    assert "error" in as_json(answer(site, "POST", "/api/games"))
    for target in ("/", "/api/games/1", "/games/1/record", "/nope"):
        got, head = answer(site, "GET", target), answer(site, "HEAD", target)
        assert head.body == b"" and (head.status, head.content_type, head.headers) == (
            got.status, got.content_type, got.headers)

    class Broken(FakeSite):
        def games(self) -> dict[str, list[dict[str, Any]]]:
            raise RuntimeError("the site's bug")

    assert answer(Broken({}, {}, []), "GET", "/").status == 500  # answered, not raised


# -- in a real browser --------------------------------------------------------------------------------------


class _Handler(http.server.BaseHTTPRequestHandler):
    site: FakeSite

    def _answer(self, method: str) -> None:
        reply = answer(self.site, method, self.path)
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(answer(self.site, "GET", self.path).body)
                                               if method == "HEAD" else len(reply.body)))
        for name, value in reply.headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(reply.body)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self._answer("GET")

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer("HEAD")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture
def served(played):
    site = make_site(played)
    handler = type("Handler", (_Handler,), {"site": site})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield site, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_game_page_follows_the_game_live(browser, served, played):
    from playwright.sync_api import expect

    site, base = served
    first = played[0]
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    try:
        page.goto(base + "/")
        expect(page.locator("#running a", has_text=f"game {RUNNING}")).to_be_visible()
        page.locator("#running a", has_text=f"game {RUNNING}").click()
        page.wait_for_url(f"{base}/games/{RUNNING}")

        # The board at the game's latest step, drawn from the frames.
        expect(page.locator("body")).to_have_attribute("data-shown", "10")
        assert page.locator("svg#board g.cell").count() == 49
        assert page.locator("svg#board g.cell[data-owner=red]").count() > 0
        expect(page.locator("#status")).to_contain_text("Being played: 10 actions")
        expect(page.locator("#end")).to_be_hidden()
        expect(page.locator("h1")).to_contain_text(EVIL)  # shown as text, never run

        # The game ends on the server: the page notices without a reload and stops polling.
        site.records[RUNNING] = first
        site.summaries[RUNNING] = summary(RUNNING, first, "finished")
        expect(page.locator("#status")).to_contain_text("Game over", timeout=5000)
        expect(page.locator("body")).to_have_attribute("data-shown", str(first.turns))
        expect(page.locator("body")).to_have_attribute("data-polling", "no")
        expect(page.locator("#status")).to_contain_text(f"{first.winner} (")
        if first.message:  # the record's own words, as text
            expect(page.locator("#status")).to_contain_text(first.message)
        expect(page.locator("#replay")).to_be_visible()
        assert page.locator("#download").get_attribute("href") == f"/games/{RUNNING}/record"
        replay = page.request.get(base + page.locator("#replay").get_attribute("href"))
        assert replay.status == 200 and "replay-data" in replay.text()
        assert problems == []
    finally:
        page.close()
