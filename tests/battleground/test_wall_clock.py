"""The agent is told the server's wall clock: a real server, a real ``connect`` client, an agent that writes down
what it is told (``tests/battleground/fixture_agents/clocks``).

Each of that agent's actions sleeps (wall time, no CPU): its ``wall_remaining`` must fall by at least what its
own actions took, stay below the server's figure, and agree with the wall time the server charged it
(``extra.battleground.wall_used`` in the record); its ``time_remaining`` (CPU) barely moves meanwhile.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.records import GameRecord
from tests.battleground.fixture_agents.clocks.program import LOG_VARIABLE, SLEEP
from tests.battleground.sides import Server
from tests.helpers import ROOT

pytest.importorskip("websockets.sync.client")
from referee.battleground.wall_clock import WALL_MARGIN  # noqa: E402

CLOCKS = "tests/battleground/fixture_agents/clocks"
TIME_LIMIT = 20.0
#: The most the server takes off a move for the round trip on loopback: its credit is at most twice the
#: kernel's round trip plus 5 ms (referee/battleground/seats.py), and loopback's is microseconds.
CREDIT = 0.01
#: What the client's figure may undershoot the server's by beyond WALL_MARGIN: the round trip it also takes
#: off (loopback: microseconds) and its own time between the play's coming and the agent's call.
SLACK = 0.5


def games_told(log: Path) -> list[list[dict[str, Any]]]:
    """The agent's calls, one list a game (each game starts with ``__init__``)."""
    games: list[list[dict[str, Any]]] = []
    for line in log.read_text(encoding="utf-8").splitlines():
        call = json.loads(line)
        if call["call"] == "__init__":
            games.append([])
        games[-1].append(call)
    return games


def test_the_agent_is_told_the_servers_wall_clock_a_little_below_the_servers_own(tmp_path: Path):
    server = Server(tmp_path, "-t", str(TIME_LIMIT), "--house", "greedy=agents.greedy",
                    "--sandbox", "off")
    log = tmp_path / "clocks.jsonl"
    records = tmp_path / "olive.jsonl"
    # The agent runs unsealed (--sandbox off) and inherits only the variables REFEREE_PASS_ENV names.
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), REFEREE_PASS_ENV=LOG_VARIABLE,
               **{LOG_VARIABLE: str(log)})
    try:
        done = subprocess.run(
            [sys.executable, "-m", "referee", "connect", CLOCKS, "olive", "--server", f"127.0.0.1:{server.port}",
             "--channel", "greedy", "--games", "2", "--sandbox", "off", "-v", "0", "--record-file", str(records)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
        )
    finally:
        server.kill()
    assert done.returncode == 0, done.stdout + done.stderr
    played = [GameRecord.from_json(line) for line in records.read_text().splitlines()]
    told = games_told(log)
    assert len(played) == len(told) == 2
    assert {record.red for record in played} == {"olive", "greedy"}  # a colour-swapped pair: RED once, BLUE once

    for record, calls in zip(played, told):
        color = "RED" if record.red == "olive" else "BLUE"
        battleground = record.extra["battleground"]
        limit, wall_used = battleground["wall_limit"], battleground["wall_used"][color]
        assert limit == TIME_LIMIT * 1.25
        assert all("wall_remaining" in call and call["wall_remaining"] != "absent" for call in calls), calls
        # Before the server has asked for a move there is no figure: __init__, and BLUE's first turn().
        first_action = next(i for i, call in enumerate(calls) if call["call"] == "action")
        assert all(call["wall_remaining"] is None for call in calls[:first_action]), calls[:first_action + 1]
        assert (first_action > 1) == (color == "BLUE")

        actions = [call for call in calls if call["call"] == "action"]
        walls = [call["wall_remaining"] for call in actions]
        assert len(walls) >= 3, calls
        assert all(isinstance(wall, float) for wall in walls), walls
        assert all(later < earlier for earlier, later in zip(walls, walls[1:])), walls
        # Below the server's figure by the margin at least, and by all the wall time its earlier moves took.
        took = 0.0
        for number, (call, wall) in enumerate(zip(actions, walls)):
            assert 0 < wall <= limit - WALL_MARGIN - took + number * CREDIT, (number, wall, took)
            assert call["took"] >= SLEEP
            took += call["took"]
        # The server charged at least what the actions took, and what the last figure said it had used.
        assert wall_used >= took - len(actions) * CREDIT, (wall_used, took)
        assert wall_used >= limit - walls[-1] - WALL_MARGIN - SLACK, (wall_used, walls[-1])
        # Between its moves (turn() after its action) the figure stands where its action left it.
        for before, call in zip(calls[first_action:], calls[first_action + 1:]):
            if call["call"] == "turn":
                assert isinstance(call["wall_remaining"], float) and call["wall_remaining"] <= before[
                    "wall_remaining"], (before, call)

        # The CPU clock is told too, and sleeping does not use it: the wall clock fell further.
        cpu = [call["time_remaining"] for call in calls]
        assert all(isinstance(seconds, float) and seconds <= TIME_LIMIT for seconds in cpu), cpu
        assert all(later <= earlier for earlier, later in zip(cpu, cpu[1:])), cpu
        cpu_actions = [call["time_remaining"] for call in actions]
        assert walls[0] - walls[-1] > cpu_actions[0] - cpu_actions[-1], (walls, cpu_actions)
