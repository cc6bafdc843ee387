"""Agents that step out of the sandbox's rules through the kernel: their own
namespaces and cgroup views (to rewrite their own accounting), the kernel's
keyring (notes to the opponent and to later games), the environment.

Each reports what every step did (``HOSTILE {json}`` lines, see ``common``).
"""
from __future__ import annotations

import ctypes
import errno
import os
import threading
import time

from ..common import Plays, failure, report

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUSER = 0x20000, 0x02000000, 0x10000000
#: CPU seconds the accounting attack burns (over the -t 1 its tests give).
BURN = 2.5
#: Processes the pids attack tries to have at once (the sandbox allows 64).
FORKS = 100


def _outcome(result: int) -> str:
    """``ok`` for a libc call that returned 0 or more, else the error's name."""
    if result >= 0:
        return "ok"
    return f"OSError({errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno())})"


def _write(path: str, text: str) -> str:
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as exc:
        return failure(exc)
    return "ok"


class RewritesItsAccounting(Plays):
    """Makes a user namespace of its own (every capability in it), mounts the
    cgroup controllers in a mount namespace of its own, and finds its own
    cgroup at the root of them (a cgroup namespace of its own).  Then it
    raises its process cap and forks past it, raises its memory cap, and,
    while it burns :data:`BURN` CPU seconds in its first action, writes 0 to
    its CPU counter every millisecond.  Play with ``-t 1``."""

    def attack(self, **referee):
        steps: dict[str, object] = {}
        steps["unshare"] = _outcome(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP))
        mounted = {}
        if steps["unshare"] == "ok":
            # Mounts made in this namespace must not spread to the sandbox's.
            _libc.mount(b"none", b"/", None, 0x40000 | 0x4000, None)  # MS_REC | MS_PRIVATE
            for controller in ("cpuacct", "memory", "pids"):
                folder = f"/tmp/cgroup-{controller}"
                os.makedirs(folder, exist_ok=True)
                if _libc.mount(b"cgroup", folder.encode(), b"cgroup", 0, controller.encode()) == 0:
                    mounted[controller] = folder
            if not mounted:
                os.makedirs("/tmp/cgroup2", exist_ok=True)
                if _libc.mount(b"cgroup2", b"/tmp/cgroup2", b"cgroup2", 0, None) == 0:
                    mounted = dict.fromkeys(("cpuacct", "memory", "pids"), "/tmp/cgroup2")
        steps["mounted"] = sorted(mounted)
        v2 = mounted.get("pids") == "/tmp/cgroup2"
        if "pids" in mounted:
            steps["pids_max"] = _write(os.path.join(mounted["pids"], "pids.max"), "max")
        if "memory" in mounted:
            cap = "memory.max" if v2 else "memory.limit_in_bytes"
            steps["memory_cap"] = _write(os.path.join(mounted["memory"], cap), str(8 << 30))
        steps["processes"] = self.fork_many()
        counter = None if v2 or "cpuacct" not in mounted else os.path.join(mounted["cpuacct"], "cpuacct.usage")
        steps["cpu_reset"] = _write(counter, "0") if counter else "no counter"
        report(attack="rewrite its accounting", **steps)
        if steps["cpu_reset"] == "ok":
            assert counter is not None
            threading.Thread(target=self.keep_resetting, args=(counter,), daemon=True).start()
        burn_until = time.process_time() + BURN
        while time.process_time() < burn_until:
            pass
        report(burnt=round(time.process_time(), 2))

    def fork_many(self) -> int:
        """How many processes it could have at once (up to FORKS), counting itself; all gone after."""
        children = []
        try:
            for _ in range(FORKS - 1):
                pid = os.fork()
                if pid == 0:
                    time.sleep(30)
                    os._exit(0)
                children.append(pid)
        except OSError:
            pass
        for pid in children:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        return len(children) + 1

    def keep_resetting(self, counter: str) -> None:
        fd = os.open(counter, os.O_WRONLY)
        while True:
            try:
                os.pwrite(fd, b"0", 0)
            except OSError:
                pass
            time.sleep(0.001)

    def action(self, **referee):
        if self.attacked:
            report(burnt=round(time.process_time(), 2))
        return super().action(**referee)


KEY_SPEC_USER_KEYRING = -4
SYS_ADD_KEY, SYS_KEYCTL = 248, 250  # x86_64
KEYCTL_SEARCH, KEYCTL_READ = 10, 11


def note_name(seed: int | None, color) -> str:
    return f"referee-test-note-{seed}-{color.name}"


def add_note(name: str, text: str) -> str:
    data = text.encode()
    return _outcome(_libc.syscall(SYS_ADD_KEY, b"user", name.encode(), data, len(data), KEY_SPEC_USER_KEYRING))


def read_note(name: str) -> str:
    """The note's text, or why it cannot be read."""
    key = _libc.syscall(SYS_KEYCTL, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user", name.encode(), 0)
    if key < 0:
        return _outcome(key)
    buffer = ctypes.create_string_buffer(256)
    size = _libc.syscall(SYS_KEYCTL, KEYCTL_READ, ctypes.c_long(key), buffer, 256)
    return buffer.raw[:size].decode() if size >= 0 else _outcome(size)


class KeepsNotesInTheKeyring(Plays):
    """Both colours play it: each leaves a note under its own name in the
    user's keyring at its first action, and at every action reads the
    other's (a channel between opponents, and, since notes outlive the game,
    between games).  Reports ``{"wrote": ...}`` and ``{"read": ...}``."""

    def attack(self, **referee):
        mine = note_name(self.seed, self.color)
        report(wrote=add_note(mine, f"note from {self.color.name}"))

    def action(self, **referee):
        chosen = super().action(**referee)
        other = note_name(self.seed, self.color.opponent)
        report(read=read_note(other))
        return chosen


class ReadsTheEnvironment(Plays):
    """Reports the names of every environment variable it got, then raises an
    exception whose message holds the whole environment (a message lands in
    the record and on the console)."""

    def attack(self, **referee):
        report(environment=sorted(os.environ))
        raise SystemExit("my environment: " + repr(dict(os.environ)))

    def action(self, **referee):
        if not self.attacked:
            self.attacked = True
            self.attack(**referee)
        return super().action(**referee)


class RaisesALoneSurrogate(Plays):
    """Raises at its first action with a message holding a lone surrogate, which
    JSON carries but no UTF-8 file can hold (a record that could not be written)."""

    def action(self, **referee):
        raise ValueError("half a character: \ud800 then more")
