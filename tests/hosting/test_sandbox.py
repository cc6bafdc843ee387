"""The sandbox's modes, its fallbacks and what it shows an agent, through the real CLI.

The hostile agents (tests/hosting/hostile, test_sealed.py) attack it; these
tests check the modes themselves: what ``required`` refuses, what ``auto``
falls back to, what each records, and what part of the tree an agent sees.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.games import game_names, registrations
from referee.hosting.mounts import AGENT_SIDE, REFEREE_ROOT, _module_paths, bwrap_command, course_surfaces
from referee.hosting.sandbox import CGROUP_ENV
from tests.helpers import ROOT, wait_until
from tests.hosting.runs import FIX, RANDOM, assert_nothing_left, game, processes_of, pythons_of
from tests.sandboxing import require_sandbox


def no_bwrap_path(tmp_path: Path) -> str:
    """A PATH on which there is no bwrap (the sh the cgroup step uses is called by its full path)."""
    empty = tmp_path / "bin"
    empty.mkdir()
    return str(empty)


def test_required_without_bubblewrap_refuses_before_any_agent_starts(tmp_path):
    proc, record = game(tmp_path, "--sandbox", "required", RANDOM, RANDOM, env={"PATH": no_bwrap_path(tmp_path)})
    assert proc.returncode == 2, proc.stderr
    assert "sandbox required" in proc.stderr and "bubblewrap is not installed" in proc.stderr
    assert "Traceback" not in proc.stderr and record is None


def test_auto_without_bubblewrap_plays_and_warns_that_the_agents_are_not_sealed(tmp_path):
    proc, record = game(tmp_path, RANDOM, RANDOM, env={"PATH": no_bwrap_path(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert record["sandbox"]["namespaces"] is False
    assert "WARNING" in proc.stderr and ("NO namespaces" in proc.stderr or "UNSEALED" in proc.stderr)


def test_off_records_an_unsealed_game_and_says_so(tmp_path):
    proc, record = game(tmp_path, "--sandbox", "off", RANDOM, RANDOM)
    assert proc.returncode == 0, proc.stderr
    assert record["sandbox"] == {
        "namespaces": False, "accounting": "process", "frozen": False,
        "seccomp": False, "unprivileged": False, "own_user": False, "nested": False, "cpu_share": False,
    }
    assert "WARNING: UNSEALED" in proc.stderr


def test_sealed_game_records_namespaces_cgroup_and_freezing(tmp_path):
    require_sandbox()
    proc, record = game(tmp_path, "--sandbox", "required", RANDOM, RANDOM)
    assert proc.returncode == 0, proc.stderr
    assert record["sandbox"]["namespaces"] is True and record["sandbox"]["frozen"] is True
    assert record["sandbox"]["accounting"] in ("cgroup-v1", "cgroup-v2")
    assert record["sandbox"]["seccomp"] is True and record["sandbox"]["unprivileged"] is True
    assert record["sandbox"]["nested"] is True and record["sandbox"]["cpu_share"] is True
    assert record["sandbox"]["own_user"] is (os.geteuid() == 0)
    assert "WARNING" not in proc.stderr and "weaker" not in proc.stderr


def test_without_a_cgroup_the_namespace_still_counts_a_detached_child_cpu(tmp_path):
    # Process accounting: every process of the agent descends from bwrap, so
    # the CPU a child burns counts, and the agent is stopped at its limit.
    require_sandbox(cgroup=False)
    proc, record = game(
        tmp_path, "--sandbox", "required", "-t", "1", f"{FIX}:ChildBurnsCpu", RANDOM, env={CGROUP_ENV: "0"}
    )
    assert proc.returncode == 0, proc.stderr
    assert record["sandbox"] == {
        "namespaces": True, "accounting": "process", "frozen": True,
        "seccomp": True, "unprivileged": True, "own_user": os.geteuid() == 0, "nested": False, "cpu_share": False,
    }
    # The console says which guarantee is weaker than in a fully sealed game.
    assert "sealed, but weaker: no cgroup" in proc.stderr
    assert (record["winner"], record["reason"]) == ("BLUE", "time_limit"), record["message"]
    assert record["time_used"]["RED"] >= 1.0


def test_without_a_cgroup_misbehaving_agents_still_get_their_verdicts(tmp_path):
    require_sandbox(cgroup=False)
    for fault, reason in [("Segfault", "agent_crashed"), ("OsExit", "agent_crashed"), ("RaiseInTurn", "agent_error")]:
        proc, record = game(tmp_path, "--sandbox", "required", f"{FIX}:{fault}", RANDOM, env={CGROUP_ENV: "0"})
        assert proc.returncode == 0, proc.stderr
        assert (record["winner"], record["reason"]) == ("BLUE", reason), record["message"]


def test_a_course_style_agent_plays_unchanged_when_sealed(tmp_path):
    require_sandbox()
    proc, record = game(
        tmp_path, "--sandbox", "required", "-t", "60", "-s", "200", "tests/hosting/fixture_agents/course_style", RANDOM
    )
    assert proc.returncode == 0, proc.stderr
    assert record["error"] == {"RED": None, "BLUE": None} and record["winner"] == "RED", record["message"]


# -- what an agent is shown of the tree ----------------------------------------------


def make_tree(root: Path, files: list[str]) -> None:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")


def test_an_agent_package_is_shown_with_the_init_files_above_it_only(tmp_path):
    make_tree(tmp_path, ["agents/__init__.py", "agents/alice/__init__.py", "agents/alice/program.py",
                         "agents/bob/__init__.py", "agents/bob/program.py"])
    assert _module_paths(tmp_path, "agents.alice") == [tmp_path / "agents/__init__.py", tmp_path / "agents/alice"]


def test_a_module_inside_a_package_shows_its_package(tmp_path):
    make_tree(tmp_path, ["subs/__init__.py", "subs/alice/__init__.py", "subs/alice/program.py", "subs/bob/x.py"])
    assert _module_paths(tmp_path, "subs.alice.program") == [
        tmp_path / "subs/__init__.py", tmp_path / "subs/alice/__init__.py", tmp_path / "subs/alice"
    ]


def test_a_top_level_module_file_is_shown_alone_and_a_missing_one_not_at_all(tmp_path):
    make_tree(tmp_path, ["lone.py", "other.py"])
    assert _module_paths(tmp_path, "lone") == [tmp_path / "lone.py"]
    assert _module_paths(tmp_path, "nothing.here") == []


def shown_to(tmp_path: Path, extra_modules: list[str]) -> list[str]:
    """The folders and files a sealed ``agents.random_agent`` is shown (read-only views)."""
    args = bwrap_command("bwrap", ["true"], tmp_path, "agents.random_agent", extra_modules)
    return [args[i + 2] for i, arg in enumerate(args) if arg == "--ro-bind"]


def test_the_sandbox_names_no_game_the_registrations_name_the_course_surfaces(tmp_path):
    # AGENT_SIDE holds the agent-side code of every game; a game's course
    # packages (2022's referee.board, referee.cachex...) come from its registration.
    surfaces = [m for r in registrations() for m in r.agent_surfaces]
    assert {"referee.board", "referee.cachex", "referee.infinitron"} <= set(surfaces)
    # The sandbox reads them from the registrations' source (importing them would load every engine): the same.
    assert course_surfaces() == tuple(dict.fromkeys(surfaces))
    named = {part.split("/")[0].removesuffix(".py") for part in AGENT_SIDE}
    assert not named & {*game_names(), "board", "cachex", "infinitron"}
    # Every sealed agent is shown all of them, whichever game it plays...
    shown = shown_to(tmp_path, [])
    for part in ("board.py", "cachex", "infinitron", "game"):
        assert str(REFEREE_ROOT / part) in shown
    # ...and never the referee's package whole (a module of it is shown alone).
    assert str(REFEREE_ROOT) not in shown
    assert str(REFEREE_ROOT / "match.py") not in shown


def test_a_plugin_registrations_surfaces_are_shown_to_its_agents_only_what_they_name(tmp_path):
    shown = shown_to(tmp_path, ["referee.limits", "referee.games.cachex.engine"])
    assert str(REFEREE_ROOT / "limits.py") in shown and str(REFEREE_ROOT) not in shown
    assert str(REFEREE_ROOT / "games" / "cachex") in shown
    assert str(REFEREE_ROOT / "limits.py") not in shown_to(tmp_path, [])


@pytest.mark.parametrize("mode", ["bogus", "yes"])
def test_a_bad_mode_is_a_usage_error(tmp_path, mode):
    proc, record = game(tmp_path, "--sandbox", mode, RANDOM, RANDOM)
    assert proc.returncode == 2 and "--sandbox" in proc.stderr and record is None


def frozen(pid: int) -> bool:
    """Whether ``pid`` is in a frozen cgroup (v1 ``freezer.state``, or v2 ``cgroup.events``)."""
    try:
        with open(f"/proc/{pid}/cgroup") as f:
            lines = [line.rstrip("\n").split(":", 2) for line in f]
        for _, controllers, path in lines:
            if controllers == "freezer":
                with open(f"/sys/fs/cgroup/freezer{path}/freezer.state") as f:
                    return f.read().strip() == "FROZEN"
        for _, controllers, path in lines:
            if controllers == "":
                for base in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
                    try:
                        with open(f"{base}{path}/cgroup.events") as f:
                            return "frozen 1" in f.read().split("\n")
                    except FileNotFoundError:
                        continue
    except OSError:
        pass
    return False


def test_agents_left_frozen_by_a_killed_referee_are_finished_by_the_next_one(tmp_path):
    # SIGKILL of the referee while Blue waits frozen: a frozen process cannot
    # take the SIGKILL its dying sandbox sends until it is thawed, so it stays.
    # The next referee on the machine finds the dead referee's cgroups and ends them.
    require_sandbox()
    import signal

    marker = str(tmp_path / "marker")
    env = {**os.environ, "REFEREE_TEST_PIDS": marker}
    referee = subprocess.Popen(
        [sys.executable, "-m", "referee", "-v", "0", "--sandbox", "required", "-t", "60", f"{FIX}:CpuLoop", RANDOM],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        # Both agents started (each: bwrap, its init, the interpreter), then
        # Red is in its first action() (running, not frozen) and Blue frozen.
        wait_until(lambda: len(processes_of(marker)) >= 6, 30, "both sealed agents to start")
        wait_until(
            lambda: sorted(frozen(pid) for pid in pythons_of(marker) if pid != referee.pid) == [False, True],
            30, "Red to run its first action() while Blue is frozen",
        )
    finally:
        referee.send_signal(signal.SIGKILL)
        referee.wait()
    # (Blue is still there now, frozen; not asserted, as any other referee
    # starting on this machine meanwhile would already have finished it.)
    proc, record = game(tmp_path, "--sandbox", "required", RANDOM, RANDOM)
    assert proc.returncode == 0, proc.stderr
    assert_nothing_left(marker)


def test_a_sealed_agent_holds_no_descriptor_but_its_pipes(tmp_path):
    require_sandbox()
    proc, record = game(tmp_path, "--sandbox", "required", "-v", "3", f"{FIX}:ListsItsFds", RANDOM)
    assert proc.returncode == 0, proc.stderr
    line = next(out for out in proc.stdout.splitlines() if "RED | fds:" in out)
    held = dict(item.split("=", 1) for item in line.split("fds:", 1)[1].split())
    # stdin is /dev/null; stdout and stderr share the output pipe; three more
    # pipes (requests, replies, the stack the referee asks for before a verdict);
    # the one listdir had open is gone by the time it is looked at ("?").
    # Nothing else: no file, no socket, no pipe of the referee's.
    others = {fd: target for fd, target in held.items() if not target.startswith(("pipe:", "/dev/null", "?"))}
    assert others == {}, held
    assert sum(target.startswith("pipe:") for target in held.values()) == 5, held
