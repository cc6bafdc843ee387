"""Running a schedule's games: the executor interface and the local one.

Every executor (this local one, :class:`~.dask_executor.DaskExecutor`) is
made by :func:`referee.tournament.api.make_executor`, says where it runs
games (:meth:`Executor.describe`), checks the plan's agents where they will
play (:meth:`Executor.check_agents`), and is closed after the run.  It takes
the play function (``referee.match.play_match`` in real use) and a lazy
iterator of jobs, keeps a bounded number of games running and yields each
one as it finishes.  The local executor runs one game at a time
in each of N worker processes (N = 1 is the serial case, same code path);
each game's agents are subprocesses that ``play`` starts itself.

A small pool of our own rather than ``concurrent.futures``: stopping must be
able to abandon running games (Ctrl-C twice, an SPRT decision), which means
signalling the workers that run them, and the standard pools do not expose
their processes.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import traceback
from abc import ABC, abstractmethod
from dataclasses import dataclass
from multiprocessing.connection import wait
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any

from ..hosting.sandbox import Capabilities, adopt, probed
from ..match import AgentEntry, MatchSettings
from ..records import GameRecord
from ..termination import die_with_parent
from .schedule import Job, TournamentPlan
from .shipping import AgentBundle

PlayFunction = Callable[[AgentEntry, AgentEntry, MatchSettings], GameRecord]

#: How often the executor looks at stop requests while games run (seconds).
POLL_INTERVAL = 0.2
#: How long an abandoned worker gets to kill its agents before it is killed.
DISCARD_GRACE = 10.0
#: Workers dying this many times in a row (no game finishing in between) stop
#: the run: something is wrong with starting them, and retrying every game
#: of a long schedule would only repeat the failure.
MAX_DEATHS_IN_A_ROW = 3


@dataclass(frozen=True)
class Finished:
    """A finished job: its record, or the referee's own failure (``error``)."""

    job: Job
    record: GameRecord | None
    error: str | None = None


class ClusterError(Exception):
    """The cluster cannot run this tournament; the message says why and what to do."""


class Executor(ABC):
    """Runs games; the local implementation is :class:`LocalExecutor`.  Use as a context manager."""

    @abstractmethod
    def describe(self) -> str:
        """Where the games run, for the command's header line."""

    @abstractmethod
    def check_agents(self, plan: TournamentPlan, skip: Collection[str] = (), progress: bool = False) -> str | None:
        """Check every agent of the plan (but those named in ``skip``) loads where its games will run.

        Returns None if all do, else a message saying which do not, where.
        """

    def ship_agents(self, plan: TournamentPlan) -> AgentBundle | None:
        """Send the agents' folders to where games run, if that is elsewhere; None when there is nothing to ship.

        Raises :class:`~.shipping.ShippingError` or :class:`ClusterError`.
        """
        return None

    @abstractmethod
    def close(self) -> None:
        """Release what the executor holds (a cluster's connection)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def run(self, play: PlayFunction, jobs: Iterable[Job]) -> Iterator[Finished]:
        """Play the jobs, yielding each as it finishes (in any order)."""

    @abstractmethod
    def stop(self, discard: bool = False) -> None:
        """Start no more games; with ``discard``, abandon the running ones too.

        Only sets flags, so it may be called from a signal handler or between
        two results of :meth:`run`.
        """


# -- inside a worker process ------------------------------------------------------

_in_game = False


class _Discarded(BaseException):
    """Raised in a worker by SIGTERM while a game runs, so the game's cleanup runs."""


def _on_sigterm(signum: int, frame: object) -> None:
    if _in_game:
        raise _Discarded()
    os._exit(0)


def start_helper(parent_pid: int, on_stop: Callable[[int, Any], object], machine: Capabilities | None = None) -> None:
    """Set up a process the tournament started (a game worker, an agent check): ``on_stop`` on SIGTERM and
    SIGHUP, Ctrl-C left to the tournament process, and SIGTERM when that process dies; ``machine`` is what the
    tournament's own probe of the sandbox found (not probed again)."""
    adopt(machine)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the tournament process's to handle
    signal.signal(signal.SIGTERM, on_stop)
    # A hung-up terminal sends SIGHUP to the whole job, helpers included: stop as for SIGTERM.
    signal.signal(signal.SIGHUP, on_stop)
    die_with_parent(parent_pid)


def _worker_main(conn, play: PlayFunction, parent_pid: int, machine: Capabilities | None) -> None:
    global _in_game
    start_helper(parent_pid, _on_sigterm, machine)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        _in_game = True
        reply: tuple[int, GameRecord | None, str | None]
        try:
            reply = (job.index, play(job.red, job.blue, job.settings), None)
        except _Discarded:
            os._exit(0)  # play's own cleanup (killing the agents) has run
        except Exception:
            reply = (job.index, None, traceback.format_exc())
        _in_game = False
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


# -- in the tournament process ------------------------------------------------------


class _Worker:
    def __init__(self, context, play: PlayFunction, number: int):
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=_worker_main, args=(child, play, os.getpid(), probed()), name=f"tournament-worker-{number}",
            daemon=True,
        )
        self.process.start()
        child.close()
        self.job: Job | None = None

    def assign(self, job: Job) -> None:
        self.job = job
        self.conn.send(job)

    def finish(self) -> None:
        """Ask an idle worker to exit."""
        try:
            self.conn.send(None)
        except OSError:
            pass

    def abandon(self) -> None:
        """SIGTERM a busy worker: its game's agents are killed, the game discarded."""
        if self.process.is_alive():
            self.process.terminate()


class LocalExecutor(Executor):
    """Games in ``workers`` worker processes on this machine."""

    def __init__(self, workers: int):
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.workers = workers
        self._stopping = False
        self._discarding = False

    def describe(self) -> str:
        return f"{self.workers} worker{'s' if self.workers != 1 else ''}"

    def check_agents(self, plan: TournamentPlan, skip: Collection[str] = (), progress: bool = False) -> str | None:
        # The games run on this machine, where the lineup has already loaded
        # every agent with the settings of its games (lineup.build_lineup).
        return None

    def close(self) -> None:
        pass  # each run's worker processes end with the run

    def stop(self, discard: bool = False) -> None:
        self._stopping = True
        self._discarding = self._discarding or discard

    def run(self, play: PlayFunction, jobs: Iterable[Job]) -> Iterator[Finished]:
        # spawn: workers start from a clean interpreter, whatever threads
        # (progress bar, test runner) this process has.
        context = multiprocessing.get_context("spawn")
        pending = iter(jobs)
        exhausted = False
        pool: list[_Worker] = []
        started = deaths_in_a_row = 0
        try:
            while True:
                if not self._stopping and not exhausted:
                    for worker in [w for w in pool if w.job is None] + [None] * (self.workers - len(pool)):
                        job = next(pending, None)
                        if job is None:
                            exhausted = True
                            break
                        if worker is None:
                            started += 1
                            worker = _Worker(context, play, started)
                            pool.append(worker)
                        worker.assign(job)
                busy = [w for w in pool if w.job is not None]
                if not busy or self._discarding:
                    return
                ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=POLL_INTERVAL)
                for worker in busy:
                    if self._discarding:
                        break  # results that arrive after a discard are discarded too
                    job = worker.job
                    assert job is not None  # a busy worker's
                    if worker.conn in ready:
                        try:
                            _index, record, error = worker.conn.recv()
                        except (EOFError, OSError):
                            pass  # died while replying: handled below as a dead worker
                        else:
                            worker.job = None
                            deaths_in_a_row = 0
                            yield Finished(job, record, error)
                            continue
                    if worker.process.sentinel in ready or not worker.process.is_alive():
                        worker.process.join()
                        pool.remove(worker)
                        deaths_in_a_row += 1
                        if deaths_in_a_row >= MAX_DEATHS_IN_A_ROW * self.workers:
                            self.stop()
                        yield Finished(job, None, f"the worker process died (exit code {worker.process.exitcode})")
        finally:
            self._shutdown(pool)

    def _shutdown(self, pool: list[_Worker]) -> None:
        for worker in pool:
            if worker.job is None:
                worker.finish()
            else:
                worker.abandon()
        for worker in pool:
            worker.process.join(DISCARD_GRACE)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()


def stop_resource_tracker() -> None:
    """Stop and reap the helper process that starting workers started; for a command about to exit.

    Left running, it outlives the command by a moment, for the machine's pid 1
    to reap: the referee reaps every process it started.  Never in a process
    that goes on: the helper, once stopped, unlinks the semaphores still
    registered with it (a Dask LocalCluster's, for one).
    """
    from multiprocessing import resource_tracker

    stop = getattr(resource_tracker._resource_tracker, "_stop", None)  # private, in every Python since 3.8
    if stop is not None:
        try:
            stop()
        except (OSError, ChildProcessError):
            pass
