"""From a checked config to the final list of agents: discovery and load checks.

Every agent is imported and constructed once in its own process (as a game
would) before any game starts.  A named agent that fails stops the
tournament with a config error; a discovered folder that fails is reported by
name and left out, or kept to forfeit its games (``on_error: forfeit``).
"""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from collections.abc import Callable, Sequence

from tqdm import tqdm

from ..agent_text import inert_line
from ..hosting.sandbox import SandboxUnavailable, resolve
from ..match import AgentEntry, MatchSettings, check_agent
from ..termination import kill_child_sessions
from .agent_code import code_hashes
from .config import AgentConfig, ConfigError, DiscoverConfig, TournamentConfig
from .schedule import TournamentPlan

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

CheckFunction = Callable[[AgentEntry, MatchSettings], "str | None"]


@dataclass(frozen=True)
class Candidate:
    entry: AgentEntry
    where: str  # the config entry it comes from, for messages
    discovered_from: DiscoverConfig | None = None


@dataclass(frozen=True)
class BrokenAgent:
    """A discovered folder that could not be loaded."""

    name: str
    folder: str
    message: str
    kept: bool  # True: it stays in and forfeits its games


@dataclass(frozen=True)
class Lineup:
    plan: TournamentPlan
    broken: tuple[BrokenAgent, ...]


def discover(entry: DiscoverConfig, cwd: Path) -> tuple[list[Candidate], list[BrokenAgent]]:
    """The sub-packages of a discover folder, each under its folder's name.

    Agents are imported from the current directory, so the folder must lie
    inside it and its path must be importable (identifiers only).
    """
    folder = (cwd / entry.path).resolve()
    if not folder.is_dir():
        raise ConfigError(f"{entry.where}.discover: {entry.path} is not a folder (relative to {cwd})")
    try:
        relative = folder.relative_to(cwd.resolve())
    except ValueError:
        raise ConfigError(
            f"{entry.where}.discover: {entry.path} must be inside the current directory ({cwd}), "
            "from which agents are imported"
        ) from None
    bad = [part for part in relative.parts if not _IDENTIFIER.match(part)]
    if bad:
        raise ConfigError(
            f"{entry.where}.discover: {entry.path} cannot be imported as a package path: "
            f"{bad[0]!r} is not a Python identifier"
        )
    prefix = "".join(part + "." for part in relative.parts)
    suffix = "" if entry.class_name == "Agent" else f":{entry.class_name}"
    found: list[Candidate] = []
    broken: list[BrokenAgent] = []
    for sub in sorted(folder.iterdir(), key=lambda p: p.name):
        if not sub.is_dir() or sub.name.startswith((".", "_")):
            continue
        if sub.is_symlink() and not sub.resolve().is_relative_to(folder):
            # Importing it would run code from wherever the link points; a
            # submission is what lies in the folder, so it is left out unread.
            broken.append(BrokenAgent(sub.name, str(sub), f"a symbolic link to {sub.resolve()}, outside {folder}: "
                                      "discovered agents must lie in the folder, so it is not imported", False))
            continue
        if not _IDENTIFIER.match(sub.name):
            broken.append(
                BrokenAgent(
                    sub.name, str(sub), "the folder's name is not a Python identifier, so it cannot be imported", False
                )
            )
            continue
        found.append(
            Candidate(AgentEntry(prefix + sub.name + suffix, sub.name, dict(entry.options)), entry.where, entry)
        )
    return found, broken


def _check_all(
    candidates: Sequence[Candidate], settings: MatchSettings, check: CheckFunction, workers: int, progress: bool
) -> list[str | None]:
    threads = ThreadPoolExecutor(max_workers=max(1, workers))
    futures = [threads.submit(check, c.entry, settings) for c in candidates]
    try:
        results = []
        with tqdm(
            total=len(candidates), desc="checking agents", unit="agent", leave=False, disable=not progress
        ) as bar:
            for future in futures:
                results.append(future.result())
                bar.update(1)
        return results
    except BaseException:
        # Ctrl-C or SIGTERM: start no more checks (hundreds of folders may be
        # waiting), and end the running ones now by killing their agents: a
        # thread cannot be interrupted, and an agent's __init__ may take as
        # long as its limits allow (for ever, without any).
        threads.shutdown(wait=False, cancel_futures=True)
        running = [future for future in futures if not future.cancelled()]  # wait() never counts a cancelled one done
        while wait(running, timeout=0.1).not_done:
            kill_child_sessions()
        raise
    finally:
        threads.shutdown(wait=True)


def build_lineup(
    config: TournamentConfig,
    *,
    workers: int = 1,
    check: CheckFunction = check_agent,
    cwd: Path | None = None,
    progress: bool = False,
) -> Lineup:
    """Discover and check the agents; raises :class:`ConfigError` if the tournament cannot run."""
    cwd = Path.cwd() if cwd is None else cwd
    candidates: list[Candidate] = []
    broken: list[BrokenAgent] = []
    for item in config.agents:
        if isinstance(item, AgentConfig):
            candidates.append(Candidate(AgentEntry(item.spec, item.name, dict(item.options)), item.where))
        else:
            found, unusable = discover(item, cwd)
            candidates.extend(found)
            broken.extend(unusable)

    names: dict[str, Candidate] = {}
    for candidate in candidates:
        name = candidate.entry.display_name
        if name in names:
            raise ConfigError(
                f"{candidate.where}: two agents are named {name!r} (also {names[name].where}); rename one"
            )
        names[name] = candidate

    # Every candidate is checked with the settings its games will have.
    plan = TournamentPlan(
        name=config.name,
        agents=tuple(c.entry for c in candidates),
        format=config.format,
        games_per_pair=config.games_per_pair,
        game=config.game,
        game_options=dict(config.game_options),
        limits=config.limits,
        seed=config.seed,
        sandbox=config.sandbox,
        pass_env=config.pass_env,
    )
    try:
        resolve(config.sandbox)  # "required" fails here, before any agent is started
    except SandboxUnavailable as exc:
        raise ConfigError(f"{config.where('sandbox')}: {exc}") from None
    failures = _check_all(candidates, plan.match_settings(), check, workers, progress)
    errors: list[str] = []
    kept: list[AgentEntry] = []
    for candidate, failure in zip(candidates, failures):
        source = candidate.discovered_from
        if failure is None:
            kept.append(candidate.entry)
        elif source is None:
            # The agent's load error on one inert line: a newline in it would pass for a problem of its own.
            errors.append(
                f"{candidate.where}: agent {candidate.entry.display_name!r} ({candidate.entry.spec}) "
                f"cannot be loaded: {inert_line(failure)}"
            )
        else:
            keep = source.on_error == "forfeit"
            broken.append(
                BrokenAgent(
                    candidate.entry.display_name, str(cwd / source.path / candidate.entry.display_name), failure, keep
                )
            )
            if keep:
                kept.append(candidate.entry)
    if errors:
        raise ConfigError(*errors)

    if len(kept) < 2:
        left_out = [b for b in broken if not b.kept]
        why = f" ({len(left_out)} discovered folders were left out)" if left_out else ""
        # Nothing is played, so no report lists them: say here why each one is out.
        raise ConfigError(
            f"{config.where('agents')}: a tournament needs at least two agents; {len(kept)} can play{why}",
            *(f"{inert_line(b.folder)}: left out: {inert_line(b.message)}" for b in left_out),
        )

    form = config.format.fit(kept, config.where)  # the format's own checks of the field (and its challenger)
    if config.sprt is not None and len(kept) != 2:
        raise ConfigError(
            f"{config.where('sprt')}: an SPRT compares exactly two agents; this tournament has {len(kept)}"
        )

    # Fingerprinted now, as checked: a record of a game says which code played it.
    return Lineup(
        replace(plan, agents=tuple(kept), format=form, code=code_hashes(kept, cwd)), tuple(broken)
    )
