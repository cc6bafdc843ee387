"""``python -m referee autograde partB``: mark one submission and write Gradescope's results (see the package)."""
from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from ...agent_text import inert_line
from ...hosting.sandbox import Sandbox, SandboxUnavailable, resolve
from ...match import AgentEntry, check_agent, spec_problem
from .. import gradescope
from ..feedback import code_block, paragraphs, plain
from ..gradescope import AutograderResults, LeaderboardEntry
from .games import gauntlet, match_settings, opponent_problems, play_games, write_games
from .marks import Marking, check_tests, marks_text, opponent_test, submission_elo
from .scheme import SCHEME_FILE, SUBMISSION_NAME, Scheme, SchemeError, load_scheme
from .submission import Unplayed, find_agent, nested_note, unplayed
from .turning import turning_points
from ...exit_status import ExitStatus

PROG = "python -m referee autograde partB"


def sandbox_state(sandbox: Sandbox) -> str:
    """``sealed``, ``partly sealed`` or ``unsealed``: what the agents ran under, in the results' extra data."""
    if sandbox.sealed:
        return "sealed"
    return "partly sealed" if sandbox.namespaces or sandbox.cgroup else "unsealed"


def mark(
    scheme: Scheme, submission: Path, games_file: Path, workers: int = 1, users: tuple[dict[str, str], ...] = (),
) -> AutograderResults:
    """Find, load, play and mark one submission; writes every game's record to ``games_file``."""
    start = time.monotonic()
    sandbox = resolve(scheme.sandbox)
    found = find_agent(scheme, submission)
    why = unplayed(found, submission)
    if why is None and found.folder is not None:
        load_error = spec_problem(scheme.agent, found.folder) or check_agent(
            AgentEntry(scheme.agent, SUBMISSION_NAME), match_settings(scheme, found.folder, scheme.seed, {})
        )
        if load_error is not None:
            why = Unplayed("your agent could not be loaded", paragraphs(nested_note(found), code_block(load_error)))
    games = gauntlet(scheme)
    turning: dict[int, str] = {}
    analysed: dict[str, Any] | None = None
    if why is None and found.folder is not None:
        games = play_games(scheme, found.folder, workers)
        write_games(games, games_file)
        # Every game is over: the analysis reads records only, on the cores the games used.
        turning, analysed = turning_points(scheme, games, workers)
    else:
        games_file.unlink(missing_ok=True)  # an earlier run's games would not be this submission's
    marking = Marking(scheme, found, games, why, turning)
    tests = [opponent_test(marking, opponent) for opponent in scheme.opponents] + check_tests(marking)
    limits = ", ".join(filter(None, [
        f"{marks_text(scheme.limits.time_limit)} CPU seconds" if scheme.limits.time_limit else "",
        f"{marks_text(scheme.limits.space_limit)} MB" if scheme.limits.space_limit else "",
    ])) or "no limits"
    lines = [
        f"No game was played: {why.why}." if why is not None else None,
        nested_note(found),
        f"Part B: {scheme.games_per_opponent} games of {scheme.game} against each of "
        f"{', '.join(o.name for o in scheme.opponents)} ({limits} per agent per game).",
    ]
    # No game played, no sandbox to claim (the machine's would say nothing of this submission's games).
    state = sandbox_state(sandbox) if why is None else gradescope.NO_GAME_SANDBOX
    # Said to the student too: a game's result holds only as far as its agents were kept apart.
    if state == "unsealed":
        lines.append("The games were played unsealed: the agents ran as ordinary processes of the grading "
                     "machine, not in a sandbox.")
    elif state == "partly sealed":
        lines.append(f"The games were played partly sealed ({plain(sandbox.describe().partition(': ')[2])}).")
    leaderboard: tuple[LeaderboardEntry, ...] = ()
    elo = submission_elo(games) if why is None else None
    if elo is not None:
        lines.append(f"Your Elo against the reference agents (their mean is 0): {elo:+.0f}.")
        leaderboard = (LeaderboardEntry("Elo", round(elo), "desc"),)
    extra: dict[str, Any] = {"sandbox": state}
    if why is None:
        extra["sandbox_layers"] = sandbox.to_json()
    if analysed is not None and analysed["games"]:
        extra["turning_points"] = analysed
    if users:
        extra["users"] = [dict(user) for user in users]
    return AutograderResults(
        tuple(tests), time.monotonic() - start, paragraphs(*lines), leaderboard, output_format="md", extra_data=extra,
    )


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(ExitStatus.USAGE)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Mark a Part B submission: a gauntlet against reference agents.")
    parser.add_argument("--submission", type=Path, default=gradescope.SUBMISSION_DIR,
                        help=f"the folder holding the package agent/ (default {gradescope.SUBMISSION_DIR})")
    parser.add_argument("--scheme", type=Path, default=None,
                        help=f"the marking scheme (default {SCHEME_FILE} if it exists, else a built-in one)")
    parser.add_argument("--results", type=Path, default=gradescope.RESULTS_FILE,
                        help=f"where results.json goes (default {gradescope.RESULTS_FILE})")
    parser.add_argument("--metadata", type=Path, default=gradescope.METADATA_FILE,
                        help=f"Gradescope's submission metadata, whose users the results name "
                             f"(default {gradescope.METADATA_FILE}; none there: no names)")
    parser.add_argument("--workers", type=int, default=1, help="games played at once (default 1)")
    return parser


def games_file_for(results: Path) -> Path:
    """Where the games' records go: beside the results (``results.json`` -> ``results.games.jsonl``)."""
    return results.with_name(f"{results.stem}.games.jsonl")


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit:
        return int(exit.code or 0)
    if args.workers < 1:
        print(f"{PROG}: error: --workers must be at least 1, not {args.workers}", file=sys.stderr)
        return ExitStatus.USAGE
    submission: Path = args.submission.resolve()
    if not submission.is_dir():
        print(f"{PROG}: error: the submission folder {args.submission} does not exist", file=sys.stderr)
        return ExitStatus.USAGE
    try:
        scheme = load_scheme(args.scheme, submission)
    except SchemeError as exc:
        for problem in exc.problems:
            print(f"{PROG}: error: {problem}", file=sys.stderr)
        return ExitStatus.USAGE
    try:
        resolve(scheme.sandbox)
    except SandboxUnavailable as exc:
        print(f"{PROG}: error: {scheme.where('sandbox')}: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    problems = opponent_problems(scheme, find_agent(scheme, submission).folder or submission)
    for problem in problems:
        print(f"{PROG}: error: {problem}", file=sys.stderr)
    if problems:
        return ExitStatus.USAGE
    users, metadata_problem = gradescope.submission_users(args.metadata)
    if metadata_problem:
        print(f"{PROG}: note: {inert_line(metadata_problem)}")
    results_file: Path = args.results
    games_file = games_file_for(results_file).resolve()
    try:
        results = mark(scheme, submission, games_file, args.workers, users)
        results.write(results_file)
    except OSError as exc:
        print(f"{PROG}: error: cannot write the results: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; no results written", file=sys.stderr)
        return ExitStatus.INTERRUPTED
    print(gradescope.feedback_table(results))
    # The table shows each test's first line; what went wrong, and how to play it again, follows.
    for test in results.tests:
        if test.status == "failed" and "\n" in test.output:
            print(f"\n{test.name}:\n" + "\n".join(f"  {line}" for line in test.output.splitlines()))
    if games_file.exists():
        # For staff (Gradescope shows this console to them only): the records students cannot open.
        print(f"\nEvery game's record is in {games_file}; "
              f"python -m referee replay {shlex.quote(str(games_file))} --game-index N replays game N.")
    print(f"Results written to {results_file}")
    return 0
