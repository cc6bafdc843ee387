"""The rules versions (game option ``rules``): 1.2's extra RP for Blue, 1.1 kept exactly.

Hand-made positions with the RP worked out by hand: a capital gives 3 RP a
turn; rules 1.2 gives Blue 2 RP more on each of its first two turns (turns 2
and 4 of the game), with the income, before the repair pads; 1.1 gives
nothing more.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.games import registration
from referee.games.base import BLUE, CHANCE, RED, GameOptionError
from referee.games.infinitron import Infinitron, parse_action
from referee.games.infinitron.engine import NO_EVENT_ACTION

from ...helpers import run_referee
from .common import empty_state, legal_texts, play, reason

def rp_after_each_turn(rules: str | None, turns: int) -> list[list[int]]:
    """RP of both sides at the start of each of the first ``turns`` turns, nobody spending."""
    options = {} if rules is None else {"rules": rules}
    state = empty_state(**options)
    seen = [list(state.rp)]
    for _ in range(turns - 1):
        play(state, "END_TURN")
        seen.append(list(state.rp))
    return seen


def test_the_default_is_1_2():
    assert Infinitron().rules == "1.2" and Infinitron().setup.rules == "1.2"
    assert rp_after_each_turn(None, 4) == rp_after_each_turn("1.2", 4)


def test_rules_1_1_every_turn_brings_the_income_alone():
    # Red 3, Blue 3, Red 3 + 3, Blue 3 + 3: the capitals' income and nothing else.
    assert rp_after_each_turn("1.1", 5) == [[3, 0], [3, 3], [6, 3], [6, 6], [9, 6]]


def test_rules_1_2_blue_has_two_more_on_each_of_its_first_two_turns_only():
    # Red as in 1.1; Blue 3 + 2 on its first turn, 3 + 2 on its second, then 3 a turn again.
    seen = rp_after_each_turn("1.2", 8)
    assert seen == [[3, 0], [3, 5], [6, 5], [6, 10], [9, 10], [9, 13], [12, 13], [12, 16]]


@pytest.mark.parametrize("rules, blue_rp", [("1.1", 3), ("1.2", 5)])
def test_the_extra_rp_come_after_the_chaos_roll_and_the_red_turn(rules, blue_rp):
    state = empty_state(chaos=True, rules=rules)
    assert state.current_player == CHANCE and state.rp == [0, 0]
    state.apply_checked(NO_EVENT_ACTION)
    assert state.rp == [3, 0], "Red's first turn: its income alone, in both versions"
    play(state, "END_TURN")
    assert state.current_player == BLUE and state.rp == [3, blue_rp]
    play(state, "END_TURN")
    assert state.current_player == CHANCE and state.rp == [3, blue_rp]


@pytest.mark.parametrize("rules, define_and_build", [("1.1", False), ("1.2", True)])
def test_blue_can_define_and_build_a_three_point_unit_on_its_first_turn_only_in_1_2(rules, define_and_build):
    state = empty_state(rules=rules)
    play(state, "END_TURN")
    play(state, "DEFINE(0, 1, 3, MELEE, NONE)")  # costs 3 points; DEFINE costs 2 RP
    assert state.rp[BLUE] == (1 if rules == "1.1" else 3)
    build = "BUILD(0, -3, 2)"  # next to Blue's capital (-4, 2)
    assert (build in legal_texts(state)) == define_and_build
    if define_and_build:
        play(state, build)
        assert state.rp[BLUE] == 0 and len(state.units[BLUE]) == 1
    else:
        assert "RP" in reason(state, build)


@pytest.mark.parametrize("rules, healed, rp_left", [("1.1", 3, 0), ("1.2", 5, 0)])
def test_the_extra_rp_come_before_the_repair_pads(rules, healed, rp_left):
    # Five damaged Blue units on REPAIR pads when Blue's first turn begins, Blue with no RP:
    # 1.1 has 3 RP (three pads, lowest unit first), 1.2 has 5 (all five).
    state = empty_state(rules=rules)
    state.setup_template(BLUE, 2, 1, 2, "MELEE", "NONE")  # 60 HP
    cells = [(0, -2), (0, -1), (0, 0), (0, 1), (0, 2)]
    for r, q in cells:
        state.setup_ground("REPAIR", r, q)
        state.setup_unit(BLUE, 0, r, q, hp=20)
    play(state, "END_TURN")
    hps = [hp for _, hp, _ in state.units[BLUE].values()]
    assert hps == [40] * healed + [20] * (5 - healed)
    assert state.rp[BLUE] == rp_left


def test_undo_takes_the_extra_rp_back():
    state = empty_state(rules="1.2")
    before = state.copy()
    play(state, "END_TURN", "END_TURN", "END_TURN")
    assert state.rp == [6, 10]
    for _ in range(3):
        state.undo()
    assert state == before and state.rp == [3, 0]


def test_the_extra_rp_follow_blues_turns_not_the_spending():
    # Blue spends its first turn's 5 RP on a DEFINE and a 3-point unit; its second turn still brings 3 + 2.
    state = empty_state(rules="1.2")
    play(state, "END_TURN", "DEFINE(0, 1, 3, MELEE, NONE)", "BUILD(0, -3, 2)", "END_TURN", "END_TURN")
    assert state.current_player == BLUE and state.rp[BLUE] == 5


def test_the_version_is_part_of_the_key():
    old, new = Infinitron(rules="1.1").new_state(), Infinitron(rules="1.2").new_state()
    assert old.key() != new.key() and old != new
    assert Infinitron(rules="1.1").new_state() == old


@pytest.mark.parametrize("value", ["1.0", "1.3", "2", "", 1.2, 1, None, ["1.2"]])
def test_a_bad_rules_version_is_refused_naming_the_versions(value):
    with pytest.raises(GameOptionError) as err:
        Infinitron(rules=value)
    assert str(err.value) == f'infinitron: option rules must be "1.1" or "1.2" (a string), not {value!r}'


def test_the_play_command_takes_rules():
    import argparse

    parser = argparse.ArgumentParser()
    infinitron = registration("infinitron")
    infinitron.add_arguments(parser)
    assert infinitron.options_from_args(parser.parse_args([])) == {"chaos": False, "armour": False}
    assert infinitron.options_from_args(parser.parse_args(["--rules", "1.1"]))["rules"] == "1.1"
    with pytest.raises(SystemExit):
        parser.parse_args(["--rules", "1.0"])


def test_a_whole_game_through_the_command_line_with_rules_1_1(tmp_path: Path):
    # Greedy against itself: cheap (about a millisecond a command), and under
    # 1.1 Blue's first turn shows its 3 RP: it can DEFINE but not BUILD a unit too.
    record = tmp_path / "game.json"
    done = run_referee(
        "--game", "infinitron", "--rules", "1.1", "--seed", "5", "-t", "30", "-v", "0",
        "agents.greedy", "agents.greedy", "--record", str(record), timeout=600,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(record.read_text())
    assert result["game_options"]["rules"] == "1.1"
    assert result["reason"] in ("capital", "turn_limit") and result["error"] == {"RED": None, "BLUE": None}
    # Replay Blue's first turn (the actions up to the second END_TURN) in both versions:
    # the recorded game is legal under 1.1, and its first position of Blue's has 3 RP (5 under 1.2).
    actions = [parse_action(text) for text in result["actions"]]
    for rules, blue_rp in (("1.1", 3), ("1.2", 5)):
        state = Infinitron(seed=5, rules=rules).new_state()
        ends = 0
        for action in actions:
            state.apply_checked(action)
            if action == (0,):
                ends += 1
                if ends == 1:
                    assert state.rp[BLUE] == blue_rp
                    break
    replay = Infinitron(**result["game_options"]).new_state()
    for action in actions:
        replay.apply_checked(action)
    assert replay.is_over and replay.outcome.reason == result["reason"]
    assert (None if replay.outcome.winner is None else ("RED", "BLUE")[replay.outcome.winner]) == result["winner"]


def test_red_first_turn_is_the_same_in_both_versions():
    for rules in ("1.1", "1.2"):
        state = Infinitron(seed=3, rules=rules).new_state()
        assert state.current_player == RED and state.rp == [3, 0]
        assert len(state.legal_actions()) == len(Infinitron(seed=3, rules="1.1").new_state().legal_actions())


def test_a_game_records_its_rules_and_a_record_without_them_is_read_as_1_1(tmp_path: Path):
    from referee.games import recorded_game
    from referee.records import GameRecord

    record = tmp_path / "game.json"
    done = run_referee("--game", "infinitron", "--seed", "5", "-t", "30", "-v", "0",
                       "agents.random_agent", "agents.random_agent", "--record", str(record), timeout=600)
    assert done.returncode == 0, done.stderr
    played = GameRecord.from_json(record.read_text())
    assert played.game_options["rules"] == "1.2"  # said outright, whatever the default becomes
    assert recorded_game("infinitron", played.game_options).rules == "1.2"
    # A record from before the option existed (every game then was 1.1) is replayed under 1.1.
    old = dict(played.game_options)
    del old["rules"]
    assert recorded_game("infinitron", old).rules == "1.1"
    assert Infinitron(**old).rules == "1.2"  # a new game without the option is 1.2
    assert recorded_game("infexion", {}).name == "infexion"  # other games take their options as they are
