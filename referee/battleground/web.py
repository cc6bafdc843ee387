"""The battleground's web pages and JSON API (docs/battleground.md, "The web pages and the JSON API").

:func:`answer` turns one request (method and target) into an :class:`Answer`;
the server reads what it shows from a :class:`Site`.  Pages are rendered on
the server, every text a player chose (names, channels, messages, reasons)
escaped; a game's page then follows the game from the JSON API, inserting the
server's text only with ``textContent``.  Boards are drawn as the HTML
replays draw them (:func:`~referee.render.html_replay.board_script`, their
CSS).  The pages' own CSS and scripts are kept in ``assets/``.
"""
from __future__ import annotations

import functools
import html
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol
from urllib.parse import quote, unquote

from ..records import GameRecord
from ..render.frames import ReplayError, build_frames
from ..render.html_replay import board_script, board_style, replay_html, script_json

log = logging.getLogger("referee.battleground")

#: The pages' Content Security Policy: inline style and script only, fetches to this server, no other network.
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:"
#: How many finished games the front page lists (the API gives the server's last 100).
FRONT_PAGE_FINISHED = 50

_HTML = "text/html; charset=utf-8"
_JSON = "application/json; charset=utf-8"
# A game id is a SQLite integer: at most 18 digits keeps it in range and never reaches int()'s digit limit.
_ID = re.compile(r"[0-9]{1,18}")
#: Where a page names the server's own address: :func:`with_origin` puts in the address each request named.  No
#: text a player chose can spell it: every such text is escaped (``<`` is ``&lt;``; in a script's JSON, ``\u003c``).
ORIGIN_MARK = '<span class="origin">http://HOST:PORT</span>'
#: A Host header worth repeating to a reader: a name or an address (IPv6 in brackets), and a port.
_HOST = re.compile(r"(?:[A-Za-z0-9][A-Za-z0-9.-]{0,252}|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?")


class Site(Protocol):
    """What the pages read; the server provides it (all plain data, already consistent)."""

    title: str

    def leaderboard(self) -> list[dict[str, Any]]: ...

    def games(self) -> dict[str, list[dict[str, Any]]]: ...

    def game(self, game_id: int) -> dict[str, Any] | None: ...

    def record(self, game_id: int) -> GameRecord | None: ...

    def player(self, name: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]] | None: ...

    def identity(self) -> dict[str, Any]:
        """``GET /api/server``: ``{"server_id", "game", "protocol"}``; clients key their tokens by the id."""
        ...


@dataclass(frozen=True)
class Answer:
    """An HTTP answer: status, content type, body and any further headers."""

    status: int
    content_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


def answer(site: Site, method: str, target: str) -> Answer:
    """The HTTP answer to a GET/HEAD of ``target`` (path with optional ?query). Never raises for any input."""
    try:
        if method.upper() not in ("GET", "HEAD"):
            reply = _error(_is_api(target), 405, "only GET and HEAD are answered here")
            reply = Answer(reply.status, reply.content_type, reply.body, reply.headers + (("Allow", "GET, HEAD"),))
        else:
            reply = _route(site, target)
    except Exception:  # noqa: BLE001  a page's bug (or the site's) answers 500, never takes the server down
        log.exception("internal error answering %r", str(target)[:200])
        reply = Answer(500, "text/plain; charset=utf-8", b"internal error\n", _SECURITY)
    if method.upper() == "HEAD":
        return Answer(reply.status, reply.content_type, b"", reply.headers)
    return reply


def with_origin(reply: Answer, host: str | None) -> Answer:
    """``reply`` naming the server as ``host`` (the request's ``Host``: the address the reader used) where a page
    names it; a missing or malformed ``Host`` leaves ``http://HOST:PORT`` for the reader to fill in.

    Done for each request, after the page cache: a cached page holds the mark, never one reader's ``Host``."""
    mark = ORIGIN_MARK.encode()
    if not reply.content_type.startswith("text/html") or mark not in reply.body:
        return reply
    if not host or not _HOST.fullmatch(host):
        return reply
    body = reply.body.replace(mark, f'<span class="origin">http://{html.escape(host)}</span>'.encode())
    return Answer(reply.status, reply.content_type, body, reply.headers)


# -- routing ----------------------------------------------------------------------------------------------


def _is_api(target: str) -> bool:
    return _path(target).startswith("/api/")


def _path(target: str) -> str:
    # Split by hand, not urlsplit: "//host/x" is a path here, not a network location.
    return str(target).split("?", 1)[0].split("#", 1)[0]


#: The parts of a game's pages: of its HTML page (/games/ID/PART) and of its API (/api/games/ID/PART).
GAME_PARTS = {False: ("", "record", "replay"), True: ("", "frames")}


def game_target(target: str) -> tuple[int, str, bool] | None:
    """(game id, part, whether the API's) of a request for one of a game's pages, read as :func:`answer` reads
    it (percent-escapes decoded, a trailing slash and the query ignored); None for any other request or part."""
    parts, api = _parts(_path(target))
    if len(parts) not in (2, 3) or parts[0] != "games" or not _ID.fullmatch(parts[1]):
        return None
    part = parts[2] if len(parts) == 3 else ""
    return (int(parts[1]), part, api) if part in GAME_PARTS[api] else None


def _parts(path: str) -> tuple[list[str], bool]:
    """A path's parts after ``/api`` (if there: the second value), decoded; a trailing slash ignored."""
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    parts = [unquote(part, errors="replace") for part in path.split("/")[1:]]
    api = parts[:1] == ["api"]
    return (parts[1:] if api else parts), api


def _route(site: Site, target: str) -> Answer:
    path = _path(target)
    if not path.startswith("/"):
        return _error(False, 404, "no such page")
    parts, api = _parts(path)
    match parts:
        case [""] | [] if not api:
            return _html(200, _front_page(site))
        case ["leaderboard"] if api:
            return _json(200, site.leaderboard())
        case ["games"] if api:
            return _json(200, site.games())
        case ["server"] if api:
            return _json(200, site.identity())
        case ["games", game_id, *rest] if _ID.fullmatch(game_id) and len(rest) <= 1:
            return _game_route(site, int(game_id), rest[0] if rest else "", api)
        case ["players", name] if not api and name:
            found = site.player(name)
            if found is None:
                return _error(False, 404, f"no player named {name!r}")
            return _html(200, _player_page(site, name, *found))
    return _error(api, 404, "no such page")


def _game_route(site: Site, game_id: int, part: str, api: bool) -> Answer:
    summary = site.game(game_id)
    if summary is None:
        return _error(api, 404, f"no game {game_id}")
    if not api and part == "":
        return _html(200, _game_page(site, game_id, summary))
    if part not in (("", "frames") if api else ("record", "replay")):
        return _error(api, 404, "no such page")
    record = site.record(game_id)
    if record is None:
        return _error(api, 404, f"game {game_id} has no record")
    if part == "":
        return Answer(200, _JSON, record.to_json().encode(), _SECURITY)
    if part == "record":
        name = f"game-{game_id}.json"
        return Answer(200, _JSON, record.to_json().encode(),
                      _SECURITY + (("Content-Disposition", f'attachment; filename="{name}"'),))
    status = _status(record)
    if part == "replay":
        if status == "running":
            return _error(False, 404, f"game {game_id} is still being played: its replay is there once it is over")
        try:
            page = replay_html(record, title=f"game {game_id}: {record.name_of('RED')} vs {record.name_of('BLUE')}")
        except ReplayError as exc:
            return _error(False, 404, f"game {game_id} has no replay: {exc}")
        return _html(200, page)
    try:
        frames = build_frames(record).to_json_data()
    except ReplayError as exc:
        return _error(True, 404, f"game {game_id} has no board frames: {exc}")
    if status != "finished":
        # A game being played (or cut off by a restart) is short of its end by design, not a damaged record.
        frames.pop("warning", None)
    return _json(200, frames)


def _status(record: GameRecord) -> str:
    """``running``, ``aborted`` or ``finished``: the server's mark in the record."""
    mark = record.extra.get("battleground") if isinstance(record.extra, Mapping) else None
    status = mark.get("status") if isinstance(mark, Mapping) else None
    if status in ("running", "aborted", "finished"):
        return str(status)
    return "running" if record.reason == "unfinished" else "finished"


# -- answers ----------------------------------------------------------------------------------------------

_SECURITY: tuple[tuple[str, str], ...] = (
    ("Content-Security-Policy", CSP + "; frame-ancestors 'none'"),
    ("Referrer-Policy", "no-referrer"),
)


def _html(status: int, page: str) -> Answer:
    return Answer(status, _HTML, page.encode("utf-8", errors="replace"), _SECURITY)


def _json(status: int, data: Any) -> Answer:
    return Answer(status, _JSON, (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8", "replace"), _SECURITY)


def _error(api: bool, status: int, message: str) -> Answer:
    if api:
        return _json(status, {"error": message})
    title = {404: "not found", 405: "method not allowed"}.get(status, "error")
    body = f'<h1>{_e(title)}</h1>\n<p>{_e(message)}</p>\n<p><a href="/">the leaderboard</a></p>'
    return _html(status, _layout(title, body))


# -- pages ------------------------------------------------------------------------------------------------


def _e(value: Any) -> str:
    """Any value as HTML text (None as a dash)."""
    return "\u2014" if value is None else html.escape(str(value))


def _player_link(name: Any) -> str:
    return f'<a href="/players/{html.escape(quote(str(name), safe=""))}">{_e(name)}</a>'


@functools.cache
def _asset(name: str) -> str:
    """The text of ``assets/<name>`` beside this module, as the pages serve it (read once per process)."""
    return resources.files(__package__).joinpath(f"assets/{name}").read_text(encoding="utf-8")


def _layout(title: str, body: str, script: str = "") -> str:
    scripts = f"\n<script>{script}</script>" if script else ""
    style = board_style() + _asset("web.css")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(title)}</title>
<style>{style}</style>
</head>
<body>
{body}{scripts}
</body>
</html>
"""


def _rating(row: dict[str, Any] | None) -> str:
    if row is None or row.get("rating") is None:
        return "\u2014"
    interval = row.get("interval")
    return _e(row["rating"]) + ("" if interval is None else f" \u00b1 {_e(interval)}")


def _leaderboard_table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "<p>No players yet.</p>"
    lines = [
        f"<tr><td class=\"num\">{_e(r.get('rank'))}</td><td>{_player_link(r.get('name'))}</td>"
        f"<td class=\"num\">{_rating(r)}</td><td class=\"num\">{_e(r.get('games'))}</td>"
        f"<td class=\"num\">{_e(r.get('wins'))}/{_e(r.get('draws'))}/{_e(r.get('losses'))}</td>"
        f"<td>{_e(r.get('last_seen'))}</td></tr>"
        for r in rows
    ]
    return ("<table id=\"leaderboard\"><thead><tr><th>#</th><th>player</th><th>rating</th><th>games</th>"
            "<th>W/D/L</th><th>last seen</th></tr></thead>\n<tbody>\n" + "\n".join(lines) + "\n</tbody></table>")


def _result(game: dict[str, Any]) -> str:
    """A game summary's outcome in words (plain text, escape it to show)."""
    status = game.get("status")
    if status == "running":
        return f"being played ({game.get('turns', 0)} actions so far)"
    if status == "aborted":
        return "aborted (not counted)"
    winner = game.get("winner")
    if winner in ("RED", "BLUE"):
        return f"{game.get('red' if winner == 'RED' else 'blue')} ({winner}) wins ({game.get('reason')})"
    return f"draw ({game.get('reason')})"


def _games_table(games: list[dict[str, Any]], table_id: str, empty: str) -> str:
    if not games:
        return f"<p id=\"{table_id}\">{_e(empty)}</p>"
    lines = []
    for g in games:
        game_id = g.get("id")
        link = f'<a href="/games/{_e(game_id)}">game {_e(game_id)}</a>'
        channel = g.get("channel") or ""
        lines.append(
            f"<tr><td>{link}</td><td class=\"red-name\">{_player_link(g.get('red'))}</td>"
            f"<td class=\"blue-name\">{_player_link(g.get('blue'))}</td>"
            f"<td>{_e(channel) if channel else '<i>public pool</i>'}</td><td>{_e(_result(g))}</td>"
            f"<td class=\"num\">{_e(g.get('turns'))}</td><td>{_e(g.get('started_at'))}</td>"
            f"<td>{_e(g.get('ended_at'))}</td></tr>"
        )
    return (f"<table id=\"{table_id}\"><thead><tr><th>game</th><th>Red</th><th>Blue</th><th>channel</th>"
            "<th>result</th><th>actions</th><th>started</th><th>ended</th></tr></thead>\n<tbody>\n"
            + "\n".join(lines) + "\n</tbody></table>")


#: How often the front page fetches itself again to show the new standings and games (milliseconds).
FRONT_PAGE_REFRESH_MS = 5000


def _front_page(site: Site) -> str:
    games = site.games()
    body = (f"<h1>{_e(site.title)}</h1>\n<main id=\"live\">\n<h2>Leaderboard</h2>\n"
            f"{_leaderboard_table(site.leaderboard())}\n"
            "<p class=\"legend\">rating: the Bradley\u2013Terry Elo fit of every finished game, \u00b1 its 95 %"
            " interval</p>\n"
            f"<h2>Games being played</h2>\n{_games_table(games.get('running', []), 'running', 'None right now.')}\n"
            "<h2>Last finished games</h2>\n"
            f"{_games_table(games.get('finished', [])[:FRONT_PAGE_FINISHED], 'finished', 'None yet.')}\n"
            f"{_aborted_section(games.get('aborted', []))}</main>")
    # The page keeps itself current: it fetches itself and swaps its <main> when that changed (no reload, so the
    # reader's scroll stays); a failed fetch is retried at the next tick, and a hidden tab does not fetch.
    script = _asset("front-page.js").replace("__REFRESH_MS__", str(FRONT_PAGE_REFRESH_MS))
    return _layout(site.title, body, script)


def _aborted_section(aborted: list[dict[str, Any]]) -> str:
    """The games the server's last stops interrupted (never counted), if any: their records so far stay."""
    if not aborted:
        return ""
    return ("<h2>Aborted when the server stopped (not counted)</h2>\n"
            f"{_games_table(aborted, 'aborted', '')}\n")


def _player_page(site: Site, name: str, row: dict[str, Any] | None, games: list[dict[str, Any]]) -> str:
    board = _leaderboard_table([row]) if row is not None else "<p>Not rated yet: no finished game.</p>"
    body = (f"<p><a href=\"/\">{_e(site.title)}</a></p>\n<h1>{_e(name)}</h1>\n{board}\n"
            f"<h2>Games</h2>\n{_games_table(games, 'games', 'No games yet.')}")
    return _layout(f"{name}: {site.title}", body)


def _game_page(site: Site, game_id: int, summary: dict[str, Any]) -> str:
    channel = summary.get("channel") or ""
    data = script_json({"id": game_id, "status": summary.get("status")})
    body = f"""<p><a href="/">{_e(site.title)}</a></p>
<header>
  <h1>Game {game_id}: <span class="red-name">{_player_link(summary.get('red'))}</span> (Red) vs
    <span class="blue-name">{_player_link(summary.get('blue'))}</span> (Blue)</h1>
  <p>channel: {_e(channel) if channel else '<i>public pool</i>'} &middot; started {_e(summary.get('started_at'))}</p>
  <p id="status" aria-live="polite">{_e(_result(summary))}</p>
  <p id="problem" role="alert" hidden></p>
  <p id="end" hidden><a id="replay" href="/games/{game_id}/replay">its HTML replay</a>
    &middot; <a id="download" href="/games/{game_id}/record" download>download the record</a></p>
  <p id="analysis"{' hidden' if summary.get('status') == 'running' else ''}>Where was it won and lost? Analyse it on
    your own machine (this server's processors keep the clocks of the games being played):
    <code id="analyse">python -m referee analyse {ORIGIN_MARK}/api/games/{game_id} --html game-{game_id}.html</code></p>
</header>
<main>
  <section id="board-area">
    <svg id="board" role="img" aria-label="game board"></svg>
    <p id="current"></p>
    <p class="legend"><span class="key source"></span> the last action's cell
      <span class="key touched"></span> cells it reached
      <span class="key captured"></span> taken from the opponent</p>
  </section>
</main>
<script id="game-data" type="application/json">{data}</script>"""
    title = f"game {game_id}: {summary.get('red')} vs {summary.get('blue')}"
    return _layout(title, body, board_script() + _asset("game-page.js"))
