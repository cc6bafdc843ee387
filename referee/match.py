"""One game between two hosted agents, ending in one :class:`GameRecord`.

The loop: ask the game whose turn it is, ask that agent for an action, check
it with the game, apply it, tell both agents (Red's first), until the game
says it is over.  Any agent failure ends the game with the other agent as the
winner; nothing an agent does makes :func:`play_match` raise.
"""
from __future__ import annotations

import contextlib
import ctypes
import difflib
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Mapping

from .core import GameCore, SeatInfo
from .games import DEFAULT_GAME, load_game
from .games.base import BLUE, CHANCE, PLAYER_NAMES, RED, Game, GameState
from .hosting.agent_host import reserved_name
from .hosting.environment import agent_environment
from .hosting.failures import (
    AgentCrashed,
    AgentFailure,
    AgentLoadError,
    AgentOutOfMemory,
    AgentOutputLimit,
    AgentProtocolError,
    AgentTimeout,
)
from .hosting.process import CallStats, HostedAgent
from .hosting.sandbox import Sandbox, locate_module, resolve
from .hosting.wire import Reply
from .limits import Limits
from .records import GameRecord
from .termination import signals_held

DEFAULT_CLASS = "Agent"
#: Verdicts that stop an agent wherever it is: their message says in which call.
STOPPED_IN_A_CALL = (AgentTimeout, AgentOutOfMemory, AgentOutputLimit, AgentCrashed)
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class SpecError(ValueError):
    """A package spec that cannot name an agent class."""


def parse_spec(spec: str) -> tuple[str, str]:
    """``module.path[:Class]`` -> (module, class).

    ``/`` and ``\\`` read as ``.``, a trailing ``.py`` or ``/`` is dropped and
    a leading ``./`` ignored, so ``agents/minimax`` works as well as
    ``agents.minimax``.
    """
    text = spec.strip()
    module, _, class_name = text.partition(":")
    module = module.replace("\\", "/").rstrip("/")
    while module.startswith("./"):
        module = module[2:]
    if module.endswith(".py"):
        module = module[:-3]
    module = module.replace("/", ".")
    class_name = class_name.strip() or DEFAULT_CLASS
    parts = module.split(".")
    if not module or not all(_IDENTIFIER.match(p) for p in parts):
        raise SpecError(
            f"{spec!r} is not a package spec: expected module.path[:Class], e.g. agents.minimax or agents/minimax"
        )
    if not _IDENTIFIER.match(class_name):
        raise SpecError(f"{spec!r}: {class_name!r} is not a class name")
    return module, class_name


def _module_names(folder: Path) -> list[str]:
    """The packages and modules a folder holds, by name (for a did-you-mean)."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    names = {e.name for e in entries if e.is_dir() and _IDENTIFIER.match(e.name) and not e.name.startswith("__")}
    names |= {e.stem for e in entries if e.suffix == ".py" and _IDENTIFIER.match(e.stem) and e.stem != "__init__"}
    return sorted(names)


def spec_problem(spec: str, workdir: Path) -> str | None:
    """Why ``spec`` names no module importable from ``workdir``, or None if it names one.

    Found by path, the way the sandbox finds an agent's package (nothing is
    imported, so no agent code runs here): the top-level name as a folder or
    ``.py`` in ``workdir``, else an installed package, then each further part
    as a sub-folder or module.  A module that is there but fails to import is
    not a problem here: that is the game's ``load_error``.
    """
    try:
        module, _ = parse_spec(spec)
    except SpecError as exc:
        return str(exc)
    reserved = reserved_name(module)
    if reserved:
        return f"{spec!r} cannot be an agent: {reserved}"
    workdir = Path(workdir)
    folder, found = locate_module(workdir, module)
    parts = module.split(".")
    if found == len(parts):
        return None
    missing = parts[found]
    sep = "/" if "/" in spec or "\\" in spec else "."
    close = difflib.get_close_matches(missing, _module_names(folder), n=3, cutoff=0.6)
    hint = " (did you mean " + " or ".join(sep.join(parts[:found] + [c]) for c in close) + "?)" if close else ""
    if found == 0:
        where = (
            f"there is no folder {missing}/ or file {missing}.py in the current folder ({workdir}), "
            f"nor an installed package {missing}"
        )
    else:
        try:
            shown = f"{folder.relative_to(workdir)}/"
        except ValueError:
            shown = f"{folder}/"
        where = f"{shown} has no sub-folder {missing}/ or file {missing}.py"
    path = workdir / spec.strip().partition(":")[0]
    if path.is_file() and path.suffix != ".py":
        where += f"; {spec.strip()} is a file, not an agent package"
    return f"{spec!r} names no agent: {where}{hint}"


@dataclass(frozen=True)
class AgentEntry:
    """An agent to play: its package spec, a display name and its options."""

    spec: str
    name: str | None = None
    #: Extra keyword arguments the agent gets in every call (e.g. a depth).
    options: Mapping[str, Any] = field(default_factory=dict)
    #: The agent's own limits (a game at odds: ``-t 18,180``, ``time_limit`` on a tournament's agent);
    #: None: the game's (:attr:`MatchSettings.limits`).
    limits: Limits | None = None

    @property
    def display_name(self) -> str:
        return self.name or self.spec


@dataclass(frozen=True)
class MatchSettings:
    """Everything about a game except who plays it."""

    game: str = DEFAULT_GAME
    game_options: Mapping[str, Any] = field(default_factory=dict)
    #: Each agent's limits, as the user gave them (CLI or YAML), unless its entry has its own
    #: (:func:`limits_of`); also written to the record.
    limits: Limits = Limits()
    seed: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: The folder the agents' processes start in and import their packages
    #: from; None: this process's working directory.  (A Dask worker sets it
    #: to its copy of the agents shipped by the tournament.)
    agent_dir: str | None = None
    #: Chance's seed, to replay a recorded game's chance draws (None: derived
    #: from ``seed`` and a secret of this run, never given to the agents).
    chance_seed: str | None = None
    #: ``auto`` (sealed where this machine can), ``required`` or ``off``
    #: (referee.hosting.sandbox); ``required`` raises SandboxUnavailable.
    sandbox: str = "auto"
    #: Environment variables of the referee's that agents inherit, beyond the
    #: few they always get (referee.hosting.environment; ``--pass-env``).
    pass_env: tuple[str, ...] = ()


class MatchObserver:
    """Hooks for showing a game as it is played; all do nothing by default."""

    def started(self, game: Game, state: GameState, red: AgentEntry, blue: AgentEntry) -> None: ...

    def action(self, color: int, text: str, state: GameState) -> None: ...

    def call(self, color: int, stats: CallStats, output: str) -> None: ...

    def output(self, color: int, output: str) -> None:
        """What an agent printed during a call that failed (a call that returns gives it to :meth:`call`)."""

    def failed(self, color: int, failure: AgentFailure) -> None: ...

    def finished(self, record: GameRecord, state: GameState) -> None: ...


class _Colored(Exception):
    """An agent failure together with the colour of the agent that failed."""

    def __init__(self, color: int, failure: AgentFailure):
        self.color = color
        self.failure = failure


class _BothFailed(Exception):
    """Neither agent could be loaded: the game is drawn, with both errors kept."""

    def __init__(self, failures: dict[int, AgentFailure]):
        self.failures = failures


def agent_env(settings: MatchSettings, sandbox: Sandbox, color: int) -> dict[str, str]:
    """The environment of an agent's process (referee.hosting.environment), seeded."""
    env = agent_environment(sandbox.namespaces, settings.pass_env)
    seed = settings.seed
    if seed is not None:
        # Reproducible set/dict-of-str order inside seeded agents, different per colour.
        env["PYTHONHASHSEED"] = str((seed * 2 + color) % 4294967296)
    return env


def limits_of(settings: MatchSettings, entry: AgentEntry) -> Limits:
    """The limits ``entry``'s agent plays under: its own, else the game's."""
    return entry.limits if entry.limits is not None else settings.limits


def call_kwargs(game: Game, settings: MatchSettings, entry: AgentEntry, agent: HostedAgent) -> dict[str, Any]:
    """The keyword arguments an agent gets in every call.

    The game's name and options, the seed and the agent's configured options,
    then the three the course referee passed (which options cannot override)
    and ``wall_remaining``: None, as a local game has no wall clock of its own
    (the battleground's client sets it from the server's, docs/battleground.md);
    sent all the same so that every agent sees the same names wherever it plays.
    """
    return {
        "game": game.name,
        "game_options": dict(settings.game_options),
        "seed": settings.seed,
        **game.agent_kwargs,
        **dict(entry.options),
        "time_remaining": agent.time_remaining,
        "wall_remaining": None,
        "space_limit": limits_of(settings, entry).space_limit,
        "space_remaining": agent.space_remaining,
    }


#: PyThreadState_SetAsyncExc(thread id, exception type, or None to clear a pending one).
_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
#: Guards every InterruptibleGames' state: interrupt() runs in another thread.
_interrupt_lock = threading.Lock()
#: The InterruptibleGames of each thread that has one.
_this_thread = threading.local()


class InterruptibleGames:
    """The games this thread plays until :meth:`end`, which another thread may stop at once (:meth:`interrupt`).

    For a thread that cannot be signalled (a Dask worker's task): the exception is
    raised in it asynchronously, wherever it is, as a signal would be, except
    while it starts an agent's process: there it waits until the process is
    recorded in its match (:class:`_AgentStarting`), so that nothing the game
    started is unknown to it.  It can still cut :func:`play_match`'s clean-up
    short: once caught, :meth:`close_all` kills whatever the games started.
    """

    def __init__(self) -> None:
        self._thread = ctypes.c_ulong(threading.get_ident())
        self._matches: list[_Match] = []
        self._starting = 0  # agents being started: 0 or 1
        self._sent: type[BaseException] | None = None  # sent asynchronously, maybe not raised yet
        self._deferred: type[BaseException] | None = None  # to raise once the agent has started
        self.interrupted = False
        _this_thread.games = self

    def interrupt(self, exception: type[BaseException]) -> None:
        """From another thread: raise ``exception`` in this one as soon as it is not starting an agent."""
        with _interrupt_lock:
            self.interrupted = True
            if self._starting:
                self._deferred = exception
            else:
                # CPython 3.11 can hand it to a thread this one is just starting instead: games start none.
                self._sent = exception
                _set_async_exc(self._thread, ctypes.py_object(exception))

    def close_all(self) -> None:
        """Kill every agent the games started (closing one that play_match closed does nothing)."""
        for match in self._matches:
            for agent in match.agents:
                if agent is not None:
                    with contextlib.suppress(Exception):  # each on its own: the next may still be running
                        agent.close()

    def end(self) -> bool:
        """In this thread, once done: no exception of :meth:`interrupt` is raised after this; whether it was sent."""
        with _interrupt_lock:
            if self._sent is not None:
                _set_async_exc(self._thread, None)  # not raised yet: dropped (None is NULL, which clears)
            self._sent = self._deferred = None
            _this_thread.games = None
            return self.interrupted


class _AgentStarting:
    """Holds back an interruption of this thread's games while an agent's process starts (see InterruptibleGames).

    Started but not yet recorded (``Popen`` returning), or recorded but not
    yet in its cgroup, the process would be left running.
    """

    def __enter__(self) -> None:
        games: InterruptibleGames | None = getattr(_this_thread, "games", None)
        self.games = games
        if games is None:
            return
        with _interrupt_lock:
            games._starting += 1
            if games._sent is not None:  # sent, and maybe not raised yet: raise it after the start instead
                _set_async_exc(games._thread, None)
                games._deferred, games._sent = games._sent, None

    def __exit__(self, *exc_info: object) -> None:
        games = self.games
        if games is None:
            return
        with _interrupt_lock:
            games._starting -= 1
            deferred = None if games._starting else games._deferred
            if deferred is not None:
                games._deferred = None
        if deferred is not None:
            raise deferred


class _Match:
    """The referee's driver: two hosted agents as the core's seats, asked in turn."""

    def __init__(self, red: AgentEntry, blue: AgentEntry, settings: MatchSettings, observer: MatchObserver):
        self.entries = (red, blue)
        self.settings = settings
        self.observer = observer
        game = load_game(settings.game, **dict(settings.game_options))
        seats = tuple(SeatInfo(entry.spec, entry.display_name, limits_of(settings, entry)) for entry in self.entries)
        self.core = GameCore(game, (seats[0], seats[1]), options=settings.game_options, seed=settings.seed,
                             chance_seed=settings.chance_seed)
        self.game = game
        self.agents: list[HostedAgent | None] = []  # None: its spec could not be read
        self.sandbox: Sandbox = resolve(settings.sandbox)
        games: InterruptibleGames | None = getattr(_this_thread, "games", None)
        if games is not None:  # before any agent is made: each is in self.agents before it starts
            games._matches.append(self)

    def agent(self, color: int) -> HostedAgent:
        """The hosted agent of ``color``; only called once it was made (its spec could be read)."""
        agent = self.agents[color]
        assert agent is not None
        return agent

    def kwargs(self, color: int) -> dict[str, Any]:
        return call_kwargs(self.game, self.settings, self.entries[color], self.agent(color))

    def call(self, color: int, message: dict[str, Any]) -> Reply:
        agent = self.agent(color)
        try:
            try:
                reply = agent.call(message)
            finally:
                self.core.used[color] = agent.time_used
                self.core.peak_mb[color] = agent.peak_memory_mb
        except AgentFailure as failure:
            if isinstance(failure, STOPPED_IN_A_CALL):
                failure.locate(self.where(message))
            # A student debugging a crash with print needs what it printed last.
            self.observer.output(color, agent.take_output())
            raise _Colored(color, failure) from None
        assert agent.last_call is not None  # set by every call that returns
        self.observer.call(color, agent.last_call, agent.take_output())
        return reply

    def where(self, message: dict[str, Any]) -> str:
        """Which call ``message`` asked for, in words: ``action() on turn 12``."""
        op = message.get("op")
        if op == "init":
            return "__init__()"
        if op == "action":
            return f"action() on turn {len(self.core.actions) + 1}"
        mover = message.get("color") or "chance"
        return f"turn() after turn {len(self.core.actions)} ({mover}'s {message.get('action')})"

    def launch(self) -> None:
        """Start both agents' processes and construct them, Red first.

        A failure to load is kept, not raised at once, so that the other
        agent is tried too: when both fail, neither wins.
        """
        failures: dict[int, AgentFailure] = {}
        for color, entry in enumerate(self.entries):
            try:
                module, class_name = parse_spec(entry.spec)
            except SpecError as exc:
                failures[color] = AgentLoadError(str(exc))
                self.agents.append(None)
                continue
            self.agents.append(
                HostedAgent(
                    PLAYER_NAMES[color],
                    module,
                    class_name,
                    self.game.name,
                    dict(self.settings.game_options),
                    limits_of(self.settings, entry),
                    env=agent_env(self.settings, self.sandbox, color),
                    cwd=self.settings.agent_dir,
                    sandbox=self.sandbox,
                )
            )
        # Both interpreters start at once; the agents are then constructed
        # Red first, as the protocol says.
        for agent in self.agents:
            if agent is not None:
                with _AgentStarting():
                    agent.start()
        for color, agent in enumerate(self.agents):
            if agent is None:
                continue
            try:
                agent.wait_ready()
                self.call(
                    color,
                    {
                        "op": "init",
                        "module": agent.module,
                        "class": agent.class_name,
                        "color": PLAYER_NAMES[color],
                        "kwargs": self.kwargs(color),
                    },
                )
            except AgentFailure as failure:
                failures[color] = failure
            except _Colored as failed:
                failures[color] = failed.failure
        if len(failures) == 2:
            raise _BothFailed(failures)
        if failures:
            (color, only), = failures.items()
            raise _Colored(color, only)

    def play(self) -> None:
        core = self.core
        while (mover := core.mover) is not None:
            if mover == CHANCE:
                text = core.chance()
                self.observer.action(CHANCE, text, core.state)
                if not core.state.is_over:
                    self.tell_both(None, text)
                continue
            reply = self.call(mover, {"op": "action", "kwargs": self.kwargs(mover)})
            if reply.action is None:
                raise _Colored(mover, AgentProtocolError("the reply to action() carried no action"))
            try:
                text = core.submit(mover, reply.action)
            except AgentFailure as failure:
                raise _Colored(mover, failure) from None
            self.observer.action(mover, text, core.state)
            if core.state.is_over:
                break
            self.tell_both(PLAYER_NAMES[mover], text)

    def tell_both(self, color_name: str | None, text: str) -> None:
        """``turn()`` on Red's agent, then Blue's (``color_name`` None: chance)."""
        for color in (RED, BLUE):
            self.call(color, {"op": "turn", "color": color_name, "action": text, "kwargs": self.kwargs(color)})

    def close(self) -> None:
        for agent in self.agents:
            if agent is not None:
                agent.close()


def play_match(
    red: AgentEntry, blue: AgentEntry, settings: MatchSettings, observer: MatchObserver | None = None
) -> GameRecord:
    """Play one game; returns its record.  Agent failures become verdicts."""
    observer = observer or MatchObserver()
    start = time.monotonic()
    match = _Match(red, blue, settings, observer)
    core = match.core
    observer.started(match.game, core.state, red, blue)
    try:
        try:
            match.launch()
            match.play()
        finally:
            with signals_held():  # a Ctrl-C or SIGTERM mid-cleanup would leave agents running
                try:
                    match.close()
                except BaseException:
                    # An exception sent to this thread (a Dask game abandoned) can land
                    # inside the clean-up itself: finish it, then let it go on.
                    match.close()
                    raise
    except _Colored as failed:
        observer.failed(failed.color, failed.failure)
        core.failed(failed.color, failed.failure)
    except _BothFailed as both:
        for color, failure in sorted(both.failures.items()):
            observer.failed(color, failure)
        core.both_failed(both.failures)
    for color, agent in enumerate(match.agents):
        if agent is not None:  # its last call's use, also when it failed before the referee read it
            core.used[color], core.peak_mb[color] = agent.time_used, agent.peak_memory_mb
    assert core.over  # play() returns only once the game is over
    record = core.record(duration=time.monotonic() - start, extra=settings.extra, sandbox=match.sandbox.to_json())
    observer.finished(record, core.state)
    return record


def check_agent(entry: AgentEntry, settings: MatchSettings) -> str | None:
    """Import and construct an agent in its own process, as a game would.

    Returns ``None`` if that works, else a message saying what went wrong.
    """
    try:
        module, class_name = parse_spec(entry.spec)
    except SpecError as exc:
        return str(exc)
    game = load_game(settings.game, **dict(settings.game_options))
    sandbox = resolve(settings.sandbox)
    agent = HostedAgent(
        "RED", module, class_name, game.name, dict(settings.game_options), limits_of(settings, entry),
        env=agent_env(settings, sandbox, RED), cwd=settings.agent_dir, sandbox=sandbox,
    )
    try:
        agent.start()
        agent.wait_ready()
        kwargs = call_kwargs(game, settings, entry, agent)
        agent.call({"op": "init", "module": module, "class": class_name, "color": "RED", "kwargs": kwargs})
    except AgentFailure as failure:
        return failure.message
    finally:
        agent.close()
    return None
