"""Ctrl-C, SIGTERM and SIGHUP while a command checks the sandbox, before any agent starts (real subprocesses).

The check runs bwrap; here a stand-in ``bwrap`` on PATH that hangs, so the
signal is sure to land during the check.  The command must stop the way it
does during a game: the signal's exit status, a message, no traceback, and
the check's process gone with it.  The stand-in, like bwrap, ends with its
parent only when given ``--die-with-parent``: the referee kills the check
when it can, and the flag covers the instant in which it cannot (a signal
while Python is still starting the process, before ``Popen`` returns it).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, wait_until

RANDOM = "agents.random_agent"

HANGING_BWRAP = """#!/bin/sh
echo $$ > "$HANGING_BWRAP_PID"
case " $* " in
  *" --die-with-parent "*) ;;
  *) exec sleep 120 ;;
esac
parent=$PPID
while kill -0 "$parent" 2>/dev/null; do sleep 0.05; done
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.parametrize(
    "command",
    [["-v", "0", RANDOM, RANDOM], ["play", RANDOM]],
    ids=["referee", "play"],
)
@pytest.mark.parametrize(
    "signum, status, said",
    [(signal.SIGTERM, 143, "stopped by SIGTERM"), (signal.SIGHUP, 129, "stopped by SIGHUP"),
     (signal.SIGINT, 130, "interrupted")],
    ids=["SIGTERM", "SIGHUP", "Ctrl-C"],
)
def test_a_signal_during_the_sandbox_check_stops_the_command_cleanly(tmp_path, command, signum, status, said):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "bwrap"
    fake.write_text(HANGING_BWRAP)
    fake.chmod(0o755)
    pid_file = tmp_path / "bwrap.pid"
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", HANGING_BWRAP_PID=str(pid_file))
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", *command],
        cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        def bwrap_started() -> bool:
            assert proc.poll() is None, proc.communicate()
            return pid_file.exists() and bool(pid_file.read_text().strip())

        wait_until(bwrap_started, 60, "the sandbox check's bwrap to write its pid")
        bwrap_pid = int(pid_file.read_text())
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == status, err
    assert said in err and "Traceback" not in err, err
    assert "no agent was running" in err
    # The check's process does not outlive the command.
    wait_until(lambda: not _alive(bwrap_pid), 10, f"the sandbox check's process {bwrap_pid} to end")
