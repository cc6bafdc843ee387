"""Agents that misbehave in one way each, for the isolation tests.

Each plays legal random moves except for its one fault.  Every agent writes
its process id (and any child's) to the file named by ``REFEREE_TEST_PIDS``,
so the tests can check that nothing outlives the game.
"""
from __future__ import annotations

import ctypes
import os
import random
import subprocess
import sys
import time

from referee.game import HexPos, HexVec, PlayerColor, SpawnAction, SpreadAction
from referee.game.actions import from_engine_action, to_engine_action
from referee.games.infexion import InfexionState


def note_pid(pid: int) -> None:
    print(f"pid noted: {pid}", file=sys.stderr, flush=True)
    path = os.environ.get("REFEREE_TEST_PIDS")
    if path:
        try:
            with open(path, "a") as f:
                f.write(f"{pid}\n")
        except OSError:
            pass  # sealed: the test's folder is out of sight (the tests find leftovers by environment)


class Plays:
    """A legal random player that records its pid; the faults override it."""

    def __init__(self, color: PlayerColor, **referee):
        note_pid(os.getpid())
        self.state = InfexionState()
        self.rng = random.Random(0)

    def action(self, **referee):
        return from_engine_action(self.rng.choice(self.state.legal_actions()))

    def turn(self, color: PlayerColor, action, **referee):
        self.state.apply(to_engine_action(action))


class RaiseInInit(Plays):
    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        raise RuntimeError("cannot start")


class RaiseInAction(Plays):
    def action(self, **referee):
        return 1 / 0


class RaiseInTurn(Plays):
    def turn(self, color, action, **referee):
        raise ValueError("turn went wrong")


class ReturnNone(Plays):
    def action(self, **referee):
        return None


class ReturnTuple(Plays):
    def action(self, **referee):
        return ("SPAWN", 3, 3)


class ReturnString(Plays):
    def action(self, **referee):
        return "SPAWN(3, 3)"


class ReturnWrongType(Plays):
    def action(self, **referee):
        # A SpreadAction whose "direction" is not one of the six.
        return SpreadAction(HexPos(0, 0), HexVec(1, 1))


class IllegalAction(Plays):
    def action(self, **referee):
        return SpreadAction(HexPos(6, 6), HexVec(0, 1))  # from an empty cell


class CpuLoop(Plays):
    def action(self, **referee):
        while True:
            pass


class ReportsItsCpuLimit(Plays):
    def action(self, **referee):
        import resource

        raise RuntimeError(f"RLIMIT_CPU {resource.getrlimit(resource.RLIMIT_CPU)}")


class SlowOnABusyMachine(Plays):
    """Honest but slow: its first action spends 1.2 s of CPU; the next one
    fails on purpose, saying how long (wall-clock) the first one took."""

    first_wall = None

    def action(self, **referee):
        if self.first_wall is not None:
            raise RuntimeError(f"first action took {self.first_wall:.2f} s of wall-clock time")
        start, cpu = time.monotonic(), time.process_time()
        while time.process_time() - cpu < 1.2:
            pass
        self.first_wall = time.monotonic() - start
        return super().action(**referee)


class ThinksAQuarterSecond(Plays):
    """Honest: each action spends 0.25 s of CPU (its clock moves by a known amount a move)."""

    def action(self, **referee):
        cpu = time.process_time()
        while time.process_time() - cpu < 0.25:
            pass
        return super().action(**referee)


class StarvesItself(Plays):
    """Computes at the lowest priority it can give itself, so that it mostly
    waits for a CPU: the wait must not buy it wall-clock time for free."""

    def action(self, **referee):
        os.nice(19)
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except OSError:
            pass
        try:  # with autogroups, priority between sessions is the group's
            with open("/proc/self/autogroup", "w") as f:
                f.write("19")
        except OSError:
            pass
        while True:
            pass


class FailsWhenRestarted(Plays):
    """Plays until the file named by ``REFEREE_TEST_FLAG`` exists; a process started after that fails."""

    def __init__(self, color, **referee):
        flag = os.environ.get("REFEREE_TEST_FLAG")
        if flag and os.path.exists(flag):
            raise RuntimeError("started again after the flag")
        super().__init__(color, **referee)


class Sleeps(Plays):
    def action(self, **referee):
        time.sleep(600)


class MemoryHog(Plays):
    def action(self, **referee):
        hoard = []
        while True:
            hoard.append(bytearray(8 * 1024 * 1024))  # zero-filled: really resident


class BigAllocation(Plays):
    def action(self, **referee):
        return [0] * (10**13)  # far more than the machine has: MemoryError


class OsExit(Plays):
    def action(self, **referee):
        os._exit(3)


class Segfault(Plays):
    def action(self, **referee):
        ctypes.string_at(0)


class RaisesSystemExit(Plays):
    def action(self, **referee):
        sys.exit(0)


class RaisesKeyboardInterrupt(Plays):
    def action(self, **referee):
        raise KeyboardInterrupt


class PrintsALot(Plays):
    def action(self, **referee):
        print("thinking out loud on stdout", flush=True)
        print("and on stderr", file=sys.stderr, flush=True)
        return super().action(**referee)


class WritesEverywhere(Plays):
    def action(self, **referee):
        junk = b"\x00\xff\xfe garbage {\"ok\": tru\n\x80\n"
        for fd in range(1024):
            try:
                os.write(fd, junk)
            except OSError:
                pass
        return super().action(**referee)


class FloodsStderr(Plays):
    def action(self, **referee):
        chunk = b"x" * (1 << 20)
        if self.state.turn < 2:
            for _ in range(200):  # 200 MB
                os.write(2, chunk)
        return super().action(**referee)


class LeavesAChild(Plays):
    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        note_pid(child.pid)


class LeavesADetachedChild(Plays):
    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        # A child in its own process group (but the agent's session).
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], preexec_fn=os.setpgrp)
        note_pid(child.pid)


class ChildBurnsCpu(Plays):
    def action(self, **referee):
        # The work happens in a child process: it must count as the agent's.
        subprocess.run([sys.executable, "-c", "while True: pass"])
        return super().action(**referee)


class ChecksKwargs(Plays):
    """Fails (with a message) unless it gets what the protocol promises."""

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        self.check(referee)
        self.color = color

    def check(self, referee):
        for key in ("time_remaining", "space_limit", "space_remaining"):
            if key not in referee:
                raise AssertionError(f"missing {key}")

    def action(self, **referee):
        self.check(referee)
        return super().action(**referee)

    def turn(self, color, action, **referee):
        self.check(referee)
        if not isinstance(color, PlayerColor) or not isinstance(action, (SpawnAction, SpreadAction)):
            raise AssertionError(f"bad turn arguments {color!r} {action!r}")
        super().turn(color, action, **referee)


class ListsItsFds(Plays):
    """Prints the file descriptors it holds (the sandbox test wants only its own pipes)."""

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
        targets = []
        for fd in fds:
            try:
                targets.append(os.readlink(f"/proc/self/fd/{fd}"))
            except OSError:
                targets.append("?")
        print("fds:", " ".join(f"{fd}={t}" for fd, t in zip(fds, targets)), flush=True)


def think_forever() -> None:
    """A search that never returns (named, so that the stack the referee keeps shows it)."""
    while True:
        pass


class LoopsInTurn(Plays):
    def turn(self, color, action, **referee):
        think_forever()


class LoopsInInit(Plays):
    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        think_forever()


class FloodsThenLoops(Plays):
    """Prints 5 MB in its first action, then never returns."""

    def action(self, **referee):
        line = "x" * 1023 + "\n"
        for _ in range(5 * 1024):
            sys.stdout.write(line)
        sys.stdout.flush()
        think_forever()


class ShowsItsOptions(Plays):
    """Prints the keyword arguments it gets that are not the referee's own, once."""

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        from referee.games.agent_kwargs import REFEREE_KWARGS

        mine = {k: v for k, v in referee.items() if k not in REFEREE_KWARGS}
        print(f"options: {sorted(mine.items())!r}", flush=True)


class TellsItsLimits(Plays):
    """Refuses to start, saying the limits the referee told it (its load error carries them to the record)."""

    def __init__(self, color, **referee):
        told = f"time_remaining={referee['time_remaining']} space_limit={referee['space_limit']}"
        raise RuntimeError(f"{color.name}: {told}")
