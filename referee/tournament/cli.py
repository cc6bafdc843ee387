"""``python -m referee tournament CONFIG.yaml [--workers N] [--resume] [-o DIR] [--executor dask ...]``.

(``--executor dask --scheduler ADDRESS [--ship-agents]``: see docs/dask.md.)

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

from tqdm import tqdm

from ..agent_text import inert, inert_line
from ..arguments import ArgumentParser, whole_number
from ..exit_status import ExitStatus
from ..termination import TERMINATING, report_stop, stop_like_ctrl_c
from .aggregate import Results
from .api import RunError, RunObserver, TournamentRun, make_executor, resume_command, run
from ..hosting.sandbox import resolve
from .executor import stop_resource_tracker
from .formats import formats
from .config import EXECUTORS, ConfigError, TournamentConfig, load_config, scheduler_problem
from .journal import SUPERSEDED_FILE
from .lineup import BrokenAgent
from .schedule import TournamentPlan
from .shipping import AgentBundle
from .sprt import SprtSettings
from .tables import LEFT_OUT_TITLE, LeftOut, render



_positive = whole_number(minimum=1)


def _formats_in_words() -> str:
    """The known formats for -h: "round robin, gauntlet, Swiss, ladder or knockout"."""
    names = [form.title or form.name for form in formats().values()]
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="python -m referee tournament",
        description=f"Run a tournament ({_formats_in_words()}) described by a YAML file (see docs/tournament.md).",
    )
    parser.add_argument("config", metavar="CONFIG.yaml", help="the tournament's config")
    parser.add_argument(
        "--workers", type=_positive, metavar="N", help="games at once (default: the config's, else the number of cores)"
    )
    again = parser.add_mutually_exclusive_group()
    again.add_argument(
        "--resume", action="store_true",
        help="continue the run in the output folder (an existing folder of the same config is continued anyway; "
        "with --resume, a folder with nothing to continue is an error)",
    )
    again.add_argument(
        "--fresh", action="store_true",
        help=f"start the tournament over in the output folder: every recorded game is set aside (moved to "
        f"{SUPERSEDED_FILE}) and the whole schedule played again",
    )
    parser.add_argument(
        "--replay-changed", action="store_true",
        help=f"play again the recorded games of agents whose code changed since (their old records are moved to "
        f"{SUPERSEDED_FILE}); without it, such games stop the run, naming the agents",
    )
    parser.add_argument(
        "-o", "--output", metavar="DIR", help="output folder (default: the config's, else results/<name>/)"
    )
    parser.add_argument(
        "--force", action="store_true",
        help="write into an output folder that already holds other files (not a tournament's), overwriting any "
        "that have the names of a tournament's files",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--executor", choices=EXECUTORS, help="where games run (default: the config's, else local); see docs/dask.md"
    )
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
    return ExitStatus.USAGE


def _config_errors(problems: list[str]) -> int:
    """Every problem of a config or run, one 'error:' line each (all of them at once, so one edit fixes them).

    A problem may quote an agent (its load error; the lineup makes that part
    one line) or a games.jsonl line: shown inert.
    """
    for problem in problems:
        print(f"error: {inert(problem)}", file=sys.stderr)
    if len(problems) > 1:
        print(f"{len(problems)} problems; nothing was played.", file=sys.stderr)
    return ExitStatus.USAGE


def _agents_changed(exc: RunError, argv: list[str]) -> int:
    """Recorded games of agents whose code changed: which, and the two commands that go on."""
    changes = exc.changes
    one = len(changes) == 1
    print(
        f"error: the code of {len(changes)} agent{'' if one else 's'} changed since {'its' if one else 'their'} "
        "games were recorded (the fingerprint of the package's files):",
        file=sys.stderr,
    )
    for change in changes:
        print(f"  {inert_line(change.describe())}", file=sys.stderr)
    again = ["python", "-m", "referee", "tournament", *argv]
    fresh = [arg for arg in again if arg != "--resume"]
    whose = "agent's" if one else "agents'"
    print(
        f"Those games were played by other code, so they are not reused. To play the changed {whose} games again "
        "(the old records are moved to "
        f"{SUPERSEDED_FILE} in the output folder):\n"
        f"  {shlex.join([*again, '--replay-changed'])}\n"
        f"To start the whole tournament over (every record moved there):\n"
        f"  {shlex.join([*fresh, '--fresh'])}\n"
        "Nothing was played.",
        file=sys.stderr,
    )
    return ExitStatus.USAGE


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.fresh and args.replay_changed:
        parser.error("--fresh plays every game again, --replay-changed only the changed agents': give one of them")
    stop_like_ctrl_c()  # SIGTERM and SIGHUP, too, clean up on the way out
    try:
        return _run(args, argv)
    except KeyboardInterrupt as interrupt:  # while checking agents or writing tables (games handle signals themselves)
        return report_stop(interrupt, "\n{how}")
    finally:
        stop_resource_tracker()


class _Console(RunObserver):
    """The command's console output during a run (progress bars aside)."""

    def broken(self, agent: BrokenAgent) -> None:
        fate = "kept in: it forfeits its games" if agent.kept else "left out"
        # The folder's name and its load error are its author's: one inert line.
        print(f"{inert_line(agent.folder)}: {fate}: {inert_line(agent.message)}", file=sys.stderr)

    def shipped(self, bundle: AgentBundle) -> None:
        print(f"shipped {bundle.describe()} to the Dask workers", file=sys.stderr)

    def note(self, text: str) -> None:
        tqdm.write(text, file=sys.stderr)  # above the progress bar, when one is shown

    def starting(self, plan: TournamentPlan, config: TournamentConfig, already: int, where: str, output: Path) -> None:
        recorded = f", {already} already recorded" if already else ""
        # A format may play only the games it needs (a knockout's level ties): its index space is the most.
        games = str(plan.total_games) if plan.format.exact_length else f"at most {plan.total_games}"
        print(
            f"{plan.name}: {len(plan.agents)} agents, {games} games ({plan.format.name}{recorded}), "
            f"{where}, output {output}/",
            file=sys.stderr,
        )
        if config.executor == "local":  # (Dask workers are checked, and say what they have, on their own)
            for weaker in resolve(plan.sandbox).weaker():
                print(f"NOTE: agents are sealed, but weaker: {weaker}", file=sys.stderr)

    def failed(self, index: int, error: str) -> None:
        # The referee's own traceback; shown inert all the same, as it may quote an agent.  (tqdm.write: above
        # the progress bar.)
        tqdm.write(f"game {index} failed in the referee itself (not recorded):\n{inert(error)}")

    def stopping(self, discard: bool) -> None:
        if discard:
            _say_raw("\nstopping: discarding the running games\n")
        else:
            _say_raw("\nstopping: waiting for the running games to finish (Ctrl-C again to discard them)\n")

    def tables(self, results: Results, sprt: SprtSettings | None, left_out: tuple[LeftOut, ...]) -> None:
        print(render(results, sprt, left_out))


def _say_raw(text: str) -> None:
    # Called from a signal handler: one raw write, no buffered I/O to re-enter.
    try:
        os.write(sys.stderr.fileno(), text.encode())
    except (OSError, ValueError):
        pass


def _run(args: argparse.Namespace, argv: list[str]) -> int:
    try:
        # Agent specs are checked against the folder they are imported from: a typo is named with its line.
        config = load_config(args.config, agents_from=Path.cwd())
    except ConfigError as exc:
        return _config_errors(exc.problems)
    workers = args.workers or config.workers or os.cpu_count() or 1
    if args.scheduler is not None and args.executor == "local":
        return _error("--scheduler is only used by --executor dask")
    kind = args.executor or ("dask" if args.scheduler is not None else config.executor)
    if kind == "local" and args.ship_agents:
        return _error("--ship-agents is only used by --executor dask")
    scheduler = config.scheduler if args.scheduler is None else args.scheduler
    problem = scheduler_problem(scheduler) if kind == "dask" else None
    if problem:
        return _error(f"--scheduler: {problem}")
    try:
        executor = make_executor(kind, workers, scheduler)
    except RunError as exc:
        return _config_errors(exc.problems)
    # How to go on after a stop, printed at the end and given in the report: this command, resumed.
    again = resume_command(["python", "-m", "referee", "tournament", *argv], None if args.output else config.output)
    with executor:
        try:
            done = run(
                config, output=args.output, executor=executor, workers=workers, progress=not args.quiet,
                resume=args.resume, force=args.force, ship_agents=args.ship_agents, observer=_Console(),
                replay_changed=args.replay_changed, fresh=args.fresh, handle_signals=True, resume_with=again,
            )
        except RunError as exc:
            if exc.changes:
                return _agents_changed(exc, argv)
            return _config_errors(exc.problems)
    return _finish(done)


def _finish(done: TournamentRun) -> int:
    """The lines after the tables, and the exit status."""
    summary, left_out = done.summary, done.left_out
    print(f"\nwritten: {', '.join(str(p) for p in done.written)}")
    if summary.played:
        print(
            f"{summary.played} games in {summary.seconds:.1f} s "
            f"({summary.games_per_minute:.1f} games/min with {done.where})"
        )
    if left_out:
        # The run itself succeeded (exit 0), but someone's agent did not take part: say so last, where it is seen.
        print(
            f"\nnote: {len(left_out)} discovered folder{'s' if len(left_out) != 1 else ''} failed to load "
            f"({sum(not b.kept for b in left_out)} left out, {sum(b.kept for b in left_out)} kept in to forfeit); "
            f"see '{LEFT_OUT_TITLE}' above, in results.md and at the top of report.html",
            file=sys.stderr,
        )

    stopped = done.unfinished
    if summary.interrupted and stopped is not None:
        print(
            f"\nstopped: {stopped.recorded} of {'' if stopped.exact else 'at most '}{stopped.total} games "
            f"recorded in {done.games_file}. "
            f"To resume:\n  {stopped.resume}",
            file=sys.stderr,
        )
        return 128 + summary.signal if summary.signal in TERMINATING else ExitStatus.INTERRUPTED
    if summary.referee_failures:
        print(
            f"\n{len(summary.referee_failures)} games failed in the referee itself and were not recorded; "
            "running the same command again retries them.",
            file=sys.stderr,
        )
        return ExitStatus.INTERNAL
    return ExitStatus.OK
