"""The Part A board reader and the SPREAD line format."""
from __future__ import annotations

import pytest

from referee.games.base import BLUE, RED
from referee.games.infexion import DIRECTIONS, spread_action
from referee.search.board import ActionLineError, BoardError, format_spread, parse_board, parse_spread_line


def test_reads_cells_with_spaces_blank_lines_crlf_and_bom():
    text = "\ufeff 0, 1 ,r, 2\r\n\r\n   \n6,6,b,6\n5, 0, R, 1\n"
    assert parse_board(text) == {(0, 1): (RED, 2), (6, 6): (BLUE, 6), (5, 0): (RED, 1)}


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("0,0,r,1\n1,1,b\n", 2, "expected 4 comma-separated fields"),
        ("0,0,r,1\n1,1,b,1,9\n", 2, "got 5"),
        ("0,0,r,1\n\n7,1,b,1\n", 3, "coordinate r = 7 is outside 0..6"),
        ("0,-1,r,1\n1,1,b,1\n", 1, "coordinate q = -1 is outside 0..6"),
        ("0,0,r,0\n1,1,b,1\n", 1, "power 0 is outside 1..6"),
        ("0,0,r,1\n1,1,b,7\n", 2, "power 7 is outside 1..6"),
        ("0,0,g,1\n1,1,b,1\n", 1, "unknown colour 'g'"),
        ("0,x,r,1\n1,1,b,1\n", 1, "q must be a whole number, got 'x'"),
        ("0,0,r,1\n1,1,b,1\n0,0,b,2\n", 3, "cell (0, 0) is already given on line 1"),
    ],
)
def test_bad_lines_are_named(text, line, words):
    with pytest.raises(BoardError) as err:
        parse_board(text, "board.csv")
    assert f"board.csv:{line}:" in str(err.value)
    assert words in str(err.value)


def test_missing_side_is_an_error():
    with pytest.raises(BoardError, match="no red cell"):
        parse_board("1,1,b,1\n")
    with pytest.raises(BoardError, match="no blue cell"):
        parse_board("1,1,r,1\n")
    with pytest.raises(BoardError, match="no red cell"):
        parse_board("\n\n")


def test_last_wins_keeps_the_last_line_for_a_repeated_cell():
    text = "1,4,r,2\n2,4,b,2\n1,4,b,3\n"
    assert parse_board(text + "0,0,r,1\n", last_wins=True) == {(1, 4): (BLUE, 3), (2, 4): (BLUE, 2), (0, 0): (RED, 1)}
    # a repeat can even replace the only red cell; that is still reported
    with pytest.raises(BoardError, match="no red cell"):
        parse_board(text, last_wins=True)


def test_a_line_repeated_exactly_is_ignored_with_a_note():
    notes: list[str] = []
    text = "0,0,r,1\n1,1,b,2\n 0, 0, R, 1\n1,1,b,2\n"
    assert parse_board(text, "b.csv", notes=notes) == {(0, 0): (RED, 1), (1, 1): (BLUE, 2)}
    assert notes == [
        "b.csv:3: cell (0, 0) repeats line 1 exactly; the repeat is ignored",
        "b.csv:4: cell (1, 1) repeats line 2 exactly; the repeat is ignored",
    ]
    assert parse_board(text) == {(0, 0): (RED, 1), (1, 1): (BLUE, 2)}  # notes are optional
    # A repeat that differs is still an error, naming the first line.
    with pytest.raises(BoardError, match=r"b.csv:5: cell \(0, 0\) is already given on line 1 with another colour"):
        parse_board(text + "0,0,r,2\n", "b.csv")


def test_last_wins_says_which_line_won():
    notes: list[str] = []
    parse_board("0,0,r,1\n1,1,b,2\n0,0,r,3\n", "b.csv", last_wins=True, notes=notes)
    assert notes == ["b.csv:3: cell (0, 0) was given on line 1; this line wins (--last-wins)"]


def test_every_bundled_board_reads_without_last_wins():
    from pathlib import Path

    boards = sorted((Path(__file__).resolve().parents[2] / "benchmarks" / "partA_boards").glob("*.csv"))
    assert boards
    for path in boards:
        notes: list[str] = []
        parse_board(path.read_text(), str(path), notes=notes)
        assert notes == [], notes


def test_spread_lines_round_trip_for_every_cell_and_direction():
    for r in range(7):
        for q in range(7):
            for d, (dr, dq) in enumerate(DIRECTIONS):
                action = spread_action(r, q, d)
                line = format_spread(action)
                assert line == f"SPREAD {r} {q} {dr} {dq}"
                assert parse_spread_line(line) == action
                assert parse_spread_line(f"SPREAD({r}, {q}, {dr}, {dq})") == action


@pytest.mark.parametrize(
    "line, words",
    [
        ("SPREAD 1 2 3", "not 'SPREAD r q dr dq'"),
        ("SPREAD 7 0 0 1", "cell (7, 0) is off the board"),
        ("SPREAD 0 0 1 1", "(1, 1) is not one of the six directions"),
    ],
)
def test_bad_spread_lines(line, words):
    with pytest.raises(ActionLineError) as err:
        parse_spread_line(line)
    assert words in str(err.value)
