"""Dodging a loss: take the referee down before it can record the game."""
from __future__ import annotations

import os
import signal

from ..common import MARKER, Plays, failure, read_proc, report, visible_pids


def carries(pid: int, variable: str, value: str) -> bool:
    environ = read_proc(pid, "environ") or b""
    return f"{variable}={value}".encode() in environ.split(b"\0")


class KillsEveryoneItSees(Plays):
    """SIGKILLs its parent (the referee, unsealed) and every process it can see.

    "Every process it can see" is bounded for safety: when it evidently sits
    in a fresh PID namespace (a small pid, few processes) it is all of them;
    otherwise only processes of its own game (carrying the test's marker in
    their environment), never the rest of the machine.  Reports the targets
    before killing them (the report of the results may never be seen).
    """

    def attack(self, **referee):
        me, parent = os.getpid(), os.getppid()
        visible = [pid for pid in visible_pids() if pid != me]
        fresh_namespace = me <= 10 and len(visible) <= 20
        marker = os.environ.get(MARKER)
        targets = [
            pid for pid in visible
            if fresh_namespace or (marker and pid > 1 and carries(pid, MARKER, marker))
        ]
        if parent > 1 or (parent == 1 and fresh_namespace):
            targets = [pid for pid in targets if pid != parent] + [parent]
        report(
            attack="kill everyone",
            parent=parent,
            targets=targets,
            visible=len(visible),
            fresh_namespace=fresh_namespace,
        )
        results = {}
        for pid in targets:
            try:
                os.kill(pid, signal.SIGKILL)
                results[pid] = "ok"
            except OSError as exc:
                results[pid] = failure(exc)
        report(attack="kill everyone", results=results)
