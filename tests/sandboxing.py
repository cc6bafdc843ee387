"""Tests that need the real sandbox: skip without it, or fail when CI says it must be there."""
from __future__ import annotations

import os

import pytest

from referee.hosting.sandbox import REQUIRE_ENV, probe


def require_sandbox(cgroup: bool = True) -> None:
    """Skip (or, with REFEREE_REQUIRE_SANDBOX=1, fail) unless agents can be sealed here."""
    caps = probe()
    missing = caps.bwrap is None or (cgroup and caps.cgroup is None)
    if not missing:
        return
    message = "no sandbox on this machine: " + "; ".join(caps.missing)
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{message} ({REQUIRE_ENV}=1)")
    pytest.skip(message)
