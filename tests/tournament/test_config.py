"""Config checking: every bad field is named with its file and line."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from referee.limits import Limits
from referee.match import AgentEntry, MatchSettings, check_agent
from referee.tournament.formats.round_robin import RoundRobin
from referee.tournament.config import AgentConfig, ConfigError, default_name, load_config, parse_config
from referee.tournament.lineup import build_lineup

from tests.helpers import ROOT

GOOD = """\
name: t
agents:
  - agents.random_agent
  - {name: other, spec: agents.random_agent, options: {depth: 2}}
"""


def error_of(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return str(info.value)


def test_a_good_config_and_its_defaults(tmp_path):
    path = tmp_path / "good.yaml"
    path.write_text(GOOD)
    config = load_config(path)
    assert config.name == "t" and config.game == "infexion" and config.format == RoundRobin()
    assert config.games_per_pair == 2 and config.seed == 0 and config.workers is None
    assert config.limits == Limits() and config.sprt is None
    assert config.output == Path("results/t")
    assert [(a.name, a.spec, dict(a.options)) for a in config.agents] == [
        ("random_agent", "agents.random_agent", {}),
        ("other", "agents.random_agent", {"depth": 2}),
    ]


def test_name_defaults_to_the_file_name(tmp_path):
    path = tmp_path / "evening.yaml"
    path.write_text(GOOD.replace("name: t\n", ""))
    assert load_config(path).name == "evening"


@pytest.mark.parametrize(
    "text, where, words",
    [
        # (config, "line: field" the message must name, words it must contain)
        (GOOD + "games_per_pair: 3\n", "5: games_per_pair", "even"),
        (GOOD + "games_per_pair: 0\n", "5: games_per_pair", "at least 2"),
        (GOOD + "games_per_pair: two\n", "5: games_per_pair", "whole number"),
        (GOOD + "time_limit: -1\n", "5: time_limit", "0 or more"),
        (GOOD + "time_limit: yes\n", "5: time_limit", "boolean"),
        (GOOD + "space_limit: lots\n", "5: space_limit", "number"),
        (GOOD + "call_timeout: -1\n", "5: call_timeout", "wall seconds per agent call"),
        (GOOD + "workers: 0\n", "5: workers", "at least 1"),
        (GOOD + "seed: 1.5\n", "5: seed", "whole number"),
        (GOOD + "format: elimination\n", "5: format", "round_robin, gauntlet, swiss, ladder, knockout"),
        (GOOD + "rounds: 2\n", "5: rounds", "only used by format: swiss"),
        (GOOD + "format: swiss\nrounds: 0\n", "6: rounds", "at least 1"),
        (GOOD + "format: gauntlet\n", "5: format", "challenger"),
        (GOOD + "challenger: other\n", "5: challenger", "only used by format: gauntlet"),
        (GOOD + "game: chess\n", "5: game", "known games: "),
        (GOOD + "game: cachex\ngame_options: {n: 1}\n", "6: game_options", "board size n must be"),
        (GOOD + "game_options: {size: 9}\n", "5: game_options", "not accepted by infexion"),
        (GOOD + "game_options: [1]\n", "5: game_options", "mapping"),
        (GOOD + "output: 3\n", "5: output", "folder path"),
        (GOOD.replace("name: t", "name: 'my tournament'"), "1: name", "letters, digits"),
        (GOOD + "games_per_par: 4\n", "5: games_per_par", "did you mean 'games_per_pair'"),
        (GOOD + "sprt: {elo0: 5, elo1: 0}\n", "5: sprt.elo1", "greater than elo0"),
        (GOOD + "sprt: {elo0: 0, elo1: 5, alpha: 2}\n", "5: sprt.alpha", "between 0 and 0.5"),
        (GOOD + "sprt: {elo1: 5}\n", "5: sprt", "needs elo0"),
        (GOOD + "sprt: {elo0: 0, elo1: 5, gamma: 1}\n", "5: sprt.gamma", "unknown field"),
        (GOOD + "name: again\n", "5: name", "given twice"),
        ("name: t\nagents: agents.random_agent\n", "2: agents", "list"),
        ("name: t\nagents: []\n", "2: agents", "list"),
        ("name: t\nagents:\n  - agents.random_agent\n", "2: agents", "at least two"),
        ("name: t\nagents:\n  - agents.random_agent\n  - 3\n", "4: agents[1]", "package spec"),
        ("name: t\nagents:\n  - agents.random_agent\n  - not a spec\n", "4: agents[1]", "not a package spec"),
        ("name: t\nagents:\n  - agents.random_agent\n  - {name: x}\n", "4: agents[1]", "needs 'spec'"),
        (
            "name: t\nagents:\n  - agents.random_agent\n  - {spec: a.b, nmae: x}\n",
            "4: agents[1].nmae",
            "did you mean 'name'",
        ),
        (
            "name: t\nagents:\n  - agents.random_agent\n  - {spec: a.b, name: 'a b'}\n",
            "4: agents[1].name",
            "letters, digits",
        ),
        ("name: t\nagents:\n  - agents.random_agent\n  - {spec: a.b, options: 3}\n", "4: agents[1].options", "mapping"),
        (
            "name: t\nagents:\n  - agents.random_agent\n  - {spec: a.b, options: {seed: 3}}\n",
            "4: agents[1].options.seed",
            "passed by the referee",
        ),
        (
            "name: t\nagents:\n  - agents.random_agent\n  - agents.random_agent\n",
            "4: agents[1]",
            "two agents are named 'random_agent'",
        ),
        ("name: t\nagents:\n  - agents.random_agent\n  - {discover: ''}\n", "4: agents[1].discover", "folder path"),
        (
            "name: t\nagents:\n  - agents.random_agent\n  - {discover: x, on_error: ignore}\n",
            "4: agents[1].on_error",
            "exclude, forfeit",
        ),
        (
            "name: t\nagents:\n  - agents.random_agent\n  - {discover: x, class: 'no way'}\n",
            "4: agents[1].class",
            "class name",
        ),
    ],
)
def test_each_bad_field_is_named(tmp_path, text, where, words):
    message = error_of(tmp_path, text)
    assert f"bad.yaml:{where}:" in message, message
    assert words in message, message


def test_yaml_syntax_errors_give_line_and_column(tmp_path):
    message = error_of(tmp_path, "name: t\nagents: [a, b\n")
    assert "bad.yaml:3:1: not valid YAML" in message


def test_other_bad_files(tmp_path):
    assert "is empty" in error_of(tmp_path, "")
    assert "mapping of fields" in error_of(tmp_path, "- a\n- b\n")
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "missing.yaml")


def laughs(levels: int = 9) -> str:
    """A "billion laughs" config: nine levels of nine aliases each, 9**9 values in a few hundred bytes."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\nname: t\nagents: [agents.random_agent, agents.random_agent]\n"


def test_aliases_that_expand_past_the_limit_are_refused_while_loading(tmp_path):
    # Refused as the file is read (the count is linear in the file), naming
    # the first value that grew too big: a5 holds 9**6 = 531441 values.
    message = error_of(tmp_path, laughs())
    assert "bad.yaml:6: this holds more than 100000 values once its aliases (*name) are expanded" in message


def test_an_alias_inside_the_value_it_names_is_refused(tmp_path):
    message = error_of(tmp_path, "name: t\nagents: &a [agents.random_agent, *a]\n")
    assert "bad.yaml:2: the alias *a is used inside the value it names" in message


def test_nesting_past_the_limit_is_refused(tmp_path):
    message = error_of(tmp_path, "name: t\nagents: " + "[" * 5000 + "]" * 5000 + "\n")
    assert "bad.yaml:2: lists and mappings nested more than 100 deep" in message


def test_aliases_of_a_sane_size_still_share_options(tmp_path):
    path = tmp_path / "aliases.yaml"
    path.write_text(
        "name: t\n"
        "agents:\n"
        "  - {name: a, spec: agents.random_agent, options: &common {depth: 3, weights: [1, 2]}}\n"
        "  - {name: b, spec: agents.random_agent, options: *common}\n"
        "  - {name: c, spec: agents.random_agent, options: {<<: *common, depth: 4}}\n"
    )
    options = [dict(agent.options) for agent in load_config(path).agents]
    assert options == [
        {"depth": 3, "weights": [1, 2]},
        {"depth": 3, "weights": [1, 2]},
        {"depth": 4, "weights": [1, 2]},
    ]


def test_default_names():
    assert default_name("agents.minimax") == "minimax"
    assert default_name("agents/minimax/") == "minimax"
    assert default_name("pkg.mod:Fast") == "mod:Fast"


#: check_agent's answer for each agent and game settings already checked by a config of configs/ (the same
#: bundled agents with the same options, game and limits come back in up to 30 configs).
_CHECKED: dict[str, str | None] = {}
_CHECKING = threading.Lock()


def check_once(entry: AgentEntry, settings: MatchSettings) -> str | None:
    """check_agent, once for each distinct agent (spec, options, limits) and game settings.  Not per seed: the
    configs' seeds differ, and whether the bundled agents load does not depend on the seed they are given."""
    key = json.dumps([entry.spec, dict(entry.options), repr(entry.limits), settings.game, dict(settings.game_options),
                      repr(settings.limits), settings.sandbox, list(settings.pass_env)], sort_keys=True, default=repr)
    with _CHECKING:
        known = key in _CHECKED
    if not known:
        found = check_agent(entry, settings)
        with _CHECKING:
            _CHECKED[key] = found
    return _CHECKED[key]


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_configs_are_valid(path):
    config = parse_config(path.read_text(), path)
    assert len(config.agents) >= 2
    # Every agent it names is imported and constructed (in its own process,
    # with its options), as before a real run: once for each agent and settings met before in another config.
    lineup = build_lineup(config, workers=2, cwd=ROOT, check=check_once)
    assert len(lineup.plan.agents) == len(config.agents)


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "external").glob("*.yaml")), ids=lambda p: p.name)
def test_configs_of_exported_agents_are_valid_and_their_bundled_agents_load(path, tmp_path):
    # The exported agents are not here (configs/external/README.md): every field is checked, and the
    # bundled agents named are loaded as before a real run, with the agent's own limits if it has them.
    config = parse_config(path.read_text(), path)
    ours = [agent for agent in config.agents if isinstance(agent, AgentConfig) and agent.spec.startswith("agents.")]
    theirs = [agent for agent in config.agents if agent not in ours]
    assert ours and theirs, "a config here plays bundled agents against exported ones"
    for agent in ours:
        assert check_agent(AgentEntry(agent.spec, agent.name, dict(agent.options)), MatchSettings(
            game=config.game, game_options=dict(config.game_options), limits=config.limits)) is None


def test_pass_env_takes_variable_names_and_goes_into_the_plan(tmp_path):
    base = "name: t\nagents: [agents.random_agent, agents.greedy]\n"
    for bad, words in [("pass_env: ['A=B']", "'A=B' is not the name of an environment variable"),
                       ("pass_env: {A: 1}", "must be a list of environment variable names")]:
        message = error_of(tmp_path, base + bad + "\n")
        assert "bad.yaml:3: pass_env:" in message and words in message, message
    path = tmp_path / "ok.yaml"
    path.write_text(base + "pass_env: [OMP_NUM_THREADS, HOME]\n")
    config = load_config(path)
    assert config.pass_env == ("OMP_NUM_THREADS", "HOME")
