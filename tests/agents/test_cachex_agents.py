"""The bundled agents on Cachex: legal play, forced wins, and the heuristics' reading of positions."""
from __future__ import annotations

import json
import random

import pytest

import agents.greedy
import agents.mcts
import agents.minimax
import agents.random_agent
from agents.common.agent import OptionError
from agents.common.heuristics import WIN, WIN_ZONE, heuristics_for
from agents.common.heuristics.cachex import NEAR_WIN, CachexHeuristics, capture_cells, geometry
from referee.cachex import PlaceAction, PlayerColor, StealAction, to_engine_action
from referee.games import load_game
from referee.games.base import BLUE, RED
from referee.games.cachex import STEAL, STRIDE, CachexState
from tests.helpers import run_referee

COLORS = (PlayerColor.RED, PlayerColor.BLUE)
MODULES = {
    "random": agents.random_agent,
    "greedy": agents.greedy,
    "minimax": agents.minimax,
    "mcts": agents.mcts,
}
#: Options that keep in-process games quick: a short clock per move.
QUICK = {"random": {}, "greedy": {}, "minimax": {"move_time": 0.01}, "mcts": {"move_time": 0.01}}


def make_agent(name: str, color: int, n: int, seed: int, **options):
    return MODULES[name].Agent(COLORS[color], game="cachex", game_options={"n": n}, n=n, seed=seed, **options)


def play(red: str, blue: str, n: int, seed: int) -> CachexState:
    """One game driven as the referee does; every action is checked before it is applied."""
    players = [make_agent(name, color, n, seed, **QUICK[name]) for color, name in enumerate((red, blue))]
    state = CachexState(n)
    while not state.is_over:
        mover = state.current_player
        action = players[mover].action()
        assert type(action) in (PlaceAction, StealAction), action
        engine_action = to_engine_action(action)
        assert state.is_legal(engine_action), f"{(red, blue)[mover]} played illegal {action} in {state.to_text()}"
        state.apply(engine_action)
        for player in players:
            player.turn(COLORS[mover], action)
    return state


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_agent_plays_only_legal_actions(n):
    lineup = [("greedy", "random"), ("random", "minimax"), ("mcts", "random"), ("minimax", "mcts"),
              ("mcts", "greedy"), ("greedy", "minimax")]
    for seed, (red, blue) in enumerate(lineup):
        state = play(red, blue, n, seed)
        assert state.outcome.reason in ("connection", "repetition", "turn_limit")


def test_search_agents_beat_random_on_a_bigger_even_board():
    # n = 6: even (no centre rule); the search agents should win as either colour.
    for seed, (red, blue, searcher) in enumerate([("minimax", "random", RED), ("random", "mcts", BLUE)]):
        state = play(red, blue, 6, seed)
        assert state.outcome.winner == searcher, state.render()


def test_a_game_through_the_referee_ends_by_the_rules(tmp_path):
    path = tmp_path / "game.json"
    proc = run_referee(
        "--game", "cachex", "-n", "5", "-t", "2", "-s", "250", "-v", "0",
        "--seed", "3", "--record", str(path), "agents.minimax", "agents.mcts", timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads(path.read_text())
    assert record["error"] == {"RED": None, "BLUE": None}, record["message"]
    assert record["reason"] in ("connection", "repetition", "turn_limit")
    state = CachexState(5)
    for text in record["actions"]:
        state.apply_checked(state.parse_action(text))
    assert state.outcome.reason == record["reason"] and state.outcome.winner_name == record["winner"]


# -- forced wins ------------------------------------------------------------------


def mirrored(state: CachexState) -> CachexState:
    """The same position with the board transposed and the colours swapped (the other side to move).

    Transposing swaps Red's sides for Blue's, so this is the same game with
    the players' roles exchanged.
    """
    cells = {(q, r): 1 - player for r, q, player in state.cells()}
    return CachexState(state.n, cells, state.turn + 1)


def wins_now(state: CachexState) -> list[int]:
    me = state.current_player
    won = []
    for action in state.legal_actions():
        state.apply(action)
        if state.outcome is not None and state.outcome.winner == me:
            won.append(action)
        state.undo()
    return won


def forces_win_in_two(state: CachexState, action: int) -> bool:
    """Whether ``action`` wins at once or leaves every reply a position the mover wins at once."""
    me = state.current_player
    state.apply(action)
    try:
        if state.outcome is not None:
            return state.outcome.winner == me
        for reply in state.legal_actions():
            state.apply(reply)
            try:
                if state.outcome is not None or not wins_now(state):
                    return False
            finally:
                state.undo()
        return True
    finally:
        state.undo()


# Red one stone from the bottom side (two cells finish it); Blue far off.
WIN_IN_ONE = CachexState(5, {(0, 1): RED, (1, 1): RED, (2, 1): RED, (3, 1): RED,
                             (0, 4): BLUE, (1, 4): BLUE, (2, 4): BLUE, (4, 4): BLUE}, 8)
# Red needs two stones: (3, 1) or (3, 2) makes two threats on the last row.
WIN_IN_TWO = CachexState(5, {(0, 2): RED, (1, 2): RED, (2, 2): RED,
                             (0, 4): BLUE, (4, 4): BLUE, (1, 0): BLUE}, 6)


def searchers(color: int, n: int):
    yield "minimax", make_agent("minimax", color, n, 1, move_time=30.0, depth=3)
    yield "mcts", make_agent("mcts", color, n, 1, move_time=30.0, iterations=3000)


def choose_in(agent, state: CachexState) -> int:
    """What ``agent`` plays in ``state``: its view is set to the position directly."""
    agent.view.state = state.copy()
    return to_engine_action(agent.action())


@pytest.mark.parametrize("flip", [False, True])
def test_search_agents_take_a_win_in_one(flip):
    state = mirrored(WIN_IN_ONE) if flip else WIN_IN_ONE
    winning = wins_now(state)
    assert winning
    for name, agent in searchers(state.current_player, state.n):
        assert choose_in(agent, state) in winning, name


@pytest.mark.parametrize("flip", [False, True])
def test_search_agents_find_a_forced_win_in_two(flip):
    state = mirrored(WIN_IN_TWO) if flip else WIN_IN_TWO
    assert not wins_now(state)  # so the win really takes two moves
    assert any(forces_win_in_two(state, a) for a in state.legal_actions())
    for name, agent in searchers(state.current_player, state.n):
        action = choose_in(agent, state)
        assert forces_win_in_two(state, action), (name, state.action_to_str(action))
        if name == "minimax":
            assert agent.last.value > WIN - WIN_ZONE
        else:
            assert agent.last.proven == 1


# -- the heuristics ---------------------------------------------------------------


def random_positions(n: int, count: int, seed: int) -> list[CachexState]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = CachexState(n)
        stop = rng.randrange(2, n * n)
        while not state.is_over and state.turn < stop:
            state.apply(state.random_action(rng))
        if not state.is_over:
            out.append(state)
    return out


def test_registered_for_cachex_and_options_checked():
    game = load_game("cachex", n=5)
    assert isinstance(heuristics_for(game), CachexHeuristics)
    assert heuristics_for(game, distance="one", weight=50).weight == 50
    with pytest.raises(TypeError):
        heuristics_for(game, wieght=50)
    with pytest.raises(TypeError):
        heuristics_for(game, distance="three")
    with pytest.raises(OptionError, match="heuristics"):
        make_agent("minimax", RED, 5, 0, heuristics={"bogus": 1})


@pytest.mark.parametrize("distance", ["two", "one"])
def test_evaluation_is_the_same_for_the_mirrored_game(distance):
    # Transposing the board and swapping the colours exchanges the players'
    # roles exactly, so the mover's value cannot change.
    h = CachexHeuristics(distance=distance)
    for n in (3, 4, 7, 10):
        for state in random_positions(n, 12, n):
            other = mirrored(state)
            assert h.evaluate(other) == h.evaluate(state), state.to_text()
            mine, theirs = h.both_levels(state)
            other_mine, other_theirs = h.both_levels(other)
            assert (mine.distance, theirs.distance) == (other_mine.distance, other_theirs.distance)


def test_distances_on_hand_made_positions():
    h = CachexHeuristics(distance="one")
    empty = CachexState(7)
    mine, theirs = h.both_levels(empty)
    assert mine.distance == theirs.distance == 7
    # Red's column of four on a 5x5 board: one stone to go; Blue must go
    # round it on the last row, (4, 0) to (4, 3), to reach its stone (4, 4).
    mine, theirs = h.both_levels(WIN_IN_ONE)
    assert mine.distance == 1 and mine.connects_now()
    assert theirs.distance == 4
    # A red row along Blue's direction blocks nothing: Blue goes along row 0.
    row = CachexState(4, {(1, 0): RED, (1, 1): RED, (1, 2): RED, (1, 3): RED, (0, 0): BLUE}, 6)
    assert h.both_levels(row)[1].distance == 3
    two = CachexHeuristics(distance="two")
    # Two-distance: cells need two neighbours one level nearer, so it is
    # more than the plain distance (8 on the empty 7x7 board); a stone in
    # the centre brings its owner closer and the opponent no closer.
    mine, theirs = two.both_levels(empty)
    assert mine.distance == theirs.distance == 8
    centre = CachexState(7, {(3, 3): RED}, 1)
    blue, red = two.both_levels(centre)
    assert red.distance < 8 <= blue.distance


def test_evaluation_prefers_the_side_closer_to_connecting():
    h = CachexHeuristics()
    assert h.evaluate(WIN_IN_ONE) == NEAR_WIN
    assert h.evaluate(mirrored(WIN_IN_ONE)) == NEAR_WIN
    # The same position with Blue to move: Blue has one move to stop two
    # winning cells and cannot; valued as lost.
    blue_to_move = CachexState(5, dict(((r, q), p) for r, q, p in WIN_IN_ONE.cells()), 9)
    assert h.evaluate(blue_to_move) <= -NEAR_WIN // 2
    # Red's chain of three against Blue's scattered stones: good for Red
    # whoever moves, and better with Red to move.
    red_view = h.evaluate(WIN_IN_TWO)
    blue_view = h.evaluate(CachexState(5, dict(((r, q), p) for r, q, p in WIN_IN_TWO.cells()), 7))
    assert red_view > 0 > blue_view
    assert red_view > -blue_view
    # A stone in the middle is worth more than one in an acute corner.
    centre = CachexState(7, {(3, 3): RED, (0, 0): BLUE}, 2)
    assert h.evaluate(centre) > 0


def test_masks_and_captures_agree_with_the_engine():
    for n in (3, 5, 8, 15):
        geo = geometry(n)
        for state in random_positions(n, 10, 100 + n):
            red, blue, empty = geo.masks(state)
            for r, q, player in state.cells():
                assert (red, blue)[player] >> geo.pos_of[r * 16 + q] & 1
            assert red.bit_count() + blue.bit_count() == sum(state.stones)
            assert empty.bit_count() == n * n - sum(state.stones)
            me = state.current_player
            own, other = (red, blue) if me == RED else (blue, red)
            found = {geo.action_of[pos] for pos in capture_cells(geo, own, other, empty)}
            really = set()
            for action in state.legal_actions():
                if action == STEAL:
                    continue
                before = sum(state.stones)
                state.apply(action)
                if sum(state.stones) < before + 1:
                    really.add(action)
                state.undo()
            assert found == really, state.to_text()


def value_after(h: CachexHeuristics, state: CachexState, action: int) -> int:
    """The mover's value of ``action`` one move deep."""
    me = state.current_player
    state.apply(action)
    try:
        if state.outcome is not None:
            return 0 if state.outcome.winner is None else 2 * NEAR_WIN if state.outcome.winner == me else -2 * NEAR_WIN
        return -h.evaluate(state)
    finally:
        state.undo()


def test_red_opens_on_its_edge_towards_an_acute_corner():
    """Red's first move, on boards from 5, is one of its edge cells from the middle to an acute corner: the
    ordering (full or pruned) offers nothing else, so both searches play one; with the option off, every cell."""
    for n, expected in (
        (5, {(0, 1), (0, 2), (4, 2), (4, 3)}),
        (7, {(0, 1), (0, 2), (0, 3), (6, 3), (6, 4), (6, 5)}),
    ):
        state = CachexState(n)
        for prune in (False, True):
            offered = CachexHeuristics().ordered_actions(state, random.Random(n), prune=prune)
            assert {divmod(a, STRIDE) for a in offered} == expected
        everything = CachexHeuristics(edge_opening=False).ordered_actions(state, prune=False)
        assert sorted(everything) == sorted(state.legal_actions())
        state.apply(offered[0])
        assert len(CachexHeuristics().ordered_actions(state, prune=False)) == n * n  # Blue: every cell and the steal
    # Smaller boards are searched to the end: every first move.
    small = CachexState(4)
    assert sorted(CachexHeuristics().ordered_actions(small, prune=False)) == sorted(small.legal_actions())
    for name in ("mcts", "minimax"):
        first = make_agent(name, RED, 5, seed=1, move_time=0.05).action()
        assert isinstance(first, PlaceAction) and (first.r, first.q) in {(0, 1), (0, 2), (4, 2), (4, 3)}


def test_ordering_priors_and_tactics():
    h = CachexHeuristics(lookahead=10, edge_opening=False)
    for n in (3, 4, 6, 9, 15):
        for state in random_positions(n, 6, 200 + n) + [CachexState(n)]:
            legal = state.legal_actions()
            before = state.to_text()
            full = h.ordered_actions(state, random.Random(1), prune=False)
            assert state.to_text() == before  # looking ahead leaves the position as it was
            assert sorted(full) == sorted(legal)
            score = h.scores(state)
            by_score = sorted(score.values(), reverse=True)
            # The full list: the best-scored actions ranked by their value
            # one move deep, then the others by score.
            head, rest = full[:10], full[10:]
            assert sorted((score[a] for a in head), reverse=True) == by_score[: len(head)]
            values = [value_after(h, state, a) for a in head]
            assert values == sorted(values, reverse=True)
            assert [score[a] for a in rest] == by_score[len(head):]
            # Pruned (below a search's root): by score, the best kept.
            pruned = h.ordered_actions(state)
            assert len(pruned) == min(len(legal), h.width + (state.turn == 1))
            assert [score[a] for a in pruned if a != STEAL] == by_score[: len(pruned) - (STEAL in pruned)]
            priors = h.priors(state, full)
            assert len(priors) == len(full) and abs(sum(priors) - 1) < 1e-9
            assert all(p > 0 for p in priors)
            # Looked-at actions get priors in the order of their values.
            assert all(priors[i] >= priors[i + 1] for i in range(len(head) - 1))
            assert set(h.tactical_actions(state)) <= set(legal)
            assert 2 <= h.moves_left(state) <= n * n
    # A winning cell is ordered first; the steal is offered on Blue's first move.
    assert h.ordered_actions(WIN_IN_ONE)[0] in wins_now(WIN_IN_ONE)
    after_centre = CachexState(5, {(2, 1): RED}, 1)
    assert STEAL in h.ordered_actions(after_centre, prune=False)


# Blue's row needs one more stone, at (2, 4) or (1, 4): Red cannot block
# both, but Red's (3, 1) with (1, 2) captures (2, 1) and (2, 2).
SAVED_BY_CAPTURE = CachexState(5, {(2, 0): BLUE, (2, 1): BLUE, (2, 2): BLUE, (2, 3): BLUE,
                                   (1, 2): RED, (0, 4): RED, (4, 0): RED, (3, 3): RED}, 8)


def test_captures_are_seen_by_the_evaluation_and_played():
    h = CachexHeuristics()
    state = SAVED_BY_CAPTURE.copy()
    capture = 3 * 16 + 1
    assert h.tactical_actions(state) == [capture]
    assert h.static_value(state) == -NEAR_WIN // 2  # two cells to stop, one move
    assert h.evaluate(state) == value_after(h, state, capture) > 0
    assert CachexHeuristics(captures=0).evaluate(state) == -NEAR_WIN // 2
    assert h.ordered_actions(state, prune=False)[0] == capture
    assert h.ordered_actions(state)[0] == capture
    for name, options in (("greedy", {}), ("minimax", {"depth": 3}), ("mcts", {"iterations": 300})):
        agent = make_agent(name, RED, 5, 0, move_time=30.0, **options)
        assert choose_in(agent, state) == capture, name


def test_a_capture_that_repeats_the_board_a_seventh_time_is_a_draw():
    # The 3x3 cycle from docs/cachex.md: after 40 actions Red's capture on
    # (1, 1) would bring the board back for the 7th time.
    state = CachexState(3)
    head = ["PLACE(0, 0)", "PLACE(2, 0)", "PLACE(0, 2)", "PLACE(2, 2)", "PLACE(1, 1)"]
    lap = ["PLACE(1, 2)", "PLACE(1, 0)", "PLACE(0, 1)", "PLACE(0, 2)", "PLACE(1, 0)", "PLACE(1, 1)"]
    for text in (head + lap * 6)[:40]:
        state.apply_checked(state.parse_action(text))
    h = CachexHeuristics()
    assert h.tactical_actions(state) == [1 * 16 + 1]
    assert h.static_value(state) == -NEAR_WIN // 2  # Blue has two connecting cells
    assert h.evaluate(state) == 0  # the capture only draws
