"""A noisy neighbour: an agent that keeps every CPU of the machine busy during its own calls.

At each action() :class:`Spins` starts up to :data:`SPINNERS` busy helpers
for :data:`SPIN_SECONDS` of wall time, stops them all and returns a random
legal move.  The CPU is its own (its cgroup counts every helper), so it
only spends its own clock; what it takes is the share of the machine that
the agents of the *other* game running beside it (a tournament's second
worker) would have had: a scheduler that treats every runnable thread
alike gives 60 helpers 60/61 of the CPU.  ``benchmarks/noisy_neighbour.py``
plays it beside :class:`Computes`, an honest agent of another game, and
asks whether that agent then loses on wall-clock time.

Three ways to spin, ``spin_mode`` (the first two are what a careless agent
would write, the third what a hostile one would):

* ``threads``: threads in the agent's process compressing a 1 MB buffer
  with zlib, which releases the GIL (threads of pure Python would take one
  core at most between them);
* ``processes``: forked children, each a pure-Python busy loop, in the
  agent's session;
* ``sessions`` (the default): the same, each child in a session of its own
  (``setsid``).  With the kernel's autogroups on (most desktop and many
  server kernels) the scheduler first shares the CPU between sessions, so
  the first two are held to one session's share; a session per child is
  not.

The helpers are counted against the sandbox's pids limit (64 processes and
threads in all), so the agent starts as many as it can and reports, at its
first action, how many: ``{"spinners": n, "wanted": m, "mode": ...}``.
Every helper also stops on its own at the call's end (kept ones after
:data:`KEPT_FOR` seconds, or when the agent's process is gone), so nothing
spins on for long if the agent is killed mid-call or plays unsealed.  It
writes no file: unlike the other hostile agents it may be played from the
checkout (the benchmark does).

With ``spin_keep`` the helpers are started at the first action() and kept:
the sandbox freezes them with the agent between its calls and thaws them
at the next, so they spin through every call from its first moment (no
forking and reaping at each call, when they would leave the CPU to
others) and cost nothing between calls.

Options (keyword arguments of every call; ``AgentEntry.options``):
``spinners``, ``spin_seconds``, ``spin_mode``, ``spin_keep``.

:class:`Computes` is the honest agent: single-threaded, it computes for
``think`` seconds of its own CPU time (``time.process_time()``) in each of
its first ``think_moves`` actions, then answers at once.
"""
from __future__ import annotations

import os
import signal
import threading
import time
import zlib

from ..common import Plays, fork_helpers, report

#: Helpers wanted at each call: the sandbox's pids limit (64) less the agent's own process and a margin.
SPINNERS = 60
#: Wall seconds each call spins.
SPIN_SECONDS = 2.0
MODES = ("threads", "processes", "sessions")
#: With ``spin_keep``: wall seconds the helpers live at most (frozen with the agent between its calls).
KEPT_FOR = 600.0


class Spins(Plays):
    """Spins with every helper it can start, for ``spin_seconds`` of wall time, at every action()."""

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        self.calls = 0
        self.kept: list[int] | list[threading.Thread] = []

    def action(self, **referee):
        wanted = int(referee.get("spinners", SPINNERS))
        seconds = float(referee.get("spin_seconds", SPIN_SECONDS))
        mode = str(referee.get("spin_mode", "sessions"))
        keep = bool(referee.get("spin_keep", False))
        if mode not in MODES:
            raise ValueError(f"spin_mode must be one of {', '.join(MODES)}, not {mode!r}")
        now = time.monotonic()
        if keep:
            if not self.kept:
                self.kept = self.start(mode, wanted, now + KEPT_FOR)
            started = len(self.kept)
            time.sleep(seconds)
        else:
            helpers = self.start(mode, wanted, now + seconds)
            started = len(helpers)
            time.sleep(max(0.0, now + seconds - time.monotonic()))
            self.stop(helpers)
        self.calls += 1
        if self.calls == 1:
            report(spinners=started, wanted=wanted, mode=mode, seconds=seconds, keep=keep)
        return self.move()

    def start(self, mode: str, wanted: int, deadline: float) -> list:
        if mode == "threads":
            return self.start_threads(wanted, deadline)
        return self.start_processes(wanted, deadline, own_sessions=mode == "sessions")

    def start_threads(self, wanted: int, deadline: float) -> list[threading.Thread]:
        buffer = os.urandom(1 << 20)

        def spin() -> None:
            while time.monotonic() < deadline:
                zlib.compress(buffer, 1)  # releases the GIL while it compresses

        threads = []
        for _ in range(wanted):
            thread = threading.Thread(target=spin, daemon=True)
            try:
                thread.start()
            except RuntimeError:  # "can't start new thread": the pids limit
                break
            threads.append(thread)
        return threads

    def start_processes(self, wanted: int, deadline: float, own_sessions: bool) -> list[int]:
        parent = os.getpid()

        def spin() -> None:
            while time.monotonic() < deadline and os.getppid() == parent:
                for _ in range(10000):
                    pass

        return fork_helpers(self.seed, wanted, spin, own_sessions)

    @staticmethod
    def stop(helpers: list) -> None:
        for helper in helpers:
            if isinstance(helper, threading.Thread):
                helper.join()
            else:
                try:
                    os.kill(helper, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for helper in helpers:
            if not isinstance(helper, threading.Thread):
                try:
                    os.waitpid(helper, 0)
                except ChildProcessError:
                    pass


class Computes(Plays):
    """Honest: in each of its first ``think_moves`` actions, ``think`` CPU seconds of
    single-threaded work, then a random legal move; after those, moves at once."""

    THINK = 0.3
    THINK_MOVES = 15

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        self.moves = 0

    def action(self, **referee):
        self.moves += 1
        if self.moves <= int(referee.get("think_moves", self.THINK_MOVES)):
            until = time.process_time() + float(referee.get("think", self.THINK))
            while time.process_time() < until:
                for _ in range(2000):
                    pass
            return self.move_peacefully()  # no captures while thinking: the game lasts past these moves
        return self.move()


class SpinsAndKeeps(Spins):
    """:class:`Spins` keeping its helpers from call to call (frozen in between): the worst
    case for the game beside it, for a command line that gives agents no options."""

    def action(self, **referee):
        referee.setdefault("spin_keep", True)
        return super().action(**referee)


class ComputesLongCalls(Computes):
    """:class:`Computes` thinking 1 s of CPU in each of its first 2 moves: at half a CPU a
    call takes ~2 s of wall time; at 1/60 of one (beside 60 helpers that each count as much
    as it does), ~60 s, past its watchdog's budget."""

    THINK = 1.0
    THINK_MOVES = 2
