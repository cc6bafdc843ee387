"""The text drawing: the rhombus, its coloured sides, and what changed."""
from __future__ import annotations

import re

from referee.games.cachex import CachexState

ANSI = re.compile(r"\033\[[0-9;]*m")

# Drawn by hand from the layout rule: row r at the height n-1-r, shifted r
# half-cells right; Red's sides (R) above and below, Blue's (B) either side.
EXPECTED_3 = "\n".join(
    [
        "                R   R   R",
        "r=2       B   .   .   b   B",
        "r=1     B   .   r   .   B",
        "r=0   B   r   b   .   B",
        "        R   R   R",
        " q=   0   1   2",
    ]
)


def test_plain_drawing_of_a_small_board():
    state = CachexState.from_text("rb./.r./..b 4")
    assert state.render() == EXPECTED_3


def test_neighbours_are_drawn_next_to_each_other():
    # (1, 1)'s neighbours (2, 0) and (2, 1) sit up-left and up-right of it.
    lines = CachexState.from_text(".../.r./bb. 5").render().splitlines()
    row_r2, row_r1 = lines[1], lines[2]
    col = row_r1.index("r", len("r=1"))
    assert row_r2[col - 2] == "b" and row_r2[col + 2] == "b"


def test_last_action_cells_are_bracketed():
    state = CachexState(3)
    state.apply(state.parse_action("PLACE(0, 2)"))
    assert "[r]" in state.render()
    state.apply(state.parse_action("STEAL"))
    drawing = state.render()
    assert "[b]" in drawing.splitlines()[1], "the stolen stone is on row r = 2"
    assert "[.]" in drawing.splitlines()[3], "Red's old cell on row r = 0 is emptied"


def test_colour_codes_paint_sides_and_stones_and_strip_to_the_plain_drawing():
    state = CachexState.from_text("rb./.r./..b 4")
    coloured = state.render(use_color=True)
    assert "\033[1;31mR\033[0m" in coloured and "\033[1;34mB\033[0m" in coloured
    assert "\033[1;31mr\033[0m" in coloured and "\033[1;34mb\033[0m" in coloured
    assert ANSI.sub("", coloured) == EXPECTED_3
    assert "\033" not in state.render(use_color=False)


def test_unicode_symbols():
    drawing = CachexState.from_text("rb./.r./..b 4").render(use_unicode=True)
    assert drawing.count("\u25cf") == 2 and drawing.count("\u25cb") == 2 and drawing.count("\u00b7") == 5


def test_the_biggest_board_has_every_cell():
    drawing = CachexState(15).render()
    lines = drawing.splitlines()
    assert len(lines) == 15 + 3
    assert all(line.count(".") == 15 for line in lines[1:16])
    assert lines[1].startswith("r=14") and lines[15].startswith("r=0")
