"""Ladder: a budget of single games, in batches paired from the joint rating of every game so far.

A ladder plan is played in batches of B single games (B = ``batch``, at most
one game per agent): batch ``b`` holds games ``[b*B, (b+1)*B)`` (the last one
what is left of the ``games`` budget), paired by :func:`.swiss.ladder_pairs`
from the joint rating of every game of the batches before it
(:func:`ladder_state`), so every game is a function of the records of lower
game indices.
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Collection, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from . import pairing as swiss
from ..problems import ConfigError
from ..ratings import bradley_terry
from .base import (
    ConfigFields, Draw, Format, Pairing, Plan, RoundRow, Winners, at_least_three, first_red_points, result_text,
    winners_of,
)

if TYPE_CHECKING:
    from ...match import AgentEntry
    from ..aggregate import GameSummary, Results


@dataclass(frozen=True)
class Ladder(Format):
    """``budget``: the games to play (the config's ``games``); ``batch``: games per batch (None, or more than fit:
    half the field)."""

    budget: int = 0
    batch: int | None = None

    name: ClassVar[str] = "ladder"
    title: ClassVar[str] = "ladder"
    fields: ClassVar[Mapping[str, str]] = {"games": "its budget of games", "batch": ""}
    adaptive: ClassVar[bool] = True
    unequal_because: ClassVar[str] = (
        "the ladder pairs agents by their results, and they play different numbers of games, so points do not "
        "compare them"
    )

    @classmethod
    def from_config(cls, fields: ConfigFields) -> Ladder:
        data = fields.data

        def games_of() -> int:
            if data.get("games") is None:
                raise fields.error("games" if "games" in data else "format",
                                   "a ladder needs 'games': how many games to play in all (its budget)")
            return fields.whole("games", minimum=1)

        def batch_of() -> int | None:
            if "batch" not in data:
                return None
            number = fields.whole("batch", minimum=1)
            listed = fields.listed_agents
            if listed is not None and number > listed // 2:
                raise fields.error(
                    "batch",
                    f"must be at most {listed // 2} for {listed} agents (each agent plays at most once a batch), "
                    f"not {number}",
                )
            return number

        budget = fields.check(games_of, 0)
        batch = fields.check(batch_of, None)
        if "games_per_pair" in data:
            fields.note("games_per_pair", "games_per_pair is not used by format: ladder (each pairing it makes is one "
                        "game)")
        return cls(budget, batch)

    def fit(self, agents: Sequence[AgentEntry], where: Callable[[str], str]) -> Ladder:
        at_least_three(agents, "a ladder", where)
        if self.batch is not None and self.batch > len(agents) // 2:
            # Only known now when agents are discovered: each agent plays at most once a batch.
            raise ConfigError(
                f"{where('batch')}: must be at most {len(agents) // 2} for the {len(agents)} agents that can play "
                f"(each agent plays at most once a batch), not {self.batch}"
            )
        return self

    def round_games(self, plan: Plan) -> int:
        """Games per batch."""
        most = len(plan.agents) // 2
        return min(self.batch, most) if self.batch else most

    def round_count(self, plan: Plan) -> int:
        return math.ceil(self.budget / self.round_games(plan))

    def max_games(self, plan: Plan) -> int:
        return self.budget

    def describe(self, plan: Plan) -> dict[str, Any]:
        return {"games": self.budget, "batch": self.round_games(plan)}

    @classmethod
    def in_words(cls, plan: Mapping[str, Any]) -> str:
        n = len(plan.get("agents", []))
        return (
            f"ladder: a budget of {plan.get('games')} games among the {n} agents, in batches of "
            f"{plan.get('batch')}, each paired from the ratings so far"
        )

    def draw(self, plan: Plan, winners: Winners, memo: dict[str, Any] | None = None) -> LadderDraw:
        return LadderDraw(self, plan, winners, memo)

    def results(self, plan: Plan, results: Results, games: Sequence[GameSummary]) -> Results:
        winners = winners_of(games)
        draw = self.draw(plan, winners)
        rows = []
        for number, current in enumerate(draw.rounds):
            start = number * draw.size
            for pair, (red, blue) in enumerate(current.pairs):
                indices = (start + pair,)
                rows.append(RoundRow(number + 1, red, blue, result_text(winners, indices), indices))
        listed = replace(
            results, rounds=tuple(rows),
            rounds_title="Batches: pairings and results (Red's points - Blue's; games by index)",
            rounds_headers=("batch", "Red", "Blue"),
        )
        return replace(listed, ranking_rule=listed.order_rule(self.unequal_because))  # by Elo, or by score % unrated


class LadderDraw(Draw):
    """The batches :func:`ladder_state` pairs from the results so far."""

    def __init__(self, form: Ladder, plan: Plan, winners: Winners, memo: LadderMemo | None):
        self.size = form.round_games(plan)
        self.total = form.max_games(plan)
        self.position = {name: i for i, name in enumerate(plan.names)}
        self.rounds, self.results = ladder_state(plan, winners, memo)

    def game(self, index: int) -> Pairing:
        batch, number = divmod(index, self.size)
        if batch >= len(self.rounds):
            raise LookupError(
                f"game {index} is in ladder batch {batch}, which cannot be paired yet: "
                "a game of an earlier batch is not recorded"
            )
        red, blue = (self.position[name] for name in self.rounds[batch].pairs[number])
        return Pairing(red, blue, batch, (red, blue))

    def covers(self, index: int) -> bool:
        return index // self.size < len(self.rounds)

    def next_games(self, done: Container[int]) -> Iterable[int]:
        for number in range(len(self.rounds)):
            span = range(number * self.size, min((number + 1) * self.size, self.total))
            left = tuple(i for i in span if i not in done)
            if left:
                return left
        return ()


#: A ladder's rating spread (Elo) of an agent the joint fit cannot place yet, shrunk as 1/sqrt(games + 1).
UNPLACED_SPREAD = 800.0
#: Decimals of Elo the ladder pairs on (the fit converges to about 1e-8 Elo).
RATING_DIGITS = 6

#: Batch pairings already computed, by a digest of every result before the batch (see :func:`ladder_state`).
LadderMemo = dict[str, tuple[tuple[str, str], ...]]


def _ladder_ratings(names: Sequence[str], tally: Mapping[tuple[str, str], list[int]],
                    played: Mapping[str, int]) -> tuple[dict[str, tuple[float, float]], bool]:
    """(Elo, uncertainty) per agent for :func:`.swiss.ladder_pairs`: the joint fit and its 95% half-width; and
    whether the fit placed the agents on one scale.

    Until the games connect every agent (or where an interval is unbounded)
    an agent gets Elo 0 or its fitted Elo and a wide spread that shrinks with
    its games, so the least-played agents are paired first.
    """
    fit = bradley_terry(names, {pair: (w, d, l_) for pair, (w, d, l_) in tally.items()})
    ratings = {}
    for name in names:
        rating = fit.ratings.get(name)
        if rating is not None and rating.ci95 is not None:
            elo, spread = rating.elo, rating.ci95
        else:
            elo, spread = (rating.elo if rating else 0.0), UNPLACED_SPREAD / math.sqrt(played[name] + 1)
        # Rounded, so that a last-bit difference in the fit (another libm on resume) rarely changes a pairing.
        ratings[name] = (round(elo, RATING_DIGITS), round(spread, RATING_DIGITS))
    return ratings, bool(fit.ratings)


def _connected_pairs(names: Sequence[str], tally: Mapping[tuple[str, str], list[int]]) -> set[frozenset[str]]:
    """Every pair of agents already linked by a chain of games (a pair between them adds nothing to connect)."""
    group = {name: name for name in names}

    def root(name: str) -> str:
        while group[name] != name:
            group[name] = group[group[name]]
            name = group[name]
        return name

    for a, b in tally:
        group[root(a)] = root(b)
    members: dict[str, list[str]] = {}
    for name in names:
        members.setdefault(root(name), []).append(name)
    return {frozenset((a, b)) for team in members.values() for i, a in enumerate(team) for b in team[i + 1:]}


def _filled(chosen: list[tuple[str, str]], ratings: Mapping[str, tuple[float, float]],
            avoid: Collection[frozenset[str]], wanted: int, placed: bool) -> list[tuple[str, str]]:
    """``chosen`` completed to ``wanted`` pairs when the greedy choice left only avoided pairs among the free agents.

    Two free agents x, y either meet again or take over a chosen pair (u, v)
    as (x, u), (y, v) (or (x, v), (y, u)) when neither was avoided: whichever
    gives the batch more information, and a swap whenever one exists while the
    agents are not on one scale (``placed`` false: new opponents connect
    them).  A batch repeats a pairing rather than play fewer games.
    """
    def worth(a: str, b: str) -> float:
        return swiss.information(ratings[a][0], ratings[b][0], ratings[a][1], ratings[b][1])

    pairs = list(chosen)
    busy = {name for pair in pairs for name in pair}
    free = [name for name in sorted(ratings) if name not in busy]
    while len(pairs) < wanted and len(free) >= 2:
        x = free.pop(0)
        partner = next((y for y in free if frozenset((x, y)) not in avoid), None)
        if partner is not None:
            free.remove(partner)
            pairs.append((x, partner))
            continue
        y = free.pop(0)
        swaps = [
            (worth(x, p) + worth(y, q) - worth(u, v), k, p, q)
            for k, (u, v) in enumerate(pairs) for p, q in ((u, v), (v, u))
            if frozenset((x, p)) not in avoid and frozenset((y, q)) not in avoid
        ]
        best = max(swaps, key=lambda swap: swap[0], default=None)  # the first of equals: deterministic
        if best is None or (placed and best[0] <= worth(x, y)):
            pairs.append((x, y))
        else:
            _, k, p, q = best
            pairs[k] = (x, p)
            pairs.append((y, q))
    return pairs


def ladder_state(
    plan: Plan, winners: Mapping[int, str | None], memo: LadderMemo | None = None
) -> tuple[list[swiss.Round], list[swiss.Result]]:
    """The ladder batches pairable from ``winners`` (game index -> RED, BLUE or None), as rounds of (red, blue)
    pairs without byes, and the games of complete batches as (red, blue, red's score).

    Batch 0 is always paired; batch b + 1 once every game of batches 0..b is
    in ``winners``.  Its pairs are :func:`.swiss.ladder_pairs` on the joint fit
    of all those games, avoiding the previous batch's pairs where the field
    allows, and every pair already linked by a chain of games while no fit
    places all agents on one scale (so each batch joins groups, about halving
    their number) (:func:`_filled`: a batch repeats a pair rather than play fewer
    games); the agent with fewer Reds so far (then Blue last time, then the
    first of the pair) plays Red.  A game both agents lost by failing counts
    as a draw, as in Swiss.  ``memo`` keeps pairings between calls: the same
    earlier results give the same batch, so a caller that asks again as games
    come in (the runner, the record checks) fits each batch once.
    """
    names = plan.names
    form = plan.format
    assert isinstance(form, Ladder), "the batches of a ladder plan"
    size, total = form.round_games(plan), form.max_games(plan)
    rounds: list[swiss.Round] = []
    results: list[swiss.Result] = []
    tally: dict[tuple[str, str], list[int]] = {}  # (a, b), a < b: a's wins, draws, losses against b
    played = {name: 0 for name in names}
    colours = {name: "" for name in names}
    previous: tuple[tuple[str, str], ...] = ()
    key = hashlib.blake2b(plan.fingerprint.encode(), digest_size=16)
    while len(rounds) < form.round_count(plan):
        start = len(rounds) * size
        wanted = min(size, total - start)
        digest = key.hexdigest()
        pairs = memo.get(digest) if memo is not None else None
        if pairs is None:
            ratings, placed = _ladder_ratings(names, tally, played)
            avoid = {frozenset(p) for p in previous}
            if not placed:  # no common scale yet: opponents from other groups connect the field soonest
                avoid |= _connected_pairs(names, tally)
            chosen = _filled(swiss.ladder_pairs(ratings, wanted, avoid), ratings, avoid, wanted, placed)
            pairs = swiss.coloured(chosen, colours)
            if memo is not None:
                memo[digest] = pairs
        rounds.append(swiss.Round(pairs, None))
        games = range(start, start + wanted)
        if any(index not in winners for index in games):
            break
        for index, (red, blue) in zip(games, pairs):
            winner = winners[index]
            score = first_red_points(winners, (index,))  # a one-game mini-match
            assert score is not None  # every game of the batch is in
            results.append((red, blue, score))
            first, second = sorted((red, blue))
            counts = tally.setdefault((first, second), [0, 0, 0])
            mine = score if first == red else 1.0 - score  # the first name's score
            counts[0 if mine == 1.0 else 1 if mine == 0.5 else 2] += 1
            played[red] += 1
            played[blue] += 1
            colours[red] += "R"
            colours[blue] += "B"
            key.update(f"{index}:{winner};".encode())
        previous = pairs
    return rounds, results
