"""What the battleground server holds: its settings, the players connected and the games in play.

Values and small classes only; :mod:`.server` runs them.
"""
from __future__ import annotations

import asyncio
import socket
import struct
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from ..games import DEFAULT_GAME, game_class, load_game
from ..core import GameCore, SeatInfo
from ..games.base import CHANCE, PLAYER_NAMES, GameState
from ..limits import Limits
from ..records import GameRecord
from .protocol import encode

#: Wall seconds a client has to construct its agent (``start`` → ``ready``).
STARTUP_ALLOWANCE = 60.0
#: The most of a connection's round trip taken off one move's wall time.
MAX_LAG_CREDIT = 0.5
#: Pings kept per connection for its latency credit, and how many it takes before any credit is given.
LATENCY_SAMPLES = 8
#: Seconds added to twice the kernel's round trip in the credit's bound (its estimate's own noise).
KERNEL_RTT_SLACK = 0.005
# struct tcp_info (linux/tcp.h): 8 one-byte fields, then 32-bit ones; tcpi_rtt is the 16th of those (microseconds).
_TCPI_RTT_OFFSET = 8 + 15 * 4
_TCP_INFO_BYTES = _TCPI_RTT_OFFSET + 4
#: Seconds a new connection has to say hello (the default of ``--hello-timeout``).
HELLO_TIMEOUT = 10.0


@dataclass(frozen=True)
class ServerSettings:
    game: str = DEFAULT_GAME
    game_options: Mapping[str, Any] = field(default_factory=dict)
    time_limit: float | None = 180.0
    space_limit: float | None = 250.0
    wall_factor: float = 1.25
    grace: float = 20.0
    #: House agents: name -> package spec.
    house: Mapping[str, str] = field(default_factory=dict)
    #: House agents with limits of their own (their games are at odds): name -> {"time_limit"/"space_limit": n}.
    house_limits: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    house_workers: int = 2
    house_sandbox: str = "auto"
    #: Roster: name -> student id (None: no roster, first come first named).
    roster: Mapping[str, str | None] | None = None
    per_address: int = 8
    #: Connections of any kind (agents, pages, half-open handshakes) one address may hold open at once; 0: no cap.
    open_per_address: int = 64
    #: Messages a second a connection may send unasked (a token bucket of ``burst``, refilled at ``rate``).
    rate: float = 200.0
    burst: float = 400.0
    #: Seconds a new connection has to complete its WebSocket handshake, then again to say hello.
    hello_timeout: float = HELLO_TIMEOUT
    #: Wall seconds from a game's start for both clients to be ready (their agents constructed).
    startup_allowance: float = STARTUP_ALLOWANCE
    #: New names one address may take in an hour (0: no cap).
    names_per_hour: int = 20
    #: Games two players may start together in an hour (0: no cap; a house agent's games are not capped).
    pair_games_per_hour: int = 30
    #: HTTP requests a second an address may make (pages and API), in bursts of ``http_burst``; 0: no limit.
    http_rate: float = 50.0
    http_burst: float = 200.0

    @property
    def wall_limit(self) -> float | None:
        return self.wall_limit_of("")

    def limits_of(self, name: str) -> Limits:
        """The limits player ``name`` plays under: a house agent's own where it has them, else the server's."""
        own = self.house_limits.get(name, {})
        return Limits(time_limit=own.get("time_limit", self.time_limit),
                      space_limit=own.get("space_limit", self.space_limit))

    def wall_limit_of(self, name: str) -> float | None:
        """Player ``name``'s wall clock on the server: its CPU limit times ``wall_factor``."""
        time_limit = self.limits_of(name).time_limit
        return None if time_limit is None else round(time_limit * self.wall_factor, 3)


class RecentCount:
    """How many times each key was counted in the last ``window`` seconds (new names per address, games per
    pair): a key's times are forgotten as they age, and a key with none left is dropped."""

    def __init__(self, window: float = 3600.0):
        self.window = window
        self._times: dict[Any, deque[float]] = {}

    def __call__(self, key: Any) -> int:
        times = self._times.get(key)
        if times is None:
            return 0
        horizon = time.monotonic() - self.window
        while times and times[0] < horizon:
            times.popleft()
        if not times:
            del self._times[key]
        return len(times)

    def add(self, key: Any) -> None:
        self._times.setdefault(key, deque()).append(time.monotonic())
        if len(self._times) > 4096:  # now and then, the keys nobody asked about lately
            for stale in [k for k, times in self._times.items() if times[-1] < time.monotonic() - self.window]:
                del self._times[stale]


class Wake:
    """Put in a player's inbox when something its game waits on changed (a drop, a return, a violation): never a
    message of the client's, so no client can send one."""

    def __repr__(self) -> str:
        return "WAKE"


WAKE = Wake()
#: Messages of a player's waiting to be read by its game, at most (only what the game asked for is let in).
INBOX_LIMIT = 4


class Forfeit(Exception):
    """A side loses the game: its colour, the verdict's reason and a sentence."""

    def __init__(self, color: int, reason: str, message: str, error: dict[str, Any] | None = None):
        super().__init__(message)
        self.color, self.reason, self.message = color, reason, message
        self.error = error or {"kind": reason, "message": message, "traceback": None}


class Player:
    """One name's presence on the server: its connection (replaced on reconnection) and what it waits for."""

    def __init__(self, name: str, house: bool):
        self.name = name
        self.house = house
        self.conn: ServerConnection | None = None
        #: The client's answers to its game (``ready``, ``action``, ``failed``) and the server's :data:`WAKE`:
        #: only what its game asked for is let in (:meth:`admit`), so it holds a few items at most.
        self.inbox: asyncio.Queue[dict[str, Any] | Wake] = asyncio.Queue()
        self.gone_at: float | None = None
        self.channel = ""
        self.games_left = 0
        self.seat: Seat | None = None
        self.waiting_since = 0.0
        #: A house player's one opponent (it plays only the student it was started for).
        self.for_player: str | None = None
        self.done = False
        #: Playing a pair of games (between them too): a second login takes over the connection, not a place.
        self.in_pair = False
        #: Answers the server asked for (a ``start`` or ``play`` sent): these are never rate-limited, so a fast
        #: agent is not cut off for answering quickly; only messages nobody asked for draw on the budget.
        self.asked = 0
        #: The id of its last game: an answer about it after its end (a forfeit, a time-out) is late, not a violation.
        self.last_game: int | None = None
        #: Round trips measured on this connection (the WebSocket pings), for the latency credit, and the credit
        #: they give (for the connection it was worked out on).
        self.round_trips: deque[float] = deque(maxlen=LATENCY_SAMPLES)
        self._credit = 0.0
        self._credit_of: ServerConnection | None = None

    async def send(self, message: dict[str, Any], text: str | None = None) -> None:
        """Send ``message`` (``text``: its encoding, when one message goes to several players)."""
        conn = self.conn
        if conn is None:
            return
        if message["type"] in ("start", "play"):
            self.asked += 1
        try:
            await conn.send(text or encode(message))
        except ConnectionClosed:
            pass  # the reader sees the close and says so

    def wake(self) -> None:
        """Wake its game if it is waiting on this player (something changed: a drop, a return, a violation)."""
        if self.inbox.empty():
            self.inbox.put_nowait(WAKE)

    def admit(self, message: dict[str, Any]) -> bool:
        """Whether its game wants this message now: a ``ready`` while not ready, an ``action`` while asked, one
        ``failed`` a game, each only while fewer than :data:`INBOX_LIMIT` wait to be read.  The rest is dropped
        (having drawn on the unasked budget): an action sent before the request is never played the moment the
        request comes, and nothing piles up in the server (64 KiB messages sent during the other side's turn
        grew it by 170 MB in 18 s)."""
        seat = self.seat
        if seat is None or message.get("id") != self.last_game or self.inbox.qsize() >= INBOX_LIMIT:
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

    @property
    def latency(self) -> float:
        """The wall seconds taken off a move for the connection's round trip: the least of its last pings.

        The least, not the last: a client can only make a round trip look longer (by answering pings late), so
        the least of several is what the network really takes; capped at :data:`MAX_LAG_CREDIT`.
        """
        conn = self.conn
        if conn is None:
            return 0.0
        last = conn.latency
        if last and (not self.round_trips or self.round_trips[-1] != last or self._credit_of is not conn):
            # A new ping (every few seconds): the credit is worked out again, not on every move.
            self.round_trips.append(last)
            credit = min(min(self.round_trips), MAX_LAG_CREDIT)
            # A client that answers every ping late still cannot slow its kernel's acknowledgements of our data
            # without slowing its own moves as much: the kernel's smoothed round trip bounds the credit.
            kernel = kernel_round_trip(conn)
            self._credit = credit if kernel is None else min(credit, 2 * kernel + KERNEL_RTT_SLACK)
            self._credit_of = conn
        return self._credit if self._credit_of is conn else 0.0


def kernel_round_trip(conn: ServerConnection) -> float | None:
    """The kernel's smoothed TCP round trip of the connection in seconds (Linux ``TCP_INFO``), or None."""
    sock = conn.transport.get_extra_info("socket") if conn.transport is not None else None
    if sock is None or not hasattr(socket, "TCP_INFO"):
        return None
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_BYTES)
    except OSError:
        return None
    if len(info) < _TCP_INFO_BYTES:
        return None
    microseconds: int = struct.unpack_from("I", info, _TCPI_RTT_OFFSET)[0]
    return microseconds / 1e6


@dataclass
class Seat:
    """A player's side in one game."""

    player: Player
    color: int
    #: Its wall clock on the server (:meth:`ServerSettings.wall_limit_of`), None for none.
    wall_limit: float | None = None
    cpu: float = 0.0
    memory_mb: float = 0.0
    wall_used: float = 0.0
    #: Whether the client has the game (its agent constructed and told the actions so far).
    ready: bool = False
    #: A ``play`` is outstanding (only then is an ``action`` let in), and its action has been let in.
    asked: bool = False
    answered: bool = False
    #: The client came back while asked to move: the request is sent again once it is ready (its clock runs on).
    ask_again: bool = False
    #: Its ``failed`` was let in (one a game: the game ends on it).
    failed: bool = False

    def rejoined(self) -> None:
        """Its player is back on a new connection: what the old one answered is dropped, the new one answers
        afresh (a request outstanding is made again once it is ready), and its game is woken."""
        inbox = self.player.inbox
        while not inbox.empty():
            inbox.get_nowait()
        self.ready = self.answered = self.failed = False
        self.ask_again = self.asked
        self.player.wake()

    def wall_left(self) -> float:
        """Wall seconds left on its clock (infinite with no limit)."""
        return float("inf") if self.wall_limit is None else self.wall_limit - self.wall_used

    def charge(self, seconds: float) -> bool:
        """Put ``seconds`` (if more than 0) on its wall clock; whether it is now over its limit."""
        self.wall_used += max(0.0, seconds)
        return self.wall_limit is not None and self.wall_used > self.wall_limit

    def wall_remaining(self, running: float = 0.0) -> float | None:
        """What its clock shows, to the millisecond, ``running`` seconds into its turn (None: no limit)."""
        if self.wall_limit is None:
            return None
        return round(max(0.0, self.wall_limit - self.wall_used - running), 3)


class LiveGame:
    """A game being played: its :class:`~referee.core.GameCore` (position, actions, clocks, verdict), its seats
    on the server, and what the pages and the API show of it."""

    def __init__(self, game_id: int, seats: tuple[Seat, Seat], channel: str, settings: ServerSettings, seed: int):
        self.id = game_id
        self.seats = seats
        self.channel = channel
        self.seed = seed
        self.settings = settings
        # A game whose setup is drawn from its seed (Infinitron's cities) gets it, as in a tournament.
        self.options = dict(game_class(settings.game).seeded_options(dict(settings.game_options), seed))
        self.game = load_game(settings.game, **self.options)
        infos = tuple(SeatInfo(seat.player.name, limits=settings.limits_of(seat.player.name),
                               label=f"{PLAYER_NAMES[seat.color]} ({seat.player.name})") for seat in seats)
        self.core = GameCore(self.game, (infos[0], infos[1]), options=self.options, seed=seed)
        self.start = time.monotonic()
        #: Which of its pair it is ([1, 2]: the first of two), as ``start`` says.
        self.pair: list[int] = [1, 1]
        #: A side broke the protocol (its colour and why): the game ends on it at its next step.
        self.violation: tuple[int, str] | None = None

    @property
    def state(self) -> GameState[Any]:
        return self.core.state

    def violated(self, seat: Seat, why: str) -> None:
        """``seat``'s player broke the protocol: the game ends on it at its next step (the first violation
        stands), whichever side it waits on."""
        if self.violation is None:
            self.violation = (seat.color, why)
        for each in self.seats:
            each.player.wake()

    @property
    def actions(self) -> list[str]:
        return self.core.actions

    @property
    def started_at(self) -> str:
        return self.core.started_at

    def history(self) -> list[list[str | None]]:
        """``[mover, action]`` of each action so far (mover ``None``: chance), as ``start`` sends them."""
        return [[None if mover == CHANCE else PLAYER_NAMES[mover], text]
                for mover, text in zip(self.core.movers, self.core.actions)]

    def record(self, status: str, so_far: str | None = None) -> GameRecord:
        """The game's record: ended (its core's ending), or so far (``so_far``: its message while running)."""
        core = self.core
        for seat in self.seats:
            core.used[seat.color], core.peak_mb[seat.color] = seat.cpu, seat.memory_mb
        walls = [self.settings.wall_limit_of(seat.player.name) for seat in self.seats]
        return core.record(duration=time.monotonic() - self.start, so_far=so_far, extra={"battleground": {
            "id": self.id, "channel": self.channel, "status": status, "clock": "reported by the client",
            "wall_used": {PLAYER_NAMES[s.color]: round(s.wall_used, 3) for s in self.seats},
            "wall_limit": self.settings.wall_limit,
            # At odds (a house agent with its own limits): each side's wall clock.
            **({"wall_limits": dict(zip(PLAYER_NAMES, walls))} if walls[0] != walls[1] else {}),
        }})

    def snapshot(self) -> GameRecord:
        """The record of the game so far, while it runs (kept should the server die; the API's live record)."""
        return self.record("running", "in play")


def pair_key(first: Player, second: Player) -> tuple[str, str]:
    a, b = sorted((first.name, second.name))
    return a, b


#: A student's game lost on these, against a house agent, ends its visit: its agent did not play.
NOT_PLAYING = ("time_limit", "disconnected", "load_error", "protocol_error")


def lost_without_playing(record: GameRecord, red: Player, blue: Player) -> bool:
    """Whether a house game was lost by its student on not playing (its slot is then given back)."""
    if record.winner not in PLAYER_NAMES or record.reason not in NOT_PLAYING:
        return False
    loser, winner = (red, blue) if record.winner == "BLUE" else (blue, red)
    return winner.house and not loser.house
