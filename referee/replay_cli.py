"""``python -m referee replay RECORD``: watch a recorded game again.

RECORD is a record written by ``--record`` (``-`` reads it from stdin), or a
tournament's ``games.jsonl`` with ``--game-index N``: the tournament's game N
(``extra.game_index``, the number the report, its ``replays/game-N.html`` and
the tournament's messages use; not the line, as games are appended in the
order they finish).  A file of records without game indices (plain
``--record`` outputs, one per line) is counted by record instead, from 0.
In the terminal it steps through the game (Enter for the next action, or
``--wait SECONDS``); ``--html OUT.html`` writes a self-contained HTML replay
instead.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from .arguments import ArgumentParser
from .games import load_game
from .match import AgentEntry
from .records import GameRecord, RecordError, game_index_of
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
    return _select(name, text, game_index)


def _select(name: str, text: str, game_index: int) -> GameRecord:
    """The record of tournament game ``game_index`` in a JSONL text (by position if no record has an index)."""
    lines = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    indexed: dict[int, int] = {}  # game index -> position in ``lines``; the first copy, as the tables count it
    unreadable: list[int] = []
    for position, (number, line) in enumerate(lines):
        try:
            index = game_index_of(json.loads(line).get("extra"))
        except (ValueError, AttributeError):
            unreadable.append(number)  # e.g. a torn last line; reported only if the game is not found
            continue
        if index is not None:
            indexed.setdefault(index, position)
    if indexed:
        if game_index not in indexed:
            found = f"its {len(indexed)} games have indices {min(indexed)}..{max(indexed)}"
            if len(indexed) <= max(indexed) - min(indexed):
                found += " with gaps"
            skipped = f"; unreadable lines: {', '.join(map(str, unreadable[:5]))}" if unreadable else ""
            raise SourceError(f"{name} has no game with --game-index {game_index} ({found}{skipped})")
        number, line = lines[indexed[game_index]]
    else:
        # No tournament indices: plain records, one per line, counted from 0.
        if not 0 <= game_index < len(lines):
            raise SourceError(f"{name} has {len(lines)} records and no game indices; --game-index must be 0..{len(lines) - 1}")
        number, line = lines[game_index]
    try:
        return GameRecord.from_json(line)
    except RecordError as exc:
        raise SourceError(f"{name}, line {number}: {exc}") from None


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
    parser = ArgumentParser(prog="python -m referee replay", description=__doc__.splitlines()[0])
    parser.add_argument("record", metavar="RECORD", help="a record JSON file, '-' for standard input, or a games.jsonl")
    parser.add_argument(
        "--game-index", type=int, default=None, metavar="N",
        help="in a tournament's games.jsonl, the game with index N (as in its report.html; not the line number)",
    )
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

