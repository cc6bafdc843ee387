"""The command objects agents exchange with the referee (referee.infinitron)."""
from __future__ import annotations

import random

import pytest

from referee.agentkit import GameView
from referee.games.base import CHANCE, IllegalActionError
from referee.games.infinitron import Infinitron
from referee.infinitron import (
    Ability,
    Asteroid,
    Attack,
    Build,
    Cell,
    Claim,
    Define,
    EndTurn,
    FishMarket,
    Move,
    NoEvent,
    PlayerColor,
    Terrain,
    from_engine_action,
    parse_command,
    to_engine_action,
)

from .common import rich_state


def test_every_legal_action_converts_both_ways_with_the_same_text():
    seen_kinds = set()
    for seed in range(6):
        state = rich_state(seed, chaos=seed % 2 == 1)
        rng = random.Random(seed)
        for _ in range(40):
            if state.is_over:
                break
            if state.current_player == CHANCE:
                actions = [state.sample_chance(rng)]
            else:
                actions = state.legal_actions()
            for action in actions:
                obj = from_engine_action(action)
                seen_kinds.add(type(obj))
                assert to_engine_action(obj) == action
                assert str(obj) == state.action_to_str(action)
                assert to_engine_action(str(obj)) == action
                assert parse_command(str(obj)) == obj
            state.apply(rng.choice(actions))
    assert {Define, Build, Move, EndTurn, Terrain, NoEvent, Claim} <= seen_kinds


def test_objects_print_the_spec_forms():
    assert str(Define(1, 2, 3, "MEDIUM", "NONE")) == "DEFINE(1, 2, 3, MEDIUM, NONE)"
    assert str(Build(0, Cell(3, -1))) == "BUILD(0, 3, -1)"
    assert str(Move(4, (2, 0))) == "MOVE(4, 2, 0)"
    assert str(Attack(1, (0, -5))) == "ATTACK(1, 0, -5)"
    assert str(Ability(1, (0, 0))) == "ABILITY(1, 0, 0)"
    assert str(Terrain("REPAIR", (1, 1))) == "TERRAIN(REPAIR, 1, 1)"
    assert str(EndTurn()) == "END_TURN" and str(NoEvent()) == "NO_EVENT"
    assert str(Asteroid((0, 0))) == "ASTEROID(0, 0)"
    assert str(FishMarket(((0, 1), (2, 2)))) == "FISH_MARKET((0, 1), (2, 2))"
    assert to_engine_action(Move(4, (2, 0))) == to_engine_action(Move(4, Cell(2, 0)))
    assert str(Claim(2, (1, 1))) == "CLAIM(2, 1, 1)"
    assert str(Define(2, 1, 2, "MELEE", "NONE", "+00-00")) == "DEFINE(2, 1, 2, MELEE, NONE, +00-00)"
    assert str(Define(2, 1, 0, "LONG", "HEAL1")) == "DEFINE(2, 1, 0, MELEE, HEAL1)", "no attack: MELEE"


def test_claim_and_armour_convert_both_ways():
    state = Infinitron(armour=True).new_state()
    for obj in (Claim(0, (3, 0)), Define(2, 1, 2, "MELEE", "NONE", "+00-00")):
        action = to_engine_action(obj)
        assert action is not None and state.is_legal(action)
        assert from_engine_action(action) == obj and to_engine_action(str(obj)) == action
    assert to_engine_action(Define(2, 1, 0, "LONG", "NONE")) == to_engine_action(Define(2, 1, 0, "MELEE", "NONE"))


@pytest.mark.parametrize(
    "junk",
    [
        None,
        5,
        "MOVE(1, 9, 9)",
        "garbage",
        Move(True, (0, 0)),
        Move(1.0, (0, 0)),
        Move(-1, (0, 0)),
        Move(1, [0, 0]),
        Move(1, (9, 9)),
        Move(1, (0, 0, 0)),
        Build("0", (4, -2)),
        Define(9, 1, 1, "MELEE", "NONE"),
        Define(1, 1, 1, "FAR", "NONE"),
        Define(1, 1, 1, "MELEE", "FLY"),
        Define(True, 1, 1, "MELEE", "NONE"),
        Terrain("PLAIN", (0, 0)),
        Terrain("LAVA", (0, 6)),
        Asteroid((6, 0)),
        FishMarket(((0, 0), (0, 0))),
        FishMarket([(0, 0)]),
        ("MOVE", 1, 0, 0),
        Define(2, 1, 2, "MELEE", "NONE", "+00-0"),
        Define(2, 1, 2, "MELEE", "NONE", "+00-0x"),
        Claim(True, (0, 0)),
        Claim(1, (0, 6)),
    ],
)
def test_things_that_are_not_commands_convert_to_none(junk):
    assert to_engine_action(junk) is None


def test_a_well_formed_but_illegal_command_converts_and_the_engine_says_why():
    action = to_engine_action(Define(4, 3, 5, "LONG", "NONE"))
    assert action is not None
    state = Infinitron().new_state()
    with pytest.raises(IllegalActionError, match=r"DEFINE\(4, 3, 5, LONG, NONE\).*costs 13 points"):
        state.apply_checked(action)


def test_game_view_follows_a_chaos_game():
    options = {"chaos": True, "seed": 3}
    red = GameView(PlayerColor.RED, {"game": "infinitron", "game_options": options})
    blue = GameView(PlayerColor.BLUE, {"game": "infinitron", "game_options": options})
    assert red.state.current_player == CHANCE and not red.my_turn and not blue.my_turn
    for obj in (Asteroid((0, 0)), Define(0, 1, 3, "MELEE", "NONE"), EndTurn()):
        red.observe(obj)
        blue.observe(obj)
    assert blue.my_turn and not red.my_turn
    assert red.state.key() == blue.state.key()
    assert red.state.terrain_at(0, 0) == "RUBBLE"
    assert isinstance(red.to_agent(red.state.legal_actions()[-1]), EndTurn)
