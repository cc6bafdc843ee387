"""What to play: the plan (who, how many, which settings) and its lazy schedule.

Which agents play game ``k``, with which colours and in which round, is the
plan's format's to say (:mod:`.formats`): fixed from the start (round robin,
gauntlet), or paired from the results of lower game indices (Swiss, ladder,
knockout; a :class:`~.formats.base.Draw` of the results so far).
Each game's seed is a hash of the tournament seed and ``k``; a game whose
setup is drawn from its seed (Infinitron's cities) gets it in its options.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Container, Iterable, Iterator, Mapping

from ..games import DEFAULT_GAME, game_class
from ..limits import DEFAULT_GRACE, SIDE_LIMITS, Limits
from ..match import AgentEntry, MatchSettings
from .formats.base import Draw, Format
from .formats.round_robin import RoundRobin


@dataclass(frozen=True)
class TournamentPlan:
    """A checked config with its final agent list: everything the games depend on."""

    name: str
    agents: tuple[AgentEntry, ...]
    #: The format with its own settings (:mod:`.formats`).
    format: Format = field(default_factory=RoundRobin)
    games_per_pair: int = 2
    game: str = DEFAULT_GAME
    game_options: Mapping[str, Any] = field(default_factory=dict)
    limits: Limits = Limits()
    seed: int = 0
    sandbox: str = "auto"
    pass_env: tuple[str, ...] = ()  # environment variables the agents inherit (docs/referee.md)
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
        challenger = self.format.challenger_of(self)
        return {
            "game": self.game,
            "game_options": dict(self.game_options),
            "agents": [_described(agent) for agent in self.agents],
            "format": self.format.name,
            "challenger": None if challenger is None else self.agents[challenger].display_name,
            "games_per_pair": self.games_per_pair,
            "time_limit": self.limits.time_limit,
            "space_limit": self.limits.space_limit,
            "seed": self.seed,
            # Only when set, so folders of plans made before they existed still resume.
            **({"call_timeout": self.limits.call_timeout} if self.limits.call_timeout else {}),
            **({"wall_grace": self.limits.wall_grace} if self.limits.wall_grace != DEFAULT_GRACE else {}),
            **({"sandbox": self.sandbox} if self.sandbox != "auto" else {}),
            **({"pass_env": list(self.pass_env)} if self.pass_env else {}),
            **self.format.describe(self),
        }

    @property
    def total_games(self) -> int:
        """The game indices of the schedule (all played, unless the format says it plays only those it needs)."""
        return self.format.max_games(self)


def _described(agent: AgentEntry) -> dict[str, Any]:
    """An agent of the plan as plain data; its own limits only when it has them (so that the fingerprint of a
    plan without any is what it was before agents could have them)."""
    data: dict[str, Any] = {"name": agent.display_name, "spec": agent.spec, "options": dict(agent.options)}
    if agent.limits is not None:
        data.update({name: getattr(agent.limits, name) for name in SIDE_LIMITS})
    return data


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


def job(plan: TournamentPlan, index: int, fingerprint: str | None = None, draw: Draw | None = None) -> Job:
    """Game ``index`` of the plan's schedule (IndexError outside it); ``fingerprint``: the plan's, if known.

    ``draw``: what the results so far pair (:meth:`.formats.base.Format.draw`; default: what no result pairs);
    LookupError if it does not pair the game yet.
    """
    if not 0 <= index < plan.total_games:
        raise IndexError(f"game {index} of {plan.total_games}")
    draw = draw if draw is not None else plan.format.draw(plan, {})
    game = draw.game(index)
    return _job(plan, index, game.round, game.pairing, (game.red, game.blue), fingerprint)


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


def schedule(plan: TournamentPlan, skip: Container[int] = (), draw: Draw | None = None,
             games: Iterable[int] | None = None) -> Iterator[Job]:
    """Every game of the plan (or of ``games``) in order, except the indices in ``skip``; lazy.

    A format paired from results needs the ``draw`` of them (:meth:`.formats.base.Format.draw`) covering ``games``.
    """
    fingerprint = plan.fingerprint
    draw = draw if draw is not None else plan.format.draw(plan, {})
    return (
        job(plan, index, fingerprint, draw)
        for index in (games if games is not None else range(plan.total_games))
        if index not in skip
    )
