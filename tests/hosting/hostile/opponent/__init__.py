"""Attacks on the opponent's process (play against ``hostile.victim:Victim``).

Each finds the opponent in /proc (an agent host that is not itself nor its
parent, named after the game's seed by the victim) at its first action and
does one thing to it, then plays on.  It reports
``{"attack", "found", "seen", "result", ...}``: ``found`` whether it saw
the opponent, ``seen`` how many other agent processes it saw, ``result``
``ok`` or the error the attack met.
"""
from __future__ import annotations

import os
import re
import signal

from ..common import Plays, agent_host_fds, failure, find_opponent, read_proc, report


class AttacksOpponent(Plays):
    name = "?"

    def hit(self, pid: int) -> dict:
        """Do it to the opponent's process; returns details for the report."""
        raise NotImplementedError

    def attack(self, **referee):
        pid, seen = find_opponent(self.seed)
        facts = {"attack": self.name, "found": pid is not None, "seen": seen}
        if pid is not None:
            try:
                facts.update(self.hit(pid))
                facts.setdefault("result", "ok")
            except OSError as exc:
                facts["result"] = failure(exc)
        report(**facts)


class SigkillsOpponent(AttacksOpponent):
    name = "SIGKILL"

    def hit(self, pid):
        os.kill(pid, signal.SIGKILL)
        return {}


class SigstopsOpponent(AttacksOpponent):
    name = "SIGSTOP"

    def hit(self, pid):
        os.kill(pid, signal.SIGSTOP)
        return {}


class SigintsOpponent(AttacksOpponent):
    name = "SIGINT"

    def hit(self, pid):
        os.kill(pid, signal.SIGINT)
        return {}


class ForgesOpponentsReply(AttacksOpponent):
    """Writes a reply in the opponent's name into its reply pipe (/proc/PID/fd/REPLY_FD)."""

    name = "forged reply"
    line = b'{"ok":true,"action":"SPAWN(0, 0)"}\n'

    def hit(self, pid):
        _, reply_fd = agent_host_fds(pid)
        fd = os.open(f"/proc/{pid}/fd/{reply_fd}", os.O_WRONLY | os.O_NONBLOCK)
        try:
            os.write(fd, self.line)
        finally:
            os.close(fd)
        return {"reply_fd": reply_fd}


class WritesGarbageIntoOpponentsPipe(ForgesOpponentsReply):
    name = "garbage reply"
    line = b"\x00\xff garbage {\"ok\": tru\n"


class ReadsOpponentsMemory(AttacksOpponent):
    """Reads the opponent's writable memory through /proc/PID/mem, looking for its secret."""

    name = "read /proc/PID/mem"

    def hit(self, pid):
        secret = b"victim-secret-%d" % (self.seed or 0)
        maps = read_proc(pid, "maps")
        if maps is None:
            raise PermissionError(f"cannot read /proc/{pid}/maps")
        read = 0
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
            for line in maps.decode().splitlines():
                match = re.match(r"([0-9a-f]+)-([0-9a-f]+) rw", line)
                if not match:
                    continue
                start, end = int(match[1], 16), int(match[2], 16)
                if end - start > 256 * 1024 * 1024:
                    continue
                try:
                    mem.seek(start)
                    chunk = mem.read(end - start)
                except OSError:
                    continue
                read += len(chunk)
                if secret in chunk:
                    return {"bytes_read": read, "secret_found": True}
        if not read:
            raise PermissionError(f"no memory of {pid} could be read")
        return {"bytes_read": read, "secret_found": False}


class ReadsOpponentsEnviron(AttacksOpponent):
    name = "read /proc/PID/environ"

    def hit(self, pid):
        with open(f"/proc/{pid}/environ", "rb") as f:
            environ = f.read()
        return {"bytes_read": len(environ), "variables": environ.count(b"\0")}


class SlowsOpponentDown(AttacksOpponent):
    """Puts the opponent in SCHED_IDLE (it runs only when nothing else wants a CPU) and pins it to CPU 0."""

    name = "SCHED_IDLE + affinity"

    def hit(self, pid):
        facts = {}
        try:
            os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
            facts["sched_idle"] = os.sched_getscheduler(pid) == os.SCHED_IDLE
        except OSError as exc:
            facts["sched_idle"] = failure(exc)
        try:
            os.sched_setaffinity(pid, {0})
            facts["pinned"] = os.sched_getaffinity(pid) == {0}
        except OSError as exc:
            facts["pinned"] = failure(exc)
        facts["result"] = "ok" if facts["sched_idle"] is True or facts["pinned"] is True else "failed"
        return facts
