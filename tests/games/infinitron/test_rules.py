"""Hand-made positions, each checking one rule of the spec with numbers worked out by hand."""
from __future__ import annotations

import random
from itertools import product

import pytest

from referee.games.base import BLUE, CHANCE, RED, IllegalActionError
from referee.games.infinitron import ALL_DEFINES, cell_of, parse_action
from referee.games.infinitron.engine import DEFINE, END_TURN_ACTION, MELEE, RANGE_NAMES

from .common import empty_state, legal_texts, play, reason
from .reference import cost_of

# ---------------------------------------------------------------------------
# Prices and limits


@pytest.mark.parametrize(
    "text, cost",
    [
        ("DEFINE(0, 1, 3, MELEE, NONE)", 3),  # 20 HP free, Move 1 free, 3 tens of damage
        ("DEFINE(4, 0, 1, MELEE, NONE)", 3),  # Move 0 gives -2
        ("DEFINE(0, 3, 1, MELEE, NONE)", 3),  # Move 3 costs 2
        ("DEFINE(1, 1, 1, MEDIUM, NONE)", 3),
        ("DEFINE(0, 1, 1, LONG, NONE)", 3),
        ("DEFINE(0, 1, 1, ARTILLERY, NONE)", 3),
        ("DEFINE(0, 1, 1, SUPER, NONE)", 5),
        ("DEFINE(2, 1, 0, MELEE, HEAL1)", 3),
        ("DEFINE(1, 1, 0, MELEE, HEAL2)", 3),
        ("DEFINE(1, 1, 0, MELEE, BLAST1)", 3),
        ("DEFINE(0, 1, 0, MELEE, BLAST2)", 3),
        ("DEFINE(2, 1, 0, MELEE, SWIFT)", 3),
        ("DEFINE(4, 3, 4, LONG, NONE)", 12),
    ],
)
def test_template_costs_follow_the_price_list(text, cost):
    state = empty_state()
    state.rp[RED] = 10
    play(state, text)
    assert state.templates[RED][0].cost == cost
    assert state.rp[RED] == 8, "DEFINE costs 2 RP whatever the template"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("DEFINE(2, 1, 0, MELEE, NONE)", "costs 2 points"),
        ("DEFINE(4, 3, 5, LONG, NONE)", "costs 13 points"),
        ("DEFINE(4, 3, 5, SUPER, BLAST2)", "costs 18 points"),
    ],
)
def test_template_cost_must_be_3_to_12(text, fragment):
    state = empty_state()
    assert fragment in reason(state, text)
    assert text not in legal_texts(state)
    assert reason(state, "DEFINE(0, 0, 5, MELEE, NONE)") is None  # 0 - 2 + 5 = 3, the cheapest allowed
    assert reason(state, "DEFINE(4, 3, 4, LONG, NONE)") is None  # 4 + 2 + 4 + 2 = 12, the dearest


def test_a_template_without_attack_accepts_any_range_word_and_writes_melee():
    state = empty_state()
    melee = parse_action("DEFINE(3, 1, 0, MELEE, NONE)")
    for word in ("MEDIUM", "LONG", "ARTILLERY", "SUPER"):
        assert parse_action(f"DEFINE(3, 1, 0, {word}, NONE)") == melee
        raw = (DEFINE, 3, 1, 0, RANGE_NAMES.index(word), 0)  # the engine tuple as an agent might build it
        assert reason(state, state.action_to_str(raw)) is None and state.is_legal(raw)
        assert state.action_to_str(raw) == "DEFINE(3, 1, 0, MELEE, NONE)"
    # Listed once, as MELEE; the range costs nothing without an attack.
    assert [a for a in state.legal_actions() if a[:4] == (DEFINE, 3, 1, 0) and a[5] == 0] == [melee]
    play(state, "DEFINE(3, 1, 0, SUPER, NONE)")
    assert state.templates[RED][0].range == MELEE and state.templates[RED][0].cost == 3


def test_every_valid_define_is_listed_and_no_other():
    state = empty_state()  # Red: 3 RP, no template
    expected = {
        f"DEFINE({hp}, {mv}, {dmg}, {rng}, {ab})"
        for hp, mv, dmg, rng, ab in product(
            range(5), range(4), range(6), ["MELEE", "MEDIUM", "LONG", "ARTILLERY", "SUPER"],
            ["NONE", "HEAL1", "HEAL2", "BLAST1", "BLAST2", "SWIFT"],
        )
        if (dmg > 0 or rng == "MELEE") and 3 <= cost_of(hp, mv, dmg, rng, ab) <= 12
    }
    listed = {t for t in legal_texts(state) if t.startswith("DEFINE")}
    assert listed == expected
    assert len(ALL_DEFINES) == len(expected)


def test_define_costs_2_rp():
    state = empty_state()
    assert state.rp[RED] == 3
    play(state, "DEFINE(0, 1, 3, MELEE, NONE)")
    assert state.rp[RED] == 1
    assert "costs 2 RP and RED has 1" in reason(state, "DEFINE(0, 1, 3, MELEE, NONE)")
    assert not any(t.startswith("DEFINE") for t in legal_texts(state))


def test_at_most_4_templates():
    state = empty_state()
    state.rp[RED] = 100
    for _ in range(4):
        play(state, "DEFINE(0, 1, 3, MELEE, NONE)")  # identical templates are allowed
    assert len(state.templates[RED]) == 4
    assert "already has 4 templates" in reason(state, "DEFINE(1, 1, 3, MELEE, NONE)")
    assert not any(t.startswith("DEFINE") for t in legal_texts(state))


def test_at_most_12_living_units():
    state = empty_state()
    state.rp[RED] = 100
    t = state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")
    for q in range(-5, 6):
        if q != 0:
            state.setup_unit(RED, t, 0, q)
    state.setup_unit(RED, t, 1, 0)
    state.setup_unit(RED, t, -1, 0)
    assert len(state.units[RED]) == 12
    assert "already has 12 living units" in reason(state, "BUILD(0, 4, -1)")
    assert not any(t.startswith("BUILD") for t in legal_texts(state))
    # One dies (20 HP on LAVA): building is allowed again.
    state.setup_ground("LAVA", 1, 1)
    play(state, "MOVE(10, 1, 1)")
    assert len(state.units[RED]) == 11
    assert reason(state, "BUILD(0, 4, -1)") is None


def test_build_pays_the_template_cost_near_a_controlled_city():
    state = empty_state()
    state.rp[RED] = 20
    state.setup_template(RED, 1, 2, 3, "MEDIUM", "NONE")  # 1 + 1 + 3 + 1 = 6
    assert "not within distance 1 of a city RED controls" in reason(state, "BUILD(0, 3, 0)")  # distance 2
    assert "not within distance 1" in reason(state, "BUILD(0, -4, 1)")  # next to Blue's capital
    state.setup_ground("BLOCK", 3, -1)
    assert "BLOCK" in reason(state, "BUILD(0, 3, -1)")
    play(state, "BUILD(0, 4, -2)")  # the capital itself is within distance 1
    assert state.rp[RED] == 14
    assert "holds RED unit 0" in reason(state, "BUILD(0, 4, -2)")
    state.rp[RED] = 4
    assert "costs 6 RP and RED has 4" in reason(state, "BUILD(0, 4, -1)")
    assert "has no template 1" in reason(state, "BUILD(1, 4, -1)")
    assert state.unit(RED, 0) == ((4, -2), 40, state.templates[RED][0])


def test_units_are_numbered_in_build_order_per_player_and_numbers_are_not_reused():
    state = empty_state()
    state.rp[RED] = 100
    state.setup_template(RED, 0, 1, 1, "MELEE", "BLAST1")  # 20 HP
    play(state, "BUILD(0, 4, -2)", "BUILD(0, 4, -1)")
    assert sorted(state.units[RED]) == [0, 1]
    play(state, "END_TURN")
    state.rp[BLUE] = 100
    state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")
    play(state, "BUILD(0, -4, 2)", "END_TURN")
    assert sorted(state.units[BLUE]) == [0]
    play(state, "ABILITY(1, 4, -2)")  # unit 1 blasts unit 0's cell and its own: both die
    assert state.units[RED] == {}
    play(state, "BUILD(0, 4, -2)")
    assert sorted(state.units[RED]) == [2]


def test_a_unit_built_this_turn_can_do_nothing_else():
    state = empty_state()
    state.rp[RED] = 10
    state.setup_template(RED, 0, 2, 2, "MELEE", "HEAL1")  # 0 + 1 + 2 + 1 = 4
    play(state, "BUILD(0, 4, -1)")
    assert "was built this turn" in reason(state, "MOVE(0, 3, -1)")
    assert "was built this turn" in reason(state, "ABILITY(0, 4, -1)")
    play(state, "END_TURN", "END_TURN")
    assert reason(state, "MOVE(0, 3, -1)") is None


def _twelve_cities_state():
    # Twelve neutral cities at distance >= 3 from each other and the capitals,
    # each with a Red unit next to it: enough commands for the 64 limit.
    cities = [(-5, 0), (-5, 5), (-2, -3), (-2, 3), (-1, -1), (-1, 5), (1, -5), (1, 0), (2, -3), (2, 2), (5, -5), (5, 0)]
    state = empty_state(cities=[list(c) for c in cities])
    state.rp[RED] = 8
    t = state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")
    starts = []
    for r, q in cities:
        for dr, dq in ((0, 1), (0, -1), (1, 0), (-1, 0), (1, -1), (-1, 1)):
            cell = (r + dr, q + dq)
            if max(abs(cell[0]), abs(cell[1]), abs(sum(cell))) <= 5:
                starts.append(cell)
                state.setup_unit(RED, t, *cell)
                break
    return state, cities


def test_at_most_64_commands_a_turn_then_only_end_turn():
    state, cities = _twelve_cities_state()
    given = 0

    def command(text):
        nonlocal given
        if given < 64:
            play(state, text)
            given += 1

    for _ in range(3):
        command("DEFINE(0, 1, 3, MELEE, NONE)")

    def spend_points():
        for text in sorted(t for t in legal_texts(state) if t.startswith("TERRAIN(LABEL")):
            if not any(state.terrain_points) or given >= 64:
                return
            if reason(state, text) is None:
                command(text)

    spend_points()  # the capital's 6, on its six neighbours
    for uid, (r, q) in enumerate(cities):
        command(f"MOVE({uid}, {r}, {q})")  # captures: claims and 4 terrain points each
        for _ in range(2):
            claims = sorted(t for t in legal_texts(state) if t.startswith(f"CLAIM({uid + 2},"))
            if claims and given < 64:
                command(claims[0])
        spend_points()
    assert given == 64 and state.commands == 64
    assert state.legal_actions() == [END_TURN_ACTION]
    assert "64 commands" in reason(state, "MOVE(11, 5, 0)")  # unit 11 has not moved yet
    state.undo()
    assert reason(state, "MOVE(11, 5, 0)") is None
    play(state, "END_TURN")
    assert state.commands == 0 and state.current_player == BLUE


# ---------------------------------------------------------------------------
# Movement


def _mover(move=3, ability="NONE", hp=2, at=(0, 0)):
    if move == 0:
        hp = 4  # Move 0 gives -2 points: the template needs points elsewhere
    state = empty_state()
    state.setup_template(RED, hp, move, 1, "MELEE", ability)
    uid = state.setup_unit(RED, 0, *at)
    return state, uid


def _destinations(state, uid=0):
    return {t for t in legal_texts(state) if t.startswith(f"MOVE({uid},")}


def test_a_move_is_one_step_to_an_adjacent_cell():
    state, _ = _mover(move=3)
    neighbours = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0))
    assert _destinations(state) == {f"MOVE(0, {r}, {q})" for r, q in neighbours}
    assert "not adjacent" in reason(state, "MOVE(0, 0, 2)")
    assert "not adjacent" in reason(state, "MOVE(0, 0, 0)")
    assert "no living unit 5" in reason(state, "MOVE(5, 0, 1)")


@pytest.mark.parametrize("move", [0, 1, 2, 3])
def test_a_unit_takes_as_many_steps_as_its_move_value(move):
    state, _ = _mover(move=move)
    for step in range(1, move + 1):
        play(state, f"MOVE(0, 0, {step})")
        assert state.movement_points(RED, 0) == move - step
    assert state.unit(RED, 0)[0] == (0, move)
    assert _destinations(state) == set()
    assert "no movement points left" in reason(state, f"MOVE(0, 0, {move + 1})")
    play(state, "END_TURN", "END_TURN")  # a new turn gives the points back
    assert state.movement_points(RED, 0) == move


def test_steps_then_attack_but_no_step_after_attacking():
    state = _two_units()
    play(state, "MOVE(0, 0, 1)")
    assert "MOVE(0, -1, 2)" in _destinations(state), "one point left"
    play(state, "ATTACK(0, 0, 2)")
    assert state.unit(BLUE, 0)[1] == 70
    assert "already attacked" in reason(state, "MOVE(0, -1, 2)")
    assert _destinations(state) == set()


def test_lava_deals_its_damage_at_each_entry_and_a_unit_killed_stops_there():
    state, _ = _mover(move=3)  # 60 HP
    state.setup_ground("LAVA", 0, 1)
    play(state, "MOVE(0, 0, 1)")
    assert state.unit(RED, 0)[:2] == ((0, 1), 40)
    play(state, "MOVE(0, 0, 2)", "MOVE(0, 0, 1)")  # off and back on: a second entry
    assert state.unit(RED, 0)[:2] == ((0, 1), 20)

    state, _ = _mover(move=3, hp=1)  # 40 HP
    state.setup_ground("LAVA", 0, 1)
    state.setup_ground("LAVA", 0, 2)
    state.setup_ground("FISH", 0, 3)
    play(state, "MOVE(0, 0, 1)", "MOVE(0, 0, 2)")
    assert state.units[RED] == {}, "dead on (0, 2)"
    assert state.unit_at(0, 2) is None and state.unit_at(0, 0) is None
    assert "no living unit 0" in reason(state, "MOVE(0, 0, 3)")
    assert state.terrain_at(0, 3) == "FISH" and state.rp[RED] == 3


def test_block_and_rubble_are_impassable_and_cities_are_passable():
    state, _ = _mover(move=2)
    state.setup_ground("BLOCK", 0, 1)
    state.setup_ground("RUBBLE", -1, 1)
    assert "BLOCK (impassable)" in reason(state, "MOVE(0, 0, 1)")
    assert "RUBBLE (impassable)" in reason(state, "MOVE(0, -1, 1)")
    assert _destinations(state) == {"MOVE(0, -1, 0)", "MOVE(0, 0, -1)", "MOVE(0, 1, -1)", "MOVE(0, 1, 0)"}
    state = empty_state(cities=[[0, 1]])
    state.setup_template(RED, 0, 2, 3, "MELEE", "NONE")
    state.setup_unit(RED, 0, 0, 0)
    play(state, "MOVE(0, 0, 1)", "MOVE(0, 0, 2)")  # a step onto the city is a move ending there
    assert state.unit(RED, 0)[0] == (0, 2)
    assert state.city_owner[2] == RED


def test_swift_steps_onto_label_for_free():
    state, _ = _mover(move=1, ability="SWIFT")
    for q in (1, 2, 3):
        state.setup_ground("LABEL", 0, q)
    play(state, "MOVE(0, 0, 1)", "MOVE(0, 0, 2)", "MOVE(0, 0, 3)")
    assert state.movement_points(RED, 0) == 1
    play(state, "MOVE(0, 0, 4)")  # plain: its one point
    assert "no movement points left" in reason(state, "MOVE(0, 0, 5)")
    assert "SWIFT" in reason(state, "MOVE(0, 0, 5)")
    play(state, "MOVE(0, 0, 3)")  # back onto LABEL: still free
    assert state.unit(RED, 0)[0] == (0, 3)

    state, _ = _mover(move=1)  # the same unit without SWIFT
    for q in (1, 2):
        state.setup_ground("LABEL", 0, q)
    play(state, "MOVE(0, 0, 1)")
    assert "no movement points left" in reason(state, "MOVE(0, 0, 2)")


def test_a_swift_unit_with_move_0_still_steps_onto_label():
    state = empty_state()
    state.setup_template(RED, 4, 0, 0, "MELEE", "SWIFT")  # 4 - 2 + 1 = 3 points
    state.setup_unit(RED, 0, 0, 0)
    state.setup_ground("LABEL", 0, 1)
    assert _destinations(state) == {"MOVE(0, 0, 1)"}
    play(state, "MOVE(0, 0, 1)")
    assert "no movement points left" in reason(state, "MOVE(0, 0, 2)")


def test_units_block_movement_whoever_owns_them():
    for owner in (RED, BLUE):
        state, _ = _mover(move=2)
        state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")
        state.setup_unit(owner, 0, 0, 1)
        assert "holds" in reason(state, "MOVE(0, 0, 1)")
        assert "MOVE(0, 0, 1)" not in _destinations(state)


def test_fish_tokens_are_collected_by_entering_them():
    state, _ = _mover()
    state.setup_ground("FISH", 0, 1)
    state.setup_ground("FISH", 0, 2)
    play(state, "MOVE(0, 0, 1)", "MOVE(0, 0, 2)")
    assert state.rp[RED] == 5
    assert state.terrain_at(0, 1) == "PLAIN" and state.terrain_at(0, 2) == "PLAIN"


# ---------------------------------------------------------------------------
# Attacks


def _duel(range_name, attacker=(0, 0), target=(0, 2), dmg=3):
    state = empty_state()
    state.setup_template(RED, 0, 1, dmg, range_name, "NONE")
    state.setup_template(BLUE, 2, 1, 1, "MELEE", "NONE")  # 60 HP
    state.setup_unit(RED, 0, *attacker)
    state.setup_unit(BLUE, 0, *target)
    return state


@pytest.mark.parametrize(
    "range_name, distances",
    [
        ("MELEE", {1}),
        ("MEDIUM", {1, 2}),
        ("LONG", {1, 2, 3}),
        ("ARTILLERY", {4, 5}),
        ("SUPER", {1, 2, 3, 4, 5}),
    ],
)
def test_attack_ranges(range_name, distances):
    for d in range(1, 6):
        state = _duel(range_name, target=(0, d))
        assert (reason(state, f"ATTACK(0, 0, {d})") is None) == (d in distances), (range_name, d)
        assert (f"ATTACK(0, 0, {d})" in legal_texts(state)) == (d in distances)


def test_attack_deals_its_damage_and_removes_units_at_zero():
    state = _duel("MEDIUM", dmg=3)
    play(state, "ATTACK(0, 0, 2)")
    assert state.unit(BLUE, 0)[1] == 30
    assert "already attacked" in reason(state, "ATTACK(0, 0, 2)")
    play(state, "END_TURN", "END_TURN", "ATTACK(0, 0, 2)")
    assert state.units[BLUE] == {} and state.unit_at(0, 2) is None


def test_attack_needs_an_enemy_and_an_attack():
    state = _duel("MEDIUM")
    assert "no unit on (0, 1)" in reason(state, "ATTACK(0, 0, 1)")
    state.setup_unit(RED, 0, 0, 1)
    assert "RED's own unit 1" in reason(state, "ATTACK(0, 0, 1)")
    state = empty_state()
    state.setup_template(RED, 2, 1, 0, "MELEE", "HEAL1")
    state.setup_template(BLUE, 2, 1, 1, "MELEE", "NONE")
    state.setup_unit(RED, 0, 0, 0)
    state.setup_unit(BLUE, 0, 0, 1)
    assert "no attack" in reason(state, "ATTACK(0, 0, 1)")


def test_ranged_attacks_are_blocked_by_units_on_the_line_not_by_terrain():
    state = _duel("LONG", target=(0, 3))
    state.setup_ground("BLOCK", 0, 1)
    state.setup_ground("LAVA", 0, 2)
    assert reason(state, "ATTACK(0, 0, 3)") is None, "terrain never blocks"
    state.setup_unit(RED, 0, 1, 1)  # off the line
    assert reason(state, "ATTACK(0, 0, 3)") is None
    for blocker_owner in (RED, BLUE):
        state = _duel("LONG", target=(0, 3))
        state.setup_unit(blocker_owner, 0, 0, 2)
        assert "blocked by" in reason(state, "ATTACK(0, 0, 3)")
        assert "ATTACK(0, 0, 3)" not in legal_texts(state)


@pytest.mark.parametrize("blocker", [(0, 1), (1, 0)])
def test_a_tie_in_the_line_drawing_means_either_cell_blocks(blocker):
    # (0, 0) -> (1, 1) is at distance 2; the line's midpoint lies on the edge
    # between (0, 1) and (1, 0).
    state = _duel("MEDIUM", target=(1, 1))
    assert reason(state, "ATTACK(0, 1, 1)") is None
    state.setup_unit(RED, 0, *blocker)
    assert "blocked by" in reason(state, "ATTACK(0, 1, 1)")
    state = _duel("MEDIUM", target=(1, 1))
    state.setup_unit(RED, 0, 1, -1)  # next to the attacker, not between
    assert reason(state, "ATTACK(0, 1, 1)") is None


# ---------------------------------------------------------------------------
# Once per turn: move, then act; commanding another unit ends the previous one


def _two_units():
    state = empty_state()
    state.rp[RED] = 20
    state.setup_template(RED, 1, 2, 3, "MEDIUM", "NONE")  # 40 HP, Move 2, 30 damage at distance <= 2
    state.setup_template(BLUE, 4, 1, 1, "MELEE", "NONE")  # 100 HP
    state.setup_unit(RED, 0, 0, 0)
    state.setup_unit(RED, 0, 2, 0)
    state.setup_unit(BLUE, 0, 0, 2)
    return state


def test_commanding_another_unit_ends_the_previous_ones_turn():
    state = _two_units()
    play(state, "MOVE(0, -1, 1)")
    assert state.movement_points(RED, 0) == 1
    play(state, "MOVE(1, 1, 1)")
    assert "another unit was commanded" in reason(state, "ATTACK(0, 0, 2)")
    assert "another unit was commanded" in reason(state, "MOVE(0, -1, 2)"), "its movement is over, a point unused"
    assert state.movement_points(RED, 0) == 0
    assert reason(state, "ATTACK(1, 0, 2)") is None
    # DEFINE, BUILD, TERRAIN and CLAIM command no unit: the moved unit may still step and act.
    state = _two_units()
    play(
        state, "MOVE(0, -1, 1)", "DEFINE(0, 1, 3, MELEE, NONE)", "BUILD(1, 4, -1)", "TERRAIN(LAVA, 3, -2)",
        "CLAIM(0, 3, 0)",
    )
    assert reason(state, "MOVE(0, -1, 2)") is None and reason(state, "ATTACK(0, 0, 2)") is None
    # A new turn gives every unit its points and action back.
    state = _two_units()
    play(state, "MOVE(0, -1, 1)", "MOVE(1, 1, 1)", "END_TURN", "END_TURN")
    assert reason(state, "MOVE(0, 0, 1)") is None and reason(state, "MOVE(1, 2, 0)") is None


# ---------------------------------------------------------------------------
# Abilities


def _ability_state(ability, hp_points):
    state = empty_state()
    state.rp[RED] = 10
    state.setup_template(RED, hp_points, 1, 0, "MELEE", ability)
    state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")  # 20 HP
    return state


def test_heal_never_above_starting_hp_and_pays_its_price():
    state = _ability_state("HEAL1", 2)  # 60 HP units
    state.setup_unit(RED, 0, 0, 0, hp=30)
    state.setup_unit(RED, 0, 0, 1, hp=50)
    play(state, "ABILITY(0, 0, 0)")  # itself: 30 -> 50
    assert state.unit(RED, 0)[1] == 50 and state.rp[RED] == 9
    play(state, "ABILITY(1, 0, 1)")  # 50 -> 60, not 70
    assert state.unit(RED, 1)[1] == 60 and state.rp[RED] == 8
    state = _ability_state("HEAL2", hp_points=4)  # 100 HP
    state.setup_unit(RED, 0, 0, 0)
    state.setup_unit(RED, 0, 0, 1, hp=20)
    play(state, "ABILITY(0, 0, 1)")
    assert state.unit(RED, 1)[1] == 60 and state.rp[RED] == 8


def test_heal_reaches_friends_at_distance_1_only():
    state = _ability_state("HEAL1", 2)
    state.setup_unit(RED, 0, 0, 0)
    state.setup_unit(RED, 0, 0, 2, hp=20)
    state.setup_unit(BLUE, 0, 1, 0, hp=10)
    assert "distance <= 1" in reason(state, "ABILITY(0, 0, 2)")
    assert "no RED unit on (1, 0)" in reason(state, "ABILITY(0, 1, 0)")
    assert "no RED unit on (0, 1)" in reason(state, "ABILITY(0, 0, 1)")
    state.rp[RED] = 0
    assert "costs 1 RP" in reason(state, "ABILITY(0, 0, 0)")
    assert not any(t.startswith("ABILITY") for t in legal_texts(state))


def test_blast_hits_both_sides_on_the_cell_and_its_neighbours():
    state = _ability_state("BLAST2", hp_points=2)  # 60 HP blaster, 40 damage, price 3
    state.setup_unit(RED, 0, 0, 0)
    state.setup_unit(RED, 0, 0, 1)  # ally next to the target: 60 -> 20
    state.setup_unit(BLUE, 0, -1, 2)  # the target cell: dies
    state.setup_unit(BLUE, 0, -2, 3)  # distance 1 from the target: dies
    state.setup_unit(BLUE, 0, -3, 4)  # distance 2 from the target: untouched
    play(state, "ABILITY(0, -1, 2)")
    assert state.rp[RED] == 7
    assert state.unit(RED, 0)[1] == 60, "the blaster is at distance 2 from the target"
    assert state.unit(RED, 1)[1] == 20
    assert sorted(state.units[BLUE]) == [2]
    assert "distance <= 2" in reason(state, "ABILITY(1, 0, 4)")


def test_blast_on_its_own_cell_hits_the_blaster():
    state = _ability_state("BLAST1", hp_points=1)  # 20 damage
    state.setup_unit(RED, 0, 0, 0, hp=20)
    play(state, "ABILITY(0, 0, 0)")
    assert state.units[RED] == {}


def test_swift_and_none_are_not_abilities_to_use():
    state = _ability_state("SWIFT", 2)
    state.setup_unit(RED, 0, 0, 0)
    assert "SWIFT is passive" in reason(state, "ABILITY(0, 0, 0)")
    state = _ability_state("NONE", 3)
    state.setup_unit(RED, 0, 0, 0)
    assert "no ability" in reason(state, "ABILITY(0, 0, 0)")


# ---------------------------------------------------------------------------
# Terrain points, capture, income, repair


def test_capital_terrain_points_at_the_first_turn_in_its_territory():
    state = empty_state()
    assert state.terrain_points[RED] == 6
    assert state.territory(RED) == {cell_of(r, q) for r, q in ((4, -1), (3, -1), (3, -2), (4, -3), (5, -3), (5, -2))}
    assert reason(state, "TERRAIN(LAVA, 3, -1)") is None  # a neighbour of (4, -2)
    assert "not in the territory" in reason(state, "TERRAIN(LAVA, 3, 0)")  # distance 2: not claimed yet
    play(state, "CLAIM(0, 3, 0)")
    assert reason(state, "TERRAIN(LAVA, 3, 0)") is None
    assert "is a city" in reason(state, "TERRAIN(LAVA, 4, -2)")
    state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(RED, 0, 3, -1)
    assert "holds RED unit 0" in reason(state, "TERRAIN(BLOCK, 3, -1)")
    state.setup_ground("FISH", 5, -3)
    assert "fish token" in reason(state, "TERRAIN(LABEL, 5, -3)")
    play(state, "TERRAIN(LAVA, 3, 0)", "TERRAIN(REPAIR, 3, -2)", "TERRAIN(LABEL, 4, -1)")
    assert state.terrain_at(3, 0) == "LAVA" and state.terrain_at(3, -2) == "REPAIR"
    assert "not plain: it holds LAVA" in reason(state, "TERRAIN(BLOCK, 3, 0)")
    play(state, "TERRAIN(BLOCK, 4, -3)", "TERRAIN(BLOCK, 5, -2)")
    assert state.terrain_points[RED] == 1
    play(state, "CLAIM(0, 2, 0)", "TERRAIN(BLOCK, 2, 0)")
    assert "no terrain points" in reason(state, "TERRAIN(BLOCK, 4, -1)")
    assert {t for t in legal_texts(state) if t.startswith("TERRAIN")} == set()


def test_terrain_points_lapse_at_end_turn():
    state = empty_state()
    play(state, "TERRAIN(LAVA, 3, -1)", "END_TURN")
    assert state.terrain_points[BLUE] == 6 and state.terrain_points[RED] == 0
    assert "not in the territory" in reason(state, "TERRAIN(LAVA, 3, -2)")
    play(state, "END_TURN")
    assert "no terrain points" in reason(state, "TERRAIN(LAVA, 3, -2)")


def _city_state(enemy_at=None, **options):
    state = empty_state(cities=[[0, 0]], **options)
    state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")
    state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(RED, 0, 1, 0)
    if enemy_at:
        state.setup_unit(BLUE, 0, *enemy_at)
    return state


def test_a_never_captured_city_has_no_territory_so_a_step_onto_it_captures_it():
    state = _city_state(enemy_at=(-1, 1))  # next to the city: it has no territory yet
    assert state.territory(2) == frozenset()
    play(state, "MOVE(0, 0, 0)")
    assert state.city_owner[2] == RED
    # The first capture gives its terrain value, to spend in its territory once claimed.
    assert state.terrain_points[2] == 4
    assert "not in the territory" in reason(state, "TERRAIN(LAVA, 0, 1)")
    play(state, "CLAIM(2, 0, 1)", "TERRAIN(LAVA, 0, 1)")
    assert state.terrain_at(0, 1) == "LAVA" and state.terrain_points[2] == 3


def _shaped_city_state():
    """City 2 on (0, 0), captured by Red with the territory (0, 1), (0, 2); Blue to play."""
    state = empty_state(cities=[[0, 0]])
    state.setup_template(RED, 0, 3, 1, "MELEE", "NONE")  # Move 3
    state.setup_template(BLUE, 0, 3, 1, "MELEE", "NONE")
    state.setup_unit(RED, 0, 1, 0)
    play(state, "MOVE(0, 0, 0)", "CLAIM(2, 0, 1)", "CLAIM(2, 0, 2)", "MOVE(0, 1, 0)", "END_TURN")
    assert state.territory(2) == {cell_of(0, 1), cell_of(0, 2)} and state.city_owner[2] == RED
    return state


def test_capture_needs_no_enemy_in_the_shaped_territory():
    state = _shaped_city_state()
    state.setup_unit(BLUE, 0, -1, 0)
    play(state, "MOVE(0, 0, 0)")
    assert state.city_owner[2] == BLUE, "Red's unit next to the city on (1, 0) is outside the territory"
    assert state.terrain_points[2] == 0 and "cannot claim" in reason(state, "CLAIM(2, -1, 1)")


def test_a_city_is_not_captured_while_an_enemy_stands_in_its_territory():
    state = _shaped_city_state()
    state.setup_unit(RED, 0, 0, 2)  # Red unit 1, in the territory at distance 2
    state.setup_unit(BLUE, 0, -1, 0)
    play(state, "MOVE(0, 0, 0)")
    assert state.city_owner[2] == RED
    state = _shaped_city_state()
    state.setup_unit(RED, 0, 0, 3)  # distance 3, outside the territory: irrelevant
    state.setup_unit(BLUE, 0, -1, 0)
    play(state, "MOVE(0, 0, 0)")
    assert state.city_owner[2] == BLUE


def test_neutral_city_terrain_points_go_to_its_first_captor_only():
    state = empty_state(cities=[[0, 0]])
    state.setup_template(RED, 0, 1, 2, "LONG", "NONE")  # 20 damage at distance <= 3
    state.setup_template(RED, 0, 3, 1, "MELEE", "NONE")  # Move 3
    state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")  # 20 HP
    state.setup_unit(RED, 0, 3, 0)
    state.setup_unit(RED, 1, 1, -1)
    state.setup_unit(BLUE, 0, -1, 0)
    play(state, "END_TURN", "MOVE(0, 0, 0)")  # Blue is the first to capture it
    assert state.city_owner[2] == BLUE and state.terrain_points[2] == 4
    play(state, "END_TURN", "ATTACK(0, 0, 0)", "MOVE(1, 0, 0)")  # Red clears it and takes it
    assert state.city_owner[2] == RED
    assert not any(state.terrain_points), "no points: the city was no longer neutral"
    assert "cannot claim" in reason(state, "CLAIM(2, 0, 1)"), "nor claims: Blue shaped (here: left) it"


def test_income_is_the_resource_value_of_every_city_held():
    state = _city_state(rules="1.1")  # 1.1: Blue's first turn has its income alone (1.2: test_versions.py)
    assert state.rp == [3, 0]
    play(state, "MOVE(0, 0, 0)", "END_TURN")
    assert state.rp[BLUE] == 3
    play(state, "END_TURN")
    assert state.rp[RED] == 3 + 3 + 2


def test_capturing_the_enemy_capital_wins_at_once():
    state = empty_state()
    state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(RED, 0, -3, 2)
    play(state, "MOVE(0, -4, 2)")
    assert state.outcome is not None and (state.outcome.winner, state.outcome.reason) == (RED, "capital")
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.apply_checked(END_TURN_ACTION)


def test_a_defended_capital_is_not_captured():
    state = empty_state()
    state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")
    state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(RED, 0, -3, 2)
    state.setup_unit(BLUE, 0, -5, 3)  # a neighbour of Blue's capital: in its territory
    play(state, "MOVE(0, -4, 2)")
    assert state.outcome is None and state.city_owner[BLUE] == BLUE


def test_a_capital_is_defended_only_from_its_territory():
    def attack_capital(claims):
        state = empty_state()
        state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")
        state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")
        state.setup_unit(RED, 0, -3, 2)
        state.setup_unit(BLUE, 0, -5, 5)  # distance 2 from Blue's capital
        play(state, "END_TURN", *claims, "END_TURN", "MOVE(0, -4, 2)")
        return state.outcome

    assert attack_capital([]).winner == RED
    assert attack_capital(["CLAIM(1, -5, 4)", "CLAIM(1, -5, 5)"]) is None  # Blue claimed the cell in its first turn


def test_repair_pads_heal_lowest_unit_first_while_rp_lasts():
    state = empty_state(rules="1.1")  # 1.1: Blue's first turn has its income alone (1.2: test_versions.py)
    state.setup_template(BLUE, 2, 1, 1, "MELEE", "NONE")  # 60 HP
    state.setup_template(RED, 2, 1, 1, "MELEE", "NONE")
    for q in range(-2, 3):
        state.setup_ground("REPAIR", 0, q)
    state.setup_unit(BLUE, 0, 0, -2, hp=30)
    state.setup_unit(BLUE, 0, 0, -1, hp=50)  # heals to 60, not 70
    state.setup_unit(BLUE, 0, 0, 0, hp=60)  # not damaged: pays nothing
    state.setup_unit(BLUE, 0, 0, 1, hp=10)
    state.setup_unit(BLUE, 0, 0, 2, hp=10)  # Blue's income 3 runs out before this one
    state.setup_unit(RED, 0, 1, 0, hp=10)  # not on a pad
    play(state, "END_TURN")
    hp = [state.unit(BLUE, u)[1] for u in range(5)]
    assert hp == [50, 60, 60, 30, 10]
    assert state.rp[BLUE] == 0


def test_repair_pads_only_work_for_the_player_whose_turn_starts():
    state = empty_state()
    state.setup_template(RED, 2, 1, 1, "MELEE", "NONE")
    state.setup_ground("REPAIR", 0, 0)
    state.setup_unit(RED, 0, 0, 0, hp=10)
    play(state, "END_TURN")
    assert state.unit(RED, 0)[1] == 10
    play(state, "END_TURN")
    assert state.unit(RED, 0)[1] == 30 and state.rp[RED] == 3 + 3 - 1


# ---------------------------------------------------------------------------
# The 343-turn limit


def _play_out(state):
    for _ in range(342):
        play(state, "END_TURN")
    assert state.outcome is None and state.current_player == RED, "turn 343 is Red's"
    play(state, "END_TURN")
    assert state.turn == 343
    return state.outcome


@pytest.mark.parametrize(
    "red_units, blue_units, winner",
    [
        ([3], [], RED),  # 3 + 3 = 6 against 3: lead 3
        ([5], [3], RED),  # 8 against 6: lead 2 is enough
        ([4], [3], None),  # 7 against 6: lead 1 is a draw
        ([], [], None),
        ([3], [3, 3], BLUE),  # 6 against 9
    ],
)
def test_after_343_turns_a_lead_of_2_in_score_wins(red_units, blue_units, winner):
    state = empty_state()
    templates = {3: (0, 1, 3, "MELEE", "NONE"), 4: (1, 1, 3, "MELEE", "NONE"), 5: (2, 1, 3, "MELEE", "NONE")}
    cells = iter([(0, q) for q in range(-5, 6)])
    for p, costs in ((RED, red_units), (BLUE, blue_units)):
        for cost in costs:
            t = state.setup_template(p, *templates[cost])
            state.setup_unit(p, t, *next(cells))
    outcome = _play_out(state)
    assert outcome.reason == "turn_limit" and outcome.winner == winner
    assert state.legal_actions() == []


def test_score_counts_cities_held():
    state = empty_state(cities=[[0, 0], [1, 1]])
    state.setup_city_owner(0, 0, BLUE)
    assert state.score(BLUE) == 5 and state.score(RED) == 3
    assert _play_out(state).winner == BLUE


# ---------------------------------------------------------------------------
# Turn order and chance


def test_red_plays_first_and_a_turn_is_many_commands():
    state = empty_state()
    state.rp[RED] = 10
    assert state.current_player == RED
    play(state, "DEFINE(0, 1, 3, MELEE, NONE)", "TERRAIN(LAVA, 3, -1)", "BUILD(0, 4, -1)")
    assert state.current_player == RED and state.move_count == 3
    play(state, "END_TURN")
    assert state.current_player == BLUE


def test_with_chaos_chance_acts_before_each_red_turn_only():
    state = empty_state(chaos=True)
    assert state.current_player == CHANCE and state.legal_actions() == []
    assert state.rp == [0, 0], "Red's turn starts after the roll"
    assert "chance acts now" in reason(state, "END_TURN")
    play(state, "NO_EVENT")
    assert state.current_player == RED and state.rp[RED] == 3
    assert "none is due now" in reason(state, "NO_EVENT")
    play(state, "END_TURN")
    assert state.current_player == BLUE
    play(state, "END_TURN")
    assert state.current_player == CHANCE


def test_without_chaos_there_are_no_chance_actions():
    state = empty_state()
    assert "none is due now" in reason(state, "ASTEROID(0, 0)")
    with pytest.raises(ValueError, match="no chaos roll"):
        state.sample_chance(random.Random(1))


def test_building_enters_no_cell_so_no_lava_damage_and_no_fish():
    state = empty_state()
    state.rp[RED] = 10
    state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")  # 20 HP
    state.setup_ground("LAVA", 4, -1)
    state.setup_ground("FISH", 3, -1)
    play(state, "BUILD(0, 4, -1)", "BUILD(0, 3, -1)")
    assert state.unit(RED, 0)[1] == 20 and state.rp[RED] == 4
    assert state.terrain_at(3, -1) == "FISH"


def test_a_unit_killed_by_lava_captures_nothing():
    state = empty_state(cities=[[0, 1]])
    state.setup_template(RED, 0, 2, 2, "MELEE", "NONE")  # 20 HP, Move 2
    state.setup_unit(RED, 0, 0, 0)
    state.setup_ground("LAVA", 0, 1)  # lava on the city's own cell (set up: TERRAIN cannot put it there)
    play(state, "MOVE(0, 0, 1)")
    assert state.units[RED] == {} and state.city_owner[2] == -1
    assert not any(state.terrain_points[2:]) and "cannot claim" in reason(state, "CLAIM(2, 0, 2)")


# ---------------------------------------------------------------------------
# Claims (1.1): territories shaped by the first captor


def _captured_city_state():
    """Red has just captured the never-captured city 2 on (0, 0) (and is still in Red's first turn)."""
    state = empty_state(cities=[[0, 0], [0, 4]])
    state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(RED, 0, 1, 0)
    play(state, "MOVE(0, 0, 0)")
    assert state.city_owner[2] == RED
    return state


def test_claims_grow_from_the_city_by_adjacency():
    state = _captured_city_state()
    assert {t for t in legal_texts(state) if t.startswith("CLAIM(2,")} == {
        f"CLAIM(2, {r}, {q})" for r, q in ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0))
    }
    assert "adjacent neither to city 2 (0, 0) nor to a cell of its territory" in reason(state, "CLAIM(2, 0, 2)")
    play(state, "CLAIM(2, 0, 1)")
    assert reason(state, "CLAIM(2, 0, 2)") is None, "adjacent to a claimed cell"
    assert "already in its territory" in reason(state, "CLAIM(2, 0, 1)")
    play(state, "CLAIM(2, 0, 2)", "CLAIM(2, 0, 3)")
    assert "is a city" in reason(state, "CLAIM(2, 0, 4)")
    assert state.territory(2) == {cell_of(0, 1), cell_of(0, 2), cell_of(0, 3)}
    assert "there is no city 9" in reason(state, "CLAIM(9, 0, 1)")


def test_a_neutral_city_claims_at_most_8_cells():
    state = _captured_city_state()
    for r, q in ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0), (0, 2), (0, 3)):
        play(state, f"CLAIM(2, {r}, {q})")
    assert len(state.territory(2)) == 8
    assert "already has 8 cells" in reason(state, "CLAIM(2, -1, 2)")
    assert not any(t.startswith("CLAIM(2,") for t in legal_texts(state))


def test_claims_avoid_other_territories_and_end_at_end_turn():
    state = _captured_city_state()
    play(state, "CLAIM(0, 3, 0)", "CLAIM(0, 2, 0)")  # Red's capital, in Red's first turn
    play(state, "CLAIM(2, 1, 0)")  # (1, 0) is adjacent to (2, 0), Red's capital's
    assert "already in city 0's territory" in reason(state, "CLAIM(2, 2, 0)")
    assert "already in city 2's territory" in reason(state, "CLAIM(0, 1, 0)")
    play(state, "END_TURN")
    assert "cannot claim for city 2 (0, 0) now" in reason(state, "CLAIM(2, 0, 1)")  # Blue: not its capture
    play(state, "END_TURN")
    assert "cannot claim for city 2 (0, 0) now" in reason(state, "CLAIM(2, 0, 1)")  # Red: not the capture turn
    assert "cannot claim for city 0" in reason(state, "CLAIM(0, 3, -4)")  # not Red's first turn any more
    assert not any(t.startswith("CLAIM") for t in legal_texts(state))


def test_capitals_claim_up_to_6_cells_in_their_owners_first_turn():
    state = empty_state()
    assert len(state.territory(RED)) == 6 and len(state.territory(BLUE)) == 6
    assert "cannot claim for city 1" in reason(state, "CLAIM(1, -3, 3)"), "Blue's capital: Blue's first turn"
    for r, q in ((3, 0), (2, 0), (1, 0), (0, 0), (-1, 0), (-2, 0)):  # a corridor of six
        play(state, f"CLAIM(0, {r}, {q})")
    assert len(state.territory(RED)) == 12
    assert "already has 12 cells" in reason(state, "CLAIM(0, 2, -2)")
    play(state, "END_TURN")
    assert "already in its territory" in reason(state, "CLAIM(1, -3, 1)")  # a neighbour of (-4, 2)
    assert "adjacent neither" in reason(state, "CLAIM(1, -1, 1)")
    play(state, "CLAIM(1, -2, 1)")  # next to the neighbour (-3, 1)
    assert "already in city 0's territory" in reason(state, "CLAIM(1, -2, 0)")
    assert "cannot claim for city 0" in reason(state, "CLAIM(0, 2, -2)")


def test_claim_is_a_command_that_commands_no_unit():
    state = _captured_city_state()
    commands = state.commands
    play(state, "CLAIM(2, 0, 1)")
    assert state.commands == commands + 1 and state.active == 0
    before = state.copy()
    play(state, "CLAIM(2, 0, 2)")
    state.undo()
    assert state == before and state.territory(2) == {cell_of(0, 1)}


# ---------------------------------------------------------------------------
# No sealed capital (1.1)


def _ringed_capital():
    """Red's capital with BLOCK on four of its six neighbours; (3, -1) and (3, -2) open."""
    state = empty_state()
    for r, q in ((4, -1), (4, -3), (5, -3), (5, -2)):
        state.setup_ground("BLOCK", r, q)
    return state


def test_a_block_that_would_wall_off_a_capital_is_illegal():
    state = _ringed_capital()
    play(state, "TERRAIN(BLOCK, 3, -1)")  # (3, -2) still open
    assert "would wall off a capital" in reason(state, "TERRAIN(BLOCK, 3, -2)")
    legal = legal_texts(state)
    assert "TERRAIN(BLOCK, 3, -2)" not in legal and "TERRAIN(LAVA, 3, -2)" in legal
    play(state, "TERRAIN(LAVA, 3, -2)")  # LAVA is passable


def test_units_do_not_count_for_the_wall_off_but_rubble_does():
    state = _ringed_capital()
    state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(BLUE, 0, 2, -2)  # the only way out of (3, -2) but (2, -1)...
    state.setup_unit(BLUE, 0, 2, -1)
    assert reason(state, "TERRAIN(BLOCK, 3, -1)") is None, "units do not wall anything off"
    state = _ringed_capital()
    state.setup_ground("RUBBLE", 3, -2)
    assert "would wall off a capital" in reason(state, "TERRAIN(BLOCK, 3, -1)")
    assert state.capitals_joined() and not state.capitals_joined(cell_of(3, -1))


def test_a_wall_anywhere_between_the_capitals_counts():
    state = empty_state()
    for q in range(-5, 5):  # BLOCK across the board on row r = 1, but (1, 0)
        if q != 0:
            state.setup_ground("BLOCK", 1, q)
    play(state, "CLAIM(0, 3, 0)", "CLAIM(0, 2, 0)", "CLAIM(0, 1, 0)")  # Red's capital reaches the gap
    assert "would wall off a capital" in reason(state, "TERRAIN(BLOCK, 1, 0)")
    assert reason(state, "TERRAIN(BLOCK, 2, 0)") is None, "a BLOCK on (2, 0) leaves a way round"


# ---------------------------------------------------------------------------
# Armour (1.1, game option armour)


def _armoured(layout, attacker=(0, 1), range_name="MELEE", dmg=3):
    """A Blue unit (100 HP) with ``layout`` on (0, 0), a Red attacker (``dmg`` tens) on ``attacker``."""
    state = empty_state(armour=True)
    state.setup_template(RED, 2, 1, dmg, range_name, "NONE")
    state.setup_template(BLUE, 4, 1, 1, "MELEE", "NONE", layout)
    state.setup_unit(RED, 0, *attacker)
    state.setup_unit(BLUE, 0, 0, 0)
    return state


def _hp_after_attack(layout, attacker=(0, 1), range_name="MELEE", dmg=3):
    state = _armoured(layout, attacker, range_name, dmg)
    play(state, "ATTACK(0, 0, 0)")
    return state.unit(BLUE, 0)[1]


@pytest.mark.parametrize(
    "layout, attacker, hp",
    [
        ("000000", (0, 1), 70),
        ("+00-00", (0, 1), 80),  # side 0, (0, 1): + takes 10 off
        ("+00-00", (0, -1), 60),  # side 3, (0, -1): - adds 10
        ("+00-00", (-1, 0), 70),  # side 2: 0
        ("00+0-0", (-1, 0), 80),
        ("0000-+", (1, 0), 80),  # side 5
        ("0000-+", (1, -1), 60),  # side 4
    ],
)
def test_melee_damage_comes_through_the_side_facing_the_attacker(layout, attacker, hp):
    assert _hp_after_attack(layout, attacker) == hp


@pytest.mark.parametrize(
    "layout, attacker, hp",
    [
        ("+00-00", (0, 3), 80),  # straight along side 0
        ("-+0000", (-2, 3), 80),  # the line's first cell is (-1, 1): side 1 only
        ("+-0000", (-2, 3), 60),
        # (-1, 2): the line runs along the edge between (0, 1) and (-1, 1), a tie
        # between sides 0 and 1: the defender gets the better of the two.
        ("+-0000", (-1, 2), 80),
        ("-+0000", (-1, 2), 80),
        ("-0000+", (-1, 2), 70),  # sides 0 (-) and 1 (0): the 0 side is the better
    ],
)
def test_ranged_damage_comes_through_the_side_facing_the_attacker_ties_to_the_defender(layout, attacker, hp):
    assert _hp_after_attack(layout, attacker, "LONG") == hp


def test_armour_never_makes_damage_negative_and_blasts_come_from_their_centre():
    assert _hp_after_attack("+00-00", (0, 1), dmg=1) == 100  # 10 - 10 = 0
    state = empty_state(armour=True)
    state.rp[RED] = 10
    state.setup_template(RED, 1, 1, 0, "MELEE", "BLAST1")  # 20 damage on a cell and its neighbours
    state.setup_template(BLUE, 4, 1, 1, "MELEE", "NONE", "+++---")
    state.setup_unit(RED, 0, 2, 0)
    state.setup_unit(BLUE, 0, 0, 0)  # the centre: no side, 20
    state.setup_unit(BLUE, 0, 0, 1)  # faces the centre with side 3 (0, -1): -, 30
    state.setup_unit(BLUE, 0, 1, -1)  # faces it with side 1 (-1, 1): +, 10
    play(state, "ABILITY(0, 0, 0)")
    assert [state.unit(BLUE, u)[1] for u in range(3)] == [80, 70, 90]


def test_armour_layouts_need_the_option_and_as_many_plus_as_minus():
    plain = empty_state()
    plain.rp[RED] = 10
    assert "game option armour" in reason(plain, "DEFINE(2, 1, 2, MELEE, NONE, +00-00)")
    assert not any(len(a) == 7 for a in plain.legal_actions())
    state = empty_state(armour=True)
    state.rp[RED] = 10
    assert "as many + as -" in reason(state, "DEFINE(2, 1, 2, MELEE, NONE, ++0-00)")
    assert reason(state, "DEFINE(2, 1, 2, MELEE, NONE, +00-00)") is None
    # Free: + and - balance.  Written without the field when there is none.
    play(state, "DEFINE(2, 1, 2, MELEE, NONE, +00-00)")
    assert state.templates[RED][0].cost == 4
    assert parse_action("DEFINE(2, 1, 2, MELEE, NONE, 000000)") == parse_action("DEFINE(2, 1, 2, MELEE, NONE)")
    defines = [a for a in state.legal_actions() if a[0] == DEFINE]
    assert len(defines) == len(ALL_DEFINES) * 141  # 140 layouts and none
    key = state.key()
    state.undo()
    assert state.key() != key, "the layout is part of the position"
