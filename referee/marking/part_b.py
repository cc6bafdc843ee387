"""``python -m referee autograde partB``: a gauntlet of a submitted agent against reference agents, marked.

    python -m referee autograde partB [--submission DIR] [--scheme FILE] [--results FILE] [--workers N]

The submission folder (default ``/autograder/submission``) holds the course's
top-level package ``agent/``.  Its agent plays every opponent of the marking
scheme ``games_per_opponent`` times, half as Red and half as Blue, each game
one :func:`referee.match.play_match` with both agents in their own sealed
processes under the scheme's limits (the course's: 180 CPU seconds and 250 MB
per agent per game), started in the submission folder.  The grader writes
Gradescope's ``results.json`` (default ``/autograder/results/results.json``),
every game's record beside it (``results.games.jsonl`` for ``results.json``:
``python -m referee replay FILE --game-index N`` replays one), and prints the
marks as a table.  Exit status 0 whenever results were written, whatever the
marks; 2 for a bad command line, scheme or submission folder.

Tests:

* one per opponent: the submission's score against it (a win 1, a draw ½,
  over the games) picks the highest band it reaches, worth that band's
  ``fraction`` of the opponent's ``marks``; without ``bands``, the marks are
  in proportion to the score;
* ``Loads and plays legally``: the agent loads, and in no game does it raise,
  crash, break the protocol or play an illegal action;
* ``Never exceeds the time limit`` and ``Never exceeds the memory limit``: no
  game lost by ``time_limit`` or ``space_limit``.

Each check also needs the agent to have played at least one action: one that
never got an action out has shown nothing.

A submission that does not load plays no game: every test gets 0 and the
load test says why.  The leaderboard gets the submission's Elo: the joint
Bradley-Terry fit of all the games (:func:`referee.tournament.ratings.bradley_terry`),
relative to the mean rating of the reference agents.

The scheme (YAML; ``--scheme``, default ``/autograder/source/scheme.yaml``,
else :data:`DEFAULT_SCHEME`)::

    game: infexion            # default infexion
    game_options: {}          # the game's options, e.g. {n: 7} for Cachex
    agent: agent              # the submission's agent spec, found in the submission folder
    time_limit: 180           # CPU seconds per agent per game (0: none)
    space_limit: 250          # MB per agent (0: none)
    call_timeout: 600         # optional: wall seconds any one call may last
    games_per_opponent: 4     # even, >= 2: both colours equally
    seed: 0                   # every game's seed derives from it
    sandbox: auto             # auto, required or off
    visibility: visible       # of every test: hidden, after_due_date, after_published, visible
    opponents:
      - name: random          # default: the spec's last part
        spec: agents.random_agent
        options: {}           # keyword arguments of every call to the opponent
        marks: 2
        bands:                # highest min_score reached gives fraction x marks
          - {min_score: 0.75, fraction: 1.0}
          - {min_score: 0.5, fraction: 0.5}
      - {name: quick-minimax, spec: agents.minimax, options: {max_move_time: 0.2}, marks: 3}
    checks:                   # marks of the three checks (default 1 each)
      plays_legally: 1
      time_limit: 1
      space_limit: 1

A time-limited reference agent is made with its options (for the bundled
agents, ``max_move_time``, or ``depth`` for minimax): the limits are the same for both
players of a game.
"""
from __future__ import annotations

import argparse
import difflib
import json
import shlex
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..agent_text import inert, inert_line
from ..games import game_names, load_game
from ..games.agent_kwargs import REFEREE_KWARGS
from ..games.base import GameOptionError
from ..hosting.sandbox import MODES as SANDBOX_MODES, SandboxUnavailable, resolve
from ..limits import LimitError, Limits, checked
from ..match import AgentEntry, MatchSettings, SpecError, check_agent, parse_spec, play_match, spec_problem
from ..records import GameRecord, memory_text
from ..tournament.config import shown
from ..tournament.executor import LocalExecutor
from ..tournament.ratings import bradley_terry
from ..tournament.schedule import Job, game_seed
from . import gradescope
from .gradescope import AutograderResults, LeaderboardEntry, TestResult

PROG = "python -m referee autograde partB"
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
SCHEME_FILE = Path("/autograder/source/scheme.yaml")
#: The submission's name in the games' records and the rating fit.
SUBMISSION_NAME = "submission"

#: The scheme used when none is given and Gradescope's source folder has none.
DEFAULT_SCHEME = """\
game: infexion
agent: agent
time_limit: 180
space_limit: 250
games_per_opponent: 4
seed: 0
opponents:
  - name: random
    spec: agents.random_agent
    marks: 2
    bands: [{min_score: 0.75, fraction: 1.0}, {min_score: 0.5, fraction: 0.5}]
  - name: greedy
    spec: agents.greedy
    marks: 3
    bands: [{min_score: 0.75, fraction: 1.0}, {min_score: 0.5, fraction: 0.5}, {min_score: 0.25, fraction: 0.25}]
checks: {plays_legally: 1, time_limit: 1, space_limit: 1}
"""

TOP_FIELDS = (
    "game", "game_options", "agent", "time_limit", "space_limit", "call_timeout", "games_per_opponent", "seed",
    "sandbox", "visibility", "opponents", "checks",
)
OPPONENT_FIELDS = ("name", "spec", "options", "marks", "bands")
BAND_FIELDS = ("min_score", "fraction")
CHECKS = {
    "plays_legally": "Loads and plays legally",
    "time_limit": "Never exceeds the time limit",
    "space_limit": "Never exceeds the memory limit",
}
#: The verdicts that fail "loads and plays legally" when the submission gets them.
UNLAWFUL = ("load_error", "agent_error", "illegal_action", "protocol_error", "agent_crashed")
#: How each verdict reads in a sentence about the submission.
VERDICT_WORDS = {
    "load_error": "your agent could not be loaded",
    "agent_error": "your agent raised an exception",
    "illegal_action": "your agent played an illegal action",
    "protocol_error": "your agent broke the referee's protocol",
    "agent_crashed": "your agent's process died",
    "time_limit": "your agent ran out of time",
    "space_limit": "your agent used too much memory",
}
#: At most this many games are described in one test's output.
SHOWN_GAMES = 5


class SchemeError(ValueError):
    """A marking scheme that cannot be used: one or more problems, each naming the file and the field."""

    def __init__(self, *problems: str):
        super().__init__("\n".join(problems))
        self.problems = list(problems)


@dataclass(frozen=True)
class Band:
    min_score: float
    fraction: float


@dataclass(frozen=True)
class Opponent:
    name: str
    spec: str
    options: Mapping[str, Any]
    marks: float
    bands: tuple[Band, ...]  # highest min_score first; empty: marks in proportion to the score

    def fraction(self, score: float) -> float:
        """The fraction of the marks a score (0..1) earns."""
        if not self.bands:
            return score
        return next((band.fraction for band in self.bands if score >= band.min_score), 0.0)


@dataclass(frozen=True)
class Scheme:
    path: str
    game: str
    game_options: Mapping[str, Any]
    agent: str
    limits: Limits
    games_per_opponent: int
    seed: int
    sandbox: str
    visibility: str
    opponents: tuple[Opponent, ...]
    checks: Mapping[str, float] = field(default_factory=dict)


# -- the scheme --------------------------------------------------------------------


class _Reader:
    """Collects every problem of a scheme, each as ``FILE: field: message``."""

    def __init__(self, path: str):
        self.path = path
        self.problems: list[str] = []

    def fail(self, where: str, message: str) -> None:
        self.problems.append(f"{self.path}: {where}: {message}")

    def fields(self, where: str, mapping: Mapping[Any, Any], allowed: tuple[str, ...]) -> None:
        for key in mapping:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(allowed)})"
                self.fail(f"{where}.{key}" if where else str(key), f"unknown field{hint}")

    def number(self, where: str, value: Any, low: float = 0.0, high: float | None = None) -> float:
        if not gradescope.is_number(value) or value < low or (high is not None and value > high):
            bounds = f"from {low:g} to {high:g}" if high is not None else f"of {low:g} or more"
            self.fail(where, f"must be a number {bounds}, not {shown(value)}")
            return low
        return float(value)

    def options(self, where: str, value: Any) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(where, f"must be a mapping of keyword arguments, not {shown(value)}")
            return {}
        for key in value:
            if not isinstance(key, str) or not key.isidentifier():
                self.fail(f"{where}.{key}", "an option's name must be a Python identifier")
            elif key in REFEREE_KWARGS:
                self.fail(f"{where}.{key}", f"{key!r} is passed by the referee itself and cannot be an option")
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            self.fail(where, "must hold plain values (numbers, strings, lists, mappings)")
        return dict(value)


def _bands(reader: _Reader, where: str, value: Any) -> tuple[Band, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        reader.fail(where, f"must be a list of {{min_score, fraction}}, not {shown(value)}")
        return ()
    bands = []
    for index, item in enumerate(value):
        here = f"{where}[{index}]"
        if not isinstance(item, dict):
            reader.fail(here, f"must be a mapping {{min_score, fraction}}, not {shown(item)}")
            continue
        reader.fields(here, item, BAND_FIELDS)
        for name in BAND_FIELDS:
            if name not in item:
                reader.fail(here, f"needs '{name}' (a number from 0 to 1)")
        bands.append(Band(
            reader.number(f"{here}.min_score", item.get("min_score", 0), 0, 1),
            reader.number(f"{here}.fraction", item.get("fraction", 0), 0, 1),
        ))
    return tuple(sorted(bands, key=lambda band: -band.min_score))


def _opponent(reader: _Reader, index: int, item: Any, submission: Path | None) -> Opponent | None:
    where = f"opponents[{index}]"
    if not isinstance(item, dict):
        reader.fail(where, f"must be a mapping {{name, spec, options, marks, bands}}, not {shown(item)}")
        return None
    reader.fields(where, item, OPPONENT_FIELDS)
    spec = item.get("spec")
    if not isinstance(spec, str):
        reader.fail(f"{where}.spec", f"must be an agent's package spec such as agents.greedy, not {shown(spec)}")
        return None
    try:
        parse_spec(spec)
    except SpecError as exc:
        reader.fail(f"{where}.spec", str(exc))
        return None
    problem = spec_problem(spec, submission) if submission is not None else None
    if problem:
        reader.fail(f"{where}.spec", problem)
    name = item.get("name", spec.partition(":")[0].replace("/", ".").split(".")[-1])
    if not isinstance(name, str) or not name.strip():
        reader.fail(f"{where}.name", f"must be a name, not {shown(name)}")
        name = spec
    elif name.strip() == SUBMISSION_NAME:
        reader.fail(f"{where}.name", f"{SUBMISSION_NAME!r} is the submission's name in the records; choose another")
    if "marks" not in item:
        reader.fail(where, "needs 'marks': what beating this opponent is worth")
    return Opponent(
        name=name.strip(),
        spec=spec,
        options=reader.options(f"{where}.options", item.get("options")),
        marks=reader.number(f"{where}.marks", item.get("marks", 0)),
        bands=_bands(reader, f"{where}.bands", item.get("bands")),
    )


def parse_scheme(text: str, path: str, submission: Path | None = None) -> Scheme:
    """Read and check a scheme; raises :class:`SchemeError` listing every problem.

    With ``submission``, each opponent's spec must name a module found from
    that folder (where the games start).
    """
    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}" if mark else path
        raise SchemeError(f"{where}: not valid YAML: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise SchemeError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise SchemeError(f"{path}: a marking scheme is a mapping of fields (see docs/marking.md), "
                          f"not {shown(data)}")
    reader = _Reader(path)
    reader.fields("", data, TOP_FIELDS)

    game = data.get("game", "infexion")
    game_options = data.get("game_options") or {}
    if game not in game_names():
        reader.fail("game", f"must be one of {', '.join(game_names())}, not {shown(game)}")
    elif not isinstance(game_options, dict):
        reader.fail("game_options", f"must be a mapping, not {shown(game_options)}")
        game_options = {}
    else:
        try:
            load_game(game, **game_options)
        except (GameOptionError, TypeError) as exc:
            reader.fail("game_options", str(exc))

    agent = data.get("agent", "agent")
    try:
        parse_spec(agent if isinstance(agent, str) else "")
    except SpecError:
        reader.fail("agent", f"must be the submission's agent spec, e.g. agent, not {shown(agent)}")

    limits: dict[str, float] = {}
    for name in ("time_limit", "space_limit", "call_timeout"):
        if data.get(name) is not None:
            try:
                limits[name] = checked(name, data[name])
            except LimitError as exc:
                reader.fail(name, str(exc).removeprefix(f"{name} "))

    games = data.get("games_per_opponent", 4)
    if isinstance(games, bool) or not isinstance(games, int) or games < 2 or games % 2:
        reader.fail("games_per_opponent", f"must be an even whole number of 2 or more (both colours equally), "
                    f"not {shown(games)}")
        games = 2
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        reader.fail("seed", f"must be a whole number, not {shown(seed)}")
        seed = 0
    sandbox = data.get("sandbox", "auto")
    if sandbox is False:  # YAML 1.1 reads a bare `off` as false
        sandbox = "off"
    if sandbox not in SANDBOX_MODES:
        reader.fail("sandbox", f"must be one of {', '.join(SANDBOX_MODES)}, not {shown(sandbox)}")
    visibility = data.get("visibility", "visible")
    if visibility not in gradescope.VISIBILITIES:
        reader.fail("visibility", f"must be one of {', '.join(gradescope.VISIBILITIES)}, not {shown(visibility)}")

    opponents: list[Opponent] = []
    items = data.get("opponents")
    if not isinstance(items, list) or not items:
        reader.fail("opponents", f"must be a list of at least one opponent, not {shown(items)}")
    else:
        for index, item in enumerate(items):
            opponent = _opponent(reader, index, item, submission)
            if opponent is None:
                continue
            if any(other.name == opponent.name for other in opponents):
                reader.fail(f"opponents[{index}].name", f"two opponents are named {opponent.name!r}; "
                            "give one a different 'name'")
            opponents.append(opponent)

    checks_data = data.get("checks") or {}
    checks: dict[str, float] = {}
    if not isinstance(checks_data, dict):
        reader.fail("checks", f"must be a mapping of {', '.join(CHECKS)} to marks, not {shown(checks_data)}")
    else:
        reader.fields("checks", checks_data, tuple(CHECKS))
        checks = {name: reader.number(f"checks.{name}", checks_data.get(name, 1)) for name in CHECKS}

    if reader.problems:
        raise SchemeError(*reader.problems)
    return Scheme(
        path=path, game=game, game_options=dict(game_options), agent=agent, limits=Limits(**limits),
        games_per_opponent=games, seed=seed, sandbox=sandbox, visibility=visibility, opponents=tuple(opponents),
        checks=checks,
    )


def load_scheme(path: Path | None, submission: Path | None = None) -> Scheme:
    """The scheme in ``path``; without one, Gradescope's if there is one, else :data:`DEFAULT_SCHEME`."""
    if path is None:
        if not SCHEME_FILE.is_file():
            return parse_scheme(DEFAULT_SCHEME, "the default scheme", submission)
        path = SCHEME_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SchemeError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SchemeError(f"{path}: cannot be read: {exc}") from None
    return parse_scheme(text, str(path), submission)


# -- the games ---------------------------------------------------------------------


@dataclass(frozen=True)
class Game:
    """One game of the gauntlet and, once played, its record."""

    index: int
    opponent: Opponent
    color: str  # the submission's: RED or BLUE
    seed: int
    record: GameRecord | None = None
    failure: str | None = None  # the referee's own failure (no record)

    @property
    def points(self) -> float:
        """The submission's points: a win 1, a draw ½."""
        if self.record is None:
            return 0.0
        if self.record.winner is None:
            return 0.5
        return 1.0 if self.record.winner == self.color else 0.0

    @property
    def lost_by(self) -> str | None:
        """The verdict reason if the submission lost (or both agents failed), else None."""
        record = self.record
        if record is None or record.winner == self.color:
            return None
        if record.winner is None:
            return record.reason if record.error.get(self.color) else None
        return record.reason


def _games(scheme: Scheme) -> list[Game]:
    games: list[Game] = []
    for opponent in scheme.opponents:
        for number in range(scheme.games_per_opponent):
            index = len(games)
            # Alternate colours so the games against each opponent are half as Red, half as Blue.
            color = "RED" if number % 2 == 0 else "BLUE"
            games.append(Game(index, opponent, color, game_seed(scheme.seed, index)))
    return games


def _settings(scheme: Scheme, submission: Path, seed: int | None, extra: Mapping[str, Any]) -> MatchSettings:
    return MatchSettings(
        game=scheme.game, game_options=scheme.game_options, limits=scheme.limits, seed=seed, extra=dict(extra),
        agent_dir=str(submission), sandbox=scheme.sandbox,
    )


def _jobs(scheme: Scheme, submission: Path, games: list[Game]) -> Iterator[Job]:
    mine = AgentEntry(scheme.agent, SUBMISSION_NAME)
    for game in games:
        theirs = AgentEntry(game.opponent.spec, game.opponent.name, game.opponent.options)
        red, blue = (mine, theirs) if game.color == "RED" else (theirs, mine)
        extra = {"game_index": game.index, "opponent": game.opponent.name}
        yield Job(game.index, red, blue, _settings(scheme, submission, game.seed, extra))


def play_games(scheme: Scheme, submission: Path, workers: int = 1) -> list[Game]:
    """Play the whole gauntlet; every game comes back with its record (or the referee's failure)."""
    games = _games(scheme)
    with LocalExecutor(workers) as executor:
        for finished in executor.run(play_match, _jobs(scheme, submission, games)):
            index = finished.job.index
            games[index] = Game(
                index, games[index].opponent, games[index].color, games[index].seed, finished.record, finished.error
            )
    return games


# -- marking -----------------------------------------------------------------------


def _marks(value: float) -> str:
    return f"{value:g}"


def opponent_problems(scheme: Scheme, submission: Path) -> list[str]:
    """Why any opponent cannot be loaded where the games start (a misspelt option...): the scheme's fault.

    Checked before marking, because an opponent that fails to load forfeits
    every game, which would hand the submission marks it did not earn.
    """
    problems = []
    for index, opponent in enumerate(scheme.opponents):
        entry = AgentEntry(opponent.spec, opponent.name, opponent.options)
        problem = check_agent(entry, _settings(scheme, submission, scheme.seed, {}))
        if problem:
            problems.append(
                f"{scheme.path}: opponents[{index}]: {opponent.name} cannot be loaded: {inert_line(problem)}"
            )
    return problems


def _local_command(scheme: Scheme, game: Game) -> str:
    red, blue = (scheme.agent, game.opponent.spec) if game.color == "RED" else (game.opponent.spec, scheme.agent)
    parts = ["python -m referee", red, blue]
    if scheme.game != "infexion":
        parts.append(f"--game {scheme.game}")
    if scheme.limits.time_limit:
        parts.append(f"-t {_marks(scheme.limits.time_limit)}")
    if scheme.limits.space_limit:
        parts.append(f"-s {_marks(scheme.limits.space_limit)}")
    parts.append(f"--seed {game.seed}")
    command = " ".join(parts)
    if scheme.game_options:
        command += f"  (with the game options {dict(scheme.game_options)})"
    if game.opponent.options:
        command += f"  ({game.opponent.name} played with the options {dict(game.opponent.options)})"
    return command


def _story(scheme: Scheme, game: Game, games_file: Path) -> str:
    """What happened in one game that was not a win, and how to see it again."""
    if game.record is None:
        failed = inert(game.failure or "")  # the grader's own traceback; inert all the same
        return f"Game {game.index} was not played: the grader failed ({failed}); it does not count."
    record = game.record
    reason = game.lost_by or record.reason
    outcome = "Drew" if record.winner is None else "Lost"
    words = f" ({VERDICT_WORDS[reason]})" if reason in VERDICT_WORDS and game.lost_by else ""
    error = record.error.get(game.color)
    detail = error.get("message") if isinstance(error, dict) else None
    # The agent's own message, in feedback shown on Gradescope and the console: one inert line.
    text = (
        f"{outcome} game {game.index} as {game.color} by {reason}{words} after {record.turns} turns: "
        f"{inert_line(str(detail or record.message))}."
    )
    return (
        f"{text}\n  Replay it: python -m referee replay {shlex.quote(str(games_file))} --game-index {game.index}\n"
        f"  Play it again from your submission folder: {_local_command(scheme, game)}"
    )


def _stories(scheme: Scheme, games: list[Game], games_file: Path) -> str:
    told = [_story(scheme, game, games_file) for game in games[:SHOWN_GAMES]]
    if len(games) > SHOWN_GAMES:
        told.append(f"... and {len(games) - SHOWN_GAMES} more (all are in {games_file}).")
    return "\n".join(told)


def opponent_test(scheme: Scheme, opponent: Opponent, games: list[Game], games_file: Path) -> TestResult:
    """Marks for the games against one opponent, by the band the score reaches."""
    mine = [game for game in games if game.opponent is opponent]
    # A game the grader itself failed to play is left out rather than counted against the student.
    played = [game for game in mine if game.record is not None]
    points = sum(game.points for game in played)
    score = points / len(played) if played else 0.0
    fraction = opponent.fraction(score)
    marks = opponent.marks * fraction
    if fraction >= 1:
        verdict = "full marks"
    elif fraction <= 0:
        verdict = "no marks"
    else:
        verdict = f"{fraction:.0%} of the marks"
    lines = [f"Against {opponent.name} you scored {_marks(points)}/{len(played)} ({score:.0%}): {verdict}."]
    if opponent.bands:
        lines.append("Bands: " + ", ".join(f"{band.min_score:.0%} or more: {band.fraction:.0%} of the marks"
                                           for band in opponent.bands) + ".")
    else:
        lines.append("The marks are in proportion to the score (a win 1, a draw 1/2).")
    lines.append(_stories(scheme, [game for game in mine if game.points < 1], games_file))
    return TestResult(f"Against {opponent.name}", marks, opponent.marks, "\n".join(filter(None, lines)),
                      scheme.visibility)


def check_tests(scheme: Scheme, games: list[Game], games_file: Path, load_error: str | None) -> list[TestResult]:
    """The three checks: loads and plays legally, never out of time, never out of memory."""
    results = []
    for check, title in CHECKS.items():
        worth = scheme.checks[check]
        if load_error is not None:
            output = (
                f"Your agent could not be loaded, so it played no game: {inert_line(load_error)}"
                if check == "plays_legally" else "Not tested: your agent could not be loaded."
            )
            results.append(TestResult(title, 0, worth, output, scheme.visibility))
            continue
        reasons = UNLAWFUL if check == "plays_legally" else (check,)
        broke = [game for game in games if game.lost_by in reasons]
        # An agent that never got an action out has shown nothing, so a check it "passes" earns nothing.
        played = sum(game.record.moves.get(game.color, 0) for game in games if game.record is not None)
        if broke:
            words = ", ".join(sorted({VERDICT_WORDS[game.lost_by or ""] for game in broke}))
            output = f"In {len(broke)} of {len(games)} games {words}.\n" + _stories(scheme, broke, games_file)
            results.append(TestResult(title, 0, worth, output, scheme.visibility))
        elif not played:
            output = "Not shown: your agent did not play a single action in any game."
            results.append(TestResult(title, 0, worth, output, scheme.visibility))
        else:
            limit = {
                "plays_legally": "your agent loaded and played only legal actions",
                "time_limit": f"your agent stayed within {_marks(scheme.limits.time_limit or 0)} CPU seconds a game"
                if scheme.limits.time_limit else "there was no time limit",
                "space_limit": f"your agent stayed within {_marks(scheme.limits.space_limit or 0)} MB"
                if scheme.limits.space_limit else "there was no memory limit",
            }[check]
            most = _most_used(check, games)
            output = f"In all {len(games)} games {limit}{most}."
            results.append(TestResult(title, worth, worth, output, scheme.visibility))
    return results


def _most_used(check: str, games: list[Game]) -> str:
    """The most time or memory the submission used in a game (the margin it had)."""
    if check == "plays_legally":
        return ""
    used = [
        (game.record.time_used if check == "time_limit" else game.record.peak_memory_mb).get(game.color, 0.0)
        for game in games if game.record is not None
    ]
    if not used:
        return ""
    if check == "time_limit":
        return f" (at most {max(used):.1f} CPU seconds in one game)"
    return f" (at most {memory_text(max(used))} MB in one game)"


def submission_elo(games: list[Game]) -> float | None:
    """The submission's Elo relative to the reference agents' mean (None: no games to rate)."""
    pairs: dict[tuple[str, str], tuple[int, int, int]] = {}
    names = {SUBMISSION_NAME}
    for game in games:
        if game.record is None:
            continue
        key = (SUBMISSION_NAME, game.opponent.name)
        wins, draws, losses = pairs.get(key, (0, 0, 0))
        pairs[key] = (wins + (game.points == 1), draws + (game.points == 0.5), losses + (game.points == 0))
        names.add(game.opponent.name)
    fit = bradley_terry(sorted(names), pairs)
    if SUBMISSION_NAME not in fit.ratings:
        return None
    others = [rating.elo for name, rating in fit.ratings.items() if name != SUBMISSION_NAME]
    return fit.ratings[SUBMISSION_NAME].elo - sum(others) / len(others)


def mark(scheme: Scheme, submission: Path, games_file: Path, workers: int = 1) -> AutograderResults:
    """Load, play and mark one submission; writes every game's record to ``games_file``."""
    start = time.monotonic()
    problem = spec_problem(scheme.agent, submission)
    load_error = problem or check_agent(
        AgentEntry(scheme.agent, SUBMISSION_NAME), _settings(scheme, submission, scheme.seed, {})
    )
    games = _games(scheme)
    if load_error is not None:
        games_file.unlink(missing_ok=True)  # an earlier run's games would not be this submission's
    else:
        games = play_games(scheme, submission, workers)
        records = [game.record.to_json() for game in games if game.record is not None]
        games_file.parent.mkdir(parents=True, exist_ok=True)
        games_file.write_text("".join(line + "\n" for line in records), encoding="utf-8")
    tests = [opponent_test(scheme, opponent, games, games_file) for opponent in scheme.opponents]
    tests += check_tests(scheme, games, games_file, load_error)
    limits = ", ".join(filter(None, [
        f"{_marks(scheme.limits.time_limit)} CPU seconds" if scheme.limits.time_limit else "",
        f"{_marks(scheme.limits.space_limit)} MB" if scheme.limits.space_limit else "",
    ])) or "no limits"
    output = (
        f"Part B: {scheme.games_per_opponent} games of {scheme.game} against each of "
        f"{', '.join(o.name for o in scheme.opponents)} ({limits} per agent per game)."
    )
    leaderboard: tuple[LeaderboardEntry, ...] = ()
    elo = submission_elo(games) if load_error is None else None
    if elo is not None:
        output += f"\nYour Elo against the reference agents (their mean is 0): {elo:+.0f}."
        leaderboard = (LeaderboardEntry("Elo", round(elo), "desc"),)
    if load_error is None:
        output += f"\nEvery game's record is in {games_file}."
    return AutograderResults(tuple(tests), time.monotonic() - start, output, leaderboard)


# -- the command -------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Mark a Part B submission: a gauntlet against reference agents.")
    parser.add_argument("--submission", type=Path, default=gradescope.SUBMISSION_DIR,
                        help=f"the folder holding the package agent/ (default {gradescope.SUBMISSION_DIR})")
    parser.add_argument("--scheme", type=Path, default=None,
                        help=f"the marking scheme (default {SCHEME_FILE} if it exists, else a built-in one)")
    parser.add_argument("--results", type=Path, default=gradescope.RESULTS_FILE,
                        help=f"where results.json goes (default {gradescope.RESULTS_FILE})")
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
        return EXIT_USAGE
    submission: Path = args.submission.resolve()
    if not submission.is_dir():
        print(f"{PROG}: error: the submission folder {args.submission} does not exist", file=sys.stderr)
        return EXIT_USAGE
    try:
        scheme = load_scheme(args.scheme, submission)
    except SchemeError as exc:
        for problem in exc.problems:
            print(f"{PROG}: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        resolve(scheme.sandbox)
    except SandboxUnavailable as exc:
        print(f"{PROG}: error: {scheme.path}: sandbox: {exc}", file=sys.stderr)
        return EXIT_USAGE
    problems = opponent_problems(scheme, submission)
    for problem in problems:
        print(f"{PROG}: error: {problem}", file=sys.stderr)
    if problems:
        return EXIT_USAGE
    results_file: Path = args.results
    try:
        results = mark(scheme, submission, games_file_for(results_file).resolve(), args.workers)
        results.write(results_file)
    except OSError as exc:
        print(f"{PROG}: error: cannot write the results: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; no results written", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(gradescope.feedback_table(results))
    # The table shows each test's first line; what went wrong, and how to replay it, follows.
    for test in results.tests:
        if test.status == "failed" and "\n" in test.output:
            print(f"\n{test.name}:\n" + "\n".join(f"  {line}" for line in test.output.splitlines()))
    print(f"Results written to {results_file}")
    return 0
