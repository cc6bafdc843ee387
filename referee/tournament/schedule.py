"""What to play: the plan (who, how many, which settings) and its lazy schedule.

Game ``k`` is round ``k // P`` of pairing ``k % P`` (P pairings): every
pairing plays once per round, so any prefix of the schedule is balanced, and
the colours swap every round, so each pairing plays both colours equally.
A Swiss plan (``format: swiss``) is played round by round instead: round
``r`` holds games ``[r*G, (r+1)*G)`` (G = pairs per round x games_per_pair),
and its pairs come from the results of rounds before it (:func:`swiss_rounds`),
so they are the same however often they are recomputed (on resume, in the
record checks).  A bye is no game and has no record: its score is added in
the Swiss table from the pairing itself.
A ladder plan (``format: ladder``) is played the same way in batches of B
single games (B = ``batch``, at most one game per agent): batch ``b`` holds
games ``[b*B, (b+1)*B)`` (the last one what is left of the ``games`` budget),
paired by :func:`.swiss.ladder_pairs` from the joint rating of every game of
the batches before it (:func:`ladder_state`).
A knockout plan (``format: knockout``) gives each tie a fixed block of game
indices and plays the ones it needs (:mod:`.knockout`); every game is a
function of the records of lower indices, so resume and the checks work alike.
Each game's seed is a hash of the tournament seed and ``k``; a game whose
setup is drawn from its seed (Infinitron's cities) gets it in its options.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any
from collections.abc import Collection, Container, Iterable, Iterator, Mapping, Sequence

from ..games import game_class
from ..limits import DEFAULT_GRACE, Limits
from ..match import AgentEntry, MatchSettings
from . import knockout, swiss
from .ratings import bradley_terry


@dataclass(frozen=True)
class TournamentPlan:
    """A checked config with its final agent list: everything the games depend on."""

    name: str
    agents: tuple[AgentEntry, ...]
    # or "gauntlet": agents[challenger] against each other agent; "swiss"; "ladder"; "knockout"
    format: str = "round_robin"
    challenger: int | None = None
    games_per_pair: int = 2
    game: str = "infexion"
    game_options: Mapping[str, Any] = field(default_factory=dict)
    limits: Limits = Limits()
    seed: int = 0
    sandbox: str = "auto"
    pass_env: tuple[str, ...] = ()  # environment variables the agents inherit (docs/referee.md)
    rounds: int | None = None  # swiss: None means swiss.default_rounds(len(agents))
    budget: int | None = None  # ladder: the games to play (the config's games:)
    batch: int | None = None  # ladder: games per batch; None (or more than fit) means len(agents) // 2
    #: Each agent's code fingerprint by name (:mod:`.agent_code`), written into every record.  Not part of
    #: :meth:`describe` or :attr:`fingerprint`: a changed agent invalidates its own games, not the plan.
    code: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def names(self) -> list[str]:
        return [a.display_name for a in self.agents]

    def match_settings(self, seed: int | None = None, extra: Mapping[str, Any] | None = None) -> MatchSettings:
        """The settings of one game of this plan, or of an agent check (no seed)."""
        return MatchSettings(
            game=self.game,
            game_options=game_class(self.game).seeded_options(self.game_options, seed),
            limits=self.limits,
            sandbox=self.sandbox,
            pass_env=tuple(self.pass_env),
            seed=seed,
            extra=dict(extra or {}),
        )

    @property
    def fingerprint(self) -> str:
        """A hash of everything that decides the games; stored with every record."""
        return hashlib.sha256(json.dumps(self.describe(), sort_keys=True).encode()).hexdigest()[:16]

    def describe(self) -> dict[str, Any]:
        """The plan as plain data (written to the output folder's tournament.json)."""
        return {
            "game": self.game,
            "game_options": dict(self.game_options),
            "agents": [{"name": a.display_name, "spec": a.spec, "options": dict(a.options)} for a in self.agents],
            "format": self.format,
            "challenger": None if self.challenger is None else self.agents[self.challenger].display_name,
            "games_per_pair": self.games_per_pair,
            "time_limit": self.limits.time_limit,
            "space_limit": self.limits.space_limit,
            "seed": self.seed,
            # Only when set, so folders of plans made before they existed still resume.
            **({"call_timeout": self.limits.call_timeout} if self.limits.call_timeout else {}),
            **({"wall_grace": self.limits.wall_grace} if self.limits.wall_grace != DEFAULT_GRACE else {}),
            **({"sandbox": self.sandbox} if self.sandbox != "auto" else {}),
            **({"pass_env": list(self.pass_env)} if self.pass_env else {}),
            **({"rounds": self.swiss_rounds} if self.format == "swiss" else {}),
            **({"games": self.total_games, "batch": self.round_games} if self.format == "ladder" else {}),
        }

    @property
    def paired(self) -> bool:
        """Whether the games are paired round by round (batch by batch) from earlier results."""
        return self.format in ("swiss", "ladder", "knockout")

    @property
    def round_count(self) -> int:
        """A paired plan's rounds (Swiss) or batches (ladder)."""
        if self.format == "ladder":
            return math.ceil(self.total_games / self.round_games)
        return self.swiss_rounds

    @property
    def swiss_rounds(self) -> int:
        """A Swiss plan's number of rounds."""
        return self.rounds if self.rounds is not None else swiss.default_rounds(len(self.agents))

    @property
    def round_games(self) -> int:
        """Games per Swiss round (every pair, the bye aside, plays a mini-match of games_per_pair) or ladder batch."""
        if self.format == "ladder":
            most = len(self.agents) // 2
            return min(self.batch, most) if self.batch else most
        return len(self.agents) // 2 * self.games_per_pair

    def pairings(self) -> Iterator[tuple[int, int]]:
        """Each pairing once, as agent indices (lazy)."""
        if self.format == "gauntlet":
            challenger = self.challenger
            assert challenger is not None  # a gauntlet has one
            return ((challenger, j) for j in range(len(self.agents)) if j != challenger)
        return combinations(range(len(self.agents)), 2)

    def pairing(self, number: int) -> tuple[int, int]:
        """Pairing ``number`` of :meth:`pairings` as agent indices, without listing the ones before it."""
        if not 0 <= number < self.pairing_count:
            raise IndexError(f"pairing {number} of {self.pairing_count}")
        if self.format == "gauntlet":
            assert self.challenger is not None  # a gauntlet has one
            return self.challenger, number + (number >= self.challenger)
        # Agent i is first in n-1-i pairings; they start at i(n-1) - i(i-1)/2.
        n = len(self.agents)
        low, high = 0, n - 2
        while low < high:  # the last first agent whose pairings start at or before number
            middle = (low + high + 1) // 2
            if middle * (n - 1) - middle * (middle - 1) // 2 <= number:
                low = middle
            else:
                high = middle - 1
        start = low * (n - 1) - low * (low - 1) // 2
        return low, low + 1 + number - start

    @property
    def pairing_count(self) -> int:
        n = len(self.agents)
        return n - 1 if self.format == "gauntlet" else n * (n - 1) // 2

    @property
    def total_games(self) -> int:
        if self.format == "swiss":
            return self.swiss_rounds * self.round_games
        if self.format == "ladder":
            return self.budget or 0
        if self.format == "knockout":  # the index space: a bracket plays only the extra games it needs
            return knockout.total_games(len(self.agents), self.games_per_pair)
        return self.pairing_count * self.games_per_pair


def game_seed(tournament_seed: int, index: int) -> int:
    """The seed of game ``index``: reproducible, unrelated between games."""
    digest = hashlib.blake2b(f"{tournament_seed}/{index}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class Job:
    """One game to play."""

    index: int
    red: AgentEntry
    blue: AgentEntry
    settings: MatchSettings


def _share(plan: TournamentPlan, winners: Mapping[int, str | None], first_game: int) -> float | None:
    """The pairing's first Red's share of a mini-match's points; None until all its games are in ``winners``.

    A game both agents lost by failing (winner None) counts as a draw here.
    """
    games = range(first_game, first_game + plan.games_per_pair)
    if any(index not in winners for index in games):
        return None
    points = 0.0
    for index in games:
        winner = winners[index]
        if winner is None:
            points += 0.5
        elif (winner == "RED") == ((index - first_game) % 2 == 0):  # the first Red plays Red in even games
            points += 1.0
    return points / plan.games_per_pair


def swiss_state(
    plan: TournamentPlan, winners: Mapping[int, str | None]
) -> tuple[list[swiss.Round], list[swiss.Result], list[str]]:
    """The Swiss rounds pairable from ``winners`` (game index -> RED, BLUE or None), the finished mini-matches
    (first Red, first Blue, first Red's share) and the byes of those rounds.

    Round 0 is always paired; round r + 1 once every game of rounds 0..r is in ``winners``.
    """
    names = plan.names
    rounds: list[swiss.Round] = []
    results: list[swiss.Result] = []
    met: set[frozenset[str]] = set()
    colours = {name: "" for name in names}
    byes: list[str] = []
    while len(rounds) < plan.swiss_rounds:
        current = swiss.pair_round(names, swiss.scores(names, results, byes), met, colours, byes)
        rounds.append(current)
        start = (len(rounds) - 1) * plan.round_games
        if current.bye is not None:
            byes.append(current.bye)
        complete = True
        for number, (red, blue) in enumerate(current.pairs):
            share = _share(plan, winners, start + number * plan.games_per_pair)
            if share is None:
                complete = False
                continue
            results.append((red, blue, share))
            met.add(frozenset((red, blue)))
            colours[red] += "R"
            colours[blue] += "B"
        if not complete:
            break
    return rounds, results, byes


def swiss_rounds(plan: TournamentPlan, winners: Mapping[int, str | None]) -> list[swiss.Round]:
    """The Swiss rounds that can be paired from ``winners`` (see :func:`swiss_state`)."""
    return swiss_state(plan, winners)[0]


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
    plan: TournamentPlan, winners: Mapping[int, str | None], memo: LadderMemo | None = None
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
    size = plan.round_games
    rounds: list[swiss.Round] = []
    results: list[swiss.Result] = []
    tally: dict[tuple[str, str], list[int]] = {}  # (a, b), a < b: a's wins, draws, losses against b
    played = {name: 0 for name in names}
    colours = {name: "" for name in names}
    previous: tuple[tuple[str, str], ...] = ()
    key = hashlib.blake2b(plan.fingerprint.encode(), digest_size=16)
    while len(rounds) < plan.round_count:
        start = len(rounds) * size
        wanted = min(size, plan.total_games - start)
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
            score = 0.5 if winner is None else float(winner == "RED")
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


Pairings = Sequence[swiss.Round] | knockout.Bracket
"""What a paired plan's games come from: Swiss rounds, ladder batches, or a knockout bracket."""


def paired_rounds(plan: TournamentPlan, winners: Mapping[int, str | None],
                  memo: LadderMemo | None = None) -> list[swiss.Round] | knockout.Bracket:
    """A Swiss plan's rounds, a ladder plan's batches or a knockout plan's bracket, as far as ``winners`` pairs."""
    if plan.format == "ladder":
        return ladder_state(plan, winners, memo)[0]
    if plan.format == "knockout":
        return knockout.state(plan.names, plan.games_per_pair, winners)
    return swiss_rounds(plan, winners)


def pairable(plan: TournamentPlan, pairings: Pairings, index: int) -> bool:
    """Whether game ``index`` is paired in ``pairings`` (else more records are needed, or it is no game)."""
    if isinstance(pairings, knockout.Bracket):
        return index in pairings.games
    return index // plan.round_games < len(pairings)


def job(plan: TournamentPlan, index: int, fingerprint: str | None = None, rounds: Pairings | None = None) -> Job:
    """Game ``index`` of the plan's schedule (IndexError outside it); ``fingerprint``: the plan's, if known.

    A Swiss or ladder plan needs ``rounds`` (from :func:`paired_rounds`) up to the game's round; LookupError if
    not yet paired.
    """
    if not 0 <= index < plan.total_games:
        raise IndexError(f"game {index} of {plan.total_games}")
    if plan.format == "knockout":
        return _knockout_job(plan, index, fingerprint, rounds)
    sequence = rounds if rounds is not None and not isinstance(rounds, knockout.Bracket) else ()
    if plan.format == "swiss":
        return _swiss_job(plan, index, fingerprint, sequence)
    if plan.format == "ladder":
        return _ladder_job(plan, index, fingerprint, sequence)
    round_number, number = divmod(index, plan.pairing_count)
    first, second = plan.pairing(number)
    red, blue = (first, second) if round_number % 2 == 0 else (second, first)
    return _job(plan, index, round_number, (first, second), (red, blue), fingerprint)


def _job(
    plan: TournamentPlan, index: int, round_number: int, pairing: tuple[int, int], colours: tuple[int, int],
    fingerprint: str | None,
) -> Job:
    """Game ``index``: the pairing's agents (by position) with ``colours`` = (red, blue)."""
    first, second = pairing
    extra = {
        "tournament": plan.name,
        "config_hash": fingerprint or plan.fingerprint,
        "game_index": index,
        "round": round_number,
        "pairing": [plan.agents[first].display_name, plan.agents[second].display_name],
    }
    red, blue = colours
    if plan.code:
        names = (plan.agents[red].display_name, plan.agents[blue].display_name)
        extra["code_hash"] = {name: plan.code[name] for name in names}
    return Job(index, plan.agents[red], plan.agents[blue], plan.match_settings(game_seed(plan.seed, index), extra))


def _swiss_job(plan: TournamentPlan, index: int, fingerprint: str | None, rounds: Sequence[swiss.Round]) -> Job:
    round_number, within = divmod(index, plan.round_games)
    if round_number >= len(rounds):
        raise LookupError(f"game {index} is in round {round_number}, which cannot be paired yet")
    number, game = divmod(within, plan.games_per_pair)
    position = {name: i for i, name in enumerate(plan.names)}
    first, second = (position[name] for name in rounds[round_number].pairs[number])
    # The mini-match alternates colours, the pairing's first Red first.
    red, blue = (first, second) if game % 2 == 0 else (second, first)
    return _job(plan, index, round_number, (first, second), (red, blue), fingerprint)


def _ladder_job(plan: TournamentPlan, index: int, fingerprint: str | None, rounds: Sequence[swiss.Round]) -> Job:
    batch, number = divmod(index, plan.round_games)
    if batch >= len(rounds):
        raise LookupError(f"game {index} is in batch {batch}, which cannot be paired yet")
    position = {name: i for i, name in enumerate(plan.names)}
    red, blue = (position[name] for name in rounds[batch].pairs[number])
    return _job(plan, index, batch, (red, blue), (red, blue), fingerprint)


def _knockout_job(plan: TournamentPlan, index: int, fingerprint: str | None, bracket: Pairings | None) -> Job:
    if not isinstance(bracket, knockout.Bracket) or index not in bracket.games:
        tie = index // knockout.tie_games(plan.games_per_pair)
        raise LookupError(
            f"game {index} (of tie block {tie}) is not a game of the knockout so far: its tie does not need it, "
            "or a game it depends on is not recorded"
        )
    red, blue, round_number = bracket.games[index]
    position = {name: i for i, name in enumerate(plan.names)}
    high, low = sorted((position[red], position[blue]))
    return _job(plan, index, round_number, (high, low), (position[red], position[blue]), fingerprint)


def schedule(plan: TournamentPlan, skip: Container[int] = (), rounds: Pairings | None = None,
             games: Iterable[int] | None = None) -> Iterator[Job]:
    """Every game of the plan (or of ``games``) in order, except the indices in ``skip``; lazy.

    A Swiss, ladder or knockout plan needs ``rounds`` (:func:`paired_rounds`) covering ``games``.
    """
    fingerprint = plan.fingerprint
    return (
        job(plan, index, fingerprint, rounds)
        for index in (games if games is not None else range(plan.total_games))
        if index not in skip
    )
