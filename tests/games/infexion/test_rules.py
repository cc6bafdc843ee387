"""Every Infexion rule and edge case, on hand-made positions."""
from __future__ import annotations

import pytest

from referee.games.base import BLUE, RED, IllegalActionError, NotationError, Outcome
from referee.games.infexion import InfexionState, parse_action

R, B = RED, BLUE


def play(state: InfexionState, *texts: str) -> InfexionState:
    for text in texts:
        state.apply_checked(parse_action(text))
    return state


def stacks(state: InfexionState) -> dict[tuple[int, int], tuple[int, int]]:
    return {(r, q): (o, p) for r, q, o, p in state.cells()}


# -- SPAWN -------------------------------------------------------------------


def test_first_turn_of_each_player_is_spawn_only():
    s = InfexionState()
    assert len(s.legal_actions()) == 49
    assert all(a < 49 for a in s.legal_actions())
    play(s, "SPAWN(3, 3)")
    assert all(a < 49 for a in s.legal_actions()), "Blue owns nothing yet: only SPAWN"
    assert len(s.legal_actions()) == 48


def test_spawn_legal_at_total_power_48_and_illegal_at_49():
    row = [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (1, 0)]
    cells = {(r, q): (R if (r + q) % 2 else B, 6) for r, q in row}
    s = InfexionState(cells, turn=10)
    assert s.total_power == 48
    assert s.is_legal(parse_action("SPAWN(5, 5)"))
    play(s, "SPAWN(5, 5)")
    assert s.total_power == 49
    assert not s.is_legal(parse_action("SPAWN(4, 4)"))
    with pytest.raises(IllegalActionError) as err:
        s.apply_checked(parse_action("SPAWN(4, 4)"))
    assert "SPAWN(4, 4)" in str(err.value) and "49" in str(err.value)
    assert not any(a < 49 for a in s.legal_actions())


def test_spawn_on_occupied_cell_is_illegal_and_named():
    s = play(InfexionState(), "SPAWN(2, 3)")
    with pytest.raises(IllegalActionError, match=r"SPAWN\(2, 3\).*not empty"):
        s.apply_checked(parse_action("SPAWN(2, 3)"))


# -- SPREAD -------------------------------------------------------------------


def test_spread_places_one_token_per_cell_along_the_line():
    s = InfexionState({(3, 1): (R, 3), (0, 0): (B, 1)}, turn=4)
    play(s, "SPREAD(3, 1, 0, 1)")
    assert stacks(s) == {(3, 2): (R, 1), (3, 3): (R, 1), (3, 4): (R, 1), (0, 0): (B, 1)}


def test_spread_wraps_on_the_q_axis():
    s = InfexionState({(2, 5): (R, 4), (0, 0): (B, 1)}, turn=2)
    play(s, "SPREAD(2, 5, 0, 1)")
    assert stacks(s) == {(2, 6): (R, 1), (2, 0): (R, 1), (2, 1): (R, 1), (2, 2): (R, 1), (0, 0): (B, 1)}


def test_spread_wraps_on_the_r_axis_and_diagonally():
    # (6, 1) has neighbours (0, 1) and (0, 0) across the wrap, as the spec says.
    s = InfexionState({(6, 1): (R, 1), (3, 3): (B, 1)}, turn=2)
    play(s, "SPREAD(6, 1, 1, 0)")
    assert stacks(s)[(0, 1)] == (R, 1)
    s = InfexionState({(6, 1): (R, 1), (3, 3): (B, 1)}, turn=2)
    play(s, "SPREAD(6, 1, 1, -1)")
    assert stacks(s)[(0, 0)] == (R, 1)


def test_long_spread_wraps_on_both_axes():
    # Power 6 going (1, -1) from (5, 2): (6,1) (0,0) (1,6) (2,5) (3,4) (4,3).
    s = InfexionState({(5, 2): (B, 6), (3, 3): (R, 1)}, turn=3)
    play(s, "SPREAD(5, 2, 1, -1)")
    expected = {(6, 1), (0, 0), (1, 6), (2, 5), (3, 4), (4, 3)}
    assert {c for c, (o, p) in stacks(s).items() if o == B} == expected
    assert (5, 2) not in stacks(s)


def test_spread_increments_own_and_captures_opponent_stacks():
    s = InfexionState({(0, 0): (R, 2), (0, 1): (R, 2), (0, 2): (B, 4), (5, 5): (B, 1)}, turn=6)
    play(s, "SPREAD(0, 0, 0, 1)")
    assert stacks(s) == {(0, 1): (R, 3), (0, 2): (R, 5), (5, 5): (B, 1)}
    assert s.power(R) == 8 and s.power(B) == 1


def test_stack_of_six_is_removed_and_the_token_consumed():
    s = InfexionState({(1, 1): (R, 2), (1, 2): (B, 6), (1, 3): (R, 6), (4, 4): (B, 2)}, turn=8)
    play(s, "SPREAD(1, 1, 0, 1)")
    # (1,2) blue 6 vanishes, the token is used up, and the second token lands
    # on (1,3): red 6 + 1 vanishes too.
    assert stacks(s) == {(4, 4): (B, 2)}
    assert s.power(R) == 0 and s.power(B) == 2


def test_spread_from_empty_or_enemy_cell_is_illegal():
    s = InfexionState({(1, 1): (R, 2), (4, 4): (B, 2)}, turn=2)
    with pytest.raises(IllegalActionError, match="empty"):
        s.apply_checked(parse_action("SPREAD(2, 2, 0, 1)"))
    with pytest.raises(IllegalActionError, match="belongs to BLUE"):
        s.apply_checked(parse_action("SPREAD(4, 4, 0, 1)"))
    assert s.turn == 2, "a rejected action changes nothing"


# -- end of game ----------------------------------------------------------------


def test_no_result_before_both_players_have_moved():
    s = play(InfexionState(), "SPAWN(0, 0)")
    assert s.outcome is None  # Blue has no tokens, but has not moved yet


def test_elimination_by_the_mover():
    s = InfexionState({(0, 0): (R, 1), (0, 1): (B, 1)}, turn=4)
    play(s, "SPREAD(0, 0, 0, 1)")
    assert s.outcome == Outcome(R, "elimination")
    assert s.legal_actions() == []


def test_elimination_of_the_mover_by_its_own_spread():
    # Blue's only stack spreads into two sixes and vanishes with them;
    # Red keeps a stack elsewhere and wins.
    s = InfexionState({(2, 2): (B, 2), (2, 3): (R, 6), (2, 4): (R, 6), (5, 5): (R, 1)}, turn=5)
    play(s, "SPREAD(2, 2, 0, 1)")
    assert stacks(s) == {(5, 5): (R, 1)}
    assert s.outcome == Outcome(R, "elimination")


def test_elimination_leaving_winner_with_power_one_is_a_win():
    # The rules text: whoever controls all tokens wins. (The course referee
    # called this a draw because it applied the lead-by-2 test to it.)
    s = InfexionState({(0, 0): (R, 1), (0, 1): (B, 6), (4, 4): (R, 1)}, turn=4)
    play(s, "SPREAD(0, 0, 0, 1)")
    assert stacks(s) == {(4, 4): (R, 1)}
    assert s.outcome == Outcome(R, "elimination")
    s = InfexionState({(0, 0): (B, 1), (0, 1): (R, 6), (4, 4): (B, 1)}, turn=5)
    play(s, "SPREAD(0, 0, 0, 1)")
    assert stacks(s) == {(4, 4): (B, 1)}
    assert s.outcome == Outcome(B, "elimination")


def test_no_tokens_left_is_a_draw():
    s = InfexionState({(3, 3): (R, 1), (3, 4): (B, 6)}, turn=6)
    play(s, "SPREAD(3, 3, 0, 1)")
    assert stacks(s) == {}
    assert s.outcome == Outcome(None, "no_tokens")


def _near_limit(red: int, blue: int) -> InfexionState:
    # Two actions before the cutoff; the final two SPAWNs add 1 each.
    cells = {}
    for i, (player, power) in enumerate([(R, red - 1), (B, blue - 1)]):
        while power > 0:
            p = min(power, 6)
            cells[(i * 3 + len(cells) // 7, len(cells) % 7)] = (player, p)
            power -= p
    return InfexionState(cells, turn=341)


@pytest.mark.parametrize(
    "red, blue, outcome",
    [
        (10, 9, Outcome(None, "turn_limit")),  # lead of 1: draw
        (10, 8, Outcome(R, "turn_limit")),  # lead of 2: win
        (7, 9, Outcome(B, "turn_limit")),
        (9, 9, Outcome(None, "turn_limit")),
    ],
)
def test_action_limit_343_needs_a_lead_of_two(red, blue, outcome):
    s = _near_limit(red, blue)
    play(s, "SPAWN(6, 5)")
    assert s.outcome is None, "342 actions: not over yet"
    play(s, "SPAWN(6, 6)")
    assert s.turn == 343
    assert (s.power(R), s.power(B)) == (red, blue)
    assert s.outcome == outcome
    assert s.legal_actions() == []
    with pytest.raises(IllegalActionError, match="over"):
        s.apply_checked(parse_action("SPAWN(5, 5)"))


def test_elimination_on_the_last_action_counts_as_elimination():
    s = InfexionState({(0, 0): (R, 1), (0, 1): (B, 1), (6, 6): (R, 1)}, turn=342)
    play(s, "SPREAD(0, 0, 0, 1)")
    assert s.outcome == Outcome(R, "elimination")


# -- undo, copy, keys -------------------------------------------------------


def test_undo_restores_everything_and_refuses_past_the_start():
    s = InfexionState({(1, 1): (R, 2), (1, 2): (B, 6), (4, 4): (B, 2)}, turn=8)
    before = (s.to_text(), s.power(R), s.power(B), s.key())
    play(s, "SPREAD(1, 1, 0, 1)")
    s.undo()
    assert (s.to_text(), s.power(R), s.power(B), s.key()) == before
    with pytest.raises(IndexError):
        s.undo()


def test_key_depends_on_board_and_side_to_move():
    a = play(InfexionState(), "SPAWN(0, 0)", "SPAWN(1, 1)")
    b = play(InfexionState(), "SPAWN(0, 0)", "SPAWN(1, 1)")
    assert a.key() == b.key() and a == b
    c = InfexionState({(0, 0): (R, 1), (1, 1): (B, 1)}, turn=3)
    assert c.key() != a.key()  # same stacks, Blue to move


# -- notation -------------------------------------------------------------------


@pytest.mark.parametrize("text", ["SPAWN(0, 0)", "SPAWN(6, 6)", "SPREAD(3, 4, -1, 1)", "SPREAD(0, 6, 1, 0)"])
def test_action_text_round_trips(text):
    s = InfexionState()
    assert s.action_to_str(parse_action(text)) == text


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("SPAWN(7, 0)", "off the board"),
        ("SPREAD(1, 1, 1, 1)", "not a hex direction"),
        ("SPREAD(1, 1)", "needs a direction"),
        ("SPAWN(1, 1, 0, 1)", "cell only"),
        ("JUMP(1, 1)", "not an Infexion action"),
        ("", "not an Infexion action"),
    ],
)
def test_bad_action_text_says_what_is_wrong(text, fragment):
    with pytest.raises(NotationError, match=fragment):
        parse_action(text)


def test_parse_is_lenient_about_spaces_only():
    assert parse_action(" SPREAD( 1 ,2,0 , 1 ) ") == parse_action("SPREAD(1, 2, 0, 1)")
    with pytest.raises(NotationError):
        parse_action("spawn(1, 1)")


def test_position_text_round_trips_and_rejects_bad_text():
    s = InfexionState({(0, 0): (R, 6), (6, 6): (B, 1), (3, 2): (B, 4)}, turn=77)
    assert InfexionState.from_text(s.to_text()) == s
    for bad, fragment in [
        ("......./......./ 3", "7 rows"),
        ("r7....../......./......./......./......./......./....... 1", "unexpected"),
        ("......../......./......./......./......./......./....... 1", "8 cells"),
        ("......./......./......./......./......./......./....... x", "not a number"),
        ("......./......./......./......./......./......./....... 400", "outside"),
    ]:
        with pytest.raises(ValueError, match=fragment):
            InfexionState.from_text(bad)


def test_random_playout_cannot_be_undone_into_a_wrong_position():
    import random

    s = play(InfexionState(), "SPAWN(0, 0)", "SPAWN(1, 1)")
    s.random_playout(random.Random(3))
    assert s.is_over
    with pytest.raises(IndexError):
        s.undo()


def test_random_playout_is_random_actions_applied():
    import random

    for seed in range(5):
        fast = play(InfexionState(), "SPAWN(3, 3)")
        slow = fast.copy()
        rng = random.Random(seed)
        while not slow.is_over:
            slow.apply(slow.random_action(rng))
        assert fast.random_playout(random.Random(seed)) == slow.outcome
        assert fast.key() == slow.key() and fast.turn == slow.turn
