"""A user of its own for each sealed agent, so that no per-user kernel limit or object is shared.

The kernel keeps some limits and objects per user, not per process or per
namespace: the number of processes (``RLIMIT_NPROC``), pending signals,
pipe buffer pages (``pipe-user-pages-soft``: past it, every new pipe of that
user gets 2 pages), inotify instances and watches, file descriptors in
flight over Unix sockets, the keyring.  Were every agent the same user, one
agent could use up a limit and so fail or slow every other agent on the
machine, its opponent and the agents of games running beside it, and such
a limit would be a channel between them.  So when the referee runs as root
each agent gets a uid (and a gid) of its own, as IOI's ``isolate`` gives each
box its own.

A uid is claimed by taking an exclusive ``flock`` on its slot's file in a
folder only root can write (:func:`claim`); the lock lasts as long as the
referee holds the :class:`Claim` (a referee that dies releases it with its
file descriptors), so referees, tournament workers and marking runs on one
machine never hand out the same uid at once.  A uid is handed out again
only after its agent has ended: every process of the agent is dead by then
(its namespace's init is killed with it), so nothing of it is left to share.
"""
from __future__ import annotations

import fcntl
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: The first uid (and gid) handed to agents, and how many there are: far
#: above the users of a system (below 60000) and the usual subordinate uid
#: ranges of containers (100000 upwards, 65536 per user).
FIRST_UID = 1_900_000_000
SLOTS = 4096
#: Where the slots' lock files live (made by root, mode 0700).
LOCK_DIRS = (Path("/run/referee-agent-users"), Path(tempfile.gettempdir()) / "referee-agent-users")
#: What every agent is when each gets no user of its own (``nobody``/``nogroup`` on Debian and Ubuntu).
SHARED_UID = 65534


class NoUserFree(RuntimeError):
    """Every slot is taken (more than :data:`SLOTS` agents at once on this machine)."""


@dataclass
class Claim:
    """A uid held for one agent until :meth:`release` (or until this process ends)."""

    uid: int
    gid: int
    _fd: int | None = None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor drops the lock
            self._fd = None


def _lock_dir() -> Path:
    for folder in LOCK_DIRS:
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            info = folder.stat()
        except OSError:
            continue
        # Only a folder root owns and no one else can write holds slots that cannot be forged.
        if info.st_uid == 0 and not info.st_mode & 0o022:
            return folder
    raise NoUserFree(f"no folder for the agents' uid locks could be made ({', '.join(map(str, LOCK_DIRS))})")


def claim(start: int | None = None) -> Claim:
    """A uid no other agent on this machine has now; raises :class:`NoUserFree` when all are taken.

    ``start``: the slot to try first (default: one picked from this process's
    id, so that referees running side by side seldom try the same slots).
    """
    folder = _lock_dir()
    first = (os.getpid() * 7 if start is None else start) % SLOTS
    for step in range(SLOTS):
        slot = (first + step) % SLOTS
        fd = os.open(folder / f"{slot}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return Claim(FIRST_UID + slot, FIRST_UID + slot, fd)
    raise NoUserFree(f"all {SLOTS} agent users are taken (more than {SLOTS} agents at once on this machine?)")


def shared() -> Claim:
    """The one user every agent is when each gets none of its own (tests that show why they should)."""
    return Claim(SHARED_UID, SHARED_UID)
