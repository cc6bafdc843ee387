"""The game core: one game's state, chance, clocks and verdict, ending in its one :class:`GameRecord`.

No I/O: no processes, sockets, threads, prints or clocks of its own.  Whoever
plays a colour is a *seat* around it — a hosted agent (:mod:`referee.match`),
a remote client (:mod:`referee.battleground`), a person (:mod:`referee.human_play`)
— and a small driver per setting asks the seats and tells the core what they
answered (:meth:`GameCore.submit`), what they used (:attr:`GameCore.used`) and
how they failed (:meth:`GameCore.forfeit`).  The record, its ending message and
its reason are made here and nowhere else; a game cannot end on a reason that
is not registered (:data:`referee.records.REASONS`, or the game's own ``reasons``).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import random
import secrets
import traceback
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping

from . import __version__
from .games.base import CHANCE, PLAYER_NAMES, Game, GameState, IllegalActionError, NotationError
from .hosting.failures import AgentFailure, AgentIllegalAction, AgentProtocolError
from .limits import Limits, record_fields
from .records import AGENT_FAILURE_REASONS, PERSON_REASONS, RESIGNATION, UNFINISHED, GameRecord, bounded, reasons

#: Mixed into every chance seed this process derives: agents are given the
#: game's seed, so chance drawn from that seed alone would be predictable.
_CHANCE_SECRET = secrets.token_hex(16)


def chance_seed_for(seed: int | None) -> str:
    """The seed chance draws from: the game's seed with this run's secret, or fresh."""
    if seed is None:
        return secrets.token_hex(16)
    return hashlib.sha256(f"{_CHANCE_SECRET}:{seed}".encode()).hexdigest()[:32]


def utc_now() -> str:
    """Now, as records write it: UTC, ISO 8601 to the second."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def ending_message(winner: str | None, reason: str, detail: str = "") -> str:
    """The record's message of a game that ended by the rules or by a person: ``RED wins (reason)`` or
    ``draw (reason)``, then ``: detail`` when there is more to say (who ran out of time, who resigned)."""
    head = f"{winner} wins ({reason})" if winner else f"draw ({reason})"
    return f"{head}: {detail}" if detail else head


def message_detail(winner: str | None, reason: str, message: str) -> str:
    """What a record's ``message`` adds to its head (:func:`ending_message`'s ``detail``); the whole message
    when it does not start with the head (records written by other tools, or edited)."""
    for head in (ending_message(winner, reason), reason):
        if message.startswith(head):
            return message[len(head):].lstrip(":").lstrip()
    return message


def error_entry(failure: AgentFailure) -> dict[str, Any]:
    """The record's ``error`` entry of an agent that failed: its kind, message, traceback and last output.

    Each text is cut to its bound, as an agent controls how long it is.
    """
    return {
        "kind": failure.reason,
        "message": bounded(failure.message, 1000),
        "traceback": bounded(failure.traceback or None),
        "output_tail": bounded(failure.output or None),
    }


def stopped_server_message(actions: int) -> str:
    """The message of a battleground game that its server's stop cut short (a partial record, never counted)."""
    return f"aborted after {actions} actions: the server stopped during the game (not counted)"


class UnregisteredReason(ValueError):
    """An ending with a reason :data:`referee.records.REASONS` does not hold: a bug of the referee's."""


@dataclass(frozen=True)
class Ending:
    """How a game ended: the winner (``RED``/``BLUE``/None), its reason, the record's message and each side's
    error entry.  Made by :class:`GameCore`'s methods, which check that its reason is registered."""

    winner: str | None
    reason: str
    message: str
    errors: Mapping[str, Mapping[str, Any] | None] = field(default_factory=lambda: {"RED": None, "BLUE": None})

    def __post_init__(self) -> None:
        if self.winner not in (None, *PLAYER_NAMES):
            raise ValueError(f"a winner is RED, BLUE or None, not {self.winner!r}")


@dataclass(frozen=True)
class SeatInfo:
    """What the record says of the one playing a colour."""

    #: The package spec (a hosted agent), the player's name (a remote client) or ``human``.
    spec: str
    #: The name tables show (a tournament's agent name); None: ``spec``.
    name: str | None = None
    limits: Limits = Limits()
    #: How its failures are introduced in the record's message (``RED agent``, ``RED (alice)``); None: ``<COLOR>
    #: agent``.
    label: str | None = None


class GameCore:
    """One game being played: its position, the actions so far, both clocks and, once over, its :class:`Ending`.

    The driver loop: while :attr:`ending` is None, look at :attr:`mover`; :data:`CHANCE`: :meth:`chance`;
    a colour: ask its seat and :meth:`submit` the text it answered (a bad one forfeits the game there), or
    :meth:`forfeit` when the seat failed.  Then :meth:`record`.
    """

    def __init__(self, game: Game, seats: tuple[SeatInfo, SeatInfo], *, options: Mapping[str, Any] | None = None,
                 seed: int | None = None, chance_seed: str | None = None, started_at: str | None = None):
        self.game = game
        self.seats = seats
        self.options = dict(options or {})
        self.seed = seed
        self.state: GameState[Any] = game.new_state()
        self.actions: list[str] = []
        #: Who played each action: RED, BLUE or CHANCE.
        self.movers: list[int] = []
        self.moves = [0, 0]
        #: Each side's time used so far, as its seat measures it (CPU seconds of an agent, a person's wall
        #: seconds): kept current by the driver; each action's pair is taken from it.
        self.used = [0.0, 0.0]
        #: Each side's peak memory above its baseline, MB (0 for a person).
        self.peak_mb = [0.0, 0.0]
        #: Both sides' :attr:`used` once each action was played (the replay's clocks).
        self.clocks: list[list[float]] = []
        # Chance (chaos events) draws from a seed the agents never see (they get the game's seed); the record
        # keeps it, so the game replays.
        self.chance_seed = chance_seed or chance_seed_for(seed)
        self._chance_rng = random.Random(f"chance:{self.chance_seed}")
        self.errors: dict[str, Mapping[str, Any] | None] = {"RED": None, "BLUE": None}
        self.ending: Ending | None = None
        self.started_at = started_at or utc_now()

    # -- the game ------------------------------------------------------------------------------------------

    @property
    def mover(self) -> int | None:
        """Who is to act: RED, BLUE or CHANCE; None once the game has ended."""
        if self.ending is None and self.state.is_over:
            self._end_by_rules()
        return None if self.ending is not None else self.state.current_player

    @property
    def over(self) -> bool:
        return self.mover is None

    def chance(self) -> str:
        """Let chance act (a chaos event); its action's text."""
        assert self.mover == CHANCE
        action = self.state.sample_chance(self._chance_rng)
        return self._played(CHANCE, action)

    def submit(self, color: int, text: Any) -> str:
        """Play ``color``'s answer ``text``; its canonical text.

        Raises :class:`AgentProtocolError` (not an action of the game) or :class:`AgentIllegalAction` (against
        the rules now), without changing the position: the driver forfeits the seat with it.
        """
        assert self.mover == color, f"{PLAYER_NAMES[color]} answered out of turn"
        state = self.state
        try:
            action = state.parse_action(text)
        except NotationError as exc:
            raise AgentProtocolError(f"unreadable action: {exc}") from None
        except Exception as exc:  # noqa: BLE001  any text the parser cannot take is the sender's to answer for
            # but a parser that raises anything but NotationError has a bug of its own: its traceback goes into
            # the record (``error.traceback``), so that whoever runs the games can see and fix it.
            raise AgentProtocolError(f"unreadable action ({type(exc).__name__})",
                                     traceback=traceback.format_exc()) from None
        try:
            state.apply_checked(action)
        except IllegalActionError as exc:
            raise AgentIllegalAction(str(exc)) from None
        self.moves[color] += 1
        return self._recorded(color, action)

    def _played(self, mover: int, action: Any) -> str:
        self.state.apply_checked(action)
        return self._recorded(mover, action)

    def _recorded(self, mover: int, action: Any) -> str:
        text = self.state.action_to_str(action)
        self.actions.append(text)
        self.movers.append(mover)
        self.clocks.append([round(used, 4) for used in self.used])
        return text

    def take_back_to(self, length: int) -> None:
        """The game as it was after its first ``length`` actions (a person's undo).

        Chance is drawn again from its start, so an event taken back comes again as it was.
        """
        kept = list(zip(self.actions[:length], self.movers[:length], self.clocks[:length]))
        self.state = self.game.new_state()
        self._chance_rng = random.Random(f"chance:{self.chance_seed}")
        self.actions, self.movers, self.clocks, self.moves = [], [], [], [0, 0]
        self.ending = None
        for text, mover, clocks in kept:
            if mover == CHANCE:
                self.state.sample_chance(self._chance_rng)  # the draw, as it was: moves the source on
            action = self.state.parse_action(text)
            self.state.apply(action)
            self.actions.append(text)
            self.movers.append(mover)
            self.clocks.append(clocks)
            if mover != CHANCE:
                self.moves[mover] += 1

    # -- endings ------------------------------------------------------------------------------------------

    def _end(self, ending: Ending) -> Ending:
        if self.ending is None:
            self.ending = self.checked(ending)
        return self.ending

    def checked(self, ending: Ending) -> Ending:
        """``ending``, once its reason is known to be registered (:data:`referee.records.REASONS` or this game's
        own ``reasons``); else :class:`UnregisteredReason`, as no record may say what no reader knows."""
        # The game's own reasons and the referee's first: the registry's would import every bundled game.
        own = (*self.game.reasons, *AGENT_FAILURE_REASONS, *PERSON_REASONS)
        if ending.reason not in own and ending.reason not in reasons():
            raise UnregisteredReason(
                f"{ending.reason!r} is not a registered reason of a game's end: the referee's reasons are "
                f"referee.records.REASONS, and a game's own are its class's `reasons` ({type(self.game).__name__}"
                f".reasons is {tuple(self.game.reasons)!r}; docs/adding-a-game.md)")
        return ending

    def _end_by_rules(self) -> None:
        outcome = self.state.outcome
        assert outcome is not None
        self._end(Ending(outcome.winner_name, outcome.reason, ending_message(outcome.winner_name, outcome.reason)))

    def label(self, color: int) -> str:
        return self.seats[color].label or f"{PLAYER_NAMES[color]} agent"

    def forfeit(self, color: int, reason: str, message: str, error: Mapping[str, Any] | None = None) -> Ending:
        """``color`` loses on ``reason`` (its seat failed, broke the rules or the protocol); the ending.

        ``error``: the record's error entry of that side (default: its kind and ``message``).
        """
        self.errors[PLAYER_NAMES[color]] = error or {"kind": reason, "message": message, "traceback": None}
        return self._end(Ending(PLAYER_NAMES[1 - color], reason, f"{self.label(color)}: {message}",
                                dict(self.errors)))

    def failed(self, color: int, failure: AgentFailure) -> Ending:
        """``color``'s agent failed with ``failure``: it loses, its error entry kept."""
        return self.forfeit(color, failure.reason, failure.message, error_entry(failure))

    def both_failed(self, failures: Mapping[int, AgentFailure]) -> Ending:
        """Neither agent could be loaded: a draw, both errors kept."""
        for color, failure in failures.items():
            self.errors[PLAYER_NAMES[color]] = error_entry(failure)
        message = "draw: neither agent could be loaded; " + "; ".join(
            f"{PLAYER_NAMES[c]} agent: {f.message}" for c, f in sorted(failures.items()))
        return self._end(Ending(None, "load_error", message, dict(self.errors)))

    def resigned(self, loser: int, who: str) -> Ending:
        """The person playing ``loser`` gave up: the other side wins."""
        detail = f"{PLAYER_NAMES[loser]} ({who}) resigned after {len(self.actions)} actions"
        return self._end(Ending(PLAYER_NAMES[1 - loser], RESIGNATION, ending_message(PLAYER_NAMES[1 - loser],
                                                                                    RESIGNATION, detail)))

    def out_of_time(self, loser: int, detail: str) -> Ending:
        """``loser`` ran out of its time (a person's budget): the other side wins."""
        winner = PLAYER_NAMES[1 - loser]
        return self._end(Ending(winner, "time_limit", ending_message(winner, "time_limit", detail)))

    def aborted(self) -> Ending:
        """The server refereeing the game failed (its own error, no player's): unfinished, never counted."""
        return self.unfinished(f"aborted after {len(self.actions)} actions: the server failed during the game "
                               f"(its error is in the server's log); not counted")

    def unfinished(self, message: str) -> Ending:
        """Stopped before its end, no winner: a person quit, the server failed (``message`` says which)."""
        return self._end(Ending(None, UNFINISHED, message))

    # -- the record ---------------------------------------------------------------------------------------

    def record(self, *, duration: float, extra: Mapping[str, Any] | None = None,
               sandbox: Mapping[str, Any] | None = None, so_far: str | None = None) -> GameRecord:
        """The game's one record, once it has ended.

        ``so_far``: of a game still in play, the record of the game so far (no winner, ``unfinished``, with
        ``so_far`` as its message: what a server keeps should it die, what a page shows while a game runs).
        """
        if self.mover is None:  # ended (by the rules, noted by ``mover``, or otherwise)
            ending = self.ending
        else:
            assert so_far is not None, "a record is made of a game that has ended"
            ending = Ending(None, UNFINISHED, so_far)
        assert ending is not None
        red, blue = self.seats
        return GameRecord(
            game=self.game.name, game_options=dict(self.options),
            red=red.spec, blue=blue.spec, red_name=red.name or red.spec, blue_name=blue.name or blue.spec,
            winner=ending.winner, reason=ending.reason, message=ending.message,
            turns=len(self.actions), actions=list(self.actions),
            moves={"RED": self.moves[0], "BLUE": self.moves[1]},
            time_used={name: round(used, 4) for name, used in zip(PLAYER_NAMES, self.used)},
            peak_memory_mb={name: round(peak, 2) for name, peak in zip(PLAYER_NAMES, self.peak_mb)},
            error={"RED": ending.errors.get("RED"), "BLUE": ending.errors.get("BLUE")},
            seed=self.seed, **record_fields(red.limits, blue.limits),
            started_at=self.started_at, duration=round(duration, 4), referee_version=__version__,
            extra=dict(extra or {}), sandbox=dict(sandbox) if sandbox is not None else None,
            chance_seed=self.chance_seed if CHANCE in self.movers else None,
            time_used_after=[list(pair) for pair in self.clocks],
        )
