"""Reading and checking a tournament's YAML config.

:func:`load_config` only reads and checks the file (no agent is imported;
given the folder agents come from, each spec must name a module there,
found by path); :mod:`referee.tournament.lineup` then discovers and checks
the agents.  The problems raise one :class:`ConfigError`, each naming the
file, the line and the field: every field is checked, even after another
failed, unless it depends on it (``game_options`` on ``game``), so one run
reports them all.
"""
from __future__ import annotations

import json
import math
import re
from functools import partial
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit


from ..games import DEFAULT_GAME, game_names, load_game
from ..games.agent_kwargs import REFEREE_KWARGS
from ..games.base import GameOptionError
from ..hosting.sandbox import MODES as SANDBOX_MODES
from ..hosting.sandbox import setting_mode
from ..hosting.environment import check_names
from ..limits import DEFAULT_GRACE, MEANINGS, SIDE_LIMITS, LimitError, Limits, checked
from ..match import SpecError, parse_spec, spec_problem
from .formats import DEFAULT_FORMAT, formats
from .formats.base import Format
from .problems import ConfigError
from .sprt import SprtSettings
from ..yaml_file import Document, Problems, YamlFileError, check_fields, in_file_order, read_text, shown

ON_ERROR = ("exclude", "forfeit")
EXECUTORS = ("local", "dask")
#: ``scheduler: local`` starts a Dask LocalCluster on this machine.
LOCAL_SCHEDULER = "local"
SCHEDULER_SCHEMES = ("tcp", "tls")

#: Keyword arguments the referee passes itself; an agent's options may not shadow them.
RESERVED_OPTIONS = REFEREE_KWARGS

#: The fields every config may have, around each format's own (:attr:`.formats.base.Format.fields`).
SHARED_FIELDS = ("name", "game", "game_options", "agents", "format")
LATER_FIELDS = (
    "games_per_pair", "time_limit", "space_limit", "call_timeout", "wall_grace", "workers", "seed", "output", "sprt",
    "executor", "scheduler", "ship_agents", "sandbox", "pass_env",
)


def top_fields() -> tuple[str, ...]:
    """Every top-level field a config may have: the shared ones and every known format's own."""
    own = dict.fromkeys(name for form in formats().values() for name in form.fields)
    return (*SHARED_FIELDS, *own, *LATER_FIELDS)
AGENT_FIELDS = ("name", "spec", "options", "time_limit", "space_limit")
DISCOVER_FIELDS = ("discover", "class", "on_error", "options")
SPRT_FIELDS = ("elo0", "elo1", "alpha", "beta")

T = TypeVar("T")

_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+\-]*$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class AgentConfig:
    """One agent named in the config."""

    name: str
    spec: str
    options: Mapping[str, Any]
    where: str  # "file:line: agents[i]" for messages
    #: The agent's own limits (a tournament at odds), overriding the config's; None: the config's.
    time_limit: float | None = None
    space_limit: float | None = None


@dataclass(frozen=True)
class DiscoverConfig:
    """A folder whose sub-packages each join as an agent."""

    path: Path
    class_name: str
    on_error: str  # "exclude" or "forfeit"
    options: Mapping[str, Any]
    where: str


@dataclass(frozen=True)
class TournamentConfig:
    path: Path
    name: str
    game: str
    game_options: Mapping[str, Any]
    agents: tuple[AgentConfig | DiscoverConfig, ...]
    #: The format with its own settings as configured (the lineup fits it to the final field).
    format: Format
    games_per_pair: int
    #: Every agent's limits (time_limit, space_limit, call_timeout, wall_grace).
    limits: Limits
    workers: int | None
    seed: int
    output: Path
    sprt: SprtSettings | None
    #: "file:line: field" for each top-level field, for messages after loading.
    places: Mapping[str, str] = field(default_factory=dict)
    executor: str = "local"  # or "dask"
    scheduler: str = LOCAL_SCHEDULER  # executor dask: a scheduler's address, or local
    ship_agents: bool = False  # executor dask: send the agents' folders to the workers
    #: How agents are sealed: auto, required or off (docs/referee.md, "The sandbox").
    sandbox: str = "auto"
    #: Environment variables the agents inherit beyond the few they always get (docs/referee.md).
    pass_env: tuple[str, ...] = ()

    def where(self, name: str) -> str:
        return self.places.get(name, f"{self.path}: {name}")


# -- YAML with line numbers ------------------------------------------------------


def _limits(doc: Document, data: Mapping[str, Any], problems: Problems) -> Limits:
    """The limits fields as one :class:`Limits` (empty: none, or the default grace); each bad one is a problem."""
    numbers: dict[str, float] = {}
    for name in ("time_limit", "space_limit", "call_timeout", "wall_grace"):
        value = data.get(name)
        if value is None:
            continue
        try:
            numbers[name] = checked(name, value)
        except LimitError:
            empty = f"default {DEFAULT_GRACE:g}" if name == "wall_grace" else "0 or empty: no limit"
            problems.messages.append(str(doc.fail(
                (name,), f"must be a number of 0 or more ({MEANINGS[name]}; {empty}), not {shown(value)}"
            )))
    return Limits(**numbers)


def _whole(doc: Document, path: tuple, value: Any, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise doc.fail(path, f"must be a whole number, not {shown(value)}")
    if minimum is not None and value < minimum:
        raise doc.fail(path, f"must be at least {minimum}, not {value}")
    return value


def _options(doc: Document, path: tuple, value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise doc.fail(path, f"must be a mapping of keyword arguments, not {shown(value)}")
    for key in value:
        if not isinstance(key, str) or not _IDENTIFIER.match(key):
            raise doc.fail(
                path + (key,), "an option's name must be a Python identifier (it becomes a keyword argument)"
            )
        if key in RESERVED_OPTIONS:
            raise doc.fail(path + (key,), f"{key!r} is passed by the referee itself and cannot be an option")
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        raise doc.fail(path, "must hold plain values (numbers, strings, lists, mappings)") from None
    return dict(value)


def default_name(spec: str) -> str:
    """``agents.minimax`` -> ``minimax``; ``pkg.mod:Fast`` -> ``mod:Fast``."""
    module, _, class_name = spec.strip().partition(":")
    last = module.replace("\\", "/").rstrip("/").removesuffix(".py").replace("/", ".").split(".")[-1]
    return f"{last}:{class_name}" if class_name else last


def _agent_name(doc: Document, path: tuple, value: Any) -> str:
    if not isinstance(value, str) or not _NAME.match(value):
        raise doc.fail(
            path, f"must be letters, digits and _ . + - (starting with a letter, digit or _), not {shown(value)}"
        )
    return value


def _spec(doc: Document, path: tuple, value: Any, agents_from: Path | None) -> str:
    """A package spec; with ``agents_from``, one that names a module there (found by path, not imported)."""
    if not isinstance(value, str):
        raise doc.fail(path, f"an agent must be a package spec such as agents.minimax, not {shown(value)}")
    try:
        parse_spec(value)
    except SpecError as exc:
        raise doc.fail(path, str(exc)) from None
    problem = spec_problem(value, agents_from) if agents_from is not None else None
    if problem:
        raise doc.fail(path, problem)
    return value


def _agent(doc: Document, index: int, item: Any, agents_from: Path | None) -> AgentConfig | DiscoverConfig:
    path = ("agents", index)
    if isinstance(item, str):
        named = _spec(doc, path, item, agents_from)
        return AgentConfig(default_name(named), named, {}, doc.where(*path))
    if not isinstance(item, dict):
        raise doc.fail(
            path,
            "an agent is a package spec or a mapping {name, spec, options} or {discover: FOLDER}, "
            f"not {shown(item)}",
        )
    problems = Problems()
    if "discover" in item:
        problems.check(lambda: check_fields(doc, path, item, DISCOVER_FIELDS), None)
        folder = item["discover"]
        if not isinstance(folder, str) or not folder.strip():
            problems.messages.append(
                str(doc.fail(path + ("discover",), f"must be a folder path, not {shown(folder)}"))
            )
        class_name = item.get("class", "Agent")
        if not isinstance(class_name, str) or not _IDENTIFIER.match(class_name):
            problems.messages.append(
                str(doc.fail(path + ("class",), f"must be a class name, not {shown(class_name)}"))
            )
        on_error = item.get("on_error", "exclude")
        if on_error not in ON_ERROR:
            problems.messages.append(
                str(doc.fail(path + ("on_error",), f"must be one of {', '.join(ON_ERROR)}, not {shown(on_error)}"))
            )
        options: dict[str, Any] = problems.check(lambda: _options(doc, path + ("options",), item.get("options")), {})
        problems.raise_any()
        return DiscoverConfig(Path(folder.strip()), class_name, on_error, options, doc.where(*path))
    problems.check(lambda: check_fields(doc, path, item, AGENT_FIELDS), None)
    if "spec" not in item:
        problems.messages.append(
            str(doc.fail(path, "an agent mapping needs 'spec' (its package, e.g. agents.minimax)"))
        )
        spec: str | None = None
    else:
        spec = problems.check(lambda: _spec(doc, path + ("spec",), item["spec"], agents_from), None)
    name = problems.check(lambda: _agent_name(doc, path + ("name",), item["name"]), None) if "name" in item else None
    options = problems.check(lambda: _options(doc, path + ("options",), item.get("options")), {})
    own = _own_limits(doc, path, item, problems)
    problems.raise_any()
    assert spec is not None
    return AgentConfig(name or default_name(spec), spec, options, doc.where(*path), **own)


def _own_limits(doc: Document, path: tuple, item: Mapping[str, Any], problems: Problems) -> dict[str, float]:
    """An agent's own ``time_limit``/``space_limit`` (given ones only); each bad one is a problem."""
    own: dict[str, float] = {}
    for name in SIDE_LIMITS:
        if name not in item:
            continue
        try:
            own[name] = checked(name, item[name])
        except LimitError:
            problems.messages.append(str(doc.fail(
                path + (name,), f"must be a number of 0 or more ({MEANINGS[name]} for this agent, instead of the "
                f"config's; 0: no limit), not {shown(item[name])}"
            )))
    return own


def _sprt(doc: Document, value: Any) -> SprtSettings | None:
    if value is None:
        return None
    path = ("sprt",)
    if not isinstance(value, dict):
        raise doc.fail(path, f"must be a mapping {{elo0, elo1, alpha, beta}}, not {shown(value)}")
    problems = Problems()
    problems.check(lambda: check_fields(doc, path, value, SPRT_FIELDS), None)
    numbers = {}
    for key, default in (("elo0", None), ("elo1", None), ("alpha", 0.05), ("beta", 0.05)):
        number = value.get(key, default)
        if number is None:
            problems.messages.append(str(doc.fail(path, f"sprt needs {key}")))
        elif isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
            problems.messages.append(str(doc.fail(path + (key,), f"must be a number, not {shown(number)}")))
        else:
            numbers[key] = float(number)
    if "elo0" in numbers and "elo1" in numbers and numbers["elo0"] >= numbers["elo1"]:
        problems.messages.append(
            str(doc.fail(path + ("elo1",), f"must be greater than elo0 ({numbers['elo1']:g} <= {numbers['elo0']:g})"))
        )
    for key in ("alpha", "beta"):
        if key in numbers and not 0 < numbers[key] < 0.5:
            problems.messages.append(str(doc.fail(path + (key,), f"must be between 0 and 0.5, not {numbers[key]:g}")))
    problems.raise_any()
    return SprtSettings(**numbers)


def scheduler_problem(address: str) -> str | None:
    """Why ``address`` is not ``local`` or a Dask scheduler address ``tcp://HOST:PORT``; None if it is fine."""
    if address == LOCAL_SCHEDULER:
        return None
    form = f"must be {LOCAL_SCHEDULER} or a Dask scheduler's address such as tcp://10.0.0.1:8786"
    parts = urlsplit(address)
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in SCHEDULER_SCHEMES or not parts.hostname or port is None or parts.path or parts.query:
        return f"{form}, not {address!r}"
    return None


class _FormatFields:
    """The config's fields as a format reads its own (:class:`.formats.base.ConfigFields`)."""

    def __init__(self, doc: Document, data: Mapping[str, Any], problems: Problems, listed_agents: int | None):
        self.doc, self.data, self.problems, self.listed_agents = doc, data, problems, listed_agents

    def error(self, name: str, message: str) -> ConfigError:
        return ConfigError(self.doc.problem((name,), message))

    def note(self, name: str, message: str) -> None:
        self.problems.messages.append(str(self.error(name, message)))

    def whole(self, name: str, minimum: int | None = None) -> int:
        return _whole(self.doc, (name,), self.data.get(name), minimum)

    def check(self, check: Callable[[], T], fallback: T) -> T:
        return self.problems.check(check, fallback)


def parse_config(text: str, path: Path | str = "<config>", *, agents_from: Path | None = None) -> TournamentConfig:
    """Check a config's text; raises :class:`ConfigError` with every problem found.

    ``agents_from``: the folder agents are imported from (the current
    directory of a run); given, each named agent's spec must name a module
    there, found by path without importing it.
    """
    try:
        return _parse_config(text, Path(path), agents_from)
    except ConfigError:
        raise
    except YamlFileError as exc:  # the shared reader's own (bad YAML, an empty file, an alias bomb)
        raise ConfigError(*exc.problems) from None


def _parse_config(text: str, path: Path, agents_from: Path | None) -> TournamentConfig:
    # Long on purpose: one pass over the top-level fields in the order the docs list them, each check noting its
    # problems and going on, so that one run reports every problem; the per-field checks it calls are the helpers.
    doc = Document(path, text, kind="a tournament config", guide="docs/tournament.md")
    data = doc.data
    if not isinstance(data, dict):
        raise ConfigError(
            *doc.problems,
            str(
                doc.fail(
                    (), f"a tournament config is a mapping of fields ({', '.join(top_fields())}), not {shown(data)}"
                )
            ),
        )
    problems = Problems(doc.problems)
    check = problems.check

    def fail(field_name: str, message: str) -> None:
        problems.messages.append(str(doc.fail((field_name,), message)))

    fields = top_fields()
    check(lambda: check_fields(doc, (), data, fields), None)

    name = data.get("name", path.stem)
    if not isinstance(name, str) or not _NAME.match(name):
        fail("name", f"must be letters, digits and _ . + - (it names the output folder), not {shown(name)}")
        name = path.stem

    game = data.get("game", DEFAULT_GAME)
    game_options = data.get("game_options") or {}
    if not isinstance(game, str) or game not in game_names():
        fail("game", f"unknown game {shown(game)}; known games: {', '.join(game_names())}")
    elif not isinstance(game_options, dict):
        fail("game_options", f"must be a mapping, not {shown(game_options)}")
    else:
        try:
            load_game(game, **game_options)
        except (GameOptionError, TypeError, ValueError) as exc:
            fail("game_options", f"not accepted by {game}: {exc}")

    items = data.get("agents")
    agents: tuple[AgentConfig | DiscoverConfig, ...] = ()
    if not isinstance(items, list) or not items:
        fail("agents", f"must be a list of package specs or {{name, spec, options}} mappings, not {shown(items)}")
    else:
        # Each agent on its own: a typo in one does not hide another's.
        checked = [check(partial(_agent, doc, index, item, agents_from), None) for index, item in enumerate(items)]
        names: dict[str, int] = {}
        for index, agent in enumerate(checked):
            if isinstance(agent, AgentConfig):
                if agent.name in names:
                    problems.messages.append(str(doc.fail(
                        ("agents", index),
                        f"two agents are named {agent.name!r} (agents[{names[agent.name]}] too); "
                        "give one a different 'name'",
                    )))
                names.setdefault(agent.name, index)
        agents = tuple(agent for agent in checked if agent is not None)
        if len(items) < 2 and not any(isinstance(item, dict) and "discover" in item for item in items):
            fail("agents", "a tournament needs at least two agents")

    def listed_agents() -> int | None:
        """How many agents the config names, when it discovers none (else only the lineup knows)."""
        listed = items if isinstance(items, list) else []
        if not listed or any(isinstance(item, dict) and "discover" in item for item in listed):
            return None
        return len(listed)

    known = formats()
    name_of_format = data.get("format", DEFAULT_FORMAT)
    chosen = known.get(name_of_format) if isinstance(name_of_format, str) else None
    form: Format | None = None
    if chosen is None:
        fail("format", f"must be one of {', '.join(known)}, not {shown(name_of_format)}")
    else:
        form = chosen.from_config(_FormatFields(doc, data, problems, listed_agents()))
    for other in known.values():  # a field of another format is a mistake (the wrong format, or a stray field)
        for field_name, what in other.fields.items():
            if field_name in data and (chosen is None or field_name not in chosen.fields):
                fail(field_name, f"{field_name} is only used by format: {other.name}" + (f" ({what})" if what else ""))

    def games_per_pair_of() -> int:
        number = _whole(doc, ("games_per_pair",), data.get("games_per_pair", 2), minimum=2)
        if number % 2:
            raise doc.fail(
                ("games_per_pair",), f"must be even so each pairing plays both colours equally, not {number}"
            )
        return number

    games_per_pair = check(games_per_pair_of, 2)
    workers = data.get("workers")
    if workers is not None:
        workers = check(lambda: _whole(doc, ("workers",), workers, minimum=1), None)
    seed = check(lambda: _whole(doc, ("seed",), data.get("seed", 0)), 0)

    executor = data.get("executor", "local")
    if executor not in EXECUTORS:
        fail("executor", f"must be one of {', '.join(EXECUTORS)}, not {shown(executor)}")
    scheduler = data.get("scheduler", LOCAL_SCHEDULER)
    if "scheduler" in data and executor == "local":
        fail("scheduler", "scheduler is only used by executor: dask")
    else:
        problem = (
            scheduler_problem(scheduler)
            if isinstance(scheduler, str)
            else f"must be {LOCAL_SCHEDULER} or an address, not {shown(scheduler)}"
        )
        if problem:
            fail("scheduler", problem)
    ship_agents = data.get("ship_agents", False)
    if not isinstance(ship_agents, bool):
        fail("ship_agents", f"must be true or false, not {shown(ship_agents)}")
    elif "ship_agents" in data and executor == "local":
        fail("ship_agents", "ship_agents is only used by executor: dask")

    sandbox = setting_mode(data.get("sandbox", "auto"))
    if sandbox is None:
        fail("sandbox", f"must be one of {', '.join(SANDBOX_MODES)}, not {shown(data['sandbox'])}")
        sandbox = "auto"
    pass_env: tuple[str, ...] = ()
    names = data.get("pass_env", [])
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, list):
        fail("pass_env", f"must be a list of environment variable names, not {shown(names)}")
    else:
        try:
            pass_env = tuple(check_names(names))
        except ValueError as exc:
            fail("pass_env", str(exc))
    output = data.get("output")
    if output is not None and (not isinstance(output, str) or not output.strip()):
        fail("output", f"must be a folder path, not {shown(output)}")
        output = None

    limits = _limits(doc, data, problems)
    sprt = check(lambda: _sprt(doc, data.get("sprt")), None)

    if problems.messages:
        # In the file's order, however the checks ran.
        raise ConfigError(*in_file_order(problems.messages, path))
    assert form is not None  # else a problem was noted

    return TournamentConfig(
        path=path,
        name=name,
        game=game,
        game_options=dict(game_options),
        agents=agents,
        format=form,
        games_per_pair=games_per_pair,
        limits=limits,
        workers=workers,
        seed=seed,
        output=Path(output.strip()) if output else Path("results") / name,
        sprt=sprt,
        places={key: doc.where(key) for key in fields},
        executor=executor,
        scheduler=scheduler,
        ship_agents=ship_agents,
        sandbox=sandbox,
        pass_env=pass_env,
    )


def load_config(path: Path | str, *, agents_from: Path | None = None) -> TournamentConfig:
    """Read and check a config file; raises :class:`ConfigError` (see :func:`parse_config`)."""
    path = Path(path)
    try:
        text = read_text(path)
    except YamlFileError as exc:
        raise ConfigError(*exc.problems) from None
    return parse_config(text, path, agents_from=agents_from)
