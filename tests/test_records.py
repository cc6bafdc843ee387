"""A game record is a value: nothing handed a record can change it under the others."""
from __future__ import annotations

import copy
import dataclasses
import json
import pickle

import pytest

from referee.records import GameRecord


def a_record(**changes) -> GameRecord:
    fields = dict(
        game="infexion", red="agents.a", blue="agents.b", winner="RED", reason="elimination", turns=2,
        actions=["SPAWN(3, 3)", "SPAWN(1, 1)"], time_used={"RED": 0.5, "BLUE": 0.25},
        peak_memory_mb={"RED": 1.0, "BLUE": 2.0}, error={"RED": None, "BLUE": {"kind": "x", "message": "m"}},
        extra={"pairing": ["a", "b"], "code_hash": {"a": "1"}}, time_used_after=[[0.5, 0.0], [0.5, 0.25]],
    )
    fields.update(changes)
    return GameRecord(**fields)


def test_the_callers_lists_and_dicts_are_copied_not_shared():
    actions, extra = ["SPAWN(3, 3)"], {"pairing": ["a", "b"]}
    record = a_record(actions=actions, extra=extra, turns=1)
    actions.append("SPAWN(1, 1)")
    extra["pairing"].append("c")
    extra["new"] = 1
    assert record.actions == ("SPAWN(3, 3)",) and record.extra == {"pairing": ("a", "b")}


@pytest.mark.parametrize("change", [
    lambda r: r.time_used.__setitem__("RED", 0.0),
    lambda r: r.error["BLUE"].update(message="forged"),
    lambda r: r.extra["code_hash"].pop("a"),
    lambda r: r.extra.setdefault("game_index", 3),
    lambda r: r.moves.clear(),
    lambda r: r.actions.append("SPAWN(0, 0)"),
    lambda r: r.time_used_after[0].append(1.0),
])
def test_no_field_can_be_changed_in_place(change):
    record = a_record()
    before = record.to_json()
    with pytest.raises((TypeError, AttributeError)):
        change(record)
    assert record.to_json() == before


def test_a_changed_record_is_a_new_record_and_the_plain_form_is_a_fresh_copy():
    record = a_record()
    plain = record.to_dict()
    plain["extra"]["code_hash"]["a"] = "forged"
    plain["actions"].append("SPAWN(0, 0)")
    assert record.extra["code_hash"] == {"a": "1"} and len(record.actions) == 2
    changed = dataclasses.replace(record, extra={**record.extra, "game_index": 4})
    assert changed.game_index == 4 and record.game_index is None


def test_json_pickle_and_copies_keep_the_record():
    record = a_record()
    data = json.loads(record.to_json())
    assert data["actions"] == ["SPAWN(3, 3)", "SPAWN(1, 1)"] and data["time_used_after"] == [[0.5, 0.0], [0.5, 0.25]]
    for again in (GameRecord.from_json(record.to_json()), pickle.loads(pickle.dumps(record)), copy.deepcopy(record)):
        assert again == record and again.to_json() == record.to_json()
        with pytest.raises(TypeError):
            again.extra["pairing"] = ()
