"""Running a tournament's games on a Dask cluster (``executor: dask``).

Each game is one Dask task that calls the play function inside a Dask
worker; the game's two agents are subprocesses of that worker, as with the
local executor.  The scheduler does the rest: it places the tasks, and when a
worker dies it gives the worker's games to another one (its
``allowed-failures`` retries).  This module adds what a tournament needs on
top:

* **bounded submission**: at most ``IN_FLIGHT_PER_THREAD`` games per worker
  thread are submitted at a time, so the lazy schedule stays lazy;
* **each game yielded once**, even when a retried game's result could arrive
  twice;
* **stopping**: Dask cannot interrupt a running task, so the tasks themselves
  cooperate.  A task that starts after a stop plays nothing, and an abandoned
  game is interrupted in its worker thread, which runs ``play``'s own
  clean-up (killing the agents), as SIGTERM does in a local worker.  The
  exception is held back while an agent's process starts, and can land
  anywhere else, even inside that clean-up: the task then closes every agent
  the game started once more (``InterruptibleGames``);
* **agent checks on the workers**: agents are imported from each worker's
  working directory (or from its copy of the agents shipped by the
  tournament, :meth:`DaskExecutor.ship_agents`), so before the first game
  every agent is checked on every worker, and a worker that joins later
  checks each agent before its first game with it.

Importing this module imports Dask; the local executor never does.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import shutil
import socket
import threading
import time
import traceback
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any
from collections.abc import Collection, Iterable, Iterator

try:
    import distributed
except ImportError as exc:  # an optional extra: say how to get it
    raise ImportError(f'{exc}; the dask executor needs Dask: pip install -e ".[cluster]"') from exc

from tqdm import tqdm

from ..hosting.sandbox import SandboxUnavailable, resolve
from ..match import AgentEntry, InterruptibleGames, MatchSettings, check_agent
from .config import LOCAL_SCHEDULER
from .executor import MAX_DEATHS_IN_A_ROW, ClusterError, Executor, Finished, PlayFunction
from .schedule import Job, TournamentPlan
from .shipping import AgentBundle, pack_agents, unpack

#: Games submitted per worker thread: one running, one queued behind it, so
#: a thread never waits for the tournament process to hand it the next game.
IN_FLIGHT_PER_THREAD = 2
#: Seconds to reach the scheduler and for a first worker to be there.
CONNECT_TIMEOUT = 10.0
#: How often the run loop looks at results and stop requests (seconds).
POLL_INTERVAL = 0.1
#: How often the number of worker threads is asked again (seconds).
CAPACITY_REFRESH = 2.0

WORKER_HINT = (
    "agents are imported from each Dask worker's working directory: start `dask worker` "
    "in the project folder, on a shared filesystem or a copy of it, or ship the agents "
    "with --ship-agents (see docs/dask.md)"
)
SHIPPED_HINT = (
    "agents are imported from the copy of their folders shipped to each Dask worker (ship_agents); "
    "whatever they import from outside those folders must be installed on the workers (see docs/dask.md)"
)


# -- inside a Dask worker process ---------------------------------------------------
# Module state of each worker process, shared by its task threads.

_lock = threading.Lock()
_stopped_runs: set[str] = set()  # kept: a task of an ended run must never start a game
_playing: dict[InterruptibleGames, str] = {}  # a task's thread -> run token of the game it plays
_loadable: set[tuple[str, str]] = set()  # (executor token, agent key) checked here
_shipped: dict[str, str] = {}  # ShipAgents plugin name -> the folder it unpacked the agents into here

PLAYED, FAILED, SKIPPED, ABANDONED, UNLOADABLE = "played", "failed", "skipped", "abandoned", "unloadable"


class _Abandoned(BaseException):
    """Raised in a task's thread to abandon its game (a BaseException, so ``play``'s clean-up runs)."""


def _agent_key(entry: AgentEntry, settings: MatchSettings) -> str:
    return json.dumps([entry.spec, dict(entry.options), settings.game, dict(settings.game_options)], sort_keys=True)


def _agent_problem(entry: AgentEntry, settings: MatchSettings, checks: str) -> str | None:
    """Whether this worker can load the agent, checked once per worker process and executor."""
    key = (checks, _agent_key(entry, settings))
    with _lock:
        if key in _loadable:
            return None
    problem = check_agent(entry, settings)  # outside the lock: it takes a process start
    if problem is None:
        with _lock:
            _loadable.add(key)  # failures are not kept: the next run may find the worker fixed
    return problem


class _NotShipped(Exception):
    """This worker has no copy of the shipped agents (unpacking them failed: see the worker's log)."""


def _settings_here(settings: MatchSettings, shipped: str | None) -> MatchSettings:
    """The game's settings on this worker: with ``shipped``, the agents start in this worker's copy of them."""
    if shipped is None:
        return settings
    with _lock:
        folder = _shipped.get(shipped)
    if folder is None:
        raise _NotShipped("the agents shipped with the tournament are not on this worker (see the worker's log)")
    return dataclasses.replace(settings, agent_dir=folder)


def _probe_agent(
    entry: AgentEntry, settings: MatchSettings, checks: str, shipped: str | None = None
) -> tuple[str, str | None]:
    """Where this worker imports agents from, and why it cannot load this one (None: it can)."""
    try:
        settings = _settings_here(settings, shipped)
    except _NotShipped as exc:
        return os.getcwd(), str(exc)
    return settings.agent_dir or os.getcwd(), _agent_problem(entry, settings, checks)


def _sandbox_here(mode: str) -> tuple[str | None, str | None]:
    """Run on each worker: (what agents run under there, or why ``mode`` cannot be met)."""
    try:
        return resolve(mode).describe(), None
    except SandboxUnavailable as exc:
        return None, str(exc)


def _play_on_worker(
    play: PlayFunction, job: Job, run: str, checks: str, verify: tuple[AgentEntry, ...], shipped: str | None = None
) -> tuple[str, Any]:
    """One game as a Dask task: ``(PLAYED, record)`` or another outcome and its text."""
    if run in _stopped_runs:
        return SKIPPED, None
    try:
        job = dataclasses.replace(job, settings=_settings_here(job.settings, shipped))
    except _NotShipped as exc:
        return UNLOADABLE, str(exc)
    for entry in verify:
        problem = _agent_problem(entry, job.settings, checks)
        if problem is not None:
            where = job.settings.agent_dir or os.getcwd()
            return UNLOADABLE, f"agent {entry.display_name!r} ({entry.spec}) cannot be loaded in {where}: {problem}"
    games = InterruptibleGames()  # what _stop_run abandons
    try:
        with _lock:
            if run in _stopped_runs:  # stopped while the agents were being checked
                return SKIPPED, None
            _playing[games] = run
        outcome: tuple[str, Any]
        try:
            try:
                outcome = PLAYED, play(job.red, job.blue, job.settings)
            except Exception:
                outcome = FAILED, traceback.format_exc()
        finally:
            with _lock:
                _playing.pop(games, None)
        if games.end():  # abandoned as the game ended: the exception, not raised yet, is dropped
            return ABANDONED, None
        return outcome
    except _Abandoned:
        # It may have landed inside play's own clean-up and cut it short
        # (killing one agent of two, say): close every agent the game started, again.
        games.close_all()
        return ABANDONED, None
    finally:
        games.end()  # never raised in Dask's code, after this task


def _stop_run(run: str, abandon: bool) -> int:
    """Run on each worker (``client.run``): start no more games of ``run``; maybe abandon its running ones.

    Returns the number of games abandoned here.
    """
    abandoned = 0
    with _lock:
        _stopped_runs.add(run)
        if abandon:
            for games, owner in list(_playing.items()):
                if owner == run:
                    # Deregistered while the lock is held, so a thread is sent at most one
                    # exception, and only during this game's task (which drops it if not raised yet).
                    del _playing[games]
                    games.interrupt(_Abandoned)
                    abandoned += 1
    return abandoned


def _forget_checks(checks: str) -> None:
    """Run on each worker: drop the agent checks of a closed executor."""
    with _lock:
        _loadable.difference_update({key for key in _loadable if key[0] == checks})


class IgnoreCtrlC(distributed.WorkerPlugin):
    """Workers of our own LocalCluster share the terminal: Ctrl-C is the tournament process's to handle.

    A plugin rather than a one-off call, so that a worker the nanny restarts
    ignores it too.  ``setup`` runs in the worker process's main thread.
    """

    name = "referee-ignore-ctrl-c"

    def setup(self, worker: distributed.Worker) -> None:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)


class ShipAgents(distributed.WorkerPlugin):
    """The tournament's agent folders, unpacked on every worker, including those that join later.

    Registered with the scheduler, which keeps it and sets it up on each
    worker as it joins (before the worker takes any task).  The archive
    travels inside the plugin.  Each worker unpacks it into its own local
    directory; the games' settings then point the agents' processes there.
    """

    def __init__(self, name: str, archive: bytes):
        self.name = name
        self.archive = archive

    def setup(self, worker: distributed.Worker) -> None:
        folder = Path(worker.local_directory) / self.name
        unpack(self.archive, folder)
        with _lock:
            _shipped[self.name] = str(folder)

    def teardown(self, worker: distributed.Worker) -> None:
        with _lock:
            folder = _shipped.pop(self.name, None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


# -- in the tournament process -------------------------------------------------------


def _check_reachable(address: str, timeout: float) -> None:
    """Fail at once, with a plain reason, when nothing listens at the address (Dask would retry until its timeout)."""
    host, _, port = address.split("://", 1)[-1].rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address}: {reason}. Start one with `dask scheduler` "
            "(it prints its address) or use scheduler: local"
        ) from None


class DaskExecutor(Executor):
    """Games as tasks on a Dask cluster: a scheduler's address, or ``"local"`` for a LocalCluster here.

    ``workers`` is the LocalCluster's size (one thread each); a remote
    cluster has the workers that were started for it.  Use as a context
    manager, or call :meth:`close`.
    """

    def __init__(
        self, scheduler: str = LOCAL_SCHEDULER, workers: int | None = None, *, connect_timeout: float = CONNECT_TIMEOUT
    ):
        self.scheduler = scheduler
        self.workers = workers or os.cpu_count() or 1
        self.connect_timeout = connect_timeout
        self.client: distributed.Client | None = None
        self._cluster: distributed.LocalCluster | None = None
        self._checks = uuid.uuid4().hex  # names this executor's agent checks on the workers
        self._verify: set[str] | None = None  # display names of agents the workers must check
        self._shipped: str | None = None  # the ShipAgents plugin's name, once the agents are shipped
        self._stopping = False
        self._discarding = False
        self._threads = 0
        self._threads_asked = 0.0

    # -- connecting ---------------------------------------------------------------

    def connect(self) -> None:
        """Start the LocalCluster or reach the scheduler, and wait for a worker; raises ClusterError."""
        if self.client is not None:
            return
        try:
            if self.scheduler == LOCAL_SCHEDULER:
                # Our own cluster's log is not the user's to read: what goes wrong in a game comes back as its
                # result, and a worker's heartbeat that meets the cluster closing (a run stopped at once, on a
                # busy machine) logged a traceback onto the command's output.
                self._cluster = distributed.LocalCluster(
                    n_workers=self.workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                    silence_logs=logging.CRITICAL,
                )
                self.client = distributed.Client(self._cluster, timeout=self.connect_timeout)
                self.client.register_plugin(IgnoreCtrlC())
            else:
                _check_reachable(self.scheduler, self.connect_timeout)
                self.client = distributed.Client(self.scheduler, timeout=self.connect_timeout)
        except ClusterError:
            raise
        except (OSError, TimeoutError, ValueError) as exc:
            self.close()
            raise ClusterError(f"cannot connect to the Dask scheduler at {self.scheduler}: {exc}") from None
        try:
            self.client.wait_for_workers(1, timeout=self.connect_timeout)
        except TimeoutError:
            self.close()
            raise ClusterError(
                f"the Dask scheduler at {self.scheduler} has no workers (waited {self.connect_timeout:g} s): "
                f"start some with `dask worker {self.scheduler}` in the project folder"
            ) from None

    def describe(self) -> str:
        """Where the games run, for the command's header line."""
        nthreads = self._client().nthreads()
        workers, threads = len(nthreads), sum(nthreads.values())
        where = "a Dask LocalCluster" if self._cluster is not None else f"the Dask scheduler {self.scheduler}"
        return f"{where}: {workers} worker{'s' if workers != 1 else ''}, {threads} thread{'s' if threads != 1 else ''}"

    def _client(self) -> distributed.Client:
        self.connect()
        assert self.client is not None
        return self.client

    def close(self) -> None:
        """Disconnect; a LocalCluster of our own is shut down."""
        client, cluster = self.client, self._cluster
        self.client = self._cluster = None
        if client is not None:
            if cluster is None:  # a cluster that outlives this run: leave nothing of it behind
                with contextlib.suppress(Exception):  # best effort on a cluster that may be gone
                    if self._verify is not None:
                        client.run(_forget_checks, self._checks, on_error="ignore")
                    if self._shipped is not None:
                        client.unregister_worker_plugin(self._shipped)  # its teardown deletes the copies
            client.close()
        self._shipped = None
        if cluster is not None:
            cluster.close()

    def __enter__(self) -> DaskExecutor:
        return self

    # -- shipping and checking the agents on the workers ------------------------

    def ship_agents(self, plan: TournamentPlan, root: Path | None = None) -> AgentBundle:
        """Send the folders of the plan's agent packages (found in ``root``, default the working directory)
        to every worker.

        Workers that join later get them too.  From then on the agents'
        processes on a worker start in, and import from, its copy.  Raises
        :class:`ShippingError` (an agent's folder is not in ``root``) or
        :class:`ClusterError`.
        """
        bundle = pack_agents(((e.display_name, e.spec) for e in plan.agents), Path.cwd() if root is None else root)
        name = f"referee-agents-{self._checks}"
        try:
            self._client().register_plugin(ShipAgents(name, bundle.archive))
        except Exception as exc:  # noqa: BLE001 - a worker could not unpack them (disk full, ...)
            raise ClusterError(f"shipping the agents to the Dask workers failed: {type(exc).__name__}: {exc}") from None
        self._shipped = name
        return bundle

    def _hint(self) -> str:
        return SHIPPED_HINT if self._shipped is not None else WORKER_HINT

    def check_agents(self, plan: TournamentPlan, skip: Collection[str] = (), progress: bool = False) -> str | None:
        """Import and construct each agent of the plan on each worker, before any game.

        Returns None if every worker can load every agent (except those named
        in ``skip``), else a message saying which cannot, where.  From then on
        a worker that joins later checks each of these agents before its first
        game with it, and a failure there stops the run.
        """
        agents = [entry for entry in plan.agents if entry.display_name not in skip]
        settings = plan.match_settings()  # as the local check (lineup.py) has them
        client = self._client()
        workers = sorted(client.nthreads())
        try:
            sandboxes = client.run(_sandbox_here, plan.sandbox)
        except Exception as exc:  # noqa: BLE001 - a worker died or left
            return f"checking the sandbox on the Dask workers failed: {type(exc).__name__}: {exc}"
        unsealable = {worker: problem for worker, (_, problem) in sandboxes.items() if problem}
        if unsealable:
            return (
                f"sandbox {plan.sandbox}: {len(unsealable)} of {len(sandboxes)} Dask workers cannot seal agents:\n"
                + "\n".join(f"  on {worker}: {problem}" for worker, problem in sorted(unsealable.items()))
            )
        probes = {
            (worker, entry.display_name): client.submit(
                _probe_agent, entry, settings, self._checks, self._shipped,
                workers=[worker], allow_other_workers=False, pure=False,
            )
            for worker in workers
            for entry in agents
        }
        futures = list(probes.values())
        try:
            done = distributed.as_completed(futures)
            for _ in tqdm(
                done,
                total=len(futures),
                desc="checking agents on the Dask workers",
                unit="check",
                leave=False,
                disable=not progress,
            ):
                pass
            results = dict(zip(probes, client.gather(futures)))
        except Exception as exc:  # noqa: BLE001 - a worker died or left during the checks
            return f"checking the agents on the Dask workers failed: {type(exc).__name__}: {exc}"
        failures: dict[str, list[str]] = defaultdict(list)
        for (worker, name), (cwd, problem) in results.items():
            if problem is not None:
                failures[name].append(f"  on {worker} (in {cwd}): {problem}")
        if failures:
            specs = {entry.display_name: entry.spec for entry in agents}
            lines = [
                f"agent {name!r} ({specs[name]}) cannot be loaded on {len(where)} of {len(workers)} Dask workers:\n"
                + "\n".join(where)
                for name, where in failures.items()
            ]
            return "\n".join(lines) + f"\n{self._hint()}"
        self._verify = {entry.display_name for entry in agents}
        return None

    # -- running ------------------------------------------------------------------

    def stop(self, discard: bool = False) -> None:
        self._stopping = True
        self._discarding = self._discarding or discard

    def _capacity(self, client: distributed.Client) -> int:
        now = time.monotonic()
        if now - self._threads_asked > CAPACITY_REFRESH:
            self._threads = sum(client.nthreads().values())
            self._threads_asked = now
        return IN_FLIGHT_PER_THREAD * max(1, self._threads)

    def run(self, play: PlayFunction, jobs: Iterable[Job]) -> Iterator[Finished]:
        client = self._client()
        run = uuid.uuid4().hex
        pending = iter(jobs)
        exhausted = False
        in_flight: dict[distributed.Future, Job] = {}
        results = distributed.as_completed(with_results=True, raise_errors=False)
        yielded: set[int] = set()
        stop_sent = False
        lost_in_a_row = 0  # games Dask gave up on, none played in between
        try:
            while True:
                if self._discarding:
                    return  # the clean-up below abandons the running games
                if self._stopping and not stop_sent:
                    client.run(_stop_run, run, False, on_error="ignore")
                    stop_sent = True
                if not self._stopping and not exhausted:
                    for _ in range(self._capacity(client) - len(in_flight)):
                        job = next(pending, None)
                        if job is None:
                            exhausted = True
                            break
                        verify = tuple(
                            e
                            for e in (job.red, job.blue)
                            if self._verify is not None and e.display_name in self._verify
                        )
                        future = client.submit(
                            _play_on_worker,
                            play,
                            job,
                            run,
                            self._checks,
                            verify,
                            self._shipped,
                            key=f"game-{job.index}-{run}",
                        )
                        in_flight[future] = job
                        results.add(future)
                if not in_flight:
                    return
                batch = results.next_batch(block=False)
                if not batch:
                    time.sleep(POLL_INTERVAL)
                    continue
                for future, outcome in batch:
                    if self._discarding:
                        break  # results that arrive after a discard are discarded too
                    job = in_flight.pop(future)
                    finished = self._finished(job, future, outcome)
                    if finished is None or job.index in yielded:
                        continue
                    lost_in_a_row = lost_in_a_row + 1 if future.status != "finished" else 0
                    if lost_in_a_row >= MAX_DEATHS_IN_A_ROW * max(1, self._threads):
                        self.stop()  # the cluster is failing (workers dying, scheduler gone): no use going on
                    yielded.add(job.index)
                    yield finished
        finally:
            if in_flight:
                # Abandon first, so no queued task starts a game between the two steps.
                # Best effort: the cluster may be what failed.
                with contextlib.suppress(Exception):
                    client.run(_stop_run, run, True, on_error="ignore")
                    client.cancel(list(in_flight))

    def _finished(self, job: Job, future: distributed.Future, outcome: Any) -> Finished | None:
        """What a completed task means for the tournament (None: no game was played)."""
        if future.status == "error":  # the task's own errors are caught in it: this is Dask giving up
            problem = future.exception()  # KilledWorker: the game's workers died too often
            return Finished(job, None, f"Dask could not run the game: {type(problem).__name__}: {problem}")
        if future.status != "finished":
            return Finished(job, None, f"Dask could not run the game: its task was {future.status}")
        kind, value = outcome
        if kind == PLAYED:
            return Finished(job, value)
        if kind == FAILED:
            return Finished(job, None, value)
        if kind == UNLOADABLE:
            self.stop()  # a worker set up differently from the others: every game there would fail
            return Finished(
                job, None, f"on a Dask worker that joined (or restarted) after the start: {value}\n{self._hint()}"
            )
        return None  # SKIPPED or ABANDONED: not played
