"""The battleground client (the protocol's reference implementation): a student's agent, played from their machine.

The agent runs here, sealed and limited exactly as in a local game
(:class:`~referee.hosting.process.HostedAgent`); the server only ever sees its
actions.  The client mirrors the game to print it as a local game does and
appends every finished game's record to a local JSONL file.  Whatever it
prints that came over the wire (the server's text, the opponent's through
it) is shown inert (:func:`printable`); the record file keeps it as it came.

Beside it: :mod:`.identity` (the tokens it keeps), :mod:`.scorebook` (the
games it counts, the records it keeps), :mod:`.reconnect` (coming back to a
game after a dropped connection) and :mod:`.wall_clock` (the server's clock
as the agent is told it).
"""
from __future__ import annotations

import sys
import time
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
from ..records import GameRecord, RecordError
from ..render.terminal import ConsoleObserver
from .identity import Identity
from .protocol import MAX_SERVER_MESSAGE_BYTES, PLAY_PATH, PROTOCOL_VERSION, SERVER_MESSAGES, ProtocolViolation, encode
from .protocol import read_message
from .reconnect import Reconnection
from .scorebook import ClientOptions, Scorebook
from .wall_clock import WALL_MARGIN, Arrivals, WallClock


def printable(text: object) -> str:
    """Text that came over the wire (the server's, or the opponent's through the server) as one inert line.

    Control characters (C0 but tab, DEL, C1: ESC, ``\\r``, BEL, CSI), the bidi controls and the line
    separators are shown escaped as Python writes them (``\\x1b``, ``\\u202e``), newlines as ``\\n``: printed,
    such text can neither clear the screen, retitle the window, write the clipboard nor pass for a line of
    this client's (:func:`referee.agent_text.inert_line`). The record file keeps the text as it came.
    """
    return inert_line(str(text))


class ServerGone(Exception):
    """The server refused us, broke the protocol or went away for good: said in one sentence."""


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
        #: The server's wall clock for this side, as its ``play`` messages tell it.
        self.wall = WallClock(PLAYER_NAMES[self.color])
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
                "wall_remaining": self.wall.remaining()}

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

    def mirror_end(self, record: GameRecord) -> None:
        """The game's end on the console: the record's actions the mirror lacks (the last is never told as a turn)."""
        for text in record.actions[self.known:]:
            mover = self.state.current_player
            try:
                self.state.apply_checked(self.state.parse_action(text))
            except Exception:  # noqa: BLE001  only the console's mirror; the server's record stands
                break
            self.known += 1
            self.out.action(mover, text, self.state)
        self.out.finished(record, self.state)

    def close(self) -> None:
        self.agent.close()


class Client:
    """One connection at a time to the server; games one after another until ``done``."""

    def __init__(self, options: ClientOptions, out: TextIO | None = None):
        self.options = options
        self.stream = out or sys.stdout
        self.console = ConsoleObserver(options.verbosity, out=self.stream)
        self.identity = Identity(options.server, options.name, options.token, options.keep_token)
        self.welcome: dict[str, Any] = {}
        self.local: LocalGame | None = None
        self.book = Scorebook(options, self.say)
        self.reconnection = Reconnection(options.server, self.say)
        self.arrivals = Arrivals()

    @property
    def token(self) -> str | None:
        """The token this client presents to the server (None: none yet)."""
        return self.identity.token

    @property
    def server_id(self) -> str | None:
        """The server's identity as far as this client knows it (None: a server without one, or not known yet)."""
        return self.identity.server_id

    def find_token(self) -> None:
        """The token kept for this name on this server, if any (:meth:`Identity.find`)."""
        self.identity.find()

    def say(self, text: str) -> None:
        """One line of this client's; whatever came over the wire in it is shown inert (:func:`printable`)."""
        print(f"* battleground @ {printable(text)}", file=self.stream, flush=True)

    def run(self) -> int:
        if self.token is None and self.options.keep_token:
            self.find_token()
        while True:
            try:
                with self.open() as conn:
                    if self.serve(conn) and not self.book.ask_again():
                        return ExitStatus.OK
            except (ConnectionClosed, OSError, TimeoutError) as exc:
                # A game in play may be resumed within the grace period; out of a game there is nothing to keep.
                if self.local is None:
                    self.say(f"the connection to {self.options.server} closed ({_why(exc)})")
                    return ExitStatus.INTERNAL
                wait = self.reconnection.next_wait(_why(exc), f"game {self.local.id}")
                if wait is None:
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

    def open(self) -> ClientConnection:
        try:
            return connect(f"ws://{self.options.server}{PLAY_PATH}", max_size=MAX_SERVER_MESSAGE_BYTES,
                           compression=None, open_timeout=10, ping_interval=10, ping_timeout=30,
                           user_agent_header=f"referee/{__version__}")
        except InvalidURI:
            raise ServerGone(f"{self.options.server!r} is not HOST:PORT") from None

    def serve(self, conn: ClientConnection) -> bool:
        """Say hello and play what the server asks; True once the server says there is nothing more."""
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": self.options.name, "token": self.token,
                 "channel": self.options.channel, "games": self.book.left(in_play=self.local is not None),
                 "client": f"referee {__version__}"}
        if self.options.house_for:
            hello["opponent"] = self.options.house_for
        conn.send(encode(hello))
        self.arrivals.connected()
        for raw in conn:
            self.arrivals.came()
            try:
                message = read_message(raw, SERVER_MESSAGES, MAX_SERVER_MESSAGE_BYTES)
            except ProtocolViolation as exc:
                raise ServerGone(f"the server sent something this client does not understand: {exc}") from None
            if self.handle(conn, message):
                return True
            self.arrivals.handled()
        raise ConnectionClosed(None, None)

    def handle(self, conn: ClientConnection, message: dict[str, Any]) -> bool:
        kind = message["type"]
        if kind == "refused":
            raise ServerGone(f"refused by the server: {message['reason']}")
        if kind == "error":
            raise ServerGone(f"the server ended the connection: {message['message']}")
        if kind == "welcome":
            self.welcomed(message)
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

    def welcomed(self, message: dict[str, Any]) -> None:
        """The server's welcome: its terms said in a line, the token filed, and the games it aborted let go."""
        self.welcome = message
        self.reconnection.welcomed(float(message["grace"]))
        path = self.identity.welcomed(message)
        if path is not None:
            self.say(f"{self.options.name} is yours on this server: its token is kept in {path}")
        self.say(f"connected to {self.options.server} as {message['name']}: {message['game']}, "
                 f"{_limit(message.get('time_limit'), 's CPU')}, {_limit(message.get('space_limit'), 'MB')}")
        if self.book.aborted_at_restart(message.get("aborted"), self.local.id if self.local is not None else None):
            self.close_game()

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
        margin = WALL_MARGIN + max(0.0, float(conn.latency or 0.0))
        local.wall.started(message.get("clock"), self.arrivals.play_since(), margin)
        try:
            action = local.act()
        except AgentFailure as failure:
            self.failed(conn, local.id, failure)
            return
        self.answer(conn, {"type": "action", "id": local.id, "action": action, **local.figures()})
        local.wall.stopped()

    def answer(self, conn: ClientConnection, message: dict[str, Any]) -> None:
        """Send an answer to the server, noting when (the server asks for nothing more before it has it)."""
        _send(conn, message)
        self.arrivals.answered()

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
        color = None
        if local is not None and local.id == message["id"]:
            local.mirror_end(record)
            color = PLAYER_NAMES[local.color]
        self.close_game()
        self.book.ended(message["id"], record, color)

    def ended_while_away(self) -> None:
        """The game in play ended while this client was away (:meth:`Scorebook.ended_while_away`)."""
        assert self.local is not None
        self.book.ended_while_away(self.local.id, PLAYER_NAMES[self.local.color])
        self.close_game()

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


def _limit(value: Any, unit: str) -> str:
    return f"{value:g} {unit}" if isinstance(value, (int, float)) and value else f"no {unit.split()[-1]} limit"


def _why(exc: BaseException) -> str:
    if isinstance(exc, ConnectionClosed) and exc.rcvd is not None:
        return exc.rcvd.reason or f"code {exc.rcvd.code}"
    return str(exc) or type(exc).__name__
