"""The course-compatible ``referee.game`` surface, as agents written for it use it."""
from __future__ import annotations

import copy
import dataclasses
import importlib
import random

import pytest

from referee.games.infexion import InfexionState


def test_names_importable_from_every_course_module_path():
    expected = {
        "referee.game": [
            "PlayerColor", "HexVec", "HexPos", "HexDir", "SpawnAction", "SpreadAction", "Action",
            "Board", "CellState", "BOARD_N", "MAX_TOTAL_POWER", "MAX_CELL_POWER", "MAX_TURNS",
            "WIN_POWER_DIFF", "PlayerException", "IllegalActionException",
        ],
        "referee.game.hex": ["HexVec", "HexPos", "HexDir"],
        "referee.game.board": ["Board", "CellState"],
        "referee.game.actions": ["Action", "SpawnAction", "SpreadAction"],
        "referee.game.player": ["PlayerColor"],
        "referee.game.constants": ["BOARD_N", "MAX_TOTAL_POWER", "MAX_CELL_POWER", "MAX_TURNS", "WIN_POWER_DIFF"],
        "referee.game.exceptions": ["PlayerException", "IllegalActionException"],
    }
    for module_name, names in expected.items():
        module = importlib.import_module(module_name)
        for name in names:
            assert hasattr(module, name), f"{module_name}.{name}"


def test_constants():
    from referee.game import BOARD_N, MAX_CELL_POWER, MAX_TOTAL_POWER, MAX_TURNS, WIN_POWER_DIFF

    assert (BOARD_N, MAX_TOTAL_POWER, MAX_CELL_POWER, MAX_TURNS, WIN_POWER_DIFF) == (7, 49, 6, 343, 2)


def test_player_color():
    from referee.game import PlayerColor

    assert PlayerColor.RED.value == 0 and PlayerColor.BLUE.value == 1
    assert PlayerColor.RED.opponent is PlayerColor.BLUE and PlayerColor.BLUE.opponent is PlayerColor.RED
    assert int(PlayerColor.RED) == 1 and int(PlayerColor.BLUE) == -1
    assert PlayerColor.RED.__index__() == 0 and ["a", "b"][PlayerColor.BLUE] == "b"
    assert str(PlayerColor.RED) == "RED" and str(PlayerColor.BLUE) == "BLUE"


def test_hex_vec_arithmetic():
    from referee.game import HexVec

    v = HexVec(1, 2)
    assert v + HexVec(3, -1) == HexVec(4, 1)
    assert v - HexVec(1, 1) == HexVec(0, 1)
    assert -v == HexVec(-1, -2)
    assert v * 3 == HexVec(3, 6)
    assert list(v) == [1, 2] and tuple(v) == (1, 2)
    assert dataclasses.is_dataclass(v)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.r = 5  # type: ignore[misc]


def test_hex_dir():
    from referee.game import HexDir, HexVec

    assert [(d.r, d.q) for d in HexDir] == [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)]
    assert [d.name for d in HexDir] == ["DownRight", "Down", "DownLeft", "UpLeft", "Up", "UpRight"]
    assert HexDir((0, 1)) is HexDir.DownRight and HexDir((1, -1)) is HexDir.Up
    assert HexDir(HexVec(-1, 0)) is HexDir.DownLeft
    assert -HexDir.Up is HexDir.Down and -HexDir.DownRight is HexDir.UpLeft
    assert HexDir.UpRight * 3 == HexVec(3, 0)
    with pytest.raises(ValueError):
        HexDir((1, 1))


def test_hex_pos_bounds_order_hash_wrap_and_str():
    from referee.game import HexDir, HexPos, HexVec

    with pytest.raises(ValueError):
        HexPos(7, 0)
    with pytest.raises(ValueError):
        HexPos(0, -1)
    assert HexPos(6, 1) + HexDir.UpRight == HexPos(0, 1)
    assert HexPos(6, 1) + HexDir.Up == HexPos(0, 0)
    assert HexPos(0, 0) - HexDir.DownRight == HexPos(0, 6)
    assert HexPos(3, 3) + HexDir.DownRight * 5 == HexPos(3, 1)
    assert HexPos(2, 2) + HexVec(-3, 9) == HexPos(6, 4)
    assert sorted([HexPos(2, 1), HexPos(0, 5), HexPos(2, 0)]) == [HexPos(0, 5), HexPos(2, 0), HexPos(2, 1)]
    assert len({HexPos(1, 1), HexPos(1, 1), HexPos(1, 2)}) == 2
    assert str(HexPos(4, 5)) == "4-5"


def test_actions_match_and_print():
    from referee.game import Action, HexDir, HexPos, SpawnAction, SpreadAction

    def describe(action: Action) -> str:
        match action:
            case SpawnAction(cell):
                return f"spawn {cell}"
            case SpreadAction(cell, direction):
                return f"spread {cell} {direction.name}"
        return "?"

    assert describe(SpawnAction(HexPos(3, 3))) == "spawn 3-3"
    assert describe(SpreadAction(HexPos(1, 2), HexDir.Down)) == "spread 1-2 Down"
    assert str(SpawnAction(HexPos(3, 4))) == "SPAWN(3, 4)"
    assert str(SpreadAction(HexPos(3, 4), HexDir.DownLeft)) == "SPREAD(3, 4, -1, 0)"
    assert isinstance(SpawnAction(HexPos(0, 0)), Action)
    assert SpreadAction(HexPos(1, 1), HexDir.Up) == SpreadAction(HexPos(1, 1), HexDir.Up)


def test_cell_state():
    from referee.game import CellState, PlayerColor

    empty = CellState()
    assert (empty.player, empty.power) == (None, 0)
    player, power = CellState(PlayerColor.BLUE, 4)
    assert (player, power) == (PlayerColor.BLUE, 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        empty.power = 3  # type: ignore[misc]


def test_board_plays_a_short_game():
    from referee.game import Board, CellState, HexDir, HexPos, IllegalActionException, PlayerColor
    from referee.game import PlayerException, SpawnAction, SpreadAction

    board = Board()
    assert board.turn_count == 0 and board.turn_color == PlayerColor.RED and not board.game_over
    assert board[HexPos(3, 3)] == CellState(None, 0)
    board.apply_action(SpawnAction(HexPos(3, 3)))
    board.apply_action(SpawnAction(HexPos(3, 4)))
    assert board.turn_color == PlayerColor.RED and board.turn_count == 2
    with pytest.raises(IllegalActionException) as err:
        board.apply_action(SpreadAction(HexPos(3, 4), HexDir.DownRight))
    assert isinstance(err.value, PlayerException)
    with pytest.raises(IllegalActionException):
        board.apply_action("SPAWN(1, 1)")  # type: ignore[arg-type]
    mutation = board.apply_action(SpreadAction(HexPos(3, 3), HexDir.DownRight))
    assert {m.cell for m in mutation.cell_mutations} == {HexPos(3, 3), HexPos(3, 4)}
    assert board[HexPos(3, 4)] == CellState(PlayerColor.RED, 2)
    assert board.game_over and board.winner_color == PlayerColor.RED
    undone = board.undo_action()
    assert undone.action == SpreadAction(HexPos(3, 3), HexDir.DownRight)
    assert not board.game_over and board[HexPos(3, 4)] == CellState(PlayerColor.BLUE, 1)


def test_board_from_initial_state_and_render():
    from referee.game import Board, CellState, HexPos, PlayerColor

    board = Board({HexPos(0, 0): CellState(PlayerColor.RED, 3), HexPos(6, 6): CellState(PlayerColor.BLUE, 6)})
    assert board[HexPos(0, 0)] == CellState(PlayerColor.RED, 3)
    assert board._total_power == 9
    text = board.render()
    assert "r3" in text and "b6" in text
    coloured = board.render(use_color=True, use_unicode=True)
    assert "\033[" in coloured and "R3" in coloured


def test_board_copies_are_independent():
    from referee.game import Board, HexPos, SpawnAction

    board = Board()
    board.apply_action(SpawnAction(HexPos(0, 0)))
    for clone in (copy.copy(board), copy.deepcopy(board)):
        clone.apply_action(SpawnAction(HexPos(1, 1)))
        assert clone.turn_count == 2 and board.turn_count == 1
        assert board[HexPos(1, 1)].player is None


def test_board_allows_simulating_past_the_end_like_the_course_board():
    from referee.game import Board, HexDir, HexPos, SpawnAction, SpreadAction

    board = Board()
    board.apply_action(SpawnAction(HexPos(0, 0)))
    board.apply_action(SpawnAction(HexPos(0, 1)))
    board.apply_action(SpreadAction(HexPos(0, 0), HexDir.DownRight))
    assert board.game_over
    board.apply_action(SpawnAction(HexPos(5, 5)))  # Blue, after the end: no error
    assert board.turn_count == 4


def test_board_agrees_with_engine_over_random_games():
    from referee.game import Board
    from referee.game.actions import from_engine_action

    for seed in range(8):
        rng = random.Random(seed)
        engine = InfexionState()
        board = Board()
        while not engine.is_over:
            action = rng.choice(engine.legal_actions())
            engine.apply(action)
            board.apply_action(from_engine_action(action))
            assert board.turn_count == engine.turn
            assert board.game_over == engine.is_over
            for r in range(7):
                for q in range(7):
                    from referee.game import HexPos

                    player, power = board[HexPos(r, q)]
                    owner, stack = engine.cell(r, q)
                    assert (None if player is None else player.value, power) == (owner, stack)
        outcome = engine.outcome
        assert (board.winner_color.value if board.winner_color else None) == outcome.winner
