"""The replay command in the terminal, and its errors."""
from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

from tests.helpers import ROOT, run_referee as run
from tests.support.terminal import PseudoTerminal


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


KEYS = (
    "keys: Enter or n: next action, p or b: back one, a number: go to that action, e: the end, "
    "q: quit (Ctrl-C quits too)"
)
LINE_PROMPT = "(Enter/n next, p/b back, N: to action N, e end, q quit) "


def blocks(stdout: str) -> list[tuple[str, str]]:
    """(commentary line, board drawn under it) for every line that shows a board."""
    shown, lines = [], stdout.splitlines()
    for i, line in enumerate(lines):
        prompt_free = re.sub(r"^\(.*?\) ", "", line)
        if prompt_free.startswith("* referee @ ") and ("plays action" in prompt_free or "back to" in prompt_free):
            board = []
            for following in lines[i + 1:]:  # the board's lines carry the prefix too, up to the next action
                if following.startswith("(") or not following.startswith("* referee @ ") or any(
                    word in following for word in ("plays action", "back to", "replay stopped")
                ):
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
    assert proc.stdout.count(LINE_PROMPT) == 7
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
    clocks = tmp_path / "clocks.json"
    clocks.write_text(json.dumps(dict(data, time_used_after=[[0.1, 0.0], [0.1, "soon"]])))
    # Well-formed but against the rules there: the action before it, played again on its own cell.
    illegal = dict(data, actions=data["actions"][:4] + [data["actions"][3]])
    illegal_path = tmp_path / "illegal.json"
    illegal_path.write_text(json.dumps(illegal))
    resigned = tmp_path / "resigned.json"
    resigned.write_text(json.dumps(dict(data, winner=None, reason="resignation")))
    cases = [
        (["replay", str(clocks), "-w", "0"], "time_used_after[1] (after action 2) must be [red, blue] seconds"),
        (["replay", str(resigned), "--html", str(tmp_path / "r.html")], "'resignation' needs a winner"),
        (["replay", str(tmp_path / "missing.json")], "cannot read"),
        (["replay", str(jsonl)], "--game-index"),
        (["replay", str(jsonl), "--game-index", "5"], "0..1"),
        (["replay", str(broken_path), "-w", "0"], "action 4"),
        (["replay", str(broken_path), "--html", str(tmp_path / "b.html")], "action 4"),
        (["replay", str(illegal_path), "-w", "0"], "action 5 of the record"),
        (["replay", str(illegal_path), "--html", str(tmp_path / "i.html")], "action 5"),
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


def test_lines_from_a_pipe_go_to_an_action_and_to_the_end(tmp_path):
    path, data = recorded_game(tmp_path)
    count = len(data["actions"])
    proc = run("replay", str(path), "-w", "-1", input=f"40\n{count + 1}\n-3\n12\ne\ne\n0\nq\n")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line, _ in blocks(proc.stdout)]
    assert lines[0] == f"* referee @ turn 40: {'BLUE'} plays action {data['actions'][39]}"
    assert f"no action {count + 1}: this game has {count} actions, give 0..{count}" in proc.stdout
    assert "unknown key '-3'" in proc.stdout
    assert lines[1] == f"* referee @ back to turn 12: BLUE plays action {data['actions'][11]}"
    assert lines[2].startswith(f"* referee @ turn {count}: ")
    assert proc.stdout.count("* referee @ result: ") == 1 and "already at the end of the game" in proc.stdout
    assert "back to the start of the game" in proc.stdout and "replay stopped after 0 of" in proc.stdout
    # The board shown after a jump is the one shown when stepping there.
    stepped = run("replay", str(path), "-w", "-1", input="\n" * 12 + "q\n")
    assert blocks(stepped.stdout)[11][1] == blocks(proc.stdout)[1][1]


class ReplayTerminal(PseudoTerminal):
    """The replay command on a pseudo-terminal: keys are sent as a person presses them, one write each."""

    def __init__(self, command: str):
        # A shell runs the replay, then prints the terminal's mode: it must be as the replay found it.
        # The shell outlives a Ctrl-C (a trap with a command), to report the exit status and the mode after it.
        super().__init__(["/bin/sh", "-c", f"trap : INT; {command}; echo exit=$?; stty -a"])

    def press(self, keys: bytes, then: str) -> str:
        """Press ``keys`` (no Enter unless given) and read until ``then``."""
        os.write(self.fd, keys)
        return self.expect(then)


PROMPT = re.compile(r"\[(\d+)/(\d+)\] \(")


def shown_at(text: str) -> int:
    """The action the last prompt in ``text`` says is shown."""
    return int(PROMPT.findall(text)[-1][0])


def test_on_a_terminal_each_key_works_at_once(tmp_path):
    path, data = recorded_game(tmp_path)
    count = len(data["actions"])
    term = ReplayTerminal(f"{sys.executable} -m referee replay -C {path}")
    assert "keys: n, Space, Enter or Right: next action" in term.expect("(n next")
    assert "turn 1: RED plays action" in term.press(b"n", "(n next")
    assert "turn 2: BLUE plays action" in term.press(b"\x1b[C", "(n next")  # Right arrow
    assert "turn 3: RED plays action" in term.press(b" ", "(n next")
    assert "back to turn 2: " in term.press(b"\x1b[D", "(n next")  # Left arrow
    assert "back to turn 1: " in term.press(b"p", "(n next")
    # A number, typed key by key (shown as typed), then Enter: that action.
    assert "go to action: 4" in term.press(b"4", "go to action: 4")
    shown = term.press(b"2\r", "(n next")
    assert f"turn 42: BLUE plays action {data['actions'][41]}" in shown and shown_at(shown) == 42
    shown = term.press(b"97\x7fg", "(n next")  # Backspace takes the 7 back; g goes as Enter does
    assert f"back to turn 9: RED plays action {data['actions'][8]}" in shown and shown_at(shown) == 9
    shown = term.press(b"999\r", "(n next")
    assert f"no action 999: this game has {count} actions, give 0..{count}" in shown and shown_at(shown) == 9
    shown = term.press(b"e", "Enter or q quits)")
    assert f"turn {count}: " in shown and "* referee @ result: " in shown and shown_at(shown) == count
    assert "the end of the game: Enter or q quits" in term.press(b"n", "Enter or q quits)")
    assert "back to the start of the game" in term.press(b"\x1b[H", "(n next")  # Home
    assert "already at the start of the game" in term.press(b"b", "(n next")
    term.press(b"q", f"replay stopped after 0 of {count} actions")
    _, rest = term.finish()
    assert "exit=0" in rest and "Traceback" not in rest
    # The terminal is as it was: lines edited and echoed again.
    assert re.search(r"(?<!-)icanon\b", rest) and re.search(r"(?<!-)echo\b", rest), rest


def test_on_a_terminal_ctrl_c_quits_and_gives_the_terminal_back(tmp_path):
    path, _ = recorded_game(tmp_path)
    term = ReplayTerminal(f"{sys.executable} -m referee replay -C {path}")
    term.expect("(n next")
    term.press(b"12", "go to action: 12")
    os.write(term.fd, b"\x03")  # Ctrl-C: SIGINT, as ever (cbreak mode keeps it a signal)
    _, rest = term.finish()
    assert "exit=130" in rest and "interrupted" in rest and "Traceback" not in rest, rest
    assert re.search(r"(?<!-)icanon\b", rest) and re.search(r"(?<!-)echo\b", rest), rest


def test_a_record_written_before_per_action_clocks_still_replays(tmp_path):
    path, data = recorded_game(tmp_path)
    old = {key: value for key, value in data.items() if key != "time_used_after"}
    proc = run("replay", "-", "-w", "0", input=json.dumps(old))
    assert proc.returncode == 0 and "WARNING" not in proc.stdout, proc.stderr
    assert proc.stdout.rstrip().splitlines()[-1] == f"* referee @ result: {data['winner']} wins ({data['reason']})"
