"""``python -m referee play AGENT``: a person against an agent, driven through a real pseudo-terminal."""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys

import pytest

from referee.games import game_class
from referee.human_play.session import Session
from referee.records import GameRecord
from tests.helpers import ROOT, run_referee
from tests.sandboxing import require_sandbox
from tests.support.human_play import agents_with_hash_seed
from tests.support.terminal import WAIT, PseudoTerminal

RANDOM = "agents.random_agent"
PROMPT = re.compile(r"(RED|BLUE) \(you\) > ")


class Terminal(PseudoTerminal):
    """The play command on a pseudo-terminal."""

    def __init__(self, *args: str):
        super().__init__([sys.executable, "-m", "referee", "play", *args])

    def type(self, line: str) -> str:
        """Type a line and read until the next prompt; returns what was printed in between."""
        self.send(line)
        return self.expect(PROMPT)


def board_of(text: str) -> str:
    """The board and summary printed in ``text`` (the lines from the first row of the board on)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "r=6" in line)
    end = next(i for i, line in enumerate(lines) if "actions played" in line)
    return "\n".join(lines[start: end + 1])


def legal_actions(text: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith("* referee @ legal actions: "))
    return re.findall(r"[A-Z]+\([-\d, ]+\)", line)


def test_question_mark_illegal_entry_undo_and_quit_with_a_record(tmp_path):
    record_path = tmp_path / "game.json"
    term = Terminal("--sandbox", "off", "--seed", "3", "--record", str(record_path), RANDOM)
    first = board_of(term.expect(PROMPT))
    assert "0 of 343 actions played" in first
    # Lenient: lower case, spaces for commas and brackets.
    after = term.type("spawn 3 3")
    assert "RED plays SPAWN(3, 3)" in after and "BLUE plays " in after
    listed = legal_actions(term.type("?"))
    assert "SPREAD(3, 3, 0, 1)" in listed and "SPAWN(3, 3)" not in listed
    refused = term.type("SPAWN(3,3)")
    assert "SPAWN(3, 3) is illegal: cell (3, 3) is not empty" in refused
    assert "not an Infexion action" in term.type("hello")
    undone = term.type("undo")
    assert "took back your last move" in undone
    assert board_of(undone) == first  # the position before the move, printed the same
    assert "RED plays SPAWN(2, 2)" in term.type("SPAWN(2, 2)")
    term.send("q")
    status, rest = term.finish()
    assert status == 0, rest
    assert f"record: {record_path}" in rest and "Traceback" not in rest
    record = GameRecord.from_dict(json.loads(record_path.read_text()))
    assert record.red == "human" and record.blue == RANDOM
    assert record.actions[0] == "SPAWN(2, 2)" and len(record.actions) == 2  # the undone move is gone
    assert record.winner is None and record.reason == "unfinished"
    # Every line the referee printed carries its prefix, the board's too; the others are the prompts and what was typed.
    lines = (term.shown + rest).splitlines()
    assert [line for line in lines if not PROMPT.match(line) and not line.startswith("* referee @ ")] == []
    assert sum(line.startswith("* referee @                   r=6") for line in lines) == 4
    replay = run_referee("replay", str(record_path), timeout=120)
    # A quit game is not over by the rules, and says so without calling the record cut short or edited.
    assert replay.returncode == 0 and "draw (unfinished)" in replay.stdout, replay.stdout + replay.stderr
    assert "WARNING" not in replay.stdout + replay.stderr


def test_a_whole_game_as_blue_by_a_scripted_person_and_its_record_replays(tmp_path):
    record_path = tmp_path / "game.json"
    term = Terminal("--sandbox", "off", "--as", "blue", "--record", str(record_path), RANDOM)
    term.expect(PROMPT)
    for _ in range(400):  # a game ends within 343 actions
        term.send("?")
        listing = term.expect(PROMPT)
        term.send(legal_actions(listing)[0])
        done = term.expect(re.compile(r"(RED|BLUE) \(you\) > |record: "))
        if done.endswith("record: "):
            break
    status, rest = term.finish()
    assert status == 0, rest
    record = GameRecord.from_dict(json.loads(record_path.read_text()))
    assert record.blue == "human" and record.red == RANDOM
    assert record.reason in ("elimination", "turn_limit") and record.turns == len(record.actions)
    replay = run_referee("replay", str(record_path), timeout=120)
    assert replay.returncode == 0 and "WARNING" not in replay.stdout + replay.stderr, replay.stdout + replay.stderr


def test_end_of_input_saves_like_q_and_ctrl_c_exits_130(tmp_path):
    term = Terminal("--sandbox", "off", "--record", str(tmp_path / "a.json"), RANDOM)
    term.expect(PROMPT)
    os.write(term.fd, b"\x04")  # Ctrl-D at the start of a line: end of input
    status, rest = term.finish()
    assert status == 0 and (tmp_path / "a.json").exists(), rest
    seed = 700_000_000 + os.getpid()  # the agent's PYTHONHASHSEED is derived from it: found again below
    term = Terminal("--sandbox", "off", "--seed", str(seed), "--record", str(tmp_path / "b.json"), RANDOM)
    term.expect(PROMPT)
    os.write(term.fd, b"\x03")  # Ctrl-C: SIGINT to the command
    status, rest = term.finish()
    assert status == 128 + signal.SIGINT and "Traceback" not in rest, rest
    assert "interrupted" in rest and not (tmp_path / "b.json").exists()
    assert not agents_with_hash_seed((seed * 2 + 1) % 4294967296), "the agent outlived the command"


def test_a_last_line_without_its_newline_is_read_before_the_end_of_input(tmp_path):
    # Piped input ending in "resign" with no newline: the line is played, not dropped as if never typed.
    record_path = tmp_path / "r.json"
    proc = run_referee("play", "--sandbox", "off", "--record", str(record_path), RANDOM, input="resign", timeout=WAIT)
    assert proc.returncode == 0, proc.stderr
    record = GameRecord.from_dict(json.loads(record_path.read_text()))
    assert (record.winner, record.reason) == ("BLUE", "resignation")
    assert record.message == "BLUE wins (resignation): RED (human) resigned after 0 actions"


def test_an_agents_error_entry_is_bounded_as_in_a_refereed_game():
    # Terminal and web play write the entry match.py writes: what the agent controls, cut to its bound.
    from referee.hosting.failures import AgentFailure
    from referee.core import error_entry
    from referee.records import MAX_ERROR_CHARS

    entry = error_entry(AgentFailure("boom", traceback="x" * 100_000, output="y" * 100_000))
    assert entry["kind"] == "agent_error" and entry["message"] == "boom"
    assert MAX_ERROR_CHARS <= len(entry["traceback"]) < MAX_ERROR_CHARS + 100
    assert MAX_ERROR_CHARS <= len(entry["output_tail"]) < MAX_ERROR_CHARS + 100


def test_with_the_default_sandbox(tmp_path):
    require_sandbox()
    record_path = tmp_path / "game.json"
    term = Terminal("--record", str(record_path), RANDOM)
    term.expect(PROMPT)
    assert "BLUE plays " in term.type("SPAWN(1, 1)")
    assert "took back" in term.type("undo")
    term.send("q")
    status, rest = term.finish()
    assert status == 0, rest
    record = GameRecord.from_dict(json.loads(record_path.read_text()))
    assert record.actions == () and record.sandbox and record.sandbox["namespaces"]


def test_cachex_is_played_too_and_resign_gives_the_game_up(tmp_path):
    record_path = tmp_path / "c.json"
    term = Terminal("--sandbox", "off", "--game", "cachex", "-n", "3", "--record", str(record_path), RANDOM)
    term.expect(PROMPT)
    assert "centre cell" in term.type("place 1 1")  # a Cachex rule, said as the reason
    assert "RED plays PLACE(0, 1)" in term.type("place 0 1")
    term.send("resign")
    status, rest = term.finish()
    assert status == 0, rest
    assert "result: BLUE wins (resignation): RED (human) resigned after 2 actions" in rest
    record = GameRecord.from_dict(json.loads(record_path.read_text()))
    assert record.game == "cachex" and (record.winner, record.reason) == ("BLUE", "resignation")
    # Each side's clock once each action was played: the person's wall clock, the agent's CPU.
    assert len(record.time_used_after) == 2 and record.time_used_after[0][0] > 0
    assert record.time_used_after[-1][1] <= record.time_used["BLUE"]
    replay = run_referee("replay", str(record_path), timeout=120)
    shown = replay.stdout + replay.stderr
    assert replay.returncode == 0 and "WARNING" not in shown, shown
    assert "BLUE wins (resignation): RED (human) resigned after 2 actions" in shown
    assert "result: BLUE wins (resignation)" in shown


CHANCE_TEXT = re.compile(r"chance plays (NO_EVENT|ASTEROID\([^)]*\)|FISH_MARKET\(.*\))\n")


def test_infinitron_several_commands_a_turn_and_chaos_events(tmp_path):
    record_path = tmp_path / "i.json"
    # Against an agent that never wins: chance is not seeded by --seed (it must stay unpredictable), so a random
    # agent sometimes took Red's capital before any chaos event.
    term = Terminal("--sandbox", "off", "--game", "infinitron", "--chaos", "--seed", "5",
                    "--record", str(record_path), "tests.hosting.fixture_agents.infinitron_chance:Passive")
    opening = term.expect(PROMPT)
    assert CHANCE_TEXT.search(opening), opening  # chaos is rolled before Red's turns
    listing = term.type("?")
    many = re.search(r"and (\d+) DEFINE actions, e\.g\. .*\('\? DEFINE' lists them\)", listing)
    assert many and int(many.group(1)) > 100, listing  # too many to list: counted, not printed
    defines = re.findall(r"DEFINE\([^)]*\)", term.type("? define"))
    assert len(defines) == len(set(defines)) == int(many.group(1))
    # Typed loosely (lower case, spaces), a DEFINE is read with its words.
    words = defines[-1][len("DEFINE("):-1].replace(",", "").lower()
    assert f"RED plays {defines[-1]}" in term.type(f"define {words}")
    events: list[str] = []
    for _ in range(150):  # chaos strikes before 1 Red turn in 12
        out = term.type("end_turn")
        assert "BLUE plays END_TURN" in out and "agent:" not in out, out
        if events:  # the agent played a whole turn after the event: it was told of it
            break
        events = [e for e in CHANCE_TEXT.findall(out) if e != "NO_EVENT"]
    assert events, "no chaos event in 150 turns"
    term.send("q")
    status, rest = term.finish()
    assert status == 0, rest
    record = GameRecord.from_dict(json.loads(record_path.read_text()))
    assert record.game == "infinitron" and record.game_options["chaos"] is True
    assert events[0] in record.actions and record.error == {"RED": None, "BLUE": None}
    chance = [a for a in record.actions if a == "NO_EVENT" or a.startswith(("ASTEROID", "FISH_MARKET"))]
    assert record.moves["RED"] + record.moves["BLUE"] == len(record.actions) - len(chance)
    replay = run_referee("replay", str(record_path), timeout=120)
    assert replay.returncode == 0 and "WARNING" not in replay.stdout + replay.stderr, replay.stdout + replay.stderr


def test_an_agent_failing_when_told_of_a_chaos_event_forfeits_with_a_record(tmp_path):
    record_path = tmp_path / "i.json"
    term = Terminal("--sandbox", "off", "--game", "infinitron", "--chaos", "--record", str(record_path),
                    "tests.hosting.fixture_agents.infinitron_chance")
    status, rest = term.finish()  # chaos is rolled before Red's first turn: the game ends before any prompt
    assert status == 0 and "Traceback (most recent call last)" not in rest, rest
    record = GameRecord.from_dict(json.loads(record_path.read_text()))
    assert (record.winner, record.reason) == ("RED", "agent_error")
    assert "told of chance's " in record.error["BLUE"]["message"] and len(record.actions) == 1


def test_an_agent_failing_when_restarted_by_undo_forfeits_with_a_record(tmp_path, monkeypatch):
    flag = tmp_path / "flag"
    monkeypatch.setenv("REFEREE_TEST_FLAG", str(flag))  # the command and its agent inherit it
    record_path = tmp_path / "u.json"
    term = Terminal("--sandbox", "off", "--record", str(record_path),
                    "tests.hosting.fixture_agents.misbehave:FailsWhenRestarted")
    term.expect(PROMPT)
    assert "BLUE plays " in term.type("spawn 3 3")
    flag.write_text("")
    term.send("undo")  # a fresh agent process is told the game again: this one fails to start
    status, rest = term.finish()
    assert status == 0 and "Traceback (most recent call last)" not in rest, rest
    record = GameRecord.from_dict(json.loads(record_path.read_text()))
    assert record.winner == "RED" and "started again after the flag" in record.error["BLUE"]["message"]


def test_an_undo_gives_the_restarted_agent_its_clock_at_that_position():
    """Agents cannot undo: a fresh process is told the game again. Its clock is the one the agent had at the
    position taken back to (a fresh process started at ~0 s: every undo gave the agent its whole time back)."""
    args = argparse.Namespace(game="infexion", agent="tests.hosting.fixture_agents.misbehave:ThinksAQuarterSecond",
                              side="red", time=30, space=None, seed=1, sandbox="off", human_time=None)
    session = Session(args, {}, say=lambda _: None, quote=lambda _: None)
    session.start_agent()
    try:
        for _ in range(2):
            spawn = next(a for a in session.state.legal_actions() if session.state.action_to_str(a).startswith("SPAWN"))
            session.play(spawn)
            session.agent_move()
        after_first_reply, after_second_reply = session.core.clocks[1][1], session.core.clocks[3][1]
        assert after_second_reply - after_first_reply >= 0.25  # the second reply's quarter second
        assert session.undo() and len(session.actions) == 2
        assert session.agent is not None and session.agent.time_used == after_first_reply
        spawn = next(a for a in session.state.legal_actions() if session.state.action_to_str(a).startswith("SPAWN"))
        session.play(spawn)
        session.agent_move()
        assert session.core.clocks[-1][1] >= after_first_reply + 0.25
        assert session.core.clocks[-1][1] < after_second_reply + 0.25  # the reply taken back is not charged
    finally:
        session.close_agent()


def hot_seat_chaos(secret: str) -> Session:
    """Two people (no agent) at Infinitron with chaos, chance drawing from ``secret``; chance's first roll done."""
    args = argparse.Namespace(game="infinitron", agent=None, side="red", time=None, space=None, seed=5,
                              sandbox="off", human_time=None)
    session = Session(args, game_class("infinitron").seeded_options({"chaos": True}, 5), say=lambda _: None,
                      chance_seed=secret)
    session.chance_move()
    return session


def play_texts(session: Session, *texts: str) -> None:
    for text in texts:
        action = session.state.parse_action(text)
        assert session.state.illegal_reason(action) is None, text
        session.play(action)


def test_an_undo_does_not_re_roll_chaos():
    def second_roll(secret: str) -> str:
        session = hot_seat_chaos(secret)
        play_texts(session, "END_TURN", "END_TURN")
        session.chance_move()
        return session.actions[-1]

    # A secret whose second roll is an event (1 in 12 is).
    secret = next(f"s{i}" for i in range(500) if second_roll(f"s{i}") != "NO_EVENT")
    event = second_roll(secret)
    session = hot_seat_chaos(secret)
    play_texts(session, "END_TURN", "END_TURN")
    session.chance_move()
    assert session.actions[-1] == event
    assert session.take_back() and session.actions[1:] == ["END_TURN"]  # BLUE's END_TURN and the roll after it
    play_texts(session, "TERRAIN(BLOCK, -3, 2)", "END_TURN")  # BLUE's turn is longer this time
    session.chance_move()
    assert session.actions[-1] == event


@pytest.mark.parametrize(
    "args, message",
    [
        ((), "the following arguments are required: AGENT"),
        (("agents.no_such_agent",), "names no agent"),
        (("--as", "green", RANDOM), "invalid choice: 'green'"),
        (("-t", "soon", RANDOM), "the time limit must be a number"),
        (("--record", "/no/such/folder/g.json", RANDOM), "does not exist"),
    ],
)
def test_bad_arguments_are_usage_errors(args, message):
    proc = subprocess.run([sys.executable, "-m", "referee", "play", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_the_human_keeps_no_limit_unless_human_time_is_given(tmp_path):
    # A budget far below what any typing through a terminal takes: the first entry is already too late.
    record_path = tmp_path / "game.json"
    term = Terminal("--sandbox", "off", "--human-time", "1e-9", "--record", str(record_path), RANDOM)
    term.expect(PROMPT)
    term.send("SPAWN(3, 3)")
    status, rest = term.finish()
    assert status == 0, rest
    record = GameRecord.from_dict(json.loads(record_path.read_text()))
    assert record.winner == "BLUE" and record.reason == "time_limit" and record.actions == ()


def test_the_help_lists_every_games_own_options():
    """play -h (with or without --game) shows each game's flags, each game in a group of its own."""
    for extra in ([], ["--game", "cachex"]):
        done = run_referee("play", *extra, "-h")
        assert done.returncode == 0, done.stderr
        assert "cachex only (with --game cachex)" in done.stdout and "--size N" in done.stdout
        assert "infinitron only (with --game infinitron)" in done.stdout and "--chaos" in done.stdout


@pytest.mark.parametrize("typed, said", [
    ("spawn 9 9", "cell (9, 9) is off the board"),
    ("spawn(-1,2)", "cell (-1, 2) is off the board"),
    ("spread 3 3 2 0", "(2, 0) is not a hex direction"),
    ("hello", "not an Infexion action: 'hello'"),
])
def test_a_typed_action_that_cannot_be_read_says_what_is_wrong(typed, said):
    from referee.human_play.session import read_action

    action, error = read_action(game_class("infexion")().new_state(), typed)
    assert action is None and error.startswith(said), error
