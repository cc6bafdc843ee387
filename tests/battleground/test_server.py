"""The battleground end to end: a real server, real clients in subprocesses, over localhost.

Where a game must stay in play while the test acts on it (a client killed,
the server killed), one side is the test itself speaking the protocol
(:class:`~tests.battleground.sides.Side`), so nothing depends on timing.
"""
from __future__ import annotations

import contextlib
import json
import re
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from referee.games import load_game
from referee.records import GameRecord
from tests.battleground.sides import Server, Side, client
from tests.helpers import ROOT, wait_until

websockets_client = pytest.importorskip("websockets.sync.client")


def records(path: Path) -> list[GameRecord]:
    return [GameRecord.from_json(line) for line in path.read_text().splitlines()]


def replays_legally(record: GameRecord) -> None:
    state = load_game(record.game, **dict(record.game_options)).new_state()
    for text in record.actions:
        state.apply_checked(state.parse_action(text))


def kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)


def opened(stack: contextlib.ExitStack, server: Server):
    return stack.enter_context(websockets_client.connect(f"ws://127.0.0.1:{server.port}/play", open_timeout=10,
                                                         max_size=None))


@pytest.fixture
def stack():
    with contextlib.ExitStack() as opened_things:
        yield opened_things


def test_two_students_play_a_colour_swapped_pair_with_sealed_agents_and_a_house_game(tmp_path, stack):
    server = Server(tmp_path / "bg.sqlite", "-t", "30", "--house", "greedy=agents.greedy", "--sandbox", "off")
    stack.callback(server.kill)
    alice = client(server, "agents/random_agent", "alice", tmp_path)
    bob = client(server, "agents/greedy", "bob", tmp_path)
    for proc in (alice, bob):
        stack.callback(kill_group, proc)
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out
        assert "no more games" in out
    mine = {name: records(tmp_path / f"{name}.jsonl") for name in ("alice", "bob")}
    assert [len(kept) for kept in mine.values()] == [2, 2]
    assert [r.to_json() for r in mine["alice"]] == [r.to_json() for r in mine["bob"]]
    assert {(r.red, r.blue) for r in mine["alice"]} == {("alice", "bob"), ("bob", "alice")}  # each Red once
    with sqlite3.connect(tmp_path / "bg.sqlite") as db:
        kept = [GameRecord.from_json(text) for (text,) in db.execute("SELECT record FROM games ORDER BY id")]
    assert [r.to_json() for r in kept] == [r.to_json() for r in mine["alice"]]
    for record in kept:
        replays_legally(record)
        assert record.reason not in ("protocol_error", "disconnected") and record.extra["battleground"]["clock"]
    # The clients sealed their agents (the default sandbox), under the server's limits.
    assert all(r.time_limit == 30 for r in kept)

    # A house channel: the server starts the house agent for the student.
    carol = client(server, "agents/random_agent", "carol", tmp_path, "--channel", "greedy", "--games", "1")
    stack.callback(kill_group, carol)
    out, _ = carol.communicate(timeout=120)
    assert carol.returncode == 0, out
    (game,) = records(tmp_path / "carol.jsonl")
    assert {game.red, game.blue} == {"carol", "greedy"} and game.extra["battleground"]["channel"] == "greedy"
    board = {row["name"]: row for row in server.get("/api/leaderboard")}
    assert board["greedy"]["games"] == 1 and board["alice"]["games"] == 2


def test_a_killed_client_forfeits_after_the_grace_and_a_restarted_one_resumes(tmp_path, stack):
    server = Server(tmp_path / "bg.sqlite", "-t", "60", "--grace", "15")
    stack.callback(server.kill)
    # Resumed: killed mid-game, a new client process (same name, same token file) takes the game back.
    erin = client(server, "agents/random_agent", "erin", tmp_path, "--channel", "r", "--games", "1",
                  "--sandbox", "off")
    stack.callback(kill_group, erin)
    me = Side(opened(stack, server), "frank", "r")
    for _ in range(4):
        assert me.move()
    kill_group(erin)
    again = client(server, "agents/random_agent", "erin", tmp_path, "--channel", "r", "--games", "1",
                   "--sandbox", "off")
    stack.callback(kill_group, again)
    while me.move():
        pass
    record = GameRecord.from_dict(me.end["record"])
    assert record.reason in ("elimination", "turn_limit") and record.reason != "disconnected"
    replays_legally(record)
    out, _ = again.communicate(timeout=60)
    assert again.returncode == 0, out
    game_id = record.extra["battleground"]["id"]
    assert re.search(rf"resuming game {game_id}: its \d+ actions so far told to a new agent", out), out

    # Not back within the grace (2 s): the other side wins on `disconnected`.
    quick = Server(tmp_path / "quick.sqlite", "-t", "60", "--grace", "2")
    stack.callback(quick.kill)
    gina = client(quick, "agents/random_agent", "gina", tmp_path, "--channel", "q", "--games", "1",
                  "--sandbox", "off")
    me = Side(opened(stack, quick), "hal", "q")
    for _ in range(3):
        assert me.move()
    kill_group(gina)
    while me.move():
        pass
    record = GameRecord.from_dict(me.end["record"])
    assert (record.reason, record.winner) == ("disconnected", me.color)
    assert "not back within 2 s" in record.message


def test_garbage_oversized_and_bad_hellos_end_that_connection_never_the_server(tmp_path, stack):
    server = Server(tmp_path / "bg.sqlite", "-t", "60")
    stack.callback(server.kill)
    for sent, expected in [
        ("not json at all", "one JSON object"),
        (json.dumps({"type": "launch"}), "unknown message type"),
        (json.dumps({"type": "hello", "protocol": 1, "name": "<b>bad name</b>", "channel": "", "games": 1}),
         "a name is"),
        (json.dumps({"type": "hello", "protocol": 1, "name": "x" * 100_000, "channel": "", "games": 1}), None),
    ]:
        with websockets_client.connect(f"ws://127.0.0.1:{server.port}/play", max_size=None) as ws:
            ws.send(sent)
            if expected is None:  # over 64 KiB: the server closes the connection (1009, message too big)
                with pytest.raises(Exception) as closed:
                    ws.recv(timeout=10)
                assert "1009" in str(closed.value) or "too big" in str(closed.value)
                continue
            answer = json.loads(ws.recv(timeout=10))
            assert answer["type"] == "refused" and expected in answer["reason"]
    # Garbage in the middle of a game forfeits that side's game; the opponent wins.
    ian = Side(opened(stack, server), "ian", "g")
    jo = Side(opened(stack, server), "jo", "g")
    for side in (ian, jo):
        side.until_start()
    mover, other = (ian, jo) if ian.color == "RED" else (jo, ian)
    assert mover.until_play() is not None
    mover.ws.send("}{ garbage")
    assert other.until_play() is None
    record = GameRecord.from_dict(other.end["record"])
    assert (record.reason, record.winner) == ("protocol_error", other.color)
    # ... and the server still welcomes a new client.
    with websockets_client.connect(f"ws://127.0.0.1:{server.port}/play") as ws:
        ws.send(json.dumps({"type": "hello", "protocol": 1, "name": "kim", "token": None, "channel": "",
                            "games": 1}))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"


def test_a_roster_issues_tokens_and_refuses_wrong_ones_and_strangers(tmp_path, stack):
    roster = tmp_path / "roster.csv"
    roster.write_text("name,student_id\nlee,1001\nmo,1002\n")
    db = tmp_path / "bg.sqlite"
    printed = subprocess.run([sys.executable, "-m", "referee", "serve", "tokens", str(roster), "--db", str(db)],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0, printed.stderr
    lines = printed.stdout.splitlines()
    assert lines[0] == "name,student_id,token" and len(lines) == 3
    tokens = {line.split(",")[0]: line.split(",")[2] for line in lines[1:]}
    server = Server(db, "-t", "30", "--roster", str(roster))
    stack.callback(server.kill)
    wrong = client(server, "agents/random_agent", "lee", tmp_path, "--token", "0" * 32, "--sandbox", "off")
    out, _ = wrong.communicate(timeout=60)
    assert wrong.returncode != 0 and "wrong token for 'lee'" in out
    stranger = client(server, "agents/random_agent", "nat", tmp_path, "--sandbox", "off")
    out, _ = stranger.communicate(timeout=60)
    assert stranger.returncode != 0 and "not on this server's roster" in out
    players = [client(server, "agents/random_agent", name, tmp_path, "--token", tokens[name], "--games", "1",
                      "--sandbox", "off") for name in ("lee", "mo")]
    for proc in players:
        stack.callback(kill_group, proc)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, out


def test_a_server_killed_mid_game_keeps_its_games_and_records_the_running_one_aborted(tmp_path, stack):
    db = tmp_path / "bg.sqlite"
    server = Server(db, "-t", "60", "--grace", "3")
    stack.callback(server.kill)
    a = client(server, "agents/random_agent", "oli", tmp_path, "--channel", "k", "--games", "1", "--sandbox", "off")
    b = client(server, "agents/random_agent", "pat", tmp_path, "--channel", "k", "--games", "1", "--sandbox", "off")
    for proc in (a, b):
        assert proc.wait(60) == 0
    finished = server.get("/api/games")["finished"]
    me = Side(opened(stack, server), "quinn", "m")
    other = client(server, "agents/random_agent", "ray", tmp_path, "--channel", "m", "--games", "1",
                   "--sandbox", "off")
    stack.callback(kill_group, other)
    for _ in range(3):
        assert me.move()
    running = me.id
    server.kill()
    out, _ = other.communicate(timeout=60)
    assert other.returncode != 0 and ("could not reconnect" in out or "connection" in out), out

    again = Server(db, "-t", "60")
    stack.callback(again.kill)
    assert any("1 game(s) interrupted" in line and "aborted" in line for line in again.said)
    games = again.get("/api/games")
    assert [g["id"] for g in games["finished"]] == [g["id"] for g in finished]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM games WHERE id = ?", (running,)).fetchone() == ("aborted",)
        names = {name for (name,) in conn.execute("SELECT name FROM players")}
    assert {"oli", "pat", "quinn", "ray"} <= names
    board = {row["name"]: row for row in again.get("/api/leaderboard")}
    assert board["oli"]["games"] == 1 and "quinn" not in board  # the aborted game counts for nobody
    wait_until(lambda: again.get(f"/api/games/{finished[0]['id']}")["turns"] > 0, 10, "the finished game's record")
