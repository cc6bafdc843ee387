"""One agent in its own OS process, held to its time and memory limits.

Where each limit is enforced:

* **CPU time** (per agent per game, over import, ``__init__``, ``action`` and
  ``turn``): read from the agent's CPU clock after every call and every
  :data:`POLL_INTERVAL` while a call runs; the process is killed as soon as
  the budget is spent.  ``RLIMIT_CPU`` set inside the process is a backstop
  (at :data:`BACKSTOP_FACTOR` times the budget plus grace: see there).
* **Wall-clock watchdog**: a call may last at most the remaining CPU time plus
  a grace, plus the time it waited for a CPU on a busy machine (and at most
  the per-call cap), which stops agents that sleep or block.
* **Memory**: resident memory of the process and its descendants above the
  baseline taken before the agent was imported, polled while a call runs; the
  kernel's high-water mark is checked after each call, so a peak between two
  polls still counts.
* **Output**: what the agent prints (stdout and stderr, one pipe) is read by
  the referee, in its own process and on its own CPU, up to
  :data:`OUTPUT_LIMIT` a game; an agent that prints more is stopped.
* **Clean-up**: the agent runs in its own session; at the end every process of
  that session (the agent's children included) is killed.

Under a sandbox (:mod:`referee.hosting.sandbox`) the same checks read the
agent's cgroup instead (CPU and peak memory of every process it ever ran),
the agent runs in its own namespaces, and it is frozen between calls.
"""
from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from . import wire
from .failures import (
    AgentCrashed,
    AgentFailure,
    AgentIllegalAction,
    AgentLoadError,
    AgentOutOfMemory,
    AgentOutputLimit,
    AgentProtocolError,
    AgentRaised,
    AgentTimeout,
)
from ..limits import Limits
from .monitor import MB, ProcessMonitor, children_of, descendants_of, session_members
from . import seccomp, users
from .environment import agent_environment, library_path
from .sandbox import (
    MEMORY_CAP_SLACK,
    REFEREE_ROOT,
    UNSEALED,
    Cgroup,
    Sandbox,
    become_subreaper,
    bwrap_command,
    enter_cgroup_command,
    new_cgroup,
    probe,
    reap_orphan,
)

#: How often a running call is checked against the limits, in seconds.
POLL_INTERVAL = 0.01
#: Calls shorter than this cannot have touched enough memory to matter, so
#: the (slightly dearer) high-water-mark read is skipped for them.
QUICK_CALL = 0.002
#: The wall-clock watchdog forgives at most this many seconds of waiting for a CPU per CPU second a call
#: used: up to 11 runnable processes a core (e.g. 22 games at once on 2 cores) an honest agent is not stopped.
WAIT_PER_CPU_SECOND = 10.0
#: The kernel's ``RLIMIT_CPU`` backstop is this many times (budget + grace).  The kernel checks that
#: limit against CPU time sampled at each timer tick, which on a busy machine runs ahead of the
#: scheduler's exact count that the referee reads: 13 % ahead under 12 polling processes on 2 cores
#: (``benchmarks/tick_skew.py``), and at 185 s it SIGKILLed honest agents at 175 s of real CPU.  The
#: referee's own check stops agents at the exact budget; the backstop is for a referee that stopped.
BACKSTOP_FACTOR = 2
#: Agent output kept per call and in total (the rest is counted, not kept).
OUTPUT_PER_CALL = 64 * 1024
OUTPUT_TAIL = 4 * 1024
#: The most an agent may print in a game (stdout and stderr together); past it the referee reads no more and
#: stops it (``output_limit``).  Reading is the referee's own CPU, outside every agent's cgroup: 0.15-0.4 ms a
#: MB (``benchmarks/output_flood.py``), so a flood now costs it 6 ms at most; unlimited, 6 processes printing
#: through the agent's 3 s cost it about 4 s (it read 10 to 20 GB).  An agent printing the board and a few lines
#: at every call prints 0.6 MB in a whole game.
OUTPUT_LIMIT = 16 * MB
#: For tests and benchmarks only: the output limit in MB instead (0: none); never set it for a real game.
OUTPUT_LIMIT_ENV = "REFEREE_OUTPUT_LIMIT"
#: The output pipe's size and the most read at once (a pipe holds 64 KB by default): a fifth of the referee's
#: user CPU a MB (0.06 -> 0.01 ms); the kernel's copy, most of it, stays.  Where the user's pipes may not grow
#: (``pipe-user-pages-soft``), 64 KB.
OUTPUT_READ = 1024 * 1024
#: How long the referee waits for the agent's stack before it stops it, and the most of it kept.
STACK_WAIT = 0.3
MAX_STACK = 16 * 1024
#: How long the interpreter may take to start, before the agent is imported (not a user limit).
START_TIMEOUT = 60.0
#: The agent's interpreter runs this (``python -c HOST_BOOT referee.hosting.agent_host FOLDER SETTINGS``; the
#: module's name is there for ``ps``): ``referee`` is imported from FOLDER (this referee's), and nothing from the
#: working directory (the agent's folder), which ``-c`` would put first on the path.
HOST_BOOT = (
    "import sys\n"
    "if sys.path[:1] == ['']: del sys.path[0]\n"
    "sys.path.insert(0, sys.argv[2])\n"
    "from referee.hosting.agent_host import main\n"
    "main(sys.argv[3])\n"
)


@dataclass(frozen=True)
class CallStats:
    """What one call cost, for the log at high verbosity."""

    op: str
    cpu: float
    wall: float
    memory_mb: float



@dataclass
class _Watchdog:
    """The wall-clock limits of one call.

    ``budget``: the agent's remaining CPU time plus the grace, counted from
    the call's start; the time the agent then spends runnable but waiting for
    a CPU (a loaded machine: other games, other users) is added to it, since
    only a stalling agent (asleep, blocked) should run into it.  ``cap``: the
    ``call_timeout``, a plain wall-clock cap.  ``waited``: the agent's
    run-queue wait at the call's first look (not its start: a quick call,
    most of them, never reads it; the few milliseconds before go uncredited).
    """

    budget: float | None
    cap: float | None
    waited: float | None = None

    def expired(self, now: float, monitor: ProcessMonitor, call_cpu: float) -> bool:
        """Whether the call has run too long; ``call_cpu``: the CPU seconds it has used."""
        if self.waited is None:
            self.waited = monitor.cpu_wait()
        if self.cap is not None and now > self.cap:
            return True
        # The run-queue wait is read again only once the plain budget is spent.
        return self.budget is not None and now > self.budget and now > self.budget + self.credit(monitor, call_cpu)

    def waiting(self, monitor: ProcessMonitor) -> float:
        """Seconds the agent's main thread has waited for a CPU since the first look."""
        return monitor.cpu_wait() - (self.waited or 0.0)

    def credit(self, monitor: ProcessMonitor, call_cpu: float) -> float:
        """The wall seconds added to the budget: the wait, at most :data:`WAIT_PER_CPU_SECOND` per CPU second.

        An agent starved by load waits (runnable processes per core − 1) times
        the CPU it gets; one that lowers its own priority (``nice``,
        ``SCHED_IDLE``, its autogroup's nice) or pins itself to a busy core
        could wait far longer than it computes: the cap makes every 10 wall
        seconds it gains so cost a CPU second it then no longer has (sleeping
        already gets it its remaining CPU time + grace, a call, for nothing).
        """
        return min(self.waiting(monitor), WAIT_PER_CPU_SECOND * max(0.0, call_cpu))


def output_limit() -> int:
    """The most output the referee reads from an agent in a game, in bytes (0: no limit): :data:`OUTPUT_LIMIT`."""
    value = os.environ.get(OUTPUT_LIMIT_ENV)
    try:
        return OUTPUT_LIMIT if value is None else max(0, int(float(value) * MB))
    except ValueError:
        return OUTPUT_LIMIT


def _crash_message(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"the agent's process was killed by {name}"
    return f"the agent's process exited with status {returncode}"


class HostedAgent:
    """Start with :meth:`start`, then :meth:`call` it; always :meth:`close`."""

    def __init__(
        self,
        color: str,
        module: str,
        class_name: str,
        game: str,
        game_options: dict[str, Any],
        limits: Limits,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        sandbox: Sandbox = UNSEALED,
    ):
        """``cwd``: the folder the agent's process starts in and imports the agent from (default: ours).

        ``sandbox``: what to seal the process in (see :func:`referee.hosting.sandbox.resolve`).
        """
        self.color = color
        self.module = module
        self.class_name = class_name
        self.game = game
        self.game_options = game_options
        self.limits = limits
        self.env = env
        self.cwd = cwd
        self.sandbox = sandbox
        self.cgroup: Cgroup | None = None
        self.user: users.Claim | None = None  # the uid the agent runs as, held until it has ended
        self.host_pid: int | None = None  # the agent's interpreter (inside bwrap: not proc.pid)
        self._sandbox_init: int | None = None  # bwrap's init in the agent's PID namespace
        self._awake = True
        self.proc: subprocess.Popen[bytes] | None = None
        # The referee's ends of the pipes (-1: none open): made by start(), closed once by _close_pipes().
        self._cmd_w = self._reply_r = self._out_r = self._stack_r = -1
        self._session_killed = False  # close() has killed the process's session (unsealed)
        self.monitor: ProcessMonitor | None = None
        self.cpu_base = 0.0
        self.mem_base = 0
        self.hwm_at_start = 0
        self.time_used = 0.0
        self.peak_bytes = 0
        self.last_call: CallStats | None = None
        self._buffer = b""
        self._output: deque[bytes] = deque()
        self._output_kept = 0
        self._output_dropped = 0
        self._tail = b""
        self._output_closed = False  # at its end, or past the output limit: no longer read
        self._call_printed = 0  # bytes the agent printed during the current call
        self.printed = 0  # bytes read from the agent's output in all
        self.output_limit = output_limit()
        self._read_into = memoryview(bytearray(OUTPUT_READ))

    @property
    def _process(self) -> subprocess.Popen[bytes]:
        """The agent's process, from :meth:`start` to :meth:`close`."""
        assert self.proc is not None, "the agent's process is not running"
        return self.proc

    @property
    def _monitor(self) -> ProcessMonitor:
        """The reader of its process's CPU and memory, from :meth:`wait_ready` on."""
        assert self.monitor is not None, "the agent's process is not ready"
        return self.monitor

    # -- life cycle -----------------------------------------------------------

    def start(self) -> None:
        """Start the process (returns at once; :meth:`wait_ready` waits).

        Whatever fails on the way (no agent uid free, a sandbox that cannot be set up, ``Popen``), the child's
        ends of the pipes are closed here and the referee's by :meth:`close`: a long-lived referee (the
        battleground, a Dask worker) must not lose file descriptors to agents that never started.
        """
        passed: list[int] = []  # the child's ends (and the system-call filter's): closed here once it has them
        out_w = -1
        try:
            cmd_r, self._cmd_w = os.pipe()
            passed.append(cmd_r)
            self._reply_r, reply_w = os.pipe()
            passed.append(reply_w)
            self._out_r, out_w = os.pipe()
            try:
                fcntl.fcntl(out_w, fcntl.F_SETPIPE_SZ, OUTPUT_READ)
            except OSError:
                pass  # the default size
            # Where the agent host writes the agent's stack when asked (SIGUSR1), just before a verdict stops it.
            self._stack_r, stack_w = os.pipe()
            passed.append(stack_w)
            cpu_hard = BACKSTOP_FACTOR * (self.limits.cpu + self.limits.wall_grace) if self.limits.cpu else 0
            env = agent_environment(self.sandbox.namespaces) if self.env is None else dict(self.env)
            env["PYTHONUNBUFFERED"] = "1"  # so output is not lost when the process is killed
            # The host puts the libraries on the agent's import path itself, once
            # its own imports are done (they cannot be shadowed by a library's).
            libraries = library_path(env)
            env.pop("PYTHONPATH", None)
            self.user = self.sandbox.agent_user()
            settings = {
                "cmd_fd": cmd_r, "reply_fd": reply_w, "game": self.game, "options": self.game_options,
                "cpu_hard": cpu_hard, "uid": self.user and self.user.uid, "gid": self.user and self.user.gid,
                "libraries": libraries, "stack_fd": stack_w,
            }
            command = [sys.executable, "-c", HOST_BOOT, "referee.hosting.agent_host", str(REFEREE_ROOT.parent),
                       json.dumps(settings)]
            command = self._sealed(command, libraries, passed)
            self.proc = subprocess.Popen(
                command,
                pass_fds=passed,
                stdin=subprocess.DEVNULL,
                stdout=out_w,
                stderr=out_w,
                start_new_session=True,
                env=env,
                cwd=self.cwd,
            )
        finally:
            for fd in (*passed, out_w):
                if fd >= 0:
                    os.close(fd)
        for fd in (self._reply_r, self._out_r, self._stack_r):
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
        self._poller = select.poll()
        self._poller.register(self._reply_r, select.POLLIN)
        self._poller.register(self._out_r, select.POLLIN)

    def _sealed(self, command: list[str], libraries: list[str], passed: list[int]) -> list[str]:
        """``command`` wrapped in the sandbox's namespaces and cgroup; adds the fds it needs to ``passed``."""
        if self.sandbox.namespaces:
            from ..games import game_modules

            bwrap = probe().bwrap
            assert bwrap is not None, "resolve() hands out namespaces only where bwrap works"
            become_subreaper()
            filter_fd = None
            if self.sandbox.seccomp:
                code = seccomp.program()
                assert code is not None, "resolve() filters system calls only where a filter exists"
                filter_fd = seccomp.program_fd(code)
                passed.append(filter_fd)
            command = bwrap_command(
                bwrap, command, Path(self.cwd or os.getcwd()), self.module, game_modules(self.game),
                libraries, filter_fd, self.user is not None,
            )
        if self.sandbox.cgroup:
            sandbox = self.sandbox
            self.cgroup = new_cgroup(sandbox.accounting, nested=sandbox.nested, cpu_share=sandbox.cpu_share)
            command = enter_cgroup_command(self.cgroup, command)
        return command

    def _find_host(self) -> int:
        """The agent's interpreter: bwrap's grandchild inside namespaces (bwrap, its init, the host)."""
        if not self.sandbox.namespaces:
            return self._process.pid
        for _ in range(100):
            inits = children_of(self._process.pid)
            hosts = children_of(inits[0]) if inits else []
            if hosts:
                self._sandbox_init = inits[0]
                return hosts[0]
            time.sleep(0.001)
        self._fail(AgentLoadError, "the agent's sandbox did not start its interpreter")

    def wait_ready(self) -> None:
        """Wait for the process to be ready; take the baselines."""
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            line = self._take_line()
            if line is not None:
                if not wire.is_ready(line):
                    self._fail(AgentProtocolError, f"the agent's process sent {line[:80]!r} before starting")
                break
            if time.monotonic() > deadline:
                self._fail(AgentLoadError, f"the agent's process did not start within {START_TIMEOUT:g} s")
            self._wait_for_input(0.05)
        self.host_pid = self._find_host()
        self.monitor = ProcessMonitor(self.host_pid, root=self._process.pid)
        if self.cgroup is not None:
            self.cgroup.reset_peak()
            self.cpu_base = self.cgroup.cpu()
            self.mem_base = self.cgroup.memory()
            if self.limits.space_bytes:
                self.cgroup.cap_memory(int(self.mem_base + self.limits.space_bytes + MEMORY_CAP_SLACK))
        else:
            self.cpu_base = self.monitor.cpu()
            self.mem_base = self.monitor.rss()
            self.hwm_at_start = self.monitor.peak_rss()
        self._sleep()

    def close(self) -> None:
        """Kill the agent and everything it started, and reap it; idempotent."""
        if self.proc is not None and self.sandbox.namespaces and self._sandbox_init is None:
            inits = children_of(self.proc.pid)
            self._sandbox_init = inits[0] if inits else None
        if self.proc is None:
            if self.cgroup is not None:
                # start() failed (or was interrupted by an abandoned game's exception) once the cgroup was
                # made: the process may have been forked into it before it was known here.
                self.cgroup.kill_all()
                self.cgroup.remove()  # its files and folders, whether a process got there or not
            self._close_pipes()  # start() made them, then failed: a server's start failures must not leak fds
            self._release_user()
            return
        try:
            self._drain_output()
        except OSError:
            pass
        if self.cgroup is not None:
            self._close_cgroup(self.cgroup)
            return
        if self.monitor is not None and self.proc.poll() is None:
            self._update_peak(self.monitor.peak_rss())
        sid = self.proc.pid
        if not self._session_killed:
            # Once only: a close cut short in _release (an abandoned game's exception) and done again comes
            # here with the process reaped, when its number may be another process's.
            if self.proc.returncode is None:
                try:
                    os.killpg(sid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            # Children that moved to another process group still carry the session;
            # inside namespaces, everything is a descendant of bwrap.
            members = set(session_members(sid))
            if self.sandbox.namespaces:
                members.update(descendants_of(sid))
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            self._session_killed = True
        self._wake()  # a stopped process takes its SIGKILL only once continued
        self._release()

    def interrupt(self) -> None:
        """SIGKILL the agent's processes, safe to call from another thread while a call waits on the reply.

        The waiting thread then sees the agent die and fails the call as a
        crash; :meth:`close` (which also closes the pipes that thread reads)
        is left to it.  For a person's game stopped while the agent thinks.
        """
        proc = self.proc
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # its own session and process group: see start()
            except OSError:
                pass
        if self.cgroup is not None:
            self.cgroup.kill_all()

    def _close_cgroup(self, group: Cgroup) -> None:
        try:
            self._update_cgroup_peak(group)
        except (OSError, ValueError):
            pass
        # The process joins its cgroup only once its shell runs (enter_cgroup_command): closed just after
        # start(), it is not there yet, and would go on to start the agent.  Its own process group holds it
        # (start_new_session); not yet reaped (returncode None), so that group cannot be anyone else's.
        if self._process.returncode is None:
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except OSError:
                pass
        group.kill_all()
        self._release()
        group.remove()

    def _release(self) -> None:
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        if self._sandbox_init is not None:
            reap_orphan(self._sandbox_init)
            self._sandbox_init = None
        self._close_pipes()
        if self.monitor is not None:
            self.monitor.close()
        self.proc = None
        self._release_user()

    def _close_pipes(self) -> None:
        """Close the referee's ends of the pipes, once: a number closed twice may be another file's by then.

        Each is forgotten before it is closed, so that a close cut short (an abandoned game's exception lands
        anywhere) and done again leaks at worst one, and never closes another thread's file."""
        for name in ("_cmd_w", "_reply_r", "_out_r", "_stack_r"):
            fd = getattr(self, name)
            setattr(self, name, -1)
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _release_user(self) -> None:
        if self.user is not None:
            self.user.release()  # every process of the agent has ended: its uid can go to another agent
            self.user = None

    # -- freezing between calls ---------------------------------------------------

    def _sleep(self) -> None:
        """Freeze every process of the agent until its next call."""
        if not self.sandbox.frozen or not self._awake:
            return
        self._awake = False
        if self.cgroup is not None:
            self.cgroup.freeze()
        else:
            self._signal_all(signal.SIGSTOP)

    def _wake(self) -> None:
        if self._awake:
            return
        self._awake = True
        if self.cgroup is not None:
            self.cgroup.thaw()
        else:
            self._signal_all(signal.SIGCONT)

    def _signal_all(self, sig: signal.Signals) -> None:
        """Signal every process in the agent's PID namespace but its init."""
        if self.proc is None:
            return
        inits = children_of(self.proc.pid)
        for pid in descendants_of(inits[0]) if inits else []:
            try:
                os.kill(pid, sig)
            except OSError:
                pass

    # -- calls ------------------------------------------------------------------

    def count_time_from(self, seconds: float) -> None:
        """Count this agent's CPU time as ``seconds`` from now on: a fresh process taking over a game from its
        predecessor (an undo restarts the agent) has used what that one had, not its own start-up's."""
        self.cpu_base += self.time_used - seconds
        self.time_used = seconds

    @property
    def time_remaining(self) -> float | None:
        if not self.limits.cpu:
            return None
        return max(0.0, self.limits.cpu - self.time_used)

    @property
    def space_remaining(self) -> float | None:
        if not self.limits.space_limit:
            return None
        return max(0.0, self.limits.space_limit - self.peak_bytes / MB)

    @property
    def peak_memory_mb(self) -> float:
        return self.peak_bytes / MB

    def call(self, message: dict[str, Any]) -> wire.Reply:
        """Send one request and wait for its reply under the limits.

        Raises an :class:`AgentFailure` subclass for anything but a good reply.
        """
        op = message.get("op", "?")
        try:
            os.write(self._cmd_w, wire.encode(message))
        except (BrokenPipeError, OSError):
            self._wake()
            self._fail_dead()
        # Thawed only once the request waits in the pipe: the agent wakes
        # straight into reading it (thawing first costs it one more wake-up).
        self._wake()
        start = time.monotonic()
        self._call_printed = 0
        watchdog = self._watchdog(start)
        line = self._take_line()
        while line is None:
            self._wait_for_input(POLL_INTERVAL)
            line = self._take_line()
            if line is None:
                self._check_running_call(start, watchdog)
        wall = time.monotonic() - start
        self._sleep()
        cpu_before = self.time_used
        if self.cgroup is not None:
            self.time_used = self.cgroup.cpu() - self.cpu_base
            self._update_cgroup_peak(self.cgroup)
        elif self.sandbox.namespaces or wall > QUICK_CALL:
            # Inside namespaces every process of the agent descends from bwrap: always look at them all.
            self._update_peak(self._monitor.peak_rss(), self._monitor.look_at_descendants())
            self.time_used = self._monitor.cpu() - self.cpu_base
        else:
            self.time_used = self._monitor.cpu() - self.cpu_base
            self._update_peak(self._monitor.rss())
        self.last_call = CallStats(op, self.time_used - cpu_before, wall, self.peak_memory_mb)
        self._check_limits_after_call()
        try:
            reply = wire.parse_reply(line)
        except wire.WireError as exc:
            self._fail(AgentProtocolError, f"malformed reply from the agent's process: {exc}")
        if not reply.ok:
            self._raise_reported(op, reply)
        return reply

    # -- internals -------------------------------------------------------------

    def _watchdog(self, start: float) -> _Watchdog:
        remaining = self.time_remaining  # None when the CPU time is unlimited
        return _Watchdog(
            None if remaining is None else start + remaining + self.limits.wall_grace,
            start + self.limits.call_timeout if self.limits.call_timeout else None,
        )

    def _check_running_call(self, start: float, watchdog: _Watchdog) -> None:
        if self.over_output_limit:
            self._stop(AgentOutputLimit, self._output_limit_message())
        monitor = self._monitor
        now = time.monotonic()
        if self.cgroup is not None:
            used = self.cgroup.cpu() - self.cpu_base
            self._update_cgroup_peak(self.cgroup)
        else:
            child_rss = monitor.look_at_descendants() if now - start > 5 * POLL_INTERVAL else 0
            used = monitor.cpu() - self.cpu_base
        if self.limits.cpu and used > self.limits.cpu:
            self.time_used = used
            self._stop(AgentTimeout, f"used {used:.2f} s of CPU time, over its limit of {self.limits.cpu:g} s")
        if self.cgroup is None:
            self._update_peak(monitor.rss(), child_rss)
        limit = self.limits.space_bytes
        if limit and self.peak_bytes > limit:
            self._stop(
                AgentOutOfMemory,
                f"used {self.peak_memory_mb:.1f} MB of memory, over its limit of {self.limits.space_limit:g} MB",
            )
        if self._process.poll() is not None:
            self._fail_dead()
        if watchdog.expired(now, monitor, used - self.time_used):
            waited = watchdog.waiting(monitor)
            self.time_used = used
            self._stop(
                AgentTimeout,
                f"did not answer within {now - start:.1f} s of wall-clock time "
                f"(watchdog; it used {used:.2f} s of CPU time and waited {waited:.1f} s for one)",
            )

    def _check_limits_after_call(self) -> None:
        if self.over_output_limit:
            self._fail(AgentOutputLimit, self._output_limit_message())
        if self.limits.cpu and self.time_used > self.limits.cpu:
            self._fail(
                AgentTimeout, f"used {self.time_used:.2f} s of CPU time, over its limit of {self.limits.cpu:g} s"
            )
        limit = self.limits.space_bytes
        if limit and self.peak_bytes > limit:
            self._fail(
                AgentOutOfMemory,
                f"used {self.peak_memory_mb:.1f} MB of memory, over its limit of {self.limits.space_limit:g} MB",
            )

    def _update_cgroup_peak(self, group: Cgroup) -> None:
        # Every page the agent's processes hold counts: tmpfs, shared memory
        # and memfds included; the kernel keeps the peak, so none is missed.
        self.peak_bytes = max(self.peak_bytes, group.peak() - self.mem_base)

    def _update_peak(self, resident: int, extra: int = 0) -> None:
        # The high-water mark includes the interpreter's start-up; it only
        # says something about the agent once it has risen past that.
        if resident == self.hwm_at_start:
            return
        self.peak_bytes = max(self.peak_bytes, resident + extra - self.mem_base)

    def _raise_reported(self, op: str, reply: wire.Reply) -> NoReturn:
        assert reply.failure is not None, "parse_reply() names the failure of every reply that is not ok"
        kind = {
            "load": AgentLoadError,
            "exception": AgentRaised,
            "bad_return": AgentIllegalAction,
            "memory": AgentOutOfMemory,
        }[reply.failure]
        message = reply.message
        if kind is AgentRaised:
            message = f"{op}() raised {message}"
        elif kind is AgentOutOfMemory:
            message = f"{op}() ran out of memory ({message})"
        self._fail(kind, message, reply.traceback)

    def _fail_dead(self) -> NoReturn:
        if self.sandbox.namespaces:
            code = self._host_status()
        else:
            try:
                code = self._process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                self._fail(AgentProtocolError, "the agent closed the referee's channel")
        if self.cgroup is not None and self.cgroup.out_of_memory():
            limit = self.limits.space_limit
            self._fail(
                AgentOutOfMemory,
                f"the kernel stopped it at its memory cap (limit {limit:g} MB); "
                f"peak seen {self.peak_memory_mb:.1f} MB",
            )
        # The CPU at its death tells a kill by the kernel's RLIMIT_CPU backstop from one from outside.
        if self.monitor is not None:  # ready: the baselines are taken (a process can die before that)
            used = self.cgroup.cpu() if self.cgroup is not None else self.monitor.cpu()
            self.time_used = max(self.time_used, used - self.cpu_base)
        self._fail(AgentCrashed, f"{_crash_message(code)} after {self.time_used:.2f} s of CPU time")

    def _host_status(self) -> int:
        """How the interpreter inside bwrap ended (bwrap exits with its status, or 128 + signal)."""
        try:
            code = self._process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self._fail(AgentProtocolError, "the agent closed the referee's channel")
        return -(code - 128) if code > 128 else code

    def _stop(self, kind: type[AgentFailure], message: str) -> NoReturn:
        """Fail a call the referee stops while it runs: with the agent's stack then, and how much it printed."""
        stack = self._stack_now()
        self._drain_output()
        printed = self._call_printed
        flood = ""
        if printed > OUTPUT_PER_CALL and kind is not AgentOutputLimit:
            flood = f"; it printed {printed / MB:.1f} MB during the call"
        self._fail(kind, message, stack, flood)

    def _stack_now(self) -> str:
        """The agent's Python stack (every thread's) as the agent host's faulthandler writes it; '' if none."""
        pid = self.host_pid
        if pid is None:
            return ""
        self._read_stack()  # whatever the agent may have written there before is not its stack
        try:
            os.kill(pid, signal.SIGUSR1)
        except OSError:
            return ""
        text, deadline, quiet = b"", time.monotonic() + STACK_WAIT, time.monotonic() + STACK_WAIT
        while time.monotonic() < min(deadline, quiet) and len(text) < MAX_STACK:
            select.select([self._stack_r], [], [], 0.01)
            chunk = self._read_stack()
            if chunk:
                text += chunk
                quiet = time.monotonic() + 0.02  # the dump is written at once: a pause means it is done
        if not text:
            return ""
        host = f'File "{REFEREE_ROOT / "hosting" / "agent_host.py"}"'
        # The agent host's own frames (below the agent's, last in each thread) say nothing to its author.
        lines = [
            line for line in text[:MAX_STACK].decode("utf-8", "replace").splitlines()
            if host not in line and 'File "<string>"' not in line
        ]
        return "The agent's stack when it was stopped:\n" + "\n".join(lines) + "\n"

    def _read_stack(self) -> bytes:
        try:
            return os.read(self._stack_r, MAX_STACK)
        except (BlockingIOError, OSError):
            return b""

    def _fail(self, kind: type[AgentFailure], message: str, traceback: str = "", detail: str = "") -> NoReturn:
        try:
            self._drain_output()
        except OSError:
            pass
        raise kind(message, traceback, self.output_tail(), detail)

    def _wait_for_input(self, timeout: float) -> None:
        for fd, _ in self._poller.poll(timeout * 1000):
            if fd == self._out_r:
                self._drain_output()
            else:
                self._read_reply()

    def _read_reply(self) -> None:
        try:
            chunk = os.read(self._reply_r, 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            self._poller.unregister(self._reply_r)
            self._fail_dead()
        self._buffer += chunk
        if len(self._buffer) > wire.MAX_REPLY_BYTES and b"\n" not in self._buffer:
            self._fail(
                AgentProtocolError, f"the agent's process sent over {wire.MAX_REPLY_BYTES} bytes without a newline"
            )

    def _take_line(self) -> bytes | None:
        if b"\n" not in self._buffer:
            return None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    @property
    def over_output_limit(self) -> bool:
        """Whether the agent printed more than its output limit (the referee then reads no more of it)."""
        return bool(self.output_limit) and self.printed > self.output_limit

    def _output_limit_message(self) -> str:
        limit = f"{round(self.output_limit / MB, 3):g} MB"
        return f"printed more than {limit} of output (the limit is {limit} a game)"

    def _drain_output(self) -> None:
        """Read what the agent printed, into a buffer of its own (no allocation a read), up to the limit + 1 byte."""
        while not self._output_closed:
            room = len(self._read_into)
            if self.output_limit:
                room = min(room, self.output_limit + 1 - self.printed)
            if room <= 0:
                self._stop_reading_output()  # left in the pipe, where the agent's writes block until it is killed
                return
            try:
                size = os.readv(self._out_r, [self._read_into[:room]])
            except BlockingIOError:
                return
            if not size:
                self._stop_reading_output()
                return
            self._keep_output(self._read_into[:size])

    def _keep_output(self, chunk: memoryview) -> None:
        size = len(chunk)
        self.printed += size
        self._call_printed += size
        room = OUTPUT_PER_CALL - self._output_kept
        if room > 0:
            self._output.append(bytes(chunk[:room]))
            self._output_kept += min(room, size)
        self._output_dropped += max(0, size - max(room, 0))
        self._tail = (self._tail + bytes(chunk[-OUTPUT_TAIL:]))[-OUTPUT_TAIL:]

    def _stop_reading_output(self) -> None:
        if not self._output_closed:
            self._output_closed = True
            self._poller.unregister(self._out_r)

    def take_output(self) -> str:
        """What the agent printed since the last call to this (bounded)."""
        self._drain_output()
        text = b"".join(self._output).decode("utf-8", "replace")
        if self._output_dropped:
            text += f"\n[... {self._output_dropped} more bytes of output not kept]\n"
        self._output.clear()
        self._output_kept = self._output_dropped = 0
        return text

    def output_tail(self) -> str:
        return self._tail.decode("utf-8", "replace")
