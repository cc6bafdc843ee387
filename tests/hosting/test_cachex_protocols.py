"""Cachex through the real referee: our protocol and the course's 2022 one."""
from __future__ import annotations

import json
import os
import random
from array import array
from pathlib import Path

import pytest

from referee.games.cachex import CachexState
from referee.games.cachex.engine import cell_index
from tests.sandboxing import require_sandbox
from tests.helpers import ROOT, run_referee

LEGACY = "tests.hosting.fixture_agents.cachex2022"


def play(tmp_path: Path, red: str, blue: str, *options: str) -> dict:
    path = tmp_path / "game.json"
    proc = run_referee("--game", "cachex", "-v", "1", "--record", str(path), *options, red, blue)
    assert proc.returncode == 0, proc.stderr
    return json.loads(path.read_text())


def replayed(record: dict) -> CachexState:
    state = CachexState(record["game_options"]["n"])
    for text in record["actions"]:
        state.apply_checked(state.parse_action(text))
    return state


def test_2022_player_plays_a_full_game_unchanged(tmp_path):
    for n in (5, 7):
        record = play(tmp_path, "agents.random_agent", LEGACY, "-n", str(n), "--seed", str(n))
        assert record["error"] == {"RED": None, "BLUE": None}, record["message"]
        assert record["reason"] in ("connection", "repetition", "turn_limit")
        assert record["actions"][1] == "STEAL"  # the 2022 agent steals as Blue
        outcome = replayed(record).outcome
        assert outcome.reason == record["reason"] and outcome.winner_name == record["winner"]


def test_2022_player_as_red_and_explicit_class(tmp_path):
    record = play(tmp_path, f"{LEGACY}:Player", "agents.random_agent", "-n", "5", "--seed", "2")
    assert record["error"] == {"RED": None, "BLUE": None}, record["message"]
    assert record["reason"] in ("connection", "repetition", "turn_limit")


def test_2022_player_returning_a_bad_tuple_loses_with_the_reason(tmp_path):
    bad = tmp_path / "bad2022.py"
    bad.write_text(
        "class Player:\n"
        "    def __init__(self, player, n): pass\n"
        "    def action(self): return ['PLACE', 1, 1]\n"
        "    def turn(self, player, action): pass\n"
    )
    path = tmp_path / "game.json"
    proc = run_referee(
        "--game", "cachex", "-n", "5", "-v", "0", "--record", str(path), "bad2022", "agents.random_agent",
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads(path.read_text())
    assert (record["winner"], record["reason"]) == ("BLUE", "illegal_action")
    assert "expected a tuple" in record["error"]["RED"]["message"]


def test_a_place_off_this_board_is_the_agents_illegal_action(tmp_path):
    # The action object is well formed (cells go up to 14) but not on a 7x7
    # board: the agent loses by illegal_action with the reason, not by a
    # protocol_error from text the referee cannot read.
    (tmp_path / "offboard.py").write_text(
        "from referee.cachex import PlaceAction\n"
        "class Agent:\n    def __init__(self, color, **kw): pass\n"
        "    def action(self, **kw): return PlaceAction(9, 9)\n    def turn(self, *a, **kw): pass\n"
    )
    path = tmp_path / "game.json"
    proc = run_referee(
        "--game", "cachex", "-n", "7", "-v", "0", "--record", str(path), "offboard", "agents.random_agent",
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads(path.read_text())
    assert (record["winner"], record["reason"]) == ("BLUE", "illegal_action")
    assert "PlaceAction(r=9, q=9): cell (9, 9) is off the 7x7 board" in record["error"]["RED"]["message"]


def test_cachex_board_shown_and_n_passed_to_agents(tmp_path):
    proc = run_referee("--game", "cachex", "-n", "4", "--seed", "1", "agents.random_agent", "agents.random_agent")
    assert proc.returncode == 0, proc.stderr
    assert "plays action PLACE(" in proc.stdout and "result:" in proc.stdout
    bad = run_referee("--game", "cachex", "-n", "16", "agents.random_agent", "agents.random_agent")
    assert bad.returncode == 2 and "3" in bad.stderr and "15" in bad.stderr and "Traceback" not in bad.stderr


# -- the 2022 referee's own board module, referee.board ---------------------------

BOARD_AGENT = "tests.hosting.fixture_agents.cachex2022_board"


@pytest.fixture(params=["grid", "numpy"])
def board_module(request, monkeypatch):
    """``referee.board`` with ``_data`` a Grid, and (where numpy is installed) a numpy array."""
    import referee.board as module

    if request.param == "numpy":
        numpy = pytest.importorskip("numpy")
        monkeypatch.setattr(module, "_numpy", lambda: numpy)
    else:
        monkeypatch.setattr(module, "_numpy", lambda: None)
    return module


def test_board_module_uses_the_engines_steps_and_diamonds():
    from referee.board import _CAPTURE_PATTERNS, _HEX_STEPS
    from referee.games.cachex.engine import DIRECTIONS, diamond_offsets

    assert _HEX_STEPS == DIRECTIONS
    assert len(_CAPTURE_PATTERNS) == 12
    assert {frozenset(p[1:]) for p in _CAPTURE_PATTERNS} == {frozenset(pair) for pair in diamond_offsets()}
    assert all(far == (a[0] + b[0], a[1] + b[1]) for far, a, b in _CAPTURE_PATTERNS)


def test_board_module_follows_random_games_like_the_engine(board_module):
    from referee.games.cachex.engine import STEAL, cell_coords

    for n, seed in ((3, 0), (5, 1), (7, 2), (7, 3)):
        rng = random.Random(seed)
        engine = CachexState(n)
        board = board_module.Board(n)
        digests: dict[bytes, int] = {}
        while not engine.is_over:
            action = rng.choice(engine.legal_actions())
            player = "red" if engine.current_player == 0 else "blue"
            engine.apply(action)
            if action == STEAL:
                board.swap()
            else:
                captured = board.place(player, cell_coords(action))
                assert {cell_index(*c) for c in captured} == set(engine.last_action_effect()[2])
                assert all(type(x) is int for c in captured for x in c)
            for r in range(n):
                for q in range(n):
                    owner = engine.cell(r, q)
                    assert board[(r, q)] == (None if owner is None else ("red", "blue")[owner])
                    assert board.is_occupied((r, q)) == (owner is not None)
            # The digest tells boards apart exactly as the engine's board integer does.
            assert digests.setdefault(board.digest(), engine.code) == engine.code
        if engine.outcome.reason == "connection":
            mover = engine.outcome.winner
            r, q = cell_coords(action)
            axis = [c[mover] for c in board.connected_coords((r, q))]
            assert min(axis) == 0 and max(axis) == n - 1


def test_board_module_data_indexes_and_gives_bytes_as_the_array_did(board_module):
    board = board_module.Board(4)
    board.place("red", (0, 1))
    board[3, 2] = "blue"
    data = board._data
    assert data[0, 1] == 1 and data[0][1] == 1 and data[-1][2] == 2 and data[(3, 2)] == 2
    assert tuple(data.shape) == (4, 4) and len(data) == 4
    assert [list(row) for row in data] == [[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 2, 0]]
    copied = data.copy()
    copied[0, 1] = 2
    assert board[(0, 1)] == "red"
    # Bytes of 64-bit integers, row by row: the same with numpy or without.
    assert board.digest() == array("q", [0, 1, 0, 0] + [0] * 8 + [0, 0, 2, 0]).tobytes()
    board.swap()
    assert board[(1, 0)] == "blue" and board[(2, 3)] == "red" and board[(0, 1)] is None
    assert board.digest() == array("q", [0] * 4 + [2, 0, 0, 0] + [0, 0, 0, 1] + [0] * 4).tobytes()
    assert board.inside_bounds((3, 3)) and not board.inside_bounds((4, 0)) and not board.inside_bounds((0, -1))
    with pytest.raises(KeyError, match="not a token"):
        board[0, 0] = "green"
    with pytest.raises(IndexError):
        board[(4, 0)]


def test_board_module_captures_and_connects(board_module):
    board = board_module.Board(5)
    for token, cell in (("blue", (1, 1)), ("blue", (1, 2)), ("red", (2, 1))):
        assert board.place(token, cell) == []
    assert sorted(board.place("red", (0, 2))) == [(1, 1), (1, 2)]  # a diamond's far corner
    assert board[(1, 1)] is None and board[(1, 2)] is None
    board.place("red", (1, 1))
    assert sorted(board.connected_coords((0, 2))) == [(0, 2), (1, 1), (2, 1)]
    assert len(board.connected_coords((4, 4))) == 25 - 3  # the empty cells form one region
    assert board._coord_neighbours((0, 0)) == [(1, 0), (0, 1)]


def test_2022_agent_using_referee_board_plays_sealed_and_unsealed(tmp_path):
    # Sealed is the default: the module must be among what the sandbox shows.
    require_sandbox()
    for sandbox in ((), ("--sandbox", "off")):
        for red, blue in ((BOARD_AGENT, "agents.random_agent"), ("agents.random_agent", BOARD_AGENT)):
            record = play(tmp_path, red, blue, "-n", "5", "--seed", "4", *sandbox)
            assert record["error"] == {"RED": None, "BLUE": None}, record["message"]
            assert record["reason"] in ("connection", "repetition", "turn_limit")
            assert record["sandbox"]["namespaces"] is (not sandbox)
        assert record["actions"][1] == "STEAL"  # the agent, as Blue, steals: its board swapped
