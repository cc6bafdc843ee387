"""The battleground server: one asyncio process, one port (docs/battleground.md).

* Agents connect with a WebSocket to :data:`~.protocol.PLAY_PATH`; every
  other path is the web pages and the JSON API (:mod:`.site`, :mod:`.web`),
  answered from the same port by the WebSocket library's request hook.
* The standings (results, ratings, leaderboard) are :mod:`.standings`'s.
* The server is the referee: each game is a coroutine holding the
  :class:`~referee.games.base.GameState`, asking the mover's client for an
  action, checking it with the rules and telling both sides.
* House agents are clients too (:mod:`.house`).

The pieces: admission (:mod:`.admission`: names, tokens, per-address limits), the lobby (:mod:`.lobby`: pure
pairing), one task per game driving the game core (:mod:`.table`), the house agents (:mod:`.house`), the
database's one writer thread (:mod:`.progress`), the standings and the site.  This module holds the players'
connections and ties the pieces together.
"""
from __future__ import annotations

import asyncio
import logging
import time
from typing import Any
from collections import deque

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from ..core import utc_now
from .admission import Admission, Refused
from .house import HouseAgents
from .lobby import Lobby
from .pages import SocketShare, socket_room
from .progress import Progress, Writer
from .protocol import (
    CLIENT_MESSAGES, MAX_MESSAGE_BYTES, PLAY_PATH, ProtocolViolation, check_hello, encode, read_message,
)
from .seats import LiveGame, Player, Seat, ServerSettings
from .site import SiteFront
from .standings import Standings
from .store import Store
from .table import play_pair, start_message

log = logging.getLogger("referee.battleground")


class Battleground:
    """The server: its players and their connections, tying admission, lobby, games and house agents together."""

    def __init__(self, settings: ServerSettings, store: Store):
        self.settings = settings
        self.store = store
        self.players: dict[str, Player] = {}
        self.live: dict[int, LiveGame] = {}
        self.port = 0
        self.tasks: set[asyncio.Task[Any]] = set()
        #: The server's own latency of the last moves: from an action's arrival to the next request sent.
        self.latencies: deque[float] = deque(maxlen=20_000)
        self.writer = Writer()
        self.progress = Progress(store, self.writer)
        self.standings = Standings(store, self.spawn)
        self.lobby = Lobby(settings.house, settings.pair_games_per_hour, self.standings.rating_of)
        self.house = HouseAgents(self, store.secret)
        self.admission = Admission(settings, store, self.house.token, self.writer)
        self.site = SiteFront(self)
        self.sockets = SocketShare(settings.open_per_address, socket_room())
        #: name -> the ids of its games the last stop interrupted (aborted at start-up), told once at its welcome.
        self.aborted: dict[str, list[int]] = {}
        for name in settings.house:
            store.add_player(name, None, utc_now(), house=True)
        if settings.roster is not None:
            for name, student_id in settings.roster.items():
                # A name first used before the roster was given keeps no token but the roster's: whoever took it
                # then (a squatter, before the class was on the roster) is locked out of it now.
                if store.player(name) is None or not store.token_matches(name, store.roster_token(name)):
                    store.add_player(name, store.roster_token(name), utc_now(), student_id, retoken=True)

    @property
    def waiting(self) -> list[Player]:
        return self.lobby.waiting

    @property
    def moves_played(self) -> int:
        return self.progress.moves_played

    @property
    def server_id(self) -> str:
        return self.admission.server_id

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("internal error in a battleground task", exc_info=task.exception())

    # -- connections ----------------------------------------------------------------------------------------

    async def handle(self, conn: ServerConnection) -> None:
        address = str(conn.remote_address[0]) if conn.remote_address else "?"
        player: Player | None = None
        try:
            try:
                raw = await asyncio.wait_for(conn.recv(), self.settings.hello_timeout)
                hello = read_message(raw, CLIENT_MESSAGES)
                if hello["type"] != "hello":
                    raise ProtocolViolation("the first message must be hello")
            except asyncio.TimeoutError:
                await _refuse(conn, f"no hello within {self.settings.hello_timeout:g} s")
                return
            except ProtocolViolation as exc:
                await _refuse(conn, str(exc))
                return
            player = await self.welcome(conn, hello, address)
            if player is None:
                return
            await self.read(conn, player)
        except ConnectionClosed:
            pass
        finally:
            if player is not None and player.conn is conn:
                self.left(player, address)
            elif player is not None and not player.house:  # replaced by a new login: its place is free again
                self.admission.disconnected(address)

    async def welcome(self, conn: ServerConnection, hello: dict[str, Any], address: str) -> Player | None:
        """Check the hello's name and token; attach the connection to its player (or refuse); the player."""
        problem = check_hello(hello)
        try:
            if problem:
                raise Refused(problem)
            new_token = await self.admission.admit(hello, address, self.house.wanted)
        except Refused as refused:
            await _refuse(conn, str(refused))
            return None
        name, house = hello["name"], hello["name"] in self.settings.house
        player = self.players.get(name) if not house else None
        if player is None:
            player = Player(name, house)
            if not house:
                self.players[name] = player
        elif player.conn is not None:
            old = player.conn
            player.conn = None
            self.spawn(old.close(1000, "replaced by a new connection"))
        player.asked = 0
        player.gone_at = None
        if not house:
            self.admission.connected(address)
        self.progress.saw(name)
        welcome = self.admission.welcome(name, new_token, self.aborted.pop(name, None))
        if player.seat is not None:
            # Back to its game: the game so far at once, whoever is to move (its clock, if it is the mover, runs
            # on: the request comes again once it is ready). Never a new allowance, never a nested wait. The
            # welcome goes on the new connection alone; then, in one step, the connection becomes the player's
            # and the game so far is written: what its game sends after comes after it on the wire, and what its
            # game sent meanwhile (to no connection) is in it.
            try:
                await conn.send(encode(welcome))
            except ConnectionClosed:
                return player
            player.conn = conn
            await self.rejoin(player, player.seat)
            return player
        player.conn = conn
        await player.send(welcome)
        if player.in_pair:  # between the two games of its pair: the next one finds it on this connection
            return player
        if player in self.lobby:  # already in the lobby: this connection takes the place over, not a second one
            await player.send({"type": "waiting", "channel": player.channel})
            return player
        if hello["games"] == 0:  # only to come back to a game, which is over
            await player.send({"type": "done", "message": "no game of yours is in play and you asked for no more"})
            self.spawn(conn.close(1000, "done"))
            return player
        player.channel, player.games_left = hello["channel"], hello["games"]
        player.done = False
        if house:
            player.for_player = hello.get("opponent") if isinstance(hello.get("opponent"), str) else None
        self.enter_lobby(player)
        return player

    async def rejoin(self, player: Player, seat: Seat) -> None:
        """The seat's player is back on a new connection: send it the game so far; its game hears of it."""
        live = self.live.get(player.last_game) if player.last_game is not None else None
        if live is None or seat not in live.seats:
            return
        seat.rejoined()
        # Built and written before this yields (an unfragmented frame is written at once): nothing the game sends
        # the player can come before it.
        await player.send(start_message(self.settings, live, seat))

    async def read(self, conn: ServerConnection, player: Player) -> None:
        """Pass the connection's messages to the player's game; a violation closes it (and forfeits its game)."""
        try:
            await self._read(conn, player)
        except ConnectionClosed as closed:
            # A frame over the size limit is refused by the WebSocket library itself, which closes with 1009
            # before the message reaches us: a violation all the same (a forfeit at once, not a drop the player
            # could mend by reconnecting within the grace period).
            if closed.sent is not None and closed.sent.code == CloseCode.MESSAGE_TOO_BIG:
                self.violated(player, f"a message is at most {MAX_MESSAGE_BYTES} bytes")
            raise

    def violated(self, player: Player, why: str) -> None:
        """Tell the player's game (whichever side it waits on) that the player broke the protocol."""
        seat = player.seat
        live = self.live.get(player.last_game) if seat is not None and player.last_game is not None else None
        if seat is not None and live is not None and seat in live.seats:
            live.violated(seat, why)

    async def _read(self, conn: ServerConnection, player: Player) -> None:
        bucket, last = self.settings.burst, time.monotonic()
        async for raw in conn:
            now = time.monotonic()
            bucket = min(self.settings.burst, bucket + (now - last) * self.settings.rate)
            last = now
            try:
                if player.asked > 0:
                    player.asked -= 1
                elif bucket < 1:
                    raise ProtocolViolation(f"more than {self.settings.rate:g} messages a second unasked")
                else:
                    bucket -= 1
                message = read_message(raw, CLIENT_MESSAGES)
                if message["type"] == "hello":
                    raise ProtocolViolation("hello twice")
                if player.seat is None and player.last_game is not None and message.get("id") == player.last_game:
                    continue  # the answer to a request of a game that ended meanwhile
                if player.seat is None:
                    raise ProtocolViolation(f"{message['type']} outside a game")
            except ProtocolViolation as exc:
                self.violated(player, str(exc))
                await player.send({"type": "error", "message": str(exc)})
                # What the client still sends is read and dropped meanwhile: a flooder's backlog would otherwise
                # fill the library's queue, which then stops reading and never sees the client's close frame
                # (the close would wait out its 10 s timeout).
                self.spawn(_discard(conn))
                await conn.close(1008, "protocol violation")
                return
            if player.conn is not conn:
                continue  # a replaced connection's last words: its successor speaks for the player now
            if player.admit(message):
                message["received"] = now  # for the server's own latency per move (/api/stats)
                player.inbox.put_nowait(message)

    def left(self, player: Player, address: str) -> None:
        """The player's connection closed: out of the lobby; a game waits for it (the grace period)."""
        player.conn = None
        player.gone_at = time.monotonic()
        if not player.house:
            self.admission.disconnected(address)
        self.lobby.leave(player)
        if player.seat is not None:
            player.wake()
        elif not player.house and not player.in_pair:
            self.players.pop(player.name, None)
        if not player.house and player.seat is None:
            # A house agent waiting for this student in the lobby waits for no one now: its slot is free again.
            for house in self.lobby.house_agents_for(player.name):
                self.lobby.leave(house)
                house.done = True
                self.spawn(house.send({"type": "done", "message": f"{player.name} left"}))
                if house.conn is not None:
                    self.spawn(house.conn.close(1000, "done"))
        self.progress.saw(player.name)

    def enter_lobby(self, player: Player) -> None:
        """The player waits for a game: pair whoever can be (each pair's games in a task of their own)."""
        self.lobby.enter(player)
        self.spawn(player.send({"type": "waiting", "channel": player.channel}))
        if not player.house and player.channel in self.settings.house:
            self.house.call(player)
        for first, second in self.lobby.pairs():
            self.spawn(play_pair(self, first, second))

    async def close(self) -> None:
        """Stop: house agents killed, every task ended and awaited, the writes asked for done; then the store
        may be closed."""
        self.progress.save()
        self.house.kill()
        tasks = list(self.tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.progress.save()
        await asyncio.get_running_loop().run_in_executor(None, self.writer.close)
        self.standings.close()
        self.site.close()


async def _discard(conn: ServerConnection) -> None:
    """Read and drop the connection's messages until it closes."""
    try:
        async for _ in conn:
            pass
    except ConnectionClosed:
        pass


async def _refuse(conn: ServerConnection, reason: str) -> None:
    try:
        await conn.send(encode({"type": "refused", "reason": reason}))
        await conn.close(1008, "refused")
    except ConnectionClosed:
        pass


async def run_server(settings: ServerSettings, db: str, host: str, port: int,
                     ready: asyncio.Event | None = None, say: Any = print) -> None:
    """Serve until cancelled (or SIGINT/SIGTERM through the CLI)."""
    store = Store(db, settings.game, settings.game_options)
    aborted = store.abort_running(utc_now())
    if aborted:
        say(f"* battleground: {len(aborted)} game(s) interrupted by the last stop recorded as aborted (not counted)")
    ground = Battleground(settings, store)
    if ground.standings.games:
        # Rated before the first page: a restarted server would otherwise rank by games until its first fit.
        await ground.standings.refit()
    for game_id, red, blue in aborted:
        for name in (red, blue):
            ground.aborted.setdefault(name, []).append(game_id)
    sockets = ground.sockets

    class CountedConnection(ServerConnection):
        """A connection counted from its TCP accept (before any handshake or hello) against its address's and
        the server's share of open sockets; past either it is closed at once."""

        counted: str | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if peer else "?"
            if sockets.open(address):
                self.counted = address
            elif isinstance(transport, asyncio.Transport):
                transport.abort()
            else:
                transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            if self.counted is not None:
                sockets.closed(self.counted)
                self.counted = None
            super().connection_lost(exc)

    try:
        async with serve(ground.handle, host, port, process_request=ground.site.process_request,
                         max_size=MAX_MESSAGE_BYTES, max_queue=64, compression=None,
                         open_timeout=settings.hello_timeout, ping_interval=5, ping_timeout=20,
                         logger=log, create_connection=CountedConnection) as server:
            ground.port = next(iter(server.sockets)).getsockname()[1]
            say(f"* battleground: {settings.game} on http://{host}:{ground.port}/ (agents: ws://{host}:"
                f"{ground.port}{PLAY_PATH}), database {db}")
            if ready is not None:
                ready.set()
            await ground.progress.keep_alive()
    finally:
        await ground.close()
        store.close()

