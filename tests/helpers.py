"""What many test files share: where the project is, running the referee's
command, and waiting for something to happen.

- ``ROOT``: the project's folder (the commands run from there, as a user's would).
- :func:`run_referee`: ``python -m referee ...`` in a subprocess; its completed process.
- :func:`play_recorded`: the same with ``--record``; the process and the game's record.
- :func:`wait_until`: poll a condition until it holds, failing with what was awaited.

A test waits on an event (a file appears, a process starts, a line is printed)
with :func:`wait_until`, never on a fixed sleep: the timeout is only a failsafe.
"""
from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from referee.records import GameRecord

ROOT = Path(__file__).resolve().parents[1]

T = TypeVar("T")


def run_referee(
    *args: str,
    cwd: Path = ROOT,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``python -m referee *args`` run from ``cwd``, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        cwd=cwd, env=env, input=input, capture_output=True, text=True, timeout=timeout,
    )


def play_recorded(
    record: Path, *args: str, timeout: float = 60, env: Mapping[str, str] | None = None,
) -> tuple[subprocess.CompletedProcess[str], GameRecord]:
    """One game through the CLI with ``--record record``: the process and the record.

    Fails (with the referee's stderr) when the command does not succeed.
    """
    proc = run_referee("--record", str(record), *args, timeout=timeout, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc, GameRecord.from_json(record.read_text())


def wait_until(predicate: Callable[[], T], timeout: float, what: str, interval: float = 0.05) -> T:
    """Poll ``predicate`` until it returns something true, and return that.

    ``timeout`` (seconds) is a failsafe for a loaded machine, not a measure:
    past it the test fails saying it was waiting for ``what``.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"still waiting after {timeout:g} s for {what}")
        time.sleep(interval)
