"""The game core (referee/core.py) driven in-process, without an agent's process: the one place a game's
record, its ending message and its reason are made."""
from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from referee.core import GameCore, SeatInfo, UnregisteredReason, ending_message
from referee.games import game_class, load_game
from referee.games.base import CHANCE, Outcome
from referee.hosting.failures import AgentIllegalAction, AgentProtocolError, AgentTimeout
from referee.limits import Limits
from referee.records import GameRecord
from tests.helpers import ROOT

SEATS = (SeatInfo("agents.greedy", "greedy", Limits(2.0, 100.0)), SeatInfo("agents.mcts", None, Limits(2.0, 100.0)))


def random_game(core: GameCore, rng: random.Random) -> None:
    """Drive ``core`` to its end with random legal answers, each side's clock moving on."""
    while (mover := core.mover) is not None:
        if mover == CHANCE:
            core.chance()
            continue
        core.used[mover] += 0.01
        action = rng.choice(list(core.state.legal_actions()))
        core.submit(mover, core.state.action_to_str(action))


@pytest.mark.parametrize("game, options", [("infexion", {}), ("cachex", {"n": 4}), ("infinitron", {"chaos": True})])
def test_a_game_driven_to_its_end_gives_its_record_by_the_rules(game, options):
    options = dict(game_class(game).seeded_options(options, 3))
    core = GameCore(load_game(game, **options), SEATS, options=options, seed=3)
    random_game(core, random.Random(3))
    record = core.record(duration=1.23456)
    outcome = core.state.outcome
    assert outcome is not None and core.over
    assert (record.winner, record.reason) == (outcome.winner_name, outcome.reason)
    assert record.message == ending_message(outcome.winner_name, outcome.reason)
    assert record.turns == len(record.actions) == len(record.time_used_after) > 0
    assert record.red_name == "greedy" and record.blue_name == "agents.mcts" and record.time_limit == 2.0
    # One pair of clocks per action, never going back; chance's seed kept only where chance acted.
    assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(record.time_used_after, record.time_used_after[1:]))
    assert (record.chance_seed is not None) == (CHANCE in core.movers)
    assert sum(record.moves.values()) == len(record.actions) - core.movers.count(CHANCE)
    assert GameRecord.from_json(record.to_json()) == record


def test_a_bad_answer_is_refused_without_changing_the_position():
    core = GameCore(load_game("infexion"), SEATS)
    core.submit(0, "SPAWN(3, 3)")
    before = (core.state.render(), list(core.actions))
    with pytest.raises(AgentIllegalAction, match="illegal action SPAWN\\(3, 3\\)"):
        core.submit(1, "SPAWN(3, 3)")
    with pytest.raises(AgentProtocolError, match="unreadable action"):
        core.submit(1, "FLY(1, 2)")
    with pytest.raises(AgentProtocolError, match="unreadable action"):
        core.submit(1, {"not": "text"})
    assert (core.state.render(), list(core.actions)) == before and core.mover == 1


def test_a_parser_that_breaks_forfeits_the_sender_and_records_the_parsers_traceback():
    class BrokenParser:
        """The game's state but for its parser, which has a bug of its own (not a NotationError)."""

        def __init__(self, state):
            self.state = state

        def __getattr__(self, name):
            return getattr(self.state, name)

        def parse_action(self, text):
            return broken_parser(text)

    def broken_parser(text):
        return ("SPAWN",)[len(text)]

    core = GameCore(load_game("infexion"), SEATS)
    core.state = BrokenParser(core.state)
    with pytest.raises(AgentProtocolError, match=r"unreadable action \(IndexError\)") as caught:
        core.submit(0, "SPAWN(3, 3)")
    assert "broken_parser" in caught.value.traceback and "IndexError" in caught.value.traceback
    core.failed(0, caught.value)
    error = core.record(duration=0.1).error["RED"]
    assert error["kind"] == "protocol_error" and "broken_parser" in error["traceback"]


def test_a_forfeit_ends_the_game_once_with_the_seat_label_and_its_error():
    seats = (SeatInfo("alice", label="RED (alice)"), SeatInfo("bob", label="BLUE (bob)"))
    core = GameCore(load_game("infexion"), seats)
    core.submit(0, "SPAWN(3, 3)")
    failure = AgentTimeout("out of CPU time", traceback="tb")
    ending = core.failed(1, failure)
    assert (ending.winner, ending.reason, ending.message) == ("RED", "time_limit", "BLUE (bob): out of CPU time")
    assert core.mover is None
    core.resigned(0, "human")  # too late: the first ending stands
    record = core.record(duration=0.5)
    assert record.reason == "time_limit" and record.error["BLUE"]["traceback"] == "tb" and record.error["RED"] is None


def test_a_reason_nobody_registered_cannot_end_a_game():
    core = GameCore(load_game("infexion"), SEATS)
    with pytest.raises(UnregisteredReason, match="'walked_off'"):
        core.forfeit(0, "walked_off", "left the room")
    assert core.ending is None


def test_a_rules_reason_the_game_does_not_list_is_refused_naming_its_class(monkeypatch):
    core = GameCore(load_game("infexion"), SEATS)
    monkeypatch.setattr(type(core.state), "is_over", property(lambda self: True))
    monkeypatch.setattr(type(core.state), "outcome", property(lambda self: Outcome(0, "checkmate")))
    with pytest.raises(UnregisteredReason, match="Infexion.*reasons"):
        _ = core.mover


def test_a_person_ends_the_game_by_resigning_or_quitting_or_time():
    core = GameCore(load_game("infexion"), SEATS)
    core.submit(0, "SPAWN(3, 3)")
    assert core.resigned(1, "human").message == "RED wins (resignation): BLUE (human) resigned after 1 actions"
    core = GameCore(load_game("infexion"), SEATS)
    assert core.out_of_time(0, "RED (human) ran out of 5 s").message == \
        "BLUE wins (time_limit): RED (human) ran out of 5 s"
    core = GameCore(load_game("infexion"), SEATS)
    in_play = core.record(duration=0, so_far="in play")
    assert (in_play.winner, in_play.reason, in_play.message) == (None, "unfinished", "in play") and core.ending is None
    core.unfinished("unfinished: human quit after 0 actions")
    assert core.record(duration=0).reason == "unfinished"


def test_a_take_back_draws_chance_again_as_it_was():
    options = dict(game_class("infinitron").seeded_options({"chaos": True}, 8))
    core = GameCore(load_game("infinitron", **options), SEATS, options=options, chance_seed="fixed")
    random_game(core, random.Random(8))
    draws = [i for i, mover in enumerate(core.movers) if mover == CHANCE]
    assert len(draws) >= 3
    played, point = list(core.actions), draws[2]
    core.take_back_to(draws[1] + 1)
    assert core.ending is None and core.actions == played[:draws[1] + 1]
    while len(core.actions) < point:
        mover = core.mover
        assert mover is not None and mover != CHANCE
        core.submit(mover, played[len(core.actions)])
    assert core.chance() == played[point]


def record_builders(root: Path) -> list[str]:
    """``file:line`` of each call of ``GameRecord(...)`` or ``Ending(...)`` under ``root``/referee, but in the core
    and in records.py (which makes records back from their JSON)."""
    builders = []
    for path in sorted(root.joinpath("referee").rglob("*.py")):
        if path.name in ("core.py", "records.py") and path.parent == root / "referee":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in (
                    "GameRecord", "Ending"):
                builders.append(f"{path.relative_to(root)}:{node.lineno}")
    return builders


def test_no_module_but_the_core_builds_a_game_record():
    """``grep``-level: the record, and so its ending message and reason, is made in referee/core.py only."""
    assert record_builders(ROOT) == []


def test_the_check_of_record_builders_finds_one(tmp_path: Path):
    (tmp_path / "referee" / "tournament").mkdir(parents=True)
    (tmp_path / "referee" / "core.py").write_text("GameRecord(game='x')\n")
    (tmp_path / "referee" / "tournament" / "runner.py").write_text(
        "from referee import records\n\nrecords.GameRecord(game='x')\n")
    assert record_builders(tmp_path) == ["referee/tournament/runner.py:3"]
