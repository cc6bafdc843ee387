"""Memory held where the referee does not look (play with ``-s 100``).

Each agent holds :data:`SIZE` bytes (300 MB) outside its measured resident
memory and reports ``{"held_mb": MB}``, what it really held at most, at
every action; the referee must stop it for space or record a peak at least
that high.
"""
from __future__ import annotations

import mmap
import os
import select
import threading
import time

from ..common import MB, Plays, failure, helper_name, report, set_process_name

SIZE = 300 * MB
CHUNK = b"\x01" * MB


class Holds(Plays):
    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        self.held_mb = 0.0

    def action(self, **referee):
        if self.attacked:
            report(held_mb=round(self.held_mb, 1))
        return super().action(**referee)


class HoldsMemoryInADetachedGrandchild(Holds):
    """A grandchild in a session of its own, no descendant of the agent, holds 300 MB
    (touched) for up to a minute; the agent waits until it holds it."""

    def attack(self, **referee):
        ready_r, ready_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                if os.fork() == 0:
                    set_process_name(helper_name(self.seed))
                    hoard = b"\x01" * SIZE  # every page written: resident
                    os.write(ready_w, b"%d\n" % len(hoard))
                    time.sleep(60)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        os.close(ready_w)
        answer = b""
        if select.select([ready_r], [], [], 20)[0]:
            answer = os.read(ready_r, 64)
        os.close(ready_r)
        self.held_mb = int(answer or 0) / MB
        report(attack="detached grandchild", held_mb=self.held_mb)


class WritesToAFile(Holds):
    """Writes 300 MB into a file on a memory filesystem and keeps it."""

    def open(self) -> int:
        raise NotImplementedError

    def attack(self, **referee):
        written = 0
        try:
            fd = self.open()
            while written < SIZE:
                written += os.write(fd, CHUNK)
        except OSError as exc:
            report(attack=type(self).__name__, error=failure(exc))
        self.held_mb = written / MB
        report(attack=type(self).__name__, held_mb=self.held_mb)


class FillsDevShm(WritesToAFile):
    """300 MB in /dev/shm/hostile-SEED, left there (tmpfs pages are no process's resident memory)."""

    def open(self):
        self.path = f"/dev/shm/hostile-{self.seed}"
        return os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)


class FillsAMemfd(WritesToAFile):
    """300 MB in an anonymous memory file (memfd_create), kept open and never mapped."""

    def open(self):
        self.fd = os.memfd_create("hostile")
        return self.fd


class AllocatesBetweenCalls(Holds):
    """A thread allocates 300 MB (touched) just after a call has returned, while the
    opponent thinks, holds it for 50 ms and frees it before the agent's next call.

    Play against ``victim:SlowVictim``: its slow moves leave 0.6 s between calls.
    """

    reset_peak = False

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        self.in_call = False
        self.done = ""

    def action(self, **referee):
        self.in_call = True
        try:
            return super().action(**referee)
        finally:
            self.in_call = False

    def turn(self, color, action, **referee):
        self.in_call = True
        try:
            super().turn(color, action, **referee)
        finally:
            self.in_call = False

    def attack(self, **referee):
        threading.Thread(target=self.between_calls, daemon=True).start()
        report(attack=type(self).__name__)

    def between_calls(self):
        while self.in_call:  # the call that started us: its reply goes out when it returns
            time.sleep(0.001)
        time.sleep(0.02)  # past the turn() call that follows the agent's own action
        # Faulted in by the kernel at once (MAP_POPULATE): quicker than touching each page.
        hoard = mmap.mmap(-1, SIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE)
        self.held_mb = len(hoard) / MB
        time.sleep(0.05)
        hoard.close()
        if self.reset_peak:
            # "5" resets the kernel's high-water mark of resident memory (VmHWM).
            try:
                with open("/proc/self/clear_refs", "w") as f:
                    f.write("5")
                self.done = "peak reset"
            except OSError as exc:
                self.done = f"peak reset failed: {failure(exc)}"
        else:
            self.done = "freed"
        report(thread=self.done, held_mb=self.held_mb)


class AllocatesBetweenCallsAndResetsPeak(AllocatesBetweenCalls):
    """The same, then writes "5" to /proc/self/clear_refs: the kernel forgets the peak."""

    reset_peak = True
