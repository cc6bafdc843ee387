"""The fields declaration: derived snapshot/restore/copy/key, and the checks that nothing escapes it."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games import load_game
from referee.games.fields import AS_BYTES, AS_TUPLE, COPY, PAIR, PAIR_ITEMS, SORTED_ITEMS, Field, StateFields
from referee.games.infinitron import Infinitron
from referee.games.infinitron.state import FIELDS, InfinitronState

TOY_FIELDS = StateFields(
    (
        Field("turn"),
        Field("board", COPY, AS_BYTES),
        Field("scores", COPY, AS_TUPLE),
        Field("hands", PAIR, PAIR_ITEMS),
        Field("flags", COPY, SORTED_ITEMS),
        Field("tag", lambda v: list(v), lambda v: tuple(v)),
        Field("rules", key=None, undo=False),
    ),
    transient=("history",),
)


class Toy:
    __slots__ = TOY_FIELDS.slots

    def __init__(self) -> None:
        self.turn = 0
        self.board = bytearray(4)
        self.scores = [0, 0]
        self.hands: list[dict[int, int]] = [{}, {}]
        self.flags: dict[int, int] = {}
        self.tag = ["a"]
        self.rules = ("fixed",)
        self.history: list[tuple[object, ...]] = []

    def change(self) -> None:
        self.history.append(TOY_FIELDS.snapshot(self))
        self.turn += 1
        self.board[self.turn % 4] += 1
        self.scores[self.turn & 1] += 2
        self.hands[self.turn & 1][self.turn] = self.turn
        self.flags[-self.turn] = 1
        self.tag.append("b")

    def values(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in TOY_FIELDS.names}


def test_restore_gives_back_every_saved_field_and_keeps_the_snapshot_intact():
    toy = Toy()
    toy.change()
    before = {k: (v.copy() if hasattr(v, "copy") else v) for k, v in toy.values().items()}
    before["hands"] = [h.copy() for h in toy.hands]
    snap = TOY_FIELDS.snapshot(toy)
    toy.change()
    toy.change()
    TOY_FIELDS.restore(toy, snap)
    assert toy.values() == before
    toy.change()  # mutating the restored state must not reach into the snapshot
    TOY_FIELDS.restore(toy, snap)
    assert toy.values() == before


def test_copy_is_independent_and_keys_equal():
    toy = Toy()
    toy.change()
    other = TOY_FIELDS.copy_into(toy, Toy.__new__(Toy))
    assert TOY_FIELDS.key(other) == TOY_FIELDS.key(toy)
    other.history = []
    other.change()
    assert TOY_FIELDS.key(other) != TOY_FIELDS.key(toy)
    assert toy.turn == 1 and toy.hands[0] == {} and toy.tag == ["a", "b"]


def test_key_leaves_out_unkeyed_fields_and_undo_skips_unsaved_ones():
    toy = Toy()
    key = TOY_FIELDS.key(toy)
    toy.rules = ("other",)
    assert TOY_FIELDS.key(toy) == key
    assert len(TOY_FIELDS.snapshot(toy)) == len(TOY_FIELDS.fields) - 1


def test_undeclared_attribute_cannot_be_set():
    with pytest.raises(AttributeError):
        Toy().extra = 1  # type: ignore[attr-defined]


def test_check_class_catches_an_undeclared_slot_and_a_dict():
    TOY_FIELDS.check_class(Toy)

    class MoreSlots(Toy):
        __slots__ = ("forgotten",)

    class WithDict(Toy):
        pass

    with pytest.raises(TypeError, match="forgotten"):
        TOY_FIELDS.check_class(MoreSlots)
    with pytest.raises(TypeError, match="__dict__"):
        TOY_FIELDS.check_class(WithDict)


def test_a_field_declared_twice_is_refused():
    with pytest.raises(ValueError, match="twice"):
        StateFields((Field("a"), Field("a")))


@pytest.mark.parametrize("game", ["infexion", "cachex", "infinitron"])
def test_engine_states_keep_exactly_their_declared_fields(game):
    from importlib import import_module

    module = import_module(f"referee.games.{game}.state")
    state = load_game(game).new_state()
    module.FIELDS.check_class(type(state))
    for name in module.FIELDS.slots:
        getattr(state, name)  # every declared field is set by __init__


def _field_values(state: InfinitronState) -> dict[str, object]:
    return {name: repr(getattr(state, name)) for name in FIELDS.names}


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=10**9), st.booleans())
def test_infinitron_apply_then_undo_restores_every_declared_field(seed, chaos):
    rng = random.Random(seed)
    state = Infinitron(chaos=chaos, max_turns=12).new_state()
    seen = []
    while not state.is_over and len(seen) < 150:
        seen.append(_field_values(state))
        if state.chance_pending:
            state.apply(state.sample_chance(rng))
        else:
            state.apply(state.random_action(rng))
    copy = state.copy()
    while seen:
        state.undo()
        assert _field_values(state) == seen.pop()
    # The copy shares the history's snapshots: undoing the original left them intact.
    while copy.move_count:
        copy.undo()
    assert copy.key() == state.key()


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=0, max_value=10**9))
def test_infinitron_copy_is_independent(seed):
    rng = random.Random(seed)
    state = Infinitron(max_turns=10).new_state()
    for _ in range(40):
        if state.is_over:
            break
        state.apply(state.random_action(rng))
    for copied in (state.copy(), state.copy_without_history()):
        key, fields = state.key(), _field_values(state)
        assert copied.key() == key
        while not copied.is_over:
            copied.apply(copied.random_action(rng))
        assert state.key() == key and _field_values(state) == fields


@pytest.mark.parametrize("game", ["infexion", "cachex", "infinitron"])
def test_copies_set_every_slot_of_every_engine_state(game):
    # An engine state has no __dict__ (GameState declares empty slots), so a
    # field forgotten by a copy is an unset slot, which getattr reports.
    state = load_game(game).new_state()
    rng = random.Random(5)
    for _ in range(6):
        state.apply(state.random_action(rng))
    slots = [name for klass in type(state).__mro__ for name in klass.__dict__.get("__slots__", ())]
    assert slots and not hasattr(state, "__dict__")
    for copied in (state.copy(), state.copy_without_history()):
        for name in slots:
            getattr(copied, name)
        assert copied.key() == state.key()
