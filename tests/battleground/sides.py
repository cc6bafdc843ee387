"""What the battleground tests share: a real server and real clients in subprocesses, and sides played by the test.

- :class:`Server`: ``python -m referee serve`` on a free port, its output in a log file, its database read directly.
- :class:`Client` (a log file) and :func:`client` (a pipe): ``python -m referee connect``.
- :func:`raw_connect`, :func:`hello`, :func:`receive`, :func:`closed_after`: the protocol spoken by the test.
- :class:`RawSide`, :class:`Side`: the test as a client playing seeded random moves; :class:`Honest`: one in a thread.
- :func:`unharmed`: a module's server, whose log must show no internal error once its tests are done.

``websockets`` is imported where a connection is made: the modules that only
start processes run without it.
"""
from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from referee.games import load_game
from referee.records import GameRecord
from tests.helpers import ROOT, wait_until

#: The line the server prints once it listens (the game's name, then its address).
URL_LINE = re.compile(r"\* battleground: .+? on http://127\.0\.0\.1:(\d+)/")

#: Every test's clients come from 127.0.0.1: the caps on new names and on a pair's games an hour are off unless a
#: test sets them (a later option wins).
UNCAPPED = ("--names-per-hour", "0", "--pair-games-per-hour", "0")


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    """SIGKILL a process started in a session of its own, and everything it started."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(10)


class Server:
    """``python -m referee serve`` on a free port (``--port`` among ``args`` wins); its output in ``tmp/log_name``.

    Its database is ``tmp/bg.sqlite`` unless ``db`` is given (a restart on the database of a server killed).
    """

    def __init__(self, tmp: Path, *args: str, db: Path | None = None, log_name: str = "server.log"):
        self.db = db or tmp / "bg.sqlite"
        self.log = tmp / log_name
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "referee", "serve", "--host", "127.0.0.1", "--port", "0",
                 "--db", str(self.db), *UNCAPPED, *args],
                cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        found = wait_until(lambda: URL_LINE.search(self.text()) or self.proc.poll() is not None, 30,
                           "the server's URL line")
        assert isinstance(found, re.Match), self.text()
        self.port = int(found.group(1))
        self.address = f"127.0.0.1:{self.port}"

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def page(self, path: str) -> str:
        with urllib.request.urlopen(f"http://{self.address}{path}", timeout=30) as reply:
            return str(reply.read().decode())

    def get(self, path: str) -> Any:
        return json.loads(self.page(path))

    def kill(self) -> None:
        _kill_group(self.proc)

    def rows(self, where: str = "1", *params: Any) -> list[sqlite3.Row]:
        """The games table's rows (a fresh read-only connection: the server writes with WAL)."""
        db = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10)
        db.row_factory = sqlite3.Row
        try:
            return db.execute(f"SELECT * FROM games WHERE {where} ORDER BY id", params).fetchall()
        finally:
            db.close()

    def moves_kept(self, game_id: int) -> int:
        """The moves of a game in play the server has kept in its database so far."""
        db = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10)
        try:
            return int(db.execute("SELECT count(*) FROM moves WHERE game = ?", (game_id,)).fetchone()[0])
        finally:
            db.close()

    def player_names(self) -> set[str]:
        db = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10)
        try:
            return {name for (name,) in db.execute("SELECT name FROM players")}
        finally:
            db.close()


class Client:
    """``python -m referee connect`` in a session of its own; its output in a log file, its tokens in ``config``."""

    def __init__(self, tmp: Path, server: Server | str, agent: str, name: str, *args: str,
                 sandbox: str | None = "off", config: Path | None = None, log_name: str | None = None):
        self.name = name
        self.config = config or tmp / f"config-{name}"
        self.log = tmp / (log_name or f"{name}.log")
        self.records = self.log.with_suffix(".jsonl")
        address = server.address if isinstance(server, Server) else server
        command = [sys.executable, "-m", "referee", "connect", agent, name, "--server", address,
                   "--record-file", str(self.records), *args]
        if sandbox is not None:
            command += ["--sandbox", sandbox]
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(
                command, cwd=ROOT, env=dict(os.environ, XDG_CONFIG_HOME=str(self.config)), stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait(self, timeout: float = 40) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.name}'s client still running after {timeout} s:\n{self.text()}") from None

    def kill(self) -> None:
        _kill_group(self.proc)

    def game_records(self) -> list[GameRecord]:
        if not self.records.exists():
            return []
        return [GameRecord.from_json(line) for line in self.records.read_text().splitlines() if line.strip()]

    def turns_seen(self, since: str = "") -> int:
        """The last turn number this client printed (its console at the default verbosity), after ``since``."""
        text = self.text()
        if since:
            before, found, text = text.partition(since)
            if not found:
                return 0
        numbers = re.findall(r"turn (\d+): ", text)
        return int(numbers[-1]) if numbers else 0


def client(server: Server, agent: str, name: str, tmp_path: Path, *options: str) -> subprocess.Popen[str]:
    """``python -m referee connect`` in its own session (its agents' processes die with it), tokens in tmp;
    its output on a pipe."""
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    return subprocess.Popen(
        [sys.executable, "-m", "referee", "connect", agent, name, "--server", f"127.0.0.1:{server.port}",
         "--record-file", str(tmp_path / f"{name}.jsonl"), "-v", "0", *options],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )


@contextmanager
def running(*procs: Server | Client) -> Iterator[None]:
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()


def unharmed(folder: Path, *options: str) -> Iterator[Server]:
    """A server (agents unsealed) for a module's tests; after them, its log shows that nothing failed inside it,
    whatever they sent."""
    server = Server(folder, "--sandbox", "off", *options)
    yield server
    server.kill()
    assert "Traceback" not in server.text() and "internal error" not in server.text(), server.text()


def replay(record: GameRecord) -> Any:
    """The record's actions applied with the game's own rules (each must be legal); the final state."""
    state = load_game("infexion").new_state()
    for text in record.actions:
        assert not state.is_over, f"an action after the end: {text}"
        state.apply_checked(state.parse_action(text))
    return state


def finished_row(server: Server, game_id: int | None = None, **match: str) -> sqlite3.Row | None:
    conditions = ["status = 'finished'"] + [f"{key} = ?" for key in match]
    if game_id is not None:
        conditions.append(f"id = {int(game_id)}")
    rows = server.rows(" AND ".join(conditions), *match.values())
    return rows[-1] if rows else None


# -- raw protocol --------------------------------------------------------------------------------------------


def raw_connect(server: Server) -> Any:
    from websockets.sync.client import connect

    return connect(f"ws://{server.address}/play", open_timeout=10, max_size=None)


def opened(server: Server) -> Any:
    """A connection to the server that the test closes itself (when it is not one ``with`` block's)."""
    return raw_connect(server).__enter__()


def hello(name: str, channel: str = "", games: int = 1, token: str | None = None) -> str:
    return json.dumps({"type": "hello", "protocol": 1, "name": name, "token": token, "channel": channel,
                       "games": games, "client": "test"})


def receive(ws: Any) -> dict[str, Any]:
    return json.loads(ws.recv(timeout=20))


def closed_after(ws: Any) -> list[dict[str, Any]]:
    """Every message until the server closes the connection (it must, within the timeout)."""
    from websockets.exceptions import ConnectionClosed

    messages = []
    try:
        while True:
            messages.append(receive(ws))
    except ConnectionClosed:
        return messages


class RawSide:
    """The test as a client speaking the protocol itself: plays a seeded random legal action when asked."""

    def __init__(self, ws: Any, name: str, channel: str):
        self.ws = ws
        ws.send(hello(name, channel))
        self.welcome = receive(ws)
        assert self.welcome["type"] == "welcome", self.welcome
        self.state = load_game("infexion").new_state()
        self.id: int | None = None
        self.color = ""
        self.rng = random.Random(7)

    def until_play(self) -> dict[str, Any]:
        """Answer what the server says until it asks for a move (that request), or the game's end."""
        while True:
            message = receive(self.ws)
            if message["type"] == "start":
                self.id, self.color = message["id"], message["color"]
                self.ws.send(json.dumps({"type": "ready", "id": self.id}))
            elif message["type"] == "turn":
                self.state.apply_checked(self.state.parse_action(message["action"]))
            elif message["type"] in ("play", "end"):
                return message
            elif message["type"] not in ("waiting",):
                raise AssertionError(f"unexpected: {message}")

    def action(self) -> str:
        """A legal action, chosen by a seeded generator (the same game every run against the same moves)."""
        return self.state.action_to_str(self.rng.choice(self.state.legal_actions()))

    def send_action(self, action: str) -> None:
        self.ws.send(json.dumps({"type": "action", "id": self.id, "action": action, "cpu": 0.01, "memory_mb": 1.0}))

    def play_out(self) -> dict[str, Any]:
        """Play until the game ends; the ``end`` message."""
        while True:
            message = self.until_play()
            if message["type"] == "end":
                return message
            self.send_action(self.action())


class Honest(threading.Thread):
    """An honest side playing random legal moves at once, in a thread; its game's ``end`` when over."""

    def __init__(self, server: Server, name: str, channel: str, wait_before_move: threading.Event | None = None):
        super().__init__(daemon=True)
        self.ws = opened(server)
        self.side = RawSide(self.ws, name, channel)
        self.wait_before_move = wait_before_move
        self.end: dict[str, Any] | None = None
        self.start()

    def run(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            while True:
                message = self.side.until_play()
                if message["type"] == "end":
                    self.end = message
                    return
                if self.wait_before_move is not None:
                    self.wait_before_move.wait(30)
                self.side.send_action(self.side.action())
        except ConnectionClosed:
            pass
        finally:
            self.ws.close()


class Side:
    """The test as a battleground client (on an open WebSocket), playing random legal moves when asked."""

    def __init__(self, ws: Any, name: str, channel: str, games: int = 1, token: str | None = None):
        self.ws = ws
        self.ws.send(hello(name, channel, games, token))
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
