"""How a tournament was played, for the published report: its settings and the facts of its runs.

A reader of ``results.md`` or ``report.html`` should be able to tell, with
nothing else at hand, what was played and under which rules: the game and
its options, the format and its settings, the limits, the seed, when the
games were played and how long that took, on how many cores, by which
referee version and under which sandbox.  The settings come from the plan
(as ``tournament.json`` keeps it), the runs from ``tournament.json``'s
``runs`` (one entry per run that played games, written by :func:`run_entry`)
and what the games themselves ran under from their records (the
:class:`~referee.tournament.aggregate.Results`).
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ..build_info import RefereeBuild
from ..games.base import count_of
from ..limits import limits_text
from .aggregate import Results
from .formats import format_class
from .problems import ConfigError
from .sprt import ELO_MODEL, SprtSettings

#: (label, text) lines, in the order shown.
HowPlayed = list[tuple[str, str]]


def run_entry(started: str, seconds: float, played: int, where: str, build: RefereeBuild) -> dict[str, Any]:
    """One run of the tournament, as ``tournament.json``'s ``runs`` keeps it (``build``: the referee that ran it)."""
    return {"started": started, "seconds": round(seconds, 1), "played": played, "cores": os.cpu_count(),
            "where": where, "referee": build.as_dict()}


def duration_text(seconds: float) -> str:
    """``42.5 s``, ``3 min 20 s``, ``2 h 5 min``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    return f"{minutes // 60} h {minutes % 60} min"


def _counted(counts: Mapping[str, int]) -> str:
    """One value alone, or each value with its number of games, most first."""
    if len(counts) == 1:
        return next(iter(counts))
    return "; ".join(f"{value} ({count_of(n, 'game')})" for value, n in sorted(counts.items(), key=lambda i: -i[1]))


def _format(plan: Mapping[str, Any], sprt: SprtSettings | None) -> str:
    kind = plan.get("format")
    try:
        form = format_class(kind) if isinstance(kind, str) else None
    except ConfigError:  # a plug-in format that cannot be loaded here
        form = None
    text = form.in_words(plan) if form is not None else str(kind)
    if sprt is not None:
        text += (
            f"; SPRT ({ELO_MODEL} Elo) elo0 {sprt.elo0:g}, elo1 {sprt.elo1:g}, alpha {sprt.alpha:g}, "
            f"beta {sprt.beta:g}"
        )
    return text


def _limits(plan: Mapping[str, Any]) -> str:
    time_limit, space_limit = plan.get("time_limit"), plan.get("space_limit")
    parts = [
        f"{time_limit:g} s of CPU time per agent per game" if time_limit else "no time limit",
        f"{space_limit:g} MB of memory per agent" if space_limit else "no memory limit",
    ]
    own = [agent for agent in plan.get("agents", []) if isinstance(agent, dict) and "time_limit" in agent]
    if own:
        parts.append("at odds: " + ", ".join(
            f"{agent.get('name')} plays under its own {limits_text(agent.get('time_limit'), agent.get('space_limit'))}"
            for agent in own
        ) + " (each rating is of an agent at its own limits)")
    if plan.get("call_timeout"):
        parts.append(f"any one call at most {plan['call_timeout']:g} s of wall time (call_timeout)")
    if "wall_grace" in plan:
        parts.append(f"wall grace {plan['wall_grace']:g} s beyond the CPU time left")
    if plan.get("pass_env"):
        parts.append(f"agents inherit {', '.join(plan['pass_env'])}")
    return "; ".join(parts)


def _when(results: Results, runs: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    if results.period is not None:
        first, last = (datetime.fromisoformat(t) for t in results.period)
        end = f"{last:%H:%M}" if last.date() == first.date() else f"{last:%Y-%m-%d %H:%M}"
        parts.append(f"{first:%Y-%m-%d %H:%M} to {end} UTC")
    if runs:
        seconds = sum(float(run.get("seconds", 0)) for run in runs)
        how = "in one run" if len(runs) == 1 else f"over {len(runs)} runs (resumed)"
        parts.append(f"{duration_text(seconds)} of wall time {how}")
    return "; ".join(parts) or "not recorded"


def _machine(runs: Sequence[Mapping[str, Any]]) -> str:
    seen = {f"{run.get('cores')} cores; games run by {run.get('where')}": 1 for run in runs}
    return "; then ".join(seen) or "not recorded"


def _referee(results: Results, runs: Sequence[Mapping[str, Any]], current: RefereeBuild | None) -> str:
    """The versions the records name, then the code of each run that played them (commit, Python, platform), and
    of the referee writing the report when it is none of those."""
    text = (f"version {_counted(results.versions)} (python -m referee --version)" if results.versions
            else "no game recorded yet")
    builds = [build.describe() for run in runs if (build := RefereeBuild.from_dict(run.get("referee"))) is not None]
    played_by = list(dict.fromkeys(builds))
    if played_by:
        text += "; the games played by " + "; then ".join(played_by)
    if current is not None and current.describe() not in played_by:
        text += f"; this report written by {current.describe()}"
    return text


def _code(superseded: Sequence[Mapping[str, Any]]) -> str:
    text = "each agent's fingerprint is in the standings' code column"
    for entry in superseded:
        games = count_of(entry.get("games", 0), "game")
        if entry.get("why") == "--fresh":
            text += f"; started over with --fresh on {entry.get('at')} ({games} set aside)"
        else:
            names = ", ".join(sorted(entry.get("agents", {})))
            text += f"; {games} played again on {entry.get('at')}: the code of {names} changed"
    if superseded:
        text += " (the old records are in superseded.jsonl)"
    return text


def how_played(
    plan: Mapping[str, Any], sprt: SprtSettings | None, meta: Mapping[str, Any], results: Results,
    current: RefereeBuild | None = None,
) -> HowPlayed:
    """The report's "How it was played" lines, from the plan (:meth:`TournamentPlan.describe`), the SPRT,
    ``tournament.json`` (``meta``: its runs and set-aside records), the results and (``current``) the referee
    writing the report."""
    options = plan.get("game_options") or {}
    game = str(plan.get("game"))
    if options:
        game += f" ({', '.join(f'{key}={value}' for key, value in sorted(options.items()))})"
    runs = [run for run in meta.get("runs", []) if isinstance(run, dict)]
    superseded = [entry for entry in meta.get("superseded", []) if isinstance(entry, dict)]
    return [
        ("Game", game),
        ("Format", _format(plan, sprt)),
        ("Limits", _limits(plan)),
        ("Seed", f"{plan.get('seed')} (each game's seed derives from it and the game's index)"),
        ("Played", _when(results, runs)),
        ("Machine", _machine(runs)),
        ("Referee", _referee(results, runs, current)),
        ("Sandbox", str(plan.get("sandbox", "auto")) + (f"; the games ran {_counted(results.sandboxes)}"
                                                        if results.sandboxes else "")),
        ("Agents' code", _code(superseded)),
    ]
