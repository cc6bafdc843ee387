"""The program that runs inside an agent's process.

    python -c HOST_BOOT referee.hosting.agent_host REFEREE_FOLDER SETTINGS_JSON   (see referee.hosting.process)

SETTINGS_JSON names the command and reply pipes, the game and its options,
the CPU backstop, the libraries' folders and, when the referee is root, the
unprivileged user to become first.  It imports the game's agent-facing types (and its older protocol's adapter,
if any: both named by the game's registration, so this module knows no
game), says it is ready (the referee takes the memory baseline then), and
serves the referee's calls: import and
construct the agent, ``action()``, ``turn()``.  Replies go to REPLY_FD, never
to stdout, which belongs to the agent.  Everything the agent raises is caught
and reported; whatever this process sends is checked again by the referee, so
nothing here has to be trusted.
"""
from __future__ import annotations

import difflib
import faulthandler
import json
import math
import os
import re
import signal
import sys
import traceback
from importlib import import_module
from typing import Any
from collections.abc import Callable

from .wire import OK_LINE, encode

MAX_TRACEBACK = 8000
#: The reply to a successful init or turn (sent as fixed bytes: most replies are this).
OK: dict[str, Any] = {"ok": True}
_OK_REPLY = OK_LINE + b"\n"


class Channel:
    """Line-based reading of commands and writing of replies on raw fds."""

    def __init__(self, cmd_fd: int, reply_fd: int):
        self.cmd_fd = cmd_fd
        self.reply_fd = reply_fd
        self.buffer = b""

    def read(self) -> dict[str, Any] | None:
        while b"\n" not in self.buffer:
            chunk = os.read(self.cmd_fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        command: dict[str, Any] = json.loads(line)
        return command

    def send(self, message: dict[str, Any]) -> None:
        data = _OK_REPLY if message is OK else encode(message)
        while data:
            data = data[os.write(self.reply_fd, data) :]


def failure(kind: str, message: str, tb: str = "") -> dict[str, Any]:
    return {"ok": False, "failure": kind, "message": message[:2000], "traceback": tb[-MAX_TRACEBACK:]}


_HOSTING_DIR = os.path.dirname(os.path.abspath(__file__))
_IMPORTLIB_DIR = os.path.dirname(os.path.abspath(import_module.__code__.co_filename))


def _is_ours(filename: str) -> bool:
    if filename.startswith("<frozen importlib"):
        return True
    return os.path.dirname(os.path.abspath(filename)) in (_HOSTING_DIR, _IMPORTLIB_DIR)


def agent_traceback(exc: BaseException) -> str:
    """The traceback from the agent's own code on (host and importlib frames dropped)."""
    tb = exc.__traceback__
    while tb is not None and _is_ours(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


def import_hint(exc: BaseException, module_name: str) -> str:
    """A hint when an agent seems to import its own package by an old name.

    That is when the missing module is ``agent`` (the course template's
    package name) or a module that sits in the agent's own folder but was
    imported absolutely; a third-party module that is not installed gets no
    hint.  And when a file cannot be read as the unprivileged user a sealed
    agent runs as: the fix is the file's mode.
    """
    if isinstance(exc, PermissionError) and _dropped_to is not None:
        where = f" {exc.filename}" if exc.filename else ""
        return (
            f" (the referee runs sealed agents as an unprivileged user, uid {_dropped_to}: the agent's files must be "
            f"readable by others; chmod -R a+rX the agent's folder{' (' + where.strip() + ')' if where else ''})"
        )
    missing = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
    if not missing or "." not in module_name or module_name == missing or module_name.startswith(missing + "."):
        return ""
    top = missing.split(".")[0]
    folder = os.path.join(os.getcwd(), *module_name.split("."))
    own = os.path.exists(os.path.join(folder, top + ".py")) or os.path.isdir(os.path.join(folder, top))
    if top != "agent" and not own:
        return ""
    return (
        f" (the agent imports '{missing}' by an absolute name; if that is its own package or module under "
        "an old name, import it relatively: 'from .module import name')"
    )


def missing_class(module: Any, module_name: str, class_name: str) -> str:
    """Why ``module`` has no ``class_name``, in the terms a student can act on.

    A folder without ``__init__.py`` imports as an empty namespace package,
    so "has no class Agent" hid the real mistake; and a package whose
    ``__init__.py`` does not import the class from the file that defines it
    is the other usual one.  Says which file defines the class, if one does.
    """
    message = f"{module_name} has no class {class_name}"
    folders = list(getattr(module, "__path__", None) or [])
    if folders:
        folder = folders[0]
        defines = re.compile(rf"^class\s+{re.escape(class_name)}\b", re.MULTILINE)
        where = []
        try:
            for name in sorted(os.listdir(folder)):
                if name.endswith(".py") and name != "__init__.py":
                    with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as file:
                        if defines.search(file.read(1 << 20)):
                            where.append(name[:-3])
        except OSError:
            pass
        fix = f"'from .{where[0]} import {class_name}' ({where[0]}.py defines it)" if where else None
        if getattr(module, "__file__", None) is None:
            return (
                f"{message}: its folder {folder} has no __init__.py, so it is not a package (Python reads it as an "
                f"empty namespace); add an __init__.py with {fix or f'the class {class_name} or an import of it'}"
            )
        message += ": its __init__.py does not define or import it" + (f"; add {fix} to it" if fix else "")
    classes = [name for name, value in vars(module).items() if isinstance(value, type)]
    close = difflib.get_close_matches(class_name, classes, n=1)
    return message + (f" (did you mean {close[0]}?)" if close else "")


def describe_exception(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Host:
    """Serves one agent object for the referee."""

    def __init__(self, game_name: str, options: dict[str, Any]):
        from referee.game.player import PlayerColor
        from referee.games import registration

        game = registration(game_name)
        self.game = game.game_class()(**options)
        self.state = self.game.new_state()  # only for parsing/formatting action text
        types = game.agent_types_module()
        self.to_engine: Callable[[Any], Any] = types.to_engine_action
        self.from_engine: Callable[[Any], Any] = types.from_engine_action
        #: The game's older agent protocol, if its registration names one.
        self.adapter = game.legacy_adapter()
        self.colors = {c.name: c for c in PlayerColor}
        self.agent: Any = None
        #: Whether this agent speaks the older protocol.
        self.legacy = False
        self._parsed: dict[str, Any] = {}

    def guarded(self, kind_on_error: str, call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        try:
            return call()
        except MemoryError as exc:
            return failure("memory", "MemoryError", agent_traceback(exc))
        except BaseException as exc:  # noqa: BLE001  SystemExit, KeyboardInterrupt too
            return failure(kind_on_error, describe_exception(exc), agent_traceback(exc))

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        op = message.get("op")
        kwargs = message.get("kwargs") or {}
        if op == "init":
            return self.guarded("load", lambda: self.init(message, kwargs))
        if op == "action":
            return self.guarded("exception", lambda: self.action(kwargs))
        if op == "turn":
            return self.guarded("exception", lambda: self.turn(message, kwargs))
        return failure("exception", f"unknown request {op!r}")

    def init(self, message: dict[str, Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        module_name, class_name = message["module"], message["class"]
        reserved = reserved_name(module_name)
        if reserved:
            return failure("load", f"cannot import {module_name}: {reserved}")
        try:
            module = import_module(module_name)
        except BaseException as exc:  # noqa: BLE001
            problem = f"cannot import {module_name}: {describe_exception(exc)}{import_hint(exc, module_name)}"
            return failure("load", problem, agent_traceback(exc))
        cls = getattr(module, class_name, None)
        legacy_name = None if self.adapter is None else self.adapter.class_name
        if cls is None and class_name == "Agent" and legacy_name and hasattr(module, legacy_name):
            class_name, cls = legacy_name, getattr(module, legacy_name)  # an older agent: known by its class name
        if cls is None:
            return failure("load", missing_class(module, module_name, class_name))
        self.legacy = legacy_name is not None and class_name == legacy_name
        try:
            if self.adapter is not None and self.legacy:
                color_index = self.colors[message["color"]].value
                self.agent = cls(*self.adapter.constructor_args(color_index, self.game.agent_kwargs))
            else:
                self.agent = cls(color=self.colors[message["color"]], **kwargs)
        except MemoryError:
            raise
        except BaseException as exc:  # noqa: BLE001
            return failure("load", f"{class_name}() raised {describe_exception(exc)}", agent_traceback(exc))
        return OK

    def action(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        if self.adapter is not None and self.legacy:
            result = self.agent.action()
            engine_action = self.adapter.from_legacy(result)
            if engine_action is None:
                return failure("bad_return", f"action() returned {self.adapter.describe_legacy(result)}")
        else:
            result = self.agent.action(**kwargs)
            engine_action = self.to_engine(result)
        if engine_action is None:
            shown = repr(result)
            shown = shown if len(shown) <= 120 else shown[:117] + "..."
            title = self.game.name.title()
            article = "an" if title[:1] in "AEIOU" else "a"
            return failure(
                "bad_return",
                f"action() returned {type(result).__name__} {shown}, not {article} {title} action object",
            )
        text = self.state.action_to_str(engine_action)
        try:
            self.engine_action(text)
        except ValueError as exc:
            # E.g. a cell off this game's (smaller) board: the agent's choice is not an
            # action here, which is its illegal action, not a garbled channel.
            shown = repr(result)
            shown = shown if len(shown) <= 120 else shown[:117] + "..."
            return failure("bad_return", f"action() returned {shown}: {exc}")
        return {"ok": True, "action": text}

    def engine_action(self, text: str) -> Any:
        """The engine action of an action text (cached: games repeat them)."""
        action = self._parsed.get(text)
        if action is None:
            action = self._parsed[text] = self.state.parse_action(text)
        return action

    def turn(self, message: dict[str, Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        color = message.get("color")
        engine_action = self.engine_action(message["action"])
        if self.adapter is not None and self.legacy:
            player = self.adapter.player(self.colors[str(color)].value)
            self.agent.turn(player, self.adapter.to_legacy(engine_action))
        else:
            self.agent.turn(None if color is None else self.colors[color], self.from_engine(engine_action), **kwargs)
        return OK


def drop_privileges(uid: int, gid: int) -> None:
    """Become ``uid``/``gid`` for good (the referee runs as root; agents must not).

    Switching every uid away from 0 clears the capabilities the sandbox left
    for it.  The kernel then marks the process not dumpable, which gives its
    /proc/self files to root: it could no longer name itself
    (/proc/self/comm) or read its own environ.  It is made dumpable again:
    with ptrace refused by the sandbox's filter, that only gives /proc back.
    """
    global _dropped_to
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    _dropped_to = uid
    import ctypes

    PR_SET_DUMPABLE = 4
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)


#: The uid this process switched to (None: it runs as it was started).
_dropped_to: int | None = None


#: Top-level names an agent's package may not have: the host imports the
#: standard library before the agent, so a package of that name would either
#: be shadowed by the module or (had it been imported first) shadow it.
RESERVED = frozenset(sys.stdlib_module_names) | {"site", "sitecustomize", "usercustomize"}


def reserved_name(module_name: str) -> str | None:
    """Why an agent cannot be imported as ``module_name`` (its top-level name is Python's), or None."""
    top = module_name.split(".")[0]
    if top not in RESERVED:
        return None
    what = "a module Python imports at start-up" if top.endswith("customize") or top == "site" else (
        "a module of Python's standard library"
    )
    return (
        f"the agent's top-level package is named {top!r}, the name of {what}; "
        f"rename its folder (e.g. {top}_agent/) and name it by the new name"
    )


def main(settings_json: str) -> None:
    """Serve the referee on the pipes ``settings_json`` names, then end the process."""
    settings = json.loads(settings_json)
    if settings.get("uid") is not None:
        drop_privileges(settings["uid"], settings["gid"])
    limit = float(settings["cpu_hard"])
    if limit > 0:
        import resource

        # A backstop the agent cannot raise: the kernel stops the process
        # even if the referee's own watch were somehow delayed.
        seconds = math.ceil(limit)
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))
    channel = Channel(settings["cmd_fd"], settings["reply_fd"])
    if settings.get("stack_fd") is not None:
        # The referee asks for the agent's stack (SIGUSR1) just before it stops a call over a limit;
        # written from the signal handler in C, so a call stuck in C code still shows where.
        faulthandler.register(signal.SIGUSR1, file=settings["stack_fd"], all_threads=True)
    # The game's modules are the referee's: imported with the working
    # directory last on the path (a plug-in game may live there), so that
    # nothing in it stands in for a module of Python's.
    here = os.getcwd()
    sys.path.append(here)
    host = Host(settings["game"], settings["options"])
    sys.path.remove(here)
    # The agent then finds its folder first and the operator's libraries next, as in a plain Python.
    sys.path[:0] = [here, *settings["libraries"]]
    channel.send({"ready": True})
    while True:
        message = channel.read()
        if message is None:
            break
        channel.send(host.handle(message))
    # Skip interpreter teardown: agent threads or atexit hooks must not keep
    # the process alive once the referee has closed the channel.
    os._exit(0)
