"""How the battleground answers HTTP without slowing its games.

A game's clock runs on the server, so every millisecond the event loop spends
on a page is charged to whichever agent is being waited on.  The pages of one
game (its record, board frames and replay, built by replaying its actions:
9-20 ms for a long game) are therefore

* built in a worker process (:class:`PageWorker`), at most a few at once and
  a bounded queue beyond which a request is told to come back (503);
* kept once built (:class:`PageCache`): a finished game's pages never change,
  a running game's change only with its next action, and every spectator of
  a game between two moves gets the same bytes;

while the site's lists (front page, leaderboard, players) are cheap once the
leaderboard is cached (:class:`~.server.Battleground`), every address has a
budget of requests a second (:class:`RequestBudget`) and a share of the
server's open connections (:class:`SocketShare`).
"""
from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import time
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from ..records import GameRecord, RecordError
from .web import Answer, answer

#: The parts built by replaying the game's actions (the rest is a summary or the record as it is).
HEAVY_PARTS = ("frames", "replay")
log = logging.getLogger("referee.battleground")

#: Bytes of answers kept (the least recently used go first).
CACHE_BYTES = 64 * 1024 * 1024
#: Seconds a running game's board frames are served as they were built, however many actions came since: a
#: spectator of a game of instant agents sees its board a little behind rather than making a build per action
#: (its record, cheap, is always the latest).
LIVE_PAGE_SECONDS = 0.5
#: Builds in the worker at once, and waiting for it, before a request is answered 503.
WORKER_QUEUE = 16


@dataclass
class GameSnapshot:
    """What one game's pages read, taken on the event loop and sent to the worker (a :class:`~.web.Site`)."""

    title: str
    game_id: int
    summary: dict[str, Any]
    record_json: str | None

    def leaderboard(self) -> list[dict[str, Any]]:
        return []

    def games(self) -> dict[str, list[dict[str, Any]]]:
        return {}

    def game(self, game_id: int) -> dict[str, Any] | None:
        return self.summary if game_id == self.game_id else None

    def record(self, game_id: int) -> GameRecord | None:
        if game_id != self.game_id or self.record_json is None:
            return None
        try:
            return GameRecord.from_json(self.record_json)
        except RecordError:
            return None

    def player(self, name: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]] | None:
        return None

    def identity(self) -> dict[str, Any]:
        return {}


def build(snapshot: GameSnapshot, target: str) -> Answer:
    """One game's page (in the worker process)."""
    return answer(snapshot, "GET", target)


def worker_start(parent: int) -> None:
    """A worker process's start: it dies with the server, and yields the CPU to it."""
    from ..termination import die_with_parent

    die_with_parent(parent)
    try:
        os.nice(10)  # the server's own process (the games' clocks) comes first
    except OSError:
        pass


class PageWorker:
    """A process that builds pages, started when first needed; a fresh interpreter (``spawn``), so it holds
    none of the server's sockets or files."""

    def __init__(self, queue: int = WORKER_QUEUE):
        self.queue = queue
        self.pending = 0
        self.built = 0
        self.refused = 0
        self._pool: ProcessPoolExecutor | None = None

    async def build(self, snapshot: GameSnapshot, target: str) -> Answer | None:
        """The page, or None when the worker has too much to do already (the caller answers 503)."""
        if self.pending >= self.queue:
            self.refused += 1
            return None
        if self._pool is None:
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=worker_start, initargs=(os.getpid(),))
        self.pending += 1
        self.built += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, build, snapshot, target)
        except BrokenProcessPool:  # the worker died (killed, out of memory): the next page starts another
            log.error("the page worker died; starting another for the next page")
            self._pool = None
            raise
        finally:
            self.pending -= 1

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


class PageCache:
    """Answers by key, least recently used dropped first past ``limit`` bytes."""

    def __init__(self, limit: int = CACHE_BYTES):
        self.limit = limit
        self.size = 0
        self.hits = 0
        self.misses = 0
        self._answers: OrderedDict[Any, tuple[Answer, float]] = OrderedDict()

    def get(self, key: Any, newer_than: float = 0.0) -> Answer | None:
        """The answer kept under ``key`` if it was built after ``newer_than`` (``time.monotonic()``), else None."""
        found = self._answers.get(key)
        if found is None or found[1] < newer_than:
            self.misses += 1
            return None
        self._answers.move_to_end(key)
        self.hits += 1
        return found[0]

    def last(self, key: Any) -> Answer | None:
        """The answer kept under ``key``, however old (None if there is none)."""
        found = self._answers.get(key)
        return found[0] if found is not None else None

    def put(self, key: Any, reply: Answer) -> None:
        old = self._answers.pop(key, None)
        if old is not None:
            self.size -= len(old[0].body)
        if len(reply.body) > self.limit // 4:
            return  # one answer may not crowd out the rest
        self._answers[key] = (reply, time.monotonic())
        self.size += len(reply.body)
        while self.size > self.limit:
            _, (dropped, _) = self._answers.popitem(last=False)
            self.size -= len(dropped.body)


class RequestBudget:
    """HTTP requests an address may make: a token bucket of ``burst``, refilled at ``rate`` a second."""

    def __init__(self, rate: float, burst: float, addresses: int = 10_000):
        self.rate, self.burst, self.addresses = rate, burst, addresses
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, address: str) -> bool:
        if not self.rate:
            return True
        now = time.monotonic()
        tokens, last = self._buckets.pop(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        allowed = tokens >= 1
        self._buckets[address] = (tokens - 1 if allowed else tokens, now)
        if len(self._buckets) > self.addresses:  # the oldest address forgotten: its bucket was full again anyway
            self._buckets.popitem(last=False)
        return allowed


class SocketShare:
    """Open connections (pages, agents, half-open handshakes alike) counted per address from their accept: at most
    ``per_address`` from one address and ``total`` in all, so that no host can use up the server's file
    descriptors (connections that never said hello were not counted)."""

    def __init__(self, per_address: int, total: int):
        self.per_address, self.total = per_address, total
        self.count = 0
        self.refused = 0
        self._by_address: dict[str, int] = {}

    def open(self, address: str) -> bool:
        """Count a new connection from ``address``; False (not counted) when it is one too many."""
        held = self._by_address.get(address, 0)
        if self.count >= self.total or (self.per_address and held >= self.per_address):
            self.refused += 1
            return False
        self._by_address[address] = held + 1
        self.count += 1
        return True

    def closed(self, address: str) -> None:
        held = self._by_address.get(address, 0) - 1
        if held > 0:
            self._by_address[address] = held
        else:
            self._by_address.pop(address, None)
        self.count = max(0, self.count - 1)


#: File descriptors kept back from the connections' share (the database, workers, house agents' pipes, logs).
FD_RESERVE = 256


def socket_room() -> int:
    """How many connections the server may hold open: its file descriptors (raised to the hard limit), less a
    reserve for its database, workers, house agents and logs."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard != resource.RLIM_INFINITY and soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    except (ImportError, ValueError, OSError):
        return 900
    return max(64, (soft if soft != resource.RLIM_INFINITY else 65536) - FD_RESERVE)
