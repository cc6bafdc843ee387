"""Perft tables: for each position, the legal actions and the leaf counts 2 (and 3) deep.

The numbers in ``data/perft.tsv`` come from the plain reference
implementation (``make_tables.py`` writes them).  Here the fast engine is held
to them, and the reference is re-run at depths 1 and 2 to show the file is
still its output.
"""
from __future__ import annotations

import csv

import pytest

from referee.games.cachex import CachexState
from tests.games.interface import perft

from . import make_tables, reference

TABLE = make_tables.OUT


def rows() -> list:
    with TABLE.open(newline="") as table:
        return [
            pytest.param(
                row["position"], int(row["legal"]), int(row["perft2"]),
                None if row["perft3"] == "-" else int(row["perft3"]), id=row["note"],
            )
            for row in csv.DictReader(table, delimiter="\t")
        ]


def test_table_is_not_trivial():
    params = rows()
    assert len(params) >= 60
    assert sum(1 for p in params if p.values[3] is not None) >= 20
    sizes = {CachexState.from_text(p.values[0]).n for p in params}
    assert sizes == set(range(3, 16)), "every board size appears"
    assert sum(1 for p in params if p.values[1] > 0) >= 50, "most positions are live"


@pytest.mark.parametrize("position, d1, d2, d3", rows())
def test_engine_matches_table(position, d1, d2, d3):
    state = CachexState.from_text(position)
    before = (state.to_text(), state.key(), dict(state.repetitions))
    assert len(state.legal_actions()) == d1
    assert perft(state, 2) == d2
    if d3 is not None:
        assert perft(state, 3) == d3
    assert (state.to_text(), state.key(), state.repetitions) == before, "perft leaves the position as it found it"


@pytest.mark.parametrize("position, d1, d2, d3", rows())
def test_table_matches_reference(position, d1, d2, d3):
    game = reference.from_text(position)
    assert reference.perft(game, 1) == d1
    assert reference.perft(game, 2) == d2


@pytest.mark.parametrize("position, d1, d2, d3", rows())
def test_legal_action_texts_match_reference(position, d1, d2, d3):
    state = CachexState.from_text(position)
    engine_texts = sorted(state.action_to_str(a) for a in state.legal_actions())
    reference_texts = sorted(reference.action_text(a) for a in reference.from_text(position).legal())
    assert engine_texts == reference_texts
