"""The map, the game options and the registration."""
from __future__ import annotations

import argparse

import pytest

from referee.games import game_names, load_game, registration
from referee.games.base import GameOptionError
from referee.games.infinitron import Infinitron, neutral_cities_from_seed
from referee.games.infinitron.geometry import hex_distance, on_board

CAPITALS = [(4, -2), (-4, 2)]


def test_neutral_cities_follow_the_rules_for_every_seed():
    maps = set()
    for seed in range(300):
        cities = neutral_cities_from_seed(seed)
        maps.add(cities)
        assert len(cities) == 4 == len(set(cities))
        assert all(on_board(*c) for c in cities)
        assert all((-r, -q) in cities for r, q in cities), "two mirrored pairs"
        for c in cities:
            assert all(hex_distance(c, cap) >= 3 for cap in CAPITALS)
            assert all(hex_distance(c, d) >= 2 for d in cities if d != c)
        assert neutral_cities_from_seed(seed) == cities, "the same seed gives the same map"
    assert len(maps) > 100, "seeds give different maps"


def test_the_game_seed_and_explicit_cities_make_the_start_deterministic():
    assert Infinitron(seed=9).new_state().key() == Infinitron(seed=9).new_state().key()
    assert Infinitron(seed=9).neutral_cities == neutral_cities_from_seed(9)
    assert Infinitron().neutral_cities == neutral_cities_from_seed(0)
    assert Infinitron(seed=None).neutral_cities == neutral_cities_from_seed(0)
    game = Infinitron(cities=[[1, 1], [-1, -1]], seed=9)  # cities take precedence
    assert game.neutral_cities == ((-1, -1), (1, 1))
    assert game.new_state().city_cells() == [(4, -2), (-4, 2), (-1, -1), (1, 1)]
    assert game.agent_kwargs == {"neutral_cities": [[-1, -1], [1, 1]]}


def test_a_new_game_starts_with_reds_first_turn():
    state = Infinitron(seed=1).new_state()
    assert state.current_player == 0 and state.move_count == 0 and state.rp == [3, 0]
    assert state.outcome is None and state.city_owner[:2] == [0, 1]
    assert [o for o in state.city_owner[2:]] == [-1] * 4


@pytest.mark.parametrize(
    "options, fragment",
    [
        ({"board": 7}, "unknown option(s) board"),
        ({"chaos": "yes"}, "option chaos must be true or false"),
        ({"chaos": 1}, "option chaos must be true or false"),
        ({"armour": "on"}, "option armour must be true or false"),
        ({"seed": "x"}, "option seed must be a whole number"),
        ({"seed": 1.5}, "option seed must be a whole number"),
        ({"max_turns": 0}, "option max_turns"),
        ({"max_turns": True}, "option max_turns"),
        ({"cities": "(0, 0)"}, "option cities must be a list"),
        ({"cities": [[0, 0, 0]]}, "option cities, item 0"),
        ({"cities": [[0, 0], [9, 0]]}, "item 1: (9, 0) is off the board"),
        ({"cities": [[4, -2]]}, "is a capital"),
        ({"cities": [[1, 1], [1, 1]]}, "listed twice"),
    ],
)
def test_bad_options_are_refused_naming_the_option(options, fragment):
    with pytest.raises(GameOptionError) as err:
        Infinitron(**options)
    assert fragment in str(err.value)


def test_registered_with_its_reasons_and_agent_types():
    assert "infinitron" in game_names()
    game = load_game("infinitron", chaos=True, seed=3)
    assert isinstance(game, Infinitron) and game.name == "infinitron"
    assert game.reasons == ("capital", "turn_limit")
    assert registration("infinitron").agent_types == "referee.infinitron"
    assert game.new_state().current_player == -1


def test_command_line_options():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=None)
    infinitron = registration("infinitron")
    infinitron.add_arguments(parser)
    assert infinitron.options_from_args(parser.parse_args([])) == {"chaos": False, "armour": False}
    # --seed is the play command's; the game takes it through its seeded options, as in a tournament.
    args = parser.parse_args(["--chaos", "--armour", "--seed", "4"])
    options = Infinitron.seeded_options(infinitron.options_from_args(args), args.seed)
    assert options == {"chaos": True, "armour": True, "seed": 4, "rules": "1.2"}  # the version said outright
    assert Infinitron(**options).setup.armour


def test_max_turns_shortens_the_game():
    state = Infinitron(max_turns=3).new_state()
    for _ in range(3):
        assert state.outcome is None
        state.apply(state.parse_action("END_TURN"))
    assert state.outcome is not None and state.outcome.reason == "turn_limit"
