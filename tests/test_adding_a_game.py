"""docs/adding-a-game.md's worked example, Nim (tests/fixtures/nim), played by the real referee.

One folder and one registration, named in REFEREE_GAMES: the play command
takes its options, two agents in their own processes play it, the record and
the HTML replay come out as for any bundled game.
"""
from __future__ import annotations

import json
import os
import subprocess

from tests.helpers import run_referee

ENV = dict(os.environ, REFEREE_GAMES="nim=tests.fixtures.nim.registration")


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return run_referee(*args, env=ENV)


def test_nim_is_played_between_two_agent_processes(tmp_path):
    record_path, html_path = tmp_path / "nim.json", tmp_path / "nim.html"
    proc = referee(
        "--game", "nim", "--stones", "9", "--max-take", "2", "-v", "1", "--seed", "3",
        "--record", str(record_path), "--html", str(html_path), "tests.fixtures.nim.agent", "agents.random_agent",
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads(record_path.read_text())
    # 9 stones, 2 at most: the perfect agent (Red) leaves multiples of 3 and takes the last.
    assert record["game"] == "nim" and record["game_options"] == {"stones": 9, "max_take": 2}
    assert (record["winner"], record["reason"]) == ("RED", "last_stone")
    assert record["error"] == {"RED": None, "BLUE": None}
    assert sum(int(a[len("TAKE("):-1]) for a in record["actions"]) == 9
    assert "RED plays action TAKE(" in proc.stdout
    page = html_path.read_text()
    assert '"game":"nim"' in page and all(action in page for action in record["actions"])


def test_nim_options_default_and_are_checked_by_the_game():
    bad = referee("--game", "nim", "--stones", "0", "agents.random_agent", "agents.random_agent")
    assert bad.returncode == 2 and "nim: option stones must be a whole number 1..1000" in bad.stderr
    assert "Traceback" not in bad.stderr
    ok = referee("--game", "nim", "-v", "0", "--record", "-", "agents.random_agent", "agents.random_agent")
    assert ok.returncode == 0, ok.stderr
    record = json.loads(ok.stdout)
    assert record["game_options"] == {} and len(record["actions"]) >= 15 // 3


def test_nim_options_are_in_the_help_and_named_without_its_game():
    shown = referee("-h")
    assert shown.returncode == 0 and "nim only (with --game nim)" in shown.stdout and "--max-take K" in shown.stdout
    elsewhere = referee("--stones", "5", "agents.random_agent", "agents.random_agent")
    assert elsewhere.returncode == 2
    assert "--stones is an option of --game nim, not of --game infexion" in elsewhere.stderr
