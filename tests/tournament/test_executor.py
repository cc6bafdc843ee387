"""The local executor: worker processes, results as they finish, stopping."""
from __future__ import annotations

import threading
import uuid

import pytest

from referee.match import AgentEntry, play_match
from referee.tournament.executor import LocalExecutor
from referee.tournament.schedule import TournamentPlan, schedule

from . import fakes
from .procs import MARK, marked_processes, wait_until_gone

from tests.helpers import ROOT


def plan(n: int = 3, games_per_pair: int = 2, agents=None) -> TournamentPlan:
    agents = agents or tuple(AgentEntry(f"pkg.a{i}", f"a{i}") for i in range(n))
    return TournamentPlan(name="t", agents=agents, games_per_pair=games_per_pair)


@pytest.mark.parametrize("workers", [1, 2])
def test_every_job_is_played_once(workers):
    jobs = list(schedule(plan(3, 4)))
    finished = list(LocalExecutor(workers).run(fakes.play_by_seed, iter(jobs)))
    assert sorted(f.job.index for f in finished) == list(range(12))
    for f in finished:
        assert f.error is None
        assert f.record == fakes.play_by_seed(f.job.red, f.job.blue, f.job.settings)


def test_a_failing_play_is_reported_and_the_rest_go_on():
    finished = {f.job.index: f for f in LocalExecutor(2).run(fakes.play_or_fail, schedule(plan(3, 2)))}
    assert sorted(finished) == list(range(6))
    assert finished[1].record is None and "referee bug in game 1" in finished[1].error
    assert all(f.record is not None for i, f in finished.items() if i != 1)


def test_stop_lets_running_games_finish_and_starts_no_more(monkeypatch):
    monkeypatch.setenv("FAKE_GAME_SECONDS", "0.3")
    executor = LocalExecutor(2)
    seen = []
    for finished in executor.run(fakes.play_slowly, schedule(plan(4, 4))):
        seen.append(finished)
        executor.stop()
    # The first result stops the run; the game running beside it still finishes.
    assert 1 <= len(seen) <= 2
    assert all(f.record is not None for f in seen)


def test_discard_abandons_running_games(monkeypatch):
    monkeypatch.setenv("FAKE_GAME_SECONDS", "60")
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK, mark)
    executor = LocalExecutor(2)
    threading.Timer(1.0, executor.stop, kwargs={"discard": True}).start()
    assert list(executor.run(fakes.play_slowly, schedule(plan(3, 2)))) == []
    assert wait_until_gone(mark, 5) == []


def test_discard_kills_the_agents_of_a_real_game(monkeypatch):
    monkeypatch.chdir(ROOT)
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK, mark)
    agents = (
        AgentEntry("tests.tournament.fixtures.agents.sleeper", "sleeper"),
        AgentEntry("agents.random_agent", "random"),
    )
    executor = LocalExecutor(1)

    def discard_once_agents_run():
        # Wait until the worker and both agents' processes exist, then discard.
        for _ in range(200):
            if len(marked_processes(mark)) >= 3:
                break
            threading.Event().wait(0.05)
        executor.stop(discard=True)

    threading.Thread(target=discard_once_agents_run).start()
    assert list(executor.run(play_match, schedule(plan(agents=agents)))) == []
    assert wait_until_gone(mark, 10) == []


def test_workers_that_keep_dying_stop_the_run():
    finished = list(LocalExecutor(2).run(fakes.play_and_die, schedule(plan(4, 10))))
    assert 6 <= len(finished) < 60  # three deaths per worker in a row, then no new games
    assert all(f.record is None and "worker process died (exit code 3)" in f.error for f in finished)
