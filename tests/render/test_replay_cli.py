"""The replay command in the terminal, and its errors."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True, timeout=60, input=input
    )


def recorded_game(tmp_path: Path) -> tuple[Path, dict]:
    path = tmp_path / "game.json"
    assert run("-v", "0", "--seed", "9", "--record", str(path), "agents.random_agent", "agents.random_agent").returncode == 0
    return path, json.loads(path.read_text())


def test_terminal_replay_shows_every_action_and_the_result(tmp_path):
    path, data = recorded_game(tmp_path)
    proc = run("replay", str(path), "-w", "0")
    assert proc.returncode == 0, proc.stderr
    for i, action in enumerate(data["actions"], 1):
        assert f"turn {i}: " in proc.stdout and action in proc.stdout
    assert proc.stdout.rstrip().splitlines()[-1] == f"* referee @ result: {data['winner']} wins ({data['reason']})"


def test_terminal_replay_waits_for_enter(tmp_path):
    path, data = recorded_game(tmp_path)
    proc = run("replay", str(path), "-w", "-1", input="\n" * 3)
    assert proc.returncode == 0
    assert proc.stdout.count("press Enter") >= 3


def test_bad_sources_give_clear_errors(tmp_path):
    path, data = recorded_game(tmp_path)
    jsonl = tmp_path / "games.jsonl"
    jsonl.write_text(json.dumps(data) + "\n" + json.dumps(data) + "\n")
    broken = dict(data, actions=data["actions"][:3] + ["SPAWN(9, 9)"])
    broken_path = tmp_path / "broken.json"
    broken_path.write_text(json.dumps(broken))
    cases = [
        (["replay", str(tmp_path / "missing.json")], "cannot read"),
        (["replay", str(jsonl)], "--game-index"),
        (["replay", str(jsonl), "--game-index", "5"], "0..1"),
        (["replay", str(broken_path), "-w", "0"], "action 4"),
        (["replay", str(broken_path), "--html", str(tmp_path / "b.html")], "action 4"),
        (["replay", "-"], "not JSON"),
    ]
    for args, fragment in cases:
        proc = run(*args, input="this is not json")
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert fragment in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def replayed_data(html_path: Path) -> dict:
    """The game data embedded in an HTML replay."""
    page = html_path.read_text()
    start = page.index('<script id="replay-data" type="application/json">') + len('<script id="replay-data" type="application/json">')
    return json.loads(page[start:page.index("</script>", start)])


def test_game_index_is_the_tournaments_game_index_not_the_line(tmp_path):
    path, data = recorded_game(tmp_path)
    # As in a tournament's games.jsonl: games appended in the order they finished.
    lines = [dict(data, red_name=f"game {index}", extra={"game_index": index}) for index in (2, 0, 1)]
    jsonl = tmp_path / "games.jsonl"
    jsonl.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for index in (0, 1, 2):
        out = tmp_path / f"g{index}.html"
        proc = run("replay", str(jsonl), "--game-index", str(index), "--html", str(out))
        assert proc.returncode == 0, proc.stderr
        assert replayed_data(out)["red"] == f"game {index}"
        terminal = run("replay", str(jsonl), "--game-index", str(index), "-w", "0")
        assert terminal.returncode == 0 and f"game {index}" in terminal.stdout
    proc = run("replay", str(jsonl), "--game-index", "3", "--html", str(tmp_path / "none.html"))
    assert proc.returncode == 2
    assert f"{jsonl} has no game with --game-index 3 (its 3 games have indices 0..2)" in proc.stderr
    assert not (tmp_path / "none.html").exists()


def test_a_record_on_standard_input(tmp_path):
    path, data = recorded_game(tmp_path)
    out = tmp_path / "stdin.html"
    proc = run("replay", "-", "--html", str(out), input=path.read_text())
    assert proc.returncode == 0, proc.stderr
    assert [step["action"] for step in replayed_data(out)["steps"]] == data["actions"]
    proc = run("replay", "-", "-w", "0", input=path.read_text())
    assert proc.returncode == 0 and data["actions"][-1] in proc.stdout
