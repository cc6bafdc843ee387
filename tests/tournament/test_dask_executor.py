"""The Dask executor on a real two-worker LocalCluster: every game once, bounded, retried, stopped."""
from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest

from referee.match import AgentEntry, MatchSettings, play_match
from referee.records import GameRecord
from referee.tournament.schedule import TournamentPlan, schedule

from . import fakes
from .procs import MARK, marked_processes, wait_until_gone

# Dask is imported by the tests that use it, not when they are collected: a run of
# other tests does not load it into the pytest process.
if importlib.util.find_spec("distributed") is None:
    pytest.skip('needs Dask: pip install -e ".[cluster]"', allow_module_level=True)

from tests.helpers import ROOT, wait_until
RANDOM = "agents.random_agent"
MODULE_MARK = uuid.uuid4().hex


@pytest.fixture(scope="module")
def cluster():
    """Two single-thread workers, started in the project folder with this module's mark in their environment."""
    import distributed

    saved_cwd, saved_mark = os.getcwd(), os.environ.get(MARK)
    os.chdir(ROOT)
    os.environ[MARK] = MODULE_MARK  # the workers, and the agents they start, inherit it
    try:
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as local:
            yield local
    finally:
        os.chdir(saved_cwd)
        if saved_mark is None:
            os.environ.pop(MARK, None)
        else:
            os.environ[MARK] = saved_mark


@pytest.fixture
def executor(cluster):
    from referee.tournament.dask_executor import DaskExecutor

    with DaskExecutor(cluster.scheduler_address) as dask:
        yield dask


def plan(n: int = 3, games_per_pair: int = 2, agents=None, sandbox: str = "auto") -> TournamentPlan:
    agents = agents or tuple(AgentEntry(f"pkg.a{i}", f"a{i}") for i in range(n))
    return TournamentPlan(name="t", agents=agents, games_per_pair=games_per_pair, sandbox=sandbox)


def play_logged(log: str, seconds: float, red: AgentEntry, blue: AgentEntry, settings: MatchSettings) -> GameRecord:
    """play_by_seed, writing when each game starts and ends, and in which worker process."""
    index = settings.extra["game_index"]
    with open(log, "a") as file:
        file.write(f"start {index} {os.getpid()}\n")
    time.sleep(seconds)
    record = fakes.play_by_seed(red, blue, settings)
    with open(log, "a") as file:
        file.write(f"end {index} {os.getpid()}\n")
    return record


def log_lines(log: Path) -> list[tuple[str, int, int]]:
    if not log.exists():
        return []
    return [
        (what, int(index), int(pid)) for what, index, pid in (line.split() for line in log.read_text().splitlines())
    ]


def agent_processes() -> list[int]:
    """This module's agent processes still alive (the workers carry the mark too)."""
    alive = []
    for pid in marked_processes(MODULE_MARK):
        try:
            if b"referee.hosting.agent_host" in Path(f"/proc/{pid}/cmdline").read_bytes():
                alive.append(pid)
        except OSError:
            pass
    return alive


def test_every_job_is_yielded_once_with_its_record(executor):
    jobs = list(schedule(plan(3, 4)))
    finished = list(executor.run(fakes.play_by_seed, iter(jobs)))
    assert sorted(f.job.index for f in finished) == list(range(12))
    for f in finished:
        assert f.error is None
        assert f.record == fakes.play_by_seed(f.job.red, f.job.blue, f.job.settings)


def test_the_schedule_is_taken_a_few_games_at_a_time(executor):
    pulled = 0

    def counted():
        nonlocal pulled
        for job in schedule(plan(5, 4)):  # 40 games
            pulled += 1
            yield job

    seen = 0
    for _ in executor.run(fakes.play_by_seed, counted()):
        seen += 1
        assert pulled <= seen + 2 * 2  # two games per worker thread in flight, at most
    assert seen == pulled == 40


def test_a_failing_play_is_reported_and_the_rest_go_on(executor):
    finished = {f.job.index: f for f in executor.run(fakes.play_or_fail, schedule(plan(3, 2)))}
    assert sorted(finished) == list(range(6))
    assert finished[1].record is None and "referee bug in game 1" in finished[1].error
    assert all(f.record is not None for i, f in finished.items() if i != 1)


def test_a_game_whose_worker_dies_is_played_again_and_yielded_once(executor, tmp_path):
    log = tmp_path / "games.log"
    play = functools.partial(play_logged, str(log), 0.5)
    killed: list[tuple[int, int]] = []

    def running_games() -> list[tuple[int, int]]:
        lines = log_lines(log)
        ended = {(index, pid) for what, index, pid in lines if what == "end"}
        return [(index, pid) for what, index, pid in lines if what == "start" and (index, pid) not in ended]

    def kill_a_worker_in_a_game():
        # Past the timeout nothing is killed: the test then fails on `killed`.
        game = wait_until(running_games, 30, "a game running in a worker", interval=0.02)[0]
        os.kill(game[1], signal.SIGKILL)
        killed.append(game)

    killer = threading.Thread(target=kill_a_worker_in_a_game)
    killer.start()
    finished = list(executor.run(play, schedule(plan(3, 4))))
    killer.join()
    assert killed, "no game was seen running"
    index, pid = killed[0]
    assert sorted(f.job.index for f in finished) == list(range(12))  # every game once
    assert all(f.record == fakes.play_by_seed(f.job.red, f.job.blue, f.job.settings) for f in finished)
    starts = [p for what, i, p in log_lines(log) if what == "start" and i == index]
    assert len(starts) == 2 and starts[0] == pid != starts[1]  # played again, by another worker process


def test_stop_lets_running_games_finish_and_starts_no_more(executor, tmp_path):
    log = tmp_path / "games.log"
    ended_before_stop = []

    def stop_once_two_games_run() -> None:
        # In the middle of the first two games (one per worker), as Ctrl-C would;
        # waiting for them rather than a fixed time keeps this right on a busy machine.
        try:
            wait_until(lambda: sum(1 for what, _, _ in log_lines(log) if what == "start") >= 2, 60,
                       "two games started", interval=0.02)
        finally:  # stopped all the same past the timeout, as the run must end
            executor.stop()
            # On a very busy machine a worker may start late, after the other's first game ended
            # and its next began: such a game ended before the stop and was rightly replaced.
            ended_before_stop.append(sum(1 for what, _, _ in log_lines(log) if what == "end"))

    stopper = threading.Thread(target=stop_once_two_games_run)
    stopper.start()
    seen = list(executor.run(functools.partial(play_logged, str(log), 2.0), schedule(plan(4, 4))))
    stopper.join()
    assert 2 <= len(seen) <= 2 + ended_before_stop[0] < 16 and all(f.record is not None for f in seen)
    # The games running at the stop were finished and yielded; those queued behind them never started.
    started = sorted(index for what, index, _ in log_lines(log) if what == "start")
    assert started == sorted(f.job.index for f in seen)


def test_discard_abandons_real_games_and_kills_their_agents(executor):
    agents = (
        AgentEntry("tests.tournament.fixtures.agents.sleeper", "sleeper"),
        AgentEntry("agents.random_agent", "random"),
    )

    def discard_once_agents_run():
        # Both games run (two workers) with their agents started: then abandon them.
        try:
            wait_until(lambda: len(agent_processes()) >= 4, 30, "both games' agents to start", interval=0.05)
        finally:  # discarded all the same past the timeout, as the run must end
            executor.stop(discard=True)

    threading.Thread(target=discard_once_agents_run).start()
    assert list(executor.run(play_match, schedule(plan(agents=agents)))) == []
    wait_until(lambda: not agent_processes(), 10, "the abandoned games' agents to end", interval=0.1)
    assert agent_processes() == []  # the sleeper would have slept on for a minute


# _Abandoned is raised in a game's thread asynchronously: at whatever bytecode the thread runs then.
# These play a game in a thread of the test's own, as a Dask worker's task would (no cluster), and have
# _stop_run send the exception at the instants where it once left agents running.


def play_on_worker_in_a_thread(job, run: str, monkeypatch) -> tuple[str, object]:
    """``_play_on_worker(play_match, job)`` in a thread, as a task would; its outcome once abandoned.

    Its processes carry a mark of their own: any left at the end are killed (the test still fails), not
    left running for a minute.
    """
    from referee.tournament.dask_executor import _play_on_worker

    mark, outcome = uuid.uuid4().hex, []
    monkeypatch.setenv(MARK, mark)  # the agents inherit it (REFEREE_PASS_ENV, tests/conftest.py)
    thread = threading.Thread(target=lambda: outcome.append(_play_on_worker(play_match, job, run, "checks", ())))
    try:
        thread.start()
        thread.join(60)
        assert not thread.is_alive() and outcome
        return outcome[0]
    finally:
        left = wait_until_gone(mark)
        for pid in left:
            with contextlib.suppress(ProcessLookupError):  # ended since
                os.kill(pid, signal.SIGKILL)
        assert left == []  # every process of the abandoned game ended


# Unsealed, the process is found by its session; sealed, by its cgroup, which it joins only once its shell runs.
@pytest.mark.parametrize("sandbox", ["off", "auto"])
def test_a_game_abandoned_just_as_an_agent_started_leaves_no_agent_running(monkeypatch, sandbox):
    from referee.tournament.dask_executor import ABANDONED, _stop_run

    real_popen, run = subprocess.Popen, uuid.uuid4().hex

    def popen_then_abandon(command, *args, **kwargs):
        proc = real_popen(command, *args, **kwargs)
        if "referee.hosting.agent_host" in command:  # the agent's process is running, not yet recorded
            _stop_run(run, abandon=True)
        return proc

    monkeypatch.setattr(subprocess, "Popen", popen_then_abandon)
    monkeypatch.chdir(ROOT)
    agents = (AgentEntry("tests.tournament.fixtures.agents.sleeper", "sleeper"), AgentEntry(RANDOM, "random"))
    job = next(iter(schedule(plan(agents=agents, sandbox=sandbox))))
    assert play_on_worker_in_a_thread(job, run, monkeypatch) == (ABANDONED, None)


def test_a_game_abandoned_as_its_clean_up_begins_has_its_agents_killed(monkeypatch):
    import referee.match
    from referee.tournament.dask_executor import ABANDONED, _stop_run

    real_signals_held, run = referee.match.signals_held, uuid.uuid4().hex

    def abandon_then_hold_signals():
        _stop_run(run, abandon=True)  # lands before play_match's clean-up has killed anything
        return real_signals_held()

    monkeypatch.setattr(referee.match, "signals_held", abandon_then_hold_signals)
    monkeypatch.chdir(ROOT)
    # Red raises on its first move: the game ends at once, with both agents' processes still running.
    agents = (AgentEntry("tests.tournament.fixtures.agents.raises", "raises"), AgentEntry(RANDOM, "random"))
    job = next(iter(schedule(plan(agents=agents))))
    assert play_on_worker_in_a_thread(job, run, monkeypatch) == (ABANDONED, None)


def test_workers_that_keep_dying_stop_the_run():
    import dask
    import distributed

    from referee.tournament.dask_executor import DaskExecutor

    # Dask gives a game up when its workers died allowed-failures + 1 times (0 here, to be quick).
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as local:
            with DaskExecutor(local.scheduler_address) as executor:
                finished = list(executor.run(fakes.play_and_die, schedule(plan(4, 10))))
    assert 6 <= len(finished) < 60  # three lost games per worker thread in a row, then no new games
    assert all(f.record is None and "Dask could not run the game: KilledWorker" in f.error for f in finished)


def test_a_swiss_tournament_plays_round_by_round_on_dask(executor, tmp_path):
    """Real agents: each round's games go to the cluster at once, the next round is paired from them."""
    from referee.tournament import load_config, run

    from .setups import SWISS
    from .setups import SWISS_GAMES as GAMES

    path = tmp_path / "swiss.yaml"
    path.write_text(SWISS)
    config = load_config(path, agents_from=ROOT)
    local = run(config, output=tmp_path / "local")
    done = run(config, output=tmp_path / "dask", executor=executor)
    assert done.summary.played == GAMES and not done.summary.referee_failures
    def pairings(path: Path) -> set[tuple[int | None, tuple[str, ...]]]:
        records = [GameRecord.from_json(line) for line in path.read_text().splitlines()]
        return {(r.game_index, tuple(r.extra["pairing"])) for r in records}

    assert pairings(done.games_file) == pairings(local.games_file)
    assert done.results.columns == local.results.columns and done.results.official == local.results.official


def test_a_ladder_plays_batch_by_batch_on_dask(executor, tmp_path):
    """Real agents: each batch goes to the cluster at once, the next is paired from its results."""
    from referee.tournament import load_config, run

    from .setups import LADDER
    from .setups import LADDER_GAMES as GAMES

    path = tmp_path / "ladder.yaml"
    path.write_text(LADDER)
    config = load_config(path, agents_from=ROOT)
    done = run(config, output=tmp_path / "dask", executor=executor)
    # run() checks every record against the batches recomputed from the ones before (else it raises).
    assert done.summary.played == GAMES and done.summary.recorded == GAMES and not done.summary.referee_failures
    records = [GameRecord.from_json(line) for line in done.games_file.read_text().splitlines()]
    assert sorted(r.game_index for r in records) == list(range(GAMES))
    assert [row.round for row in done.results.rounds] == [1, 1, 2, 2, 3]
