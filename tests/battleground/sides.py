"""What the battleground tests share: a real server in a subprocess, and a side played by the test itself."""
from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

from referee.games import load_game
from tests.helpers import ROOT


class Server:
    """``python -m referee serve`` on a free port of 127.0.0.1; its start-up lines are kept."""

    def __init__(self, db: Path, *options: str):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "referee", "serve", "--host", "127.0.0.1", "--port", "0", "--db", str(db),
             "--names-per-hour", "0", "--pair-games-per-hour", "0", *options],
            cwd=ROOT, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )
        assert self.proc.stderr is not None
        self.said = []
        while True:
            line = self.proc.stderr.readline()
            assert line, "the server stopped: " + "".join(self.said)
            self.said.append(line)
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if found:
                self.port = int(found.group(1))
                break

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as reply:
            return json.load(reply)

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


def client(server: Server, agent: str, name: str, tmp_path: Path, *options: str) -> subprocess.Popen[str]:
    """``python -m referee connect`` in its own session (its agents' processes die with it), tokens in tmp."""
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    return subprocess.Popen(
        [sys.executable, "-m", "referee", "connect", agent, name, "--server", f"127.0.0.1:{server.port}",
         "--record-file", str(tmp_path / f"{name}.jsonl"), "-v", "0", *options],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )


class Side:
    """The test as a battleground client (on an open WebSocket), playing random legal moves when asked."""

    def __init__(self, ws: Any, name: str, channel: str, games: int = 1, token: str | None = None):
        self.ws = ws
        self.ws.send(json.dumps({"type": "hello", "protocol": 1, "name": name, "token": token, "channel": channel,
                                 "games": games, "client": "test"}))
        self.state = load_game("infexion").new_state()
        self.rng = random.Random(7)
        self.id: int | None = None
        self.color = ""
        self.end: dict[str, Any] | None = None

    def next(self) -> dict[str, Any]:
        return json.loads(self.ws.recv(timeout=60))

    def until_start(self) -> None:
        """Read until the game starts (and answer ``ready``): the side's colour is then known."""
        while self.id is None:
            message = self.next()
            if message["type"] == "start":
                self.id, self.color = message["id"], message["color"]
                self.ws.send(json.dumps({"type": "ready", "id": self.id}))
            elif message["type"] in ("refused", "error", "end"):
                raise AssertionError(f"the server said: {message}")

    def until_play(self) -> dict[str, Any] | None:
        """Answer what the server says until it asks for a move (that request) or the game ends (None)."""
        while True:
            message = self.next()
            if message["type"] == "start":
                self.id, self.color = message["id"], message["color"]
                self.ws.send(json.dumps({"type": "ready", "id": self.id}))
            elif message["type"] == "turn":
                self.state.apply_checked(self.state.parse_action(message["action"]))
            elif message["type"] == "play":
                return message
            elif message["type"] == "end":
                self.end = message
                return None
            elif message["type"] in ("refused", "error"):
                raise AssertionError(f"the server said: {message}")

    def move(self) -> bool:
        """Play one move when asked; False once the game is over."""
        if self.until_play() is None:
            return False
        action = self.state.action_to_str(self.rng.choice(self.state.legal_actions()))
        self.ws.send(json.dumps({"type": "action", "id": self.id, "action": action, "cpu": 0.01, "memory_mb": 1}))
        return True
