"""The replay command in the terminal, and its errors."""
from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True, timeout=60, input=input
    )


def recorded_game(tmp_path: Path) -> tuple[Path, dict]:
    path = tmp_path / "game.json"
    played = run("-v", "0", "--seed", "9", "--record", str(path), "agents.random_agent", "agents.random_agent")
    assert played.returncode == 0
    return path, json.loads(path.read_text())


def test_terminal_replay_shows_every_action_and_the_result(tmp_path):
    path, data = recorded_game(tmp_path)
    proc = run("replay", str(path), "-w", "0")
    assert proc.returncode == 0, proc.stderr
    for i, action in enumerate(data["actions"], 1):
        assert f"turn {i}: " in proc.stdout and action in proc.stdout
    assert proc.stdout.rstrip().splitlines()[-1] == f"* referee @ result: {data['winner']} wins ({data['reason']})"


KEYS = "keys: Enter or n: next action, p or b: back one, q: quit (Ctrl-C quits too)"


def blocks(stdout: str) -> list[tuple[str, str]]:
    """(commentary line, board drawn under it) for every line that shows a board."""
    shown, lines = [], stdout.splitlines()
    for i, line in enumerate(lines):
        prompt_free = re.sub(r"^\(.*?\) ", "", line)
        if prompt_free.startswith("* referee @ ") and ("plays action" in prompt_free or "back to" in prompt_free):
            board = []
            for following in lines[i + 1:]:
                if following.startswith("* referee @ ") or following.startswith("("):
                    break
                board.append(following)
            shown.append((prompt_free, "\n".join(board)))
    return shown


def test_terminal_replay_steps_by_keys_listed_on_screen(tmp_path):
    path, data = recorded_game(tmp_path)
    # forward three, back two (p, then b), forward one (Enter), quit
    proc = run("replay", str(path), "-w", "-1", input="n\nn\n\np\nb\n\nq\n")
    assert proc.returncode == 0, proc.stderr
    assert KEYS in proc.stdout
    assert proc.stdout.count("(Enter/n next, p/b back, q quit)") == 7
    shown = blocks(proc.stdout)
    lines = [line for line, _ in shown]
    assert lines[:3] == [f"* referee @ turn {i}: {('RED', 'BLUE')[(i - 1) % 2]} plays action {data['actions'][i - 1]}"
                         for i in (1, 2, 3)]
    assert lines[3] == f"* referee @ back to turn 2: BLUE plays action {data['actions'][1]}"
    assert lines[4] == f"* referee @ back to turn 1: RED plays action {data['actions'][0]}"
    assert lines[5] == lines[1]  # forward again to turn 2
    # Going back shows the very board that was shown when going forward.
    assert shown[3][1] == shown[1][1] and shown[4][1] == shown[0][1] and shown[5][1] == shown[1][1]
    assert shown[0][1] != shown[1][1]
    assert f"replay stopped after 2 of {len(data['actions'])} actions" in proc.stdout
    assert "result:" not in proc.stdout and "Traceback" not in proc.stderr


def test_terminal_replay_keys_at_the_ends(tmp_path):
    path, data = recorded_game(tmp_path)
    proc = run("replay", str(path), "-w", "-1", input="b\nx\nq\n")
    assert proc.returncode == 0
    assert "already at the start of the game" in proc.stdout
    assert f"unknown key 'x'; {KEYS}" in proc.stdout
    assert "replay stopped after 0 of" in proc.stdout
    # Enter all the way: the result comes with the last action; Enter at the end quits.
    count = len(data["actions"])
    proc = run("replay", str(path), "-w", "-1", input="\n" * (count + 1))
    assert proc.returncode == 0
    assert proc.stdout.count("(end of the game: p/b back, Enter or q quit)") == 1
    assert f"* referee @ result: {data['winner']} wins ({data['reason']})" in proc.stdout
    # Input running out plays the rest without waiting.
    proc = run("replay", str(path), "-w", "-1", input="n\n")
    assert proc.returncode == 0
    assert proc.stdout.rstrip().splitlines()[-1].startswith("* referee @ result:")


def test_ctrl_c_ends_the_terminal_replay_cleanly(tmp_path):
    path, _ = recorded_game(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "replay", str(path), "-w", "-1"],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    chunks: queue.Queue[bytes] = queue.Queue()

    def read() -> None:
        while chunk := proc.stdout.read1(4096):
            chunks.put(chunk)
        chunks.put(b"")

    threading.Thread(target=read, daemon=True).start()
    seen = b""
    try:
        # Wait for the first prompt (the replay is then waiting for a key) ...
        while b"(Enter/n next" not in seen:
            chunk = chunks.get(timeout=60)  # a safety net, not a timing requirement
            assert chunk, f"the replay ended before its prompt: {seen!r}"
            seen += chunk
        # ... and press Ctrl-C there.
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    err = proc.stderr.read().decode()
    assert "interrupted" in err and "Traceback" not in err


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
    opening = '<script id="replay-data" type="application/json">'
    start = page.index(opening) + len(opening)
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


def test_a_truncated_record_is_flagged_at_the_start_and_at_the_end(tmp_path):
    path, data = recorded_game(tmp_path)
    assert run("replay", str(path), "-w", "0").stdout.count("WARNING") == 0
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(dict(data, actions=data["actions"][:100])))
    proc = run("replay", str(cut), "-w", "0")
    assert proc.returncode == 0, proc.stderr
    recorded = f"{data['winner']} wins ({data['reason']})" if data["winner"] else f"draw ({data['reason']})"
    warning = (
        f"* referee @ WARNING: this record's actions do not lead to its result, {recorded}: "
        f"it says {data['turns']} actions were played but holds 100; after its 100 actions the game is not over. "
        "It may have been cut short or edited."
    )
    lines = proc.stdout.splitlines()
    assert lines[1] == warning  # right after the players, before any action
    assert lines[-3] == warning and lines[-1] == f"* referee @ result: {recorded}"  # and again at the end
    assert "turn 100: " in proc.stdout and "turn 101: " not in proc.stdout
