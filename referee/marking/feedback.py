"""A graded game told to the student who cannot see the autograder's files: Markdown feedback.

Gradescope shows a test's ``output`` to the student, and nothing else of the
grader: not its records, not its console.  So the feedback on a game that
was not won carries what is needed to understand and repeat it: what
happened in words, the agent's error with the end of its traceback and of
what it printed, the game's moves, a drawing of the final position, and the
command that plays the same game again (:func:`play_command`).

The feedback is Markdown (Gradescope's ``output_format: md``).  Whatever an
agent controls (its messages, tracebacks, printed text) goes only into
code blocks and code spans, each fenced by more backticks than the text
holds and made inert (:mod:`referee.agent_text`): it shows as written and
cannot become a link, an image or HTML.
"""
from __future__ import annotations

import json
import math
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from ..agent_text import inert, inert_line
from ..games import DEFAULT_GAME, game_class, recorded_game, registration
from ..games.base import CHANCE, PLAYER_NAMES
from ..limits import DEFAULT_GRACE, Limits
from ..records import GameRecord

#: At most this many lines of moves; a longer game shows its last ones (the command plays it all again).
MAX_MOVE_LINES = 180
#: A turn of many actions (Infinitron's commands) is cut to this many characters on its line.
MAX_TURN_CHARS = 160
#: The end of a traceback, and of what an agent printed, that is shown.
TRACEBACK_LINES, TRACEBACK_CHARS = 20, 2000
OUTPUT_LINES, OUTPUT_CHARS = 12, 1200

_BACKTICKS = re.compile(r"`+")
#: Characters that make Markdown of plain text (emphasis, links, HTML, tables, strike-through).
_MARKDOWN = re.compile(r"([\\`*_\[\]<>|~])")


# -- Markdown ------------------------------------------------------------------------


def _fence_for(text: str) -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def code_block(text: str, info: str = "text") -> str:
    """``text`` as a fenced code block: shown as written, whatever it holds."""
    body = inert(text).rstrip("\n")
    fence = _fence_for(body)
    return f"{fence}{info}\n{body}\n{fence}"


def code_span(text: str) -> str:
    """``text`` as one inline code span (one inert line)."""
    body = inert_line(text)
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def plain(text: str) -> str:
    """Text of the referee's own, one inert line, with the characters Markdown acts on escaped."""
    return _MARKDOWN.sub(r"\\\1", inert_line(text))


def paragraphs(*parts: str | None) -> str:
    """The parts that are not empty, as Markdown paragraphs (a blank line between)."""
    return "\n\n".join(part for part in parts if part)


def tail(text: str, lines: int, chars: int) -> str:
    """The last ``lines`` lines of ``text`` and at most ``chars`` characters, saying what was left out."""
    kept = text.rstrip("\n").splitlines()
    dropped = max(0, len(kept) - lines)
    kept = kept[dropped:]
    body = "\n".join(kept)
    if len(body) > chars:
        body = body[-chars:]
        body = body[body.find("\n") + 1:] if "\n" in body else body
        dropped = len(text.rstrip("\n").splitlines()) - len(body.splitlines())
    return (f"... ({dropped} line{'s' if dropped != 1 else ''} above left out)\n" if dropped else "") + body


# -- an agent's error -------------------------------------------------------------------


def error_text(error: Mapping[str, Any] | None) -> str | None:
    """An agent's failure from its record (message, end of the traceback, end of its output), or None."""
    if not isinstance(error, Mapping):
        return None
    parts = []
    message = str(error.get("message") or "")
    trace = error.get("traceback")
    if isinstance(trace, str) and trace.strip():
        message = f"{message}\n\n{tail(trace, TRACEBACK_LINES, TRACEBACK_CHARS)}".strip()
    if message:
        parts.append(code_block(message))
    printed = error.get("output_tail")
    if isinstance(printed, str) and printed.strip():
        parts.append("What it printed last:\n\n" + code_block(tail(printed, OUTPUT_LINES, OUTPUT_CHARS)))
    return paragraphs(*parts) or None


# -- the moves and the final position ------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """Consecutive actions of one side: the number of its first action, who acted, what."""

    first: int
    player: str  # RED, BLUE, chance, or "?" where the record could not be replayed
    actions: tuple[str, ...]


@dataclass(frozen=True)
class Replayed:
    """A record's actions by turn and the position they lead to (None: the record does not replay)."""

    turns: tuple[Turn, ...]
    board: str | None


def replay(record: GameRecord) -> Replayed:
    """Replay ``record`` with its game's engine: who played each action, and the final board."""
    grouped: list[Turn] = []

    def add(number: int, player: str, action: str) -> None:
        if grouped and grouped[-1].player == player:
            last = grouped[-1]
            grouped[-1] = Turn(last.first, player, (*last.actions, action))
        else:
            grouped.append(Turn(number, player, (action,)))

    try:
        state = recorded_game(record.game, record.game_options).new_state()
    except Exception:  # a game this installation cannot set up: the moves, without who played them
        for number, action in enumerate(record.actions, 1):
            add(number, "?", action)
        return Replayed(tuple(grouped), None)
    board: str | None = None
    for number, action in enumerate(record.actions, 1):
        player = state.current_player
        try:
            state.apply_checked(state.parse_action(action))
        except Exception:  # a record that does not replay: the rest without who played it, and no board
            for later, rest in enumerate(record.actions[number - 1:], number):
                add(later, "?", rest)
            return Replayed(tuple(grouped), None)
        add(number, "chance" if player == CHANCE else PLAYER_NAMES[player], action)
    summary = state.summary()
    board = state.render().rstrip("\n") + (f"\n{summary}" if summary else "")
    return Replayed(tuple(grouped), board)


def _alternating(turns: Sequence[Turn]) -> bool:
    return all(
        len(turn.actions) == 1 and turn.player == PLAYER_NAMES[index % 2] for index, turn in enumerate(turns)
    )


def move_lines(turns: Sequence[Turn]) -> list[str]:
    """The moves as lines: Red and Blue side by side when each turn is one action, else one turn a line."""
    if not turns:
        return ["(no action was played)"]
    if _alternating(turns):
        width = max(len(turn.actions[0]) for turn in turns) + 2
        number = len(str(turns[-1].first))
        lines = [f"{'':>{number}}  {'RED':<{width}}{'':>{number}}  BLUE"]
        for index in range(0, len(turns), 2):
            red = turns[index]
            line = f"{red.first:>{number}}  {red.actions[0]:<{width}}"
            if index + 1 < len(turns):
                blue = turns[index + 1]
                line += f"{blue.first:>{number}}  {blue.actions[0]}"
            lines.append(line.rstrip())
        return lines
    number = len(str(turns[-1].first))
    lines = []
    for turn in turns:
        text = ", ".join(turn.actions)
        if len(text) > MAX_TURN_CHARS:
            shown = text[:MAX_TURN_CHARS].rsplit(", ", 1)[0]
            text = f"{shown}, ... ({len(turn.actions) - shown.count(', ') - 1} more)"
        lines.append(f"{turn.first:>{number}}  {turn.player:<6} {text}")
    return lines


def moves_text(turns: Sequence[Turn]) -> str:
    """:func:`move_lines`, at most :data:`MAX_MOVE_LINES` of them: the last ones, the cut said."""
    lines = move_lines(turns)
    if len(lines) <= MAX_MOVE_LINES:
        return "\n".join(lines)
    header = lines[:1] if _alternating(turns) else []
    kept = lines[len(lines) - MAX_MOVE_LINES + len(header):]
    first = kept[0].split()[0]
    return "\n".join([*header, f"... (the moves before action {first} are left out)", *kept])


# -- playing it again -----------------------------------------------------------------------


def yaml_value(value: Any) -> str:
    """``value`` written so that YAML reads it back as the same value (``--red-option NAME=VALUE``).

    Lists and mappings are written as JSON (YAML's flow style), to name them.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)
        mantissa, _, exponent = text.partition("e")
        if exponent and "." not in mantissa:
            text = f"{mantissa}.0e{exponent}"  # YAML 1.1 reads 1e-05 as a string, 1.0e-05 as a number
        return text
    if isinstance(value, str) and value and value == value.strip() and "\n" not in value:
        try:
            if yaml.safe_load(value) == value:
                return value  # plain: fast, agents.greedy
        except yaml.YAMLError:
            pass
    # A string YAML would read otherwise ("4", "yes", "a: b"), or a list or mapping: JSON is YAML.
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Side:
    """One agent of the game to play again: its spec and the keyword arguments it was given."""

    spec: str
    options: Mapping[str, Any]
    #: Its own limits (a game at odds); None: the game's.
    limits: Limits | None = None


def _pair(red: float | None, blue: float | None) -> str | None:
    """A ``-t``/``-s`` value: one number for both, ``RED,BLUE`` when they differ; None: neither has a limit."""
    if red == blue:
        return f"{red:g}" if red else None
    return f"{red or 0:g},{blue or 0:g}"


def play_command(
    red: Side, blue: Side, game: str, game_options: Mapping[str, Any], limits: Limits, seed: int | None,
    chance_seed: str | None,
) -> tuple[str, list[str]]:
    """The ``python -I -m referee`` command that plays a game again, and what of the game it cannot give.

    It is run from the submission folder, where the agent's package is found.
    ``-I`` (isolated mode, Python 3.4 and later) keeps that folder off the
    referee's own import path: the course's template holds a ``referee/``
    package of its own, which ``python -m referee`` would run instead of
    this one.  (The agents' processes import the referee the same way:
    :data:`referee.hosting.process.HOST_BOOT`.)
    ``game_options`` are the options as configured (before the game seed is
    put in them: the command's ``--seed`` does that again).  A game option
    the command line has no flag for, and an agent option that is not a
    scalar (``--red-option`` reads a list, a mapping or ``null`` as its own
    text), are returned as ``name=value`` (empty: the command repeats the
    game exactly, as far as the agents are deterministic).
    """
    argv = ["python", "-I", "-m", "referee", red.spec, blue.spec]
    if game != DEFAULT_GAME:
        argv += ["--game", game]
    flags = {option.name: option for option in registration(game).options}
    missing = []
    for name, value in game_options.items():
        option = flags.get(name)
        if option is None:
            missing.append(f"{name}={yaml_value(value)}")
            continue
        flag = next((f for f in option.flags if f.startswith("--")), option.flags[0])
        if option.type is bool:
            if value:
                argv.append(flag)
        else:
            argv += [flag, str(value)]
    sides = (red.limits or limits, blue.limits or limits)
    for flag, name in (("-t", "time_limit"), ("-s", "space_limit")):
        value = _pair(*(getattr(side, name) for side in sides))
        if value is not None:
            argv += [flag, value]
    if limits.call_timeout:
        argv += ["--call-timeout", f"{limits.call_timeout:g}"]
    if limits.wall_grace != DEFAULT_GRACE:
        argv += ["--grace", f"{limits.wall_grace:g}"]
    if seed is not None:
        argv += ["--seed", str(seed)]
    if chance_seed is not None:
        argv += ["--chance-seed", chance_seed]
    for flag, side in (("--red-option", red), ("--blue-option", blue)):
        for name, value in side.options.items():
            if value is None or isinstance(value, (list, dict)):
                missing.append(f"{flag.removeprefix('--').split('-')[0]}'s option {name}={yaml_value(value)}")
            else:
                argv += [flag, f"{name}={yaml_value(value)}"]
    return shlex.join(argv), missing


def counted(game: str, actions: int) -> str:
    """``12 turns``, or ``12 actions`` for a game whose turns hold several."""
    word = "turn" if game_class(game).one_action_per_turn else "action"
    return f"{actions} {word}{'s' if actions != 1 else ''}"
