"""The games' registrations: one place per game, everything they name loads, and no list is kept twice."""
from __future__ import annotations

import argparse
import ast
import importlib

import pytest

from referee import records
from referee.games import GAMES, game_class, game_modules, game_names, registration, rule_reasons
from referee.games.base import Game, GameOptionError
from referee.games.registration import GameOption, Registration
from referee.hosting import failures
from referee.tournament.aggregate import aggregate
from tests.helpers import ROOT


@pytest.mark.parametrize("name", list(GAMES))
def test_a_bundled_registration_names_what_loads(name):
    game = registration(name)
    assert game.name == name and game_class(name).name == name
    state = game.game_class()().new_state()
    types = game.agent_types_module()
    # Every legal action goes to an agent's object and back.
    for action in state.legal_actions()[:50]:
        assert types.to_engine_action(types.from_engine_action(action)) == action
    assert game.frames_builder() is not None
    module, _, cls = (game.heuristics or "").partition(":")
    assert hasattr(importlib.import_module(module), cls)


def test_only_cachex_has_a_legacy_protocol():
    adapter = registration("cachex").legacy_adapter()
    assert adapter is not None and adapter.class_name == "Player"
    assert adapter.constructor_args(1, {"n": 5}) == ("blue", 5)
    assert adapter.to_legacy(adapter.from_legacy(("PLACE", 2, 3))) == ("PLACE", 2, 3)
    assert registration("infexion").legacy_adapter() is None
    assert registration("infinitron").legacy_adapter() is None


def test_engines_have_no_command_line_or_agent_type_hooks():
    for name in GAMES:
        cls = game_class(name)
        for member in ("add_arguments", "options_from_args", "agent_types_module"):
            assert not hasattr(cls, member), (name, member)


@pytest.mark.parametrize("folder", ["infexion", "cachex", "infinitron"])
def test_engines_import_nothing_of_compat_cli_render_or_agents(folder):
    tree = ast.parse((ROOT / "referee" / "games" / folder / "engine.py").read_text())
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    banned = ("argparse", "referee.cachex", "referee.infinitron", "referee.game.", "referee.render", "agents")
    assert not [m for m in imported if m.startswith(banned)]


@pytest.mark.parametrize("module", ["agent_host", "process", "failures", "monitor"])
def test_hosting_names_no_game(module):
    # (The sandbox still lists the course's packages it shows to agents, among the referee's folders.)
    path = ROOT / "referee" / "hosting" / f"{module}.py"
    text = path.read_text().lower()
    assert not any(game in text for game in GAMES), path


def test_rule_reasons_come_from_the_games_in_registration_order():
    assert rule_reasons() == ("elimination", "turn_limit", "no_tokens", "connection", "repetition", "capital")
    assert records.RULE_REASONS == rule_reasons()
    assert records.REASONS == rule_reasons() + failures.AGENT_FAILURE_REASONS + records.PERSON_REASONS
    every = {reason for name in GAMES for reason in game_class(name).reasons}
    assert set(rule_reasons()) == every


def test_every_agent_failure_is_listed_once_with_its_column():
    kinds = {v for v in vars(failures).values() if isinstance(v, type) and issubclass(v, failures.AgentFailure)}
    assert {kind for kind, _ in failures.FAILURES} == kinds - {failures.AgentFailure}
    assert records.AGENT_FAILURE_REASONS == failures.AGENT_FAILURE_REASONS
    assert set(failures.AGENT_FAILURE_REASONS) == {kind.reason for kind in kinds}
    columns = aggregate([]).ending_columns
    assert columns[-7:] == ("time", "memory", "output", "illegal", "crash", "error", "opponent failed")


def test_options_flags_always_given_values_only_when_set():
    flag = GameOption("chaos", ("--chaos",), "chaos", type=bool)
    size = GameOption("n", ("-n", "--size"), "size", metavar="N", choices=(5, 7))
    game = Registration("x", "m:C", "m", options=(flag, size))
    parser = argparse.ArgumentParser()
    game.add_arguments(parser)
    assert game.options_from_args(parser.parse_args([])) == {"chaos": False}
    assert game.options_from_args(parser.parse_args(["--chaos", "--size", "5"])) == {"chaos": True, "n": 5}
    with pytest.raises(SystemExit):
        parser.parse_args(["-n", "6"])


def test_plugin_in_the_registration_form(monkeypatch):
    monkeypatch.setenv("REFEREE_GAMES", "nim=tests.fixtures.nim.registration")
    assert "nim" in game_names()
    nim = registration("nim")
    assert issubclass(nim.game_class(), Game) and nim.game_class()(stones=4).new_state().legal_actions() == [1, 2, 3]
    assert game_modules("nim") == [
        "tests.fixtures.nim.registration", "tests.fixtures.nim.rules", "tests.fixtures.nim.actions",
        "tests.fixtures.nim.frames",
    ]


def test_plugin_in_the_older_class_form_still_loads(monkeypatch):
    monkeypatch.setenv("REFEREE_GAMES", "dice_race=tests.fixtures.dice_race:DiceRace")
    dice = registration("dice_race")
    assert dice.agent_types == "tests.fixtures.dice_race" and dice.options == () and dice.frames is None
    assert game_modules("dice_race") == ["tests.fixtures.dice_race"]


@pytest.mark.parametrize(
    "setting, message",
    [
        ("nim", "is not name=module"),
        ("=tests.fixtures.nim.registration", "is not name=module"),
        ("other=tests.fixtures.nim.registration", "registers a game named 'nim'"),
        ("nim=tests.fixtures.nim.rules", "cannot be loaded"),
        ("nim=tests.fixtures.no_such_module", "cannot be loaded"),
        ("nim=tests.fixtures.nim.actions:Take", "is not a Game class"),
    ],
)
def test_a_broken_plugin_setting_is_a_clear_error(monkeypatch, setting, message):
    monkeypatch.setenv("REFEREE_GAMES", setting)
    name = setting.partition("=")[0] or "nim"
    with pytest.raises(GameOptionError, match=message):
        registration(name)


@pytest.mark.parametrize("count, noun, plural, expected", [
    (0, "cell", None, "0 cells"), (1, "cell", None, "1 cell"), (2, "stone", None, "2 stones"),
    (1, "city", "cities", "1 city"), (3, "city", "cities", "3 cities"),
])
def test_counts_take_the_right_number(count, noun, plural, expected):
    from referee.games.base import count_of

    assert count_of(count, noun, plural) == expected
