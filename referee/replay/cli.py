"""``python -m referee replay RECORD``: watch a recorded game again.

RECORD is a record written by ``--record`` (``-`` reads it from stdin), or a
tournament's ``games.jsonl`` with ``--game-index N``: the tournament's game N
(``extra.game_index``, the number the report, its ``replays/game-N.html`` and
the tournament's messages use; not the line, as games are appended in the
order they finish).  A file of records without game indices (plain
``--record`` outputs one per line, such as web play's ``--record`` file) is
counted by record instead, from 0.
In the terminal it steps through the game, each key at once on a terminal
(``n``/Space/Enter/Right the next action, ``p``/``b``/Left back one, Home the
start, ``e``/End the end, a number then Enter that action, ``q`` quits;
Ctrl-C quits too) and by lines from a pipe (the same letters, each then
Enter), listed on screen; or it plays on by itself with ``--wait SECONDS``.
``--html OUT.html`` writes a self-contained HTML replay instead.  Both say so
when the record's actions do not lead to its recorded result (a record cut
short or edited).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..agent_text import inert_line
from ..arguments import ArgumentParser
from ..console import ConsoleReader
from ..games import recorded_game
from ..match import AgentEntry
from ..records import PERSON_REASONS, GameRecord, RecordError, game_index_of
from ..games.base import GameRuleError, GameState
from ..render.frames import ReplayError, record_mismatch
from ..render.terminal import ConsoleObserver
from ..exit_status import ExitStatus


#: What ``-h`` says the command does: the module's docstring is for developers (it names options in reST).
DESCRIPTION = "Watch a recorded game again, step by step in the terminal, or write it as an HTML page."

#: The commands of the terminal replay read by lines (input from a pipe or a file), as shown on screen.
KEYS = (
    "Enter or n: next action, p or b: back one, a number: go to that action, e: the end, "
    "q: quit (Ctrl-C quits too)"
)
#: The keys of the terminal replay on a terminal, where each works at once (no Enter).
RAW_KEYS = (
    "n, Space, Enter or Right: next action; p, b or Left: back one; Home: the start; e or End: the end; "
    "digits then Enter (or g): go to that action; q: quit (Ctrl-C quits too)"
)

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
                raise SourceError(
                    f"{name} holds {len(lines)} records (a tournament's games.jsonl, or web play's --record file):"
                    f" choose one with --game-index N (0..{len(lines) - 1} when they are in the order played)"
                ) from None
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
            raise SourceError(
                f"{name} has {len(lines)} records and no game indices; --game-index must be 0..{len(lines) - 1}"
            )
        number, line = lines[game_index]
    try:
        return GameRecord.from_json(line)
    except RecordError as exc:
        raise SourceError(f"{name}, line {number}: {exc}") from None


def write_html(record: GameRecord, out: str) -> None:
    from ..render.html_replay import replay_html

    Path(out).write_text(replay_html(record), encoding="utf-8")


def _replayed(record: GameRecord) -> GameState:
    """The record's game after all its actions; ReplayError naming the first that cannot be applied."""
    state = recorded_game(record.game, record.game_options).new_state()
    for i, text in enumerate(record.actions):
        try:
            state.apply_checked(state.parse_action(text))
        except (ValueError, GameRuleError) as exc:  # not an action of the game, or one its rules forbid there
            raise ReplayError(f"action {i + 1} of the record ({text!r}) cannot be replayed: {exc}") from None
    return state


class TerminalReplay:
    """A record's game shown in the terminal, one action at a time, forward and back."""

    def __init__(self, record: GameRecord, observer: ConsoleObserver):
        # The whole record is replayed first: a bad action is reported before
        # anything is shown, and a record whose actions do not lead to its
        # result is flagged at the start, not only at the end.
        self.warning = record_mismatch(record, _replayed(record))
        self.record = record
        self.observer = observer
        self.game = recorded_game(record.game, record.game_options)
        self.state = self.game.new_state()
        self.movers: list[int] = []  # who made each action shown so far, to show it again on the way back

    @property
    def shown(self) -> int:
        """How many actions are applied."""
        return len(self.movers)

    @property
    def at_end(self) -> bool:
        return self.shown == len(self.record.actions)

    def start(self) -> None:
        record = self.record
        red, blue = AgentEntry(record.red, record.red_name), AgentEntry(record.blue, record.blue_name)
        self.observer.started(self.game, self.state, red, blue)
        if self.warning:
            self.observer.emit(0, f"WARNING: {inert_line(self.warning)}")  # it quotes the record's reason
        if not record.actions:
            self.finish()

    def forward(self) -> None:
        """Show the next action; the ending with the last."""
        state = self.state
        self.movers.append(state.current_player)
        text = self.record.actions[self.shown - 1]
        state.apply_checked(state.parse_action(text))
        self.observer.action(self.movers[-1], text, state)
        if self.at_end:
            self.finish()

    def back(self) -> None:
        """Take back the last action shown and show the board before it."""
        observer = self.observer
        if not self.movers:
            observer.emit(1, "already at the start of the game")
            return
        self.state.undo()
        self.movers.pop()
        if self.movers:
            text = self.record.actions[self.shown - 1]
            observer.emit(1, "back to " + observer.action_line(self.movers[-1], text, self.state))
        else:
            observer.emit(1, "back to the start of the game")
        observer.board(self.state)

    def finish(self) -> None:
        """The end of the record: agents' failures, the mismatch warning again, the result."""
        record, observer = self.record, self.observer
        for color, error in (record.error or {}).items():
            if error:
                # The agent's message (and, in an edited record, anything here) is shown inert, on one line.
                kind, message = inert_line(str(error.get("kind"))), inert_line(str(error.get("message")))
                observer.emit(1, f"{inert_line(str(color))} agent failed ({kind}): {message}")
        if record.reason in PERSON_REASONS and record.message:
            observer.emit(1, inert_line(record.message))  # who resigned or stopped, and when
        if self.warning:
            observer.emit(0, f"WARNING: {inert_line(self.warning)}")
        observer.finished(record, self.state)

    def play_on(self) -> None:
        """Every action left (the observer pauses as its ``wait`` says)."""
        while not self.at_end:
            self.forward()

    def go_to(self, number: int) -> None:
        """Show the board after action ``number`` (0: the start), however far; the ending with the last."""
        total = len(self.record.actions)
        if not 0 <= number <= total:
            self.observer.emit(1, f"no action {number}: this game has {total} actions, give 0..{total}")
        elif number == self.shown:
            self.observer.emit(1, f"already at action {number}" if number else "already at the start of the game")
        elif number > self.shown:
            # The actions on the way are applied without showing them; the last is shown as a step forward is.
            while self.shown < number - 1:
                self.movers.append(self.state.current_player)
                self.state.apply_checked(self.state.parse_action(self.record.actions[self.shown - 1]))
            self.forward()
        else:
            while self.shown > number + 1:
                self.state.undo()
                self.movers.pop()
            self.back()

    def do(self, command: str) -> bool:
        """Carry out one command (``next``, ``back``, ``start``, ``end``, ``quit``, or an action's number).

        False once the replay is to stop.
        """
        if command == "next":
            if self.at_end:
                return False
            self.forward()
        elif command == "back":
            self.back()
        elif command == "start":
            self.go_to(0)
        elif command == "end":
            if self.at_end:
                self.observer.emit(1, "already at the end of the game")
            else:
                self.go_to(len(self.record.actions))
        elif command == "quit":
            self.observer.emit(1, f"replay stopped after {self.shown} of {len(self.record.actions)} actions")
            return False
        else:
            self.go_to(int(command))
        return True

    def by_lines(self, reader: ConsoleReader) -> None:
        """Step as the lines typed say (:data:`KEYS`); end of input plays the rest."""
        observer = self.observer
        observer.emit(1, f"keys: {KEYS}")
        while self.record.actions:
            prompt = (
                "(end of the game: p/b back, Enter or q quit) " if self.at_end
                else "(Enter/n next, p/b back, N: to action N, e end, q quit) "
            )
            try:
                key = reader.line(prompt, observer.out).strip().lower()
            except EOFError:
                print(file=observer.out)  # end the prompt's line
                self.play_on()
                return
            command = _LINE_COMMANDS.get(key, key if key.isdigit() else None)
            if command is None:
                observer.emit(1, f"unknown key {key!r}; keys: {KEYS}")
            elif not self.do(command):
                return

    def by_keys(self, reader: ConsoleReader) -> None:
        """Step as each key pressed says (:data:`RAW_KEYS`), at once: the terminal is in cbreak mode."""
        observer, out = self.observer, self.observer.out
        observer.emit(1, f"keys: {RAW_KEYS}")
        total = len(self.record.actions)
        # The prompt is taken off the screen before what a key shows (on a terminal; elsewhere its line is ended).
        clear = "\r\x1b[K" if out.isatty() else "\n"
        digits = ""
        while total:
            if not digits:
                where = (
                    "end of the game: Enter or q quits" if self.at_end
                    else "n next, p back, e end, N Enter: to N, q quit"
                )
                out.write(f"[{self.shown}/{total}] ({where}) ")
                out.flush()
            key = reader.key()
            if key.isdigit() and len(key) == 1:
                digits += key
                out.write(key if len(digits) > 1 else f"{clear}go to action: {key}")
                out.flush()
                continue
            if digits and key == "backspace":
                digits = digits[:-1]
                out.write("\b \b" if digits else clear)  # the last digit gone: the prompt comes back
                out.flush()
                continue
            out.write(clear)
            if digits:
                typed, digits = digits, ""
                if key in ("enter", "g"):
                    self.go_to(int(typed))
                continue  # any other key lets the number go
            if key == "enter" and self.at_end:
                return
            command = _KEY_COMMANDS.get(key.lower() if len(key) == 1 else key)
            if command == "next" and self.at_end:
                observer.emit(1, "the end of the game: Enter or q quits, p goes back")
            elif command is None:
                if key not in ("escape", ""):
                    observer.emit(1, f"keys: {RAW_KEYS}")
            elif not self.do(command):
                return


#: What a typed line asks for (besides an action's number), read by lines.
_LINE_COMMANDS = {"": "next", "n": "next", "p": "back", "b": "back", "e": "end", "end": "end", "q": "quit"}
#: What a key asks for, read key by key (digits are gathered into an action's number).
_KEY_COMMANDS = {
    "enter": "next", "n": "next", " ": "next", "right": "next", "down": "next",
    "p": "back", "b": "back", "left": "back", "up": "back",
    "home": "start", "e": "end", "end": "end", "q": "quit", "eof": "quit",
}


def replay_in_terminal(record: GameRecord, observer: ConsoleObserver, keys: bool = False) -> None:
    """Show the record's game in the terminal.

    With ``keys`` the viewer steps through it by commands read from standard
    input: each key at once when it is a terminal (:data:`RAW_KEYS`), else
    by lines (:data:`KEYS`); otherwise it shows every action, pausing as
    ``observer.wait`` says.
    """
    replay = TerminalReplay(record, observer)
    replay.start()
    if not keys:
        replay.play_on()
        return
    fd = sys.stdin.fileno()
    terminal = os.isatty(fd)
    with ConsoleReader(fd, keys=terminal) as reader:
        if terminal:
            replay.by_keys(reader)
        else:
            replay.by_lines(reader)


def main(argv: list[str]) -> int:
    parser = ArgumentParser(prog="python -m referee replay", description=DESCRIPTION)
    parser.add_argument("record", metavar="RECORD", help="a record JSON file, '-' for standard input, or a games.jsonl")
    parser.add_argument(
        "--game-index", type=int, default=None, metavar="N",
        help="in a tournament's games.jsonl, the game with index N (as in its report.html; not the line number)",
    )
    parser.add_argument("--html", metavar="OUT.html", help="write a self-contained HTML replay instead")
    parser.add_argument(
        "-w", "--wait", type=float, default=None, metavar="SECONDS",
        help="pause between turns in the terminal (negative: step by keys, the default when input is a "
        "terminal: " + RAW_KEYS + "; from a pipe, lines: " + KEYS + "; 0: no pause)",
    )
    parser.add_argument("-c", "--colour", "--color", dest="color", action="store_true", default=None,
                        help="ANSI colour (the default on a terminal)")
    parser.add_argument("-C", "--colourless", "--colorless", dest="color", action="store_false", help="no colour")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        record = read_record(args.record, args.game_index)
        if args.html:
            write_html(record, args.html)
            print(f"wrote {args.html}", file=sys.stderr)
            return ExitStatus.OK
        tty = sys.stdout.isatty()
        wait = args.wait if args.wait is not None else (-1 if sys.stdin.isatty() else 0)
        observer = ConsoleObserver(
            verbosity=2,
            use_color=tty if args.color is None else args.color,
            use_unicode=tty,
            wait=max(wait, 0),  # a negative wait means keys, read here rather than by the observer
            board_each_action=wait < 0,  # stepping by keys shows every step's position
        )
        replay_in_terminal(record, observer, keys=wait < 0)
    except KeyboardInterrupt:
        # Ctrl-C is a way out, not a crash: end the line the prompt was on.
        print(file=sys.stdout, flush=True)
        print("python -m referee replay: interrupted", file=sys.stderr)
        return ExitStatus.INTERRUPTED
    except (SourceError, ReplayError) as exc:
        print(f"python -m referee replay: error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    except OSError as exc:
        print(f"python -m referee replay: error: cannot write {args.html}: {exc.strerror}", file=sys.stderr)
        return ExitStatus.USAGE
    return ExitStatus.OK

