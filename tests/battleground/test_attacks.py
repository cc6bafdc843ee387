"""A losing student's attacks on the battleground, each as a real client against a real server.

Each test plays the attack the way issue 45 reproduced it and checks that the
server stays the referee: the game ends in a result charged to the attacker,
its clock runs, nothing it sends piles up.  Every one of these attacks worked
against the server before its fix (the issue has the figures).  Each test
waits on events (a message, a row of the database), never on a fixed sleep;
the only sleeps are the attacker's own thinking, which is the attack.
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.records import GameRecord
from tests.battleground.sides import (
    Honest, RawSide, Server, finished_row, hello, opened, raw_connect, receive, replay, unharmed,
)
from tests.helpers import wait_until

pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed  # noqa: E402

#: The server's settings here: 1 s of CPU (1.25 s of wall clock a side), a 2 s grace, 3 s to get ready.
WALL = 1.25


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from unharmed(tmp_path_factory.mktemp("attacks"), "-t", "1", "--grace", "2", "--start-timeout", "3")


@pytest.fixture(scope="module")
def roomy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with time enough for a test's side to hold its move while the other acts."""
    yield from unharmed(tmp_path_factory.mktemp("roomy"), "-t", "60", "--grace", "2")


def _holding(server: Server, name: str, channel: str) -> tuple[threading.Event, Honest, Any, RawSide]:
    """A game on ``channel`` between an honest side and the test's, once the test's side has made its first
    move: the honest side thinks (its move held) until the event returned is set."""
    go = threading.Event()
    go.set()
    honest = Honest(server, f"hon-{channel}", channel, wait_before_move=go)
    ws = opened(server)
    me = RawSide(ws, name, channel)
    _play_until_asked(me)
    go.clear()
    me.send_action(me.action())
    return go, honest, ws, me


def _play_until_asked(side: RawSide) -> dict[str, Any]:
    message = side.until_play()
    assert message["type"] == "play", message
    return message


def _ended(server: Server, game_id: int | None) -> Any:
    assert game_id is not None
    return wait_until(lambda: finished_row(server, game_id), 30, f"game {game_id}'s end")


def _loser(row: Any, color: str) -> None:
    assert row["winner"] == ("BLUE" if color == "RED" else "RED"), dict(row)


# -- 1. a message that crashed the game task voided the game ----------------------------------------------------


@pytest.mark.parametrize("payload", [
    '{"type": "action", "id": ID, "action": "SPAWN(3, 3)", "cpu": ' + "9" * 401 + ', "memory_mb": 1}',
    '{"type": "action", "id": ID, "action": "SPAWN(3, 3)", "cpu": NaN, "memory_mb": 1}',
    '{"type": "action", "id": ID, "action": "SPAWN(3, 3)", "cpu": 0.1, "memory_mb": Infinity}',
    '{"type": "action", "id": ID, "action": "SPAWN(' + "1" * 5000 + ', 0)", "cpu": 0.1, "memory_mb": 1}',
    '{"type": "failed", "id": ID, "reason": "exception", "message": "x", "cpu": ' + "9" * 401 + ', "memory_mb": 1}',
], ids=["huge-cpu", "nan-cpu", "infinite-memory", "huge-coordinate", "huge-cpu-in-failed"])
def test_a_message_that_once_crashed_the_game_is_a_verdict_against_its_sender(server: Server, payload: str):
    channel = f"void-{abs(hash(payload)) % 10**8}"
    honest = Honest(server, f"hon-{channel}", channel)
    with raw_connect(server) as ws:
        me = RawSide(ws, f"att-{channel}", channel)
        _play_until_asked(me)
        ws.send(payload.replace("ID", str(me.id)))
        row = _ended(server, me.id)
    honest.join(30)
    _loser(row, me.color)
    assert row["reason"] == "protocol_error", dict(row)
    # The record is whole and readable, on the page and in the API (NaN once made it a 404).
    record = GameRecord.from_dict(server.get(f"/api/games/{me.id}"))
    assert record.error[me.color]["kind"] == "protocol_error"
    assert honest.end is not None and honest.end["record"]["reason"] == "protocol_error"
    replay(record)


# -- 2. reconnecting over and over while the server waits for ready ------------------------------------------


def test_reconnecting_again_and_again_before_ready_neither_nests_nor_renews_the_start_allowance(server: Server):
    honest = Honest(server, "hon-storm", "storm")
    ws = opened(server)
    ws.send(hello("storm", channel="storm"))
    welcome = receive(ws)
    token = welcome["token"]
    start = wait_until(lambda: _first(ws, "start"), 20, "the start")
    game_id = start["id"]
    reconnects = 0
    # Hundreds of returns with the right token, never a ready: each gets the game again, none a new allowance
    # (before, each return renewed the 60 s allowance, and ~400 nested the waits until a RecursionError).
    while reconnects < 5000 and finished_row(server, game_id) is None:
        ws.close()
        ws = opened(server)
        ws.send(hello("storm", channel="storm", token=token))
        assert receive(ws)["type"] == "welcome"
        reconnects += 1
    ws.close()
    row = _ended(server, game_id)
    honest.join(30)
    assert row["reason"] == "load_error", dict(row)
    _loser(row, start["color"])
    assert "not ready within 3 s of the game's start" in row["record"]
    assert 2 <= reconnects < 5000


def _first(ws: Any, kind: str) -> dict[str, Any] | None:
    message = receive(ws)
    return message if message["type"] == kind else None


# -- 3. thinking off the clock by coming back during the opponent's turn -------------------------------------


def test_coming_back_during_the_opponents_turn_does_not_stop_ones_clock(server: Server):
    """Before: the server sent the game again on the returner's own turn and started its clock only at its
    ``ready``, so all its thinking before ``ready`` was free (22 s over 12 moves at a 2.5 s wall clock)."""
    honest = Honest(server, "hon-clock", "clock")
    ws = opened(server)
    me = RawSide(ws, "thinker", "clock")
    token = me.welcome["token"]
    thought = 0.0
    moves = 0
    end = None
    try:
        while end is None and moves < 20:
            message = me.until_play()
            if message["type"] == "end":
                end = message
                break
            me.send_action(me.action())
            moves += 1
            # Away and back at once, during the opponent's turn; then think 0.4 s before saying ready.
            ws.close()
            ws = me.ws = opened(server)
            ws.send(hello("thinker", channel="clock", token=token))
            assert receive(ws)["type"] == "welcome"
            while True:
                message = receive(ws)
                if message["type"] == "start":
                    me.state = type(me.state)()  # the game again, from its actions
                    for _mover, text in message["actions"]:
                        me.state.apply_checked(me.state.parse_action(text))
                    time.sleep(0.4)
                    thought += 0.4
                    ws.send(json.dumps({"type": "ready", "id": me.id}))
                    break
                if message["type"] == "end":
                    end = message
                    break
    except ConnectionClosed:
        pass  # the game ended while this side was thinking: the server said so and closed
    finally:
        ws.close()
    row = _ended(server, me.id)
    honest.join(30)
    _loser(row, me.color)
    assert row["reason"] == "time_limit", dict(row)
    record = GameRecord.from_json(row["record"])
    used = record.extra["battleground"]["wall_used"][me.color]
    assert used >= 0.95 * WALL and thought <= used + 0.5, (used, thought, moves)
    assert moves <= 6


# -- 5. and 7. what a side sends during the other's turn -------------------------------------------------------


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_unasked_messages_during_the_opponents_turn_neither_pile_up_nor_get_played(roomy: Server):
    """Before: a side's inbox was read only on its turn, so 64 KiB messages sent meanwhile piled up in the server
    (35 -> 205 MB in 18 s from one connection), and an action sent early was played the moment the turn came."""
    go, honest, ws, me = _holding(roomy, "piler", "pile")
    with ws:
        before = _rss_kb(roomy.proc.pid)
        # The opponent is thinking: 300 messages of 60 KB (within the rate limit's burst of 400), and first a
        # legal action of this side's (a SPAWN on a cell nobody will have taken by its turn).
        early = next(a for a in map(me.state.action_to_str, me.state.legal_actions()) if a.startswith("SPAWN"))
        filler = json.dumps({"type": "action", "id": me.id, "action": "x" * 60_000, "cpu": 0.0, "memory_mb": 0.0})
        ws.send(json.dumps({"type": "action", "id": me.id, "action": early, "cpu": 0.0, "memory_mb": 0.0}))
        for _ in range(300):
            ws.send(filler)
        ws.ping().wait(20)  # answered once the server has read all that came before it
        grown_kb = _rss_kb(roomy.proc.pid) - before
        go.set()
        # The turn comes: nothing sent before the request is played. This side answers another legal action,
        # then ends the game with an illegal one.
        _play_until_asked(me)
        answer = next(a for a in map(me.state.action_to_str, me.state.legal_actions()) if a != early)
        me.send_action(answer)
        _play_until_asked(me)
        me.send_action("SPAWN(9, 9)")
        row = _ended(roomy, me.id)
    honest.join(30)
    # Kept, the 300 messages would be 18 MB; read and dropped, what remains is the allocator's and the library's
    # buffers (up to 64 frames of the connection's queue).
    assert grown_kb < 12_000, f"the server grew by {grown_kb} kB"
    assert row["reason"] in ("illegal_action", "protocol_error"), dict(row)
    _loser(row, me.color)
    record = GameRecord.from_json(row["record"])
    mine = record.actions[1::2] if me.color == "BLUE" else record.actions[0::2]
    assert mine[1] == answer and early not in mine[1:], record.actions


def test_a_flood_of_failed_messages_is_one_failure_not_a_pile(roomy: Server):
    """The same pile with ``failed`` messages (the one message a game takes at any time): one is let in, the game
    ends on it when it is read, the rest are dropped."""
    go, honest, ws, me = _holding(roomy, "failer", "fail")
    with ws:
        before = _rss_kb(roomy.proc.pid)
        failed = json.dumps({"type": "failed", "id": me.id, "reason": "agent_error", "message": "x" * 60_000,
                             "traceback": None, "cpu": 0.0, "memory_mb": 0.0})
        for _ in range(300):
            ws.send(failed)
        ws.ping().wait(20)
        grown_kb = _rss_kb(roomy.proc.pid) - before
        go.set()
        row = _ended(roomy, me.id)
    honest.join(30)
    assert grown_kb < 12_000, f"the server grew by {grown_kb} kB"
    assert row["reason"] == "agent_error", dict(row)
    _loser(row, me.color)


def test_a_client_back_during_its_opponents_turn_plays_on_when_its_turn_comes(roomy: Server):
    """The honest side of the same rule: a client that came back and said ``ready`` while its opponent was still
    thinking has its next action taken (its ``ready`` waits in its inbox until its turn, before that action)."""
    go, honest, ws, me = _holding(roomy, "returner", "back")
    token = me.welcome["token"]
    try:
        ws.close()
        ws = me.ws = opened(roomy)
        ws.send(hello("returner", channel="back", token=token))
        assert receive(ws)["type"] == "welcome"
        start = receive(ws)
        assert start["type"] == "start" and start["id"] == me.id
        me.state = type(me.state)()
        for _mover, text in start["actions"]:
            me.state.apply_checked(me.state.parse_action(text))
        ws.send(json.dumps({"type": "ready", "id": me.id}))
        ws.ping().wait(20)  # the server has the ready, while the opponent still thinks
        go.set()
        for _ in range(3):  # its next moves are taken: each is followed by a new request
            _play_until_asked(me)
            me.send_action(me.action())
        _play_until_asked(me)
        ws.send("not JSON")
        row = _ended(roomy, me.id)
    finally:
        ws.close()
    honest.join(30)
    assert row["reason"] == "protocol_error", dict(row)
    record = GameRecord.from_json(row["record"])
    assert len(record.actions) >= 7, record.actions
