"""Whether a record's actions lead to its recorded result (frames.record_mismatch)."""
from __future__ import annotations

import random

import pytest

from referee.games.infexion import InfexionState
from referee.records import GameRecord
from referee.render.frames import ReplayError, build_frames, record_mismatch


def infexion_record(seed: int, **changes) -> GameRecord:
    """A complete random Infexion game as a record, with ``changes`` made to it."""
    rng = random.Random(seed)
    state = InfexionState()
    actions = []
    while not state.is_over:
        action = rng.choice(state.legal_actions())
        actions.append(state.action_to_str(action))
        state.apply(action)
    outcome = state.outcome
    fields = dict(
        game="infexion", red="a", blue="b", winner=outcome.winner_name, reason=outcome.reason,
        turns=len(actions), actions=actions, time_used={}, peak_memory_mb={}, error={"RED": None, "BLUE": None},
    )
    fields.update(changes)
    return GameRecord(**fields)


def final_state(record: GameRecord) -> InfexionState:
    state = InfexionState()
    for text in record.actions:
        state.apply_checked(state.parse_action(text))
    return state


def test_a_complete_record_adds_up():
    for seed in range(6):
        record = infexion_record(seed)
        assert record_mismatch(record, final_state(record)) is None
        assert build_frames(record).warning is None


def test_cut_records_miscounted_records_and_wrong_results_are_named():
    full = infexion_record(1)
    cut = infexion_record(1, actions=full.actions[:100])
    assert f"it says {full.turns} actions were played but holds 100" in record_mismatch(cut, final_state(cut))
    assert "after its 100 actions the game is not over" in build_frames(cut).warning
    recount = infexion_record(1, actions=full.actions[:100], turns=100)
    message = record_mismatch(recount, final_state(recount))
    assert "holds" not in message and "the game is not over" in message
    wrong = "RED" if full.winner != "RED" else "BLUE"
    lie = infexion_record(1, winner=wrong, reason="elimination")
    message = record_mismatch(lie, final_state(lie))
    assert f"do not lead to its result, {wrong} wins (elimination): its actions end the game in " in message


def test_forfeits_must_not_be_over_by_the_rules():
    full = infexion_record(2)
    forfeit = infexion_record(2, actions=full.actions[:40], turns=40, winner="BLUE", reason="time_limit")
    assert record_mismatch(forfeit, final_state(forfeit)) is None
    too_late = infexion_record(2, winner="BLUE", reason="time_limit")
    assert "its actions end the game by the rules" in record_mismatch(too_late, final_state(too_late))
    unplayed = infexion_record(2, actions=[], turns=0, winner=None, reason="load_error")
    assert record_mismatch(unplayed, InfexionState()) is None


def test_an_action_that_cannot_be_applied_is_still_an_error():
    full = infexion_record(3)
    with pytest.raises(ReplayError, match="action 3"):
        build_frames(infexion_record(3, actions=[*full.actions[:2], "SPAWN(9, 9)"]))
