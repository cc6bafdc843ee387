"""One game refereed on the server: its two clients asked in turn, their answers fed to the game core
(:mod:`referee.core`), their wall clocks kept, the record stored before the result is told."""
from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import sqlite3
import sys
import time
from typing import Any, Protocol
from collections import deque
from collections.abc import Awaitable, Callable

from ..core import utc_now
from ..games.base import CHANCE, PLAYER_NAMES
from ..hosting.failures import AgentFailure
from ..records import GameRecord, bounded
from .lobby import Lobby
from .progress import Progress, Writer
from .protocol import encode, failure_reason
from .seats import Forfeit, LiveGame, Player, Seat, ServerSettings, Wake, lost_without_playing
from .standings import Standings
from .store import Store

log = logging.getLogger("referee.battleground")


class Host(Protocol):
    """What a game needs of the server (:class:`~.server.Battleground`)."""

    settings: ServerSettings
    store: Store
    writer: Writer
    progress: Progress
    standings: Standings
    lobby: Lobby
    live: dict[int, LiveGame]
    latencies: deque[float]
    players: dict[str, Player]

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]: ...

    def enter_lobby(self, player: Player) -> None: ...


async def play_pair(host: Host, first: Player, second: Player) -> None:
    """The games of a pair the lobby made: two, colours swapped (one when either has one left to play); then
    each goes back to the lobby or is done."""
    first.in_pair = second.in_pair = True
    idle: GameRecord | None = None  # a house game its student lost without playing
    try:
        count = 2 if min(first.games_left, second.games_left) >= 2 else 1
        for number in range(count):
            red, blue = (first, second) if number == 0 else (second, first)
            record = await referee_game(host, red, blue, first.channel, [number + 1, count])
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
                host.players.pop(player.name, None)
            continue
        opponent = second if player is first else first
        if idle is not None:
            # The house plays agents that move: one that does not gives its slot back to the next student.
            message = ("no more games: thank you for playing" if player.house else
                       f"the house agent plays agents that move: yours lost game "
                       f"{idle.extra['battleground']['id']} on {idle.reason}; connect again to play it")
        elif player.games_left > 0 and not (player.house and (opponent.conn is None or opponent.games_left <= 0)):
            host.enter_lobby(player)
            continue
        else:
            message = "no more games: thank you for playing"
        player.done = True
        await player.send({"type": "done", "message": message})
        if player.conn is not None:
            host.spawn(player.conn.close(1000, "done"))


async def referee_game(host: Host, red: Player, blue: Player, channel: str, pair: list[int]) -> GameRecord | None:
    """Referee one game to its end: a result, or an abort the server explains; never a game that vanishes.

    Its record (None if it could not start)."""
    seed = secrets.randbelow(2 ** 31)
    try:
        game_id = await host.writer(host.store.start_game, red.name, blue.name, channel, utc_now())
    except sqlite3.Error:
        log.exception("could not start a game between %s and %s", red.name, blue.name)
        for player in (red, blue):
            await player.send({"type": "error", "message": "the server could not start a game (its database "
                                                            "failed): try again later"})
        return None
    host.lobby.started(red, blue)
    wall = host.settings.wall_limit_of
    seats = (Seat(red, 0, wall(red.name)), Seat(blue, 1, wall(blue.name)))
    live = LiveGame(game_id, seats, channel, host.settings, seed)
    live.pair = pair
    host.live[game_id] = live
    for seat in seats:
        seat.player.seat = seat
        seat.player.last_game = game_id
        _drain(seat.player.inbox)
    table = GameTable(host, live)
    status = "finished"
    try:
        # Its record without an action, kept for a partial record should the server die during the game.
        await host.writer(host.store.started, game_id, live.snapshot())
        await asyncio.gather(*(table.send_start(seat) for seat in seats))
        await _all_or_none(*(table.await_ready(seat) for seat in seats))
        await table.play_moves()
    except Forfeit as lost:
        live.core.forfeit(lost.color, lost.reason, lost.message, lost.error)
    except Exception:  # noqa: BLE001  the server's own failure: the game is aborted, said so, never lost
        log.exception("internal error in game %d (aborted, not counted)", game_id)
        status = "aborted"
        live.core.aborted()
    finally:
        for seat in seats:
            seat.player.seat = None
            seat.asked = False
    record = live.record(status)
    host.progress.save()
    ended = utc_now()
    try:
        # Stored before the players hear the result (the writer runs the moves' last save first), and before
        # the game leaves the games in play: the site, which reads a game no longer in play from the database,
        # never finds it there as it started.
        await host.writer(host.store.finish_game, game_id, record, status, ended)
    except sqlite3.Error:  # the players still hear the result; the next start marks the game aborted
        log.exception("could not keep the record of game %d", game_id)
    else:
        if status == "finished":
            host.standings.finished(record.red, record.blue, record.winner, ended)
    finally:
        host.live.pop(game_id, None)
    end = {"type": "end", "id": game_id, "record": record.to_dict()}
    await asyncio.gather(*(seat.player.send(end) for seat in seats))
    return record


class GameTable:
    """A game's exchanges with its two clients: ``start``, ``ready``, ``play``/``action``, ``turn``."""

    def __init__(self, host: Host, live: LiveGame):
        self.host, self.live = host, live

    async def send_start(self, seat: Seat) -> None:
        """``start``: the game so far (a client coming back gets it again), its colour, seed and limits."""
        await seat.player.send(start_message(self.host.settings, self.live, seat))

    async def await_ready(self, seat: Seat) -> None:
        """Its ``ready``, within the start-up allowance counted from the game's start (a return renews nothing)."""
        await self.receive(seat, self.live.start + self.host.settings.startup_allowance, None)

    async def receive(self, seat: Seat, deadline: float,
                      request: Callable[[], dict[str, Any]] | None) -> dict[str, Any]:
        """The seat's ``ready`` (``request`` None) or its ``action`` for ``request`` before ``deadline``.

        Across returns on new connections: each one gets the game so far (the server's ``rejoin``), and once it
        is ready again the request is made again, the deadline unchanged.  A timeout, a drop not mended within
        the grace period, either side's violation or a ``failed`` is a Forfeit.
        """
        live, player, grace = self.live, seat.player, self.host.settings.grace
        charged = request is not None
        while True:
            if live.violation is not None:
                color, why = live.violation
                raise Forfeit(color, "protocol_error", f"broke the protocol: {why}")
            now = time.monotonic()
            left = deadline - now
            away = player.conn is None and player.inbox.empty()
            grace_left = (player.gone_at or now) + grace - now if away else float("inf")
            try:
                message = await _next(player.inbox, max(0.0, min(left, grace_left)))
            except asyncio.TimeoutError:
                if grace_left < left:
                    raise Forfeit(seat.color, "disconnected",
                                  f"disconnected and not back within {grace:g} s") from None
                raise self.out_of_time(seat, charged) from None
            if isinstance(message, Wake) or message.get("id") != live.id:
                continue
            kind = message["type"]
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
        settings = self.host.settings
        if not charged:
            return Forfeit(seat.color, "load_error",
                           f"the agent was not ready within {settings.startup_allowance:g} s of the game's start")
        name = seat.player.name
        return Forfeit(seat.color, "time_limit",
                       f"out of wall-clock time on the server ({settings.wall_limit_of(name):g} s for a "
                       f"{settings.limits_of(name).time_limit:g} s CPU limit)")

    async def play_moves(self) -> None:
        live = self.live
        core = live.core
        received: float | None = None  # when the last action arrived (the server's latency runs from there)
        while (mover := core.mover) is not None:
            if mover == CHANCE:
                self.played(None, core.chance())
                if not core.state.is_over:
                    await self.tell(None)
                continue
            seat = live.seats[mover]
            # The mover's clock runs from here, through any drop, return and catching up, until its action.
            asked = time.monotonic()
            request = functools.partial(self.request, seat.color, asked)
            credit = seat.player.latency
            seat.asked, seat.answered = True, False
            await seat.player.send(request())
            if received is not None:
                self.host.latencies.append(time.monotonic() - received)
                received = None
            try:
                message = await self.receive(seat, asked + seat.wall_left() + credit, request)
            except Forfeit:
                seat.charge(time.monotonic() - asked - credit)  # the record shows the time it took
                raise
            finally:
                seat.asked = seat.ask_again = False
            received = message["received"]
            if seat.charge(received - asked - credit):
                raise self.out_of_time(seat, True)
            seat.cpu, seat.memory_mb = float(message["cpu"]), float(message["memory_mb"])
            core.used[mover] = seat.cpu
            try:
                text = core.submit(mover, message["action"])
            except AgentFailure as failure:
                raise Forfeit(mover, failure.reason, failure.message) from None
            self.played(PLAYER_NAMES[mover], text)
            if not core.state.is_over:
                await self.tell(PLAYER_NAMES[mover])

    def played(self, mover: str | None, text: str) -> None:
        """Note an action the core has played, for the database's next write."""
        live = self.live
        red, blue = live.core.clocks[-1]
        self.host.progress.played((live.id, len(live.actions) - 1, mover, text, red, blue))

    async def tell(self, mover: str | None) -> None:
        message = {"type": "turn", "id": self.live.id, "color": mover, "action": self.live.actions[-1]}
        text = encode(message)
        # One after the other: a send only queues the frame, so a task per send would cost more than it saves.
        for seat in self.live.seats:
            await seat.player.send(message, text)

    def request(self, mover: int, asked: float) -> dict[str, Any]:
        """The ``play`` asking ``mover`` for its action, its clock running since ``asked``."""
        now = time.monotonic()
        clock = {PLAYER_NAMES[seat.color]: seat.wall_remaining(now - asked if seat.color == mover else 0.0)
                 for seat in self.live.seats}
        return {"type": "play", "id": self.live.id, "clock": clock}


def start_message(settings: ServerSettings, live: LiveGame, seat: Seat) -> dict[str, Any]:
    """The ``start`` of ``seat``'s client: the game so far, its colour, seed, options and limits."""
    limits = settings.limits_of(seat.player.name)
    return {
        "type": "start", "id": live.id, "color": PLAYER_NAMES[seat.color],
        "opponent": live.seats[1 - seat.color].player.name, "seed": live.seed, "game_options": live.options,
        "actions": live.history(), "pair": live.pair, "time_limit": limits.time_limit,
        "space_limit": limits.space_limit,
    }


async def _next(queue: asyncio.Queue[Any], timeout: float) -> Any:
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
