"""From a checked config to the final list of agents: discovery and load checks.

Every agent is imported and constructed once in its own process (as a game
would) before any game starts, by helper processes of the lineup's own: when
the checks are stopped (Ctrl-C, SIGTERM), each helper kills the agent it is
checking, so the lineup ends exactly the processes it started and nothing
else of its caller's (a server, a notebook).  A named agent that fails stops the
tournament with a config error; a discovered folder that fails is reported by
name and left out, or kept to forfeit its games (``on_error: forfeit``).
"""
from __future__ import annotations

import multiprocessing
import os
import re
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait as connection_wait
from pathlib import Path
from typing import Any
from collections.abc import Callable, Sequence

from tqdm import tqdm

from ..agent_text import inert_line
from ..hosting.sandbox import Capabilities, SandboxUnavailable, probed, resolve
from ..limits import own_limits
from ..match import AgentEntry, MatchSettings, check_agent
from .agent_code import code_hashes
from .executor import start_helper
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
    """Each candidate's load failure (None: it loads), checked ``workers`` at a time."""
    with tqdm(total=len(candidates), desc="checking agents", unit="agent", leave=False, disable=not progress) as bar:
        if check is check_agent:
            return _check_in_helpers(candidates, settings, workers, bar)
        # A caller's own check (any callable, maybe one that cannot be sent to another process): run here, in
        # threads; whatever it starts is its own to stop.
        with ThreadPoolExecutor(max_workers=max(1, workers)) as threads:
            futures = [threads.submit(check, c.entry, settings) for c in candidates]
            try:
                results = []
                for future in futures:
                    results.append(future.result())
                    bar.update(1)
                return results
            except BaseException:
                threads.shutdown(wait=False, cancel_futures=True)  # start no more checks
                raise


#: How long a helper that is told to stop gets to kill the agent it is checking before it is killed.
STOP_GRACE = 10.0


class _Stopped(BaseException):
    """Raised in a helper by SIGTERM (or SIGHUP) while it checks an agent, so the check's cleanup kills the agent."""


def _stop(signum: int, frame: object) -> None:
    raise _Stopped()


def _helper_main(conn: Connection, parent_pid: int, machine: Capabilities | None) -> None:
    """A helper process: check the agents it is sent, one at a time, until told to stop."""
    start_helper(parent_pid, _stop, machine)
    try:
        while True:
            try:
                item = conn.recv()
            except (EOFError, OSError):
                return
            if item is None:
                return
            number, entry, settings = item
            try:
                conn.send((number, check_agent(entry, settings), None))
            except Exception:
                conn.send((number, None, traceback.format_exc()))
    except _Stopped:
        return  # the check's own cleanup has killed its agent


class _Helper:
    """A process of ours that checks agents; its agents are its children, so stopping it stops exactly them."""

    def __init__(self, context: Any):
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=_helper_main, args=(child, os.getpid(), probed()), name="agent-check", daemon=True
        )
        self.process.start()
        child.close()
        self.number: int | None = None  # the candidate it is checking

    def give(self, item: tuple[int, Candidate] | None, settings: MatchSettings) -> None:
        self.number = None if item is None else item[0]
        if item is not None:
            self.conn.send((item[0], item[1].entry, settings))


def _check_in_helpers(
    candidates: Sequence[Candidate], settings: MatchSettings, workers: int, bar: tqdm
) -> list[str | None]:
    """:func:`~referee.match.check_agent` of each candidate in helper processes of ours.

    Stopped (Ctrl-C, SIGTERM: an exception here), each busy helper is told to
    stop and kills the agent it is checking (an agent's __init__ may take as
    long as its limits allow, for ever without any): the processes ended are
    exactly the ones this check started, never another part of the caller's.
    Helpers start from a clean interpreter (spawn), whatever threads the caller has.
    """
    context = multiprocessing.get_context("spawn")
    pending = iter(enumerate(candidates))
    results: dict[int, str | None] = {}
    helpers: list[_Helper] = []
    try:
        for _ in range(min(max(1, workers), len(candidates))):
            helper = _Helper(context)
            helpers.append(helper)
            helper.give(next(pending, None), settings)
        while len(results) < len(candidates):
            busy = [h for h in helpers if h.number is not None]
            # Polled: an interrupt flagged without a signal (_thread.interrupt_main, as a host program
            # may do from another thread) does not wake a blocking wait, and must be seen within a second.
            ready = connection_wait([h.conn for h in busy] + [h.process.sentinel for h in busy], timeout=1.0)
            for helper in busy:
                number = helper.number
                assert number is not None  # a busy helper's
                if helper.conn in ready:
                    try:
                        _, failure, error = helper.conn.recv()
                    except (EOFError, OSError):
                        pass  # died while replying: below
                    else:
                        if error is not None:
                            raise RuntimeError(f"checking {candidates[number].entry.spec} failed:\n{error}")
                        results[number] = failure
                        bar.update(1)
                        helper.give(next(pending, None), settings)
                        continue
                if helper.process.sentinel in ready or not helper.process.is_alive():
                    helper.process.join()
                    results[number] = f"the process checking it died (exit code {helper.process.exitcode})"
                    bar.update(1)
                    helpers.remove(helper)
                    helper.conn.close()
                    item = next(pending, None)
                    if item is not None:
                        replacement = _Helper(context)
                        helpers.append(replacement)
                        replacement.give(item, settings)
        return [results[number] for number in range(len(candidates))]
    finally:
        for helper in helpers:
            if helper.number is None:
                try:
                    helper.conn.send(None)
                except OSError:
                    pass
            elif helper.process.is_alive():
                helper.process.terminate()
        for helper in helpers:
            helper.process.join(STOP_GRACE)
            if helper.process.is_alive():
                helper.process.kill()
                helper.process.join()
            helper.conn.close()


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
            own = own_limits(config.limits, item.time_limit, item.space_limit)
            entry = AgentEntry(item.spec, item.name, dict(item.options), own if own != config.limits else None)
            candidates.append(Candidate(entry, item.where))
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
