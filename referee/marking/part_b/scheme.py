"""The Part B marking scheme: reading and checking its YAML (the format is in :mod:`referee.marking.part_b`).

The file is read by :mod:`referee.yaml_file`, as a tournament config is, so
every problem names the file, the line and the field, a misspelt field the
one meant, and aliases cannot blow the file up.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...games import DEFAULT_GAME, game_names, load_game
from ...games.agent_kwargs import REFEREE_KWARGS
from ...games.base import GameOptionError
from ...hosting.sandbox import MODES as SANDBOX_MODES
from ...hosting.sandbox import setting_mode
from ...limits import SIDE_LIMITS, LimitError, Limits, checked, own_limits
from ...match import SpecError, parse_spec, spec_problem
from ...yaml_file import Document, YamlFileError, in_file_order, read_text, shown, unknown_fields
from .. import gradescope
from ..gradescope import SCHEME_FILE

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
    "games_per_opponent", "seed", "sandbox", "visibility", "opponents", "checks", "turning_points",
)
OPPONENT_FIELDS = ("name", "spec", "options", "marks", "bands", "time_limit", "space_limit")
BAND_FIELDS = ("min_score", "fraction")
TURNING_FIELDS = ("games", "iterations", "seconds")
CHECKS = {
    "plays_legally": "Loads and plays legally",
    "time_limit": "Never exceeds the time limit",
    "space_limit": "Never exceeds the memory limit",
}


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
    #: The opponent's own limits (the games against it are at odds), instead of the scheme's; None: the scheme's.
    time_limit: float | None = None
    space_limit: float | None = None

    def limits(self, scheme: Limits) -> Limits | None:
        """Its own limits given the scheme's, or None when it plays under the scheme's."""
        own = own_limits(scheme, self.time_limit, self.space_limit)
        return own if own != scheme else None

    def fraction(self, score: float) -> float:
        """The fraction of the marks a score (0..1) earns."""
        if not self.bands:
            return score
        return next((band.fraction for band in self.bands if score >= band.min_score), 0.0)


@dataclass(frozen=True)
class TurningPoints:
    """How the turning points of lost games are found for their feedback (docs/marking.md, "The turning point")."""

    #: Games lost by the rules analysed per opponent, the first told (0: none).
    games: int = 1
    #: The engine's effort: MCTS simulations a position (``python -m referee analyse --iterations``).
    iterations: int = 400
    #: Wall-clock seconds for all of one submission's analyses: a game not analysed by then says nothing.
    seconds: float = 60.0


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
    turning_points: TurningPoints = field(default_factory=TurningPoints)

    def where(self, name: str) -> str:
        """``file:line: field`` of a top-level field, for a problem found after loading."""
        return self.places.get(name, f"{self.path}: {name}")


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


def _whole(reader: _Reader, path: tuple[Any, ...], value: Any, low: int, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        reader.fail(path, f"must be a whole number of {low} or more, not {shown(value)}")
        return default
    return value


def _turning_points(reader: _Reader, value: Any) -> TurningPoints:
    default = TurningPoints()
    if value is None:
        return default
    if not isinstance(value, dict):
        reader.fail(("turning_points",), f"must be a mapping of {', '.join(TURNING_FIELDS)}, not {shown(value)}")
        return default
    reader.fields(("turning_points",), value, TURNING_FIELDS)
    seconds = value.get("seconds", default.seconds)
    if not gradescope.is_number(seconds) or not seconds > 0:
        reader.fail(("turning_points", "seconds"), f"must be a number of seconds above 0, not {shown(seconds)}")
        seconds = default.seconds
    return TurningPoints(
        games=_whole(reader, ("turning_points", "games"), value.get("games", default.games), 0, default.games),
        iterations=_whole(reader, ("turning_points", "iterations"), value.get("iterations", default.iterations), 1,
                          default.iterations),
        seconds=float(seconds),
    )


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
    own: dict[str, float] = {}
    for field_name in SIDE_LIMITS:
        if item.get(field_name) is not None:
            try:
                own[field_name] = checked(field_name, item[field_name])
            except LimitError as exc:
                reader.fail(path + (field_name,), str(exc).removeprefix(f"{field_name} ")
                            + " (this opponent's own, instead of the scheme's)")
    return Opponent(
        name=name.strip(),
        spec=spec,
        options=reader.options(path + ("options",), item.get("options")),
        marks=reader.number(path + ("marks",), item.get("marks", 0)),
        bands=_bands(reader, path + ("bands",), item.get("bands")),
        where=reader.doc.where(*path),
        **own,
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

    game = data.get("game", DEFAULT_GAME)
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
    sandbox = setting_mode(data.get("sandbox", "auto"))
    if sandbox is None:
        reader.fail(("sandbox",), f"must be one of {', '.join(SANDBOX_MODES)}, not {shown(data['sandbox'])}")
        sandbox = "auto"
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
    turning_points = _turning_points(reader, data.get("turning_points"))

    if reader.problems:
        raise SchemeError(*in_file_order(reader.problems, path))
    return Scheme(
        path=path, game=game, game_options=dict(game_options), agent=agent, limits=Limits(**limits),
        games_per_opponent=games, seed=seed, sandbox=sandbox, visibility=visibility, opponents=tuple(opponents),
        checks=checks, nested_agent=nested_agent, places={name: doc.where(name) for name in TOP_FIELDS},
        turning_points=turning_points,
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
