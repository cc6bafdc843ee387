"""The play command's options and the record it writes (real subprocesses)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from referee.games.infexion import InfexionState
from referee.records import REASONS, GameRecord

ROOT = Path(__file__).resolve().parents[1]
RANDOM = "agents.random_agent"


def run(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True, timeout=60, input=input
    )


def test_record_holds_the_whole_game_and_replays(tmp_path):
    path = tmp_path / "game.json"
    proc = run("-v", "0", "--seed", "5", "-t", "30", "-s", "200", "--record", str(path), RANDOM, "agents/random_agent")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines() == [proc.stdout.strip()]  # -v 0: the result line only
    data = json.loads(path.read_text())
    record = GameRecord.from_dict(data)
    assert record.schema_version == 1 and record.game == "infexion"
    assert (record.red, record.blue) == (RANDOM, "agents/random_agent")
    assert record.reason in REASONS and record.turns == len(record.actions)
    assert record.moves["RED"] + record.moves["BLUE"] == record.turns
    assert record.seed == 5 and record.time_limit == 30 and record.space_limit == 200
    assert set(record.time_used) == set(record.peak_memory_mb) == {"RED", "BLUE"}
    assert all(0 <= t < 30 for t in record.time_used.values())
    assert record.started_at and record.duration > 0
    # Replaying the recorded actions gives the recorded result.
    state = InfexionState()
    for text in record.actions:
        state.apply_checked(state.parse_action(text))
    outcome = state.outcome
    assert outcome is not None and outcome.winner_name == record.winner and outcome.reason == record.reason
    assert f"result: {record.winner} wins ({record.reason})" in proc.stdout or "result: draw" in proc.stdout


def test_same_seed_same_game(tmp_path):
    games = []
    for i in range(2):
        path = tmp_path / f"g{i}.json"
        assert run("-v", "0", "--seed", "11", "--record", str(path), RANDOM, RANDOM).returncode == 0
        games.append(json.loads(path.read_text())["actions"])
    assert games[0] == games[1]
    path = tmp_path / "other.json"
    run("-v", "0", "--seed", "12", "--record", str(path), RANDOM, RANDOM)
    assert json.loads(path.read_text())["actions"] != games[0]


def test_record_to_standard_output_moves_the_game_to_standard_error(tmp_path):
    proc = run("-v", "1", "--seed", "5", "--record", "-", RANDOM, RANDOM)
    assert proc.returncode == 0, proc.stderr
    record = GameRecord.from_dict(json.loads(proc.stdout))  # nothing but the record
    assert "RED plays action SPAWN(" in proc.stderr
    assert proc.stderr.rstrip().splitlines()[-1].startswith("* referee @ result: ")
    assert not (ROOT / "-").exists()
    # The same game as one recorded to a file, and the replay command reads it from a pipe.
    path = tmp_path / "g.json"
    assert run("-v", "0", "--seed", "5", "--record", str(path), RANDOM, RANDOM).returncode == 0
    assert json.loads(path.read_text())["actions"] == record.actions
    html = tmp_path / "g.html"
    replay = run("replay", "-", "--html", str(html), input=proc.stdout)
    assert replay.returncode == 0, replay.stderr
    assert html.read_text().count(record.actions[-1]) >= 1


def test_html_to_standard_output_and_both_on_it_is_a_usage_error():
    proc = run("-v", "0", "--seed", "6", "--html", "-", RANDOM, RANDOM)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.lstrip().lower().startswith("<!doctype html")
    assert "result:" in proc.stderr and "result:" not in proc.stdout
    both = run("--record", "-", "--html", "-", RANDOM, RANDOM)
    assert both.returncode == 2 and "cannot both take standard output" in both.stderr
    assert not (ROOT / "-").exists()


def test_verbosity_levels_and_colour(tmp_path):
    one = run("-v", "1", "--seed", "1", RANDOM, RANDOM).stdout
    assert "RED plays action SPAWN(" in one and "game over" in one and "r=6" not in one
    two = run("--seed", "1", RANDOM, RANDOM).stdout  # default -v 2: boards too
    assert "r=6" in two and "\033[" not in two  # not a terminal: no colour unless asked
    coloured = run("-c", "-u", "--seed", "1", RANDOM, RANDOM).stdout
    assert "\033[1;31m" in coloured and "\u00b7" in coloured
    plain = run("-C", "-a", "--seed", "1", RANDOM, RANDOM).stdout
    assert "\033[" not in plain and "\u00b7" not in plain
    three = run("-d", "--seed", "1", RANDOM, RANDOM).stdout
    assert "RED action(): " in three and "ms CPU" in three and "peak memory" in three


def test_logfile_gets_the_commentary_without_colour(tmp_path):
    log = tmp_path / "game.log"
    proc = run("-c", "-v", "1", "-l", str(log), "--seed", "2", RANDOM, RANDOM)
    assert proc.returncode == 0
    text = log.read_text()
    assert "plays action" in text and "result:" in text and "\033[" not in text


def test_wait_for_enter_reads_stdin(tmp_path):
    proc = run("-v", "1", "-w", "-1", "--seed", "3", RANDOM, RANDOM, input="\n" * 5)
    # Five Enters, then end of input: the referee stops waiting and finishes.
    assert proc.returncode == 0 and "result:" in proc.stdout
    assert proc.stdout.count("press Enter") >= 5


def test_version_and_help():
    assert run("-V").stdout.startswith("referee ")
    text = run("-h").stdout
    for flag in ("--time", "--space", "--verbosity", "--debug", "--logfile", "--wait", "--game", "--record", "--seed"):
        assert flag in text
