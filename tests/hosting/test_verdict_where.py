"""A verdict that stops an agent in a call says which call, and shows where the agent was.

Through the real command line, sealed (and one case unsealed): the record's
error message names the call (``action() on turn N``, ``turn() after turn N``,
``__init__()``), its traceback holds the agent's stack at the moment it was
stopped (from the agent host's faulthandler), and the console shows both.
"""
from __future__ import annotations

import pytest

from tests.hosting.runs import FIX, RANDOM, game
from tests.sandboxing import require_sandbox

STACK = "The agent's stack when it was stopped:"


@pytest.mark.parametrize(
    "fault, options, where, frame",
    [
        ("CpuLoop", ("-t", "1"), "over its limit of 1 s, in action() on turn 1", "in action"),
        ("Sleeps", ("--call-timeout", "1"), "wall-clock time (watchdog", "in action"),
        ("MemoryHog", ("-s", "60"), "over its limit of 60 MB, in action() on turn 1", "in action"),
        ("LoopsInTurn", ("-t", "1"), "in turn() after turn 1 (RED's SPAWN(", "in think_forever"),
        ("LoopsInInit", ("-t", "1"), "over its limit of 1 s, in __init__()", "in think_forever"),
    ],
)
def test_a_stopped_call_is_named_with_the_agents_stack(tmp_path, fault, options, where, frame):
    require_sandbox()
    proc, record = game(tmp_path, "--sandbox", "required", *options, f"{FIX}:{fault}", RANDOM)
    assert proc.returncode == 0, proc.stderr
    error = record["error"]["RED"]
    assert record["winner"] == "BLUE" and where in error["message"], error["message"]
    assert error["traceback"].startswith(STACK), error["traceback"]
    assert "fixture_agents/misbehave.py" in error["traceback"] and frame in error["traceback"], error["traceback"]
    assert "agent_host.py" not in error["traceback"]  # the host's own frames are left out
    assert where in proc.stdout and STACK in proc.stdout  # the console shows both at -v 1


def test_unsealed_too_and_a_flood_says_how_much_it_printed(tmp_path):
    proc, record = game(tmp_path, "--sandbox", "off", "-t", "1", f"{FIX}:FloodsThenLoops", RANDOM)
    assert proc.returncode == 0, proc.stderr
    error = record["error"]["RED"]
    assert "in action() on turn 1; it printed 5.0 MB during the call" in error["message"], error["message"]
    assert "in think_forever" in error["traceback"]
