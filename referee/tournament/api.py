"""Running a tournament from a checked config: the library entry point.

:func:`run` does what ``python -m referee tournament`` does between reading
the config and printing the outcome: build the lineup, check the agents where
they will play, lock and open the output folder, play the games not yet
recorded, check the records again and write the tables and report.  The
command line, the benchmarks and the Dask path all call it; what it has to
say on the way (broken agents, notes about the folder, the header line, the
tables) goes to a :class:`RunObserver`, so the command keeps its console
output and a library caller can stay silent.
"""
from __future__ import annotations

import contextlib
import os
import shlex
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..build_info import referee_build
from ..core import utc_now
from ..match import play_match
from .agent_code import AgentsChanged, CodeChange
from .aggregate import GameSummary, Results, aggregate
from .config import LOCAL_SCHEDULER, ConfigError, TournamentConfig, scheduler_problem
from .executor import ClusterError, Executor, LocalExecutor, PlayFunction
from .formats.base import winners_of
from .journal import GAMES_FILE, FolderLock, JournalError
from .lineup import build_lineup
from .report import write_report
from .provenance import how_played, run_entry
from .runner import META_FILE, OutputFolder, RunObserver, RunSummary, foreign_contents, run_plan, tested_agent
from .schedule import TournamentPlan
from .shipping import ShippingError
from .tables import LeftOut, Unfinished, read_left_out, write_files


class RunError(Exception):
    """A tournament that cannot run (a bad output folder, agents that cannot load...): one or more problems.

    ``changes``: when the problem is agents whose code changed since their
    games were recorded (run again with ``replay_changed`` or ``fresh``).
    """

    def __init__(self, *problems: str, changes: tuple[CodeChange, ...] = ()):
        super().__init__("\n".join(problems))
        self.problems: list[str] = list(problems)
        self.changes = changes


@dataclass
class TournamentRun:
    """What :func:`run` did: the results, the run's counts, the files written."""

    results: Results
    summary: RunSummary
    output: Path
    games_file: Path
    where: str  # where the games ran (the executor's description)
    written: list[Path] = field(default_factory=list)
    left_out: tuple[LeftOut, ...] = ()
    plan: TournamentPlan | None = None  # the plan played (its format says whether it played every game)
    #: Set when the run ended before its schedule did (the report says so first); None when it is over.
    unfinished: Unfinished | None = None


def make_executor(kind: str = "local", workers: int | None = None, scheduler: str = LOCAL_SCHEDULER) -> Executor:
    """The executor of that kind (``local`` or ``dask``), ready to run games; raises :class:`RunError`.

    ``workers``: local worker processes, or the size of a Dask LocalCluster
    (``scheduler: local``); default the number of cores.
    """
    workers = workers or os.cpu_count() or 1
    if kind == "local":
        return LocalExecutor(workers)
    if kind != "dask":
        raise RunError(f"unknown executor {kind!r} (local or dask)")
    problem = scheduler_problem(scheduler)
    if problem:
        raise RunError(f"scheduler: {problem}")
    try:
        from .dask_executor import DaskExecutor  # Dask is an optional extra
    except ImportError as exc:
        raise RunError(str(exc)) from None
    executor = DaskExecutor(scheduler, workers)
    try:
        executor.connect()
    except ClusterError as exc:
        executor.close()
        raise RunError(str(exc)) from None
    return executor


def resume_command(command: Sequence[str], output: Path | None = None) -> list[str]:
    """The command that continues a run started by ``command`` (``python -m referee tournament CONFIG ...``):
    the same with ``--resume`` (and ``-o output`` when given), never ``--fresh``, which would start over again."""
    again = [arg for arg in command if arg != "--fresh"]
    if "--resume" not in again:
        again.append("--resume")
    return again + (["-o", str(output)] if output is not None else [])


def _why_stopped(summary: RunSummary) -> str:
    """What ended a run before its schedule did, in a few words ("" when nothing this run did: a ``limit``)."""
    if summary.interrupted:
        stop = summary.signal
        return "stopped by Ctrl-C" if stop in (None, signal.SIGINT) else f"stopped by {signal.Signals(stop).name}"
    if summary.referee_failures:
        return f"{len(summary.referee_failures)} games failed in the referee itself and were not recorded"
    return ""


def _unfinished(plan: TournamentPlan, final: list[GameSummary], summary: RunSummary, resume: str) -> Unfinished | None:
    """How far an unfinished run got; None when it is over (every game played, or the SPRT decided)."""
    if summary.sprt is not None and summary.sprt.decided:
        return None
    done = {game.index for game in final if game.index is not None}
    if plan.format.exact_length:
        if len(done) >= plan.total_games:
            return None
    elif not any(True for _ in plan.format.draw(plan, winners_of(final)).next_games(done)):
        return None  # a knockout plays only the games its ties need: over once the bracket has nothing to play
    return Unfinished(len(done), plan.total_games, resume, plan.format.exact_length, _why_stopped(summary))


def _foreign_folder(output: Path, foreign: list[str]) -> str:
    shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
    return (
        f"{output} already exists and is not a tournament's output folder (no {META_FILE} or {GAMES_FILE}; it "
        f"holds {shown}). A tournament writes {META_FILE}, {GAMES_FILE}, the tables, report.html and replays/ "
        "there, overwriting files of the same names. Use another output folder (-o DIR) or an empty one, or "
        "--force to write there anyway."
    )


def run(
    config: TournamentConfig,
    *,
    output: Path | str | None = None,
    executor: Executor | None = None,
    workers: int | None = None,
    progress: bool = False,
    resume: bool = False,
    force: bool = False,
    ship_agents: bool | None = None,
    observer: RunObserver | None = None,
    play: PlayFunction = play_match,
    limit: int | None = None,
    replay_changed: bool = False,
    fresh: bool = False,
    handle_signals: bool = False,
    resume_with: Sequence[str] | None = None,
) -> TournamentRun:
    """Run (or continue) the tournament of ``config`` into ``output`` (default the config's); raises :class:`RunError`.

    ``executor``: where games run (default: made from the config, and closed
    at the end); ``workers``: games at once (default the config's, else the
    number of cores); ``progress``: progress bars on stderr; ``resume``: the
    folder must hold a run to continue; ``force``: write into a folder that
    holds other files; ``ship_agents``: send the agents' folders to a Dask
    cluster (default the config's); ``limit``: stop after that many new games
    (benchmarks); ``replay_changed``: play again the recorded games of agents
    whose code changed since (else they stop the run: :class:`RunError` with
    ``changes``); ``fresh``: set every recorded game aside and start over.
    ``handle_signals``: Ctrl-C, SIGTERM and SIGHUP stop the games the way the command does (the first Ctrl-C
    lets the running games finish; see :func:`.runner.run_plan`), the tables are still written and the returned
    summary says it was stopped; without it no handler is installed and Ctrl-C raises KeyboardInterrupt (the
    running games' agents are killed on the way out).  Nothing is printed: everything goes to ``observer``.
    ``resume_with``: the command that continues the run, for an unfinished run's report (default:
    ``python -m referee tournament CONFIG --resume -o OUTPUT``).
    """
    if fresh and (resume or replay_changed):
        raise RunError("fresh starts the tournament over; resume and replay_changed continue it: give one of them")
    observer = observer or RunObserver()
    workers = workers or config.workers or os.cpu_count() or 1
    with contextlib.ExitStack() as made:
        if executor is None:  # made from the config, closed at the end
            executor = made.enter_context(make_executor(config.executor, workers, config.scheduler))
        started, clock = utc_now(), time.monotonic()  # the run's wall time: agent checks, games, records
        build = referee_build()  # once a run (git, a few milliseconds): the code that plays every game of it
        output = Path(output) if output is not None else config.output
        if resume_with is None:
            resume_with = resume_command(["python", "-m", "referee", "tournament", str(config.path)], output)
        foreign = [] if force else foreign_contents(output)
        if foreign:
            raise RunError(_foreign_folder(output, foreign))

        try:
            lineup = build_lineup(config, workers=workers, progress=progress)
        except ConfigError as exc:
            raise RunError(*exc.problems) from None
        for broken in lineup.broken:
            observer.broken(broken)
        plan = lineup.plan
        if config.ship_agents if ship_agents is None else ship_agents:
            try:
                bundle = executor.ship_agents(plan)
            except (ShippingError, ClusterError) as exc:
                raise RunError(str(exc)) from None
            if bundle is not None:
                observer.shipped(bundle)
        problem = executor.check_agents(
            plan, skip={b.name for b in lineup.broken if b.kept}, progress=progress
        )  # kept ones forfeit anyway
        if problem:
            raise RunError(problem)

        folder = OutputFolder(output, plan)
        if resume and not folder.holds_a_run():
            raise RunError(f"--resume: {output} holds no tournament to continue")
        where = executor.describe()
        try:
            with FolderLock(output):
                broken_meta = [
                    {"name": b.name, "folder": b.folder, "error": b.message, "kept": b.kept} for b in lineup.broken
                ]
                done, recorded = folder.open({"config": str(config.path), "broken_agents": broken_meta}, fresh=fresh,
                                             replay_changed=replay_changed)
                for note in folder.notes:
                    observer.note(note)
                observer.starting(plan, config, len(done), where, output)
                summary = run_plan(
                    plan, folder, done, recorded, executor, play=play, sprt=config.sprt, progress=progress, limit=limit,
                    observer=observer, handle_signals=handle_signals,
                )
                if summary.played:
                    folder.add_run(run_entry(started, time.monotonic() - clock, summary.played, where, build))
                # The tables come from the file, checked again: it may have been written to during the run.
                noted = len(folder.notes)
                final = folder.final_records()
                for note in folder.notes[noted:]:
                    observer.note(note)
        except AgentsChanged as exc:
            raise RunError(str(exc), changes=exc.changes) from None
        except JournalError as exc:
            raise RunError(str(exc)) from None

        results = aggregate(final, sprt=config.sprt, tested=tested_agent(plan),
                            games_left=summary.recorded < summary.total)
        results = plan.format.results(plan, results, final)  # its official ranking, columns and rounds
        # The folders that failed to load never played, so games.jsonl knows nothing of them; tournament.json does.
        left_out = read_left_out(folder.meta)
        observer.tables(results, config.sprt, left_out)
        title = f"Tournament {plan.name}"
        try:
            played = how_played(plan.describe(), config.sprt, folder.read_meta(), results, build)
        except JournalError:
            played = []  # tournament.json was spoilt since: the report goes without its settings block
        unfinished = _unfinished(plan, final, summary, shlex.join(resume_with))
        written = write_files(results, output, title, config.sprt, left_out, played, unfinished)
        try:
            written += write_report(results, folder.games, output, title, config.sprt, left_out, played, unfinished)
        except JournalError as exc:  # the file changed again since it was checked
            raise RunError(str(exc)) from None
        return TournamentRun(results, summary, output, folder.games.path, where, written, left_out, plan, unfinished)
