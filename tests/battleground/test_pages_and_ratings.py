"""What the site costs the games, and ratings that one game or a sock puppet cannot wipe or win.

Real servers (``python -m referee serve``) on databases the tests fill, read
through HTTP as a spectator or a student would.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import socket
import sqlite3
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.battleground.store import Store
from tests.battleground.sides import Honest, RawSide, Server, finished_row, raw_connect, unharmed
from tests.helpers import run_referee, wait_until

pytest.importorskip("websockets.sync.client")


def _status(server: Server, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://{server.address}{path}", timeout=30) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def _short_game(server: Server, channel: str) -> int:
    """A finished game of a few moves on ``channel`` (its id): an honest side plays, the test's breaks the rules."""
    honest = Honest(server, f"{channel}-honest", channel)
    with raw_connect(server) as ws:
        me = RawSide(ws, f"{channel}-me", channel)
        for _ in range(3):
            assert me.until_play()["type"] == "play"
            me.send_action(me.action())
        assert me.until_play()["type"] == "play"
        ws.send("not JSON")
        game_id = me.id
    honest.join(30)
    assert game_id is not None
    wait_until(lambda: finished_row(server, game_id), 20, "the short game's end")
    return game_id


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from unharmed(tmp_path_factory.mktemp("site"), "-t", "30", "--http-rate", "0")


def _socket_inodes(pid: int) -> set[str]:
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:"):
            found.add(target)
    return found


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def test_a_games_pages_are_built_once_in_a_worker_that_holds_none_of_the_servers_sockets(site: Server):
    """Before: every request replayed the game on the event loop (9-20 ms for a long game), so a few requests
    after each move made an honest opponent lose on time; the rating worker also inherited every socket."""
    game_id = _short_game(site, "pages")
    before = site.get("/api/stats")["pages"]
    first = site.page(f"/games/{game_id}/replay")
    frames = site.page(f"/api/games/{game_id}/frames")
    for _ in range(5):
        assert site.page(f"/games/{game_id}/replay") == first
        assert site.page(f"/api/games/{game_id}/frames") == frames
    after = site.get("/api/stats")["pages"]
    # Two builds (the replay and the frames), every other request answered from what was built.
    assert after["built"] - before["built"] == 2
    assert after["from_cache"] - before["from_cache"] >= 10
    assert f"game {game_id}:" in first and len(json.loads(frames)["steps"]) == 7
    # Another spelling of the same page (an escape, a query) is the same page: from the cache, never a build on
    # the event loop (an escaped part once went round the worker).
    assert site.page(f"/api/games/{game_id}/%66rames?again=1") == frames
    assert site.page(f"/api/games/%{ord(str(game_id)[0]):X}{str(game_id)[1:]}/frames") == frames
    assert site.get("/api/stats")["pages"]["built"] == after["built"]
    # The page worker and the rating worker: fresh interpreters, none of the server's sockets (its listener,
    # its clients' connections) open in them.
    children = wait_until(lambda: len(_children(site.proc.pid)) >= 2 and _children(site.proc.pid), 20,
                          "the page and rating workers")
    server_sockets = _socket_inodes(site.proc.pid)
    assert server_sockets
    for child in children:
        assert not _socket_inodes(child) & server_sockets, child
    # A game that does not exist, or a part that does not: a 404 as before, the server unharmed.
    assert _status(site, "/games/999999/replay") == 404
    assert _status(site, f"/api/games/{game_id}/nothing") == 404


def _read(page: str) -> str:
    """A page's text as a reader reads it: its tags dropped."""
    return re.sub(r"<[^>]+>", "", page)


def test_a_game_page_gives_the_command_that_analyses_it_from_the_readers_machine(site: Server, tmp_path: Path):
    """The server spends no processor time on analyses (its processors keep the games' clocks): a game's page gives
    the command, naming the server as the reader reached it, and the command run elsewhere analyses that game."""
    game_id = _short_game(site, "analysis")
    command = f"python -m referee analyse http://{site.address}/api/games/{game_id} --html game-{game_id}.html"
    assert command in _read(site.page(f"/games/{game_id}"))
    # The same page (from the cache) to a reader who named the server otherwise: that name.
    other = urllib.request.Request(f"http://{site.address}/games/{game_id}", headers={"Host": f"localhost:{site.port}"})
    with urllib.request.urlopen(other, timeout=30) as reply:
        assert f"analyse http://localhost:{site.port}/api/games/{game_id} " in _read(reply.read().decode())
    argv = shlex.split(command)
    assert argv[:3] == ["python", "-m", "referee"] and argv[-2:] == ["--html", f"game-{game_id}.html"]
    # Run as printed, made cheap: the game it analysed, and its page where it said (the page is test_html.py's).
    done = run_referee(*argv[3:], "--iterations", "20", "--workers", "1", "--no-cache", cwd=tmp_path,
                       env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)}, timeout=120)
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("Analysis of infexion: RED analysis-") and first.endswith("(7 actions)"), first
    assert (tmp_path / f"game-{game_id}.html").read_text().startswith("<!DOCTYPE html>")


def test_an_address_past_its_request_budget_is_told_to_slow_down(tmp_path: Path):
    server = Server(tmp_path, "-t", "30", "--sandbox", "off", "--http-rate", "1", "--http-burst", "5")
    try:
        statuses = [_status(server, "/api/leaderboard") for _ in range(8)]
        assert statuses[:5] == [200] * 5 and 429 in statuses[5:], statuses
    finally:
        server.kill()


def _http_get(source: str, port: int) -> bytes:
    """GET /api/stats from the source address ``source`` (any address of 127.0.0.0/8 reaches the server)."""
    with socket.create_connection(("127.0.0.1", port), timeout=20, source_address=(source, 0)) as conn:
        conn.sendall(b"GET /api/stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return b"".join(iter(lambda: conn.recv(65536), b""))


def _get_or_nothing(source: str, port: int) -> bytes:
    try:
        return _http_get(source, port)
    except OSError:  # closed at once: the place is not free yet
        return b""


def test_connections_are_counted_from_their_accept_not_their_hello(tmp_path: Path):
    """Before: a connection was counted against its address only once it said hello, so one host could hold any
    number of half-open connections (and use up the server's file descriptors)."""
    server = Server(tmp_path, "-t", "30", "--sandbox", "off", "--open-per-address", "4", "--hello-timeout", "60")
    try:
        held = [socket.create_connection(("127.0.0.1", server.port), timeout=20, source_address=("127.0.0.2", 0))
                for _ in range(4)]
        # The fifth from that address is closed at once (not after the 60 s allowed for a hello)...
        with socket.create_connection(("127.0.0.1", server.port), timeout=20,
                                      source_address=("127.0.0.2", 0)) as fifth:
            try:
                assert fifth.recv(1024) == b""
            except ConnectionResetError:
                pass
        # ...while another address is served as usual, and the server counts what it holds and refused.
        stats = json.loads(_http_get("127.0.0.3", server.port).split(b"\r\n\r\n", 1)[1])
        assert stats["sockets"]["open"] >= 4 and stats["sockets"]["refused"] >= 1, stats
        # One of the four closes: its place is free again.
        held.pop().close()
        wait_until(lambda: b"200 OK" in _get_or_nothing("127.0.0.2", server.port), 20, "a place for 127.0.0.2")
        for conn in held:
            conn.close()
    finally:
        server.kill()


# -- ratings ---------------------------------------------------------------------------------------------------

#: Six honest players, 100 Elo apart in strength (ann the weakest), 8 games a pair.
HONEST = ["ann", "bob", "cy", "dee", "eve", "fay"]


def _league(db: Path, extra: list[tuple[str, str, str | None, str]]) -> None:
    """A database of finished games: the honest league (on 2026-11-01), then ``extra`` (red, blue, winner, day)."""
    Store(db, "infexion", {}).close()
    games: list[tuple[str, str, str | None, str]] = []
    for i, weaker in enumerate(HONEST):
        for j in range(i + 1, len(HONEST)):
            # The stronger side wins its expected share of the 8 games (rounded), the rest are the weaker's.
            wins = round(8 / (1 + 10 ** (-100 * (j - i) / 400)))
            games += [(weaker, HONEST[j], "BLUE" if game < wins else "RED", "2026-11-01") for game in range(8)]
    games += extra
    conn = sqlite3.connect(db)
    with conn:
        for name in {n for red, blue, _, _ in games for n in (red, blue)}:
            conn.execute("INSERT INTO players (name, token_hash, created, last_seen) VALUES (?, NULL, ?, ?)",
                         (name, "2026-11-01T00:00:00+00:00", "2026-11-01T00:00:00+00:00"))
        for number, (red, blue, winner, day) in enumerate(games):
            when = f"{day}T{number // 3600 % 24:02d}:{number // 60 % 60:02d}:{number % 60:02d}+00:00"
            conn.execute("INSERT INTO games (red, blue, channel, status, started_at, ended_at, winner, reason, turns) "
                         "VALUES (?, ?, 'x', 'finished', ?, ?, ?, 'test', 1)", (red, blue, when, when, winner))
    conn.close()


def _board(tmp_path: Path, extra: list[tuple[str, str, str | None, str]]) -> list[dict[str, Any]]:
    db = tmp_path / "league.sqlite"
    _league(db, extra)
    server = Server(tmp_path, "-t", "30", "--sandbox", "off", db=db)
    try:
        # The very first answer: a restarted server rates before it serves (it once ranked by games first).
        rows: list[dict[str, Any]] = server.get("/api/leaderboard")
    finally:
        server.kill()
    return rows


def test_one_game_between_two_fresh_names_leaves_every_rating_standing(tmp_path: Path):
    """Before: the fit refused a set of players its games did not connect, so every rating became None."""
    rows = _board(tmp_path, [("newbie1", "newbie2", "RED", "2026-11-02")])
    ratings = {row["name"]: row["rating"] for row in rows}
    assert all(ratings[name] is not None for name in HONEST + ["newbie1", "newbie2"]), rows
    # Ranked by strength, strongest first; the newcomers, with one opponent each, provisional and after them.
    assert [row["name"] for row in rows] == HONEST[::-1] + ["newbie1", "newbie2"], rows
    assert [row["provisional"] for row in rows] == [False] * 6 + [True] * 2


def test_a_sock_puppet_throwing_200_games_in_a_day_does_not_put_its_partner_first(tmp_path: Path):
    """Before: 200 thrown games put the partner at #1 (740) above every player with real wins."""
    thrown = [("puppet", "partner", "BLUE", "2026-11-02")] * 200
    rows = _board(tmp_path, thrown + [("puppet", "ann", "BLUE", "2026-11-02")])
    ratings = {row["name"]: row["rating"] for row in rows}
    assert [row["name"] for row in rows[:6]] == HONEST[::-1], rows
    partner = next(row for row in rows if row["name"] == "partner")
    assert partner["provisional"] and partner["rank"] > 6
    # Of the 200 games only the day's first 10 count: the partner's rating is not the 740 it was.
    assert ratings["partner"] < 400, rows
    # The tallies still show every game: only the rating counts the first games of a pair in a day.
    assert partner["wins"] == 200
