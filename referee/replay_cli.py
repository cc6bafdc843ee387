"""``python -m referee replay RECORD``: watch a recorded game again.

RECORD is a record written by ``--record`` (``-`` reads it from stdin), or a
tournament's ``games.jsonl`` with ``--game-index N`` (the N-th line, from 0).
In the terminal it steps through the game (Enter for the next action, or
``--wait SECONDS``); ``--html OUT.html`` writes a self-contained HTML replay
instead.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .games import load_game
from .match import AgentEntry
from .records import GameRecord, RecordError
from .render.frames import ReplayError
from .render.terminal import ConsoleObserver

EXIT_OK, EXIT_USAGE = 0, 2


class SourceError(ValueError):
    """The record could not be read; the message says where and why."""


def read_record(source: str, game_index: int | None = None) -> GameRecord:
    """One record from a JSON file, ``-`` (stdin) or a line of a JSONL file."""
    name = "standard input" if source == "-" else source
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise SourceError(f"cannot read {name}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise SourceError(f"{name} is not a text file") from None
    if game_index is None:
        try:
            return GameRecord.from_json(text)
        except RecordError as exc:
            lines = [line for line in text.splitlines() if line.strip()]
            if len(lines) > 1 and all(line.startswith("{") for line in lines):
                raise SourceError(f"{name} holds {len(lines)} records (a games.jsonl?): choose one with --game-index N") from None
            raise SourceError(f"{name}: {exc}") from None
    lines = text.splitlines()
    records = [(i, line) for i, line in enumerate(lines, 1) if line.strip()]
    if not 0 <= game_index < len(records):
        raise SourceError(f"{name} has {len(records)} games; --game-index must be 0..{len(records) - 1}")
    line_number, line = records[game_index]
    try:
        return GameRecord.from_json(line)
    except RecordError as exc:
        raise SourceError(f"{name}, line {line_number}: {exc}") from None


def write_html(record: GameRecord, out: str) -> None:
    from .render.html_replay import replay_html

    Path(out).write_text(replay_html(record), encoding="utf-8")


def replay_in_terminal(record: GameRecord, observer: ConsoleObserver) -> None:
    game = load_game(record.game, **dict(record.game_options))
    state = game.new_state()
    observer.started(game, state, AgentEntry(record.red, record.red_name), AgentEntry(record.blue, record.blue_name))
    for i, text in enumerate(record.actions):
        mover = state.current_player
        try:
            state.apply_checked(state.parse_action(text))
        except ValueError as exc:
            raise ReplayError(f"action {i + 1} of the record ({text!r}) cannot be replayed: {exc}") from None
        observer.action(mover, text, state)
    if record.error and any(record.error.values()):
        for color, error in record.error.items():
            if error:
                observer.emit(1, f"{color} agent failed ({error.get('kind')}): {error.get('message')}")
    observer.finished(record, state)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee replay", description=__doc__.splitlines()[0])
    parser.add_argument("record", metavar="RECORD", help="a record JSON file, '-' for stdin, or a games.jsonl")
    parser.add_argument("--game-index", type=int, default=None, metavar="N", help="the N-th game (from 0) of a games.jsonl")
    parser.add_argument("--html", metavar="OUT.html", help="write a self-contained HTML replay instead")
    parser.add_argument(
        "-w", "--wait", type=float, default=None, metavar="SECONDS",
        help="pause between actions in the terminal (negative: wait for Enter, the default when "
        "input is a terminal; 0: no pause)",
    )
    parser.add_argument("-c", "--colour", "--color", dest="color", action="store_true", default=None)
    parser.add_argument("-C", "--colourless", "--colorless", dest="color", action="store_false")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        record = read_record(args.record, args.game_index)
        if args.html:
            write_html(record, args.html)
            print(f"wrote {args.html}", file=sys.stderr)
            return EXIT_OK
        tty = sys.stdout.isatty()
        observer = ConsoleObserver(
            verbosity=2,
            use_color=tty if args.color is None else args.color,
            use_unicode=tty,
            wait=args.wait if args.wait is not None else (-1 if sys.stdin.isatty() else 0),
        )
        replay_in_terminal(record, observer)
    except (SourceError, ReplayError) as exc:
        print(f"python -m referee replay: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"python -m referee replay: error: cannot write {args.html}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK

