"""Knockout: a seeded single-elimination bracket; each tie a mini-match, level ties play on by pairs of games.

The bracket itself is :mod:`referee.tournament.formats.bracket`'s (pure functions of
the seeds and the results so far).  Each tie owns a fixed block of game
indices and plays the ones it needs, so every game is a function of the
records of lower indices: resume and the record checks work as for the others.
"""
from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from . import bracket as knockout
from .base import (
    Column, Draw, Format, Pairing, Plan, RoundRow, Winners, at_least_three, result_text, winners_of,
)

if TYPE_CHECKING:
    from ...match import AgentEntry
    from ..aggregate import GameSummary, Results


@dataclass(frozen=True)
class Knockout(Format):
    """Seeds are the agents' order in the field; no settings of its own (games_per_pair is each tie's length)."""

    name: ClassVar[str] = "knockout"
    title: ClassVar[str] = "knockout"
    adaptive: ClassVar[bool] = True
    exact_length: ClassVar[bool] = False  # only level ties play their extra games
    ranking_rule: ClassVar[str] = (
        "by the bracket: the winner, the runner-up, then the losers of each earlier round sharing a rank, "
        "listed by seed"
    )

    def fit(self, agents: Sequence[AgentEntry], where: Callable[[str], str]) -> Knockout:
        at_least_three(agents, "a knockout", where)
        return self

    def max_games(self, plan: Plan) -> int:
        # The index space: a bracket plays only the extra games it needs.
        return knockout.total_games(len(plan.agents), plan.games_per_pair)

    @classmethod
    def in_words(cls, plan: Mapping[str, Any]) -> str:
        n = len(plan.get("agents", []))
        return (
            f"knockout: a seeded bracket of the {n} agents, each tie {plan.get('games_per_pair')} games, then up to "
            f"{knockout.EXTRA_PAIRS} extra pairs while level, then the higher seed goes through"
        )

    def draw(self, plan: Plan, winners: Winners, memo: dict[str, Any] | None = None) -> KnockoutDraw:
        return KnockoutDraw(plan, winners)

    def results(self, plan: Plan, results: Results, games: Sequence[GameSummary]) -> Results:
        winners = winners_of(games)
        bracket = self.draw(plan, winners).bracket
        rows = []
        for tie in bracket.ties:
            if tie.low is None:
                rows.append(RoundRow(tie.round + 1, tie.high, None, "bye"))
                continue
            result = result_text(winners, tie.games)
            if tie.on_seed:
                result += f", {tie.high} through as the higher seed"
            rows.append(RoundRow(tie.round + 1, tie.high, tie.low, result, tie.games))
        placed = knockout.placings(plan.names, bracket)
        return replace(
            results, ranking_rule=self.ranking_rule, official=tuple((rank, name) for rank, name, _ in placed),
            columns=(Column("reached", {name: text for _, name, text in placed}),),
            rounds=tuple(rows), rounds_headers=("round", "higher seed", "lower seed"),
            rounds_title="Rounds: pairings and results (each knockout tie, the higher seed's points first; "
            "games by index)",
            notes=(f"Knockout winner: {bracket.champion}.",) if bracket.champion is not None else (),
        )


class KnockoutDraw(Draw):
    """The bracket as far as the results decide it: every game it can play now (a round, or level ties' extra
    games)."""

    def __init__(self, plan: Plan, winners: Winners):
        self.games_per_pair = plan.games_per_pair
        self.position = {name: i for i, name in enumerate(plan.names)}
        self.bracket = knockout.state(plan.names, plan.games_per_pair, winners)

    def game(self, index: int) -> Pairing:
        if index not in self.bracket.games:
            tie = index // knockout.tie_games(self.games_per_pair)
            raise LookupError(
                f"game {index} (of tie block {tie}) is not a game of the knockout so far: its tie does not need it, "
                "or a game it depends on is not recorded"
            )
        red, blue, round_number = self.bracket.games[index]
        high, low = sorted((self.position[red], self.position[blue]))
        return Pairing(self.position[red], self.position[blue], round_number, (high, low))

    def covers(self, index: int) -> bool:
        return index in self.bracket.games

    def next_games(self, done: Container[int]) -> Iterable[int]:
        return tuple(sorted(i for i in self.bracket.games if i not in done))
