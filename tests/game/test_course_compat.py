"""Course agents' habits that must work here: numbers that are not ``int``."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.game import (
    HexDir,
    HexPos,
    HexVec,
    SpawnAction,
    SpreadAction,
)
from referee.game.actions import to_engine_action
from tests.game.fixture_agents.index_numbers import Index, rebuilt

ROOT = Path(__file__).resolve().parents[2]


def play(*args: str) -> dict:
    """One game through the real CLI; its record."""
    proc = subprocess.run(
        [sys.executable, "-m", "referee", "-v", "0", "--record", "-", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
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
