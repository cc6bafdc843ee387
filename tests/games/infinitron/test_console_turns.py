"""Infinitron in the console (real games through ``python -m referee``): one board a turn, every action's at -v.

The game is between two agents that give two commands a turn and fail in their
third turn (``few_commands_agent``): five turns, the last cut short.
"""
from __future__ import annotations

import re

from referee.records import GameRecord
from tests.helpers import run_referee

AGENT = "tests.games.infinitron.few_commands_agent"
BOARD_END = "* referee @ key: "  # the render's key line: one per board shown
ACTION = re.compile(r"^\* referee @ action (\d+): (RED|BLUE) plays action (.+)$")


def play(tmp_path, *options):
    path = tmp_path / "game.json"
    proc = run_referee("--game", "infinitron", "--seed", "3", "--record", str(path), AGENT, AGENT, *options)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines(), GameRecord.from_json(path.read_text())


def test_the_default_shows_the_board_once_a_turn_under_the_turns_commands(tmp_path):
    lines, record = play(tmp_path)
    assert record.reason == "agent_error" and len(record.actions) == 13  # 4 turns of 3 commands, 1 of the 5th
    # Every command is listed, in order, each on its line.
    listed = [m.group(3) for m in map(ACTION.match, lines) if m]
    assert listed == list(record.actions)
    # One board after each whole turn, headed by the turn and its actions, after the turn's last command...
    headers = [i for i, line in enumerate(lines) if "the board after" in line or "the board where" in line]
    assert [lines[i].removeprefix("* referee @ ") for i in headers] == [
        "the board after RED's turn 1 (actions 1 to 3):",
        "the board after BLUE's turn 2 (actions 4 to 6):",
        "the board after RED's turn 3 (actions 7 to 9):",
        "the board after BLUE's turn 4 (actions 10 to 12):",
        "the board where the game stopped (action 13):",  # the forfeit came in the middle of a turn
    ]
    assert sum(line.startswith(BOARD_END) for line in lines) == 5
    for turn, i in enumerate(headers[:4]):
        assert lines[i - 1] == f"* referee @ action {3 * turn + 3}: {('RED', 'BLUE')[turn % 2]} plays action END_TURN"
        # ...and no board between the turn's commands.
        start = headers[turn - 1] if turn else 0
        between = lines[start + 1:i]
        assert sum(bool(ACTION.match(line)) for line in between) == 3
        assert sum(line.startswith(BOARD_END) for line in between) == (1 if turn else 0)  # the previous board's
    assert lines[-1].startswith("* referee @ result: BLUE wins (RED agent_error")


def test_verbosity_3_shows_the_board_after_every_command(tmp_path):
    lines, record = play(tmp_path, "-v")  # bare -v, after the agents: verbosity 3
    actions = [i for i, line in enumerate(lines) if ACTION.match(line)]
    assert len(actions) == len(record.actions) == 13
    assert sum(line.startswith(BOARD_END) for line in lines) == 13
    assert not any("the board after" in line or "the board where" in line for line in lines)
    # Each command's board comes before the next command.
    for here, following in zip(actions, actions[1:] + [len(lines)]):
        assert sum(line.startswith(BOARD_END) for line in lines[here:following]) == 1
    assert any(" action(): " in line and "ms CPU" in line for line in lines)  # the per-call figures of -v 3



def test_waiting_pauses_once_a_turn_not_after_every_command(tmp_path):
    path = tmp_path / "game.json"
    proc = run_referee("--game", "infinitron", "--seed", "3", "--record", str(path), AGENT, AGENT, "-w", "-1",
                       input="\n" * 20)
    assert proc.returncode == 0, proc.stderr
    # Four whole turns (of 13 commands): four pauses, each after a turn's board.
    assert proc.stdout.count("(press Enter for the next turn)") == 4
