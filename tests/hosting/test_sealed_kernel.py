"""Sealed II: an agent cannot step out of its sandbox through the kernel, rewrite
its own accounting, or talk to anyone.

Each test plays real games through the real command line and the real
sandbox (as test_sealed.py does, from a copy of the tree), with a hostile
agent from tests/hosting/hostile/escape/.  Every defence is also shown to be
what stops its attack: the same game with that defence left out
(``REFEREE_SANDBOX_WITHOUT``, or ``--pass-env``/``--sandbox off`` where the
defence is a default) lets the attack through, so these tests can fail.
"""
from __future__ import annotations

import ctypes
import os
import sys

import pytest

from referee.hosting.environment import PASSED
from referee.hosting.sandbox import PIDS_LIMIT, WITHOUT_ENV, probe

from .hostile.escape import BURN, FORKS, note_name, read_note
from .hostile_runs import HOSTILE, RANDOM, VICTIM, Game, clean_up, play
from tests.sandboxing import require_sandbox

ESCAPE = f"{HOSTILE}.escape"


@pytest.fixture
def sealed():
    """The tests need bwrap and cgroups (accounting, nesting)."""
    require_sandbox()


def without(*layers: str) -> dict[str, str]:
    return {WITHOUT_ENV: ",".join(layers)}


def rewrite_accounting(tree, tmp_path, seed, *layers: str) -> tuple[Game, dict]:
    game = play(
        tree, tmp_path, f"{ESCAPE}:RewritesItsAccounting", VICTIM, "-t", "1", "-s", "200",
        seed=seed, env=without(*layers),
    )
    assert game.code == 0 and game.record is not None, game.context()
    return game, game.report_with("unshare")


def assert_stopped_at_its_limits(game: Game, steps: dict) -> None:
    """The agent lost on CPU time at its first action, never had more processes than allowed."""
    record = game.record
    assert (record["winner"], record["reason"]) == ("BLUE", "time_limit"), game.context()
    assert record["time_used"]["RED"] >= 1.0, record["time_used"]
    assert steps["processes"] <= PIDS_LIMIT, steps


# -- 1. its own namespaces, its own cgroup view ------------------------------------------


def test_an_agent_cannot_make_a_namespace_to_rewrite_its_accounting(sealed, tree, tmp_path, seed):
    """unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP), then mount its cgroups, raise
    its caps and reset its CPU counter while it burns 2.5 s over a 1 s limit.  Expected: the
    namespace is refused (EPERM, the seccomp filter), and it loses on time, with at most
    64 processes."""
    game, steps = rewrite_accounting(tree, tmp_path, seed)
    assert steps["unshare"] == "OSError(EPERM)", steps
    assert game.record["sandbox"]["seccomp"] is True
    assert_stopped_at_its_limits(game, steps)


def test_without_the_defences_the_agent_rewrites_its_accounting(sealed, tree, tmp_path, seed):
    """The same agent with the filter, the unprivileged user and the nesting left out: the
    attack works (so the test above can fail).  It holds 100 processes, raises its memory
    cap to 8 GB, and burns 2.5 s of CPU recorded as almost nothing."""
    game, steps = rewrite_accounting(tree, tmp_path, seed, "seccomp", "unprivileged", "nesting")
    assert steps["unshare"] == "ok" and steps["cpu_reset"] == "ok", steps
    assert steps["processes"] == FORKS and steps["memory_cap"] == "ok", steps
    burnt = max(game.values("burnt"))
    assert burnt >= BURN, game.reports()
    assert game.record["error"]["RED"] is None, game.context()  # never stopped at its 1 s
    assert game.record["time_used"]["RED"] < 0.5 * burnt, game.record["time_used"]


def test_nesting_alone_keeps_the_accounting_out_of_the_agents_reach(sealed, tree, tmp_path, seed):
    """Filter and unprivileged user left out: the agent mounts its cgroup and writes 0 to its
    counter and max to its process cap, but those are the leaf's; the referee reads and
    limits the cgroup above it."""
    game, steps = rewrite_accounting(tree, tmp_path, seed, "seccomp", "unprivileged")
    assert steps["unshare"] == "ok" and steps["cpu_reset"] == "ok" and steps["pids_max"] == "ok", steps
    assert game.record["sandbox"]["nested"] is True
    assert_stopped_at_its_limits(game, steps)


@pytest.mark.skipif(os.geteuid() != 0, reason="agents run as an unprivileged user anyway (the referee is not root)")
def test_an_unprivileged_agent_cannot_write_the_cgroup_it_mounts(sealed, tree, tmp_path, seed):
    """Filter and nesting left out: as the unprivileged user it may make a user namespace
    and mount its cgroup, but the files belong to root."""
    game, steps = rewrite_accounting(tree, tmp_path, seed, "seccomp", "nesting")
    assert steps["cpu_reset"] != "ok" and steps.get("pids_max") != "ok", steps
    assert game.record["sandbox"]["unprivileged"] is True
    assert_stopped_at_its_limits(game, steps)


# -- 2. the kernel's keyring -----------------------------------------------------------------


def _forget_notes(seed: int, uid: int | None = None) -> None:
    """Unlink the notes of the game ``seed`` from the keyring of ``uid`` (default: ours)."""
    from referee.game import PlayerColor

    if uid is not None and os.geteuid() == 0:
        pid = os.fork()
        if pid == 0:  # the notes are in that user's keyring: become it to find them
            try:
                os.setresuid(uid, uid, uid)
                _forget_notes(seed)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    for color in PlayerColor:
        key = libc.syscall(250, 10, -4, b"user", note_name(seed, color).encode(), 0)  # KEYCTL_SEARCH in @u
        if key >= 0:
            libc.syscall(250, 9, ctypes.c_long(key), -4)  # KEYCTL_UNLINK from @u


def keyring_game(tree, tmp_path, seed, *, sealed: bool = True, env=None) -> Game:
    agent = f"{ESCAPE}:KeepsNotesInTheKeyring"
    game = play(tree, tmp_path, agent, agent, seed=seed, sealed=sealed, env=env)
    assert game.code == 0, game.context()
    return game


needs_x86_64 = pytest.mark.skipif(os.uname().machine != "x86_64", reason="the keyring agent calls x86_64's numbers")


@needs_x86_64
def test_agents_cannot_pass_notes_through_the_keyring(sealed, tree, tmp_path, seed):
    """Each colour writes a note to the user's keyring and reads the other's.  Expected:
    add_key is refused; neither reads anything; nothing is left in the keyring of the
    user who ran the referee."""
    from referee.game import PlayerColor

    game = keyring_game(tree, tmp_path, seed)
    for color in ("RED", "BLUE"):
        assert game.values("wrote", color) == ["OSError(EPERM)"], game.reports(color)
        assert game.values("read", color) and all(r == "OSError(EPERM)" for r in game.values("read", color))
    for color in PlayerColor:
        assert read_note(note_name(seed, color)).startswith("OSError"), "a note was left in our keyring"


@needs_x86_64
def test_without_the_filter_the_keyring_carries_notes_between_agents(sealed, tree, tmp_path, seed):
    """Unsealed, and sealed with the filter and the agents' own users left out (both
    agents are then the same unprivileged user, with one keyring): the notes get through."""
    from referee.hosting.sandbox import AGENT_UID

    try:
        for sealed_game, env, uid in [(False, None, None), (True, without("seccomp", "own_user"), AGENT_UID)]:
            game = keyring_game(tree, tmp_path, seed, sealed=sealed_game, env=env)
            assert game.values("wrote", "RED") == ["ok"], game.reports("RED")
            assert "note from RED" in game.values("read", "BLUE"), game.reports("BLUE")
            _forget_notes(seed, uid)
    finally:
        _forget_notes(seed)
        _forget_notes(seed, AGENT_UID)


# -- 3. the referee's environment -----------------------------------------------------------

SECRET = "REFEREE_TEST_SECRET"


def environment_game(tree, tmp_path, seed, *options, sealed: bool = True) -> tuple[Game, str]:
    value = f"s3cret-{seed}"
    game = play(
        tree, tmp_path, f"{ESCAPE}:ReadsTheEnvironment", RANDOM, *options, seed=seed, sealed=sealed,
        env={SECRET: value},
    )
    assert game.code == 0 and game.record["error"]["RED"] is not None, game.context()
    return game, value


@pytest.mark.parametrize("sealed_game", [True, False], ids=["sealed", "unsealed"])
def test_an_agent_gets_only_the_documented_environment(tree, tmp_path, seed, sealed_game):
    """The agent reports the names it got and raises with its whole environment in the
    message.  Expected: only the documented variables (and the test's marker, passed on
    by name), and no secret of the referee's in the record or on the console."""
    if sealed_game:
        require_sandbox()
    game, secret = environment_game(tree, tmp_path, seed, sealed=sealed_game)
    names = set(game.report_with("environment")["environment"])
    allowed = set(PASSED) | {"PATH", "HOME", "PYTHONHASHSEED", "PYTHONUNBUFFERED", "PWD", "REFEREE_TEST_PIDS"}
    assert names <= allowed, names - allowed
    assert SECRET not in names
    shown = game.out + game.err + repr(game.record)
    assert secret not in shown


def test_a_variable_named_with_pass_env_reaches_the_agent(tree, tmp_path, seed):
    """``--pass-env NAME`` passes that one on (and shows the check above can fail)."""
    require_sandbox()
    game, secret = environment_game(tree, tmp_path, seed, "--pass-env", SECRET)
    assert SECRET in game.report_with("environment")["environment"]
    assert secret in game.record["error"]["RED"]["message"]


def test_pass_env_takes_only_variable_names(tree, tmp_path, seed):
    game = play(tree, tmp_path, RANDOM, RANDOM, "--pass-env", "A=B", seed=seed, sealed=False)
    assert game.code == 2 and game.record is None
    assert "--pass-env" in game.err and "'A=B' is not the name of an environment variable" in game.err
    assert "Traceback" not in game.err


# -- 4. the host's own imports ----------------------------------------------------------------

SHADOWING_AGENT = """\
from referee.game import PlayerColor


class Agent:
    def __init__(self, color, **referee):
        pass
"""


@pytest.mark.parametrize("name", ["json", "sitecustomize", "site"])
def test_an_agent_named_after_a_module_python_imports_is_refused_clearly(tmp_path, name):
    """A package named like a module of Python's (the host imports json; site and
    sitecustomize run at start-up) is refused before any game, saying why."""
    from tests.helpers import ROOT, run_referee

    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text(SHADOWING_AGENT)
    proc = run_referee(name, RANDOM, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2, proc.stderr
    assert f"the agent's top-level package is named {name!r}" in proc.stderr and "rename its folder" in proc.stderr
    assert "Traceback" not in proc.stderr


POISONED_JSON = "raise RuntimeError('the json module of the agent folder was imported')\n"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="the referee itself needs python -P here")
@pytest.mark.parametrize("sealed_game", [True, False], ids=["sealed", "unsealed"])
def test_the_agent_host_imports_nothing_from_the_agents_folder(tmp_path, sealed_game):
    """A json.py and a sitecustomize.py that raise, lying in the folder the referee runs from
    (and the agents are imported from): plain Python there imports them (the test's
    witness), the agent host never does, and the game is played."""
    import json
    import shutil
    import subprocess

    from tests.helpers import ROOT

    if sealed_game:
        require_sandbox()
    shutil.copytree(ROOT / "agents", tmp_path / "agents", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "json.py").write_text(POISONED_JSON)
    (tmp_path / "sitecustomize.py").write_text(POISONED_JSON.replace("json", "sitecustomize"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    witness = subprocess.run(
        [sys.executable, "-c", "import json"], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60
    )
    assert "the json module of the agent folder was imported" in witness.stderr
    mode = "required" if sealed_game else "off"
    # -P: the referee itself does not import from its working directory (it would import json.py
    # first); its agents' hosts start there, and must not either.
    proc = subprocess.run(
        [sys.executable, "-P", "-m", "referee", "--sandbox", mode, "--record", "r.json", "-v", "0", RANDOM, RANDOM],
        cwd=tmp_path, capture_output=True, text=True, timeout=90, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["error"] == {"RED": None, "BLUE": None}, record["error"]


# -- 5. nothing left to reap ------------------------------------------------------------------

#: Runs a command as a subreaper (orphans of its descendants come to it) and
#: prints, once the command has ended, which of them it then holds.
ADOPTER = """\
import ctypes, json, os, subprocess, sys
assert ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
held = []
for task in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{task}/children") as f:
        held += [int(pid) for pid in f.read().split()]
names = []
for pid in held:
    with open(f"/proc/{pid}/stat") as f:
        names.append(f.read().split(" ")[1])
    os.waitpid(pid, 0)
print(json.dumps({"code": code, "orphans": names}))
"""


@pytest.mark.parametrize("command", ["game", "tournament"])
def test_the_referee_reaps_every_process_it_started(sealed, tmp_path, command):
    """Run as the child of a subreaper, the referee leaves it nothing: without the referee
    reaping the sandboxes' init processes itself, each sealed agent left one behind."""
    import json
    import subprocess

    from tests.helpers import ROOT

    if command == "game":
        args = ["-m", "referee", "-v", "0", "--sandbox", "required", RANDOM, RANDOM]
    else:
        config = tmp_path / "t.yaml"
        config.write_text(
            "name: reap\ngame: infexion\nagents:\n  - {name: a, spec: agents.random_agent}\n"
            f"  - {{name: b, spec: agents.random_agent}}\ngames_per_pair: 2\nworkers: 2\nsandbox: required\n"
            f"output: {tmp_path / 'out'}\n"
        )
        args = ["-m", "referee", "tournament", str(config), "-q"]
    proc = subprocess.run(
        [sys.executable, "-c", ADOPTER, sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result == {"code": 0, "orphans": []}, (result, proc.stderr[-2000:])


# -- 6. a fair share of the machine ----------------------------------------------------------


def test_every_process_of_an_agent_shares_one_cpu_weight_of_its_own(sealed):
    """Each agent's cgroup is one entity to the scheduler: its helpers, in sessions of their
    own, sit in the agent's `cpu` cgroup (v1) or its cgroup with `cpu` enabled (v2), never in
    the machine's.  An agent that keeps every core busy with 60 such helpers then takes no
    more of the machine than one thread would (python -m benchmarks.noisy_neighbour: an
    honest agent of the game beside it lost on the watchdog before, ~1.2 wall s per CPU s
    after)."""
    from referee.hosting.process import HostedAgent
    from referee.hosting.sandbox import resolve
    from referee.limits import Limits

    from .hostile.spin import Spins  # noqa: F401  (imported by the agent's process)

    sandbox = resolve("required")
    agents = [
        HostedAgent(color, f"{HOSTILE}.spin", "Spins", "infexion", {}, Limits(), sandbox=sandbox)
        for color in ("RED", "BLUE")
    ]
    try:
        for agent in agents:
            agent.start()
            agent.wait_ready()
            kwargs = {"seed": 7, "spinners": 3, "spin_seconds": 0.05, "spin_mode": "sessions", "spin_keep": True}
            agent.call({"op": "init", "module": agent.module, "class": agent.class_name, "color": agent.color,
                        "kwargs": kwargs})
            agent.call({"op": "action", "kwargs": kwargs})
        groups = []
        for agent in agents:
            pids = agent.cgroup.pids()
            assert len(pids) >= 1 + 3, pids  # the interpreter (and bwrap) and the three helpers
            lines = {}
            for pid in pids:
                for line in open(f"/proc/{pid}/cgroup").read().splitlines():
                    _, controllers, path = line.split(":", 2)
                    if "cpu" in controllers.split(",") or (controllers == "" and sandbox.accounting == "cgroup-v2"):
                        lines[pid] = path
            paths = set(lines.values())
            assert len(lines) == len(pids) and len(paths) == 1, lines
            (path,) = paths
            assert agent.cgroup.tag in path, (path, agent.cgroup.tag)
            groups.append(path)
        assert groups[0] != groups[1]
    finally:
        for agent in agents:
            agent.close()


# -- 7. files the unprivileged agent cannot read ---------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="agents run as the referee's own user when it is not root")
def test_an_agent_whose_files_only_root_can_read_is_told_how_to_fix_them(sealed, tmp_path):
    """Sealed agents run as an unprivileged user; a module of mode 0600 cannot be imported, and the
    load error says why and what to do."""
    import json

    from tests.helpers import ROOT, run_referee

    agent = tmp_path / "private_agent"
    agent.mkdir()
    (agent / "__init__.py").write_text("from .program import Agent\n")
    (agent / "program.py").write_text("from agents.random_agent import Agent\n")
    (agent / "program.py").chmod(0o600)
    proc = run_referee(
        "-v", "0", "--sandbox", "required", "--record", "r.json", "private_agent", RANDOM,
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads((tmp_path / "r.json").read_text())
    assert (record["winner"], record["reason"]) == ("BLUE", "load_error"), record["message"]
    message = record["error"]["RED"]["message"]
    assert "PermissionError" in message and "chmod -R a+rX" in message and "program.py" in message, message


def _favoured() -> None:
    """In the honest game's referee (a session of its own): its autogroup first in the CPU, so that
    only its agent (in a session of its own, too) is starved when the spinner has no share."""
    with open("/proc/self/autogroup", "w") as f:
        f.write("-20")


def honest_game(tree, tmp_path, seed, env: dict[str, str]) -> Game:
    import json
    import subprocess

    from .hostile_runs import tree_env
    from .runs import assert_nothing_left

    record, marker = tmp_path / "honest.json", str(tmp_path / "pids.txt")
    proc = subprocess.run(
        [sys.executable, "-m", "referee", "-v", "3", "--sandbox", "required", "-t", "3", "--grace", "0.5",
         "--seed", str(seed), "--record", str(record), f"{HOSTILE}.spin:ComputesLongCalls", RANDOM],
        cwd=tree, env={**os.environ, **tree_env(tree), **env, "REFEREE_TEST_PIDS": marker}, capture_output=True,
        text=True, timeout=120, start_new_session=True, preexec_fn=_favoured,
    )
    assert_nothing_left(marker)
    return Game(proc.returncode, json.loads(record.read_text()) if record.exists() else None, proc.stdout, proc.stderr)


def game_beside_a_spinner(tree, tmp_path, seed, env: dict[str, str]) -> Game:
    """An honest agent's game (1 s of CPU in each of its first 2 moves, -t 3 --grace 0.5) played
    while another game's agent keeps 60 helpers, each in a session of its own, busy in its calls."""
    import signal
    import subprocess

    from tests.helpers import wait_until

    from .hostile.common import helper_name
    from .hostile_runs import processes_named, tree_env

    spinner_seed = seed + 1
    # Both games on one CPU (the referees and their agents inherit it): the spinner then starves
    # only this test's honest agent, not the tests running beside it on the other cores.
    mine = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {max(mine)})
    spinner = subprocess.Popen(
        [sys.executable, "-m", "referee", "-v", "0", "--sandbox", "required", "-t", "120", "--seed",
         str(spinner_seed), f"{HOSTILE}.spin:SpinsAndKeeps", RANDOM],
        cwd=tree, env={**os.environ, **tree_env(tree), **env}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True,
    )
    try:
        helpers = helper_name(spinner_seed)
        wait_until(lambda: len(processes_named(helpers)) >= 30, 60, "the spinner to start its helpers")
        return honest_game(tree, tmp_path, seed, env)
    finally:
        os.sched_setaffinity(0, mine)
        spinner.send_signal(signal.SIGINT)
        spinner.communicate(timeout=60)
        clean_up(spinner_seed)


@pytest.mark.parametrize("shared", [True, False], ids=["own-share", "without-cpu-share"])
def test_an_agent_busy_on_every_core_does_not_make_the_game_beside_it_lose_on_time(
    sealed, tree, tmp_path, seed, shared
):
    """Both games on one CPU.  With a CPU share per agent the honest agent gets half of it and
    finishes; without (cgroup v1 ``cpu_share`` left out) it gets ~1/60, waits ~60 s per CPU
    second, six times what the watchdog forgives, and loses its first call on wall time (a call
    may last its remaining CPU + grace + 10 s per CPU second it used: 3 + 0.5 + 10 s for 1 s)."""
    if probe().cgroup != "cgroup-v1" and not shared:
        pytest.skip("the CPU share can be left out only under cgroup v1")
    game = game_beside_a_spinner(tree, tmp_path, seed, {} if shared else without("cpu_share"))
    assert game.code == 0 and game.record is not None, game.context()
    assert game.record["sandbox"]["cpu_share"] is shared
    if shared:
        assert game.record["error"]["RED"] is None, game.context()
    else:
        assert (game.record["winner"], game.record["reason"]) == ("BLUE", "time_limit"), game.context()
        assert "watchdog" in game.record["error"]["RED"]["message"]
