"""``python -m referee tournament`` on Dask: a LocalCluster, a real ``dask scheduler`` with ``dask worker``s, errors."""
from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path

import pytest

from referee.match import AgentEntry, play_match
from referee.tournament.config import load_config
from referee.tournament.lineup import build_lineup
from referee.tournament.schedule import TournamentPlan, schedule

from .commands import TINY as CACHEX
from .commands import TINY_INFEXION as TINY
from .commands import command, records, run, same_tables, wait_for_lines, write_config
from .procs import MARK, marked_processes
from .setups import make_project

from tests.helpers import ROOT, wait_until

# Dask is imported by the tests that use it, not when they are collected: a run of
# other tests does not load it into the pytest process.
if importlib.util.find_spec("distributed") is None:
    pytest.skip('needs Dask: pip install -e ".[cluster]"', allow_module_level=True)

#: r3 lives in the project's tests/ folder: a worker started elsewhere cannot import it.  Cachex n = 4: short games
#: (these tests are about where the games are played, not how long).
PROJECT_ONLY = CACHEX.replace("agents/random_agent", "tests.tournament.fixtures.submissions.alice")


def played_locally(tmp_path_factory, name: str, config: str) -> Path:
    """The output folder of ``config`` played by the local executor."""
    folder = tmp_path_factory.mktemp(name)
    proc = run(write_config(folder, config), "-o", str(folder / "out"), "--workers", "2", "-q")
    assert proc.returncode == 0, proc.stderr
    return folder / "out"


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """PROJECT_ONLY played by the local executor."""
    return played_locally(tmp_path_factory, "reference", PROJECT_ONLY)


#: PROJECT_ONLY with 12 games of Infexion (hundreds of actions each): an interruption after the first leaves
#: ten or more to play, so however slow the machine, the run cannot have finished.
LONGER = TINY.replace("agents/random_agent", "tests.tournament.fixtures.submissions.alice").replace(
    "games_per_pair: 2", "games_per_pair: 4")


@pytest.fixture(scope="module")
def longer_reference(tmp_path_factory) -> Path:
    """LONGER played by the local executor."""
    return played_locally(tmp_path_factory, "longer", LONGER)


def game_indices(folder: Path) -> Counter:
    return Counter(r.extra["game_index"] for r in records(folder))


# -- a LocalCluster started by the command -----------------------------------------------


def test_ctrl_c_on_a_local_cluster_then_resume(longer_reference, tmp_path):
    config = write_config(tmp_path, LONGER + "executor: dask\nscheduler: local\nworkers: 2\n")
    out = tmp_path / "out"
    # A session of its own, so that Ctrl-C can go to the whole process group, as
    # from a terminal: the cluster's workers get it too, and must not die of it.
    proc = subprocess.Popen(command(config, "-o", str(out), "-q"), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_for_lines(out / "games.jsonl", 1, proc)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "waiting for the running games to finish" in stderr and "To resume:" in stderr
    assert "Traceback" not in stderr
    interrupted = game_indices(out)
    assert 1 <= len(interrupted) < 12 and set(interrupted.values()) == {1}
    resumed = run(config, "-o", str(out), "--resume", "-q")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(interrupted)} already recorded" in resumed.stderr
    assert "a Dask LocalCluster: 2 workers, 2 threads" in resumed.stderr
    assert game_indices(out) == Counter(range(12))
    same_tables(out, longer_reference)


def parent_of(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def playing_agents(mark: str) -> list[tuple[int, int]]:
    """(agent pid, the hash seed it was given) of the marked run's live agent processes."""
    found = []
    for pid in marked_processes(mark):
        try:
            if b"referee.hosting.agent_host" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            environ = dict(
                item.split(b"=", 1) for item in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0") if b"=" in item
            )
        except OSError:
            continue
        if b"PYTHONHASHSEED" in environ:  # a game's agent (the load checks run unseeded)
            found.append((pid, int(environ[b"PYTHONHASHSEED"])))
    return found


def test_a_worker_killed_during_a_game_loses_no_game_and_records_none_twice(tmp_path):
    config = write_config(tmp_path, TINY.replace("games_per_pair: 2", "games_per_pair: 4"))  # 12 games
    reference = run(config, "-o", str(tmp_path / "local"), "--workers", "2", "-q")
    assert reference.returncode == 0, reference.stderr
    out = tmp_path / "dask"
    mark = uuid.uuid4().hex  # the command's processes inherit it: its workers and their agents
    proc = subprocess.Popen(command(config, "-o", str(out), "--scheduler", "local", "--workers", "2", "-q"), cwd=ROOT,
                            env={**os.environ, MARK: mark}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_lines(out / "games.jsonl", 1, proc)  # past the agent checks: games are being played

    def worker_in_a_game() -> tuple[int, int] | bool:
        """A worker of the command's playing a game, and that game's hash seed; True once the command has ended."""
        for agent, hash_seed in playing_agents(mark):
            worker = parent_of(agent)
            if worker is not None and parent_of(worker) == proc.pid:  # a Dask worker of the command's LocalCluster
                return worker, hash_seed
        return proc.poll() is not None

    killed = None
    try:
        found = wait_until(worker_in_a_game, 60, "a game in a worker of the command's", interval=0.01)
    except AssertionError:
        found = None  # none seen in time: the command is left to end, and the test fails on `killed` below
    if isinstance(found, tuple):  # killed at once, mid-game
        worker, hash_seed = found
        recorded = (out / "games.jsonl").read_text().splitlines()
        os.kill(worker, signal.SIGKILL)
        killed = (worker, hash_seed, len(recorded))
    stdout, stderr = proc.communicate(timeout=180)
    assert killed is not None, "no game was seen running"
    worker, hash_seed, recorded_then = killed
    assert recorded_then < 12  # killed mid-tournament
    assert proc.returncode == 0, stderr
    assert "failed in the referee" not in stderr and "Traceback" not in stderr
    games = records(out)
    assert game_indices(out) == Counter(range(12))  # every game, each once
    # The game that was being played when its worker died was played again, from its start.
    lost = [r for r in games if hash_seed in ((r.seed * 2) % 2**32, (r.seed * 2 + 1) % 2**32)]
    assert len(lost) == 1 and lost[0].reason in ("elimination", "turn_limit")
    same_tables(out, tmp_path / "local")


# -- a scheduler and workers started as on a cluster's machines ----------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _end(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _wait_for_workers(address: str, count: int) -> None:
    import distributed

    with distributed.Client(address, timeout=20) as client:
        wait_until(lambda: len(client.nthreads()) == count, 30, f"the scheduler to get to {count} workers",
                   interval=0.1)


@pytest.fixture(scope="module")
def scheduler():
    """A real `dask scheduler` process; tests add the workers they need."""
    address = f"tcp://127.0.0.1:{_free_port()}"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dask",
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            address.rsplit(":", 1)[1],
            "--no-dashboard",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        _wait_for_workers(address, 0)
        yield address
    finally:
        _end(proc)


@pytest.fixture(scope="session")
def referee_only(tmp_path_factory) -> str:
    """A folder holding only this checkout's ``referee`` package, for PYTHONPATH.

    A process started outside the project folder then runs this checkout's
    referee (not whatever an installed copy points at), and nothing else of
    the project: not its tests/, not its agents/.
    """
    folder = tmp_path_factory.mktemp("referee_only")
    (folder / "referee").symlink_to(ROOT / "referee", target_is_directory=True)
    return str(folder)


def start_worker(
    address: str, folder: Path, referee_path: str | None = None, path: str | None = None
) -> subprocess.Popen:
    """A `dask worker` process started in ``folder``.

    With ``referee_path`` as its PYTHONPATH and ``path`` as its PATH, if given.
    """
    env = {**os.environ}
    if referee_path is not None:
        env["PYTHONPATH"] = referee_path
    if path is not None:
        env["PATH"] = path
    return subprocess.Popen(
        [sys.executable, "-m", "dask", "worker", address, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"],
        cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )


@contextlib.contextmanager
def dask_worker(
    address: str, folder: Path, workers_after: int, referee_path: str | None = None, path: str | None = None
):
    """A `dask worker` started in ``folder``; waits until the scheduler has ``workers_after`` workers."""
    proc = start_worker(address, folder, referee_path, path)
    try:
        _wait_for_workers(address, workers_after)
        yield
    finally:
        _end(proc)
        _wait_for_workers(address, workers_after - 1)


def test_a_remote_scheduler_plays_the_same_tables(scheduler, reference, tmp_path):
    config = write_config(tmp_path, PROJECT_ONLY + f"executor: dask\nscheduler: {scheduler}\n")
    with dask_worker(scheduler, ROOT, 1):
        proc = run(config, "-o", str(tmp_path / "out"), "-q")
    assert proc.returncode == 0, proc.stderr
    assert f"the Dask scheduler {scheduler}: 1 worker, 1 thread" in proc.stderr
    same_tables(tmp_path / "out", reference)


def test_a_worker_that_cannot_load_an_agent_stops_the_run_before_any_game(scheduler, tmp_path, referee_only):
    config = write_config(tmp_path, PROJECT_ONLY)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with dask_worker(scheduler, elsewhere, 1, referee_only):
        proc = run(config, "-o", str(tmp_path / "out"), "--scheduler", scheduler)
    assert proc.returncode == 2, proc.stderr
    assert (
        "agent 'r3' (tests.tournament.fixtures.submissions.alice) cannot be loaded on 1 of 1 Dask workers"
        in proc.stderr
    )
    assert f"(in {elsewhere}): cannot import tests.tournament.fixtures.submissions.alice" in proc.stderr
    assert "No module named 'tests'" in proc.stderr and "docs/dask.md" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_worker_that_cannot_seal_agents_stops_a_sandbox_required_run_before_any_game(scheduler, tmp_path):
    from tests.sandboxing import require_sandbox

    require_sandbox()  # here, in the main process, the sandbox works: the worker is the problem
    config = write_config(tmp_path, PROJECT_ONLY + "sandbox: required\n")
    no_bwrap = tmp_path / "bin"
    no_bwrap.mkdir()
    with dask_worker(scheduler, ROOT, 1, path=str(no_bwrap)):
        proc = run(config, "-o", str(tmp_path / "out"), "--scheduler", scheduler)
    assert proc.returncode == 2, proc.stderr
    assert "sandbox required: 1 of 1 Dask workers cannot seal agents" in proc.stderr, proc.stderr
    assert "bubblewrap is not installed" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_worker_that_joins_later_checks_the_agents_before_playing(scheduler, tmp_path, monkeypatch, referee_only):
    from referee.tournament.dask_executor import DaskExecutor

    monkeypatch.chdir(ROOT)
    plan = build_lineup(load_config(write_config(tmp_path, PROJECT_ONLY))).plan
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with DaskExecutor(scheduler) as executor:
        with dask_worker(scheduler, ROOT, 1):
            assert executor.check_agents(plan) is None
        with dask_worker(scheduler, elsewhere, 1, referee_only):  # the only worker now
            finished = list(executor.run(play_match, schedule(plan)))
    # Game 0 (r1 v r2) plays there; game 1 (r1 v r3) is refused and stops the run
    # (game 2, r2 v r3, may have been on its way: refused too).  Game 3, r2 v r1, never starts.
    by_index = {f.job.index: f for f in finished}
    assert {0, 1} <= set(by_index) <= {0, 1, 2}
    assert by_index[0].record is not None and by_index[0].record.reason != "load_error"
    for index in set(by_index) - {0}:
        assert by_index[index].record is None
        assert "agent 'r3'" in by_index[index].error and "No module named 'tests'" in by_index[index].error


# -- shipping the agents to workers that do not have them -----------------------------------

SHIPPED = """\
name: shipped
agents:
  - players.alpha
  - players.beta
games_per_pair: 4
time_limit: 20
space_limit: 200
seed: 8
"""


def in_project(project: Path, referee_path: str, *args: str) -> subprocess.CompletedProcess:
    """The tournament command run in ``project`` (this checkout's referee, the project's agents)."""
    env = {**os.environ, "PYTHONPATH": referee_path}
    return subprocess.run(command(*args), cwd=project, env=env, capture_output=True, text=True, timeout=120)


def test_shipped_agents_play_on_a_worker_started_where_they_are_not(scheduler, tmp_path, referee_only):
    project = make_project(tmp_path / "project")
    config = write_config(project, SHIPPED)
    local = in_project(project, referee_only, config, "-o", "local", "--workers", "1", "-q")
    assert local.returncode == 0, local.stderr
    elsewhere = tmp_path / "elsewhere"  # no players/ here, nor on the worker's path
    elsewhere.mkdir()
    with dask_worker(scheduler, elsewhere, 1, referee_only):
        refused = in_project(project, referee_only, config, "-o", "refused", "--scheduler", scheduler)
        shipped = in_project(
            project, referee_only, config, "-o", "shipped", "--scheduler", scheduler, "--ship-agents", "-q"
        )
    # Without shipping the worker cannot import them, and the command says what to do.
    assert refused.returncode == 2, refused.stderr
    assert f"(in {elsewhere}): cannot import players.alpha" in refused.stderr and "--ship-agents" in refused.stderr
    assert not (project / "refused").exists()
    # Shipped, they play there: the same games and tables as on this machine.
    assert shipped.returncode == 0, shipped.stderr
    assert "shipped players/ (5 files, " in shipped.stderr and "to the Dask workers" in shipped.stderr
    assert f"the Dask scheduler {scheduler}: 1 worker, 1 thread" in shipped.stderr
    assert game_indices(project / "shipped") == Counter(range(4))
    same_tables(project / "shipped", project / "local")
    assert {r.reason for r in records(project / "shipped")} <= {"elimination", "turn_limit"}


def shipped_copies(address: str) -> dict[str, list[str]]:
    """Each worker's folders of shipped agents."""
    import distributed

    with distributed.Client(address, timeout=20) as client:
        # A lambda travels by value: the worker cannot import this test module.
        return client.run(lambda dask_worker: sorted(
            name for name in os.listdir(dask_worker.local_directory) if name.startswith("referee-agents-")))


def test_a_worker_that_joins_later_gets_the_shipped_agents_and_none_are_left_behind(scheduler, tmp_path, referee_only):
    from referee.tournament.dask_executor import SHIPPED_HINT, DaskExecutor

    project = make_project(tmp_path / "project", agents=("alpha", "beta", "needs_numpyish"))
    (project / "players" / "needs_numpyish" / "__init__.py").write_text("import a_package_nobody_installed\n")
    alpha, beta = AgentEntry("players.alpha", "alpha"), AgentEntry("players.beta", "beta")
    plan = TournamentPlan(name="late", agents=(alpha, beta), games_per_pair=4, seed=2)
    broken = TournamentPlan(name="broken", agents=(alpha, AgentEntry("players.needs_numpyish", "needs")))
    first_folder, second_folder = tmp_path / "first", tmp_path / "second"
    first_folder.mkdir()
    second_folder.mkdir()
    first = start_worker(scheduler, first_folder, referee_only)
    second = None
    try:
        _wait_for_workers(scheduler, 1)
        with DaskExecutor(scheduler) as executor:
            bundle = executor.ship_agents(plan, root=project)
            assert bundle.roots == ("players/",)
            # The check runs against the shipped copy: what it lacks is named, with where it looked.
            problem = executor.check_agents(broken)
            assert (
                problem is not None and "agent 'needs' (players.needs_numpyish) cannot be loaded on 1 of 1" in problem
            )
            assert "referee-agents-" in problem and "a_package_nobody_installed" in problem and SHIPPED_HINT in problem
            assert executor.check_agents(plan) is None
            second = start_worker(scheduler, second_folder, referee_only)
            _wait_for_workers(scheduler, 2)
            assert executor.check_agents(plan) is None  # on both workers
            _end(first)
            _wait_for_workers(scheduler, 1)  # only the one that joined after the shipping is left
            assert list(shipped_copies(scheduler).values()) == [[f"referee-agents-{executor._checks}"]]
            finished = list(executor.run(play_match, schedule(plan)))
        assert sorted(f.job.index for f in finished) == list(range(4))
        assert all(f.record is not None and f.record.reason in ("elimination", "turn_limit") for f in finished)
        # Closing the executor removes the copies from a cluster that outlives it.
        assert list(shipped_copies(scheduler).values()) == [[]]
    finally:
        _end(first)
        if second is not None:
            _end(second)
        _wait_for_workers(scheduler, 0)


# -- errors before any game ------------------------------------------------------------------


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path):
    config = write_config(tmp_path, TINY + f"executor: dask\nscheduler: tcp://127.0.0.1:{_free_port()}\n")
    proc = run(config, "-o", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert (
        "error: cannot reach the Dask scheduler at tcp://127.0.0.1:" in proc.stderr
        and "Connection refused" in proc.stderr
    )
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()


def test_scheduler_addresses_are_checked(tmp_path):
    config = write_config(tmp_path, TINY + "executor: dask\nscheduler: 10.0.0.1:8786\n")
    proc = run(config, "-o", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert (
        f"{config}:11: scheduler: must be local or a Dask scheduler's address such as tcp://10.0.0.1:8786, "
        "not '10.0.0.1:8786'"
        in proc.stderr
    )
    config = write_config(tmp_path, TINY + "scheduler: tcp://10.0.0.1:8786\n")
    proc = run(config, "-o", str(tmp_path / "out"))
    assert proc.returncode == 2 and f"{config}:10: scheduler: scheduler is only used by executor: dask" in proc.stderr
    config = write_config(tmp_path, TINY)
    proc = run(config, "-o", str(tmp_path / "out"), "--scheduler", "tcp://host:notaport")
    assert proc.returncode == 2 and "--scheduler: must be local or a Dask scheduler's address" in proc.stderr
    proc = run(config, "-o", str(tmp_path / "out"), "--executor", "local", "--scheduler", "local")
    assert proc.returncode == 2 and "--scheduler is only used by --executor dask" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_without_dask_the_local_executor_runs_and_dask_asks_for_the_extra(tmp_path):
    # A `distributed` that cannot be imported, first on the path: as if Dask were not installed.
    blocker = tmp_path / "no_dask" / "distributed"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError(\"No module named 'distributed'\")\n")
    env = {**os.environ, "PYTHONPATH": str(blocker.parent)}
    config = write_config(tmp_path, CACHEX.replace("games_per_pair: 2", "games_per_pair: 2\nworkers: 1"))
    proc = run(config, "-o", str(tmp_path / "local"), "-q", env=env)
    assert proc.returncode == 0, proc.stderr
    proc = run(config, "-o", str(tmp_path / "dask"), "--executor", "dask", env=env)
    assert proc.returncode == 2
    assert 'the dask executor needs Dask: pip install -e ".[cluster]"' in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "dask").exists()


def test_the_executor_fields_of_a_config():
    from referee.tournament.config import ConfigError, parse_config

    plain = parse_config(TINY, "t.yaml")
    assert (plain.executor, plain.scheduler) == ("local", "local")
    remote = parse_config(TINY + "executor: dask\nscheduler: tcp://[::1]:8786\n", "t.yaml")
    assert (remote.executor, remote.scheduler) == ("dask", "tcp://[::1]:8786")
    with pytest.raises(ConfigError, match=r"^t\.yaml:10: executor: must be one of local, dask, not 'docker'$"):
        parse_config(TINY + "executor: docker\n", "t.yaml")
    with pytest.raises(ConfigError, match=r"^t\.yaml:11: scheduler: must be local or an address, not 8786$"):
        parse_config(TINY + "executor: dask\nscheduler: 8786\n", "t.yaml")
    with pytest.raises(ConfigError, match=r"^t\.yaml:11: scheduler: must be local or a Dask scheduler's address .* not 'http://h:1'$"):
        parse_config(TINY + "executor: dask\nscheduler: http://h:1\n", "t.yaml")
    with pytest.raises(ConfigError, match=r"did you mean 'scheduler'"):
        parse_config(TINY + "executor: dask\nschedular: local\n", "t.yaml")
    assert parse_config(TINY + "executor: dask\nship_agents: true\n", "t.yaml").ship_agents is True
    assert remote.ship_agents is False
    with pytest.raises(ConfigError, match=r"^t\.yaml:10: ship_agents: ship_agents is only used by executor: dask$"):
        parse_config(TINY + "ship_agents: true\n", "t.yaml")
    with pytest.raises(ConfigError, match=r"^t\.yaml:11: ship_agents: must be true or false, not 'agents/'$"):
        parse_config(TINY + "executor: dask\nship_agents: agents/\n", "t.yaml")


def test_agents_that_cannot_be_shipped_stop_the_run_before_any_game(tmp_path, referee_only):
    config = write_config(tmp_path, TINY)
    proc = run(config, "-o", str(tmp_path / "out"), "--executor", "local", "--ship-agents")
    assert proc.returncode == 2 and "error: --ship-agents is only used by --executor dask" in proc.stderr
    # Importable here (an installed package), but not a folder of the working directory: nothing to ship.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = in_project(
        elsewhere,
        referee_only,
        config,
        "-o",
        str(tmp_path / "out"),
        "--scheduler",
        "local",
        "--workers",
        "1",
        "--ship-agents",
    )
    assert proc.returncode == 2, proc.stderr
    assert (f"error: agent 'r1' (agents.random_agent): ship_agents sends the folder of its package, but there is no "
            f"agents/ (or agents.py) in {elsewhere}; run the tournament from the folder that holds it") in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()
