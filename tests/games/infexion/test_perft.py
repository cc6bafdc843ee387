"""Data-driven tables: position -> legal-action count and perft at depth 2 and 3.

``data/perft.tsv`` was produced by ``make_tables.py`` from the simple
reference implementation.  The engine must match the file, and the file must
match the reference (re-checked here at depth 1 and 2 on every row, and at
depth 3 on the rows where that is quickest).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from referee.games.infexion import InfexionState
from tests.games.interface import perft

from . import reference

TABLE = Path(__file__).parent / "data" / "perft.tsv"


def rows() -> list:
    out = []
    for line in TABLE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        position, d1, d2, d3, note = line.split("\t")
        out.append(pytest.param(position, int(d1), int(d2), None if d3 == "-" else int(d3), id=note))
    return out


def test_table_is_not_trivial():
    params = list(rows())
    assert len(params) >= 40
    assert sum(1 for p in params if p.values[3] is not None) >= 15


@pytest.mark.parametrize("position, d1, d2, d3", rows())
def test_engine_matches_table(position, d1, d2, d3):
    state = InfexionState.from_text(position)
    before = state.to_text()
    assert len(state.legal_actions()) == d1
    assert perft(state, 2) == d2
    if d3 is not None:
        assert perft(state, 3) == d3
    assert state.to_text() == before, "perft must leave the position as it found it"


@pytest.mark.parametrize("position, d1, d2, d3", rows())
def test_table_matches_reference(position, d1, d2, d3):
    game = reference.from_text(position)
    assert reference.perft(game, 1) == d1
    assert reference.perft(game, 2) == d2


@pytest.mark.parametrize("position, d1, d2, d3", rows())
def test_legal_action_texts_match_reference(position, d1, d2, d3):
    state = InfexionState.from_text(position)
    engine_texts = sorted(state.action_to_str(a) for a in state.legal_actions())
    reference_texts = sorted(reference.action_text(a) for a in reference.from_text(position).legal())
    assert engine_texts == reference_texts


def _quick_depth3_rows(count: int) -> list:
    # The smallest non-zero counts: games already over (0) prove little.
    with_d3 = [p for p in rows() if p.values[3]]
    return sorted(with_d3, key=lambda p: p.values[3])[:count]


@pytest.mark.parametrize("position, d1, d2, d3", _quick_depth3_rows(8))
def test_table_matches_reference_at_depth_3(position, d1, d2, d3):
    assert reference.perft(reference.from_text(position), 3) == d3
