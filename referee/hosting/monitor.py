"""Measuring an agent process from the outside (Linux /proc and CPU clocks).

Everything here is read by the referee about the agent, never reported by
the agent, so an agent cannot lie about its time or memory:

* CPU time from the process's own CPU clock (``clock_gettime`` on the pid's
  clock id): nanosecond resolution, about half a microsecond a read;
* resident memory from ``/proc/PID/statm`` (a ``pread`` on a kept-open fd),
  and the kernel's high-water mark ``VmHWM`` from ``/proc/PID/status``, which
  catches a peak that came and went between two looks;
* the processes the agent started, found through ``/proc/PID/task/*/children``,
  whose CPU and memory count towards the agent's;
* how long the agent was ready to run but waiting for a CPU (the run-queue
  delay in ``/proc/PID/schedstat``), so the wall-clock watchdog does not
  blame an agent for a machine that is busy with other work.
"""
from __future__ import annotations

import os
import time

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
MB = 1024 * 1024


def _process_cpu_clock(pid: int) -> int:
    # Linux encodes "the CPU clock of process pid" as a negative clock id:
    # ((~pid) << 3) | CPUCLOCK_SCHED (2), the value clock_getcpuclockid() gives.
    return ((~pid) << 3) | 2


def children_of(pid: int) -> list[int]:
    """Direct children of every thread of ``pid`` (empty if it is gone)."""
    kids: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return kids
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                kids.extend(int(x) for x in f.read().split())
        except OSError:
            continue
    return kids


def descendants_of(pid: int) -> list[int]:
    found: list[int] = []
    frontier = children_of(pid)
    while frontier:
        child = frontier.pop()
        if child not in found:
            found.append(child)
            frontier.extend(children_of(child))
    return found


def _stat_fields(pid: int) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # The command name (field 2) may hold spaces; fields after it are plain.
    return data[data.rfind(b")") + 2 :].split()


def cpu_seconds_of(pid: int, own: bool = True) -> float:
    """CPU seconds of a process's reaped children and (if ``own``) its own, from /proc."""
    fields = _stat_fields(pid)
    if fields is None:
        return 0.0
    # After the name: state(0) ppid pgrp session tty tpgid flags minflt cminflt
    # majflt cmajflt utime(11) stime(12) cutime(13) cstime(14)
    wanted = (11, 12, 13, 14) if own else (13, 14)
    return sum(int(fields[i]) for i in wanted) / CLOCK_TICKS


def rss_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * PAGE_SIZE
    except (OSError, IndexError, ValueError):
        return 0


def session_members(session_id: int) -> list[int]:
    """Every process whose session id is ``session_id`` (agents run in their own)."""
    members = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = _stat_fields(int(name))
            if fields is not None and len(fields) > 3 and int(fields[3]) == session_id:
                members.append(int(name))
    return members


class ProcessMonitor:
    """CPU and memory of one agent process (and what it started)."""

    def __init__(self, pid: int, root: int | None = None):
        """``root``: the process whose descendants count (default ``pid``; inside
        namespaces, bwrap, which every process of the agent descends from)."""
        self.pid = pid
        self.root = pid if root is None else root
        self._clock = _process_cpu_clock(pid)
        self._statm = os.open(f"/proc/{pid}/statm", os.O_RDONLY)
        self._status = os.open(f"/proc/{pid}/status", os.O_RDONLY)
        try:
            self._schedstat: int | None = os.open(f"/proc/{pid}/schedstat", os.O_RDONLY)
        except OSError:  # a kernel built without scheduler statistics
            self._schedstat = None
        self._last_wait = 0.0
        self._last_cpu = 0.0
        self._child_cpu = 0.0  # CPU of running descendants at the last full look

    def close(self) -> None:
        # Each cleared before it is closed: a second close (after one cut short) closes nothing twice.
        for name in ("_statm", "_status", "_schedstat"):
            fd = getattr(self, name)
            setattr(self, name, None)
            if fd is None:
                continue
            try:
                os.close(fd)
            except OSError:
                pass

    def cpu(self) -> float:
        """CPU seconds of the agent process (all threads) plus, as of the last
        :meth:`look_at_descendants`, of the processes it started."""
        try:
            self._last_cpu = time.clock_gettime(self._clock)
        except OSError:
            pass  # exited: keep the last value we saw
        return self._last_cpu + self._child_cpu

    def cpu_wait(self) -> float:
        """Seconds the agent's main thread has spent runnable but waiting for
        a CPU since it started (0 where the kernel does not say)."""
        if self._schedstat is not None:
            try:
                # "<ns on a CPU> <ns waiting on a run queue> <time slices>"
                self._last_wait = int(os.pread(self._schedstat, 128, 0).split()[1]) / 1e9
            except (OSError, IndexError, ValueError):
                pass  # exited: keep the last value we saw
        return self._last_wait

    def rss(self) -> int:
        """Resident bytes of the agent process now."""
        try:
            return int(os.pread(self._statm, 128, 0).split()[1]) * PAGE_SIZE
        except (OSError, IndexError, ValueError):
            return 0

    def peak_rss(self) -> int:
        """The kernel's high-water mark of resident bytes (VmHWM)."""
        try:
            status = os.pread(self._status, 4096, 0)
        except OSError:
            return 0
        start = status.find(b"VmHWM:")
        if start < 0:
            return 0
        return int(status[start + 6 : status.find(b"kB", start)]) * 1024

    def look_at_descendants(self) -> int:
        """Refresh the descendants' CPU; returns their resident bytes now."""
        kids = [k for k in descendants_of(self.root) if k != self.pid]
        # Children the agent already reaped show up in its cutime/cstime; the
        # running ones are counted directly (inside namespaces, orphans are
        # reaped by bwrap's init, which is one of the descendants).
        self._child_cpu = cpu_seconds_of(self.pid, own=False) + sum(cpu_seconds_of(k) for k in kids)
        return sum(rss_of(k) for k in kids)
