"""``python -m referee tournament CONFIG.yaml [--workers N] [--resume] [-o DIR] [--executor dask --scheduler ADDRESS [--ship-agents]]``.

Exit status: 0 when the schedule is complete (or the SPRT decided), even if
discovered folders failed to load (they are listed last on the console, in
results.md and at the top of report.html; the tournament itself ran), 130 when
stopped by Ctrl-C (the command says how to resume), 2 for a bad config,
command line or output folder (before any game starts) or a games.jsonl whose
records fail the checks (at the start or the end of the run), 1 when the
referee itself failed in some game (those games are not recorded; resume
retries them).
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from ..arguments import ArgumentParser
from ..termination import TERMINATING, Terminated, exit_status, stop_like_ctrl_c
from .aggregate import aggregate
from .config import EXECUTORS, ConfigError, TournamentConfig, load_config, scheduler_problem
from .journal import GAMES_FILE, FolderLock, JournalError
from .lineup import build_lineup
from .runner import META_FILE, OutputFolder, foreign_contents, run_plan, tested_agent
from .report import write_report
from .shipping import ShippingError
from .tables import LEFT_OUT_TITLE, read_left_out, render, write_files

EXIT_DONE, EXIT_REFEREE_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="python -m referee tournament",
        description="Run a round-robin or gauntlet tournament described by a YAML file (see docs/tournament.md).",
    )
    parser.add_argument("config", metavar="CONFIG.yaml", help="the tournament's config")
    parser.add_argument("--workers", type=_positive, metavar="N", help="games at once (default: the config's, else the number of cores)")
    parser.add_argument(
        "--resume", action="store_true",
        help="continue the run in the output folder (an existing folder of the same config is continued anyway; "
        "with --resume, a folder with nothing to continue is an error)",
    )
    parser.add_argument("-o", "--output", metavar="DIR", help="output folder (default: the config's, else results/<name>/)")
    parser.add_argument(
        "--force", action="store_true",
        help="write into an output folder that already holds other files (not a tournament's), overwriting any "
        "that have the names of a tournament's files",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--executor", choices=EXECUTORS, help="where games run (default: the config's, else local); see docs/dask.md")
    parser.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="executor dask: a Dask scheduler's address (tcp://HOST:PORT), or local for a LocalCluster of --workers "
        "workers (implies --executor dask)",
    )
    parser.add_argument(
        "--ship-agents", action=argparse.BooleanOptionalAction, default=None,
        help="executor dask: send the folders of the agents' packages (agents/, submissions/, ...) from here to every "
        "Dask worker, for workers that do not share this folder (default: the config's ship_agents)",
    )
    return parser


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _config_errors(exc: ConfigError) -> int:
    """Every problem of a config, one 'error:' line each (all of them at once, so one edit fixes them)."""
    for problem in exc.problems or [str(exc)]:
        print(f"error: {problem}", file=sys.stderr)
    if len(exc.problems) > 1:
        print(f"{len(exc.problems)} problems; nothing was played.", file=sys.stderr)
    return EXIT_USAGE


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    stop_like_ctrl_c()  # SIGTERM and SIGHUP, too, clean up on the way out
    try:
        return _run(args, argv)
    except KeyboardInterrupt as interrupt:  # while checking agents or writing tables (games handle signals themselves)
        try:
            print(f"\n{'stopped by ' + interrupt.name if isinstance(interrupt, Terminated) else 'interrupted'}", file=sys.stderr)
        except OSError:
            pass  # after SIGHUP the terminal may be gone
        return exit_status(interrupt)


def _run(args: argparse.Namespace, argv: list[str]) -> int:
    try:
        # Agent specs are checked against the folder they are imported from: a typo is named with its line.
        config = load_config(args.config, agents_from=Path.cwd())
    except ConfigError as exc:
        return _config_errors(exc)
    workers = args.workers or config.workers or os.cpu_count() or 1
    if args.scheduler is not None and args.executor == "local":
        return _error("--scheduler is only used by --executor dask")
    if (args.executor or ("dask" if args.scheduler is not None else config.executor)) == "local":
        if args.ship_agents:
            return _error("--ship-agents is only used by --executor dask")
        return _play(args, argv, config, workers, None)
    scheduler = config.scheduler if args.scheduler is None else args.scheduler
    problem = scheduler_problem(scheduler)
    if problem:
        return _error(f"--scheduler: {problem}")
    try:
        from .dask_executor import ClusterError, DaskExecutor  # Dask is an optional extra
    except ImportError as exc:
        return _error(str(exc))
    with DaskExecutor(scheduler, workers) as executor:
        try:
            executor.connect()
        except ClusterError as exc:
            return _error(str(exc))
        return _play(args, argv, config, workers, executor)


def _play(args: argparse.Namespace, argv: list[str], config: TournamentConfig, workers: int, executor) -> int:
    output = Path(args.output) if args.output else config.output
    progress = not args.quiet
    foreign = [] if args.force else foreign_contents(output)
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        return _error(
            f"{output} already exists and is not a tournament's output folder (no {META_FILE} or {GAMES_FILE}; it "
            f"holds {shown}). A tournament writes {META_FILE}, {GAMES_FILE}, the tables, report.html and replays/ "
            "there, overwriting files of the same names. Use another output folder (-o DIR) or an empty one, or "
            "--force to write there anyway."
        )

    try:
        lineup = build_lineup(config, workers=workers, progress=progress)
    except ConfigError as exc:
        return _config_errors(exc)
    for broken in lineup.broken:
        fate = "kept in: it forfeits its games" if broken.kept else "left out"
        print(f"{broken.folder}: {fate}: {broken.message}", file=sys.stderr)
    plan = lineup.plan
    if executor is not None:
        if config.ship_agents if args.ship_agents is None else args.ship_agents:
            from .dask_executor import ClusterError  # Dask is there: the executor is

            try:
                bundle = executor.ship_agents(plan)
            except (ShippingError, ClusterError) as exc:
                return _error(str(exc))
            print(f"shipped {bundle.describe()} to the Dask workers", file=sys.stderr)
        problem = executor.check_agents(plan, skip={b.name for b in lineup.broken if b.kept}, progress=progress)  # kept ones forfeit anyway
        if problem:
            return _error(problem)

    folder = OutputFolder(output, plan)
    if args.resume and not folder.holds_a_run():
        return _error(f"--resume: {output} holds no tournament to continue")
    try:
        with FolderLock(output):
            broken = [{"name": b.name, "folder": b.folder, "error": b.message, "kept": b.kept} for b in lineup.broken]
            done, recorded = folder.open({"config": str(config.path), "broken_agents": broken})
            for note in folder.notes:
                print(note, file=sys.stderr)
            already = f", {len(done)} already recorded" if done else ""
            where = executor.describe() if executor else f"{workers} worker{'s' if workers != 1 else ''}"
            print(
                f"{plan.name}: {len(plan.agents)} agents, {plan.total_games} games ({config.format}{already}), "
                f"{where}, output {output}/",
                file=sys.stderr,
            )
            summary = run_plan(plan, folder, done, recorded, workers=workers, executor=executor, sprt=config.sprt, progress=progress)
            # The tables come from the file, checked again: it may have been written to during the run.
            noted = len(folder.notes)
            final = folder.final_records()
            for note in folder.notes[noted:]:
                print(note, file=sys.stderr)
    except JournalError as exc:
        return _error(str(exc))

    results = aggregate(final, sprt=config.sprt, tested=tested_agent(plan), games_left=summary.recorded < summary.total)
    # The folders that failed to load never played, so games.jsonl knows nothing of them; tournament.json does.
    left_out = read_left_out(folder.meta)
    print(render(results, config.sprt, left_out))
    written = write_files(results, output, f"Tournament {plan.name}", config.sprt, left_out)
    try:
        written += write_report(results, folder.games, output, f"Tournament {plan.name}", config.sprt, left_out)
    except JournalError as exc:  # the file changed again since it was checked
        return _error(str(exc))
    print(f"\nwritten: {', '.join(str(p) for p in written)}")
    if summary.played:
        print(f"{summary.played} games in {summary.seconds:.1f} s ({summary.games_per_minute:.1f} games/min with {where})")
    if left_out:
        # The run itself succeeded (exit 0), but someone's agent did not take part: say so last, where it is seen.
        print(
            f"\nnote: {len(left_out)} discovered folder{'s' if len(left_out) != 1 else ''} failed to load "
            f"({sum(not b.kept for b in left_out)} left out, {sum(b.kept for b in left_out)} kept in to forfeit); "
            f"see '{LEFT_OUT_TITLE}' above, in results.md and at the top of report.html",
            file=sys.stderr,
        )

    if summary.interrupted and summary.recorded < summary.total and not (summary.sprt and summary.sprt.decided):
        command = ["python", "-m", "referee", "tournament", *argv]
        if "--resume" not in command:
            command.append("--resume")
        if not args.output:
            command += ["-o", str(output)]
        print(
            f"\nstopped: {summary.recorded} of {summary.total} games recorded in {folder.games.path}. "
            f"To resume:\n  {shlex.join(command)}",
            file=sys.stderr,
        )
        return 128 + summary.signal if summary.signal in TERMINATING else EXIT_INTERRUPTED
    if summary.referee_failures:
        print(
            f"\n{len(summary.referee_failures)} games failed in the referee itself and were not recorded; "
            "running the same command again retries them.",
            file=sys.stderr,
        )
        return EXIT_REFEREE_FAILED
    return EXIT_DONE
