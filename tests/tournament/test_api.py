"""``referee.tournament.run``: a real tournament from Python, with real agent processes."""
from __future__ import annotations

import _thread
import signal
import subprocess
import threading
import uuid
from multiprocessing import resource_tracker
from pathlib import Path

import pytest

from referee.limits import Limits
from referee.records import GameRecord
from referee.tournament import LocalExecutor, RunError, RunObserver, build_lineup, load_config, make_executor, run
from tests.helpers import ROOT, wait_until

from .procs import MARK, marked_processes


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""

TINY = """\
name: tiny
agents:
  - {name: r1, spec: agents.random_agent}
  - {name: r2, spec: agents/random_agent}
games_per_pair: 2
time_limit: 20
space_limit: 0
wall_grace: 3
workers: 1
seed: 3
sandbox: off
"""


class Recorder(RunObserver):
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def note(self, text: str) -> None:
        self.calls.append(("note", text))

    def starting(self, plan, config, already, where, output) -> None:
        self.calls.append(("starting", plan.name, already, where, output))

    def tables(self, results, sprt, left_out) -> None:
        self.calls.append(("tables", sorted(a.name for a in results.agents.values())))


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # agents are imported from the project folder, as the command does
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return load_config(path, agents_from=ROOT)


def test_run_plays_records_and_writes_the_tables(config, tmp_path):
    output = tmp_path / "out"
    seen = Recorder()
    done = run(config, output=output, observer=seen)
    assert done.summary.played == done.summary.total == 2 and not done.summary.referee_failures
    assert done.where == "1 worker" and done.output == output and done.games_file == output / "games.jsonl"
    assert {path.name for path in done.written} >= {"results.md", "report.html"}
    assert all(path.exists() for path in done.written)
    records = [GameRecord.from_json(line) for line in done.games_file.read_text().splitlines()]
    assert len(records) == 2 and all((r.time_limit, r.space_limit) == (20.0, None) for r in records)
    assert sorted(done.results.agents) == ["r1", "r2"]
    assert seen.calls == [("starting", "tiny", 0, "1 worker", output), ("tables", ["r1", "r2"])]
    # The plan in tournament.json carries the grace the YAML set.
    assert '"wall_grace": 3.0' in (output / "tournament.json").read_text()
    assert config.limits == Limits(time_limit=20, wall_grace=3)


def test_run_again_continues_the_folder_and_plays_nothing_more(config, tmp_path):
    output = tmp_path / "out"
    run(config, output=output, executor=LocalExecutor(1))
    seen = Recorder()
    again = run(config, output=output, resume=True, executor=LocalExecutor(1), observer=seen)
    assert again.summary.played == 0 and again.summary.recorded == 2
    assert seen.calls[0] == ("starting", "tiny", 2, "1 worker", output)
    assert len(again.games_file.read_text().splitlines()) == 2


def test_a_folder_of_other_files_is_refused_unless_forced(config, tmp_path):
    output = tmp_path / "mine"
    output.mkdir()
    (output / "thesis.tex").write_text("precious")
    with pytest.raises(RunError) as info:
        run(config, output=output)
    assert "is not a tournament's output folder" in str(info.value) and "thesis.tex" in str(info.value)
    assert not (output / "games.jsonl").exists()
    assert run(config, output=output, force=True).summary.played == 2
    assert (output / "thesis.tex").read_text() == "precious"


def test_resume_needs_a_run_to_continue(config, tmp_path):
    with pytest.raises(RunError, match="--resume: .* holds no tournament to continue"):
        run(config, output=tmp_path / "empty", resume=True)


def test_an_agent_that_cannot_load_is_a_run_error_before_any_game(config, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text(TINY.replace("agents/random_agent", "tests.tournament.fixtures.agents.nowhere"))
    with pytest.raises(RunError) as info:
        run(load_config(broken), output=tmp_path / "out")
    assert len(info.value.problems) == 1
    assert "agent 'r2' (tests.tournament.fixtures.agents.nowhere) cannot be loaded" in info.value.problems[0]
    assert not (tmp_path / "out" / "games.jsonl").exists()


def test_make_executor_refuses_what_it_cannot_make():
    with pytest.raises(RunError, match="unknown executor 'cloud'"):
        make_executor("cloud")
    with pytest.raises(RunError, match="scheduler: must be local or a Dask scheduler's address"):
        make_executor("dask", 1, "10.0.0.1:8786")
    local = make_executor("local", 3)
    assert isinstance(local, LocalExecutor) and local.describe() == "3 workers"
    assert local.check_agents(None) is None and local.ship_agents(None) is None  # type: ignore[arg-type]


class SignalsSeen(RunObserver):
    """What the signal handlers are while the games are played."""

    def starting(self, plan, config, already, where, output) -> None:
        self.handlers = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]


def test_run_is_a_library_call_printing_nothing_and_keeping_the_callers_signal_handlers(config, tmp_path, capfd):
    before = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
    seen = SignalsSeen()
    done = run(config, output=tmp_path / "out", observer=seen)
    assert done.summary.played == 2
    assert seen.handlers == before  # no handler of its own unless asked (handle_signals=True: the command)
    out, err = capfd.readouterr()
    assert out == err == ""  # everything it has to say went to the observer


def test_stopped_agent_checks_end_only_the_processes_the_check_started(tmp_path, monkeypatch):
    """Interrupted while checking agents (Ctrl-C), the lineup kills the agents it is checking and nothing else of
    its caller's: a process of the caller's in a session of its own lives on."""
    monkeypatch.chdir(ROOT)
    # multiprocessing's resource tracker is this interpreter's, for its whole life, not the check's: started
    # before the mark, it is not counted (started by the check, it would be, depending on the tests run before).
    resource_tracker.ensure_running()
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK, mark)
    path = tmp_path / "slow.yaml"
    path.write_text(
        "name: slow\nagents:\n  - tests.tournament.fixtures.agents.slow_init\n  - agents.random_agent\nsandbox: off\n"
    )
    mine = subprocess.Popen(["sleep", "infinity"], start_new_session=True)  # what a server might run beside it
    try:
        def agents() -> list[int]:
            return [pid for pid in marked_processes(mark) if b"agent_host" in _cmdline(pid)]

        def interrupt_once_checking() -> None:
            try:
                wait_until(agents, 120, "an agent being checked", interval=0.1)
            finally:  # interrupted all the same past the timeout: the check must not run on
                _thread.interrupt_main()

        threading.Thread(target=interrupt_once_checking, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            build_lineup(load_config(path, agents_from=ROOT), workers=2)
        wait_until(lambda: marked_processes(mark) == [mine.pid], 60,
                   "the checked agents and the lineup's helpers to end (the caller's sleeper left)", interval=0.1)
        # The agents being checked and the lineup's helpers are gone; the caller's sleeper is not.
        assert marked_processes(mark) == [mine.pid] and mine.poll() is None
    finally:
        mine.kill()
        mine.wait()
