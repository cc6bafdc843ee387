"""Swiss: a few rounds, each pairing agents of similar score so far; each pairing plays a mini-match.

The pairing rules and tie-breaks are :mod:`referee.tournament.formats.pairing`'s (pure
functions).  A Swiss plan is played round by round: round ``r`` holds games
``[r*G, (r+1)*G)`` (G = pairs per round x games_per_pair), and its pairs come
from the results of the rounds before it, so they are the same however often
they are recomputed (on resume, in the record checks).  A bye is no game and
has no record: its score comes from the pairing itself.
"""
from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from . import pairing as swiss
from .base import (
    Column, ConfigFields, Draw, Format, Pairing, Plan, RoundRow, Winners, at_least_three, first_red_points, result_text,
    shared_ranks, winners_of,
)

if TYPE_CHECKING:
    from ...match import AgentEntry
    from ..aggregate import GameSummary, Results


@dataclass(frozen=True)
class Swiss(Format):
    """``rounds``: how many (None: :func:`.swiss.default_rounds` of the final field)."""

    rounds: int | None = None

    name: ClassVar[str] = "swiss"
    title: ClassVar[str] = "Swiss"
    fields: ClassVar[Mapping[str, str]] = {"rounds": ""}
    adaptive: ClassVar[bool] = True
    ranking_rule: ClassVar[str] = (
        "by Swiss score (each mini-match's share of its points, a bye ½), then Buchholz, then "
        "Sonneborn-Berger; agents equal on all three share a rank"
    )

    @classmethod
    def from_config(cls, fields: ConfigFields) -> Swiss:
        def rounds_of() -> int | None:
            if fields.data.get("rounds") is None:
                return None
            number = fields.whole("rounds", minimum=1)
            listed = fields.listed_agents
            if listed is not None:
                # More rounds than a round robin has would force rematches.
                most = listed - 1 if listed % 2 == 0 else listed
                if number > most:
                    raise fields.error(
                        "rounds",
                        f"must be at most {most} for {listed} agents (more would pair agents who already met), "
                        f"not {number}",
                    )
            return number

        return cls(fields.check(rounds_of, None))

    def fit(self, agents: Sequence[AgentEntry], where: Callable[[str], str]) -> Swiss:
        at_least_three(agents, "a Swiss tournament", where)
        return self

    def round_count(self, plan: Plan) -> int:
        return self.rounds if self.rounds is not None else swiss.default_rounds(len(plan.agents))

    def round_games(self, plan: Plan) -> int:
        """Games per round: every pair (the bye aside) plays a mini-match of games_per_pair."""
        return len(plan.agents) // 2 * plan.games_per_pair

    def describe(self, plan: Plan) -> dict[str, Any]:
        return {"rounds": self.round_count(plan)}

    @classmethod
    def in_words(cls, plan: Mapping[str, Any]) -> str:
        n = len(plan.get("agents", []))
        return (
            f"Swiss: {plan.get('rounds')} rounds among the {n} agents, each pairing a mini-match of "
            f"{plan.get('games_per_pair')} games, both colours equally"
        )

    def max_games(self, plan: Plan) -> int:
        return self.round_count(plan) * self.round_games(plan)

    def draw(self, plan: Plan, winners: Winners, memo: dict[str, Any] | None = None) -> SwissDraw:
        return SwissDraw(self, plan, winners)

    def results(self, plan: Plan, results: Results, games: Sequence[GameSummary]) -> Results:
        """A Swiss's standings: a mini-match scores its share of the points (1 for winning both games); a bye has
        no record, so its ``swiss.BYE_SCORE`` comes from the pairing."""
        winners = winners_of(games)
        draw = self.draw(plan, winners)
        names = plan.names
        points = swiss.scores(names, draw.results, draw.byes)
        bh = swiss.buchholz(names, draw.results, draw.byes)
        sb = swiss.sonneborn_berger(names, draw.results, draw.byes)
        order = swiss.standings(names, draw.results, draw.byes)
        columns = (
            Column("Swiss score", {name: f"{points[name]:g}" for name in names}),
            Column("byes", {name: draw.byes.count(name) for name in names}),
            Column("Buchholz", {name: f"{bh[name]:g}" for name in names}),
            Column("Sonneborn-Berger", {name: f"{sb[name]:g}" for name in names}),
        )
        rows = []
        size, per_pair = self.round_games(plan), plan.games_per_pair
        for number, current in enumerate(draw.rounds):
            start = number * size
            for pair, (red, blue) in enumerate(current.pairs):
                indices = tuple(range(start + pair * per_pair, start + (pair + 1) * per_pair))
                rows.append(RoundRow(number + 1, red, blue, result_text(winners, indices), indices))
            if current.bye is not None:
                rows.append(RoundRow(number + 1, current.bye, None, f"bye +{swiss.BYE_SCORE:g}"))
        return replace(
            results, ranking_rule=self.ranking_rule,
            official=shared_ranks([(name, (points[name], bh[name], sb[name])) for name in order]),
            columns=columns, rounds=tuple(rows), rounds_title="Rounds: pairings and results (mini-match points, "
            "Red first; games by index)", rounds_headers=("round", "Red", "Blue"),
        )


class SwissDraw(Draw):
    """The Swiss rounds pairable from the results, the finished mini-matches (first Red, first Blue, first Red's
    share) and the byes of those rounds.

    Round 0 is always paired; round r + 1 once every game of rounds 0..r is in the results.
    """

    def __init__(self, form: Swiss, plan: Plan, winners: Winners):
        self.size = form.round_games(plan)
        self.per_pair = plan.games_per_pair
        self.position = {name: i for i, name in enumerate(plan.names)}
        names = plan.names
        self.rounds: list[swiss.Round] = []
        self.results: list[swiss.Result] = []
        self.byes: list[str] = []
        met: set[frozenset[str]] = set()
        colours = {name: "" for name in names}
        while len(self.rounds) < form.round_count(plan):
            current = swiss.pair_round(names, swiss.scores(names, self.results, self.byes), met, colours, self.byes)
            self.rounds.append(current)
            start = (len(self.rounds) - 1) * self.size
            if current.bye is not None:
                self.byes.append(current.bye)
            complete = True
            for number, (red, blue) in enumerate(current.pairs):
                first = start + number * self.per_pair
                points = first_red_points(winners, range(first, first + self.per_pair))
                if points is None:
                    complete = False
                    continue
                self.results.append((red, blue, points / self.per_pair))
                met.add(frozenset((red, blue)))
                colours[red] += "R"
                colours[blue] += "B"
            if not complete:
                break

    def game(self, index: int) -> Pairing:
        round_number, within = divmod(index, self.size)
        if round_number >= len(self.rounds):
            raise LookupError(
                f"game {index} is in Swiss round {round_number}, which cannot be paired yet: "
                "a game of an earlier round is not recorded"
            )
        number, game = divmod(within, self.per_pair)
        first, second = (self.position[name] for name in self.rounds[round_number].pairs[number])
        # The mini-match alternates colours, the pairing's first Red first.
        red, blue = (first, second) if game % 2 == 0 else (second, first)
        return Pairing(red, blue, round_number, (first, second))

    def covers(self, index: int) -> bool:
        return index // self.size < len(self.rounds)

    def next_games(self, done: Container[int]) -> Iterable[int]:
        for number in range(len(self.rounds)):
            left = tuple(i for i in range(number * self.size, (number + 1) * self.size) if i not in done)
            if left:
                return left
        return ()
