"""What every tournament test needs before it starts."""
from __future__ import annotations

from multiprocessing import resource_tracker

import pytest


@pytest.fixture(autouse=True, scope="session")
def resource_tracker_started_unmarked() -> None:
    """Start multiprocessing's resource tracker before any test marks its processes (procs.MARK).

    The tracker starts at a process's first use of a spawned process and lives as long as that process: started
    inside a test that put the mark in the environment, it inherited the mark and passed for a process the
    test's games left behind (seen when test_executor.py ran first in its xdist worker)."""
    resource_tracker.ensure_running()
