"""Knockout (single elimination) brackets: pure functions of the seeds and the results so far, no I/O.

* Seeds are the agents' order in the field (the config's order; discovered
  agents in the order the lineup lists them): seed 1 first.
* The bracket has P slots, P the power of two at or above the field: seed s
  meets seed P + 1 - s in round 1, placed so that seeds 1 and 2 can only meet
  in the final (the usual 1-8-4-5-2-7-3-6 order).  The P - n slots above the
  field are byes, so the top seeds go through round 1 without playing.
* A tie is a mini-match of ``games_per_pair`` games, colours alternating, the
  higher seed Red first.  Level on points, the tie goes on by pairs of games
  (both colours), at most ``EXTRA_PAIRS`` of them; still level, the higher
  seed goes through (it was expected to win).  A game both agents lost by
  failing counts as a draw, as in Swiss.
* Each tie owns ``games_per_pair + 2 * EXTRA_PAIRS`` game indices in a fixed
  layout (round after round, tie after tie), of which it plays only those it
  needs; a tie's extra pair can be played once the tie's own earlier games
  are in, a round once every tie of the round before is decided.  So every
  game is a pure function of the records of lower game indices.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .base import first_red_points

#: Extra pairs of games a level tie plays before the higher seed goes through.
EXTRA_PAIRS = 2


def bracket(size: int) -> list[int]:
    """Seeds (from 1) in bracket order for ``size`` slots (a power of two): neighbours meet in round 1."""
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket has a power of two slots, not {size}")
    order = [1]
    while len(order) < size:
        width = 2 * len(order)
        order = [seed for s in order for seed in (s, width + 1 - s)]
    return order


def slots(agents: int) -> int:
    """The bracket's slots: the power of two at or above the field."""
    return 1 << max(agents - 1, 0).bit_length()


def rounds(agents: int) -> int:
    """Rounds from the first to the final."""
    return max(agents - 1, 0).bit_length()


def tie_games(games_per_pair: int) -> int:
    """Game indices each tie owns: its mini-match and every extra pair it may need."""
    return games_per_pair + 2 * EXTRA_PAIRS


def total_games(agents: int, games_per_pair: int) -> int:
    """The most games a bracket can take (every tie level until the end): the size of its index space."""
    return (slots(agents) - 1) * tie_games(games_per_pair)


@dataclass(frozen=True)
class Tie:
    """One tie: the higher seed against the lower (None: a bye), the games it has needed so far and who went on."""

    round: int  # from 0
    high: str
    low: str | None
    games: tuple[int, ...] = ()
    winner: str | None = None  # None: undecided yet
    on_seed: bool = False  # level after every extra pair: the higher seed went through


@dataclass(frozen=True)
class Bracket:
    """What the records so far decide: each tie, every game that can be played (index -> red, blue, round)."""

    ties: tuple[Tie, ...]
    games: Mapping[int, tuple[str, str, int]]
    champion: str | None


def state(names: Sequence[str], games_per_pair: int, winners: Mapping[int, str | None]) -> Bracket:
    """The bracket of ``names`` (seed order) as far as ``winners`` (game index -> RED, BLUE or None) decides it."""
    seed = {name: i for i, name in enumerate(names)}
    per_tie = tie_games(games_per_pair)
    entrants: list[str | None] = [names[s - 1] if s <= len(names) else None for s in bracket(slots(len(names)))]
    ties: list[Tie] = []
    games: dict[int, tuple[str, str, int]] = {}
    base = 0
    number = 0
    while len(entrants) > 1:
        advancing: list[str | None] = []
        for position in range(len(entrants) // 2):
            a, b = entrants[2 * position], entrants[2 * position + 1]
            if a is None or b is None:
                # Seed s meets P + 1 - s > n only while s < P/2 < n: a bye has an opponent-less agent, never two.
                player = a if a is not None else b
                assert player is not None
                ties.append(Tie(number, player, None, (), player))
                advancing.append(player)
                continue
            high, low = sorted((a, b), key=seed.__getitem__)
            start = base + position * per_tie
            needed = games_per_pair
            winner: str | None = None
            on_seed = False
            while True:
                for offset in range(needed):
                    games[start + offset] = (high, low, number) if offset % 2 == 0 else (low, high, number)
                indices = range(start, start + needed)
                if any(index not in winners for index in indices):
                    break
                points = first_red_points(winners, indices)  # the higher seed is the first Red
                assert points is not None  # every game of the tie is in
                if 2 * points != needed:
                    winner = high if 2 * points > needed else low
                    break
                if needed == per_tie:
                    winner, on_seed = high, True
                    break
                needed += 2
            ties.append(Tie(number, high, low, tuple(range(start, start + needed)), winner, on_seed))
            advancing.append(winner)
        if any(name is None for name in advancing):
            break  # a tie is undecided: the next round cannot be drawn yet
        base += len(entrants) // 2 * per_tie
        entrants = advancing
        number += 1
    champion = entrants[0] if len(entrants) == 1 else None
    return Bracket(tuple(ties), games, champion)


def _stage_name(number: int, total: int) -> str:
    """Round ``number`` (from 0) of ``total`` by its usual name."""
    left = total - number
    return {1: "the final", 2: "the semi-finals", 3: "the quarter-finals"}.get(left, f"round {number + 1}")


def placings(names: Sequence[str], bracket: Bracket) -> list[tuple[int, str, str]]:
    """The bracket as a ranking: (rank, agent, how far it got), best first.

    The winner, the runner-up, then the losers of each earlier round sharing
    a rank; an agent still in (a bracket not played to the end) ranks above
    those knocked out in the round it is in.  Agents of one rank are listed
    by seed.
    """
    total = rounds(len(names))
    stage = {name: (0, True) for name in names}  # the round reached (from 0), and whether still in
    for tie in bracket.ties:  # round by round, so an agent's last tie decides
        for name in (tie.high, tie.low):
            if name is not None:
                stage[name] = (tie.round, True) if tie.winner is None else (
                    (tie.round + 1, True) if tie.winner == name else (tie.round, False)
                )
    seed = {name: i for i, name in enumerate(names)}
    order = sorted(names, key=lambda name: (-stage[name][0], not stage[name][1], seed[name]))
    ranked: list[tuple[int, str, str]] = []
    for position, name in enumerate(order, start=1):
        reached, still_in = stage[name]
        if reached == total:
            text = "winner"
        else:
            text = f"{'in' if still_in else 'lost in'} {_stage_name(reached, total)}"
        shares = bool(ranked) and stage[ranked[-1][1]] == stage[name]
        ranked.append((ranked[-1][0] if shares else position, name, text))
    return ranked
