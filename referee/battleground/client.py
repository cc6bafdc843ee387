"""The battleground client (the protocol's reference implementation): a student's agent, played from their machine.

The agent runs here, sealed and limited exactly as in a local game
(:class:`~referee.hosting.process.HostedAgent`); the server only ever sees its
actions.  The client mirrors the game to print it as a local game does and
appends every finished game's record to a local JSONL file.  Whatever it
prints that came over the wire (the server's text, the opponent's through
it) is shown inert (:func:`printable`); the record file keeps it as it came.
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.sync.client import ClientConnection, connect

from .. import __version__
from ..agent_text import inert_line
from ..exit_status import ExitStatus
from ..games import load_game
from ..games.base import CHANCE, PLAYER_NAMES, GameState
from ..hosting.failures import AgentFailure
from ..hosting.process import HostedAgent
from ..hosting.sandbox import Sandbox
from ..limits import Limits
from ..core import error_entry
from ..match import STOPPED_IN_A_CALL, AgentEntry, MatchSettings, agent_env, call_kwargs, parse_spec
from ..records import UNFINISHED, GameRecord, RecordError
from ..render.terminal import ConsoleObserver
from .protocol import MAX_MESSAGE_BYTES, PLAY_PATH, PROTOCOL_VERSION, SERVER_MESSAGES, ProtocolViolation, encode
from .protocol import read_message

#: Reconnecting to a game after the connection dropped: the first wait, doubled after each failed attempt up to
#: the longest (and never past the grace period the server gives: its welcome's ``grace``).
RECONNECT_FIRST_WAIT = 0.25
RECONNECT_LONGEST_WAIT = 4.0
#: Seconds to wait for the server's record of a game that ended while this client was away.
RECORD_FETCH_TIMEOUT = 10.0
#: Where the server says who it is (its ``server_id``, which the kept tokens are filed under).
IDENTITY_PATH = "/api/server"
#: Seconds to wait for the server's identity before filing the token under the server's address instead.
IDENTITY_TIMEOUT = 3.0
#: What a server id may be: it becomes part of a key in the token file and is printed nowhere.
_SERVER_ID = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
#: Seconds the agent's ``wall_remaining`` keeps below the server's wall clock, besides the time since the ``play``
#: came and the connection's last measured round trip (its WebSocket ping): the server takes off each move at
#: most its own, smaller, estimate of the round trip, and this client's own work around the agent's call (reading
#: the reply, sending the action) is on the server's clock too.
WALL_MARGIN = 0.25
#: A message read within this many seconds of the client's going back to its connection was already waiting: it
#: came while the client handled the one before (the agent's ``turn()``), and the server's clock ran meanwhile.
QUEUED_READ = 0.005


def printable(text: object) -> str:
    """Text that came over the wire (the server's, or the opponent's through the server) as one inert line.

    Control characters (C0 but tab, DEL, C1: ESC, ``\\r``, BEL, CSI), the bidi controls and the line
    separators are shown escaped as Python writes them (``\\x1b``, ``\\u202e``), newlines as ``\\n``: printed,
    such text can neither clear the screen, retitle the window, write the clipboard nor pass for a line of
    this client's (:func:`referee.agent_text.inert_line`). The record file keeps the text as it came.
    """
    return inert_line(str(text))


def verdict(record: GameRecord, color: str | None) -> str | None:
    """``you won``, ``you lost`` or ``draw`` from side ``color``'s (RED/BLUE) point of view; ``no result`` for a
    game that was stopped unfinished; None when ``color`` is not known."""
    if color not in PLAYER_NAMES:
        return None
    if record.winner is None:
        return "no result" if record.reason == UNFINISHED else "draw"
    return "you won" if record.winner == color else "you lost"


def token_file() -> Path:
    """Where the client keeps the tokens the servers issued (docs/battleground.md, 'Identity')."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "referee" / "battleground-tokens.json"


def _kept_tokens() -> dict[str, Any]:
    try:
        tokens = json.loads(token_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return tokens if isinstance(tokens, dict) else {}


def stored_token(server: str, name: str) -> str | None:
    """The token kept for ``name`` on ``server`` (its ``server_id``, or HOST:PORT for a server without one)."""
    token = _kept_tokens().get(f"{name}@{server}")
    return token if isinstance(token, str) else None


def store_token(server: str, name: str, token: str, replaces: str | None = None) -> Path:
    """Keep ``name``'s token on ``server`` (as in :func:`stored_token`); ``replaces``: the server part of the
    key it was kept under before, which goes. The file, written whole and readable by its owner only."""
    path = token_file()
    tokens = _kept_tokens()
    if replaces is not None and replaces != server:
        tokens.pop(f"{name}@{replaces}", None)
    tokens[f"{name}@{server}"] = token
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps(tokens, indent=1) + "\n", encoding="utf-8")
    os.chmod(partial, 0o600)
    partial.replace(path)
    return path


def server_identity(address: str, timeout: float = IDENTITY_TIMEOUT) -> str | None:
    """The ``server_id`` that ``GET http://ADDRESS/api/server`` answers; None from a server without one (older
    than the id), one that cannot be reached, or an answer that is not the identity."""
    try:
        with urllib.request.urlopen(f"http://{address}{IDENTITY_PATH}", timeout=timeout) as response:
            answer = json.loads(response.read(4096).decode("utf-8"))
    except (OSError, ValueError):  # unreachable, an error status, not JSON: the address stands for the server
        return None
    server_id = answer.get("server_id") if isinstance(answer, dict) else None
    return server_id if isinstance(server_id, str) and _SERVER_ID.fullmatch(server_id) else None


def reconnect_wait(attempt: int) -> float:
    """Seconds to wait before reconnection attempt ``attempt + 1`` (0: the first): doubling, capped."""
    return min(RECONNECT_FIRST_WAIT * 2 ** min(attempt, 16), RECONNECT_LONGEST_WAIT)


class ServerGone(Exception):
    """The server refused us, broke the protocol or went away for good: said in one sentence."""


@dataclass
class ClientOptions:
    spec: str
    name: str
    server: str = "127.0.0.1:7030"
    channel: str = ""
    games: int = 2
    token: str | None = None
    sandbox: str = "auto"
    record_file: str | None = "battleground-games.jsonl"
    verbosity: int = 1
    keep_token: bool = True
    house_for: str | None = None


class LocalGame:
    """This side of one game: the sealed agent and a mirror of the game for the console."""

    def __init__(self, options: ClientOptions, welcome: dict[str, Any], start: dict[str, Any], out: ConsoleObserver):
        self.id = start["id"]
        self.color = PLAYER_NAMES.index(start["color"]) if start["color"] in PLAYER_NAMES else 0
        self.out = out
        given = start.get("game_options")
        game_options: dict[str, Any] = given if isinstance(given, dict) else {}
        self.game = load_game(welcome["game"], **game_options)
        self.state: GameState[Any] = self.game.new_state()
        self.known = 0  # actions the agent has been told
        #: The server's wall clock for this side, as its last ``play`` told it (less the margin): seconds left
        #: (None: not told yet, or no wall limit), and since when it has been running (None: not this side's move).
        self.wall_left: float | None = None
        self.wall_since: float | None = None
        limits = Limits(time_limit=start.get("time_limit"), space_limit=start.get("space_limit"))
        self.settings = MatchSettings(game=welcome["game"], game_options=game_options, limits=limits,
                                      seed=start.get("seed"), sandbox=options.sandbox)
        module, class_name = parse_spec(options.spec)
        self.entry = AgentEntry(options.spec, name=options.name)
        from ..hosting.sandbox import resolve

        self.sandbox: Sandbox = resolve(options.sandbox)
        self.agent = HostedAgent(start["color"], module, class_name, self.game.name, dict(game_options), limits,
                                 env=agent_env(self.settings, self.sandbox, self.color), sandbox=self.sandbox)
        names = [AgentEntry(options.name), AgentEntry(start["opponent"])]
        if self.color == 1:
            names.reverse()
        self.out.started(self.game, self.state, names[0], names[1])

    def call(self, message: dict[str, Any], where: str) -> Any:
        try:
            reply = self.agent.call(message)
        except AgentFailure as failure:
            if isinstance(failure, STOPPED_IN_A_CALL):
                failure.locate(where)
            self.out.output(self.color, self.agent.take_output())
            raise
        if self.agent.last_call is not None:
            self.out.call(self.color, self.agent.last_call, self.agent.take_output())
        return reply

    def kwargs(self) -> dict[str, Any]:
        """The agent's keyword arguments for its next call: a local game's, with the server's wall clock."""
        return {**call_kwargs(self.game, self.settings, self.entry, self.agent),
                "wall_remaining": self.wall_remaining()}

    def wall_started(self, clock: Any, since: float, margin: float) -> None:
        """A ``play`` told this side's wall clock (``clock``: its ``{"RED": s, "BLUE": s}``), which has been
        running since ``since`` (this client's monotonic clock); ``margin``: the seconds kept below it."""
        left = clock.get(PLAYER_NAMES[self.color]) if isinstance(clock, dict) else None
        if isinstance(left, bool) or not isinstance(left, (int, float)) or not math.isfinite(left):
            self.wall_left = self.wall_since = None  # no wall limit on the server (or no figure for this side)
            return
        self.wall_left, self.wall_since = max(0.0, float(left) - margin), since

    def wall_stopped(self) -> None:
        """The action is on its way: the server's clock for this side stands until its next ``play``."""
        self.wall_left = self.wall_remaining()
        self.wall_since = None

    def wall_remaining(self) -> float | None:
        """Seconds left on the server's wall clock for this side, as far as this client can tell (None: unknown)."""
        if self.wall_left is None:
            return None
        running = 0.0 if self.wall_since is None else time.monotonic() - self.wall_since
        return max(0.0, self.wall_left - running)

    def construct(self) -> None:
        self.agent.start()
        self.agent.wait_ready()
        self.call({"op": "init", "module": self.agent.module, "class": self.agent.class_name,
                   "color": PLAYER_NAMES[self.color], "kwargs": self.kwargs()}, "__init__()")

    def catch_up(self, actions: list[Any]) -> None:
        """Tell the agent the actions it has not been told (all of them for a fresh agent)."""
        for pair in actions[self.known:]:
            mover, text = (pair if isinstance(pair, list) and len(pair) == 2 else (None, pair))
            self.told(mover, str(text))

    def told(self, mover: str | None, text: str) -> None:
        action = self.state.parse_action(text)
        self.state.apply_checked(action)
        self.known += 1
        self.out.action(PLAYER_NAMES.index(mover) if mover in PLAYER_NAMES else CHANCE, text, self.state)
        if not self.state.is_over:
            self.call({"op": "turn", "color": mover, "action": text, "kwargs": self.kwargs()},
                      f"turn() after turn {self.known}")

    def act(self) -> str:
        reply = self.call({"op": "action", "kwargs": self.kwargs()}, f"action() on turn {self.known + 1}")
        if reply.action is None:
            raise ServerGone("the agent's process answered action() without an action")
        return str(reply.action)

    def figures(self) -> dict[str, float]:
        return {"cpu": round(self.agent.time_used, 4), "memory_mb": round(self.agent.peak_memory_mb, 2)}

    def close(self) -> None:
        self.agent.close()


class Client:
    """One connection at a time to the server; games one after another until ``done``."""

    def __init__(self, options: ClientOptions, out: TextIO | None = None):
        self.options = options
        self.stream = out or sys.stdout
        self.console = ConsoleObserver(options.verbosity, out=self.stream)
        self.token = options.token
        #: The server part of the token file's key this client's token was found under (None: not from the file).
        self.token_key: str | None = None
        #: The server's identity (its welcome's, else its ``GET /api/server``'s); None from a server without one.
        self.server_id: str | None = None
        self.welcome: dict[str, Any] = {}
        self.local: LocalGame | None = None
        self.finished = 0
        self.grace = 20.0
        #: When the connection to the game in play was lost (None: connected), and the attempts to reconnect since.
        self.lost_at: float | None = None
        self.attempts = 0
        #: Games the server aborted (in a crash, or on its own error): never counted, so asked for again.
        self.owed = 0
        #: When the message being handled came, as far as this client can tell (see :data:`QUEUED_READ`), and
        #: when it last answered the server (``ready``, ``action``, ``failed``): a ``play`` cannot come before.
        self.arrived: float | None = None
        self.answered_at = 0.0

    def say(self, text: str) -> None:
        """One line of this client's; whatever came over the wire in it is shown inert (:func:`printable`)."""
        print(f"* battleground @ {printable(text)}", file=self.stream, flush=True)

    def run(self) -> int:
        if self.token is None and self.options.keep_token:
            self.find_token()
        while True:
            try:
                with self.open() as conn:
                    if self.serve(conn) and not self.ask_again():
                        return ExitStatus.OK
            except (ConnectionClosed, OSError, TimeoutError) as exc:
                # A game in play may be resumed within the grace period; out of a game there is nothing to keep.
                if self.local is None:
                    self.say(f"the connection to {self.options.server} closed ({_why(exc)})")
                    return ExitStatus.INTERNAL
                wait = self.next_attempt(exc)
                if wait is None:
                    self.say(f"could not reconnect to {self.options.server} within {self.grace:g} s: game lost")
                    self.close_game()
                    return ExitStatus.INTERNAL
                time.sleep(wait)
            except ServerGone as exc:
                self.say(str(exc))
                self.close_game()
                return ExitStatus.USAGE if not self.welcome else ExitStatus.INTERNAL
            except InvalidHandshake as exc:
                self.say(f"{self.options.server} is not a battleground server ({exc})")
                return ExitStatus.USAGE
            except KeyboardInterrupt:
                self.say("stopped: the game in play (if any) is lost once the grace period ends")
                self.close_game()
                return ExitStatus.INTERRUPTED

    def find_token(self) -> None:
        """The token kept for this name on this server: filed under the server's id (``GET /api/server``), else
        under its address as this client wrote it before servers had ids (moved to the id once accepted)."""
        self.server_id = server_identity(self.options.server)
        for key in (self.server_id, self.options.server):
            token = stored_token(key, self.options.name) if key else None
            if token is not None:
                self.token, self.token_key = token, key
                return

    def file_token(self, welcome: dict[str, Any]) -> None:
        """File a new token, or the accepted one found under another key, under the server's identity."""
        server_id = welcome.get("server_id")
        if isinstance(server_id, str) and _SERVER_ID.fullmatch(server_id):
            self.server_id = server_id
        key = self.server_id or self.options.server  # a server without an id: its address, as before
        if isinstance(welcome.get("token"), str):
            self.token = welcome["token"]
            if self.options.keep_token:
                path = store_token(key, self.options.name, welcome["token"])
                self.token_key = key
                self.say(f"{self.options.name} is yours on this server: its token is kept in {path}")
        elif self.token_key is not None and self.token_key != key and self.token is not None:
            # The server took the token kept under its address: from now on it is found whatever the address.
            store_token(key, self.options.name, self.token, replaces=self.token_key)
            self.token_key = key

    def next_attempt(self, exc: BaseException) -> float | None:
        """Seconds to wait before the next attempt to reconnect to the game in play (None: the grace period is
        over). One line when the connection is lost and one a failed attempt, each saying when the next is."""
        now = time.monotonic()
        if self.lost_at is None:
            self.lost_at, self.attempts = now, 0
        else:
            self.attempts += 1
        left = self.lost_at + self.grace - now
        if left <= 0:
            return None
        # The last attempt comes at the end of the grace period, not after it.
        wait = min(reconnect_wait(self.attempts), left)
        game = f"game {self.local.id}" if self.local is not None else "the game"
        if self.attempts == 0:
            self.say(f"connection lost ({_why(exc)}): reconnecting to resume {game} (the server keeps it "
                     f"{self.grace:g} s), first attempt in {wait:.2g} s")
        else:
            self.say(f"reconnection attempt {self.attempts} failed ({_why(exc)}): next in {wait:.2g} s")
        return wait

    def open(self) -> ClientConnection:
        try:
            return connect(f"ws://{self.options.server}{PLAY_PATH}", max_size=MAX_MESSAGE_BYTES * 64,
                           compression=None, open_timeout=10, ping_interval=10, ping_timeout=30,
                           user_agent_header=f"referee/{__version__}")
        except InvalidURI:
            raise ServerGone(f"{self.options.server!r} is not HOST:PORT") from None

    def serve(self, conn: ClientConnection) -> bool:
        """Say hello and play what the server asks; True once the server says there is nothing more."""
        # Back with a game in play, that game is one of ours whatever became of it: the server resumes it (and
        # ignores the count) or, if it ended meanwhile, takes the count as the games still to play (0: none).
        left = self.options.games - self.finished - (1 if self.local is not None else 0)
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": self.options.name, "token": self.token,
                 "channel": self.options.channel, "games": max(0, left), "client": f"referee {__version__}"}
        if self.options.house_for:
            hello["opponent"] = self.options.house_for
        conn.send(encode(hello))
        self.arrived = None
        idle_since = time.monotonic()
        for raw in conn:
            now = time.monotonic()
            if self.arrived is None or now - idle_since > QUEUED_READ:
                self.arrived = now
            # else: it waited while the message before was handled, so it came no later than that one came.
            try:
                message = read_message(raw, SERVER_MESSAGES)
            except ProtocolViolation as exc:
                raise ServerGone(f"the server sent something this client does not understand: {exc}") from None
            if self.handle(conn, message):
                return True
            idle_since = time.monotonic()
        raise ConnectionClosed(None, None)

    def ask_again(self) -> bool:
        """After the server's ``done``: whether to come back for the games it aborted (they count for nothing,
        but the server took them off the count this client asked for). Said in one line."""
        left = self.options.games - self.finished
        # A house agent's client plays what the server asks of it: the student asks again, not the house.
        if not self.owed or left <= 0 or self.options.house_for:
            return False
        self.say(f"asking for {left} more game{'s' if left > 1 else ''}: the aborted game"
                 f"{'s' if self.owed > 1 else ''} did not count")
        self.owed = 0
        return True

    def handle(self, conn: ClientConnection, message: dict[str, Any]) -> bool:
        kind = message["type"]
        if kind == "refused":
            raise ServerGone(f"refused by the server: {message['reason']}")
        if kind == "error":
            raise ServerGone(f"the server ended the connection: {message['message']}")
        if kind == "welcome":
            self.welcome = message
            self.grace = float(message["grace"])
            if self.lost_at is not None:
                self.say(f"reconnected ({self.attempts + 1} attempt{'s' if self.attempts else ''})")
                self.lost_at, self.attempts = None, 0
            self.file_token(message)
            self.say(f"connected to {self.options.server} as {message['name']}: {message['game']}, "
                     f"{_limit(message.get('time_limit'), 's CPU')}, {_limit(message.get('space_limit'), 'MB')}")
            aborted = message.get("aborted")
            if isinstance(aborted, list) and aborted:
                games = ", ".join(str(game_id) for game_id in aborted)
                self.say(f"game{'s' if len(aborted) > 1 else ''} {games} aborted when the server stopped "
                         f"(not counted)")
                if self.local is not None and self.local.id in aborted:
                    # Not one of our games: the hello just sent counted it, so it is asked for again after the
                    # server's ``done`` (:meth:`ask_again`).
                    self.close_game()
                    self.owed += 1
        elif kind == "waiting":
            if self.local is not None:  # back, but the game did not wait (it ended meanwhile): nothing to resume
                self.ended_while_away()
            channel = message["channel"]
            self.say(f"waiting for an opponent on {'the public pool' if not channel else 'channel ' + repr(channel)}")
        elif kind == "start":
            self.start(conn, message)
        elif kind == "turn":
            self.turn(conn, message)
        elif kind == "play":
            self.play(conn, message)
        elif kind == "end":
            self.end(message)
        elif kind == "done":
            if self.local is not None:  # back after the last game ended
                self.ended_while_away()
            self.say(message["message"])
            return True
        return False

    def start(self, conn: ClientConnection, message: dict[str, Any]) -> None:
        local = self.local
        resumed = local is not None and local.id == message["id"]
        if not resumed:
            if local is not None:
                self.ended_while_away()
            number, count = [*message["pair"], "?", "?"][:2]  # [this game's number, games in the pair]
            if message["actions"]:
                self.say(f"resuming game {message['id']}: its {len(message['actions'])} actions so far told to a "
                         f"new agent")
            self.say(f"game {message['id']} ({number} of {count}): you are {message['color']} against "
                     f"{message['opponent']!r}")
            try:
                local = self.local = LocalGame(self.options, self.welcome, message, self.console)
                local.construct()
            except AgentFailure as failure:
                self.failed(conn, message["id"], failure)
                return
        else:
            self.say(f"back in game {message['id']}: catching up")
        assert local is not None
        try:
            local.catch_up(message["actions"])
        except AgentFailure as failure:
            self.failed(conn, local.id, failure)
            return
        self.answer(conn, {"type": "ready", "id": local.id})

    def turn(self, conn: ClientConnection, message: dict[str, Any]) -> None:
        local = self.local
        if local is None or local.id != message["id"]:
            return
        try:
            local.told(message.get("color"), message["action"])
        except AgentFailure as failure:
            self.failed(conn, local.id, failure)

    def play(self, conn: ClientConnection, message: dict[str, Any]) -> None:
        local = self.local
        if local is None or local.id != message["id"]:
            return
        # The server's figure is as of its sending: its clock has run since the play came (or, for a play that
        # waited behind a turn() call, since that turn came; never before this client's last answer).
        since = max(time.monotonic() if self.arrived is None else self.arrived, self.answered_at)
        local.wall_started(message.get("clock"), since, WALL_MARGIN + max(0.0, float(conn.latency or 0.0)))
        try:
            action = local.act()
        except AgentFailure as failure:
            self.failed(conn, local.id, failure)
            return
        self.answer(conn, {"type": "action", "id": local.id, "action": action, **local.figures()})
        local.wall_stopped()

    def answer(self, conn: ClientConnection, message: dict[str, Any]) -> None:
        """Send an answer to the server, noting when (the server asks for nothing more before it has it)."""
        _send(conn, message)
        self.answered_at = time.monotonic()

    def failed(self, conn: ClientConnection, game_id: int, failure: AgentFailure) -> None:
        self.console.failed(self.local.color if self.local else 0, failure)
        figures = self.local.figures() if self.local else {"cpu": 0.0, "memory_mb": 0.0}
        entry = error_entry(failure)
        self.answer(conn, {"type": "failed", "id": game_id, "reason": failure.reason, "message": entry["message"],
                           "traceback": entry["traceback"], **figures})
        if self.local is not None:
            self.local.agent.close()

    def end(self, message: dict[str, Any]) -> None:
        try:
            record = GameRecord.from_dict(message["record"])
        except RecordError as exc:
            raise ServerGone(f"the server's record of game {message['id']} is not a record: {exc}") from None
        local = self.local
        if local is not None and local.id == message["id"]:
            for text in record.actions[local.known:]:  # the last action is never told as a turn
                mover = local.state.current_player
                try:
                    local.state.apply_checked(local.state.parse_action(text))
                except Exception:  # noqa: BLE001  only the console's mirror; the server's record stands
                    break
                local.known += 1
                self.console.action(mover, text, local.state)
            self.console.finished(record, local.state)
        color = self.color_in(record, message["id"])
        self.close_game()
        if _aborted(record):
            # The server failed during the game: no result, and not one of this client's games.
            self.owed += 1
            self.say(f"game {message['id']}: aborted by the server, not counted: {record.message}")
        else:
            self.finished += 1
            self.say(f"game {message['id']}: {self.result(record, color)}")
        self.keep(record)

    def color_in(self, record: GameRecord, game_id: int) -> str | None:
        """This client's colour in a game: its own game's, else the side the record names it (None: neither)."""
        if self.local is not None and self.local.id == game_id:
            return PLAYER_NAMES[self.local.color]
        sides = [color for color in PLAYER_NAMES if record.name_of(color) == self.options.name]
        return sides[0] if len(sides) == 1 else None

    @staticmethod
    def result(record: GameRecord, color: str | None) -> str:
        """``you won (you were BLUE): BLUE wins (...)``: the game's end for this side, then the record's message."""
        said = verdict(record, color)
        return f"{said} (you were {color}): {record.message}" if said else record.message

    def keep(self, record: GameRecord) -> None:
        """Append a game's record to the record file (if any)."""
        if self.options.record_file:
            with open(self.options.record_file, "a", encoding="utf-8") as file:
                file.write(record.to_json() + "\n")

    def ended_while_away(self) -> None:
        """The game in play ended while this client was away: its result and record, from the server's site
        (kept as any game's), and one of its ``--games``."""
        assert self.local is not None
        game_id = self.local.id
        record = self.server_record(game_id)
        if record is None:
            self.say(f"game {game_id} ended while this client was away (its record is on the server)")
        elif _aborted(record):
            self.say(f"game {game_id} was aborted by the server while this client was away, not counted: "
                     f"{record.message}")
            self.keep(record)
            self.close_game()
            self.owed += 1
            return
        else:
            result = self.result(record, self.color_in(record, game_id))
            self.say(f"game {game_id} ended while this client was away: {result}")
            self.keep(record)
        self.lost_game()

    def server_record(self, game_id: int) -> GameRecord | None:
        """Game ``game_id``'s record from the server's ``GET /api/games/ID``; None if it cannot be had."""
        url = f"http://{self.options.server}/api/games/{game_id}"
        try:
            with urllib.request.urlopen(url, timeout=RECORD_FETCH_TIMEOUT) as response:
                return GameRecord.from_json(response.read().decode("utf-8"))
        except (OSError, ValueError, RecordError):  # unreachable, not JSON, not a record: the server keeps it
            return None

    def lost_game(self) -> None:
        """The game in play ended without this client (while it was away): one of its ``--games`` all the same,
        as the count in its hello on coming back assumed. (A game the server aborted is not: see ``owed``.)"""
        self.close_game()
        self.finished += 1

    def close_game(self) -> None:
        if self.local is not None:
            self.local.close()
            self.local = None


def _send(conn: ClientConnection, message: dict[str, Any]) -> None:
    """Send an answer; if the connection closed meanwhile, the reading loop still gets what the server sent
    before closing (a game's ``end`` and ``done`` when the game ended while the agent was thinking)."""
    try:
        conn.send(encode(message))
    except ConnectionClosed:
        pass


def _aborted(record: GameRecord) -> bool:
    """Whether the server aborted the game (``extra.battleground.status``): it counts for nobody."""
    battleground = record.extra.get("battleground") if isinstance(record.extra, Mapping) else None
    return isinstance(battleground, Mapping) and battleground.get("status") == "aborted"


def _limit(value: Any, unit: str) -> str:
    return f"{value:g} {unit}" if isinstance(value, (int, float)) and value else f"no {unit.split()[-1]} limit"


def _why(exc: BaseException) -> str:
    if isinstance(exc, ConnectionClosed) and exc.rcvd is not None:
        return exc.rcvd.reason or f"code {exc.rcvd.code}"
    return str(exc) or type(exc).__name__
