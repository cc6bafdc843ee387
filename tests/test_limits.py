"""One Limits value: parsed from the command line or YAML, carried unchanged to the hosted agent and the record."""
from __future__ import annotations

import math

import pytest

import referee.match
import referee.agent_game.cli as agent_game_cli
from referee.games.agent_kwargs import REFEREE_KWARGS
from referee.games import load_game
from referee.limits import DEFAULT_GRACE, LimitError, Limits
from referee.match import AgentEntry, MatchSettings, call_kwargs, play_match
from referee.records import GameRecord
from referee.tournament.config import RESERVED_OPTIONS, ConfigError, parse_config
from referee.tournament.lineup import build_lineup
from referee.tournament.schedule import TournamentPlan, schedule
from tests.helpers import ROOT

RANDOM = "agents.random_agent"

CONFIG = """\
name: limits
agents: [agents.random_agent, agents.greedy]
"""


# -- the value itself ---------------------------------------------------------


def test_defaults_are_no_limits_and_the_default_grace():
    limits = Limits()
    assert (limits.time_limit, limits.space_limit, limits.call_timeout) == (None, None, None)
    assert limits.wall_grace == DEFAULT_GRACE
    assert limits.cpu is None and limits.space_bytes is None


@pytest.mark.parametrize("name", ["time_limit", "space_limit", "call_timeout"])
def test_zero_means_none_for_the_optional_limits(name):
    assert getattr(Limits(**{name: 0}), name) is None
    assert Limits(**{name: 0}) == Limits()


def test_a_grace_of_zero_is_no_grace_not_the_default():
    assert Limits(wall_grace=0).wall_grace == 0.0


def test_numbers_become_floats_and_derived_values_follow():
    limits = Limits(time_limit=30, space_limit=2, wall_grace=1, call_timeout=7)
    assert limits == Limits(30.0, 2.0, 1.0, 7.0)
    assert all(
        isinstance(getattr(limits, n), float) for n in ("time_limit", "space_limit", "wall_grace", "call_timeout")
    )
    assert limits.cpu == 30.0 and limits.space_bytes == 2 * 1024 * 1024


@pytest.mark.parametrize("name", ["time_limit", "space_limit", "wall_grace", "call_timeout"])
@pytest.mark.parametrize("value", [-1, math.nan, math.inf, True, "5"])
def test_bad_values_name_the_limit(name, value):
    with pytest.raises(LimitError) as info:
        Limits(**{name: value})
    assert info.value.name == name
    assert str(info.value).startswith(f"{name} must be a number of 0 or more")


# -- from YAML ------------------------------------------------------------------


def test_yaml_sets_every_limit_including_the_grace():
    config = parse_config(CONFIG + "time_limit: 30\nspace_limit: 200\ncall_timeout: 9\nwall_grace: 1.5\n")
    assert config.limits == Limits(time_limit=30, space_limit=200, wall_grace=1.5, call_timeout=9)


def test_yaml_zero_and_empty_mean_none_and_an_empty_grace_is_the_default():
    config = parse_config(CONFIG + "time_limit: 0\nspace_limit:\ncall_timeout: 0\nwall_grace:\n")
    assert config.limits == Limits()
    assert parse_config(CONFIG + "wall_grace: 0\n").limits.wall_grace == 0.0


@pytest.mark.parametrize(
    ("field", "value", "meaning"),
    [
        ("time_limit", "-1", "CPU seconds per agent per game; 0 or empty: no limit"),
        ("space_limit", "lots", "MB per agent; 0 or empty: no limit"),
        ("call_timeout", "true", "wall seconds per agent call; 0 or empty: no limit"),
        ("wall_grace", "-2", "wall seconds a call may last beyond the agent's remaining CPU time; default 5"),
    ],
)
def test_yaml_bad_limits_are_named_with_their_line(field, value, meaning):
    with pytest.raises(ConfigError) as info:
        parse_config(CONFIG + f"seed: 1\n{field}: {value}\n", "t.yaml")
    assert info.value.problems == [
        f"t.yaml:4: {field}: must be a number of 0 or more ({meaning}), not "
        + {"-1": "-1", "lots": "'lots'", "true": "true (a boolean)", "-2": "-2"}[value]
    ]


def test_yaml_reports_every_bad_limit_at_once():
    with pytest.raises(ConfigError) as info:
        parse_config(CONFIG + "time_limit: -1\nwall_grace: x\n", "t.yaml")
    assert [p.split(":")[:3] for p in info.value.problems] == [
        ["t.yaml", "3", " time_limit"],
        ["t.yaml", "4", " wall_grace"],
    ]


# -- carried unchanged ------------------------------------------------------------


def test_the_config_value_reaches_every_game_of_the_plan():
    config = parse_config(CONFIG + "time_limit: 30\nwall_grace: 2\n")
    plan = build_lineup(config, check=lambda entry, settings: None, cwd=ROOT).plan
    assert plan.limits is config.limits
    assert plan.match_settings().limits is config.limits
    assert all(job.settings.limits is config.limits for job in schedule(plan))


def test_a_changed_grace_changes_the_fingerprint_and_the_default_leaves_old_plans_alone():
    agents = (AgentEntry("a.x", "x"), AgentEntry("a.y", "y"))
    base = TournamentPlan(name="t", agents=agents)
    assert "wall_grace" not in base.describe() and "call_timeout" not in base.describe()
    assert (
        TournamentPlan(name="t", agents=agents, limits=Limits(wall_grace=DEFAULT_GRACE)).fingerprint == base.fingerprint
    )
    graced = TournamentPlan(name="t", agents=agents, limits=Limits(wall_grace=1))
    assert graced.describe()["wall_grace"] == 1.0 and graced.fingerprint != base.fingerprint


class _Hosted:
    """Records the limits each hosted agent is made with."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.limits: list[Limits] = []
        real = referee.match.HostedAgent

        def hosted(*args, **kwargs):
            self.limits.append(args[5])
            return real(*args, **kwargs)

        monkeypatch.setattr(referee.match, "HostedAgent", hosted)


def test_the_match_hosts_both_agents_under_its_limits_and_records_them(monkeypatch):
    hosted = _Hosted(monkeypatch)
    limits = Limits(time_limit=30, space_limit=0, wall_grace=3)
    settings = MatchSettings(seed=2, limits=limits, sandbox="off")
    record = play_match(AgentEntry(RANDOM), AgentEntry(RANDOM), settings)
    assert hosted.limits == [limits, limits] and all(given is limits for given in hosted.limits)
    data = record.to_dict()
    assert data["time_limit"] == 30.0 and data["space_limit"] is None
    assert GameRecord.from_dict(data).time_limit == 30.0


def test_the_command_line_sets_every_limit(monkeypatch, tmp_path):
    hosted = _Hosted(monkeypatch)
    given: list[MatchSettings] = []
    real = agent_game_cli.play_match

    def play(red, blue, settings, observer=None):
        given.append(settings)
        return real(red, blue, settings, observer)

    monkeypatch.setattr(agent_game_cli, "play_match", play)
    monkeypatch.chdir(ROOT)
    path = tmp_path / "game.json"
    argv = ["-v", "0", "--seed", "1", "--sandbox", "off", "--record", str(path)]
    limits = ["-t", "30", "-s", "200", "--grace", "2", "--call-timeout", "7"]
    assert agent_game_cli.main([*argv, *limits, RANDOM, RANDOM]) == 0
    assert given[0].limits == Limits(time_limit=30, space_limit=200, wall_grace=2, call_timeout=7)
    assert hosted.limits == [given[0].limits] * 2
    record = GameRecord.from_json(path.read_text())
    assert (record.time_limit, record.space_limit) == (30.0, 200.0)


def test_the_command_line_zero_means_none(monkeypatch, tmp_path):
    hosted = _Hosted(monkeypatch)
    monkeypatch.chdir(ROOT)
    path = tmp_path / "game.json"
    argv = ["-v", "0", "--sandbox", "off", "--record", str(path), "-t", "0", "-s", "0", "--call-timeout", "0"]
    assert agent_game_cli.main([*argv, RANDOM, RANDOM]) == 0
    assert hosted.limits[0] == Limits()
    record = GameRecord.from_json(path.read_text())
    assert record.time_limit is None and record.space_limit is None


# -- the referee's keyword arguments, listed once -------------------------------


def test_call_kwargs_sends_exactly_the_listed_referee_kwargs():
    game = load_game("infexion")

    class Agent:
        time_remaining = 1.0
        space_remaining = 2.0

    kwargs = call_kwargs(
        game, MatchSettings(limits=Limits(space_limit=3)), AgentEntry("x", options={"depth": 2}), Agent()
    )
    assert set(kwargs) - set(game.agent_kwargs) - {"depth"} == set(REFEREE_KWARGS)
    assert kwargs["space_limit"] == 3.0


def test_config_and_bundled_agents_use_the_same_list():
    from agents.common.agent import REFEREE_KEYS

    assert set(RESERVED_OPTIONS) == set(REFEREE_KWARGS) == REFEREE_KEYS
    for name in REFEREE_KWARGS:
        with pytest.raises(ConfigError, match="passed by the referee itself"):
            parse_config(CONFIG.replace("agents.greedy", f"{{spec: agents.minimax, options: {{{name}: 1}}}}"))
