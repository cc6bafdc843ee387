"""What to play: the plan (who, how many, which settings) and its lazy schedule.

Game ``k`` is round ``k // P`` of pairing ``k % P`` (P pairings): every
pairing plays once per round, so any prefix of the schedule is balanced, and
the colours swap every round, so each pairing plays both colours equally.
Each game's seed is a hash of the tournament seed and ``k``; a game whose
setup is drawn from its seed (Infinitron's cities) gets it in its options.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any
from collections.abc import Container, Iterator, Mapping

from ..games import game_class
from ..limits import DEFAULT_GRACE, Limits
from ..match import AgentEntry, MatchSettings


@dataclass(frozen=True)
class TournamentPlan:
    """A checked config with its final agent list: everything the games depend on."""

    name: str
    agents: tuple[AgentEntry, ...]
    format: str = "round_robin"  # or "gauntlet": agents[challenger] against each other agent
    challenger: int | None = None
    games_per_pair: int = 2
    game: str = "infexion"
    game_options: Mapping[str, Any] = field(default_factory=dict)
    limits: Limits = Limits()
    seed: int = 0
    sandbox: str = "auto"

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
        }

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


def job(plan: TournamentPlan, index: int, fingerprint: str | None = None) -> Job:
    """Game ``index`` of the plan's schedule (IndexError outside it); ``fingerprint``: the plan's, if known."""
    if not 0 <= index < plan.total_games:
        raise IndexError(f"game {index} of {plan.total_games}")
    round_number, number = divmod(index, plan.pairing_count)
    first, second = plan.pairing(number)
    red, blue = (first, second) if round_number % 2 == 0 else (second, first)
    extra = {
        "tournament": plan.name,
        "config_hash": fingerprint or plan.fingerprint,
        "game_index": index,
        "round": round_number,
        "pairing": [plan.agents[first].display_name, plan.agents[second].display_name],
    }
    return Job(index, plan.agents[red], plan.agents[blue], plan.match_settings(game_seed(plan.seed, index), extra))


def schedule(plan: TournamentPlan, skip: Container[int] = ()) -> Iterator[Job]:
    """Every game of the plan in order, except the indices in ``skip``; lazy."""
    fingerprint = plan.fingerprint
    return (job(plan, index, fingerprint) for index in range(plan.total_games) if index not in skip)
