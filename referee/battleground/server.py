"""The battleground server: one asyncio process, one port (docs/battleground.md).

* Agents connect with a WebSocket to :data:`~.protocol.PLAY_PATH`; every
  other path is the web pages and the JSON API (:mod:`.site`, :mod:`.web`),
  answered from the same port by the WebSocket library's request hook.
* The standings (results, ratings, leaderboard) are :mod:`.standings`'s.
* The server is the referee: each game is a coroutine holding the
  :class:`~referee.games.base.GameState`, asking the mover's client for an
  action, checking it with the rules and telling both sides.
* House agents are clients too: for each student on a house channel the server
  starts ``python -m referee connect`` of that agent in its own process,
  sealed as any local game, at most ``house_workers`` at once.
"""
from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import logging
import os
import secrets
import signal
import sqlite3
import sys
import time
from typing import Any
from collections import deque
from collections.abc import Awaitable, Callable

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from .. import __version__
from ..games.base import CHANCE, PLAYER_NAMES
from ..core import utc_now
from ..hosting.failures import AgentFailure
from ..records import GameRecord, bounded
from .protocol import (
    CLIENT_MESSAGES, MAX_MESSAGE_BYTES, PLAY_PATH, TOKEN_VARIABLE, ProtocolViolation, check_hello, encode,
    failure_reason, read_message,
)
from .seats import (
    SAVE_INTERVAL, Forfeit, LiveGame, Player, RecentCount, Seat, ServerSettings, lost_without_playing, pair_key,
)
from .pages import SocketShare, socket_room
from .site import SiteFront
from .standings import Standings
from .store import Move, Store

log = logging.getLogger("referee.battleground")

#: Messages of a player's waiting to be read by its game, at most (only what the game asked for is let in).
INBOX_LIMIT = 4
#: Seconds between the server's notes that it is alive (an abort after a crash is dated within this).
ALIVE_INTERVAL = 2.0
#: Games a student plays the house agent per visit; with more to play it waits for a slot again.
HOUSE_GAMES_PER_VISIT = 10


class Battleground:
    """The server's state: players, lobby, live games and the database."""

    def __init__(self, settings: ServerSettings, store: Store):
        self.settings = settings
        self.store = store
        self.players: dict[str, Player] = {}
        self.waiting: list[Player] = []
        self.live: dict[int, LiveGame] = {}
        self.addresses: dict[str, int] = {}
        self.port = 0
        self.house_slots = asyncio.Semaphore(max(1, settings.house_workers))
        self.house_procs: set[asyncio.subprocess.Process] = set()
        #: Each student's house agent (its start and its games): one at a time.
        self.house_visits: dict[str, asyncio.Task[None]] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        #: The server's own latency of the last moves: from an action's arrival to the next request sent.
        self.latencies: deque[float] = deque(maxlen=20_000)
        self.moves_played = 0
        #: Moves played and not yet kept in the database: written together every SAVE_INTERVAL seconds (one
        #: transaction for every game's moves of that time, not one per move), and at each game's end.
        self.unsaved: list[Move] = []
        #: Players seen (connected or gone) since the last save: name -> when.
        self.unseen: dict[str, str] = {}
        self.alive_kept = 0.0
        self.standings = Standings(store, self.spawn)
        self.site = SiteFront(self)
        self.sockets = SocketShare(settings.open_per_address, socket_room())
        #: New names taken by each address, and games started by each pair of players, in the last hour.
        self.new_names = RecentCount()
        self.pair_games = RecentCount()
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

    # -- bookkeeping ------------------------------------------------------------------------------------

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("internal error in a battleground task", exc_info=task.exception())

    @property
    def server_id(self) -> str:
        """This server's identity, the same across restarts on one database: what clients keep tokens under."""
        return hmac.new(self.store.secret.encode(), b"server-id", hashlib.sha256).hexdigest()[:24]

    def house_token(self, name: str) -> str:
        return hmac.new(self.store.secret.encode(), f"house:{name}".encode(), hashlib.sha256).hexdigest()[:32]

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
                self.addresses[address] = max(0, self.addresses.get(address, 1) - 1)

    async def welcome(self, conn: ServerConnection, hello: dict[str, Any], address: str) -> Player | None:
        """Check the hello's name and token; attach the connection to its player (or refuse); the player."""
        problem = check_hello(hello)
        if problem:
            await _refuse(conn, problem)
            return None
        name, token = hello["name"], hello.get("token")
        settings = self.settings
        house = name in settings.house
        new_token = None
        if not house and settings.per_address and self.addresses.get(address, 0) >= settings.per_address:
            # Before a name is taken: a refused connection would take it and never hear its token.
            await _refuse(conn, f"at most {settings.per_address} connections from one address")
            return None
        if house:
            if not (isinstance(token, str) and hmac.compare_digest(token, self.house_token(name))):
                await _refuse(conn, f"{name!r} is a house agent's name")
                return None
        elif settings.roster is not None and name not in settings.roster:
            await _refuse(conn, f"{name!r} is not on this server's roster")
            return None
        elif self.store.player(name) is None:
            like = self.store.name_like(name)
            if like is not None:
                await _refuse(conn, f"{name!r} reads as {like!r}, a name already taken: choose another")
                return None
            if settings.names_per_hour and self.new_names(address) >= settings.names_per_hour:
                await _refuse(conn, f"at most {settings.names_per_hour} new names an hour from one address: "
                                    "play under a name you have")
                return None
            self.new_names.add(address)
            new_token = secrets.token_hex(16)
            self.store.add_player(name, new_token, utc_now())
        elif not self.store.token_matches(name, token):
            await _refuse(conn, f"wrong token for {name!r}" if token else
                          f"{name!r} is taken: its token is needed (docs/battleground.md, 'Identity')")
            return None
        if house and not self.house_wanted(hello):
            # Its student left while it was starting: it would wait for no one and keep a slot.
            await _refuse(conn, "the student this house agent was started for is not waiting for it")
            return None
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
            self.addresses[address] = self.addresses.get(address, 0) + 1
        self.saw(name)
        welcome = {"type": "welcome", "name": name, "game": settings.game,
                   "game_options": dict(settings.game_options), "time_limit": settings.time_limit,
                   "space_limit": settings.space_limit, "wall_limit": settings.wall_limit, "grace": settings.grace,
                   "server": f"referee {__version__}", "server_id": self.server_id}
        if new_token:
            welcome["token"] = new_token
        if name in self.aborted:
            welcome["aborted"] = self.aborted.pop(name)
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
        if player in self.waiting:  # already in the lobby: this connection takes the place over, not a second one
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
        _drain(player.inbox)  # the old connection's answers: its new one answers afresh
        seat.ready = seat.answered = seat.failed = False
        seat.ask_again = seat.asked
        player.wake()
        # Built and written before this yields (an unfragmented frame is written at once): nothing the game sends
        # the player can come before it.
        await self.send_start(live, seat)

    async def read(self, conn: ServerConnection, player: Player) -> None:
        """Pass the connection's messages to the player's game; a violation closes it (and forfeits its game)."""
        bucket, last = self.settings.burst, time.monotonic()
        try:
            await self._read(conn, player, bucket, last)
        except ConnectionClosed as closed:
            # A frame over the size limit is refused by the WebSocket library itself, which closes with 1009
            # before the message reaches us: a violation all the same (a forfeit at once, not a drop the player
            # could mend by reconnecting within the grace period).
            if closed.sent is not None and closed.sent.code == CloseCode.MESSAGE_TOO_BIG:
                self.violated(player, f"a message is at most {MAX_MESSAGE_BYTES} bytes")
            raise

    def house_wanted(self, hello: dict[str, Any]) -> bool:
        """Whether the student a house agent's client was started for waits for it on its channel."""
        student = self.players.get(hello.get("opponent") or "")
        return student is not None and student.conn is not None and student.channel == hello["name"] and (
            student in self.waiting or student.in_pair)

    def violated(self, player: Player, why: str) -> None:
        """Tell the player's game (whichever side it waits on) that the player broke the protocol."""
        seat = player.seat
        live = self.live.get(player.last_game) if seat is not None and player.last_game is not None else None
        if seat is None or live is None or seat not in live.seats:
            return
        if live.violation is None:
            live.violation = (seat.color, why)
        for each in live.seats:
            each.player.wake()

    async def _read(self, conn: ServerConnection, player: Player, bucket: float, last: float) -> None:
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
            if self.admit(player, message):
                message["received"] = now  # for the server's own latency per move (/api/stats)
                player.inbox.put_nowait(message)

    @staticmethod
    def admit(player: Player, message: dict[str, Any]) -> bool:
        """Whether the game wants this message now: a ``ready`` while not ready, an ``action`` while asked, one
        ``failed`` a game, each only while fewer than :data:`INBOX_LIMIT` wait to be read.  The rest is dropped
        (having drawn on the unasked budget): an action sent before the request is never played the moment the
        request comes, and nothing piles up in the server (64 KiB messages sent during the other side's turn
        grew it by 170 MB in 18 s)."""
        seat = player.seat
        if seat is None or message.get("id") != player.last_game or player.inbox.qsize() >= INBOX_LIMIT:
            return False
        kind = message["type"]
        if kind == "ready":
            # Ready from now on, not from when its game reads it: its action may come before its game gets to it.
            admitted, seat.ready = not seat.ready, True
            return admitted
        if kind == "action":
            # One action a request: a second sent before the game reads the first (an early one for the next
            # turn) would otherwise be let in while the first request still stood, and played at the next.
            admitted = seat.asked and seat.ready and not seat.answered
            seat.answered = seat.answered or admitted
            return admitted
        if kind == "failed" and not seat.failed:
            seat.failed = True
            return True
        return False

    def left(self, player: Player, address: str) -> None:
        """The player's connection closed: out of the lobby; a game waits for it (the grace period)."""
        player.conn = None
        player.gone_at = time.monotonic()
        if not player.house:
            self.addresses[address] = max(0, self.addresses.get(address, 1) - 1)
        if player in self.waiting:
            self.waiting.remove(player)
        if player.seat is not None:
            player.wake()
        elif not player.house and not player.in_pair:
            self.players.pop(player.name, None)
        if not player.house and player.seat is None:
            # A house agent waiting for this student in the lobby waits for no one now: its slot is free again.
            for house in [p for p in self.waiting if p.house and p.for_player == player.name]:
                self.waiting.remove(house)
                house.done = True
                self.spawn(house.send({"type": "done", "message": f"{player.name} left"}))
                if house.conn is not None:
                    self.spawn(house.conn.close(1000, "done"))
        self.saw(player.name)

    # -- pairing ------------------------------------------------------------------------------------------

    def enter_lobby(self, player: Player) -> None:
        player.waiting_since = time.monotonic()
        self.waiting.append(player)
        self.spawn(player.send({"type": "waiting", "channel": player.channel}))
        if not player.house and player.channel in self.settings.house:
            visit = self.house_visits.get(player.name)
            if visit is None or visit.done():  # one house agent per student at a time
                self.house_visits[player.name] = self.spawn(self.start_house(player.channel, player))
        self.pair()

    def pair(self) -> None:
        """Pair whoever can be: channel by channel in order of arrival; the public pool by nearest rating."""
        while True:
            found = self._pairing()
            if found is None:
                return
            first, second = found
            self.waiting.remove(first)
            self.waiting.remove(second)
            self.spawn(self.play_pair(first, second))

    def _pairing(self) -> tuple[Player, Player] | None:
        for index, first in enumerate(self.waiting):
            if first.house:
                continue
            cap = self.settings.pair_games_per_hour
            candidates = [p for p in self.waiting[index + 1:] + self.waiting[:index]
                          if p is not first and p.channel == first.channel and p.name != first.name
                          and (not p.house or p.for_player == first.name)
                          and (p.house or not cap or self.pair_games(pair_key(first, p)) < cap)]
            if first.channel in self.settings.house:
                candidates = [p for p in candidates if p.house]
            if not candidates:
                continue
            if first.channel == "":
                mine = self.standings.rating_of(first.name)
                candidates.sort(key=lambda p: (abs(self.standings.rating_of(p.name) - mine), p.waiting_since))
            else:
                candidates.sort(key=lambda p: p.waiting_since)
            return first, candidates[0]
        return None

    async def start_house(self, name: str, student: Player) -> None:
        """Start the house agent ``name`` for ``student``: a client process on this machine, sealed as any.

        A visit is at most :data:`HOUSE_GAMES_PER_VISIT` games; a student with more to play then waits for a
        slot again, behind whoever waited meanwhile (so two students asking for 1000 games each do not keep
        every slot for hours).
        """
        if await self._house_visit(name, student):
            student = self.players.get(student.name, student)
            if student in self.waiting and student.channel == name and student.games_left > 0:
                self.house_visits[student.name] = self.spawn(self.start_house(name, student))

    async def _house_visit(self, name: str, student: Player) -> bool:
        """One visit of the house agent; whether it went as it should (its process ended well)."""
        async with self.house_slots:
            # The student as it is now: it may have left and come back (another Player) while this waited.
            student = self.players.get(student.name, student)
            if student.conn is None and student.seat is None:
                return False
            games = min(student.games_left, HOUSE_GAMES_PER_VISIT)
            command = [sys.executable, "-m", "referee", "connect", self.settings.house[name], name,
                       "--server", f"127.0.0.1:{self.port}", "--channel", name, "--games", str(games),
                       "--house-for", student.name,
                       "--sandbox", self.settings.house_sandbox, "--no-token-file", "-v", "0"]
            # Its token in its environment, not on its command line (which every user of the machine can read).
            env = dict(os.environ, **{TOKEN_VARIABLE: self.house_token(name)})
            proc = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE, start_new_session=True, env=env,
            )
            self.house_procs.add(proc)
            try:
                _, err = await proc.communicate()
            finally:
                self.house_procs.discard(proc)
            if proc.returncode not in (0, None):
                log.warning("house agent %s for %s ended with %s: %s", name, student.name, proc.returncode,
                            err.decode(errors="replace")[-400:])
                if student in self.waiting:
                    await student.send({"type": "error", "message": f"the house agent {name} could not start"})
                return False
            return True

    async def play_pair(self, first: Player, second: Player) -> None:
        first.in_pair = second.in_pair = True
        idle: GameRecord | None = None  # a house game its student lost without playing
        try:
            count = 2 if min(first.games_left, second.games_left) >= 2 else 1
            for number in range(count):
                red, blue = (first, second) if number == 0 else (second, first)
                record = await self.play_game(red, blue, first.channel, [number + 1, count])
                for player in (first, second):
                    player.games_left -= 1
                if record is not None and lost_without_playing(record, red, blue):
                    idle = record
                if idle is not None or any(p.conn is None for p in (first, second)):
                    break
        finally:
            first.in_pair = second.in_pair = False
        for player in (first, second):
            if player.conn is None:
                if not player.house:
                    self.players.pop(player.name, None)
                continue
            opponent = second if player is first else first
            if idle is not None:
                # The house plays agents that move: one that does not gives its slot back to the next student.
                message = ("no more games: thank you for playing" if player.house else
                           f"the house agent plays agents that move: yours lost game "
                           f"{idle.extra['battleground']['id']} on {idle.reason}; connect again to play it")
            elif player.games_left > 0 and not (player.house and (opponent.conn is None or opponent.games_left <= 0)):
                self.enter_lobby(player)
                continue
            else:
                message = "no more games: thank you for playing"
            player.done = True
            await player.send({"type": "done", "message": message})
            if player.conn is not None:
                self.spawn(player.conn.close(1000, "done"))

    # -- a game ---------------------------------------------------------------------------------------------

    async def play_game(self, red: Player, blue: Player, channel: str, pair: list[int]) -> GameRecord | None:
        """Referee one game to its end: a result, or an abort the server explains; never a game that vanishes.

        Its record (None if it could not start)."""
        seed = secrets.randbelow(2 ** 31)
        try:
            game_id = self.store.start_game(red.name, blue.name, channel, utc_now())
        except sqlite3.Error:
            log.exception("could not start a game between %s and %s", red.name, blue.name)
            for player in (red, blue):
                await player.send({"type": "error", "message": "the server could not start a game (its database "
                                                                "failed): try again later"})
            return None
        if not (red.house or blue.house):
            self.pair_games.add(pair_key(red, blue))
        wall = self.settings.wall_limit_of
        seats = (Seat(red, 0, wall(red.name)), Seat(blue, 1, wall(blue.name)))
        live = LiveGame(game_id, seats, channel, self.settings, seed)
        live.pair = pair
        self.live[game_id] = live
        for seat in seats:
            seat.player.seat = seat
            seat.player.last_game = game_id
            _drain(seat.player.inbox)
        status = "finished"
        try:
            # Its record without an action, kept for a partial record should the server die during the game.
            self.store.started(game_id, live.snapshot())
            await asyncio.gather(*(self.send_start(live, seat) for seat in seats))
            await _all_or_none(*(self.await_ready(live, seat) for seat in seats))
            await self.play_moves(live)
        except Forfeit as lost:
            live.core.forfeit(lost.color, lost.reason, lost.message, lost.error)
        except Exception:  # noqa: BLE001  the server's own failure: the game is aborted, said so, never lost
            log.exception("internal error in game %d (aborted, not counted)", game_id)
            status = "aborted"
            live.core.unfinished(f"aborted after {len(live.actions)} actions: the server failed during the game "
                                 f"(its error is in the server's log); not counted")
        finally:
            for seat in seats:
                seat.player.seat = None
                seat.asked = False
            self.live.pop(game_id, None)
        record = live.record(status)
        self.save_moves()
        ended = utc_now()
        try:
            self.store.finish_game(game_id, record, status, ended)
        except sqlite3.Error:  # the players still hear the result; the next start marks the game aborted
            log.exception("could not keep the record of game %d", game_id)
        else:
            if status == "finished":
                self.standings.finished(record.red, record.blue, record.winner, ended)
        end = {"type": "end", "id": game_id, "record": record.to_dict()}
        await asyncio.gather(*(seat.player.send(end) for seat in seats))
        return record

    async def send_start(self, live: LiveGame, seat: Seat) -> None:
        other = live.seats[1 - seat.color].player
        limits = self.settings.limits_of(seat.player.name)
        await seat.player.send({
            "type": "start", "id": live.id, "color": PLAYER_NAMES[seat.color], "opponent": other.name,
            "seed": live.seed, "game_options": live.options, "actions": live.history(),
            "pair": live.pair, "time_limit": limits.time_limit, "space_limit": limits.space_limit,
        })

    async def await_ready(self, live: LiveGame, seat: Seat) -> None:
        """Its ``ready``, within the start-up allowance counted from the game's start (a return renews nothing)."""
        await self.receive(live, seat, live.start + self.settings.startup_allowance, None)

    async def receive(self, live: LiveGame, seat: Seat, deadline: float,
                      request: Callable[[], dict[str, Any]] | None) -> dict[str, Any]:
        """The seat's ``ready`` (``request`` None) or its ``action`` for ``request`` before ``deadline``.

        Across returns on new connections: each one gets the game so far (:meth:`rejoin`), and once it is ready
        again the request is made again, the deadline unchanged.  A timeout, a drop not mended within the grace
        period, either side's violation or a ``failed`` is a Forfeit.
        """
        player = seat.player
        charged = request is not None
        while True:
            if live.violation is not None:
                color, why = live.violation
                raise Forfeit(color, "protocol_error", f"broke the protocol: {why}")
            now = time.monotonic()
            left = deadline - now
            away = player.conn is None and player.inbox.empty()
            grace_left = (player.gone_at or now) + self.settings.grace - now if away else float("inf")
            try:
                message = await _next(player.inbox, max(0.0, min(left, grace_left)))
            except asyncio.TimeoutError:
                if grace_left < left:
                    raise Forfeit(seat.color, "disconnected",
                                  f"disconnected and not back within {self.settings.grace:g} s") from None
                raise self.out_of_time(seat, charged) from None
            kind = message["type"]
            if kind == "wake" or message.get("id") != live.id:
                continue
            if kind == "failed":
                seat.cpu, seat.memory_mb = float(message["cpu"]), float(message["memory_mb"])
                traceback = message.get("traceback")
                raise Forfeit(seat.color, failure_reason(message), bounded(message["message"]) or "",
                              {"kind": failure_reason(message), "message": bounded(message["message"]),
                               "traceback": bounded(traceback) if isinstance(traceback, str) else None})
            if kind == "ready":
                if request is None:
                    return message
                if seat.ask_again:
                    seat.ask_again = False
                    await player.send(request())
                continue
            if kind == "action" and request is not None:
                return message

    def out_of_time(self, seat: Seat, charged: bool) -> Forfeit:
        if not charged:
            return Forfeit(seat.color, "load_error",
                           f"the agent was not ready within {self.settings.startup_allowance:g} s of the game's start")
        name = seat.player.name
        return Forfeit(seat.color, "time_limit",
                       f"out of wall-clock time on the server ({self.settings.wall_limit_of(name):g} s for a "
                       f"{self.settings.limits_of(name).time_limit:g} s CPU limit)")

    async def play_moves(self, live: LiveGame) -> None:
        core = live.core
        received: float | None = None  # when the last action arrived (the server's latency runs from there)
        while (mover := core.mover) is not None:
            if mover == CHANCE:
                text = core.chance()
                self.played(live, None, text)
                if not core.state.is_over:
                    await self.tell(live, None)
                continue
            seat = live.seats[mover]
            wall_limit = seat.wall_limit
            left = float("inf") if wall_limit is None else wall_limit - seat.wall_used

            # The mover's clock runs from here, through any drop, return and catching up, until its action.
            asked = time.monotonic()
            request = functools.partial(self.request, live, seat.color, asked)
            credit = seat.player.latency
            seat.asked, seat.answered = True, False
            await seat.player.send(request())
            if received is not None:
                self.latencies.append(time.monotonic() - received)
                received = None
            try:
                message = await self.receive(live, seat, asked + left + credit, request)
            except Forfeit:
                seat.wall_used += max(0.0, time.monotonic() - asked - credit)  # the record shows the time it took
                raise
            finally:
                seat.asked = seat.ask_again = False
            received = message["received"]
            seat.wall_used += max(0.0, received - asked - credit)
            if wall_limit is not None and seat.wall_used > wall_limit:
                raise self.out_of_time(seat, True)
            seat.cpu, seat.memory_mb = float(message["cpu"]), float(message["memory_mb"])
            core.used[mover] = seat.cpu
            try:
                text = core.submit(mover, message["action"])
            except AgentFailure as failure:
                raise Forfeit(mover, failure.reason, failure.message) from None
            self.played(live, PLAYER_NAMES[mover], text)
            if not core.state.is_over:
                await self.tell(live, PLAYER_NAMES[mover])

    def played(self, live: LiveGame, mover: str | None, text: str) -> None:
        """Note an action the core has played, for the database's next write."""
        self.moves_played += 1
        red, blue = live.core.clocks[-1]
        self.save_soon()
        self.unsaved.append((live.id, len(live.actions) - 1, mover, text, red, blue))

    def save_moves(self) -> None:
        """Keep the moves played and the players seen since the last call, and that the server was alive now
        (for a partial record, and the time it stopped, should the server die)."""
        now = time.monotonic()
        if self.unsaved or self.unseen or now - self.alive_kept >= ALIVE_INTERVAL:
            moves, self.unsaved = self.unsaved, []
            seen, self.unseen = self.unseen, {}
            self.alive_kept = now
            try:
                self.store.record_progress(moves, seen, utc_now())
            except sqlite3.Error:  # a game's progress is a nicety; the games go on
                log.exception("could not keep %d moves of the games in play", len(moves))

    def saw(self, name: str) -> None:
        """Note that ``name`` was seen now: kept with the next moves (not a write of its own on the event loop,
        where a client reconnecting in a loop would make one synchronous write per connection)."""
        self.save_soon()
        self.unseen[name] = utc_now()

    def save_soon(self) -> None:
        """Save within :data:`SAVE_INTERVAL` what is about to be noted (once for all noted meanwhile)."""
        if not self.unsaved and not self.unseen:
            asyncio.get_running_loop().call_later(SAVE_INTERVAL, self.save_moves)

    async def keep_alive(self) -> None:
        """Now and then, that the server is alive (an abort after a crash is dated by the last of these)."""
        while True:
            await asyncio.sleep(ALIVE_INTERVAL)
            self.save_moves()

    async def tell(self, live: LiveGame, mover: str | None) -> None:
        message = {"type": "turn", "id": live.id, "color": mover, "action": live.actions[-1]}
        text = encode(message)
        # One after the other: a send only queues the frame, so a task per send would cost more than it saves.
        for seat in live.seats:
            await seat.player.send(message, text)

    def request(self, live: LiveGame, mover: int, asked: float) -> dict[str, Any]:
        """The ``play`` asking ``mover`` for its action, its clock running since ``asked``."""
        return {"type": "play", "id": live.id, "clock": self.clock(live, mover, asked)}

    def clock(self, live: LiveGame, mover: int, asked: float) -> dict[str, float | None]:
        """Each side's wall seconds left on the server; the mover's less what it has used since ``asked``."""
        clocks: dict[str, float | None] = {}
        now = time.monotonic()
        for seat in live.seats:
            limit = seat.wall_limit
            used = seat.wall_used + (now - asked if seat.color == mover else 0.0)
            clocks[PLAYER_NAMES[seat.color]] = None if limit is None else round(max(0.0, limit - used), 3)
        return clocks

    async def close(self) -> None:
        self.save_moves()
        for proc in list(self.house_procs):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for task in list(self.tasks):
            task.cancel()
        self.standings.close()
        self.site.close()


async def _next(queue: asyncio.Queue[dict[str, Any]], timeout: float) -> dict[str, Any]:
    """The queue's next item within ``timeout`` seconds (asyncio.TimeoutError past it).

    On the path of every move: ``asyncio.wait_for`` makes a task per call, ``asyncio.timeout`` (3.11) only a
    timer, and a message already there is taken at once.
    """
    if not queue.empty():
        return queue.get_nowait()
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(timeout):
            return await queue.get()
    return await asyncio.wait_for(queue.get(), timeout)


async def _discard(conn: ServerConnection) -> None:
    """Read and drop the connection's messages until it closes."""
    try:
        async for _ in conn:
            pass
    except ConnectionClosed:
        pass


def _drain(queue: asyncio.Queue[Any]) -> None:
    while not queue.empty():
        queue.get_nowait()


async def _all_or_none(*waits: Awaitable[Any]) -> None:
    """Await all of ``waits``; the first to raise cancels the others (a forfeit ends the game's every wait)."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()


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
            await ground.keep_alive()
    finally:
        await ground.close()
        store.close()

