"""Which cells a person clicks on the play page for each Infinitron command (referee/games/infinitron/clicks.py)."""
from __future__ import annotations

import random
import re
from collections import defaultdict

from referee.games.base import BLUE, RED
from referee.games.infinitron import Infinitron
from referee.games.infinitron.clicks import clicks
from referee.games.infinitron.geometry import INDEX
from referee.games.registration import load

from .common import empty_state, play


def cell(r: int, q: int) -> int:
    return INDEX[(r, q)]


def by_clicks(state) -> dict[tuple[int, ...], list[str]]:
    """The legal commands by the cells clicked for them."""
    found = defaultdict(list)
    for action in state.legal_actions():
        text = state.action_to_str(action)
        found[tuple(clicks(state, text))].append(text)
    return found


def test_the_registration_names_this_function():
    from referee.games.infinitron.registration import REGISTRATION

    assert REGISTRATION.web is not None and load(REGISTRATION.web.clicks) is clicks
    assert REGISTRATION.click_cells() is clicks


def test_first_turn_claims_and_terrain_on_their_cell_define_and_end_turn_by_other_means():
    state = Infinitron(seed=5).new_state()
    found = by_clicks(state)
    # END_TURN is a button and the DEFINEs are typed: no cell.
    unclicked = found.pop(())
    assert "END_TURN" in unclicked and all(t == "END_TURN" or t.startswith("DEFINE(") for t in unclicked)
    assert len(unclicked) == 1 + sum(t.startswith("DEFINE(") for t in map(state.action_to_str, state.legal_actions()))
    for cells, texts in found.items():
        assert len(cells) == 1
        for text in texts:
            r, q = map(int, re.findall(r"-?\d+", text)[-2:])
            assert text.startswith(("CLAIM(", "TERRAIN(")) and cells == (cell(r, q),)
    # A capital's neighbour takes any of the four terrains: one cell, four commands to choose from.
    assert sorted(found[(cell(3, -1),)]) == [f"TERRAIN({kind}, 3, -1)" for kind in ("BLOCK", "LABEL", "LAVA", "REPAIR")]
    # A cell beside the capital's territory is claimed by a click on it.
    assert found[(cell(2, 0),)] == ["CLAIM(0, 2, 0)"]


def test_a_build_of_each_template_on_the_cell_clicked():
    state = empty_state()
    state.rp[RED] = 20
    play(state, "DEFINE(1, 1, 2, MELEE, NONE)", "DEFINE(1, 2, 2, MELEE, NONE)")
    assert clicks(state, "BUILD(0, 4, -1)") == clicks(state, "BUILD(1, 4, -1)") == [cell(4, -1)]
    found = by_clicks(state)
    assert {"BUILD(0, 4, -1)", "BUILD(1, 4, -1)"} <= set(found[(cell(4, -1),)])


def test_a_units_commands_are_its_cell_then_the_target():
    state = empty_state()
    melee = state.setup_template(RED, 1, 2, 3, "MELEE", "HEAL1")
    blaster = state.setup_template(RED, 2, 1, 0, "MELEE", "BLAST1")
    enemy = state.setup_template(BLUE, 1, 1, 2, "MELEE", "NONE")
    state.rp[RED] = 20
    u = state.setup_unit(RED, melee, 0, 0)
    b = state.setup_unit(RED, blaster, 0, -2)
    state.setup_unit(BLUE, enemy, 0, 1)
    assert clicks(state, f"MOVE({u}, 1, 0)") == [cell(0, 0), cell(1, 0)]
    assert clicks(state, f"ATTACK({u}, 0, 1)") == [cell(0, 0), cell(0, 1)]
    assert clicks(state, f"ABILITY({u}, 0, 0)") == [cell(0, 0), cell(0, 0)]  # a HEAL on itself: its cell twice
    found = by_clicks(state)
    assert found[(cell(0, 0), cell(1, 0))] == [f"MOVE({u}, 1, 0)"]
    assert found[(cell(0, 0), cell(0, 1))] == [f"ATTACK({u}, 0, 1)"]
    # A BLAST on an empty neighbour is two clicks as a step there is: both are offered.
    assert sorted(found[(cell(0, -2), cell(0, -1))]) == [f"ABILITY({b}, 0, -1)", f"MOVE({b}, 0, -1)"]
    # Every unit command starts on the commanded unit's cell and ends on its target.
    for cells, texts in found.items():
        for text in texts:
            if text.startswith(("MOVE(", "ATTACK(", "ABILITY(")):
                uid, r, q = map(int, re.findall(r"-?\d+", text))
                assert cells == (state.units[RED][uid][0], cell(r, q))


def test_along_random_games_the_clicks_tell_commands_apart_up_to_the_documented_choices():
    rng = random.Random(4)
    state = Infinitron(seed=11, chaos=True).new_state()
    checked = 0
    while not state.is_over and checked < 400:
        if state.current_player < 0:
            state.apply(state.sample_chance(rng))
            continue
        for cells, texts in by_clicks(state).items():
            assert all(0 <= c < 91 for c in cells) and len(cells) <= 2
            if not cells:
                assert all(t == "END_TURN" or t.startswith("DEFINE(") for t in texts)
                continue
            kinds = [t.split("(")[0] for t in texts]
            # Alike clicks, different commands, only where the page offers a choice: a BUILD per template,
            # a TERRAIN per kind, a CLAIM per city, and a unit's step, attack and ability on one target.
            for word in set(kinds):
                if kinds.count(word) > 1:
                    assert word in ("BUILD", "TERRAIN", "CLAIM"), texts
            checked += 1
        state.apply(rng.choice(state.legal_actions()))
    assert checked >= 400


def test_commands_without_cells():
    state = empty_state()
    assert clicks(state, "END_TURN") == []
    assert clicks(state, "DEFINE(2, 1, 3, MEDIUM, HEAL1)") == []
    assert clicks(state, "NO_EVENT") == [] and clicks(state, "ASTEROID(0, 0)") == []
    assert clicks(state, "MOVE(7, 0, 0)") == []  # no such unit
