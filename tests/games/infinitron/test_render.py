"""The text drawing and the one-line summary."""
from __future__ import annotations

from referee.games.base import BLUE, RED

from .common import empty_state, play


def _position():
    state = empty_state(cities=[[0, 0]])
    state.setup_template(RED, 1, 2, 3, "MEDIUM", "HEAL1")
    state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(RED, 0, 1, 0, hp=30)
    state.setup_unit(BLUE, 0, -1, 0)
    state.setup_ground("LAVA", 2, 0)
    state.setup_ground("FISH", -2, 0)
    return state


def test_render_shows_cities_terrain_and_units_with_owner_template_and_hp():
    state = _position()
    key = state.key()
    text = state.render()
    assert state.key() == key, "rendering changes nothing"
    lines = text.splitlines()
    row1 = next(line for line in lines if line.startswith("r= 1 "))
    assert ".r0" in row1, "Red's unit 0 on plain ground"
    row0 = next(line for line in lines if line.startswith("r= 0 "))
    assert "@" in row0, "the neutral city"
    assert "~" in next(line for line in lines if line.startswith("r= 2 "))
    assert "$" in next(line for line in lines if line.startswith("r=-2 "))
    assert "  r0 t0 30/40 HP at (1, 0)" in lines
    assert "  b0 t0 20/20 HP at (-1, 0)" in lines
    assert "  t0 DEFINE(1, 2, 3, MEDIUM, HEAL1) cost 7: 40 HP, Move 2, 30 MEDIUM, HEAL1" in lines
    assert any(line.startswith("cities: 0 RED capital (4, -2) held by RED, territory 6 cells") for line in lines)
    assert "terrain points 6 at (4, -2)" in text
    assert "RED to command (0 of 64 commands given)" in text
    assert "\033[" not in text


def test_render_shows_territories_rubble_and_armour():
    state = empty_state(cities=[[0, 0]], armour=True)
    state.setup_template(RED, 2, 1, 2, "MELEE", "NONE", "+00-00")
    state.setup_territory(2, [(0, 1), (0, 2)])
    state.setup_ground("RUBBLE", 0, -2, rubble_turns=5)
    lines = state.render().splitlines()
    row0 = next(line for line in lines if line.startswith("r= 0 ")).split()[4:]  # after "r= 0 q=-5.. 5"
    assert row0 == [".", ".", ".", "%", ".", "@", "2", "2", ".", ".", "."], "rubble; city 2's two cells"
    row4 = next(line for line in lines if line.startswith("r= 4 ")).split()[4:]
    assert row4 == [".", ".", "0", "R", "0", ".", "."], "Red's capital's neighbours on its row"
    assert any(line.startswith("cities: ") and "2 city (0, 0) neutral, territory 2 cells" in line for line in lines)
    assert "rubble: 1 cell, the first clearing at turn 6" in lines
    assert "  t0 DEFINE(2, 1, 2, MELEE, NONE, +00-00) cost 4: 60 HP, Move 1, 20 MELEE, NONE, armour +00-00" in lines


def test_render_colour_and_unicode():
    state = _position()
    assert "\033[1;31m" in state.render(use_color=True)
    assert "\u2248" in state.render(use_unicode=True)  # LAVA


def test_render_marks_done_units_and_chance_and_the_end():
    state = _position()
    play(state, "ABILITY(0, 1, 0)")
    assert "(done this turn)" in state.render()
    state = empty_state(chaos=True)
    assert "a chaos roll is due" in state.render()
    state = empty_state(max_turns=1)
    play(state, "END_TURN")
    assert "game over after 1 turns: RED wins (turn_limit)" not in state.render()
    assert "game over after 1 turns: draw (turn_limit)" in state.render()


def test_summary_is_one_line_with_rp_cities_and_units_per_side():
    state = _position()
    summary = state.summary()
    assert "\n" not in summary
    assert "RED RP 3, 1 city, 1 unit, score 10" in summary
    assert "BLUE RP 0, 1 city, 1 unit, score 6" in summary
