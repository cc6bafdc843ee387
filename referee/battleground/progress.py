"""Writing to the database off the event loop: the one writer thread, and the games' progress it keeps.

SQLite writes with ``synchronous=FULL`` wait for the disk; on the event loop such a stall would be charged to
whichever agent's clock was running.  Every write goes to :class:`Writer`'s one thread, in the order asked;
what a client is told of a write (its new token, a game's result) is sent once the write is committed.
"""
from __future__ import annotations

import asyncio
import functools
import logging
import sqlite3
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar
from collections.abc import Callable

from ..core import utc_now
from .store import Move, Store

log = logging.getLogger("referee.battleground")

T = TypeVar("T")

#: Seconds between writes of the games in play's moves (a crash loses at most this much of a game's record).
SAVE_INTERVAL = 0.05
#: Seconds between the server's notes that it is alive (an abort after a crash is dated within this).
ALIVE_INTERVAL = 2.0


class Writer:
    """One thread that runs the database's writes, in the order they are asked for."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="battleground-store")

    async def __call__(self, write: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``write`` on the writer's thread; its result once it has returned (committed)."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, functools.partial(write, *args, **kwargs))

    def soon(self, write: Callable[..., Any], *args: Any) -> Future[Any]:
        """Run ``write`` on the writer's thread, after what was asked before; nobody waits for it."""
        return self._pool.submit(write, *args)

    def close(self) -> None:
        """Finish the writes asked for, then stop the thread."""
        self._pool.shutdown(wait=True)


class Progress:
    """The moves of the games in play and the players seen, kept together every :data:`SAVE_INTERVAL` seconds
    (one transaction for every game's moves of that time, not one per move), and that the server is alive."""

    def __init__(self, store: Store, writer: Writer):
        self.store, self.writer = store, writer
        self.moves_played = 0
        #: Moves played and not yet kept in the database.
        self.unsaved: list[Move] = []
        #: Players seen (connected or gone) since the last save: name -> when.
        self.unseen: dict[str, str] = {}
        self.alive_kept = 0.0

    def played(self, move: Move) -> None:
        """Note a move, kept within :data:`SAVE_INTERVAL`."""
        self.moves_played += 1
        self.save_soon()
        self.unsaved.append(move)

    def saw(self, name: str) -> None:
        """Note that ``name`` was seen now: kept with the next moves (not a write of its own, which a client
        reconnecting in a loop would make once per connection)."""
        self.save_soon()
        self.unseen[name] = utc_now()

    def save_soon(self) -> None:
        """Save within :data:`SAVE_INTERVAL` what is about to be noted (once for all noted meanwhile)."""
        if not self.unsaved and not self.unseen:
            asyncio.get_running_loop().call_later(SAVE_INTERVAL, self.save)

    def save(self) -> Future[Any] | None:
        """Hand the moves and players noted since the last call, and that the server was alive now, to the writer
        (for a partial record, and the time it stopped, should the server die); the write, if any."""
        now = time.monotonic()
        if not (self.unsaved or self.unseen or now - self.alive_kept >= ALIVE_INTERVAL):
            return None
        moves, self.unsaved = self.unsaved, []
        seen, self.unseen = self.unseen, {}
        self.alive_kept = now
        return self.writer.soon(self._keep, moves, seen, utc_now())

    def _keep(self, moves: list[Move], seen: dict[str, str], alive: str) -> None:
        try:
            self.store.record_progress(moves, seen, alive)
        except sqlite3.Error:  # a game's progress is a nicety; the games go on
            log.exception("could not keep %d moves of the games in play", len(moves))

    async def keep_alive(self) -> None:
        """Now and then, that the server is alive (an abort after a crash is dated by the last of these)."""
        while True:
            await asyncio.sleep(ALIVE_INTERVAL)
            self.save()
