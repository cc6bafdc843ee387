"""``python -m referee play --web``: the game on a local web page, and the small JSON API behind it.

One :class:`Table` holds the server's one game (a :class:`.session.Session`)
and a lock that every request takes before touching it.  A person's action is
applied while the request waits; the agent's reply is asked for in a thread
of its own, so the page (and a second tab) can read the state, the clocks and
resign while the agent thinks.  ``GET /api/state?wait=1`` answers once the
agent has replied, which the page and scripts use instead of polling fast.

The server is the standard library's :class:`http.server.ThreadingHTTPServer`,
bound to 127.0.0.1: a page, a handful of JSON endpoints and one player need
no framework, and the project takes no dependency for it.  The endpoints are
documented in docs/play.md.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
import traceback
import webbrowser
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..agent_text import inert_line
from ..exit_status import ExitStatus
from ..games import registration
from ..games.base import CHANCE, PLAYER_NAMES, Action
from ..games.registration import WebPlay
from ..hosting.failures import AgentFailure
from ..records import GameRecord
from ..render.frames import build_frames
from ..render.html_replay import replay_html
from ..termination import report_stop, signals_held, stop_as_usual, stop_like_ctrl_c
from .page import page_html
from .session import (
    EXAMPLES, HUMAN, LISTED_IN_FULL, Session, legal_by_kind, quote, read_action, say,
)

#: The longest a ``?wait=1`` request is held (a page asks again; a proxy or browser may give up on longer ones).
LONGEST_WAIT = 25.0
#: The largest request body read: an action is a few dozen bytes.
LARGEST_BODY = 64 * 1024
#: What the page says of a game whose registration tells nothing of how to play it in the browser.
TYPED_HOW = "Type a command in the game's text, or pick one from the list."


class RecordFileError(ValueError):
    """A ``--record`` file web play cannot add its games to; the message says why."""


def records_in(path: str) -> int:
    """How many game records ``path`` holds, one JSON object a line (0: no such file yet).

    Web play adds each game to the file as a line, as a tournament's
    ``games.jsonl``: anything else there (a record written over several lines
    by the terminal's play, another file) would be spoilt, so it is refused.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return 0
    except IsADirectoryError:
        raise RecordFileError(f"--record {path}: that is a folder; give a file to keep the games in") from None
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "it is not a text file"
        raise RecordFileError(f"--record {path}: cannot read it ({why})") from None
    count = 0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not isinstance(record, dict):
            raise RecordFileError(
                f"--record {path}: line {number} is not a game record on one line; web play adds each game to "
                "the file as a line of JSON, and would spoil this one: give another file (or remove this one)"
            )
        count += 1
    return count


class Refused(Exception):
    """A request the API answers with a 4xx status and ``{"error": message}``."""

    def __init__(self, status: HTTPStatus, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class Table:
    """The server's one game, and the lock that serialises every access to it; :meth:`new_game` starts one."""

    def __init__(self, args: argparse.Namespace, options: dict[str, Any], kept: int = 0):
        self.args, self.options = args, options
        self.kept = kept  # records in the --record file: each game kept is added as a line
        self.kept_as: int | None = None  # this game's line in it, counted from 0 (replay's --game-index)
        self.changed = threading.Condition()  # its lock guards everything below
        self.number = 0
        self.session: Session | None = None
        self.record: GameRecord | None = None
        self.worker: threading.Thread | None = None  # the thread waiting for the agent's reply
        self.abandoned: list[threading.Thread] = []  # workers of games given up, still closing their agents
        self.turn_started = time.monotonic()
        self.notice = ""  # the agent's failure, for the page
        self.closed = False
        # Agents are started from this one thread, which lives as long as the server: the sandbox's
        # --die-with-parent kills an agent when the *thread* that started it ends (a request's thread).
        self.starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-starter")

    @property
    def hot_seat(self) -> bool:
        return not self.args.agent

    # -- changes (each takes the lock) ----------------------------------------------

    def new_game(self, side: str) -> None:
        """Start another game, the person playing ``side``; one left in the middle is kept as ``unfinished``."""
        with self.changed:
            session = self.session
            if session is not None and self.record is None and session.actions:
                self._charge_turn(session)
                session.core.unfinished(f"unfinished: a new game was started after {len(session.actions)} actions")
                self._keep(session.record())
            self._abandon()
            args = argparse.Namespace(**{**vars(self.args), "side": side})
            session = Session(args, self.options, say=self._say, quote=quote)
            self.session, self.record, self.notice, self.kept_as = session, None, "", None
            self.number += 1
            self._start(session)
            self._next_turn()

    def act(self, text: str) -> None:
        """Play the action ``text`` for the person to move; Refused (the state unchanged) when it cannot be."""
        with self.changed:
            session = self._playing()
            if session.state.current_player not in session.humans:
                raise Refused(HTTPStatus.CONFLICT, f"not your turn: {self._mover()} is to move")
            if self._out_of_time(session):
                raise Refused(HTTPStatus.CONFLICT, "the game is over: " + self._result_message())
            action, problem = read_action(session.state, text)
            if action is None:
                raise Refused(HTTPStatus.BAD_REQUEST, problem)
            mover = session.state.current_player
            session.human_used[mover] += time.monotonic() - self.turn_started
            self._play(session, action)
            self._next_turn()

    def resign(self) -> None:
        """The person to move (against an agent: the person, whenever) gives up; the other side wins."""
        with self.changed:
            session = self._playing()
            loser = session.human if not self.hot_seat else session.state.current_player
            if self.worker is not None and session.agent is not None:
                session.agent.interrupt()  # its reply no longer matters; the worker sees the game is over
            else:
                self._charge_turn(session)
            session.core.resigned(loser, HUMAN)
            self._finish(session)

    def undo(self) -> None:
        """Take back the person's last action (and the agent's reply); Refused when there is none."""
        with self.changed:
            session = self._playing()
            if self.worker is not None:
                raise Refused(HTTPStatus.CONFLICT, f"not now: {self._mover()} is thinking")
            if not session.take_back():
                raise Refused(HTTPStatus.CONFLICT, "nothing to undo: you have not moved yet")
            # Agents cannot undo: a fresh process is told the game again.
            session.close_agent()
            self._start(session)
            self._next_turn()

    def close(self) -> None:
        """Stop the agent (a thinking one too) and wait for its thread; for the server's end."""
        with self.changed:
            self.closed = True
            self.changed.notify_all()  # requests waiting for a reply answer now
            session, worker = self.session, self.worker
            if worker is not None and session is not None and session.agent is not None:
                session.agent.interrupt()
        for thread in [*self.abandoned, *([worker] if worker is not None else [])]:
            thread.join(timeout=30)
        self.starter.shutdown(wait=True)  # an agent being started (Ctrl-C came meanwhile) is closed below
        if session is not None:
            session.close_agent()

    # -- inside the lock ---------------------------------------------------------------

    def _say(self, text: str) -> None:
        say(text)  # the terminal's commentary, as in terminal play

    def _start(self, session: Session) -> None:
        """Start the agent (in the starter thread) and tell it the game so far; if it fails, it forfeits."""
        start: Callable[[], None] = session.start_agent
        try:
            self.starter.submit(start).result()
        except AgentFailure as failure:
            self._forfeit(session, failure)

    def _playing(self) -> Session:
        session = self.session
        assert session is not None
        if self.record is not None:
            raise Refused(HTTPStatus.CONFLICT, "the game is over: " + self.record.message + "; start a new one")
        return session

    def _charge_turn(self, session: Session) -> None:
        """Put the time since the turn began on the clock of the person to move (a game ends mid-turn)."""
        color = session.state.current_player
        if color in session.humans and self.worker is None:
            session.human_used[color] += time.monotonic() - self.turn_started
            self.turn_started = time.monotonic()

    def _keep(self, record: GameRecord) -> None:
        """Add ``record`` to the ``--record`` file as a line of its own (the games before stay)."""
        path = self.args.record
        if not path:
            return
        try:
            with open(path, "a+b") as out:
                out.seek(0, os.SEEK_END)
                if out.tell():
                    out.seek(-1, os.SEEK_END)
                    if out.read(1) != b"\n":
                        out.write(b"\n")  # a last line left without its end (as an editor may leave it)
                out.write((record.to_json() + "\n").encode("utf-8"))
        except OSError as exc:
            self._say(f"could not write {path}: {exc.strerror}")
            return
        self.kept_as, self.kept = self.kept, self.kept + 1
        self._say(f"record: game {self.kept_as + 1} of {path} "
                  f"(python -m referee replay {path} --game-index {self.kept_as})")

    def _mover(self) -> str:
        assert self.session is not None
        color = self.session.state.current_player
        return f"{PLAYER_NAMES[color]} ({self.session.name_of(color)})"

    def _result_message(self) -> str:
        return self.record.message if self.record is not None else ""

    def _abandon(self) -> None:
        """Let go of the current game: kill a thinking agent, close its process."""
        session = self.session
        if session is None:
            return
        if self.worker is not None and session.agent is not None:
            session.agent.interrupt()  # the worker closes it once it sees the agent gone
            self.abandoned = [thread for thread in self.abandoned if thread.is_alive()] + [self.worker]
        else:
            session.close_agent()
        self.worker = None

    def _play(self, session: Session, action: Action) -> None:
        try:
            session.play(action)
        except AgentFailure as failure:  # told of the move, the agent failed: it forfeits
            self._forfeit(session, failure)

    def _next_turn(self) -> None:
        """After any change: end the game if the rules say so, else start the clock or the agent."""
        session = self.session
        assert session is not None
        self.changed.notify_all()
        if self.record is not None:
            return
        if session.core.over:  # by the rules
            self._finish(session)
            return
        while session.state.current_player == CHANCE:  # chaos events, drawn by the referee at once
            try:
                session.chance_move()
            except AgentFailure as failure:  # told of the event, the agent failed: it forfeits
                self._forfeit(session, failure)
                return
            if session.state.is_over:
                self._next_turn()
                return
        self.turn_started = time.monotonic()
        if session.state.current_player == session.agent_color and not self.closed:
            self.worker = threading.Thread(target=self._agent_turn, args=(session,), daemon=True,
                                           name="agent-reply")
            self.worker.start()

    def _agent_turn(self, session: Session) -> None:
        """The worker: ask the agent outside the lock (it may think long), then play its reply inside it."""
        try:
            self._agent_reply(session)
        except Exception as exc:  # noqa: BLE001  a referee bug: end the game saying so, never leave it "thinking"
            print("* referee @ internal referee error:", file=sys.stderr)
            traceback.print_exc()
            with self.changed:
                if session is self.session:
                    self.worker = None
                    if self.record is None:
                        session.core.unfinished(f"unfinished: internal referee error: {exc!r}")
                        self._finish(session)
                self.changed.notify_all()

    def _agent_reply(self, session: Session) -> None:
        failure: AgentFailure | None = None
        action: Action | None = None
        try:
            action = session.ask_agent()
        except AgentFailure as exc:
            failure = exc
        with self.changed:
            if session is not self.session or self.record is not None or self.closed:
                session.close_agent()  # abandoned or resigned meanwhile: the reply is dropped
                if session is self.session:
                    self.worker = None
                self.changed.notify_all()
                return
            self.worker = None
            if failure is not None:
                self._forfeit(session, failure)
            else:
                assert action is not None
                self._play(session, action)
            self._next_turn()

    def _forfeit(self, session: Session, failure: AgentFailure) -> None:
        message = session.forfeit(failure).message
        self.notice = message  # the page shows it as text (escaped there)
        self._say(f"{inert_line(message)}")  # the terminal: the agent's message, inert
        self._finish(session)

    def _out_of_time(self, session: Session) -> bool:
        """Whether the person to move has used up ``--human-time`` (the game then ends by time_limit)."""
        color = session.state.current_player
        if self.record is not None or session.human_time is None or color not in session.humans:
            return False
        if session.human_used[color] + time.monotonic() - self.turn_started <= session.human_time:
            return False
        session.human_used[color] += time.monotonic() - self.turn_started
        session.core.out_of_time(color, f"{PLAYER_NAMES[color]} ({HUMAN}) ran out of {session.human_time:g} s")
        self._finish(session)
        return True

    def _finish(self, session: Session) -> None:
        """The game has ended (in its core): keep its record, stop the agent, say the result."""
        self.record = session.record()
        message = self.record.message
        if self.worker is None:
            session.close_agent()
        self._say(f"result: {inert_line(message)}")  # it may quote the agent
        self.changed.notify_all()
        self._keep(self.record)

    # -- reading -------------------------------------------------------------------------

    def state(self, wait: bool = False) -> dict[str, Any]:
        """The state as the API gives it; with ``wait``, once the agent has replied (at most LONGEST_WAIT)."""
        with self.changed:
            if wait:
                self.changed.wait_for(lambda: self.worker is None or self.closed, timeout=LONGEST_WAIT)
            session = self.session
            assert session is not None
            self._out_of_time(session)
            return self._describe(session)

    def _describe(self, session: Session) -> dict[str, Any]:
        state = session.state
        over = self.record is not None
        record = self.record or session.record()
        frames = build_frames(record).to_json_data()
        frames.pop("warning", None)  # an unfinished game is not a cut-short record
        final = frames["boards"][-1]
        cells = []
        for i, cell in enumerate(frames["cells"]):
            ch = final[i] if isinstance(final, str) else "."
            owner = "RED" if ch.islower() else "BLUE" if ch.isupper() else None
            power = (ord(ch.lower()) - ord("a") + 1) if owner else 0
            cells.append({"r": cell["r"], "q": cell["q"], "owner": owner, "power": power})
        turn = None if over else PLAYER_NAMES[state.current_player]
        people_move = not over and self.worker is None and state.current_player in session.humans
        kinds = legal_by_kind(state) if people_move else {}
        # A kind with very many (Infinitron with --armour: 386,938 DEFINEs) gives a few; legal_counts says how many.
        legal = [state.action_to_str(a) for group in kinds.values()
                 for a in (group if len(group) <= LISTED_IN_FULL else group[:EXAMPLES])]
        # What the game's registration says of playing it by clicks (none: by typed commands).
        web = registration(session.game.name).web or WebPlay()
        click_cells = registration(session.game.name).click_cells()
        clocks = {}
        for color, name in enumerate(PLAYER_NAMES):
            if color in session.humans:
                used = session.human_used[color]
                if not over and state.current_player == color:
                    used += time.monotonic() - self.turn_started
                limit = session.human_time
                clocks[name] = {"who": HUMAN, "measure": "wall", "used": round(used, 3), "limit": limit,
                                "remaining": None if limit is None else round(max(0.0, limit - used), 3)}
            else:
                agent = session.agent
                used = agent.time_used if agent is not None else 0.0
                limit = session.settings.limits.time_limit
                clocks[name] = {"who": session.name_of(color), "measure": "cpu", "used": round(used, 3),
                                "limit": limit,
                                "remaining": None if not limit else round(max(0.0, limit - used), 3),
                                "peak_memory_mb": round(agent.peak_memory_mb, 2) if agent is not None else 0.0}
        result = None
        if self.record is not None:
            result = {"winner": self.record.winner, "reason": self.record.reason, "message": self.record.message}
        return {
            "game": session.game.name,
            "options": dict(session.settings.game_options),
            "number": self.number,
            "players": {"RED": session.name_of(0), "BLUE": session.name_of(1)},
            "humans": [PLAYER_NAMES[c] for c in session.humans],
            "hot_seat": self.hot_seat,
            "turn": turn,
            "thinking": self.worker is not None,
            "board": state.render(),
            "summary": state.summary(),
            "cells": cells,
            "actions": list(session.actions),
            "legal": legal,
            "legal_counts": {word: len(group) for word, group in kinds.items()},
            "clicks": {text: click_cells(state, text) if click_cells else [] for text in legal},
            "typed": click_cells is None,
            "cell_action": web.cell_action,
            "how": web.how or TYPED_HOW,
            "power": web.power,
            "clocks": clocks,
            "result": result,
            "notice": self.notice,
            "kept": None if self.kept_as is None else {"file": self.args.record, "index": self.kept_as},
            "sandbox": session.sandbox.describe(),
            "frames": frames,
        }

    def finished_record(self) -> GameRecord:
        with self.changed:
            if self.record is None:
                raise Refused(HTTPStatus.CONFLICT, "the game is not over yet (resign to end it)")
            return self.record


class Handler(BaseHTTPRequestHandler):
    """The page and the JSON API; every error is a JSON ``{"error": ...}`` with a 4xx (or 500) status."""

    server: PlayServer
    server_version = "referee-play"
    protocol_version = "HTTP/1.1"
    # Before a request line is understood: answer with a status line and headers (HTTP/0.9 has neither).
    default_request_version = "HTTP/1.0"

    # -- answering -----------------------------------------------------------------------

    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: Any, extra: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(data).encode(), "application/json; charset=utf-8", extra)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's own errors (a malformed request line, a method it has no do_ for), as JSON."""
        if code == HTTPStatus.NOT_IMPLEMENTED:  # a method no do_ handles: the client's mistake, not ours
            code, message = HTTPStatus.METHOD_NOT_ALLOWED, f"{self.command} is not a method of this API (GET, POST)"
        try:
            self.close_connection = True
            self._json(code, {"error": message or HTTPStatus(code).phrase})
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the game's commentary is on standard output; a line per request would drown it

    # -- routing -------------------------------------------------------------------------

    GETS = ("/", "/api/state", "/api/record", "/replay")
    POSTS = ("/api/action", "/api/new", "/api/resign", "/api/undo")

    def do_GET(self) -> None:
        self._handle("GET")

    def do_HEAD(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def _handle(self, method: str) -> None:
        try:
            self._answer(method)
        except OSError:
            self.close_connection = True  # the tab was closed, or the connection dropped, while we answered

    def _answer(self, method: str) -> None:
        try:
            url = urlsplit(self.path)
            self._check_host()
            if url.path not in self.GETS + self.POSTS:
                raise Refused(HTTPStatus.NOT_FOUND, f"no such page: {url.path} (the API: docs/play.md)")
            allowed = "GET" if url.path in self.GETS else "POST"
            if method != allowed:
                self.close_connection = True  # a body we do not read must not be taken for the next request
                self._json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": f"{url.path} takes {allowed}, not {method}"},
                           {"Allow": allowed})
                return
            if method == "GET":
                self._get(url.path, parse_qs(url.query))
            else:
                self._post(url.path, self._body())
        except Refused as refused:
            self._json(refused.status, {"error": refused.message})
        except OSError:
            raise
        except Exception as exc:  # noqa: BLE001  a referee bug: the page says so, the terminal shows where
            print("* referee @ internal referee error:", file=sys.stderr)
            traceback.print_exc()
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal referee error: {exc!r}"})

    def _check_host(self) -> None:
        # Only the addresses this server is reached at: a page elsewhere cannot rebind a name of its own to us.
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        if host not in ("127.0.0.1", "localhost"):
            raise Refused(HTTPStatus.FORBIDDEN, f"this server answers 127.0.0.1 and localhost only, not {host!r}")

    def _body(self) -> dict[str, Any]:
        """The request's JSON object ({} without a body); Refused for anything else."""
        length_text = self.headers.get("Content-Length") or "0"
        try:
            length = int(length_text)
        except ValueError:
            raise Refused(HTTPStatus.BAD_REQUEST, f"Content-Length is not a number: {length_text!r}") from None
        if length < 0 or length > LARGEST_BODY:
            self.close_connection = True
            raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the body may be at most {LARGEST_BODY} bytes")
        raw = self.rfile.read(length) if length else b""
        if len(raw) < length:
            self.close_connection = True
            raise Refused(HTTPStatus.BAD_REQUEST, f"the body ended after {len(raw)} of its {length} bytes")
        # JSON only: a form on another site cannot send it without asking first (CORS), which we never allow.
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if raw and kind != "application/json":
            raise Refused(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send the body as Content-Type: application/json")
        if not raw:
            return {}
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise Refused(HTTPStatus.BAD_REQUEST, f"the body is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise Refused(HTTPStatus.BAD_REQUEST, f"the body must be a JSON object, not {type(data).__name__}")
        return data

    def _get(self, path: str, query: dict[str, list[str]]) -> None:
        table = self.server.table
        if path == "/":
            self._send(HTTPStatus.OK, page_html().encode(), "text/html; charset=utf-8")
        elif path == "/api/state":
            wait = query.get("wait", ["0"])[-1] not in ("", "0", "false", "no")
            self._json(HTTPStatus.OK, table.state(wait=wait))
        elif path == "/api/record":
            record = table.finished_record()
            name = f"{record.game}-{record.started_at[:19].replace(':', '')}.json"
            self._send(HTTPStatus.OK, (json.dumps(record.to_dict(), indent=1) + "\n").encode(),
                       "application/json; charset=utf-8", {"Content-Disposition": f'attachment; filename="{name}"'})
        else:  # /replay
            record = table.finished_record()
            self._send(HTTPStatus.OK, replay_html(record).encode(), "text/html; charset=utf-8")

    def _post(self, path: str, body: dict[str, Any]) -> None:
        table = self.server.table
        if path == "/api/action":
            text = body.get("action")
            if not isinstance(text, str) or not text.strip():
                raise Refused(HTTPStatus.BAD_REQUEST, 'give the action as {"action": "SPAWN(3, 3)"}')
            table.act(text)
        elif path == "/api/new":
            side = body.get("as", table.args.side)
            if side not in ("red", "blue"):
                raise Refused(HTTPStatus.BAD_REQUEST, f'"as" is "red" or "blue", not {side!r}')
            table.new_game(side)
        elif path == "/api/resign":
            table.resign()
        else:  # /api/undo
            table.undo()
        self._json(HTTPStatus.OK, table.state())


def _open_browser(url: str) -> bool:
    """Open ``url`` in a graphical browser, without waiting; False when there seems to be none.

    Without a display, :mod:`webbrowser` falls back on text browsers (lynx,
    w3m), which would take over this very terminal; ``$BROWSER`` is the user's
    own choice and is always honoured.
    """
    graphical = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or sys.platform in ("darwin", "win32")
    if not graphical and not os.environ.get("BROWSER"):
        return False
    threading.Thread(target=webbrowser.open, args=(url,), daemon=True, name="open-browser").start()
    return True


class PlayServer(ThreadingHTTPServer):
    """The HTTP server of one :class:`Table`; its request threads die with it."""

    daemon_threads = True
    table: Table


def serve(args: argparse.Namespace, options: dict[str, Any]) -> int:
    """Start the agent and the server, open the page, serve until Ctrl-C; returns the exit status."""
    try:
        kept = records_in(args.record) if args.record else 0
    except RecordFileError as exc:
        print(f"python -m referee play: error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    try:
        server = PlayServer(("127.0.0.1", args.port), Handler)
    except OSError as exc:
        print(f"python -m referee play: error: --port {args.port}: {exc.strerror} (--port 0 picks a free port)",
              file=sys.stderr)
        return ExitStatus.USAGE
    table: Table | None = None
    # Ctrl-C is how this server stops, even when started where SIGINT is ignored (a shell's background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        stop_like_ctrl_c()
        table = Table(args, options, kept)
        table.new_game(args.side)
        server.table = table
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        print(f"* referee @ playing on {url} (Ctrl-C stops the server)", flush=True)
        if args.open and not _open_browser(url):
            print("* referee @ no graphical browser found here: open that address in yours", flush=True)
        server.serve_forever(poll_interval=0.2)
        return ExitStatus.OK
    except KeyboardInterrupt as interrupt:
        stopped = "the server and the agent were stopped" if args.agent else "the server was stopped"
        return report_stop(interrupt, "\n* referee @ {how}: " + stopped)
    finally:
        with signals_held():
            server.server_close()
            if table is not None:
                table.close()
            stop_as_usual()
