"""The one small interface every tournament format implements, and what formats share.

A format is a frozen dataclass whose fields are its own settings (a Swiss's
``rounds``, a ladder's ``games`` and ``batch``); a
:class:`~referee.tournament.schedule.TournamentPlan` holds one.  It answers
the few questions the rest of the tournament asks, and the rest never asks
which format it holds:

* from the config: :meth:`Format.from_config` reads the format's own YAML
  fields (:attr:`Format.fields`), :meth:`Format.fit` checks it against the
  final field of agents;
* the schedule: :meth:`Format.max_games` (the game indices it may use) and
  :meth:`Format.draw`: from the results so far (game index -> winner), each
  game paired so far and the games to play next (none: the event is over);
* the results: :meth:`Format.results` adds its official ranking, its rule
  in one line, the standings columns and the rounds listing only it has.

Game ``k``'s seed and everything else about a game come from the plan, so a
format is a pure function of the plan and the records of lower game indices:
resume and the record checks work alike for every format.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

# A format's tables are built from these (re-exported: everything a format needs is imported from here).
from ..aggregate import Column as Column, GameSummary, Results, RoundRow as RoundRow
from ...records import points
from ..problems import ConfigError

if TYPE_CHECKING:
    from ...match import AgentEntry

T = TypeVar("T")
#: Game index -> "RED", "BLUE" or None (a draw, or both agents failed): what pairing needs of the records.
Winners = Mapping[int, "str | None"]


class Plan(Protocol):
    """What a format reads of the tournament's plan (:class:`~referee.tournament.schedule.TournamentPlan` is
    one).  A protocol, not the class, because the plan holds its format: the two would import each other."""

    @property
    def agents(self) -> Sequence[AgentEntry]: ...

    @property
    def names(self) -> list[str]: ...

    @property
    def games_per_pair(self) -> int: ...

    @property
    def format(self) -> Format: ...

    @property
    def fingerprint(self) -> str:
        """A hash of everything the games depend on (a format may draw its tie-breaks from it)."""


class ConfigFields(Protocol):
    """A config's top-level fields, as :meth:`Format.from_config` reads its own: each problem names its line."""

    #: The config's top-level mapping.
    data: Mapping[str, Any]
    #: How many agents the config names, when it discovers none (else only the lineup knows).
    listed_agents: int | None

    def error(self, name: str, message: str) -> ConfigError:
        """The problem ``message`` about field ``name``, at its line (to raise)."""

    def note(self, name: str, message: str) -> None:
        """Note the problem and go on, so that one run reports every problem."""

    def whole(self, name: str, minimum: int | None = None) -> int:
        """Field ``name`` as a whole number of at least ``minimum``; raises :class:`ConfigError`."""

    def check(self, check: Callable[[], T], fallback: T) -> T:
        """``check()``, or ``fallback`` after noting the :class:`ConfigError` it raised."""


@dataclass(frozen=True)
class Pairing:
    """One game of the schedule: who plays Red and Blue (agent positions in the plan), in which round, and the
    pairing it belongs to as records name it (``extra.pairing``: the mini-match's first Red first)."""

    red: int
    blue: int
    round: int
    pairing: tuple[int, int]


class Draw(ABC):
    """What the results so far pair: every game known so far, and which to play next."""

    @abstractmethod
    def game(self, index: int) -> Pairing:
        """Game ``index``; LookupError (saying why, for the record checks) if the results do not pair it yet."""

    @abstractmethod
    def covers(self, index: int) -> bool:
        """Whether game ``index`` is paired (else more results are needed, or it is never played)."""

    @abstractmethod
    def next_games(self, done: Container[int]) -> Iterable[int]:
        """The games to play now, none of them in ``done``; empty when the event is over (or waits on results)."""


class Format(ABC):
    """A tournament format (see the module's docstring); subclasses are frozen dataclasses of their settings."""

    #: The config's ``format:`` value, and the format's name in a sentence ("round robin"; "": the name).
    name: ClassVar[str]
    title: ClassVar[str] = ""
    #: The format's own top-level YAML fields -> what another format's config is told of one (may be "").
    fields: ClassVar[Mapping[str, str]] = {}
    #: Whether games are paired from the results of earlier ones (played round by round; a changed agent's
    #: later rounds are played again).
    adaptive: ClassVar[bool] = False
    #: Whether :meth:`max_games` games are all played (else it is the most the event may take).
    exact_length: ClassVar[bool] = True
    #: The official ranking, in one line (after "Official ranking: "), of a format that orders its agents itself
    #: (:attr:`Results.official`: Swiss, knockout).  The others are ranked by points where the games compare the
    #: agents, else by Elo: their standings name the one of those rules that placed them
    #: (:meth:`Results.order_rule`).
    ranking_rule: ClassVar[str] = ""
    #: Why points never compare this format's agents (a gauntlet's challenger plays every game), said with the Elo
    #: rule; "": they do, once every agent has played as many games (a round robin).
    unequal_because: ClassVar[str] = ""

    # -- the config ----------------------------------------------------------------

    @classmethod
    def from_config(cls, fields: ConfigFields) -> Format:
        """The format with its settings from the config's fields; problems are noted on ``fields``."""
        return cls()

    def fit(self, agents: Sequence[AgentEntry], where: Callable[[str], str]) -> Format:
        """The format for this final field of agents; raises :class:`ConfigError` if it cannot run with them.

        ``where(field)``: ``file:line: field`` of a top-level field, for messages.
        """
        return self

    def describe(self, plan: Plan) -> dict[str, Any]:
        """The format's settings as plain data, after the shared ones in ``tournament.json`` (and the fingerprint)."""
        return {}

    def challenger_of(self, plan: Plan) -> int | None:
        """The agent that plays every game, if the format has one (``tournament.json`` names it)."""
        return None

    def tested(self, plan: Plan) -> int:
        """Whose side a two-agent match and its SPRT are seen from: the challenger, else the first agent."""
        challenger = self.challenger_of(plan)
        return 0 if challenger is None else challenger

    @classmethod
    def in_words(cls, plan: Mapping[str, Any]) -> str:
        """How the games were paired, for the report's "How it was played" (``plan``: as ``tournament.json`` has it)."""
        return cls.name

    # -- the schedule ----------------------------------------------------------------

    @abstractmethod
    def max_games(self, plan: Plan) -> int:
        """The game indices the format may use, 0 to max_games - 1 (all played when :attr:`exact_length`)."""

    @abstractmethod
    def draw(self, plan: Plan, winners: Winners, memo: dict[str, Any] | None = None) -> Draw:
        """What ``winners`` (the results so far) pair; ``memo``: a cache kept between calls of one run, if any."""

    # -- the results -------------------------------------------------------------------

    def results(self, plan: Plan, results: Results, games: Sequence[GameSummary]) -> Results:
        """``results`` with what the format adds: the rule its standings are ranked by, an official order
        (:attr:`Results.official`), columns and a rounds listing; a function of the records (``games``) alone.

        By default no order of its own: the rule is the one of points or Elo the games call for."""
        return replace(results, ranking_rule=results.order_rule(self.unequal_because))


def winners_of(games: Iterable[GameSummary]) -> dict[int, str | None]:
    """Game index -> winner of the records (what pairing reads of them)."""
    return {game.index: game.winner for game in games if game.index is not None}


def first_red_points(winners: Winners, games: Sequence[int]) -> float | None:
    """The points of a mini-match's first Red (Red in its even games, colours alternating), None until every game
    is in ``winners``.  Each game's points are :func:`referee.records.points`'s (a game without a winner ½ each)."""
    if any(index not in winners for index in games):
        return None
    return sum(points(winners[index], "RED" if number % 2 == 0 else "BLUE") for number, index in enumerate(games))


def result_text(winners: Winners, games: Sequence[int]) -> str:
    """A mini-match's result as the rounds listing shows it: "1.5-0.5" (first Red first), or how far it got."""
    played = sum(index in winners for index in games)
    if not played:
        return "not played"
    points = first_red_points(winners, games)
    if points is None:
        return f"{played} of {len(games)} played"
    return f"{points:g}-{len(games) - points:g}"


def shared_ranks(order: Sequence[tuple[str, object]]) -> tuple[tuple[int, str], ...]:
    """(rank, name) for names in order, each with what ranks it: equals share the rank of the first of them."""
    ranked: list[tuple[int, str]] = []
    for position, (name, key) in enumerate(order, start=1):
        shares = bool(ranked) and order[position - 2][1] == key
        ranked.append((ranked[-1][0] if shares else position, name))
    return tuple(ranked)


def at_least_three(agents: Sequence[AgentEntry], kind: str, where: Callable[[str], str]) -> None:
    """Refuse a field of two for a format paired from results: two agents have one pairing."""
    if len(agents) < 3:
        raise ConfigError(
            f"{where('format')}: {kind} needs at least three agents; {len(agents)} can play "
            "(for two, use format: round_robin)"
        )


class EveryPairing(Format):
    """A fixed list of pairings, every one played ``games_per_pair`` times (round robin, gauntlet).

    Game ``k`` is round ``k // P`` of pairing ``k % P`` (P pairings): every
    pairing plays once per round, so any prefix of the schedule is balanced,
    and the colours swap every round, so each pairing plays both colours equally.
    """

    @abstractmethod
    def pairing_count(self, plan: Plan) -> int:
        """How many pairings."""

    @abstractmethod
    def pairing(self, plan: Plan, number: int) -> tuple[int, int]:
        """Pairing ``number`` as agent positions (its first plays Red in even rounds), without listing the others."""

    def max_games(self, plan: Plan) -> int:
        return self.pairing_count(plan) * plan.games_per_pair

    def draw(self, plan: Plan, winners: Winners, memo: dict[str, Any] | None = None) -> Draw:
        return _EveryPairingDraw(self, plan)


class _EveryPairingDraw(Draw):
    """Every game is known from the start: the results change nothing."""

    def __init__(self, form: EveryPairing, plan: Plan):
        self.form, self.plan = form, plan
        self.count = form.pairing_count(plan)
        self.total = self.count * plan.games_per_pair

    def game(self, index: int) -> Pairing:
        round_number, number = divmod(index, self.count)
        first, second = self.form.pairing(self.plan, number)
        red, blue = (first, second) if round_number % 2 == 0 else (second, first)
        return Pairing(red, blue, round_number, (first, second))

    def covers(self, index: int) -> bool:
        return 0 <= index < self.total

    def next_games(self, done: Container[int]) -> Iterable[int]:
        return (index for index in range(self.total) if index not in done)  # lazy: a class's schedule is long
