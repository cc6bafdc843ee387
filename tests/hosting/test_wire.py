"""The wire format's checks on what an agent process sends."""
from __future__ import annotations

import json

import pytest

from referee.hosting.wire import Reply, WireError, parse_reply

from tests.helpers import run_referee

from .hostile_runs import HOSTILE, RANDOM


def test_a_lone_surrogate_in_a_message_becomes_text_any_file_can_hold():
    line = json.dumps({"ok": False, "failure": "exception", "message": "a \ud800 b", "traceback": "\udfff"}).encode()
    reply = parse_reply(line)
    assert reply == Reply(False, failure="exception", message="a ? b", traceback="?")
    reply.message.encode("utf-8")  # no UnicodeEncodeError


@pytest.mark.parametrize("line", [b"[]", b'{"ok": 1}', b'{"ok": false, "failure": "other"}', b'{"ok": true, "x": 1}'])
def test_replies_outside_the_format_are_refused(line):
    with pytest.raises(WireError):
        parse_reply(line)


def test_a_tournament_records_the_game_of_an_agent_raising_a_lone_surrogate(tmp_path):
    """The record's message holds what the agent raised; the run ends normally (it stopped with
    UnicodeEncodeError writing games.jsonl)."""
    config = tmp_path / "t.yaml"
    config.write_text(
        "name: surrogate\ngame: infexion\nagents:\n"
        f"  - {{name: half, spec: '{HOSTILE}.escape:RaisesALoneSurrogate'}}\n"
        f"  - {{name: whole, spec: {RANDOM}}}\ngames_per_pair: 2\nworkers: 1\nsandbox: off\n"
        f"output: {tmp_path / 'out'}\n"
    )
    proc = run_referee("tournament", str(config), "-q", timeout=120)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text("utf-8").splitlines()]
    assert len(records) == 2 and all(r["error"]["RED" if r["red_name"] == "half" else "BLUE"] for r in records)
    messages = [(r["error"]["RED"] or r["error"]["BLUE"])["message"] for r in records]
    assert all("half a character: ? then more" in m for m in messages), messages
