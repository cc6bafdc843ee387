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
    nested_agent: true        # use an agent/ found one folder down (a zipped folder); false: refuse it
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
import json
import shlex
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agent_text import inert_line
from ..games import game_class, game_names, load_game
from ..games.agent_kwargs import REFEREE_KWARGS
from ..games.base import GameOptionError
from ..hosting.sandbox import MODES as SANDBOX_MODES, Sandbox, SandboxUnavailable, resolve
from ..limits import LimitError, Limits, checked
from ..match import AgentEntry, MatchSettings, SpecError, check_agent, parse_spec, play_match, spec_problem
from ..records import GameRecord, memory_text
from ..tournament.executor import LocalExecutor
from ..tournament.ratings import bradley_terry
from ..tournament.schedule import Job, game_seed
from ..yaml_file import Document, YamlFileError, in_file_order, read_text, shown, unknown_fields
from . import gradescope
from .feedback import (
    Side, code_block, code_span, counted, error_text, moves_text, paragraphs, plain, play_command, replay,
)
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
    "game", "game_options", "agent", "nested_agent", "time_limit", "space_limit", "call_timeout",
    "games_per_opponent", "seed", "sandbox", "visibility", "opponents", "checks",
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
#: The verdicts that are the submission's own fault: a game lost so is told before games lost by the rules.
UNLAWFUL_OR_LIMIT = (*UNLAWFUL, "time_limit", "space_limit")
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
#: At most this many games are described in one test's output; the first few with their moves.
SHOWN_GAMES = 5
DETAILED_GAMES = 3
#: At most this many of a submission's files and folders are named when its agent is not found.
SHOWN_ENTRIES = 12


class SchemeError(YamlFileError):
    """A marking scheme that cannot be used: one or more problems, each naming the file, line and field."""


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
    where: str = ""  # "file:line: opponents[i]" for messages after loading

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
    #: Use an agent package found one folder below the submission's top (the common zip mistake).
    nested_agent: bool = True
    #: "file:line: field" for each top-level field, for messages after loading.
    places: Mapping[str, str] = field(default_factory=dict)

    def where(self, name: str) -> str:
        """``file:line: field`` of a top-level field, for a problem found after loading."""
        return self.places.get(name, f"{self.path}: {name}")


# -- the scheme --------------------------------------------------------------------


class _Reader:
    """Collects every problem of a scheme, each as ``file:line: field: message`` (see :mod:`referee.yaml_file`)."""

    def __init__(self, doc: Document):
        self.doc = doc
        self.problems: list[str] = list(doc.problems)  # fields given twice

    def fail(self, path: tuple[Any, ...], message: str) -> None:
        self.problems.append(self.doc.problem(path, message))

    def fields(self, path: tuple[Any, ...], mapping: Mapping[Any, Any], allowed: tuple[str, ...]) -> None:
        self.problems.extend(unknown_fields(self.doc, path, mapping, allowed))

    def number(self, path: tuple[Any, ...], value: Any, low: float = 0.0, high: float | None = None) -> float:
        if not gradescope.is_number(value) or value < low or (high is not None and value > high):
            bounds = f"from {low:g} to {high:g}" if high is not None else f"of {low:g} or more"
            self.fail(path, f"must be a number {bounds}, not {shown(value)}")
            return low
        return float(value)

    def options(self, path: tuple[Any, ...], value: Any) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(path, f"must be a mapping of keyword arguments, not {shown(value)}")
            return {}
        for key in value:
            if not isinstance(key, str) or not key.isidentifier():
                self.fail(path + (key,), "an option's name must be a Python identifier")
            elif key in REFEREE_KWARGS:
                self.fail(path + (key,), f"{key!r} is passed by the referee itself and cannot be an option")
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            self.fail(path, "must hold plain values (numbers, strings, lists, mappings)")
        return dict(value)


def _bands(reader: _Reader, path: tuple[Any, ...], value: Any) -> tuple[Band, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        reader.fail(path, f"must be a list of {{min_score, fraction}}, not {shown(value)}")
        return ()
    bands = []
    for index, item in enumerate(value):
        here = path + (index,)
        if not isinstance(item, dict):
            reader.fail(here, f"must be a mapping {{min_score, fraction}}, not {shown(item)}")
            continue
        reader.fields(here, item, BAND_FIELDS)
        for name in BAND_FIELDS:
            if name not in item:
                reader.fail(here, f"needs '{name}' (a number from 0 to 1)")
        bands.append(Band(
            reader.number(here + ("min_score",), item.get("min_score", 0), 0, 1),
            reader.number(here + ("fraction",), item.get("fraction", 0), 0, 1),
        ))
    return tuple(sorted(bands, key=lambda band: -band.min_score))


def _opponent(reader: _Reader, index: int, item: Any, submission: Path | None) -> Opponent | None:
    path = ("opponents", index)
    if not isinstance(item, dict):
        reader.fail(path, f"must be a mapping {{name, spec, options, marks, bands}}, not {shown(item)}")
        return None
    reader.fields(path, item, OPPONENT_FIELDS)
    spec = item.get("spec")
    if not isinstance(spec, str):
        reader.fail(path + ("spec",), f"must be an agent's package spec such as agents.greedy, not {shown(spec)}")
        return None
    try:
        parse_spec(spec)
    except SpecError as exc:
        reader.fail(path + ("spec",), str(exc))
        return None
    problem = spec_problem(spec, submission) if submission is not None else None
    if problem:
        reader.fail(path + ("spec",), problem)
    name = item.get("name", spec.partition(":")[0].replace("/", ".").split(".")[-1])
    if not isinstance(name, str) or not name.strip():
        reader.fail(path + ("name",), f"must be a name, not {shown(name)}")
        name = spec
    elif name.strip() == SUBMISSION_NAME:
        reader.fail(path + ("name",), f"{SUBMISSION_NAME!r} is the submission's name in the records; choose another")
    if "marks" not in item:
        reader.fail(path, "needs 'marks': what beating this opponent is worth")
    return Opponent(
        name=name.strip(),
        spec=spec,
        options=reader.options(path + ("options",), item.get("options")),
        marks=reader.number(path + ("marks",), item.get("marks", 0)),
        bands=_bands(reader, path + ("bands",), item.get("bands")),
        where=reader.doc.where(*path),
    )


def parse_scheme(text: str, path: str, submission: Path | None = None) -> Scheme:
    """Read and check a scheme; raises :class:`SchemeError` listing every problem, in the file's order.

    With ``submission``, each opponent's spec must name a module found from
    that folder (where the games start).
    """
    try:
        doc = Document(path, text, kind="a marking scheme", guide="docs/marking.md")
    except YamlFileError as exc:
        raise SchemeError(*exc.problems) from None
    data = doc.data
    if not isinstance(data, dict):
        raise SchemeError(*doc.problems, doc.problem(
            (), f"a marking scheme is a mapping of fields (see docs/marking.md), not {shown(data)}"
        ))
    reader = _Reader(doc)
    reader.fields((), data, TOP_FIELDS)

    game = data.get("game", "infexion")
    game_options = data.get("game_options") or {}
    if game not in game_names():
        reader.fail(("game",), f"must be one of {', '.join(game_names())}, not {shown(game)}")
    elif not isinstance(game_options, dict):
        reader.fail(("game_options",), f"must be a mapping, not {shown(game_options)}")
        game_options = {}
    else:
        try:
            load_game(game, **game_options)
        except (GameOptionError, TypeError) as exc:
            reader.fail(("game_options",), str(exc))

    agent = data.get("agent", "agent")
    try:
        parse_spec(agent if isinstance(agent, str) else "")
    except SpecError:
        reader.fail(("agent",), f"must be the submission's agent spec, e.g. agent, not {shown(agent)}")
    nested_agent = data.get("nested_agent", True)
    if not isinstance(nested_agent, bool):
        reader.fail(("nested_agent",), f"must be true or false, not {shown(nested_agent)}")
        nested_agent = True

    limits: dict[str, float] = {}
    for name in ("time_limit", "space_limit", "call_timeout"):
        if data.get(name) is not None:
            try:
                limits[name] = checked(name, data[name])
            except LimitError as exc:
                reader.fail((name,), str(exc).removeprefix(f"{name} "))

    games = data.get("games_per_opponent", 4)
    if isinstance(games, bool) or not isinstance(games, int) or games < 2 or games % 2:
        reader.fail(("games_per_opponent",), "must be an even whole number of 2 or more (both colours equally), "
                    f"not {shown(games)}")
        games = 2
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        reader.fail(("seed",), f"must be a whole number, not {shown(seed)}")
        seed = 0
    sandbox = data.get("sandbox", "auto")
    if sandbox is False:  # YAML 1.1 reads a bare `off` as false
        sandbox = "off"
    if sandbox not in SANDBOX_MODES:
        reader.fail(("sandbox",), f"must be one of {', '.join(SANDBOX_MODES)}, not {shown(sandbox)}")
    visibility = data.get("visibility", "visible")
    if visibility not in gradescope.VISIBILITIES:
        reader.fail(("visibility",),
                    f"must be one of {', '.join(gradescope.VISIBILITIES)}, not {shown(visibility)}")

    opponents: list[Opponent] = []
    items = data.get("opponents")
    if not isinstance(items, list) or not items:
        reader.fail(("opponents",), f"must be a list of at least one opponent, not {shown(items)}")
    else:
        for index, item in enumerate(items):
            opponent = _opponent(reader, index, item, submission)
            if opponent is None:
                continue
            if any(other.name == opponent.name for other in opponents):
                reader.fail(("opponents", index, "name"), f"two opponents are named {opponent.name!r}; "
                            "give one a different 'name'")
            opponents.append(opponent)

    checks_data = data.get("checks") or {}
    checks: dict[str, float] = {}
    if not isinstance(checks_data, dict):
        reader.fail(("checks",), f"must be a mapping of {', '.join(CHECKS)} to marks, not {shown(checks_data)}")
    else:
        reader.fields(("checks",), checks_data, tuple(CHECKS))
        checks = {name: reader.number(("checks", name), checks_data.get(name, 1)) for name in CHECKS}

    if reader.problems:
        raise SchemeError(*in_file_order(reader.problems, path))
    return Scheme(
        path=path, game=game, game_options=dict(game_options), agent=agent, limits=Limits(**limits),
        games_per_opponent=games, seed=seed, sandbox=sandbox, visibility=visibility, opponents=tuple(opponents),
        checks=checks, nested_agent=nested_agent, places={name: doc.where(name) for name in TOP_FIELDS},
    )


def load_scheme(path: Path | None, submission: Path | None = None) -> Scheme:
    """The scheme in ``path``; without one, Gradescope's if there is one, else :data:`DEFAULT_SCHEME`."""
    if path is None:
        if not SCHEME_FILE.is_file():
            return parse_scheme(DEFAULT_SCHEME, "the default scheme", submission)
        path = SCHEME_FILE
    try:
        text = read_text(path)
    except YamlFileError as exc:
        raise SchemeError(*exc.problems) from None
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


def _settings(scheme: Scheme, folder: Path, seed: int | None, extra: Mapping[str, Any]) -> MatchSettings:
    # The game's seed goes into its options where the game draws its setup from it (Infinitron's
    # cities), as in a tournament and as `python -m referee --seed` does: the printed command replays it.
    options = game_class(scheme.game).seeded_options(scheme.game_options, seed)
    return MatchSettings(
        game=scheme.game, game_options=options, limits=scheme.limits, seed=seed, extra=dict(extra),
        agent_dir=str(folder), sandbox=scheme.sandbox,
    )


def _jobs(scheme: Scheme, folder: Path, games: list[Game]) -> Iterator[Job]:
    mine = AgentEntry(scheme.agent, SUBMISSION_NAME)
    for game in games:
        theirs = AgentEntry(game.opponent.spec, game.opponent.name, game.opponent.options)
        red, blue = (mine, theirs) if game.color == "RED" else (theirs, mine)
        extra = {"game_index": game.index, "opponent": game.opponent.name}
        yield Job(game.index, red, blue, _settings(scheme, folder, game.seed, extra))


def play_games(scheme: Scheme, folder: Path, workers: int = 1) -> list[Game]:
    """Play the whole gauntlet from ``folder``; every game comes back with its record (or the referee's failure)."""
    games = _games(scheme)
    with LocalExecutor(workers) as executor:
        for finished in executor.run(play_match, _jobs(scheme, folder, games)):
            index = finished.job.index
            games[index] = Game(
                index, games[index].opponent, games[index].color, games[index].seed, finished.record, finished.error
            )
    return games


# -- where the agent is --------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """Where the submission's agent package is: the folder its games start in."""

    top: str  # the package's top-level name (agent)
    folder: Path | None  # None: not found, or found only where the scheme does not look
    nested: str | None = None  # the sub-folder of the submission it was found in, when not at the top
    elsewhere: tuple[str, ...] = ()  # sub-folders holding one, when none was used


def _holds(folder: Path, top: str) -> bool:
    return (folder / top).is_dir() or (folder / f"{top}.py").is_file()


def _subfolders(submission: Path) -> list[Path]:
    try:
        # Hidden folders and the __MACOSX folder of a zip made on a Mac hold no one's code.
        return sorted(p for p in submission.iterdir() if p.is_dir() and not p.name.startswith((".", "__MACOSX")))
    except OSError:
        return []


def find_agent(scheme: Scheme, submission: Path) -> Found:
    """Find the agent package at the submission's top, or one folder down (a zip of the folder, not its contents).

    One folder down is used only when the scheme allows it (``nested_agent``)
    and exactly one sub-folder holds the package; otherwise nothing is
    played and the feedback names what was found.
    """
    module, _ = parse_spec(scheme.agent)
    top = module.split(".")[0]
    if _holds(submission, top):
        return Found(top, submission)
    inside = tuple(folder.name for folder in _subfolders(submission) if _holds(folder, top))
    if len(inside) == 1 and scheme.nested_agent:
        return Found(top, submission / inside[0], nested=inside[0])
    if not inside and spec_problem(scheme.agent, submission) is None:
        return Found(top, submission)  # a spec naming an installed package (a scheme tried on a bundled agent)
    return Found(top, None, elsewhere=inside)


@dataclass(frozen=True)
class Unplayed:
    """Why no game was played: a clause every test's first line uses, and what the load check adds."""

    why: str  # "your submission has no agent/ folder"
    details: str = ""  # Markdown


def _listing(submission: Path) -> str:
    """What the submission holds at its top, in a few names."""
    try:
        entries = sorted(p for p in submission.iterdir() if not p.name.startswith((".", "__MACOSX")))
    except OSError:
        entries = []
    if not entries:
        return "Your submission is empty."
    names = [p.name + ("/" if p.is_dir() else "") for p in entries[:SHOWN_ENTRIES]]
    more = f" and {len(entries) - SHOWN_ENTRIES} more" if len(entries) > SHOWN_ENTRIES else ""
    return "Your submission holds: " + ", ".join(code_span(name) for name in names) + more + "."


def unplayed(found: Found, submission: Path) -> Unplayed | None:
    """Why no game can be played for lack of the agent package (None: it was found)."""
    if found.folder is not None:
        return None
    top = found.top
    fix = (
        f"Your agent must be the package {code_span(top + '/')} (its {code_span('__init__.py')} and your "
        f"modules) at the top of your submission: zip the contents of your project folder, not the folder."
    )
    if not found.elsewhere:
        return Unplayed(f"your submission has no {top}/ folder", paragraphs(_listing(submission), fix))
    if len(found.elsewhere) == 1:
        where = code_span(f"{found.elsewhere[0]}/{top}/")
        return Unplayed(
            f"your submission has no {top}/ folder at its top (it is in {where})",
            paragraphs(f"This assignment does not look inside folders. {fix}"),
        )
    where = ", ".join(code_span(f"{name}/{top}/") for name in found.elsewhere)
    return Unplayed(
        f"your submission has no {top}/ folder at its top (there is one in each of {where})",
        paragraphs(f"Submit one of them. {fix}"),
    )


def nested_note(found: Found) -> str | None:
    """The note on an agent package found one folder down and used."""
    if found.nested is None:
        return None
    return (
        f"Note: your submission has no {found.top}/ folder at its top; the one in "
        f"{code_span(f'{found.nested}/{found.top}/')} was used. Next time zip the contents of "
        f"{code_span(found.nested + '/')}, not the folder itself."
    )


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
                f"{opponent.where or f'{scheme.path}: opponents[{index}]'}: {opponent.name} cannot be loaded: "
                f"{inert_line(problem)}"
            )
    return problems


@dataclass(frozen=True)
class Marking:
    """What the feedback is written from: the scheme, where the games started, the games."""

    scheme: Scheme
    found: Found
    games: list[Game]
    unplayed: Unplayed | None = None

    @property
    def run_from(self) -> str:
        """Where a student runs the printed command from."""
        if self.found.nested:
            return f"the folder {code_span(self.found.nested + '/')} of your submission (it holds {self.found.top}/)"
        return "your submission folder"


def play_again(marking: Marking, game: Game) -> str:
    """The command that plays ``game`` again, as Markdown, and what it cannot repeat."""
    scheme = marking.scheme
    mine, theirs = Side(scheme.agent, {}), Side(game.opponent.spec, game.opponent.options)
    red, blue = (mine, theirs) if game.color == "RED" else (theirs, mine)
    chance = game.record.chance_seed if game.record is not None else None
    command, missing = play_command(red, blue, scheme.game, scheme.game_options, scheme.limits, game.seed, chance)
    text = f"Play it again, from {marking.run_from}:\n\n" + code_block(command, "sh")
    if missing:
        text += (
            "\n\nThe command line cannot give " + ", ".join(code_span(option) for option in missing)
            + ", so the game it plays may differ from this one."
        )
    return text


def headline(marking: Marking, game: Game) -> str:
    """One line on a game that was not won."""
    record = game.record
    if record is None:
        # The grader's own failure (a traceback): its last line says enough, and it does not count.
        failed = (game.failure or "unknown").strip().splitlines() or ["unknown"]
        return f"Game {game.index} was not played: the referee failed ({plain(failed[-1])}); it does not count."
    reason = game.lost_by or record.reason
    outcome = "Drew" if record.winner is None else "Lost"
    words = f": {VERDICT_WORDS[reason]}" if game.lost_by in VERDICT_WORDS else ""
    return (
        f"**{outcome} game {game.index}** as {game.color} against {plain(game.opponent.name)} after "
        f"{counted(marking.scheme.game, record.turns)}, by {code_span(reason)}{words}."
    )


def story(marking: Marking, game: Game, moves: bool) -> str:
    """A game that was not won: what happened, the agent's error, the final position (and the moves), the command."""
    record = game.record
    if record is None:
        return headline(marking, game)
    parts = [headline(marking, game), error_text(record.error.get(game.color))]
    replayed = replay(record)
    if moves:
        parts.append(f"The moves (you are {game.color}):\n\n" + code_block(moves_text(replayed.turns)))
    if replayed.board is not None:
        parts.append(f"The final position, after {counted(marking.scheme.game, record.turns)}:\n\n"
                     + code_block(replayed.board))
    parts.append(play_again(marking, game))
    return paragraphs(*parts)


def stories(marking: Marking, games: list[Game], detailed: int = DETAILED_GAMES) -> str:
    """The first ``detailed`` games in full (moves and all), a few more without their moves, then how many more."""
    told = [story(marking, game, moves=n < detailed) for n, game in enumerate(games[:SHOWN_GAMES])]
    rest = games[SHOWN_GAMES:]
    if rest:
        told.append(f"... and {len(rest)} more: game{'s' if len(rest) > 1 else ''} "
                    + ", ".join(str(game.index) for game in rest) + ".")
    return paragraphs(*told)


def opponent_test(marking: Marking, opponent: Opponent) -> TestResult:
    """Marks for the games against one opponent, by the band the score reaches."""
    scheme = marking.scheme

    def result(marks: float, output: str) -> TestResult:
        return TestResult(f"Against {opponent.name}", marks, opponent.marks, output, scheme.visibility, "md")

    if marking.unplayed is not None:
        see = " (see Loads and plays legally)" if not marking.unplayed.why.startswith("your submission has") else ""
        return result(0, f"Not played: {marking.unplayed.why}{see}.")
    mine = [game for game in marking.games if game.opponent is opponent]
    # A game the grader itself failed to play is left out rather than counted against the student.
    played = [game for game in mine if game.record is not None]
    points = sum(game.points for game in played)
    score = points / len(played) if played else 0.0
    fraction = opponent.fraction(score)
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
    # The games your agent lost by a fault of its own come first: they are the ones to fix.
    not_won = sorted((game for game in mine if game.points < 1), key=lambda g: (g.lost_by not in UNLAWFUL_OR_LIMIT,
                                                                                 g.index))
    lines.append(stories(marking, not_won))
    return result(opponent.marks * fraction, paragraphs(*lines))


def check_tests(marking: Marking) -> list[TestResult]:
    """The three checks: loads and plays legally, never out of time, never out of memory."""
    scheme, games = marking.scheme, marking.games
    results = []
    note = nested_note(marking.found)
    for check, title in CHECKS.items():
        worth = scheme.checks[check]

        def result(marks: float, output: str, title: str = title, worth: float = worth) -> TestResult:
            return TestResult(title, marks, worth, output, scheme.visibility, "md")

        if marking.unplayed is not None:
            why = marking.unplayed.why
            if check == "plays_legally":
                output = paragraphs(f"{why[0].upper()}{why[1:]}, so no game was played.", marking.unplayed.details)
            else:
                output = f"Not tested: {why}."
            results.append(result(0, output))
            continue
        reasons = UNLAWFUL if check == "plays_legally" else (check,)
        broke = [game for game in games if game.lost_by in reasons]
        # An agent that never got an action out has shown nothing, so a check it "passes" earns nothing.
        played = sum(game.record.moves.get(game.color, 0) for game in games if game.record is not None)
        if broke:
            words = ", ".join(sorted({VERDICT_WORDS[game.lost_by or ""] for game in broke}))
            output = paragraphs(f"In {len(broke)} of {len(games)} games {words}.",
                                # The moves of the first few are under their opponent's test.
                                note if check == "plays_legally" else None, stories(marking, broke, detailed=0))
            results.append(result(0, output))
        elif not played:
            results.append(result(0, "Not shown: your agent did not play a single action in any game."))
        else:
            limit = {
                "plays_legally": "your agent loaded and played only legal actions",
                "time_limit": f"your agent stayed within {_marks(scheme.limits.time_limit or 0)} CPU seconds a game"
                if scheme.limits.time_limit else "there was no time limit",
                "space_limit": f"your agent stayed within {_marks(scheme.limits.space_limit or 0)} MB"
                if scheme.limits.space_limit else "there was no memory limit",
            }[check]
            output = f"In all {len(games)} games {limit}{_most_used(check, games)}."
            results.append(result(worth, paragraphs(output, note if check == "plays_legally" else None)))
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


def sandbox_state(sandbox: Sandbox) -> str:
    """``sealed``, ``partly sealed`` or ``unsealed``: what the agents ran under, in the results' extra data."""
    if sandbox.sealed:
        return "sealed"
    return "partly sealed" if sandbox.namespaces or sandbox.cgroup else "unsealed"


def write_games(games: list[Game], games_file: Path) -> None:
    """Every game's record, one JSON line each, readable by staff whoever runs the grader."""
    records = [game.record.to_json() for game in games if game.record is not None]
    games_file.parent.mkdir(parents=True, exist_ok=True)
    games_file.write_text("".join(line + "\n" for line in records), encoding="utf-8")
    games_file.chmod(gradescope.RESULTS_MODE)


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
            AgentEntry(scheme.agent, SUBMISSION_NAME), _settings(scheme, found.folder, scheme.seed, {})
        )
        if load_error is not None:
            why = Unplayed("your agent could not be loaded", paragraphs(nested_note(found), code_block(load_error)))
    games = _games(scheme)
    if why is None and found.folder is not None:
        games = play_games(scheme, found.folder, workers)
        write_games(games, games_file)
    else:
        games_file.unlink(missing_ok=True)  # an earlier run's games would not be this submission's
    marking = Marking(scheme, found, games, why)
    tests = [opponent_test(marking, opponent) for opponent in scheme.opponents] + check_tests(marking)
    limits = ", ".join(filter(None, [
        f"{_marks(scheme.limits.time_limit)} CPU seconds" if scheme.limits.time_limit else "",
        f"{_marks(scheme.limits.space_limit)} MB" if scheme.limits.space_limit else "",
    ])) or "no limits"
    lines = [
        f"No game was played: {why.why}." if why is not None else None,
        nested_note(found),
        f"Part B: {scheme.games_per_opponent} games of {scheme.game} against each of "
        f"{', '.join(o.name for o in scheme.opponents)} ({limits} per agent per game).",
    ]
    state = sandbox_state(sandbox)
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
    extra: dict[str, Any] = {"sandbox": state, "sandbox_layers": sandbox.to_json()}
    if users:
        extra["users"] = [dict(user) for user in users]
    return AutograderResults(
        tuple(tests), time.monotonic() - start, paragraphs(*lines), leaderboard, output_format="md", extra_data=extra,
    )


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
        print(f"{PROG}: error: {scheme.where('sandbox')}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    problems = opponent_problems(scheme, find_agent(scheme, submission).folder or submission)
    for problem in problems:
        print(f"{PROG}: error: {problem}", file=sys.stderr)
    if problems:
        return EXIT_USAGE
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
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; no results written", file=sys.stderr)
        return EXIT_INTERRUPTED
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
