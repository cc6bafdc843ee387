"""The referee's commentary in a terminal (and a log file), by verbosity.

Lines start with ``* referee @`` as the course referee's did; the last line
is always ``* referee @ result: ...``.

* 0: the result line only;
* 1: + commentary (each action, failures with their traceback);
* 2: + the board after each action, and what the agents printed (students
  debug with ``print``), each line prefixed with the agent's colour; in a
  game of several actions a turn (Infinitron: ``one_action_per_turn`` is
  False) the board once a turn, after its last action, the turn's actions
  listed above it (a chance event's before the turn it opens);
* 3: + each call's CPU time, wall time and memory, and the board after every
  action in every game.

Whatever an agent controls (what it printed, its failure's message and
traceback, a record's names and error text) is shown inert
(:mod:`referee.agent_text`): its control characters escaped, and each of
its lines after a prefix of the referee's, so none can pass for a
``* referee @`` line.
"""
from __future__ import annotations

import os
import re
import sys
import time
from typing import TextIO

from ..agent_text import inert, inert_line
from ..games.base import CHANCE, PLAYER_NAMES, Game, GameState
from ..hosting.failures import AgentFailure
from ..hosting.process import CallStats
from ..limits import at_odds, limits_text
from ..core import ending_message
from ..match import AgentEntry, MatchObserver
from ..records import GameRecord, memory_text

PREFIX = "* referee @ "
_ANSI = re.compile(r"\033\[[0-9;]*m")
_COLORS = {"RED": "\033[1;31m", "BLUE": "\033[1;34m"}
_RESET = "\033[0m"


def result_line(record: GameRecord) -> str:
    """The last line: who won, or draw, and why (the reason and the agent's message made inert)."""
    # A replayed record may have been edited: its reason is shown as inert as the agent's message.
    reason = inert_line(record.reason)
    if record.forfeit and record.winner is not None:  # both failing is a draw, said by its reason alone
        reason = f"{record.loser} {reason}: {_first_line(_error_message(record))}"
    return f"result: {ending_message(record.winner, reason)}"


def _error_message(record: GameRecord) -> str:
    error = record.error.get(record.loser or "") or {}
    return str(error.get("message") or "")


def _first_line(text: str) -> str:
    """The first line of an agent's message, inert (escaped first: a ``\\r`` stays in the line, shown)."""
    text = inert(text).strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= 200 else line[:197] + "..."


def _span(first: int, last: int) -> str:
    """``action 7`` or ``actions 7 to 12``."""
    return f"action {last}" if first == last else f"actions {first} to {last}"


class ConsoleObserver(MatchObserver):
    """Prints the game as it goes to ``out`` and, without colour, to ``log``."""

    def __init__(
        self,
        verbosity: int = 2,
        use_color: bool = False,
        use_unicode: bool = False,
        wait: float = 0.0,
        out: TextIO | None = None,
        log: TextIO | None = None,
        board_each_action: bool = False,
    ):
        """``board_each_action``: the board after every action at verbosity 2 in a game of several actions
        a turn too (a replay stepped by keys shows the position each step reaches)."""
        self.verbosity = verbosity
        self.board_each_action = board_each_action or verbosity >= 3
        self.turn_boards = False  # the board once a turn (set when the game starts)
        self.turns = 0  # the players' turns ended so far
        self.turn_started = 0  # the number of the turn's first action (chance's included)
        self.use_color = use_color
        self.use_unicode = use_unicode
        self.wait = wait
        self.out = out or sys.stdout
        self.log = log
        self.count_word = "turn"

    # -- output -----------------------------------------------------------------

    def emit(self, level: int, text: str, prefix: bool = True) -> None:
        if level > self.verbosity:
            return
        lines = text.splitlines() or [""]
        shown = "\n".join((PREFIX + line) if prefix else line for line in lines)
        if not self.use_color:
            shown = _ANSI.sub("", shown)
        try:
            print(shown, file=self.out, flush=True)
        except BrokenPipeError:
            # The reader went away (e.g. `| head`): keep refereeing quietly,
            # so the game still ends in a result and its record is written.
            self.out = open(os.devnull, "w")
        if self.log is not None:
            print(_ANSI.sub("", shown), file=self.log, flush=True)

    def color(self, name: str) -> str:
        return f"{_COLORS[name]}{name}{_RESET}" if self.use_color and name in _COLORS else name

    # -- hooks ----------------------------------------------------------------

    def started(self, game: Game, state: GameState, red: AgentEntry, blue: AgentEntry) -> None:
        self.count_word = "turn" if game.one_action_per_turn else "action"
        self.turn_boards = not (game.one_action_per_turn or self.board_each_action)
        self.turns, self.turn_started = 0, state.move_count + 1
        red_name, blue_name = self.color("RED"), self.color("BLUE")
        # A replay's names come from a record, which may have been edited.
        red_shown, blue_shown = inert_line(red.display_name), inert_line(blue.display_name)
        self.emit(1, f"playing {game.name}: {red_name} is {red_shown}, {blue_name} is {blue_shown}")
        if red.limits is not None and blue.limits is not None and at_odds(red.limits, blue.limits):
            sides = (f"{self.color(name)} {limits_text(limits.time_limit, limits.space_limit)}"
                     for name, limits in (("RED", red.limits), ("BLUE", blue.limits)))
            self.emit(1, "at odds: " + "; ".join(sides))

    def action(self, color: int, text: str, state: GameState) -> None:
        self.emit(1, self.action_line(color, text, state))
        if not self.turn_boards:
            self.board(state)
        elif color != CHANCE and (state.is_over or state.current_player != color):
            self.turn_board(color, state)
        else:
            return  # within a turn of several actions: the pause comes when the turn ends
        if self.wait < 0:
            try:
                input("(press Enter for the next turn)")
            except EOFError:
                self.wait = 0
        elif self.wait > 0:
            time.sleep(self.wait)

    def board(self, state: GameState) -> None:
        """The board and the standing (verbosity 2 and up)."""
        if self.verbosity >= 2:
            self.emit(2, state.render(use_color=self.use_color, use_unicode=self.use_unicode))
            summary = state.summary()
            if summary:
                self.emit(2, summary)

    def turn_board(self, color: int, state: GameState) -> None:
        """The board after ``color``'s turn (in a game of several actions a turn), headed by which turn it was.

        The turn's actions are the action lines just above (verbosity 1 and up).
        """
        self.turns += 1
        first, last = self.turn_started, state.move_count
        self.turn_started = last + 1
        if self.verbosity >= 2:
            self.emit(2, f"the board after {self.color(PLAYER_NAMES[color])}'s turn {self.turns} "
                         f"({_span(first, last)}):")
            self.board(state)

    def action_line(self, color: int, text: str, state: GameState) -> str:
        """``turn N: RED plays action ...`` (or chance's), N being the actions applied so far."""
        label = f"{self.count_word} {state.move_count}"
        text = inert_line(text)  # a replay shows the record's text, which the game's parser accepted, not wrote
        if color == CHANCE:
            return f"{label}: chance: {text}"
        return f"{label}: {self.color(PLAYER_NAMES[color])} plays action {text}"

    def call(self, color: int, stats: CallStats, output: str) -> None:
        name = PLAYER_NAMES[color]
        self.emit(
            3,
            f"{name} {stats.op}(): {stats.cpu * 1000:.1f} ms CPU, {stats.wall * 1000:.1f} ms wall, "
            f"peak memory {memory_text(stats.memory_mb)} MB above baseline",
        )
        self.output(color, output)

    def output(self, color: int, output: str) -> None:
        """What the agent printed (bounded by the host: 64 KB a call), a line each, after its colour.

        Made inert first, so its only line breaks are its newlines: each of
        its lines starts with the label, whatever it printed (``\\r``, an
        erase-line, a cursor move: shown escaped).
        """
        if self.verbosity < 2:
            return
        label = self.color(PLAYER_NAMES[color])
        for line in inert(output).splitlines():
            self.emit(2, f"  {label} | {line}", prefix=False)

    def failed(self, color: int, failure: AgentFailure) -> None:
        name = self.color(PLAYER_NAMES[color])
        # The message is one line (a newline in it would start a line of its own, after the referee's prefix);
        # the traceback keeps its lines, each indented, so none starts like the referee's.
        self.emit(1, f"{name} agent failed ({failure.reason}): {inert_line(failure.message)}")
        if failure.traceback:
            lines = inert(failure.traceback).rstrip().splitlines()
            self.emit(1, "\n".join("  " + line for line in lines), prefix=False)

    def finished(self, record: GameRecord, state: GameState) -> None:
        if self.turn_boards and self.turn_started <= state.move_count:
            # A turn cut short (a forfeit, a stop): its board too, as far as it went.
            self.emit(2, f"the board where the game stopped ({_span(self.turn_started, state.move_count)}):")
            self.board(state)
        reason = inert_line(record.reason)
        if record.winner is None:
            self.emit(1, f"game over, draw ({reason})")
        else:
            self.emit(1, f"game over, winner is {self.color(record.winner)} ({reason})")
        self.emit(0, result_line(record))
