"""Can this machine run the agent sandbox?  For tests that need it.

The sandbox needs bubblewrap (``bwrap``) able to create namespaces, and, for
CPU and memory accounting and freezing, cgroup v1 controllers we may write
to.  Without them a test that needs the sandbox is skipped, unless the
environment says the sandbox is required (CI sets
``REFEREE_REQUIRE_SANDBOX=1``): then it fails, so a CI machine that lost
bwrap or cgroups cannot pass by skipping every sealed test.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REQUIRE_VARIABLE = "REFEREE_REQUIRE_SANDBOX"
CGROUP_CPUACCT = "/sys/fs/cgroup/cpuacct"
ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def namespaces_problem() -> str | None:
    """Why bwrap cannot sandbox a process here, or None if it can."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bwrap is not installed"
    try:
        proc = subprocess.run([bwrap, "--ro-bind", "/", "/", "true"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"'bwrap --ro-bind / / true' did not run: {exc}"
    if proc.returncode != 0:
        return f"'bwrap --ro-bind / / true' exited {proc.returncode}: {proc.stderr.strip()[:300]}"
    return None


@functools.cache
def cgroups_problem() -> str | None:
    """Why cgroup accounting is unavailable here, or None if it is available."""
    if not os.path.isdir(CGROUP_CPUACCT):
        return f"{CGROUP_CPUACCT} does not exist (no cgroup v1 cpuacct controller)"
    if not os.access(CGROUP_CPUACCT, os.W_OK):
        return f"{CGROUP_CPUACCT} is not writable"
    return None


def sandbox_required() -> bool:
    return os.environ.get(REQUIRE_VARIABLE, "") not in ("", "0")


def require_sandbox(cgroups: bool = False) -> None:
    """Skip the calling test if the sandbox cannot run here; fail it instead under REFEREE_REQUIRE_SANDBOX=1.

    ``cgroups``: the test also needs cgroup accounting (CPU, memory, freezing).
    """
    problem = namespaces_problem() or (cgroups_problem() if cgroups else None)
    if problem is None:
        return
    if sandbox_required():
        pytest.fail(f"{REQUIRE_VARIABLE} is set but the sandbox cannot run: {problem}", pytrace=False)
    pytest.skip(f"the sandbox cannot run here: {problem}")


@functools.cache
def cli_has_sandbox_option() -> bool:
    """Whether this referee's command line knows ``--sandbox`` (not before the sandbox landed)."""
    proc = subprocess.run(
        [sys.executable, "-m", "referee", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    return "--sandbox" in proc.stdout


def unsealed_options() -> list[str]:
    """Options for a game without the sandbox: ``--sandbox off`` where the option exists."""
    return ["--sandbox", "off"] if cli_has_sandbox_option() else []
