"""``python -m referee analyse RECORD [--html FILE]``: where a game was won and lost, judged by a bundled engine."""
from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

from tqdm import tqdm

from ..arguments import ArgumentParser
from ..exit_status import ExitStatus
from ..games.frames import ReplayError
from ..records import GameRecord, RecordError
from ..render.frames import has_viewer
from ..replay.cli import SourceError, read_record
from .engine import DEFAULT_DEPTH, DEFAULT_ITERATIONS, ENGINES, EngineSettings
from .html_page import write_html
from .runner import AnalysisError, Cache, analyse, default_cache
from .text import summary

PROG = "python -m referee analyse"
DESCRIPTION = (
    "Judge every decision of a recorded game with a bundled engine: Red's chance of winning along the game, the "
    "inaccuracies, mistakes and blunders with the engine's action, and the turning point of the loser's game."
)
#: How long a battleground's /api/games/ID may take to answer (s).
FETCH_TIMEOUT = 30


def read_source(source: str, game_index: int | None) -> GameRecord:
    """The record to analyse: a file (as ``replay`` reads it) or a battleground's ``http://.../api/games/ID``."""
    if not source.startswith(("http://", "https://")):
        return read_record(source, game_index)
    try:
        with urllib.request.urlopen(source, timeout=FETCH_TIMEOUT) as response:
            text = response.read().decode("utf-8")
    except (OSError, ValueError, urllib.error.URLError) as exc:
        raise SourceError(f"cannot fetch {source}: {getattr(exc, 'reason', exc)}") from None
    try:
        return GameRecord.from_json(text)
    except RecordError as exc:
        raise SourceError(f"{source} is not a game record: {exc}") from None


def main(argv: list[str]) -> int:
    parser = ArgumentParser(prog=PROG, description=DESCRIPTION)
    parser.add_argument("record", metavar="RECORD",
                        help="a record JSON file, a tournament's games.jsonl (with --game-index), '-' for standard "
                        "input, or a battleground game's http://HOST:PORT/api/games/ID")
    parser.add_argument("--game-index", type=int, default=None, metavar="N",
                        help="in a tournament's games.jsonl, the game with index N (as in its report.html)")
    parser.add_argument("--engine", choices=ENGINES, default="mcts",
                        help="the engine that judges each position (default mcts; docs/analysis.md says how)")
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS, metavar="N",
                        help=f"MCTS simulations a position (default {DEFAULT_ITERATIONS}; more: deeper and slower)")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH, metavar="PLIES",
                        help=f"minimax's depth (default {DEFAULT_DEPTH})")
    parser.add_argument("--time", type=float, default=None, metavar="SECONDS",
                        help="think this long a position instead of a fixed effort (results then vary from run to run)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the engine's samples (default 0)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="positions judged at once, each in a process of its own (default: the number of cores)")
    parser.add_argument("--no-cache", action="store_true",
                        help=f"judge every position again (by default evaluations are kept in {default_cache()} "
                        "and a second run of the same game at the same settings is instant)")
    parser.add_argument("--html", metavar="FILE", default=None,
                        help="also write the analysis as a web page: the replay with the graph (click it to go to a "
                        "position), the marked decisions and the engine's decision drawn on the board")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress bar (with --html: only the page, no summary in the terminal)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        settings = EngineSettings(args.engine, args.iterations, args.depth, args.time, args.seed)
    except ValueError as exc:
        parser.print_usage(sys.stderr)
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    if workers < 1:
        parser.print_usage(sys.stderr)
        print(f"{PROG}: error: --workers must be at least 1, not {workers}", file=sys.stderr)
        return ExitStatus.USAGE
    problem = args.html and html_path_problem(args.html)
    if problem:  # said now, not after the analysis's minute
        print(f"{PROG}: error: cannot write {args.html}: {problem}", file=sys.stderr)
        return ExitStatus.USAGE
    try:
        record = read_source(args.record, args.game_index)
        if args.html and not has_viewer(record.game):
            raise ReplayError(f"no web page for the game {record.game!r}: its registration names no replay frames")
        cache = Cache(None if args.no_cache else default_cache())
        with tqdm(desc="analysing", unit="position", disable=args.quiet, file=sys.stderr, leave=False) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            analysis = analyse(record, settings, workers=workers, cache=cache, progress=progress)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted (the positions judged so far are kept in the cache)", file=sys.stderr)
        return ExitStatus.INTERRUPTED
    except (SourceError, AnalysisError, ReplayError, OSError) as exc:  # OSError: the cache's file cannot be written
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    if not (args.quiet and args.html):
        print(summary(analysis), flush=True)
    if args.html:
        try:
            write_html(analysis, args.html)
        except ReplayError as exc:
            print(f"{PROG}: error: {exc}", file=sys.stderr)
            return ExitStatus.USAGE
        except OSError as exc:
            print(f"{PROG}: error: cannot write {args.html}: {exc.strerror or exc}", file=sys.stderr)
            return ExitStatus.USAGE
        if not args.quiet:
            print(f"wrote {args.html}", file=sys.stderr)
    return ExitStatus.OK


def html_path_problem(out: str) -> str | None:
    """Why the page cannot be written to ``out`` (checked before the analysis), or None."""
    path = Path(out)
    folder = path.parent
    if path.is_dir():
        return "it is a folder"
    if not folder.is_dir():
        return f"no folder {folder}"
    if not os.access(folder, os.W_OK) or path.exists() and not os.access(path, os.W_OK):
        return "permission denied"
    return None


__all__ = ["main", "read_source"]
