"""Tournament results as a pure function of game records.

Nothing here reads clocks, the config or the schedule: the same records, in
any order, give the same :class:`Results`.  A game recorded twice (a merged
or repeated run; same config hash and game index) counts once.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from typing import Any, TypeVar
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..games import GAMES, registration
from ..hosting.failures import AGENT_FAILURE_REASONS, FAILURE_COLUMNS
from ..hosting.sandbox import Sandbox
from ..limits import limits_text
from ..records import COLORS, GameRecord, points
from .ratings import HeadToHead, PairedMatch, Rating, RatingFit, bradley_terry, head_to_head, pentanomial
from .sprt import SprtResult, SprtSettings, log_likelihood_ratio, pentanomial_llr, sprt_result

T = TypeVar("T")


def _per_color(value: Callable[[str], T]) -> tuple[T, T]:
    """``value`` of Red, then of Blue."""
    return value(COLORS[0]), value(COLORS[1])


#: A record's ``sandbox`` of before sandboxes were recorded.
NO_SANDBOX_RECORDED = "not recorded (a referee from before sandboxes)"


def sandbox_text(recorded: Mapping[str, Any] | None) -> str:
    """What a record's ``sandbox`` says the agents ran under, in the referee's own words."""
    if not recorded:
        return NO_SANDBOX_RECORDED
    return _sandbox_words(tuple(sorted((k, v) for k, v in recorded.items() if k in _SANDBOX_FIELDS)))


_SANDBOX_FIELDS = {f.name for f in fields(Sandbox)}


@lru_cache(maxsize=64)
def _sandbox_words(items: tuple[tuple[str, Any], ...]) -> str:
    # A handful of distinct values in a whole tournament: described once each.
    return Sandbox(**dict(items)).describe()


def _code_hash(extra: Mapping[str, Any], name: str) -> str | None:
    """The fingerprint a record gives for agent ``name`` (None: none, or not a string)."""
    codes = extra.get("code_hash")
    code = codes.get(name) if isinstance(codes, dict) else None
    return code if isinstance(code, str) else None


OPPONENT_FAILED = "opponent failed"
#: ``GameSummary.failed`` of a game in which both agents failed (to load): no
#: winner, so ½ each (:func:`referee.records.points`), and left out of every
#: rating and of the SPRT.
BOTH = "BOTH"


@dataclass(frozen=True)
class GameSummary:
    """What aggregation needs of one record (small: no action list)."""

    red: str
    blue: str
    winner: str | None  # "RED", "BLUE" or None
    reason: str
    failed: str | None  # the colour whose failure ended the game, or BOTH
    moves: tuple[int, int]
    cpu: tuple[float, float]
    memory: tuple[float, float]
    config_hash: str | None = None
    index: int | None = None
    #: Whether the agents ran sealed (namespaces, frozen between calls).
    sealed: bool = False
    #: The schedule's round (``extra.round``): rounds 2r and 2r+1 of a pairing swap colours.
    round: int | None = None
    #: Red's and Blue's code fingerprints (``extra.code_hash``; None: not recorded).
    code: tuple[str | None, str | None] = (None, None)
    #: The referee version that played it, what its agents ran under (in words), when it started and how long.
    version: str = ""
    sandbox: str = ""
    started_at: str = ""
    duration: float = 0.0
    #: Red's and Blue's limits in words (:func:`~referee.limits.limits_text`): who played at which odds.
    limits: tuple[str, str] = ("", "")

    @classmethod
    def of(cls, record: GameRecord) -> GameSummary:
        failed = None
        if record.reason in AGENT_FAILURE_REASONS:
            failed = record.loser or next((c for c in COLORS if record.error.get(c)), None)
            if record.winner is None and all(record.error.get(c) for c in COLORS):
                failed = BOTH  # neither agent could be loaded: no winner, and nothing said of strength
        extra = record.extra or {}
        return cls(
            red=record.name_of("RED"),
            blue=record.name_of("BLUE"),
            winner=record.winner,
            reason=record.reason,
            failed=failed,
            moves=_per_color(lambda c: int(record.moves.get(c, 0))),
            cpu=_per_color(lambda c: float(record.time_used.get(c, 0.0))),
            memory=_per_color(lambda c: float(record.peak_memory_mb.get(c, 0.0))),
            config_hash=extra.get("config_hash"),
            index=record.game_index,
            sealed=bool(record.sandbox and record.sandbox.get("namespaces") and record.sandbox.get("frozen")),
            round=extra.get("round"),
            code=_per_color(lambda c: _code_hash(extra, record.name_of(c))),
            version=record.referee_version,
            sandbox=sandbox_text(record.sandbox),
            started_at=record.started_at,
            duration=record.duration,
            limits=_per_color(
                lambda c: limits_text(record.limit_of(c, "time_limit"), record.limit_of(c, "space_limit"))
            ),
        )

    @property
    def rated(self) -> bool:
        """Whether the game says who is stronger: not when both agents failed.

        Such a game (neither agent could be loaded) is ½ each, as any game
        without a winner, but no result between them: it stays out of the
        ratings, the two-agent statistics and the SPRT.
        """
        return self.failed != BOTH

    def points(self, color: str) -> float:
        """The score of the agent playing ``color`` (:func:`referee.records.points`)."""
        return points(self.winner, color)


@dataclass
class Tally:
    """Wins, draws and losses as games come in: from ``tested``'s side (a two-agent match, its SPRT), else Red's.

    The one count of the SPRT: the live one of a run and the final one of the tables.
    """

    tested: str | None
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, game: GameSummary) -> bool:
        """Count ``game``; False if it says nothing of who is stronger (both failed, or an agent against itself)."""
        if not game.rated or game.red == game.blue:
            return False
        if game.winner is None:
            self.draws += 1
        elif self.tested is None:
            self.wins += game.winner == "RED"
            self.losses += game.winner == "BLUE"
        elif (game.winner == "RED") == (game.red == self.tested):
            self.wins += 1
        else:
            self.losses += 1
        return True

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def counts(self) -> tuple[int, int, int]:
        """(wins, draws, losses)."""
        return self.wins, self.draws, self.losses

    def describe(self) -> str:
        label = f"{self.tested} W/D/L" if self.tested else "Red/draw/Blue"
        return f"{label} {self.wins}/{self.draws}/{self.losses}"


@dataclass
class AgentTotals:
    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    endings: Counter = field(default_factory=Counter)
    cpu: list[float] = field(default_factory=list)
    moves: int = 0
    peak_memory_mb: float = 0.0
    #: The code fingerprints its games were played with (one, unless records of other code were kept).
    code: Counter = field(default_factory=Counter)
    #: The limits it played under, in words (one: an agent's games at other limits count as another agent).
    limits: str = ""

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def cpu_per_move(self) -> float | None:
        return math.fsum(self.cpu) / self.moves if self.moves else None


@dataclass
class PairTotals:
    """One agent's results against one opponent, overall and by colour."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    as_red: Counter = field(default_factory=Counter)  # "W"/"D"/"L" -> n
    as_blue: Counter = field(default_factory=Counter)
    #: Games both agents failed: in ``draws`` of both sides (no winner), in no rating.
    both_failed: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def rated(self) -> tuple[int, int, int]:
        """Wins, draws and losses of the games that enter the ratings."""
        return self.wins, self.draws - self.both_failed, self.losses


@dataclass(frozen=True)
class RoundRow:
    """One line of the rounds listing: a pairing (first Red, first Blue) and its result, or a bye."""

    round: int  # from 1, as listed (records count from 0)
    red: str
    blue: str | None  # None: ``red`` has the bye
    result: str  # Red's points - Blue's points, or "not played", "1 of 2 played", "bye +0.5"
    games: tuple[int, ...] = ()  # the game indices of the pairing


@dataclass(frozen=True)
class Column:
    """A standings column only a format has (a Swiss's score, a knockout's round reached): a value per agent."""

    header: str
    values: Mapping[str, object]


@dataclass(frozen=True)
class Results:
    games: int
    agents: Mapping[str, AgentTotals]
    pairs: Mapping[tuple[str, str], PairTotals]  # (agent, opponent), both orders
    ratings: RatingFit
    head_to_head: HeadToHead | None  # exactly two agents: the first (by name or `tested`) vs the other
    tested: str | None  # whose side head_to_head and sprt take
    sprt: SprtResult | None
    sprt_trajectory: tuple[tuple[int, int | None, float], ...]  # (games, game index, LLR) in index order
    ending_columns: tuple[str, ...]
    #: Games whose agents ran unsealed: an agent could have tampered with them.
    unsealed: int = 0
    #: Two agents whose games came in colour-swapped pairs: the pentanomial statistics.
    paired: PairedMatch | None = None
    #: Rated games of a two-agent match outside any complete pair (left out of ``paired``).
    unpaired: int = 0
    #: A format paired from results: its rounds (batches, ties), each pairing with its result (see
    #: :class:`RoundRow`), the listing's title and its first three headers (the round, the two sides).
    rounds: tuple[RoundRow, ...] = ()
    rounds_title: str = ""
    rounds_headers: tuple[str, ...] = ("round", "Red", "Blue")
    #: Games by the referee version that played them, and by what their agents ran under (in words).
    versions: Mapping[str, int] = field(default_factory=dict)
    sandboxes: Mapping[str, int] = field(default_factory=dict)
    #: When the games were played: the first start and the last end (UTC, ISO 8601); None if not recorded.
    period: tuple[str, str] | None = None
    #: The one rule the standings were ranked by, in one line, as the format says it (:meth:`order_rule` when it
    #: has no order of its own); "" for records of no known plan.
    ranking_rule: str = ""
    #: (rank, agent) when the format ranks by something else than the games' points or Elo (Swiss, knockout).
    official: tuple[tuple[int, str], ...] = ()
    #: Standings columns only the format has (a Swiss's score and tie-breaks, how far a knockout's agents got).
    columns: tuple[Column, ...] = ()
    #: Lines the format adds to the summary (a knockout's winner).
    notes: tuple[str, ...] = ()

    @property
    def ranked_by(self) -> str:
        """What the standings are sorted by: "points", "Elo" or "score".

        Points only compare agents that played as many games (a complete
        round robin, a two-agent match), where they order agents as the
        ratings do.  Otherwise (a gauntlet, an unfinished run) an agent that
        played more games would gather more points however it played, and
        where the pairings followed the results (Swiss, ladder, knockout:
        ``rounds``) equal games still mean opponents of other strengths; so
        the rating decides, or the score % when there are no ratings.
        """
        if len({agent.games for agent in self.agents.values()}) <= 1 and not self.rounds:
            return "points"
        return "Elo" if self.ratings.ratings else "score"

    def order_rule(self, why: str = "") -> str:
        """The rule :meth:`ranking` sorts by without an :attr:`official` order (:attr:`ranked_by`), in one line.

        ``why``: why points do not rank these agents (the format's reason); by
        default the numbers of games the agents played, or the pairings having
        followed the results.  Only the rule used is named, never "by points;
        else by Elo": a reader must know which one placed the agents.
        """
        by = self.ranked_by
        if by == "points":
            return "by points (win 1, draw ½), equal points sharing a rank, listed by Elo then name"
        if not why:
            games = sorted({agent.games for agent in self.agents.values()})
            why = (
                "the pairings followed the results: agents met opponents of different strengths, so points do not "
                "compare them" if self.rounds else
                f"the agents have played different numbers of games ({games[0]} to {games[-1]}), so points do not "
                "compare them"
            )
        if by == "Elo":
            return f"by Elo (the joint fit of every game), then score %, then name: {why}"
        return f"by score %, then name (no ratings: the games do not connect the agents): {why}"

    def ranking(self) -> list[tuple[int, AgentTotals]]:
        """(rank, agent), best first; agents equal on what ranks them share a rank.

        The format's :attr:`official` order when it has one; else:

        By points: equal points share a rank, listed by Elo then name.  By Elo:
        Elo as shown (to 0.1, so that ratings equal but for rounding tie), then
        score %, then name; unrated agents last.  By score: score %, then name.
        """
        if self.official:  # the format's own order; an agent without a game yet (a bye, say) is listed all the same
            return [(rank, self.agents.get(name) or AgentTotals(name)) for rank, name in self.official]
        ratings, by = self.ratings.ratings, self.ranked_by

        def rank_key(agent: AgentTotals) -> tuple:
            if by == "points":
                return (-agent.points,)
            if by == "score":
                return (-agent.score,)
            rating = ratings.get(agent.name)
            return (rating is None, -round(rating.elo, 1) if rating else 0.0, -agent.score)

        def sort_key(agent: AgentTotals) -> tuple:
            rating = ratings.get(agent.name)
            elo = -(rating.elo if rating else 0.0) if by == "points" else 0.0
            return (*rank_key(agent), elo, agent.name)

        ranked: list[tuple[int, AgentTotals]] = []
        for position, agent in enumerate(sorted(self.agents.values(), key=sort_key), start=1):
            shares = bool(ranked) and rank_key(ranked[-1][1]) == rank_key(agent)
            ranked.append((ranked[-1][0] if shares else position, agent))
        return ranked

    def standings(self) -> list[AgentTotals]:
        """The agents in rank order (see :meth:`ranking`)."""
        return [agent for _, agent in self.ranking()]


def one_per_game(games: Iterable[GameSummary]) -> list[GameSummary]:
    """The first summary of each game index, in order (records of one plan that agree, e.g. after a merge)."""
    seen: set[int | None] = set()
    kept = []
    for game in games:
        if game.index is None or game.index not in seen:
            seen.add(game.index)
            kept.append(game)
    return kept


def _apart_by_limits(games: list[GameSummary]) -> list[GameSummary]:
    """The games with each agent that played under more than one set of limits named apart by them
    (``mcts [18 s CPU, 250 MB]``): its games at other odds are another agent's, never mixed into one rating."""
    seen: dict[str, set[str]] = defaultdict(set)
    for game in games:
        for name, limits in zip((game.red, game.blue), game.limits):
            seen[name].add(limits)
    mixed = {name for name, limits in seen.items() if len(limits) > 1}
    if not mixed:
        return games

    def named(name: str, limits: str) -> str:
        return f"{name} [{limits}]" if name in mixed else name

    return [replace(g, red=named(g.red, g.limits[0]), blue=named(g.blue, g.limits[1])) for g in games]


def _deduplicate(games: Iterable[GameSummary]) -> list[GameSummary]:
    """One summary per (config hash, game index); the choice does not depend on order."""
    keyed: dict[tuple[str, int], GameSummary] = {}
    loose: list[GameSummary] = []
    for game in games:
        if game.config_hash is None or game.index is None:
            loose.append(game)
            continue
        key = (game.config_hash, game.index)
        kept = keyed.get(key)
        if kept is None or repr(game) < repr(kept):
            keyed[key] = game
    return [keyed[k] for k in sorted(keyed)] + sorted(loose, key=repr)


def _pair_scores(games: list[GameSummary], first: str) -> tuple[int, int, int, int, int]:
    """How many colour-swapped pairs ``first`` scored 0, 1/2, 1, 1 1/2 and 2 points in.

    Rounds 2r and 2r+1 of a two-agent schedule (same config) are a pair when
    both are recorded and ``first`` had each colour once; other games are in
    no pair.
    """
    halves: dict[tuple[str | None, int], dict[int, tuple[str, float]]] = defaultdict(dict)
    for game in games:
        if game.round is not None:
            color = "RED" if game.red == first else "BLUE"
            halves[(game.config_hash, game.round // 2)][game.round % 2] = (color, game.points(color))
    counts = [0] * 5
    for pair in halves.values():
        if len(pair) == 2 and pair[0][0] != pair[1][0]:
            counts[round(2 * (pair[0][1] + pair[1][1]))] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def _ending_columns(reasons: set[str]) -> tuple[str, ...]:
    """The rules' endings in the order the games are registered, then the failures (columns of FAILURES)."""
    rules: list[str] = []
    left = set(reasons)
    for name in GAMES:
        if not left:
            break  # the later games' rules are not imported for nothing (Infinitron's: 0.1 s a tournament)
        for reason in registration(name).game_class().reasons:
            if reason in left:
                rules.append(reason)
                left.discard(reason)
    rules += sorted(left)
    failures = list(dict.fromkeys(FAILURE_COLUMNS.values()))
    return (*rules, *failures, OPPONENT_FAILED)


def aggregate(
    games: Iterable[GameSummary | GameRecord],
    sprt: SprtSettings | None = None,
    tested: str | None = None,
    games_left: bool = False,
) -> Results:
    """Tables, ratings and (given ``sprt``) the test, from the games alone.

    ``tested`` names the agent whose side a two-agent match is seen from
    (default: the first by name); ``games_left`` says whether the schedule has
    more games, which decides between "running" and "inconclusive".
    """
    summaries = _apart_by_limits(_deduplicate(g if isinstance(g, GameSummary) else GameSummary.of(g) for g in games))
    agents: dict[str, AgentTotals] = {}
    pairs: dict[tuple[str, str], PairTotals] = defaultdict(PairTotals)
    for game in summaries:
        if game.red == game.blue:
            continue  # an agent against itself says nothing about its standing
        for side, color in enumerate(COLORS):
            name, opponent = (game.red, game.blue) if side == 0 else (game.blue, game.red)
            totals = agents.setdefault(name, AgentTotals(name, limits=game.limits[side]))
            pair = pairs[(name, opponent)]
            letter = "D" if game.winner is None else ("W" if game.winner == color else "L")
            if not game.rated:
                pair.both_failed += 1
            totals.games += 1
            if letter == "W":
                totals.wins += 1
                pair.wins += 1
            elif letter == "D":
                totals.draws += 1
                pair.draws += 1
            else:
                totals.losses += 1
                pair.losses += 1
            (pair.as_red if side == 0 else pair.as_blue)[letter] += 1
            if game.failed is None:
                totals.endings[game.reason] += 1
            elif game.failed in (color, BOTH):
                totals.endings[FAILURE_COLUMNS.get(game.reason, "error")] += 1
            else:
                totals.endings[OPPONENT_FAILED] += 1
            totals.cpu.append(game.cpu[side])
            totals.moves += game.moves[side]
            totals.peak_memory_mb = max(totals.peak_memory_mb, game.memory[side])
            if game.code[side] is not None:
                totals.code[game.code[side]] += 1

    names = sorted(agents)
    match = None
    if len(names) == 2:
        first = tested if tested in agents else names[0]
        second = names[1] if first == names[0] else names[0]
        match = head_to_head(*pairs[(first, second)].rated)
        if match is None:
            ratings = RatingFit({}, note="no game between the two agents says which is stronger (both failed in each)")
        else:
            half = None if match.ci95 is None else match.ci95 / 2
            ratings = RatingFit(
                {first: Rating(match.elo / 2, half), second: Rating(-match.elo / 2, half)},
                match.regularised,
                "one virtual draw was added, since one agent scored every point" if match.regularised else "",
            )
    else:
        first = ""  # only the two-agent figures below use it
        rated = {(a, b): pairs[(a, b)].rated for a in names for b in names if a < b and (a, b) in pairs}
        rated = {key: wdl for key, wdl in rated.items() if sum(wdl)}
        # Only agents with a rated game can be placed on the scale.
        ratings = bradley_terry(sorted({name for key in rated for name in key}), rated)

    paired, unpaired = None, 0
    if len(names) == 2:
        match_games = [g for g in summaries if first in (g.red, g.blue) and g.red != g.blue and g.rated]
        counts = _pair_scores(match_games, first)
        paired = pentanomial(counts)
        unpaired = len(match_games) - 2 * sum(counts)

    sprt_state = None
    trajectory: tuple[tuple[int, int | None, float], ...] = ()
    if sprt is not None and len(names) == 2:
        steps = []
        tally = Tally(first)
        for game in summaries:
            if first in (game.red, game.blue) and tally.add(game):
                steps.append((tally.games, game.index, log_likelihood_ratio(*tally.counts, sprt.elo0, sprt.elo1)))
        trajectory = tuple(steps)
        sprt_state = sprt_result(*tally.counts, sprt, games_left)
        if paired is not None:
            sprt_state = replace(
                sprt_state, pentanomial_llr=pentanomial_llr(paired.counts, sprt.elo0, sprt.elo1), pairs=paired.pairs
            )

    played = [g for g in summaries if g.red != g.blue]
    return Results(
        games=len(played),
        agents=agents,
        pairs=dict(pairs),
        ratings=ratings,
        head_to_head=match,
        tested=first if len(names) == 2 else None,
        sprt=sprt_state,
        sprt_trajectory=trajectory,
        ending_columns=_ending_columns({g.reason for g in summaries if g.failed is None and g.red != g.blue}),
        unsealed=sum(1 for g in played if not g.sealed),
        paired=paired,
        unpaired=unpaired,
        versions=dict(Counter(g.version or "unknown" for g in played)),
        sandboxes=dict(Counter(g.sandbox for g in played)),
        period=_period(played),
    )


def _period(games: Sequence[GameSummary]) -> tuple[str, str] | None:
    """The first start and the last end of ``games`` (UTC, to the second), from their records."""
    spans = []
    for game in games:
        try:
            start = datetime.fromisoformat(game.started_at)
        except ValueError:
            continue  # a record without a start time
        start = start if start.tzinfo else start.replace(tzinfo=timezone.utc)  # records say UTC
        spans.append((start, start + timedelta(seconds=game.duration)))
    if not spans:
        return None
    first, last = min(s for s, _ in spans), max(e for _, e in spans)
    return first.isoformat(timespec="seconds"), last.isoformat(timespec="seconds")
