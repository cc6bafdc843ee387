"""Games the hosting tests play through the real command line, and the processes a game leaves behind.

- :func:`processes_of` (and :func:`pythons_of`): the living processes of a game, by the marker in their
  environment (``REFEREE_TEST_PIDS``, which the referee passes on to its agents and they to theirs).
- :func:`assert_nothing_left`: fails naming the processes of a game still alive.
- :func:`referee`, :func:`game`: one game at ``-v 1`` with a record, and nothing of it left afterwards.
"""
from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from tests.helpers import ROOT, run_referee

FIX = "tests.hosting.fixture_agents.misbehave"
RANDOM = "agents.random_agent"


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def processes_of(marker: str) -> list[int]:
    """Living processes whose environment carries ``REFEREE_TEST_PIDS=marker``.

    Every agent process of a game, and everything an agent starts, inherits
    the referee's environment, so this finds what a game left behind (both
    agents and any descendants, detached or not) without trusting the agents
    to say who they are.
    """
    needle = f"REFEREE_TEST_PIDS={marker}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if needle in environ and alive(int(entry)):
            found.append(int(entry))
    return found


def pythons_of(marker: str) -> list[int]:
    """Those of :func:`processes_of` that run Python (not bwrap, nor a command a probe runs)."""
    found = []
    for pid in processes_of(marker):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().startswith("python"):
                    found.append(pid)
        except OSError:
            continue
    return found


def assert_nothing_left(marker: str) -> None:
    left = processes_of(marker)
    for _ in range(20):  # killed processes may take a moment to be reaped
        if not left:
            return
        time.sleep(0.05)
        left = processes_of(marker)
    assert not left, f"processes left behind: {left}"


def referee(
    tmp_path: Path, red: str, blue: str, *options: str, timeout: float = 60, cwd: Path = ROOT, env: dict | None = None
) -> tuple[int, dict | None, str, str, list[int]]:
    """Run one game; returns (exit status, record dict, stdout, stderr, pids).

    ``cwd``: where the referee runs (and imports the agents from); ``env``:
    extra environment variables.  Afterwards no process of the game may be
    alive, whoever started it.  ``pids`` are those the agents could note
    (none when sealed: the file is out of their sight).
    """
    record = tmp_path / "record.json"
    pids = tmp_path / "pids.txt"
    env = dict(os.environ, **(env or {}), REFEREE_TEST_PIDS=str(pids))
    proc = run_referee("-v", "1", "--record", str(record), *options, red, blue, cwd=cwd, env=env, timeout=timeout)
    data = json.loads(record.read_text()) if record.exists() else None
    noted = [int(x) for x in pids.read_text().split()] if pids.exists() else []
    assert_nothing_left(str(pids))
    return proc.returncode, data, proc.stdout, proc.stderr, noted


def game(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess, dict | None]:
    """``python -m referee -v 1 --record ... *args``: the process and the record (None if none was written).

    ``env``: more environment variables.  Afterwards no process of the game may be alive.
    """
    record = tmp_path / "record.json"
    marker = str(tmp_path / "marker")
    proc = run_referee(
        "-v", "1", "--record", str(record), *args, timeout=120,
        env={**os.environ, **(env or {}), "REFEREE_TEST_PIDS": marker},
    )
    assert_nothing_left(marker)
    return proc, (json.loads(record.read_text()) if record.exists() else None)
