"""The game record: one value per finished game, and its JSON form.

Everything downstream (logs, tournament tables, ratings, replays) reads
records and nothing else.  The JSON written by ``--record`` and appended to a
tournament's ``games.jsonl`` is exactly :meth:`GameRecord.to_json`.

Schema (``schema_version`` 1):

==================  ==========================================================
``schema_version``  1
``game``            game name, e.g. ``"infexion"``
``game_options``    the game's options, e.g. ``{"n": 7}`` for Cachex
``red``/``blue``    the agents' package specs as given (``agents.minimax``)
``red_name`` ...    display names (a tournament's agent names; else the spec)
``winner``          ``"RED"``, ``"BLUE"`` or ``null`` for a draw
``reason``          one of :data:`REASONS`: the bundled games' rules' reasons
                    (``RULE_REASONS``; a plug-in game may add its own), an
                    agent's failures (``AGENT_FAILURE_REASONS``) and the
                    endings a person chose (``PERSON_REASONS``: ``resignation``,
                    with the other side as winner; ``unfinished``, no winner:
                    the page recorded resignations so, with a winner,
                    before ``resignation`` existed)
``message``         one human-readable sentence about the ending
``turns``           number of actions applied
``actions``         every applied action's canonical text, in order
``moves``           ``{"RED": n, "BLUE": m}``: actions each agent chose
``time_used``       ``{"RED": s, "BLUE": s}``: CPU seconds each agent used
                    (a person's side: wall-clock seconds on their moves)
``peak_memory_mb``  ``{"RED": mb, "BLUE": mb}``: peak memory above baseline
``error``           ``{"RED": null | {...}, "BLUE": ...}``: the failure of an
                    agent, ``{"kind", "message", "traceback"}``, bounded
``seed``            the seed given to the agents (or ``null``)
``time_limit``      CPU seconds per agent per game (``null``: none; in a game
                    at odds, ``null`` where the sides' limits differ)
``space_limit``     MB per agent (likewise)
``odds``            ``null`` when both sides had the same limits; a game at
                    odds: ``{"RED": {"time_limit", "space_limit"}, "BLUE":
                    {...}}``, each side's own (``-t 18,180``, an agent's own
                    limits in a tournament)
``started_at``      UTC start time, ISO 8601
``duration``        wall seconds from start to result
``referee_version`` the version that refereed
``extra``           free-form context, e.g. a tournament's ``game_index``
``sandbox``         what the agents ran under: ``{"namespaces": bool,
                    "accounting": "cgroup-v1" | "cgroup-v2" | "process",
                    "frozen": bool}`` (``null``: recorded before sandboxes)
``chance_seed``     the seed chance (chaos events) was drawn from, kept
                    secret from the agents during the game (``null``: the
                    game had no chance, or it was drawn fresh)
``time_used_after`` ``[[red, blue], ...]``: one pair per action, each side's
                    ``time_used`` once that action was played (the clocks
                    a replay shows at each step); ``[]``: not recorded
                    (records written before it, or a referee that does not)
==================  ==========================================================
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any
from collections.abc import Mapping, Sequence

from .games import rule_reasons
from .hosting.failures import AGENT_FAILURE_REASONS as _FAILURE_REASONS

SCHEMA_VERSION = 1

COLORS = ("RED", "BLUE")

#: The reasons an agent's failure gives (:data:`referee.hosting.failures.FAILURES`).
AGENT_FAILURE_REASONS = _FAILURE_REASONS
#: The reason of a game a person stopped before its end (``python -m referee play``: ``q``; the page's
#: *new game* in the middle of one): no winner.
UNFINISHED = "unfinished"
#: The reason of a game a person gave up (``resign`` at the prompt, the page's *resign*): the other side wins.
RESIGNATION = "resignation"
#: The endings a person chooses rather than the rules or an agent's failure.
PERSON_REASONS: tuple[str, ...] = (RESIGNATION, UNFINISHED)


def reasons() -> tuple[str, ...]:
    """Every registered reason a game may end on (:data:`REASONS`): the rules', the agents' failures, a person's."""
    return rule_reasons() + AGENT_FAILURE_REASONS + PERSON_REASONS


def __getattr__(name: str) -> tuple[str, ...]:
    # The rules' reasons come from the games' classes, imported on first use
    # (reading a record needs no game's rules).
    if name == "RULE_REASONS":
        return rule_reasons()
    if name == "REASONS":
        return reasons()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def points(winner: str | None, color: str) -> float:
    """The points of the side playing ``color`` in a game ``winner`` (a record's) won: 1 for a win, 0 for a
    loss, ½ for a game with no winner.  The one rule of every table, format and mark: a game neither agent
    could play (both failed to load) has no winner either, so it is ½ each too; it says nothing about which
    is stronger, so the ratings and the SPRT leave it out (docs/tournament.md, "Points")."""
    return 0.5 if winner is None else float(winner == color)


#: Bound on any error text kept in a record (tracebacks can be huge).
MAX_ERROR_CHARS = 4000


class RecordError(ValueError):
    """A record (JSON) that does not follow the schema."""


def bounded(text: str | None, limit: int = MAX_ERROR_CHARS) -> str | None:
    """Keep the start and the end of a long text, which hold what matters."""
    if text is None or len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + f"\n... [{len(text) - limit} characters cut] ...\n" + text[-half:]


def memory_text(mb: float) -> str:
    """Peak memory above the interpreter's baseline, in MB, as shown to people.

    Records keep it to 0.01 MB.  A small agent's peak is a few hundredths,
    which one decimal showed as "0.0" and read as "not measured"; below
    1 MB it gets two decimals ("0.02"), and a peak under the records'
    resolution reads "< 0.01".
    """
    if mb < 0.005:
        return "< 0.01"
    return f"{mb:.2f}" if mb < 1 else f"{mb:.1f}"


def game_index_of(extra: Any) -> int | None:
    """The tournament game index in a record's ``extra`` (None: not a tournament's game)."""
    index = extra.get("game_index") if isinstance(extra, Mapping) else None
    return index if isinstance(index, int) and not isinstance(index, bool) else None


def _is_seconds(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _check_clocks(clocks: Any) -> None:
    """RecordError unless ``clocks`` is a list of ``[red, blue]`` pairs of seconds (``time_used_after``)."""
    if not isinstance(clocks, (list, tuple)):
        raise RecordError(f"record time_used_after must be a list of [red, blue] pairs, not {type(clocks).__name__}")
    for step, pair in enumerate(clocks, 1):
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and all(_is_seconds(v) for v in pair)):
            raise RecordError(f"record time_used_after[{step - 1}] (after action {step}) must be [red, blue] "
                              f"seconds, not {pair!r}")


def _check_odds(odds: Any) -> None:
    """RecordError unless ``odds`` is null or each side's ``{"time_limit", "space_limit"}`` (seconds, MB or null)."""
    if odds is None:
        return
    shape = 'null or {"RED": {"time_limit": s, "space_limit": mb}, "BLUE": {...}}'
    if not isinstance(odds, Mapping) or set(odds) != set(COLORS):
        raise RecordError(f"record odds must be {shape}, not {odds!r}")
    for color in COLORS:
        side = odds[color]
        if not (isinstance(side, Mapping) and set(side) <= {"time_limit", "space_limit"}
                and all(value is None or _is_seconds(value) for value in side.values())):
            raise RecordError(f"record odds.{color} must be {{\"time_limit\": s, \"space_limit\": mb}}, not {side!r}")


class FrozenDict(dict[str, Any]):
    """A dict that refuses every change.

    Still a ``dict`` (not a read-only proxy), so that ``json.dumps``, ``isinstance(..., dict)`` and pickling
    between processes treat a record's fields as the JSON objects they are.
    """

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a game record cannot be changed; build a new one with dataclasses.replace()")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        return FrozenDict, (dict(self),)


def frozen(value: Any) -> Any:
    """``value`` with every list made a tuple and every dict a :class:`FrozenDict`, all the way down."""
    if isinstance(value, Mapping):
        return FrozenDict({key: frozen(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(frozen(item) for item in value)
    return value


def thawed(value: Any) -> Any:
    """The plain JSON form of a :func:`frozen` value: dicts and lists again, fresh copies."""
    if isinstance(value, Mapping):
        return {key: thawed(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [thawed(item) for item in value]
    return value


@dataclass(frozen=True)
class GameRecord:
    """One finished game.  A value: its lists are tuples and its dicts :class:`FrozenDict`, so a record
    handed to an observer, a table or a report cannot be changed under the others (build a changed
    one with :func:`dataclasses.replace`)."""

    game: str
    red: str
    blue: str
    winner: str | None
    reason: str
    turns: int
    actions: Sequence[str]
    time_used: Mapping[str, float]
    peak_memory_mb: Mapping[str, float]
    error: Mapping[str, Mapping[str, Any] | None]
    moves: Mapping[str, int] = field(default_factory=lambda: {"RED": 0, "BLUE": 0})
    message: str = ""
    red_name: str = ""
    blue_name: str = ""
    game_options: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    time_limit: float | None = None
    space_limit: float | None = None
    started_at: str = ""
    duration: float = 0.0
    referee_version: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)
    sandbox: Mapping[str, Any] | None = None
    chance_seed: str | None = None
    time_used_after: Sequence[Sequence[float]] = ()
    odds: Mapping[str, Mapping[str, float | None]] | None = None
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        # Frozen all the way down: the caller's lists and dicts are copied, never shared.
        for name in _CONTAINER_FIELDS:
            object.__setattr__(self, name, frozen(getattr(self, name)))

    # -- convenience -----------------------------------------------------------

    def name_of(self, color: str) -> str:
        """Display name of the agent playing ``color`` (``"RED"``/``"BLUE"``)."""
        if color == "RED":
            return self.red_name or self.red
        return self.blue_name or self.blue

    def limit_of(self, color: str, name: str) -> float | None:
        """Side ``color``'s ``time_limit`` or ``space_limit`` (``name``), its own in a game at odds; None: none."""
        if self.odds:
            value = (self.odds.get(color) or {}).get(name)
            return float(value) if isinstance(value, (int, float)) and value else None
        value = getattr(self, name)
        return float(value) if value else None

    @property
    def at_odds(self) -> bool:
        """Whether the two sides played under different time or space limits."""
        return bool(self.odds)

    @property
    def game_index(self) -> int | None:
        """The game's index in its tournament's schedule, or None outside a tournament."""
        return game_index_of(self.extra)

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    @property
    def loser(self) -> str | None:
        if self.winner is None:
            return None
        return "BLUE" if self.winner == "RED" else "RED"

    @property
    def forfeit(self) -> bool:
        """Whether the game ended because an agent failed (not by the rules)."""
        return self.reason in AGENT_FAILURE_REASONS

    @property
    def cut_short(self) -> bool:
        """Whether the game ended before the rules ended it: a forfeit, or a game a person resigned or stopped."""
        return self.forfeit or self.reason in PERSON_REASONS

    # -- JSON ----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON values (a fresh copy: changing it changes no record)."""
        return {f.name: thawed(getattr(self, f.name)) for f in fields(self)}

    def to_json(self) -> str:
        """One line of JSON (what ``games.jsonl`` holds, one per game)."""
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameRecord:
        if not isinstance(data, Mapping):
            raise RecordError(f"a record must be a JSON object, not {type(data).__name__}")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise RecordError(f"unsupported record schema_version {version!r} (this referee reads {SCHEMA_VERSION})")
        known = set(cls.__dataclass_fields__)
        required = {
            "game", "red", "blue", "winner", "reason", "turns", "actions", "time_used", "peak_memory_mb", "error"
        }
        missing = sorted(required - set(data))
        if missing:
            raise RecordError(f"record is missing {', '.join(missing)}")
        if data["winner"] not in (None, "RED", "BLUE"):
            raise RecordError(f"record winner must be RED, BLUE or null, not {data['winner']!r}")
        if not isinstance(data["actions"], (list, tuple)) or not all(isinstance(a, str) for a in data["actions"]):
            raise RecordError("record actions must be a list of strings")
        reason = data["reason"]
        if not isinstance(reason, str) or not reason:
            raise RecordError(f"record reason must be a word such as 'elimination', not {reason!r}")
        # (An ``unfinished`` game may have a winner: the page recorded resignations so before ``resignation``.)
        if reason == RESIGNATION and data["winner"] is None:
            raise RecordError("record reason 'resignation' needs a winner (the side that did not resign)")
        _check_clocks(data.get("time_used_after", []))
        _check_odds(data.get("odds"))
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"not JSON: {exc}") from None
        return cls.from_dict(data)


_CONTAINER_FIELDS = ("actions", "time_used", "peak_memory_mb", "error", "moves", "game_options", "extra",
                     "sandbox", "time_used_after", "odds")
