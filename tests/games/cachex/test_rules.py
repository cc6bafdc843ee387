"""Every Cachex rule and edge case, on hand-made positions.

Coordinates and expected boards are written out by hand from the rules
(``shared/specs/cachex.md``; interpretations in ``docs/cachex.md``).
"""
from __future__ import annotations

import argparse

import pytest

from referee.games import load_game, registration
from referee.games.base import BLUE, RED, GameOptionError, IllegalActionError, Outcome
from referee.games.cachex import STEAL, Cachex, CachexState, cell_index

R, B = RED, BLUE


def play(state: CachexState, *texts: str) -> CachexState:
    for text in texts:
        state.apply_checked(state.parse_action(text))
    return state


def stones(state: CachexState) -> dict[tuple[int, int], int]:
    return {(r, q): p for r, q, p in state.cells()}


def position(n: int, red=(), blue=(), turn: int = 2) -> CachexState:
    cells = {cell: R for cell in red}
    cells.update({cell: B for cell in blue})
    return CachexState(n, cells, turn)


def place(r: int, q: int) -> int:
    return cell_index(r, q)


# -- the game and its options ------------------------------------------------------


def test_default_board_is_7_and_options_are_reported():
    game = Cachex()
    assert game.n == 7 and game.options == {"n": 7}
    assert game.agent_kwargs == {"n": 7}
    assert game.new_state().n == 7
    assert game.reasons == ("connection", "repetition", "turn_limit")
    assert registration("cachex").agent_types == "referee.cachex"


@pytest.mark.parametrize("n", [3, 4, 9, 15])
def test_every_size_from_3_to_15_loads_by_name(n):
    game = load_game("cachex", n=n)
    state = game.new_state()
    assert state.n == n and game.agent_kwargs == {"n": n}
    assert len(state.legal_actions()) == n * n - (n % 2)


@pytest.mark.parametrize("bad", [2, 16, 0, -7, "7", 7.0, True, None])
def test_sizes_outside_3_to_15_are_refused_naming_the_range(bad):
    with pytest.raises(GameOptionError, match="3 to 15") as err:
        Cachex(n=bad)
    assert repr(bad) in str(err.value)


def test_unknown_options_are_refused_by_name():
    with pytest.raises(GameOptionError, match="size"):
        Cachex(n=5, size=5)


def test_command_line_option_n():
    parser = argparse.ArgumentParser()
    cachex = registration("cachex")
    cachex.add_arguments(parser)
    assert cachex.options_from_args(parser.parse_args(["-n", "9"])) == {"n": 9}
    assert cachex.options_from_args(parser.parse_args(["--size", "5"])) == {"n": 5}
    assert cachex.options_from_args(parser.parse_args([])) == {}


# -- turns, first moves, the centre --------------------------------------------------


@pytest.mark.parametrize("n", [3, 5, 7, 9, 11, 13, 15])
def test_red_may_not_open_on_the_centre_of_an_odd_board(n):
    state = CachexState(n)
    centre = place((n - 1) // 2, (n - 1) // 2)
    legal = state.legal_actions()
    assert centre not in legal and len(legal) == n * n - 1
    with pytest.raises(IllegalActionError) as err:
        state.apply_checked(centre)
    c = (n - 1) // 2
    assert f"PLACE({c}, {c})" in str(err.value) and "centre" in str(err.value)


@pytest.mark.parametrize("n", [4, 6, 8, 10, 12, 14])
def test_even_boards_have_no_centre_ban(n):
    state = CachexState(n)
    assert len(state.legal_actions()) == n * n
    for cell in [(n // 2, n // 2), (n // 2 - 1, n // 2 - 1), (n // 2 - 1, n // 2)]:
        assert state.is_legal(place(*cell))


def test_centre_ban_is_only_for_reds_first_move():
    state = play(CachexState(5), "PLACE(0, 0)")
    assert state.is_legal(place(2, 2)), "Blue may take the centre at once"
    play(state, "PLACE(4, 4)")
    assert state.is_legal(place(2, 2)), "and Red may take it later"
    play(state, "PLACE(2, 2)")
    assert stones(state)[(2, 2)] == R


def test_players_alternate_from_red():
    state = CachexState(5)
    seen = []
    for text in ["PLACE(0, 0)", "PLACE(1, 1)", "PLACE(0, 4)", "PLACE(3, 3)"]:
        seen.append(state.current_player)
        play(state, text)
    assert seen == [R, B, R, B] and state.move_count == 4


def test_occupied_and_off_board_cells_are_illegal_with_reasons():
    state = play(CachexState(5), "PLACE(1, 2)")
    with pytest.raises(IllegalActionError, match=r"PLACE\(1, 2\).*not empty.*RED"):
        state.apply_checked(place(1, 2))
    with pytest.raises(IllegalActionError, match=r"PLACE\(6, 1\).*off the 5x5 board"):
        state.apply_checked(place(6, 1))
    with pytest.raises(IllegalActionError, match=r"PLACE\(0, 5\).*off the 5x5 board"):
        state.apply_checked(place(0, 5))
    for junk in (None, "PLACE(0, 0)", -1, 257, 1.5, True):
        assert state.illegal_reason(junk) == "not a Cachex action"


# -- the steal ---------------------------------------------------------------------------


def test_steal_is_legal_only_as_the_second_action():
    state = CachexState(5)
    assert STEAL not in state.legal_actions()
    with pytest.raises(IllegalActionError, match=r"STEAL.*Blue's first move"):
        state.apply_checked(STEAL)
    play(state, "PLACE(1, 3)")
    assert state.legal_actions()[-1] == STEAL and state.is_legal(STEAL)
    play(state, "PLACE(0, 0)")
    assert STEAL not in state.legal_actions(), "Red never steals"
    assert not state.is_legal(STEAL)
    play(state, "PLACE(4, 4)")
    assert not state.is_legal(STEAL), "and Blue only as its first move"


def test_steal_mirrors_reds_stone_and_turns_it_blue():
    state = play(CachexState(5), "PLACE(1, 3)", "STEAL")
    assert stones(state) == {(3, 1): B}
    assert state.current_player == R and state.move_count == 2
    assert state.is_legal(place(1, 3)), "Red's old cell is free again"
    play(state, "PLACE(1, 3)")
    assert stones(state) == {(3, 1): B, (1, 3): R}


@pytest.mark.parametrize(
    "n, red, blue", [(4, (2, 2), (2, 2)), (5, (0, 4), (4, 0)), (7, (6, 1), (1, 6)), (15, (0, 0), (0, 0))]
)
def test_steal_mirror_across_the_major_axis(n, red, blue):
    state = CachexState(n)
    state.apply_checked(place(*red))
    state.apply_checked(STEAL)
    assert stones(state) == {blue: B}


def test_steal_can_be_undone():
    state = play(CachexState(6), "PLACE(0, 5)")
    before = state.copy()
    state.apply(STEAL)
    assert stones(state) == {(5, 0): B}
    state.undo()
    assert state == before and stones(state) == {(0, 5): R}
    assert state.legal_actions()[-1] == STEAL


# -- captures -------------------------------------------------------------------------

#: The 12 diamonds with a corner at (2, 2), written out: the cell opposite
#: (2, 2) and the two middle cells.  The first six have (2, 2) as a tip (the
#: offsets are adjacent in the cyclic order); in the last six (2, 2) and the
#: opposite cell are the short diagonal (offsets one apart).
DIAMONDS_AT_2_2 = [
    ((4, 1), (3, 1), (3, 2)),  # (1,-1) (1,0)
    ((3, 3), (3, 2), (2, 3)),  # (1,0) (0,1)
    ((1, 4), (2, 3), (1, 3)),  # (0,1) (-1,1)
    ((0, 3), (1, 3), (1, 2)),  # (-1,1) (-1,0)
    ((1, 1), (1, 2), (2, 1)),  # (-1,0) (0,-1)
    ((3, 0), (2, 1), (3, 1)),  # (0,-1) (1,-1)
    ((3, 2), (3, 1), (2, 3)),  # (1,-1) (0,1)
    ((2, 3), (3, 2), (1, 3)),  # (1,0) (-1,1)
    ((1, 3), (2, 3), (1, 2)),  # (0,1) (-1,0)
    ((1, 2), (1, 3), (2, 1)),  # (-1,1) (0,-1)
    ((2, 1), (1, 2), (3, 1)),  # (-1,0) (1,-1)
    ((3, 1), (2, 1), (3, 2)),  # (0,-1) (1,0)
]


@pytest.mark.parametrize("mover", [R, B])
@pytest.mark.parametrize("far, mid1, mid2", DIAMONDS_AT_2_2)
def test_each_diamond_orientation_captures(mover, far, mid1, mid2):
    other = 1 - mover
    cells = {far: mover, mid1: other, mid2: other}
    state = CachexState(5, cells, turn=10 + mover)
    state.apply_checked(place(2, 2))
    assert stones(state) == {(2, 2): mover, far: mover}
    assert state.is_legal(place(*mid1)) and state.is_legal(place(*mid2)), "captured cells are free again"
    assert state.last_action_effect() == (place(2, 2), place(2, 2), tuple(sorted((place(*mid1), place(*mid2)))))


def test_the_twelve_diamonds_are_all_the_four_cell_rhombi():
    # A diamond is two neighbours (the short diagonal) plus the two cells
    # next to both (the tips).  Derive every diamond holding (2, 2) that way,
    # with the corner opposite (2, 2), and compare with the table.
    def neighbours(r, q):
        return {(r + dr, q + dq) for dr, dq in [(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)]}

    c = (2, 2)
    derived = set()
    for a in neighbours(*c) | {c}:
        for b in neighbours(*a):
            tips = neighbours(*a) & neighbours(*b)
            assert len(tips) == 2
            for pair, others in (({a, b}, tips), (tips, {a, b})):
                if c in pair:
                    (opposite,) = pair - {c}
                    derived.add((opposite, frozenset(others)))
    table = {(far, frozenset({m1, m2})) for far, m1, m2 in DIAMONDS_AT_2_2}
    assert derived == table and len(table) == 12


def test_adjacent_corners_of_a_diamond_do_not_capture():
    # Red at (2, 2) and (3, 2): neighbours, not opposite corners, of the
    # diamond (2,2) (3,1) (3,2) (4,1); Blue holds the other two.
    state = position(5, red=[(3, 2)], blue=[(3, 1), (4, 1)], turn=10)
    play(state, "PLACE(2, 2)")
    assert stones(state) == {(2, 2): R, (3, 2): R, (3, 1): B, (4, 1): B}


def test_three_of_one_colour_captures_nothing():
    # Mover holds three corners, the opponent one.
    state = position(5, red=[(4, 1), (3, 1)], blue=[(3, 2)], turn=10)
    play(state, "PLACE(2, 2)")
    assert stones(state) == {(2, 2): R, (4, 1): R, (3, 1): R, (3, 2): B}
    # The opponent holds three corners, the mover places the fourth.
    state = position(5, red=[], blue=[(4, 1), (3, 1), (3, 2)], turn=10)
    play(state, "PLACE(2, 2)")
    assert stones(state) == {(2, 2): R, (4, 1): B, (3, 1): B, (3, 2): B}


def test_far_corner_empty_captures_nothing():
    state = position(5, blue=[(3, 1), (3, 2)], turn=10)
    play(state, "PLACE(2, 2)")
    assert stones(state) == {(2, 2): R, (3, 1): B, (3, 2): B}


def test_whoever_completes_a_diamond_captures():
    # Red holds the tips (2, 2) and (4, 1); Blue fills the short diagonal
    # (3, 1)-(3, 2) and so holds opposite corners too: Blue captures the tips.
    state = position(5, red=[(2, 2), (4, 1)], blue=[(3, 1)], turn=11)
    play(state, "PLACE(3, 2)")
    assert stones(state) == {(3, 1): B, (3, 2): B}


def test_two_separate_diamonds_at_once():
    state = position(5, red=[(4, 1), (0, 3)], blue=[(3, 1), (3, 2), (1, 3), (1, 2)], turn=10)
    play(state, "PLACE(2, 2)")
    assert stones(state) == {(2, 2): R, (4, 1): R, (0, 3): R}


def test_diamonds_sharing_a_stone_all_capture():
    # (3, 2) is in both diamonds: collecting first, then removing, takes all three.
    state = position(5, red=[(4, 1), (3, 3)], blue=[(3, 1), (3, 2), (2, 3)], turn=10)
    play(state, "PLACE(2, 2)")
    assert stones(state) == {(2, 2): R, (4, 1): R, (3, 3): R}


def test_both_orientations_at_once():
    # A tip diamond (mids (3,1), (3,2)) and a short-diagonal one ((2,2)-(1,3); tips (2,3), (1,2)).
    state = position(5, red=[(4, 1), (1, 3)], blue=[(3, 1), (3, 2), (2, 3), (1, 2)], turn=10)
    play(state, "PLACE(2, 2)")
    assert stones(state) == {(2, 2): R, (4, 1): R, (1, 3): R}


def test_all_six_neighbours_captured_by_one_stone():
    tips = [(4, 1), (3, 3), (1, 4), (0, 3), (1, 1), (3, 0)]
    ring = [(3, 1), (3, 2), (2, 3), (1, 3), (1, 2), (2, 1)]
    state = position(5, blue=tips, red=ring, turn=13)
    play(state, "PLACE(2, 2)")
    assert stones(state) == {(2, 2): B, **{cell: B for cell in tips}}
    assert state.summary().startswith("RED 0 stones, BLUE 7 stones")
    state.undo()
    assert stones(state) == {**{cell: B for cell in tips}, **{cell: R for cell in ring}}


def test_capture_in_a_corner_and_at_the_far_corner():
    state = position(4, red=[(1, 1)], blue=[(1, 0), (0, 1)], turn=4)
    play(state, "PLACE(0, 0)")
    assert stones(state) == {(0, 0): R, (1, 1): R}
    state = position(4, blue=[(2, 2)], red=[(3, 2), (2, 3)], turn=5)
    play(state, "PLACE(3, 3)")
    assert stones(state) == {(3, 3): B, (2, 2): B}


# -- winning by connection ------------------------------------------------------------


def test_red_wins_by_joining_its_sides_and_not_before():
    state = CachexState(5)
    moves = ["PLACE(0, 2)", "PLACE(0, 4)", "PLACE(1, 2)", "PLACE(1, 4)", "PLACE(2, 2)",
             "PLACE(2, 4)", "PLACE(3, 2)", "PLACE(3, 4)"]
    for text in moves:
        play(state, text)
        assert state.outcome is None
    play(state, "PLACE(4, 2)")
    assert state.outcome == Outcome(R, "connection") and state.move_count == 9
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.apply_checked(place(0, 0))


def test_blue_wins_by_joining_q0_to_q_last():
    state = CachexState(4)
    play(state, "PLACE(3, 3)", "PLACE(1, 0)", "PLACE(3, 2)", "PLACE(1, 1)", "PLACE(0, 3)", "PLACE(1, 2)", "PLACE(0, 1)")
    assert state.outcome is None
    play(state, "PLACE(1, 3)")
    assert state.outcome == Outcome(B, "connection")


def test_fewest_actions_to_win_is_2n_minus_1():
    state = play(CachexState(3), "PLACE(0, 0)", "PLACE(2, 2)", "PLACE(1, 0)", "PLACE(0, 2)")
    play(state, "PLACE(2, 0)")
    assert state.outcome == Outcome(R, "connection") and state.move_count == 2 * 3 - 1


@pytest.mark.parametrize("player", [R, B])
def test_the_anti_diagonal_through_two_corners_wins_for_either_player(player):
    # (0,3) (1,2) (2,1) (3,0): neighbours along (1,-1); the ends are corners,
    # on r = 0 and q = 3, and on r = 3 and q = 0.
    path = [(0, 3), (1, 2), (2, 1), (3, 0)]
    cells = {cell: player for cell in path[:-1]}
    state = CachexState(4, cells, turn=6 + player)
    state.apply_checked(place(*path[-1]))
    assert state.outcome == Outcome(player, "connection")


def test_red_along_blues_side_q0_wins_through_the_corners():
    state = position(4, red=[(0, 0), (1, 0), (2, 0)], blue=[(1, 1), (2, 2), (3, 3)], turn=6)
    play(state, "PLACE(3, 0)")
    assert state.outcome == Outcome(R, "connection")


def test_blue_along_reds_side_r0_wins_through_the_corners():
    state = position(4, blue=[(0, 0), (0, 1), (0, 2)], red=[(1, 1), (2, 2), (3, 3), (3, 1)], turn=7)
    play(state, "PLACE(0, 3)")
    assert state.outcome == Outcome(B, "connection")


def test_joining_the_other_players_sides_is_no_win():
    # A blue column from r = 0 to r = 3 touches Red's sides, not Blue's.
    state = position(4, blue=[(0, 2), (1, 2), (2, 2)], red=[(0, 0), (3, 3), (2, 0), (3, 0)], turn=7)
    play(state, "PLACE(3, 2)")
    assert state.outcome is None


def test_cells_on_the_long_diagonal_are_not_neighbours():
    # (0,0) (1,1) (2,2) (3,3): (1,1) is not an offset, so this is no chain.
    state = position(4, red=[(0, 0), (1, 1), (2, 2)], blue=[(0, 3), (1, 3), (3, 0)], turn=6)
    play(state, "PLACE(3, 3)")
    assert state.outcome is None


def test_a_winning_stone_that_also_captures():
    # (2, 2) joins Red's column q = 2 and, with (1, 4), takes (2, 3) and (1, 3).
    state = position(
        5, red=[(0, 2), (1, 2), (3, 2), (4, 2), (1, 4)], blue=[(2, 3), (1, 3), (0, 0), (4, 4)], turn=10
    )
    play(state, "PLACE(2, 2)")
    assert stones(state) == {
        (0, 2): R, (1, 2): R, (2, 2): R, (3, 2): R, (4, 2): R, (1, 4): R, (0, 0): B, (4, 4): B,
    }
    assert state.outcome == Outcome(R, "connection")


# -- repetition ------------------------------------------------------------------------

#: From the empty 3x3 board to the board "r.r/.r./b.b" with Blue to move, then
#: a cycle of six actions back to it: Blue's (0, 1) takes (1, 0) (1, 1) (0, 2)
#: in three diamonds, Red's (1, 1) takes (1, 0) (0, 1) (1, 2) likewise.
CYCLE_PREFIX = ["PLACE(0, 0)", "PLACE(2, 0)", "PLACE(0, 2)", "PLACE(2, 2)", "PLACE(1, 1)"]
CYCLE = ["PLACE(1, 2)", "PLACE(1, 0)", "PLACE(0, 1)", "PLACE(0, 2)", "PLACE(1, 0)", "PLACE(1, 1)"]
CYCLE_BOARDS = ["r.r/.rb/b.b", "r.r/rrb/b.b", "rb./..b/b.b", "rbr/..b/b.b", "rbr/b.b/b.b", "r.r/.r./b.b"]


def test_the_cycle_returns_to_its_board():
    state = play(CachexState(3), *CYCLE_PREFIX)
    assert state.to_text() == "r.r/.r./b.b 5"
    for text, board in zip(CYCLE, CYCLE_BOARDS):
        play(state, text)
        assert state.to_text().split()[0] == board


def test_the_empty_start_counts_as_one_occurrence():
    state = CachexState(5)
    assert state.occurrences() == 1
    play(state, "PLACE(0, 0)")
    assert state.occurrences() == 1
    state.undo()
    assert state.occurrences() == 1


@pytest.mark.parametrize("n", [3, 5, 7])
def test_seventh_occurrence_of_a_board_is_a_draw(n):
    state = play(CachexState(n), *CYCLE_PREFIX)
    assert state.occurrences() == 1
    for lap in range(1, 6):
        play(state, *CYCLE)
        assert state.outcome is None and state.occurrences() == lap + 1
    play(state, *CYCLE[:-1])
    assert state.outcome is None
    play(state, CYCLE[-1])
    assert state.occurrences() == 7
    assert state.outcome == Outcome(None, "repetition") and state.move_count == 5 + 36
    assert state.legal_actions() == []


def test_a_position_given_as_text_counts_once_at_the_start():
    state = CachexState.from_text("r.r/.r./b.b 5")
    for _ in range(5):
        play(state, *CYCLE)
    assert state.outcome is None
    play(state, *CYCLE)
    assert state.outcome == Outcome(None, "repetition")


def test_undo_keeps_the_repetition_counts():
    state = play(CachexState(3), *CYCLE_PREFIX)
    start_counts = dict(state.repetitions)
    for _ in range(6):
        play(state, *CYCLE)
    assert state.outcome.reason == "repetition"
    state.undo()
    assert state.outcome is None and state.occurrences() == 6
    play(state, CYCLE[-1])
    assert state.outcome.reason == "repetition"
    for _ in range(len(CYCLE) * 6):
        state.undo()
    assert state.repetitions == start_counts and state.outcome is None
    while state.move_count:
        state.undo()
    assert state.repetitions == {state.code: 1} and state.occurrences() == 1


def test_a_copy_carries_the_repetition_counts():
    state = play(CachexState(3), *CYCLE_PREFIX)
    for _ in range(3):
        play(state, *CYCLE)
    copied = state.copy_without_history()
    for _ in range(3):
        play(copied, *CYCLE)
    assert copied.outcome == Outcome(None, "repetition")
    assert state.outcome is None and state.occurrences() == 4


# -- the action limit ----------------------------------------------------------------------


def test_action_343_ends_in_a_draw():
    state = position(5, red=[(0, 0), (2, 2)], blue=[(4, 4), (1, 3)], turn=342)
    assert state.outcome is None and len(state.legal_actions()) == 21
    play(state, "PLACE(3, 3)")
    assert state.outcome == Outcome(None, "turn_limit") and state.move_count == 343


def test_a_position_at_343_is_over():
    state = position(5, red=[(0, 0)], blue=[(4, 4)], turn=343)
    assert state.outcome == Outcome(None, "turn_limit") and state.legal_actions() == []
    with pytest.raises(ValueError, match="outside 0..343"):
        position(5, red=[(0, 0)], blue=[(4, 4)], turn=344)


def test_a_connection_on_action_343_is_a_win():
    state = position(5, red=[(0, 2), (1, 2), (3, 2), (4, 2)], blue=[(0, 0), (4, 4)], turn=342)
    play(state, "PLACE(2, 2)")
    assert state.outcome == Outcome(R, "connection")


def test_a_seventh_occurrence_on_action_343_is_a_repetition():
    state = CachexState.from_text("r.r/.r./b.b 307")
    for _ in range(6):
        play(state, *CYCLE)
    assert state.move_count == 343
    assert state.outcome == Outcome(None, "repetition")


# -- position keys and positions as text ---------------------------------------------------


def test_key_is_the_same_for_transpositions_and_differs_by_side_to_move():
    a = play(CachexState(5), "PLACE(0, 0)", "PLACE(4, 4)", "PLACE(1, 1)")
    b = play(CachexState(5), "PLACE(1, 1)", "PLACE(4, 4)", "PLACE(0, 0)")
    assert a.key() == b.key() and a.to_text() == b.to_text()
    board = "r..../.r.../...../...../....b"
    assert CachexState.from_text(board + " 3").key() == a.key()
    assert CachexState.from_text(board + " 4").key() != a.key()
    c = play(CachexState(5), "PLACE(0, 0)", "PLACE(4, 4)", "PLACE(1, 2)")
    assert c.key() != a.key()


def test_key_after_a_capture_is_the_key_of_the_resulting_board():
    state = position(5, red=[(4, 1)], blue=[(3, 1), (3, 2)], turn=10)
    play(state, "PLACE(2, 2)")
    assert state.key() == position(5, red=[(4, 1), (2, 2)], turn=11).key()


@pytest.mark.parametrize(
    "text, message",
    [
        ("../.. 0", "board size"),
        ("..../..../..../... 4", "row 3 has 3 cells"),
        ("..../..x./..../.... 4", "row 1, column 2"),
        ("..../..../..../.... x", "not a number"),
        ("r.../..../..../.... 0", "empty"),
        ("..../..../..../..b. 1", "one red stone"),
        ("r.../r.../r.../r... 6", "RED is connected but is to move"),
    ],
)
def test_bad_position_text_is_refused_saying_why(text, message):
    with pytest.raises(ValueError, match=message):
        CachexState.from_text(text)


def test_position_text_round_trips():
    text = "r.b../.rb../..r../.b.../....r 9"
    assert CachexState.from_text(text).to_text() == text
