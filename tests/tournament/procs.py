"""Finding the processes a test started, by a marker in their environment."""
from __future__ import annotations

import os
from pathlib import Path

from tests.helpers import wait_until

MARK = "REFEREE_TOURNAMENT_TEST_MARK"


def marked_processes(mark: str) -> list[int]:
    """Pids of live processes whose environment holds MARK=mark (workers and agents inherit it)."""
    needle = f"{MARK}={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def wait_until_gone(mark: str, seconds: float = 15.0) -> list[int]:
    """The marked processes still alive after waiting up to ``seconds`` for them to end (the callers assert none)."""
    try:
        wait_until(lambda: not marked_processes(mark), seconds, f"the processes marked {mark} to end", interval=0.1)
    except AssertionError:
        return marked_processes(mark)  # the caller's assertion names them
    return []
