"""A program (not an agent) run sealed: a Part A solver, once per board, behind the walls Part B's agents have.

An agent is served by the agent host (:mod:`referee.hosting.process`),
which drops its privileges itself; a program is any command (``python -m
search``, a shell script), run once with a board on its stdin.  It gets
each wall of :mod:`referee.hosting.sandbox` that this machine offers and
``REFEREE_SANDBOX_WITHOUT`` does not leave out, as an agent does:

* **namespaces** (bubblewrap, :func:`referee.hosting.mounts.program_command`):
  its folder read-only, a private ``/tmp``, no network, its own PIDs, so
  whatever it starts ends with it;
* **the system-call filter** (:mod:`referee.hosting.seccomp`): no
  namespaces of its own, no keyring, no mounts, no tracing;
* **a user of its own** (:mod:`referee.hosting.users`) when the referee is
  root: bubblewrap starts :data:`BOOT` in the sandbox's Python with
  ``CAP_SETUID``/``CAP_SETGID``; it becomes that user for good (which drops
  the two capabilities) and only then executes the command, so nothing of
  the student's runs as root;
* **a cgroup**: a hard memory cap (the kernel stops the program there, all
  its processes together), the pids limit, and the CPU time and peak memory
  of every process it ran, counted by the kernel.

:class:`SealedRun` only builds the command and holds the walls: the caller
runs :attr:`SealedRun.command` (handing it :attr:`SealedRun.pass_fds`), and
leaving the ``with`` block, once the command has ended, reads what the
kernel counted (:attr:`SealedRun.usage`), kills what is left, and hands the
user and the cgroup back.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from collections.abc import Iterable

from . import seccomp, users
from .mounts import program_command
from .sandbox import Cgroup, Sandbox, become_subreaper, enter_cgroup_command, new_cgroup, probe, reap_orphan

#: What the sandbox's Python runs first when the program is to be a user of its own
#: (``python -I -S -c BOOT UID GID COMMAND...``): every uid and gid switched for good, then the command.
BOOT = (
    "import os, sys\n"
    "uid, gid = int(sys.argv[1]), int(sys.argv[2])\n"
    "os.setgroups([])\n"
    "os.setresgid(gid, gid, gid)\n"
    "os.setresuid(uid, uid, uid)\n"
    "try:\n"
    "    os.execvp(sys.argv[3], sys.argv[3:])\n"
    "except OSError as exc:\n"
    "    os.write(2, f'cannot run {sys.argv[3]!r}: {exc.strerror or exc}\\n'.encode())\n"
    "    os._exit(127)\n"
)
MB = 1024 * 1024


@dataclass(frozen=True)
class Usage:
    """What the kernel counted of one run; None where nothing counted it (no cgroup)."""

    cpu_seconds: float | None = None
    peak_bytes: int | None = None
    #: The cgroup hit its memory cap (the kernel then stops the program, unless it could reclaim cache).
    over_memory: bool = False


def layers(sandbox: Sandbox, memory_cap: int | None) -> dict[str, object]:
    """The walls a program runs within, for the results: the sandbox's layers and the memory cap in MB
    (None: no cap held, for want of a cgroup or because none was asked for)."""
    found = sandbox.to_json()
    found.pop("frozen", None)  # a program runs once, straight through
    found["memory_cap_mb"] = memory_cap / MB if memory_cap and sandbox.cgroup else None
    return found


class SealedRun:
    """One run of ``command`` from ``workdir`` within ``sandbox``'s walls; use it as a context manager.

    ``libraries``: more folders the program may import from (read-only).
    ``memory_cap``: bytes all its processes may hold together (None: no cap).
    """

    def __init__(self, sandbox: Sandbox, command: list[str], workdir: Path, libraries: Iterable[str] = (),
                 memory_cap: int | None = None) -> None:
        self.sandbox = sandbox
        self.command = list(command)
        self.workdir = workdir
        self.libraries = list(libraries)
        self.memory_cap = memory_cap
        #: Descriptors the command must inherit (the filter, bubblewrap's info pipe).
        self.pass_fds: tuple[int, ...] = ()
        self.usage = Usage()
        self.user: users.Claim | None = None
        self.cgroup: Cgroup | None = None
        self._info: int | None = None  # where bubblewrap says its init's pid

    def __enter__(self) -> SealedRun:
        try:
            self._build()
        except BaseException:
            self._end()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._end()

    def _build(self) -> None:
        sandbox = self.sandbox
        if sandbox.namespaces:
            bwrap = probe().bwrap
            assert bwrap is not None, "resolve() hands out namespaces only where bwrap works"
            become_subreaper()  # bubblewrap leaves its init to be reaped: see there
            self.user = sandbox.agent_user()
            if self.user is not None:
                self.command = [sys.executable, "-I", "-S", "-c", BOOT, str(self.user.uid), str(self.user.gid),
                                *self.command]
            filter_fd = None
            if sandbox.seccomp:
                code = seccomp.program()
                assert code is not None, "resolve() filters system calls only where a filter exists"
                filter_fd = seccomp.program_fd(code)
                self.pass_fds += (filter_fd,)
            self._info, info_w = os.pipe()
            os.set_blocking(self._info, False)
            self.pass_fds += (info_w,)
            self.command = program_command(bwrap, self.command, self.workdir, self.libraries, filter_fd,
                                           self.user is not None, info_w)
        if sandbox.cgroup:
            self.cgroup = new_cgroup(sandbox.accounting, nested=sandbox.nested, cpu_share=sandbox.cpu_share)
            if self.memory_cap:
                self.cgroup.cap_memory(self.memory_cap)  # before anything of the program's runs
            command = enter_cgroup_command(self.cgroup, self.command)
            self.command = command

    def _sandbox_init(self) -> int | None:
        """The pid of bubblewrap's init, as bubblewrap wrote it (``--info-fd``); None if it did not."""
        if self._info is None:
            return None
        try:
            text = os.read(self._info, 4096)
        except OSError:  # nothing written: bubblewrap never started its sandbox
            return None
        try:
            pid = json.loads(text).get("child-pid")
        except (ValueError, AttributeError):
            return None
        return pid if isinstance(pid, int) else None

    def _end(self) -> None:
        group = self.cgroup
        if group is not None:
            try:
                self.usage = Usage(group.cpu(), group.peak(), bool(self.memory_cap) and group.out_of_memory())
            except (OSError, ValueError, KeyError):
                pass
            group.kill_all()
        init = self._sandbox_init()
        if init is not None:
            reap_orphan(init)  # once it is gone, so is every process of its namespace
        if group is not None:
            group.remove()
            self.cgroup = None
        for fd in (*self.pass_fds, *([self._info] if self._info is not None else [])):
            try:
                os.close(fd)
            except OSError:
                pass
        self.pass_fds, self._info = (), None
        if self.user is not None:
            self.user.release()  # every process of the program has ended: the uid can go to another
            self.user = None
