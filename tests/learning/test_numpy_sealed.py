"""numpy in the sandbox: an agent may have 64 processes and threads in all (the pids limit), and numpy's OpenBLAS
starts one thread per CPU as it loads, so where the CPUs outnumber the free places numpy's import fails.  A learned
agent's folder imports ``referee.learning.agent`` first, which keeps OpenBLAS to one thread.

Here the agent takes every place first (a machine of 62 CPUs or more, seen from a machine of 2), then imports
numpy, sealed: alone its import fails (OpenBLAS says why, then raises SIGINT); after ``referee.learning.agent``
it plays.
"""
from __future__ import annotations

import os

import pytest

from tests.helpers import play_recorded
from tests.sandboxing import require_sandbox

import numpy  # noqa: F401

CROWDED = "tests.learning.agent_folders.crowded"


@pytest.mark.parametrize("learning_first", [False, True])
def test_numpy_loads_in_a_full_sandbox_only_after_the_learning_agent_module(learning_first, tmp_path):
    require_sandbox()
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one CPU: OpenBLAS starts no thread of its own")
    option = ["--red-option", "learning_first=1"] if learning_first else []
    proc, record = play_recorded(tmp_path / "game.json", "--sandbox", "required", "-v", "2", "-t", "60",
                                 "--game", "cachex", "-n", "3", "--seed", "1", *option, CROWDED, "agents.random_agent")
    if learning_first:
        assert record.error["RED"] is None, record.error
        assert record.reason == "connection", record.message
    else:
        assert record.error["RED"] is not None and record.error["RED"]["kind"] == "load_error", record.error
        # OpenBLAS prints why, then raises SIGINT: the agent's import ends in a KeyboardInterrupt.
        assert "OpenBLAS blas_thread_init: pthread_create failed" in proc.stdout, proc.stdout
        assert "Agent() raised KeyboardInterrupt" in record.error["RED"]["message"], record.error
