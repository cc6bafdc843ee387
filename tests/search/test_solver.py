"""The Part A solver: hand-made boards with known optima, and properties
checked against an independent brute-force search."""
from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.games.base import BLUE, RED
from referee.games.infexion import InfexionState
from referee.search.board import board_bytes, format_spread, parse_board, parse_spread_line
from referee.search.bounds import INFINITE, Bounds, counting_value
from referee.search.replay import check_sequence
from referee.search.solver import SolveResult, Unsolvable, apply_spread, blue_mask, solve
from referee.search.tables import COLLINEAR, cells_of

from .brute import TooBig, after, red_spreads, shortest_win


def solve_text(text: str) -> list[str]:
    cells = parse_board(text)
    result = solve(board_bytes(cells))
    assert result.optimal and result.lower_bound == len(result.actions)
    assert check_sequence(cells, list(result.actions)).valid
    return [format_spread(a) for a in result.actions]


# -- hand-made boards whose optimum is argued in the comment ------------------


def test_one_capture_next_door():
    assert solve_text("0,0,r,1\n0,1,b,1\n") == ["SPREAD 0 0 0 1"]


def test_wrap_around_the_q_axis():
    # (0, 6) + (0, 1) is (0, 0) across the edge; no other SPREAD reaches it.
    assert solve_text("0,6,r,1\n0,0,b,2\n") == ["SPREAD 0 6 0 1"]


def test_wrap_around_both_axes_in_one_spread():
    # Both blue cells lie on the line r + q = 3; from (5, 5) going (1, -1) a
    # power-3 stack lands on (6, 4), (0, 3), (1, 2): one SPREAD is enough and
    # it is the only one that touches both.
    assert solve_text("5,5,r,3\n0,3,b,1\n1,2,b,4\n") == ["SPREAD 5 5 1 -1"]


def test_blue_stack_of_six_vanishes_when_touched():
    # The token and the blue 6 both vanish: no blue is left, which wins Part A
    # even though no red token is left either.
    assert solve_text("0,0,r,1\n0,1,b,6\n") == ["SPREAD 0 0 0 1"]
    # A power-2 stack removes two blue 6s in a row with its two tokens.
    assert solve_text("3,3,r,2\n3,4,b,6\n3,5,b,6\n") == ["SPREAD 3 3 0 1"]


def test_capture_grows_a_red_stack_that_then_reaches_further():
    # The red 1 can only touch (0, 1); taking the blue 3 there makes a red 4,
    # the only stack able to reach the four blue cells below it.  Two SPREADs,
    # and one cannot do (a power-1 SPREAD touches one cell).
    text = "0,0,r,1\n0,1,b,3\n1,1,b,1\n2,1,b,1\n3,1,b,1\n4,1,b,1\n"
    assert solve_text(text) == ["SPREAD 0 0 0 1", "SPREAD 0 1 1 0"]


def test_capture_reaching_six_then_sweeping_a_whole_row():
    # Red 1 takes the blue 5 (red 6 at (0, 1)), which then covers the other
    # six cells of row 0, wrapping past (0, 6) to the emptied (0, 0).
    # Taking (0, 6) first would only make a red 2, so the first move is forced;
    # the red 6 may then sweep the row either way.
    text = "0,0,r,1\n0,1,b,5\n" + "".join(f"0,{q},b,1\n" for q in range(2, 7))
    moves = solve_text(text)
    assert moves[0] == "SPREAD 0 0 0 1" and moves[1] in ("SPREAD 0 1 0 1", "SPREAD 0 1 0 -1")
    assert len(moves) == 2


def test_red_six_overflows_when_a_red_token_lands_on_it():
    # Landing on a red 6 removes it: red 6 + red 1 -> nothing.  The engine's
    # rules say so; the solver's successor must agree.
    board = board_bytes(parse_board("0,0,r,1\n0,1,r,6\n4,4,b,1\n"))
    after_overflow = apply_spread(board, parse_spread_line("SPREAD 0 0 0 1"))
    assert after_overflow[0] == 0 and after_overflow[1] == 0
    assert sum(after_overflow) == board[4 * 7 + 4]  # only the blue cell is left


def test_a_lone_token_walks_to_its_target():
    # On the torus (0, 0) is 4 steps from (3, 3): (2, 4), (1, 5), (0, 6), (0, 0)
    # (no shorter way: the axial distance over every wrap is at least 4).  The
    # only stack is a power-1 one, which moves one cell per SPREAD and stays
    # power 1 on empty cells, so it needs exactly those 4 SPREADs.
    assert len(solve_text("3,3,r,1\n0,0,b,1\n")) == 4


def test_unwinnable_board_is_reported():
    # Each blue 6 eats a red token and there is only one red token.
    with pytest.raises(Unsolvable, match="power 6"):
        solve(board_bytes(parse_board("0,0,r,1\n1,1,b,6\n2,2,b,6\n")))


def test_node_limit_reports_a_lower_bound():
    result = solve(board_bytes(parse_board("3,3,r,1\n0,0,b,1\n0,3,b,1\n")), max_expanded=1)
    assert result.actions is None and 2 <= result.lower_bound


def test_helper_bound_sees_that_captures_alone_cannot_do():
    # (0, 1) and (2, 5) share no line, so two SPREADs at least, and the red 1
    # reaches only (0, 1).  Taking it leaves a red 2 on (0, 1), which shares no
    # line with (2, 5) either; with no stack of power 2 or more to begin with,
    # some SPREAD must be a helper that captures nothing of the two (bound 5),
    # e.g. (0, 0) -> (1, 6), then (1, 6) takes (2, 5).  So 3, and the bound
    # knows it without searching.
    cells = parse_board("0,0,r,1\n0,1,b,1\n2,5,b,1\n")
    board = board_bytes(cells)
    red = [c for c in range(49) if 0 < board[c] < 8]
    assert Bounds().full(board, blue_mask(board), red) == 3
    assert shortest_win(cells, 5) == 3
    assert len(solve(board).actions) == 3


# -- the counting relaxation, on cases small enough to argue by hand ----------


def counts(red: list[int], blue: list[int]) -> tuple[int, ...]:
    return tuple(red.count(p) for p in range(1, 7)) + tuple(blue.count(p) for p in range(1, 7))


@pytest.mark.parametrize(
    "red, blue, moves",
    [
        ([1], [1], 1),
        ([1], [1, 1], 2),  # the capture makes a red 2, which takes the other
        ([1], [1, 1, 1], 2),
        ([1], [1, 1, 1, 1], 3),  # at most 1 then 2 cells in two moves
        ([1], [6], 1),
        ([1], [6, 6], INFINITE),  # one token, two stacks that each eat one
        ([2], [6, 6], 1),
        ([6], [1] * 6, 1),
    ],
)
def test_counting_relaxation_values(red, blue, moves):
    assert counting_value(counts(red, blue), budget=100_000) == moves


# -- properties against the brute-force search -------------------------------


@st.composite
def small_boards(draw):
    cells = draw(st.lists(st.integers(0, 48), min_size=2, max_size=5, unique=True))
    n_red = draw(st.integers(1, min(2, len(cells) - 1)))
    board = {}
    for i, cell in enumerate(cells):
        player = RED if i < n_red else BLUE
        power = draw(st.integers(1, 6) if player == RED else st.integers(1, 4))
        board[divmod(cell, 7)] = (player, power)
    return board


def solved_within_budget(cells: dict) -> SolveResult | None:
    """The solver's answer, None if it says unwinnable; boards it gives up on are skipped."""
    try:
        result = solve(board_bytes(cells), max_expanded=20_000)
    except Unsolvable:
        return None
    assume(result.actions is not None)
    return result


@settings(max_examples=60, deadline=None)
@given(small_boards())
def test_solutions_replay_and_nothing_shorter_exists(cells):
    result = solved_within_budget(cells)
    if result is None:
        # No short win either (a cheap partial check of the claim).
        try:
            assert shortest_win(cells, 3, cap=20_000) is None
        except TooBig:
            pass
        return
    length = len(result.actions)
    assert check_sequence(cells, list(result.actions)).valid
    assume(length <= 5)
    try:
        assert shortest_win(cells, length, cap=40_000) == length
    except TooBig:
        assume(False)


@settings(max_examples=40, deadline=None)
@given(small_boards())
def test_bounds_never_exceed_the_distance_along_an_optimal_path(cells):
    result = solved_within_budget(cells)
    if result is None:
        return
    bounds = Bounds()
    board = board_bytes(cells)
    remaining = len(result.actions)
    for action in list(result.actions) + [None]:
        blue = blue_mask(board)
        if blue:
            red = [c for c in range(49) if 0 < board[c] < 8]
            assert bounds.quick(board, blue, red) <= remaining
            assert bounds.full(board, blue, red) <= remaining
        if action is not None:
            board = apply_spread(board, action)
            remaining -= 1


def test_solver_successor_matches_the_engine():
    rng = random.Random(6)
    for _ in range(300):
        cells = {}
        for cell in rng.sample(range(49), rng.randint(2, 14)):
            cells[divmod(cell, 7)] = (rng.choice((RED, BLUE)), rng.randint(1, 6))
        if not any(p == RED for p, _ in cells.values()):
            continue
        state = InfexionState(cells)
        board = board_bytes(cells)
        for action in red_spreads(state):
            assert apply_spread(board, action) == bytes(after(state, action).board)


def test_independent_set_matches_brute_force():
    rng = random.Random(7)
    bounds = Bounds()
    for _ in range(200):
        chosen = rng.sample(range(49), rng.randint(1, 9))
        mask = sum(1 << c for c in chosen)
        best = 0
        for subset in range(1, 1 << len(chosen)):
            picked = [chosen[i] for i in range(len(chosen)) if subset >> i & 1]
            if all(not (COLLINEAR[a] >> b & 1) for a in picked for b in picked if a != b):
                best = max(best, len(picked))
        assert bounds.independent(mask) == best, cells_of(mask)
