"""Course agents' habits that must work here: numbers that are not ``int``,
and the course ``Board``'s private ``_state`` and helpers."""
from __future__ import annotations

import copy
import json
import pickle
import random

import pytest

from referee.game import (
    Board,
    CellState,
    HexDir,
    HexPos,
    HexVec,
    IllegalActionException,
    PlayerColor,
    SpawnAction,
    SpreadAction,
)
from referee.game.actions import to_engine_action
from referee.games.infexion import InfexionState
from tests.game.fixture_agents.index_numbers import Index, rebuilt
from tests.helpers import run_referee

RED, BLUE = PlayerColor.RED, PlayerColor.BLUE


def play(*args: str) -> dict:
    """One game through the real CLI; its record."""
    proc = run_referee("-v", "0", "--record", "-", *args, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# -- whole numbers of any type ---------------------------------------------------


def test_hex_types_store_whole_numbers_as_int():
    pos = HexPos(Index(2), Index(0))
    assert pos == HexPos(2, 0) and hash(pos) == hash(HexPos(2, 0)) and str(pos) == "2-0"
    assert type(pos.r) is int and type(pos.q) is int
    assert HexVec(Index(-1), Index(3)) == HexVec(-1, 3)
    assert HexDir((Index(0), Index(1))) is HexDir.DownRight
    assert HexDir([1, -1]) is HexDir.Up  # any pair, as the course's HexDir took
    assert HexDir(HexVec(Index(-1), Index(0))) is HexDir.DownLeft
    assert HexDir.Up * Index(3) == HexVec(3, -3)
    assert pos + HexDir.Down * Index(2) == HexPos(0, 2)
    with pytest.raises(ValueError):
        HexPos(Index(7), 0)
    with pytest.raises(ValueError):
        HexDir((Index(1), Index(1)))


def test_infexion_actions_from_index_numbers_convert_to_plain_ids():
    spawn = SpawnAction(HexPos(Index(3), Index(3)))
    spread = SpreadAction(HexPos(Index(2), Index(0)), HexVec(Index(1), Index(0)))
    assert to_engine_action(spawn) == 24 and type(to_engine_action(spawn)) is int
    assert to_engine_action(spread) == to_engine_action(SpreadAction(HexPos(2, 0), HexDir.UpRight))
    assert type(to_engine_action(spread)) is int
    # Not whole numbers: not an action (the agent loses by illegal_action, clearly).
    assert to_engine_action(SpawnAction(HexPos(2.0, 0))) is None
    assert to_engine_action(SpreadAction(HexPos(2, 0), HexVec(0.5, 0))) is None


def test_cachex_and_infinitron_commands_take_index_numbers():
    from referee.cachex import PlaceAction, from_legacy
    from referee.cachex import to_engine_action as cachex_action
    from referee.games.cachex.engine import cell_index
    from referee.infinitron import Build, Cell, Define, Move
    from referee.infinitron import to_engine_action as infinitron_action

    place = PlaceAction(Index(1), Index(2))
    assert place == PlaceAction(1, 2) and str(place) == "PLACE(1, 2)"
    assert cachex_action(place) == cell_index(1, 2)
    assert from_legacy(("PLACE", Index(1), Index(2))) == cell_index(1, 2)
    assert cachex_action(PlaceAction(True, 2)) is None  # bool is refused in Cachex: a slip, not a number
    assert infinitron_action(Build(Index(0), (Index(3), Index(-1)))) == infinitron_action(Build(0, (3, -1)))
    assert infinitron_action(Move(Index(4), Cell(Index(2), Index(0)))) == infinitron_action(Move(4, Cell(2, 0)))
    assert infinitron_action(Define(Index(1), Index(2), Index(3), "MEDIUM", "NONE")) == infinitron_action(
        Define(1, 2, 3, "MEDIUM", "NONE")
    )
    assert infinitron_action(Build(0, (3.0, -1))) is None


def test_the_fixture_really_rebuilds_with_index_numbers():
    action = rebuilt(SpreadAction(HexPos(2, 0), HexDir.Up))
    assert isinstance(action, SpreadAction) and action.cell == HexPos(2, 0) and action.direction is HexDir.Up
    from referee.infinitron import Build

    build = rebuilt(Build(0, (3, -1)))
    assert isinstance(build.template, Index) and all(isinstance(x, Index) for x in build.cell)


@pytest.mark.parametrize("game", [["--game", "infexion"], ["--game", "cachex", "-n", "5"], ["--game", "infinitron"]])
def test_agent_building_actions_from_index_numbers_plays_whole_games(game):
    # The course referee took HexPos(np.int64(2), np.int64(0)); here such an
    # agent once lost by protocol_error ("not an Infexion action: 'np.int64(201)'").
    for colours in (("tests.game.fixture_agents.index_numbers", "agents.random_agent"),
                    ("agents.random_agent", "tests.game.fixture_agents.index_numbers")):
        record = play(*game, "--seed", "3", *colours)
        assert record["error"] == {"RED": None, "BLUE": None}, record["message"]
        assert record["reason"] not in ("illegal_action", "protocol_error", "agent_error")


# -- the course Board's _state -------------------------------------------------------


def test_cell_state_power_of_any_integer_type():
    assert CellState(RED, Index(3)) == CellState(RED, 3) and type(CellState(RED, Index(3)).power) is int
    board = Board({HexPos(1, 1): CellState(BLUE, Index(2))})
    assert board._total_power == 2


def keys(board: Board) -> list[str]:
    return [str(cell) for cell in board._state]


def test_state_holds_only_touched_cells_in_the_order_first_touched():
    board = Board()
    assert keys(board) == [] and len(board._state) == 0
    board.apply_action(SpawnAction(HexPos(3, 3)))
    assert board[HexPos(0, 0)] == CellState()  # reading touches
    board.apply_action(SpawnAction(HexPos(3, 4)))
    assert keys(board) == ["3-3", "0-0", "3-4"]
    board.apply_action(SpreadAction(HexPos(3, 3), HexDir.DownRight))
    assert dict(board._state) == {
        HexPos(3, 3): CellState(), HexPos(0, 0): CellState(), HexPos(3, 4): CellState(RED, 2)
    }  # an emptied cell stays, as an empty CellState
    board.apply_action(SpawnAction(HexPos(1, 1)))
    # A SPREAD touches its cell, then the cells it reaches, nearest first.
    board.apply_action(SpreadAction(HexPos(3, 4), HexDir.Up))
    assert keys(board) == ["3-3", "0-0", "3-4", "1-1", "4-3", "5-2"]
    assert board._state[HexPos(5, 2)] == CellState(RED, 1)
    # Undo puts values back and leaves the keys.
    board.undo_action()
    assert keys(board) == ["3-3", "0-0", "3-4", "1-1", "4-3", "5-2"]
    assert board._state[HexPos(5, 2)] == CellState() and board._state[HexPos(3, 4)] == CellState(RED, 2)


def test_state_reads_and_refused_actions_touch_as_the_course_board_did():
    board = Board({HexPos(6, 6): CellState(BLUE, 2), HexPos(0, 1): CellState()})
    assert keys(board) == ["6-6", "0-1"]  # the initial state, empty cells included
    assert board._state[HexPos(2, 2)] == CellState()  # a defaultdict: reading inserts
    assert keys(board) == ["6-6", "0-1", "2-2"]
    with pytest.raises(IllegalActionException):
        board.apply_action(SpreadAction(HexPos(4, 4), HexDir.Up))  # Red's SPREAD of an empty cell
    assert keys(board)[-1] == "4-4"
    with pytest.raises(IllegalActionException):
        board.apply_action("SPAWN(1, 1)")  # type: ignore[arg-type]  # not an action: nothing touched
    assert keys(board)[-1] == "4-4"
    full = Board({HexPos(r, q): CellState(RED if r % 2 else BLUE, 1) for r in range(7) for q in range(7)})
    del full._state[HexPos(0, 0)]  # the board now holds power 48 ...
    full._state[HexPos(0, 1)] = CellState(RED, 2)  # ... and 49 again
    with pytest.raises(IllegalActionException):
        full.apply_action(SpawnAction(HexPos(0, 0)))  # refused for the total power, before touching the cell
    assert HexPos(0, 0) not in full._state


def test_writing_state_changes_the_board_and_undo_keeps_later_writes():
    board = Board()
    board.apply_action(SpawnAction(HexPos(3, 3)))
    board._state[HexPos(5, 5)] = CellState(BLUE, 4)
    assert board[HexPos(5, 5)] == CellState(BLUE, 4)
    assert board._total_power == 5 and board._color_power(BLUE) == 4
    assert board._player_cells(BLUE) == [CellState(BLUE, 4)]
    board.undo_action()  # only the action's own cell goes back, as in the course
    assert board[HexPos(3, 3)] == CellState() and board[HexPos(5, 5)] == CellState(BLUE, 4)
    board.apply_action(SpawnAction(HexPos(1, 1)))
    board.apply_action(SpreadAction(HexPos(5, 5), HexDir.DownRight))  # Blue spreads its written stack
    assert [board[HexPos(5, q)] for q in (6, 0, 1, 2)] == [CellState(BLUE, 1)] * 4
    del board._state[HexPos(5, 6)]
    assert board[HexPos(5, 6)] == CellState() and board._color_power(BLUE) == 3
    board._state.update({HexPos(2, 2): CellState(RED, 6)})
    assert board._total_power == 10
    board._state.pop(HexPos(2, 2))
    assert board._total_power == 4
    board._state.clear()
    assert board._total_power == 0 and keys(board) == []
    board._state = {HexPos(0, 0): CellState(RED, 3)}  # replacing it replaces the board
    assert board._total_power == 3 and keys(board) == ["0-0"]


def test_state_copies_are_detached_and_boards_copy_and_pickle_with_it():
    board = Board()
    board.apply_action(SpawnAction(HexPos(3, 3)))
    board[HexPos(0, 0)]
    for snapshot in (board._state.copy(), copy.copy(board._state), copy.deepcopy(board._state)):
        snapshot[HexPos(1, 1)] = CellState(BLUE, 2)
        assert board[HexPos(1, 1)] == CellState()
    assert HexPos(1, 1) in board._state  # reading it above touched it
    original = keys(board)
    for clone in (copy.copy(board), copy.deepcopy(board), pickle.loads(pickle.dumps(board))):
        assert keys(clone) == original
        clone._state[HexPos(2, 2)] = CellState(RED, 1)
        clone.apply_action(SpawnAction(HexPos(4, 4)))
        assert clone[HexPos(2, 2)] == CellState(RED, 1) and board.engine.cell(2, 2) == (None, 0)
        assert keys(clone) == original + ["2-2", "4-4"] and clone.turn_count == 2
        assert keys(board) == original and board.turn_count == 1


def test_a_kept_reference_to_state_stays_live():
    board = Board()
    state = board._state  # kept, as an agent may keep it
    board.apply_action(SpawnAction(HexPos(3, 3)))
    board.apply_action(SpawnAction(HexPos(3, 4)))
    board.apply_action(SpreadAction(HexPos(3, 3), HexDir.DownRight))
    assert state[HexPos(3, 4)] == CellState(RED, 2)
    assert list(state.values()) == [CellState(), CellState(RED, 2)]
    board.undo_action()
    assert dict(state.items()) == {HexPos(3, 3): CellState(RED, 1), HexPos(3, 4): CellState(BLUE, 1)}
    assert state.get(HexPos(3, 4)) == CellState(BLUE, 1) and state.get(HexPos(0, 0)) is None


def test_state_follows_the_engine_changed_directly():
    board = Board()
    board.engine.apply(InfexionState().parse_action("SPAWN(2, 2)"))
    assert board[HexPos(2, 2)] == CellState(RED, 1)
    assert board._state[HexPos(2, 2)] == CellState(RED, 1)


def test_course_helpers_validate_and_resolve_without_applying():
    board = Board()
    board.apply_action(SpawnAction(HexPos(3, 3)))
    board.apply_action(SpawnAction(HexPos(3, 4)))
    before = dict(board._state)
    mutation = board._resolve_spread_action(SpreadAction(HexPos(3, 3), HexDir.DownRight))
    assert {(str(m.cell), m.next) for m in mutation.cell_mutations} == {
        ("3-3", CellState()), ("3-4", CellState(RED, 2))
    }
    assert dict(board._state) == before and board.turn_count == 2
    assert board._resolve_spawn_action(SpawnAction(HexPos(0, 0))).cell_mutations
    assert HexPos(0, 0) in board._state and board[HexPos(0, 0)] == CellState()
    for bad in (
        lambda: board._resolve_spawn_action(SpreadAction(HexPos(3, 3), HexDir.Up)),
        lambda: board._resolve_spread_action(SpreadAction(HexPos(3, 3), HexVec(0, 1))),
        lambda: board._validate_action_pos_input((1, 1)),
        lambda: board._resolve_spread_action(SpreadAction(HexPos(3, 4), HexDir.Up)),  # Blue's cell
    ):
        with pytest.raises(IllegalActionException):
            bad()
    assert board._within_bounds((6, 0)) and not board._within_bounds((7, 0))
    assert board._turn_color == RED and len(board._history) == 2
    assert board._history[-1].action == SpawnAction(HexPos(3, 4))


def engine_cell(engine: InfexionState, cell: HexPos) -> CellState:
    owner, power = engine.cell(cell.r, cell.q)
    return CellState() if owner is None else CellState(PlayerColor(owner), power)


def test_state_agrees_with_the_engine_over_random_games():
    from referee.game.actions import from_engine_action

    for seed in range(5):
        rng = random.Random(seed)
        board = Board()
        engine = InfexionState()
        while not engine.is_over:
            action = rng.choice(engine.legal_actions())
            engine.apply(action)
            board.apply_action(from_engine_action(action))
            if rng.random() < 0.2:
                board.undo_action()
                engine.undo()
            assert all(state == engine_cell(engine, cell) for cell, state in board._state.items())
            occupied = {HexPos(r, q) for r, q, _, _ in engine.cells()}
            assert occupied <= set(board._state)


def test_agent_iterating_state_for_its_cells_plays_whole_games():
    # It spawns on the first cell the board never touched: with every cell
    # in _state it found none and lost by agent_error (IndexError).
    agent = "tests.game.fixture_agents.course_state"
    as_red = play("--seed", "4", agent, "agents.random_agent")
    as_blue = play("--seed", "4", "agents.random_agent", agent)
    for record in (as_red, as_blue):
        assert record["error"] == {"RED": None, "BLUE": None}, record["message"]
        assert record["reason"] in ("elimination", "turn_limit", "no_tokens")
    assert as_red["actions"][0] == "SPAWN(0, 0)"
    # As Blue, the cell Red spawned on is touched: the first untouched one is next.
    first = InfexionState().parse_action(as_blue["actions"][0])
    expected = "SPAWN(0, 1)" if first == 0 else "SPAWN(0, 0)"
    assert as_blue["actions"][1] == expected


def test_engine_set_cell_keeps_the_powers_and_refuses_non_stacks():
    engine = InfexionState()
    engine.set_cell(0, 3)
    engine.set_cell(1, 8 | 5)
    engine.set_cell(0, 8 | 1)
    assert (engine.red_power, engine.blue_power) == (0, 6)
    for bad in (7, 8, 15, 16):
        with pytest.raises(ValueError):
            engine.set_cell(2, bad)
