"""The battleground's standings as it runs: the finished games' tallies, their ratings and the leaderboard.

The rules (which games count, the fit, the order) are :mod:`.rating`'s; this
keeps the tallies in memory as games end, fits them in a worker process, and
builds the leaderboard at most once a second.
"""
from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from .pages import worker_start
from .rating import MIN_OPPONENTS, CountedGames, fit_standings, leaderboard_key
from .store import Store

#: Seconds the leaderboard is shown as built (games ending rebuild it at once).
LEADERBOARD_SECONDS = 1.0
#: Seconds between fits of the ratings at least, and how many times its last fit's duration the worker rests.
FIT_INTERVAL = 5.0
FIT_REST = 4.0


class Standings:
    """Every counted game, its players' tallies and ratings, and the leaderboard built from them."""

    def __init__(self, store: Store, spawn: Callable[[Any], asyncio.Task[Any]]):
        self.store = store
        self.spawn = spawn
        #: Each player's [wins, draws, losses] over every finished game, and the counted games' pair tallies:
        #: both kept as games end (the games table is read once, at start), so that neither the leaderboard nor
        #: a fit goes through every game of the semester on the event loop.
        self.wdl: dict[str, list[int]] = {}
        self.counted = CountedGames()
        self.games = 0
        for result in store.results():
            self._add(*result)
        self._ratings: dict[str, tuple[float, float | None, int]] = {}
        self._rated_games = -1
        self._rating_task: asyncio.Task[None] | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._fitted_at = -FIT_INTERVAL
        self._fit_seconds = 0.0
        #: The leaderboard as last built, and when (it is built at most once a second, or when games end).
        self._leaderboard: tuple[float, int, list[dict[str, Any]]] = (0.0, -1, [])

    def _add(self, red: str, blue: str, winner: str | None, when: str | None) -> None:
        for name, won in ((red, winner == "RED"), (blue, winner == "BLUE")):
            self.wdl.setdefault(name, [0, 0, 0])[0 if won else 1 if winner is None else 2] += 1
        self.counted.add(red, blue, winner, when)
        self.games += 1

    def finished(self, red: str, blue: str, winner: str | None, when: str) -> None:
        """A counted game: into the tallies and the ratings."""
        self._add(red, blue, winner, when)
        if self._rating_task is None or self._rating_task.done():
            self._rating_task = self.spawn(self.refit_later())

    def ratings(self) -> dict[str, tuple[float, float | None, int]]:
        """The last fit's ratings (name -> (elo, 95 % half-width, opponents)); a new fit starts when a game
        ends (:meth:`finished`), at most one at a time and after a rest (:meth:`refit_later`)."""
        return self._ratings

    async def refit_later(self) -> None:
        """Fit again once the worker has rested :data:`FIT_REST` times as long as its last fit took, and at least
        :data:`FIT_INTERVAL` seconds: a fit of 200 players takes seconds of a core, which the games need more
        (fitting without a rest while games ended took a sixth of the moves of 200 clients)."""
        # Until the fit has every game: those that end during a fit are fitted after the next rest.
        while self.games != self._rated_games:
            rest = max(FIT_INTERVAL, FIT_REST * self._fit_seconds) - (time.monotonic() - self._fitted_at)
            if rest > 0:
                await asyncio.sleep(rest)
            await self.refit()

    async def refit(self) -> None:
        """Fit the ratings of the games so far (in a worker process)."""
        if self._pool is None:
            # A fresh interpreter (spawn): it holds none of the server's sockets; at a lower priority than the
            # server; and it dies with the server, even by SIGKILL.
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=worker_start, initargs=(os.getpid(),))
        count, pairs = self.games, dict(self.counted.pairs)
        started = time.monotonic()
        try:
            fit = await asyncio.get_running_loop().run_in_executor(self._pool, fit_standings, pairs)
        except BrokenProcessPool:  # the worker died (killed, out of memory): the next fit starts another
            self._pool, self._fitted_at = None, time.monotonic()
            raise
        self._fitted_at = time.monotonic()
        self._fit_seconds = self._fitted_at - started
        self._ratings, self._rated_games = fit, count
        self._leaderboard = (0.0, -1, [])

    def leaderboard(self, connected: Iterable[str]) -> list[dict[str, Any]]:
        """The standings: every player with a finished game or connected now, rated ones first.

        Built at most once a second (the front page of every reader asks for it every 5 s).
        """
        built, count, rows = self._leaderboard
        if count == self.games and time.monotonic() - built < LEADERBOARD_SECONDS:
            return rows
        wdl = self.wdl
        ratings = self.ratings()
        names = sorted(set(wdl) | set(connected))
        seen = self.store.last_seen(names)
        rows = []
        for name in names:
            w, d, lost = wdl.get(name, [0, 0, 0])
            elo, interval, opponents = ratings.get(name, (None, None, 0))
            rows.append({"name": name, "rating": None if elo is None else round(elo),
                         "interval": None if interval is None else round(interval),
                         "provisional": elo is not None and opponents < MIN_OPPONENTS,
                         "games": w + d + lost, "wins": w, "draws": d, "losses": lost, "last_seen": seen.get(name)})
        rows.sort(key=leaderboard_key)
        rows = [{"rank": rank, **row} for rank, row in enumerate(rows, 1)]
        self._leaderboard = (time.monotonic(), self.games, rows)
        return rows

    def rating_of(self, name: str) -> float:
        """A player's rating for pairing by nearest rating (0, the scale's anchor, when it has none yet)."""
        return self._ratings.get(name, (0.0, None, 0))[0]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
