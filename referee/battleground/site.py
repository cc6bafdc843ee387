"""The battleground's HTTP side: what the pages read (:class:`~.web.Site`), and how a request is answered.

Each game's own pages come from the cache or the worker process
(:mod:`.pages`); the site's lists are read here from the server's state.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any, Protocol

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from ..records import GameRecord
from .pages import (
    HEAVY_PARTS, LIVE_PAGE_SECONDS, GameSnapshot, PageCache, PageWorker, RequestBudget, SocketShare,
)
from .protocol import PLAY_PATH, PROTOCOL_VERSION, encode
from .seats import LiveGame, Player, ServerSettings
from .standings import Standings
from .store import Store
from .web import Answer, answer, game_target, with_origin



class Ground(Protocol):
    """What the site reads of the server (:class:`~.server.Battleground`): its state, never its methods of play."""

    settings: ServerSettings
    store: Store
    live: dict[int, LiveGame]
    players: dict[str, Player]
    standings: Standings
    latencies: deque[float]
    sockets: SocketShare

    @property
    def waiting(self) -> list[Player]: ...

    @property
    def moves_played(self) -> int: ...

    @property
    def server_id(self) -> str: ...

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]: ...

log = logging.getLogger("referee.battleground")

#: Seconds the server's figures (GET /api/stats) are shown as worked out.
STATS_SECONDS = 1.0
#: How many aborted games (interrupted by a stop of the server) the site lists, the last first.
ABORTED_LISTED = 20
_REASONS = {200: "OK", 404: "Not Found", 405: "Method Not Allowed", 429: "Too Many Requests",
            500: "Internal Server Error", 503: "Service Unavailable"}


class SiteFront:
    """The server's pages and JSON API, read from its state (a :class:`~.web.Site`)."""

    def __init__(self, ground: Ground):
        self.ground = ground
        self.title = f"battleground: {ground.settings.game}"
        self.page_cache = PageCache()
        self.page_worker = PageWorker()
        self.requests = RequestBudget(ground.settings.http_rate, ground.settings.http_burst)
        self._latency: tuple[float, dict[str, Any] | None] = (0.0, None)
        #: The pages of running games being built again in the background (served a little behind meanwhile).
        self.rebuilding: set[tuple[Any, ...]] = set()

    # -- what the pages read -------------------------------------------------------------------------------

    def leaderboard(self) -> list[dict[str, Any]]:
        ground = self.ground
        return ground.standings.leaderboard(name for name, p in ground.players.items() if p.conn is not None)

    def games(self) -> dict[str, list[dict[str, Any]]]:
        store = self.ground.store
        return {"running": [live_summary(g) for g in sorted(self.ground.live.values(), key=lambda g: g.id)],
                "finished": [row.to_json() for row in store.games("finished")],
                "aborted": [row.to_json() for row in store.games("aborted", ABORTED_LISTED)]}

    def game(self, game_id: int) -> dict[str, Any] | None:
        live = self.ground.live.get(game_id)
        if live is not None:
            return live_summary(live)
        row = self.ground.store.game(game_id)
        return row.to_json() if row else None

    def record(self, game_id: int) -> GameRecord | None:
        live = self.ground.live.get(game_id)
        if live is not None:
            return live.snapshot()
        return self.ground.store.record(game_id)

    def player(self, name: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]] | None:
        ground = self.ground
        if ground.store.player(name) is None:
            return None
        row = next((r for r in self.leaderboard() if r["name"] == name), None)
        games = [live_summary(g) for g in ground.live.values() if name in (g.seats[0].player.name,
                                                                           g.seats[1].player.name)]
        return row, games + [r.to_json() for r in ground.store.games_of(name) if r.id not in ground.live]

    def identity(self) -> dict[str, Any]:
        """``GET /api/server``: who this server is (its id, game and protocol)."""
        return {"server_id": self.ground.server_id, "game": self.ground.settings.game, "protocol": PROTOCOL_VERSION}

    def stats(self) -> dict[str, Any]:
        """The server's figures (``GET /api/stats``): connections, games and its latency over the last moves (its
        percentiles worked out at most once a second: sorting the last 20,000 latencies takes milliseconds)."""
        ground = self.ground
        made, latency = self._latency
        if latency is None or time.monotonic() - made >= STATS_SECONDS:
            latencies = sorted(ground.latencies)

            def percentile(share: float) -> float | None:
                return round(1000 * latencies[int(share * (len(latencies) - 1))], 3) if latencies else None

            latency = {"moves": len(latencies), "p50": percentile(0.5), "p99": percentile(0.99),
                       "max": percentile(1.0)}
            self._latency = (time.monotonic(), latency)
        return {"connections": sum(1 for p in ground.players.values() if p.conn is not None),
                "waiting": len(ground.waiting), "games_running": len(ground.live), "moves": ground.moves_played,
                "latency_ms": latency,
                "sockets": {"open": ground.sockets.count, "refused": ground.sockets.refused},
                "pages": {"from_cache": self.page_cache.hits, "built": self.page_worker.built,
                          "busy": self.page_worker.refused, "cache_bytes": self.page_cache.size}}

    # -- HTTP ---------------------------------------------------------------------------------------------

    async def process_request(self, conn: ServerConnection, request: Request) -> Response | None:
        """The WebSocket library's request hook: None lets an agent's connection through, else the answer."""
        path = request.path
        if path.split("?", 1)[0] == PLAY_PATH and "websocket" in request.headers.get("Upgrade", "").lower():
            return None
        address = str(conn.remote_address[0]) if conn.remote_address else "?"
        if not self.requests.allow(address):
            reply = Answer(429, "text/plain; charset=utf-8", b"too many requests from your address: slow down\n",
                           (("Retry-After", "1"),))
        elif path == "/api/stats":
            return json_response(self.stats())
        else:
            try:
                # The page names the server as this request did (the cache keeps every reader's page the same).
                reply = with_origin(await self.page(path), request.headers.get("Host"))
            except Exception:  # noqa: BLE001  a page's bug must not take the server down
                log.exception("internal error answering %s", path[:200])
                reply = Answer(500, "text/plain; charset=utf-8", b"internal error\n")
        headers = Headers([("Content-Type", reply.content_type), ("Content-Length", str(len(reply.body))),
                           ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
                           *reply.headers])
        return Response(reply.status, _REASONS.get(reply.status, "OK"), headers, reply.body)

    async def page(self, target: str) -> Answer:
        """The answer to a GET of ``target``: one game's pages from the cache or the worker, the rest here."""
        found = game_target(target)
        if found is None:
            return answer(self, "GET", target)  # the site's lists, a 404: cheap
        game_id, part, api = found
        # One name for each of a game's pages, however the request spelt it (escapes, a query): the cache holds
        # at most a few answers a game, and no spelling reaches a build that is not the worker's.
        target = f"{'/api' if api else ''}/games/{game_id}" + (f"/{part}" if part else "")
        live = self.ground.live.get(game_id)
        if live is not None and part not in HEAVY_PARTS:
            # A running game's page or record: cheap, and always the latest (kept until its next action).
            key: tuple[Any, ...] = (target, len(live.actions))
            latest = self.page_cache.get(key) or answer(self, "GET", target)
            self.page_cache.put(key, latest)
            return latest
        key = (target, "running" if live is not None else "over")
        cached = self.page_cache.get(key, time.monotonic() - LIVE_PAGE_SECONDS if live is not None else 0.0)
        if cached is not None:
            return cached
        if live is not None:
            record = live.snapshot()
            snapshot = GameSnapshot(self.title, game_id, live_summary(live), record.to_json())
            older = self.page_cache.last(key)
            if older is not None:
                # A running game's frames a little behind, at once, while the worker brings them up to date (one
                # build at a time a page): spectators never wait on the worker, nor ask it for more than it does.
                if key not in self.rebuilding:
                    self.rebuilding.add(key)
                    self.ground.spawn(self._rebuild(key, snapshot, target))
                return older
        else:
            row = self.ground.store.game(game_id)
            if row is None:
                return answer(self, "GET", target)  # the 404, said as the site says it
            snapshot = GameSnapshot(self.title, game_id, row.to_json(), self.ground.store.record_text(game_id))
        reply = await self.page_worker.build(snapshot, target)
        if reply is None:
            return Answer(503, "text/plain; charset=utf-8", b"the server is busy: try again in a moment\n",
                          (("Retry-After", "1"),))
        if reply.status in (200, 404):
            self.page_cache.put(key, reply)
        return reply

    async def _rebuild(self, key: tuple[Any, ...], snapshot: GameSnapshot, target: str) -> None:
        try:
            reply = await self.page_worker.build(snapshot, target)
            if reply is not None and reply.status in (200, 404):
                self.page_cache.put(key, reply)
        finally:
            self.rebuilding.discard(key)

    def close(self) -> None:
        self.page_worker.close()


def live_summary(live: LiveGame) -> dict[str, Any]:
    """A running game as the lists show it."""
    return {"id": live.id, "red": live.seats[0].player.name, "blue": live.seats[1].player.name,
            "channel": live.channel, "status": "running", "winner": None, "reason": None,
            "turns": len(live.actions), "started_at": live.started_at, "ended_at": None}


def json_response(data: Any) -> Response:
    body = (encode(data) + "\n").encode()
    return Response(200, "OK", Headers([("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                                        ("Cache-Control", "no-store")]), body)
