"""The battleground's abuse limits through a real server, at settings small enough to reach in a test.

At their defaults (10 s to say hello, 200 unasked messages a second in
bursts of 400) they are too slow to test; ``serve --hello-timeout``,
``--rate`` and ``--burst`` set them (docs/battleground.md, 'Abuse').  Each test
waits on an event (a close, a row, a process's exit), never on a fixed sleep.
"""
from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.records import GameRecord
from tests.battleground.sides import (
    Client, RawSide, Server, closed_after, finished_row, hello, raw_connect, receive, replay, running,
)
from tests.helpers import wait_until

pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed  # noqa: E402

HELLO_TIMEOUT = 2
BURST = 20


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with a short hello timeout and a small budget of unasked messages."""
    server = Server(tmp_path_factory.mktemp("strict"), "-t", "30", "--grace", "2", "--sandbox", "off",
                    "--hello-timeout", str(HELLO_TIMEOUT), "--rate", "5", "--burst", str(BURST))
    yield server
    server.kill()
    assert "Traceback" not in server.text() and "internal error" not in server.text(), server.text()


def test_a_connection_that_never_says_hello_is_closed_and_others_are_served(strict: Server):
    with raw_connect(strict) as silent:
        # While the silent one waits, another connection is welcomed as usual.
        with raw_connect(strict) as prompt:
            prompt.send(hello("prompt", channel="nobody-else"))
            assert receive(prompt)["type"] == "welcome"
        messages = closed_after(silent)
    assert messages == [{"type": "refused", "reason": f"no hello within {HELLO_TIMEOUT} s"}]
    assert silent.close_code == 1008
    with raw_connect(strict) as after:
        after.send(hello("after", channel="nobody-else"))
        assert receive(after)["type"] == "welcome"
    assert strict.proc.poll() is None


def test_a_connection_that_never_finishes_its_handshake_is_closed(strict: Server):
    """Not even a WebSocket: a TCP connection that sends nothing is closed after the same timeout."""
    with socket.create_connection(("127.0.0.1", strict.port), timeout=30) as silent:
        try:
            assert silent.recv(1024) == b""
        except ConnectionResetError:
            pass
    with raw_connect(strict) as after:
        after.send(hello("after-tcp", channel="nobody-else"))
        assert receive(after)["type"] == "welcome"


def test_a_flood_of_unasked_messages_forfeits_its_game_and_spares_the_others(strict: Server, tmp_path: Path):
    # A well-behaved game on the same server, under way while the flood comes: the test's side in it answers
    # each request at once (answers are never counted), and so does the client process on the other side.
    calm_o = Client(tmp_path, strict, "agents/random_agent", "calm-o", "--channel", "calm", "--games", "1", "-v", "0")
    flood_o = Client(tmp_path, strict, "agents/random_agent", "flood-o", "--channel", "flood", "--games", "1",
                     "-v", "0")
    with running(calm_o, flood_o), raw_connect(strict) as calm_ws, raw_connect(strict) as ws:
        calm = RawSide(calm_ws, "calm", "calm")
        me = RawSide(ws, "flooder", "flood")
        for side in (calm, me):
            for _ in range(3):
                assert side.until_play()["type"] == "play"
                side.send_action(side.action())
        # Well-formed messages the game ignores (about no game of this player's): only the rate limit stops them.
        ignored = json.dumps({"type": "ready", "id": 0})
        sent = 0
        try:
            for _ in range(10 * BURST):
                ws.send(ignored)
                sent += 1
        except ConnectionClosed:
            pass
        messages = closed_after(ws)
        assert messages and messages[-1] == {"type": "error", "message": "more than 5 messages a second unasked"}, \
            messages
        assert ws.close_code == 1008
        assert sent > BURST
        row = wait_until(lambda: finished_row(strict, me.id), 20, "the flooder's game's end")
        assert flood_o.wait() == 0, flood_o.text()
        # The calm game goes on to its end by the rules.
        end = calm.play_out()
        assert calm_o.wait() == 0, calm_o.text()
    assert row["reason"] == "protocol_error" and row["winner"] == ("BLUE" if me.color == "RED" else "RED")
    record = GameRecord.from_json(row["record"])
    assert record.error[me.color]["kind"] == "protocol_error"
    assert "unasked" in record.error[me.color]["message"]
    replay(record)
    calm_record = GameRecord.from_dict(end["record"])
    assert calm_record.reason not in ("protocol_error", "disconnected", "time_limit"), calm_record.message
    state = replay(calm_record)
    assert (calm_record.winner, calm_record.reason) == (state.outcome.winner_name, state.outcome.reason)
    [calm_row] = strict.rows("channel = 'calm'")
    assert calm_row["status"] == "finished" and calm_row["id"] == calm.id
    with raw_connect(strict) as after:
        after.send(hello("after-flood", channel="nobody-else"))
        assert receive(after)["type"] == "welcome"
    assert strict.proc.poll() is None
