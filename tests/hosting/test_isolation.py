"""One test per misbehaviour: real referee command, real agent processes.

Each runs ``python -m referee`` in a subprocess and checks the verdict and its
reason in the record, that the referee exited normally, and that no process
of the game is left behind.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.hosting.process import OUTPUT_LIMIT_ENV
from referee.hosting.sandbox import probe
from tests.helpers import ROOT, run_referee, wait_until
from tests.hosting import runs
from tests.hosting.runs import FIX, RANDOM, alive, assert_nothing_left, processes_of, pythons_of
from tests.sandboxing import require_sandbox


def sleeping(pid: int) -> bool:
    """Whether ``pid`` waits in ``time.sleep`` (the kernel's nanosleep), not on a pipe or a lock."""
    try:
        with open(f"/proc/{pid}/wchan") as f:
            return "nanosleep" in f.read()
    except OSError:
        return False


def test_the_leftover_check_sees_a_detached_process_with_the_marker(tmp_path):
    marker = str(tmp_path / "marker")
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env=dict(os.environ, REFEREE_TEST_PIDS=marker), start_new_session=True,
    )
    try:
        # A loaded machine may take a moment to show the new process.
        wait_until(lambda: processes_of(marker) == [child.pid], 5, "the detached child to be found by its marker")
        with pytest.raises(AssertionError, match="left behind"):
            assert_nothing_left(marker)
    finally:
        child.kill()
        child.wait()
    assert processes_of(marker) == []


#: How the games of this module seal their agents; every test runs in both.
SANDBOX = ["--sandbox", "off"]


@pytest.fixture(autouse=True, params=["off", "sealed"])
def sandbox_mode(request, monkeypatch):
    """Each misbehaviour is tried with agents unsealed and in the real sandbox."""
    if request.param == "sealed":
        require_sandbox()
    sandbox = ["--sandbox", "off" if request.param == "off" else "required"]
    monkeypatch.setattr(sys.modules[__name__], "SANDBOX", sandbox)
    return request.param


def referee(
    tmp_path: Path, red: str, blue: str, *options: str, **where: Any
) -> tuple[int, dict | None, str, str, list[int]]:
    """:func:`tests.hosting.runs.referee` with this module's sandbox setting (``sandbox_mode``'s)."""
    return runs.referee(tmp_path, red, blue, *SANDBOX, *options, **where)


def assert_verdict(result, winner, reason, fragment=None):
    code, record, out, err, pids = result
    assert code == 0, f"referee exited {code}\n{out}\n{err}"
    assert record is not None, err
    assert (record["winner"], record["reason"]) == (winner, reason), record["message"]
    assert out.rstrip().splitlines()[-1].startswith("* referee @ result: ")
    if fragment:
        loser = "BLUE" if winner == "RED" else "RED"
        assert fragment in record["error"][loser]["message"], record["error"][loser]
    left = [p for p in pids if alive(p)]
    assert not left, f"processes left behind: {left}"
    return record


@pytest.mark.parametrize(
    "fault, reason, fragment",
    [
        ("RaiseInInit", "load_error", "RuntimeError: cannot start"),
        ("RaiseInAction", "agent_error", "ZeroDivisionError"),
        ("RaiseInTurn", "agent_error", "ValueError: turn went wrong"),
        ("ReturnNone", "illegal_action", "returned NoneType None, not an Infexion action object"),
        ("ReturnTuple", "illegal_action", "returned tuple"),
        ("ReturnString", "illegal_action", "returned str"),
        ("ReturnWrongType", "illegal_action", "returned SpreadAction"),
        ("IllegalAction", "illegal_action", "SPREAD(6, 6, 0, 1)"),
        ("OsExit", "agent_crashed", "exited with status 3"),
        ("Segfault", "agent_crashed", "SIGSEGV"),
        ("RaisesSystemExit", "agent_error", "SystemExit"),
        ("RaisesKeyboardInterrupt", "agent_error", "KeyboardInterrupt"),
        ("WritesEverywhere", "protocol_error", "malformed reply"),
        ("BigAllocation", "space_limit", "MemoryError"),
    ],
)
def test_fault_as_red_loses_to_blue(tmp_path, fault, reason, fragment):
    assert_verdict(referee(tmp_path, f"{FIX}:{fault}", RANDOM), "BLUE", reason, fragment)


def test_fault_as_blue_loses_to_red(tmp_path):
    record = assert_verdict(referee(tmp_path, RANDOM, f"{FIX}:RaiseInTurn"), "RED", "agent_error", "turn went wrong")
    assert "Traceback" in record["error"]["BLUE"]["traceback"]


def test_cpu_loop_is_stopped_when_its_time_runs_out(tmp_path):
    record = assert_verdict(
        referee(tmp_path, f"{FIX}:CpuLoop", RANDOM, "-t", "1"), "BLUE", "time_limit", "over its limit of 1 s"
    )
    # Stopped by the CPU check, pre-emptively: not by the wall-clock watchdog
    # (whose message differs) nor the kernel's backstop at 2 x (limit + grace), 12 s.
    assert "wall-clock" not in record["error"]["RED"]["message"]
    assert 1.0 <= record["time_used"]["RED"] < 2.0


def test_the_kernels_cpu_backstop_leaves_room_for_its_tick_sampled_clock(tmp_path):
    # The kernel counts RLIMIT_CPU in timer ticks, which on a busy machine ran
    # 5-13 % ahead of the exact CPU time the referee counts: at budget + grace
    # it killed honest agents before their budget was spent.  Documented:
    # twice the budget plus grace, soft and hard alike.
    record = assert_verdict(
        referee(tmp_path, f"{FIX}:ReportsItsCpuLimit", RANDOM, "-t", "10", "--grace", "2"), "BLUE", "agent_error"
    )
    assert "RLIMIT_CPU (24, 24)" in record["error"]["RED"]["message"]


def test_cpu_burnt_by_a_child_process_counts(tmp_path):
    record = assert_verdict(referee(tmp_path, f"{FIX}:ChildBurnsCpu", RANDOM, "-t", "1"), "BLUE", "time_limit")
    assert record["time_used"]["RED"] >= 1.0


def test_sleeping_agent_is_stopped_by_the_watchdog(tmp_path):
    # The agent sleeps for 600 s; the game ends, so the watchdog stopped it.
    record = assert_verdict(
        referee(tmp_path, f"{FIX}:Sleeps", RANDOM, "-t", "1", "--grace", "0.5"), "BLUE", "time_limit", "wall-clock"
    )
    assert record["time_used"]["RED"] < 1.0  # asleep, not burning CPU


def busy_cpu_game(tmp_path, red: str, *options: str):
    """One game with three busy loops sharing one CPU with the referee and its agents."""
    cpu = max(os.sched_getaffinity(0))
    mine = os.sched_getaffinity(0)
    # Each loop in a session of its own, as the agent is: with autogroups the
    # kernel shares a CPU between sessions first.
    hogs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True,
                         preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        for _ in range(3)
    ]
    os.sched_setaffinity(0, {cpu})  # the referee and its agents inherit it
    try:
        return referee(tmp_path, red, RANDOM, *options)
    finally:
        os.sched_setaffinity(0, mine)
        for hog in hogs:
            hog.kill()
            hog.wait()


def test_watchdog_does_not_blame_an_agent_for_a_busy_machine(tmp_path):
    # RED needs 1.2 s of CPU for its first action, with 2 s of CPU left and a
    # 0.5 s grace: a 2.5 s wall-clock budget.  Three busy loops share its one
    # CPU, so the action takes ~5 s of wall-clock time; the time it spent
    # waiting for the CPU is the machine's, so the watchdog lets it finish.
    result = busy_cpu_game(tmp_path, f"{FIX}:SlowOnABusyMachine", "-t", "2", "--grace", "0.5")
    record = assert_verdict(result, "BLUE", "agent_error", "first action took")
    wall = float(record["error"]["RED"]["message"].split("took ")[1].split(" s")[0])
    assert wall > 2.5  # past what the wall-clock budget alone allowed
    assert record["time_used"]["RED"] < 2.0


def test_an_agent_that_starves_itself_buys_no_wall_clock_time(tmp_path, sandbox_mode):
    # At the lowest priority it can set, the agent gets ~1/70 of the busy CPU:
    # were every second it waits forgiven, its 2.5 s budget would last minutes
    # (past this test's 60 s); forgiven 10 s per CPU second, it ends in ~3 s.
    # Sealed, its cgroup is one entity to the scheduler (a CPU share of its
    # own, which its priority cannot lower): it cannot starve itself, and
    # runs into its CPU limit instead.
    sealed_share = sandbox_mode == "sealed" and probe().cgroup
    limit = "1" if sealed_share else "2"  # sealed, it runs until it has used all of it: less is quicker
    result = busy_cpu_game(tmp_path, f"{FIX}:StarvesItself", "-t", limit, "--grace", "0.5")
    if sealed_share:
        assert_verdict(result, "BLUE", "time_limit", "over its limit of 1 s")
    else:
        record = assert_verdict(result, "BLUE", "time_limit", "wall-clock")
        assert record["time_used"]["RED"] < 1.0


def test_call_timeout_caps_a_call_without_a_time_limit(tmp_path):
    assert_verdict(referee(tmp_path, f"{FIX}:Sleeps", RANDOM, "--call-timeout", "1"), "BLUE", "time_limit", "watchdog")


def test_memory_growing_past_the_limit_is_stopped(tmp_path):
    record = assert_verdict(
        referee(tmp_path, f"{FIX}:MemoryHog", RANDOM, "-s", "100"), "BLUE", "space_limit", "over its limit of 100 MB"
    )
    # Stopped soon after crossing the limit, not after eating the machine.
    assert 100 < record["peak_memory_mb"]["RED"] < 400


def test_import_error_is_a_load_error(tmp_path):
    assert_verdict(
        referee(tmp_path, "tests.hosting.fixture_agents.broken_import", RANDOM),
        "BLUE",
        "load_error",
        "No module named 'a_module_that_does_not_exist'",
    )


def test_missing_class_is_a_load_error(tmp_path):
    assert_verdict(referee(tmp_path, RANDOM, f"{FIX}:NoSuchAgent"), "RED", "load_error", "has no class NoSuchAgent")


def test_when_neither_agent_loads_the_game_is_drawn_with_both_errors(tmp_path):
    code, record, out, err, pids = referee(tmp_path, "tests.hosting.fixture_agents.broken_import", f"{FIX}:NoSuchAgent")
    assert code == 0, err
    assert (record["winner"], record["reason"]) == (None, "load_error")
    assert "a_module_that_does_not_exist" in record["error"]["RED"]["message"]
    assert "has no class NoSuchAgent" in record["error"]["BLUE"]["message"]
    assert out.rstrip().splitlines()[-1] == "* referee @ result: draw (load_error)"


def test_a_spec_that_names_no_module_is_refused_before_any_agent_starts(tmp_path):
    # A typo, not an agent that failed: nothing is played or recorded (a module
    # that is there but cannot be imported is the load_error above).
    code, record, out, err, pids = referee(tmp_path, "agents.no_such_agent", RANDOM)
    assert code == 2 and record is None, (code, out, err)
    assert "'agents.no_such_agent' names no agent: agents/ has no sub-folder no_such_agent/" in err


def test_agent_output_is_captured_not_mixed_into_the_game(tmp_path):
    # -v 1 (commentary only) and -v 0 keep it out.
    code, record, out, err, pids = referee(tmp_path, f"{FIX}:PrintsALot", RANDOM)
    assert code == 0 and record["reason"] in ("elimination", "turn_limit", "no_tokens")
    assert "thinking out loud" not in out and "thinking out loud" not in err
    # The default (-v 2) shows it, students debug with print; -v 3 too.  Every
    # line is the agent's colour and a bar, never bare among the referee's lines.
    for verbosity in ("2", "3"):
        code, record, out, err, pids = referee(tmp_path, f"{FIX}:PrintsALot", RANDOM, "-v", verbosity)
        assert "RED | thinking out loud on stdout" in out and "RED | and on stderr" in out
        assert all(line.startswith("  RED | ") for line in out.splitlines() if "thinking out loud" in line)
        assert "BLUE | " not in out  # the random agent prints nothing


def test_what_an_agent_printed_before_it_failed_is_shown(tmp_path):
    # The failing call's output, not only that of the calls that returned.
    code, record, out, err, pids = referee(tmp_path, f"{FIX}:RaiseInInit", RANDOM, "-v", "2")
    assert record["reason"] == "load_error" and "RED | pid noted:" in out, out
    code, record, out, err, pids = referee(tmp_path, f"{FIX}:RaiseInInit", RANDOM)
    assert "pid noted" not in out


def test_stderr_flood_does_not_grow_the_referee(tmp_path):
    # Run the referee in a wrapper that reports the referee process's own
    # peak resident memory: VmHWM of its own memory image, in kB.  (Not
    # ru_maxrss: Linux carries that over fork+exec, so it would report the
    # peak of the pytest process that started us.)
    peak_file = tmp_path / "peak.txt"
    record = tmp_path / "record.json"
    wrapper = (
        "import atexit, runpy, sys\n"
        "def peak():\n"
        "    status = open('/proc/self/status').read()\n"
        "    return status.split('VmHWM:')[1].split()[0]\n"
        f"atexit.register(lambda: open({str(peak_file)!r}, 'w').write(peak()))\n"
        f"sys.argv = ['referee', '-v', '3', '--record', {str(record)!r}, {FIX + ':FloodsStderr'!r}, {RANDOM!r}]\n"
        "runpy.run_module('referee', run_name='__main__')\n"
    )
    marker = str(tmp_path / "flood")
    # The output limit (16 MB a game: test_output_limit.py) would stop it first: lifted, all 200 MB go by.
    proc = subprocess.run(
        [sys.executable, "-c", wrapper], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env=dict(os.environ, REFEREE_TEST_PIDS=marker, **{OUTPUT_LIMIT_ENV: "0"}),
    )
    assert_nothing_left(marker)
    context = f"exit {proc.returncode}; stderr: {proc.stderr[-2000:]}; stdout tail: {proc.stdout[-1500:]}"
    assert proc.returncode == 0, context
    result = json.loads(record.read_text())
    assert result["reason"] in ("elimination", "turn_limit", "no_tokens"), (result["message"], context)
    peak_mb = int(peak_file.read_text()) / 1024
    assert peak_mb < 80, f"the referee grew to {peak_mb:.0f} MB while 200 MB of output went by"
    assert "more bytes of output not kept" in proc.stdout, context
    assert len(proc.stdout) < 2_000_000, len(proc.stdout)


@pytest.mark.parametrize("fault", ["LeavesAChild", "LeavesADetachedChild"])
def test_children_of_an_agent_do_not_outlive_the_game(tmp_path, fault):
    code, record, out, err, pids = referee(tmp_path, f"{FIX}:{fault}", RANDOM, "-v", "3")
    assert code == 0 and record["winner"] is not None or record["reason"] in ("turn_limit", "no_tokens")
    # The agent and its child were there (the agent says so in its output),
    # and referee() found neither alive afterwards.
    assert out.count("RED | pid noted") == 2, out[-2000:]
    assert not [p for p in pids if alive(p)]


def test_course_style_agent_runs_unchanged_and_gets_the_course_kwargs(tmp_path):
    code, record, out, err, pids = referee(
        tmp_path, "tests/hosting/fixture_agents/course_style", f"{FIX}:ChecksKwargs", "-t", "60", "-s", "200"
    )
    assert code == 0, err
    assert record["reason"] in ("elimination", "turn_limit", "no_tokens"), record["message"]
    assert record["error"] == {"RED": None, "BLUE": None}
    assert record["winner"] == "RED", "one-ply greedy beats random play"


@pytest.mark.parametrize("strict_as", ["RED", "BLUE"])
def test_course_agents_get_color_by_keyword_and_no_turn_after_the_end(tmp_path, strict_as):
    strict = "tests.hosting.fixture_agents.course_style.strict"
    red, blue = (strict, RANDOM) if strict_as == "RED" else (RANDOM, strict)
    code, record, out, err, pids = referee(tmp_path, red, blue, "--seed", "3")
    assert code == 0, err
    # The strict agent is a one-ply greedy player: it ends the game itself
    # (so the final action is its own) or the random agent does.
    assert record["error"] == {"RED": None, "BLUE": None}, record["error"]
    assert record["reason"] in ("elimination", "turn_limit", "no_tokens")
    assert record["winner"] == strict_as


def test_referee_survives_being_run_inside_a_daemonic_pool_worker(tmp_path):
    # Tournaments run games in pool workers; agent processes are plain
    # subprocesses, so this must work.
    script = (
        "import multiprocessing as mp\n"
        "from referee.match import AgentEntry, MatchSettings, play_match\n"
        "def one(_):\n"
        "    r = play_match(\n"
        "        AgentEntry('agents.random_agent'), AgentEntry('agents.random_agent'), MatchSettings(seed=1)\n"
        "    )\n"
        "    return r.reason\n"
        "if __name__ == '__main__':\n"
        "    with mp.Pool(2) as pool:\n"
        "        print(pool.map(one, range(2)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "turn_limit" in proc.stdout or "elimination" in proc.stdout


@pytest.mark.parametrize("failure", ["popen", "user"])
def test_an_agent_that_cannot_be_started_leaves_no_file_descriptor_open(tmp_path, monkeypatch, sandbox_mode, failure):
    # A long-lived referee (the battleground, a Dask worker) closes each agent whatever happened: one whose
    # process could not even start must not keep the pipes made for it, nor (sealed) its cgroup's files and
    # folders.  Popen fails on a folder that is gone; before it, no agent uid may be free to run it as.
    from referee.hosting import users
    from referee.hosting.process import HostedAgent
    from referee.hosting.sandbox import Sandbox, resolve
    from referee.limits import Limits

    if failure == "user":
        def no_user_free(self):
            raise users.NoUserFree("every agent uid is taken")

        monkeypatch.setattr(Sandbox, "agent_user", no_user_free)

    def open_fds() -> set[str]:
        return set(os.listdir("/proc/self/fd"))

    sandbox = resolve("off" if sandbox_mode == "off" else "required")
    before = open_fds()
    for _ in range(3):
        agent = HostedAgent("RED", "agents.random_agent", "Agent", "infexion", {}, Limits(),
                            cwd=str(tmp_path / "gone"), sandbox=sandbox)
        with pytest.raises((OSError, users.NoUserFree)):
            agent.start()
        agent.close()
        agent.close()  # again: nothing closed twice
        if agent.cgroup is not None:
            assert [folder for folder in agent.cgroup.folders() if os.path.exists(folder)] == []
    assert open_fds() - before == set()


def test_a_close_cut_short_and_done_again_closes_no_other_file(monkeypatch, sandbox_mode):
    # An abandoned game's exception can land inside close(); the task then closes the agent again.  A number
    # the first close freed may by then be another file's: the second close must leave it alone.
    from referee.hosting import process
    from referee.hosting.sandbox import resolve
    from referee.limits import Limits

    class CutShort(BaseException):
        pass

    agent = process.HostedAgent("RED", "agents.random_agent", "Agent", "infexion", {}, Limits(),
                                sandbox=resolve("off" if sandbox_mode == "off" else "required"))
    agent.start()
    agent.wait_ready()
    real_close, closed = os.close, []

    def close_once_then_cut(fd):
        real_close(fd)
        closed.append(fd)
        if len(closed) == 1:
            raise CutShort

    monkeypatch.setattr(process.os, "close", close_once_then_cut)
    with pytest.raises(CutShort):
        agent.close()
    monkeypatch.setattr(process.os, "close", real_close)
    other = os.open(os.devnull, os.O_RDONLY)  # the lowest free number: most likely the one just closed
    try:
        agent.close()
        os.fstat(other)  # still open
        assert agent.proc is None
    finally:
        os.close(other)


def test_usage_errors_exit_2_with_a_message(tmp_path):
    for args, fragment in [
        (["agents/random_agent"], "required"),
        (["not a spec!", RANDOM], "not a package spec"),
        ([RANDOM, RANDOM, "-t", "-3"], "0 or more"),
        ([RANDOM, RANDOM, "--game", "chess"], "invalid choice"),
        ([RANDOM, RANDOM, "--record", str(tmp_path / "missing" / "r.json")], "does not exist"),
        ([RANDOM, RANDOM, "-v", "7"], "invalid choice"),
    ]:
        proc = run_referee(*args, timeout=30)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert fragment in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_interrupting_the_referee_stops_the_agents(tmp_path):
    marker = str(tmp_path / "pids.txt")
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "-v", "0", *SANDBOX, f"{FIX}:Sleeps", RANDOM],
        cwd=ROOT,
        env=dict(os.environ, REFEREE_TEST_PIDS=marker),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # The referee and both agents run Python with the marker (a sealed agent
    # cannot write the pids file: it is out of its sight, so wait for them).
    wait_until(lambda: len(pythons_of(marker)) >= 3, 60, "the referee and both agents to start")
    # Then the game is under way: Red sleeps in its first action().
    wait_until(lambda: any(sleeping(pid) for pid in pythons_of(marker)), 60, "Red to sleep in its action()")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    assert_nothing_left(marker)


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_stop_the_agents_like_ctrl_c(tmp_path, signum, status):
    # Blue also starts a child of its own: it must go too.
    marker = str(tmp_path / "pids.txt")
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "-v", "0", f"{FIX}:Sleeps", f"{FIX}:LeavesAChild"],
        cwd=ROOT,
        env=dict(os.environ, REFEREE_TEST_PIDS=marker),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # The referee, both agents and Blue's child carry the marker (found
    # whether or not the agents can write to the pids file), and all four run
    # Python.  Counted by that, not by the marker alone: the referee's check
    # of the sandbox runs bwrap (up to three processes with the marker), and
    # a signal then stops the command before any agent is there to be stopped
    # (tests/test_stop_before_the_game.py).
    # 60 s: under a full parallel suite a sealed start once took longer than 20 s.
    wait_until(lambda: len(pythons_of(marker)) >= 4, 60, "the referee, both agents and Blue's child to start")
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == status, err
    assert f"stopped by {signal.Signals(signum).name}" in err and "Traceback" not in err
    assert_nothing_left(marker)


def test_moved_agent_importing_its_old_name_gets_a_clear_message(tmp_path):
    played = referee(tmp_path, "tests.hosting.fixture_agents.moved_agent", RANDOM)
    record = assert_verdict(played, "BLUE", "load_error", "No module named 'agent'")
    assert "import it relatively" in record["error"]["RED"]["message"]


def test_missing_third_party_library_gets_no_old_name_hint(tmp_path):
    record = assert_verdict(
        referee(tmp_path, "tests.hosting.fixture_agents.needs_a_library", RANDOM),
        "BLUE", "load_error", "No module named 'a_package_nobody_installed'",
    )
    assert "relatively" not in record["error"]["RED"]["message"]
