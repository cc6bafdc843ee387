"""The chaos roll as data (InfinitronState.chance_outcomes): exact probabilities that sum to 1 and are the
distribution sample_chance draws from."""
from __future__ import annotations

import random
from collections import Counter
from math import comb

import pytest

from referee.games.infinitron import Infinitron
from referee.games.infinitron.engine import ASTEROID, CELLS, FISH_MARKET, NO_EVENT, NO_EVENT_ACTION

from .common import empty_state


def test_the_first_draw_is_no_event_an_asteroid_or_a_market_summing_to_one():
    state = Infinitron(chaos=True, seed=5).new_state()
    outcomes = dict(state.chance_outcomes())
    assert sum(outcomes.values()) == pytest.approx(1.0)
    assert outcomes[NO_EVENT_ACTION] == pytest.approx(11 / 12)
    asteroids = {a: p for a, p in outcomes.items() if a[0] == ASTEROID}
    assert set(asteroids) == {(ASTEROID, c) for c in state.setup.asteroid_cells}
    assert sum(asteroids.values()) == pytest.approx(1 / 24) and len(set(asteroids.values())) == 1
    assert outcomes[(FISH_MARKET,)] == pytest.approx(1 / 24), "a market on an open board: its cells drawn next"
    assert not state.chance_complete((FISH_MARKET,)) and state.chance_complete(NO_EVENT_ACTION)


def test_the_outcomes_match_sampling():
    state = Infinitron(chaos=True, seed=5).new_state()
    expected = dict(state.chance_outcomes())
    rng = random.Random(1)
    draws = 48_000
    kinds = Counter(state.sample_chance(rng)[0] for _ in range(draws))
    for kind, share in ((NO_EVENT, 11 / 12), (ASTEROID, 1 / 24), (FISH_MARKET, 1 / 24)):
        p = sum(v for a, v in expected.items() if a[0] == kind)
        assert p == pytest.approx(share)
        # Within four standard deviations of the exact count.
        assert abs(kinds[kind] - draws * p) < 4 * (draws * p * (1 - p)) ** 0.5


def _market_sets(state, drawn=(FISH_MARKET,), p=1.0, found=None):
    """Every whole market reachable from ``drawn`` with its probability, summed over the orders of drawing."""
    found = {} if found is None else found
    for roll, q in state.chance_outcomes(drawn):
        if state.chance_complete(roll):
            found[roll] = found.get(roll, 0.0) + p * q
        else:
            _market_sets(state, roll, p * q, found)
    return found


def test_a_markets_cells_drawn_one_by_one_give_every_set_the_same_chance_as_sampling():
    state = empty_state(chaos=True)
    free = [rq for rq in CELLS if state.setup.city_at[CELLS.index(rq)] < 0][:8]
    for rq in CELLS:
        if rq not in free and state.setup.city_at[CELLS.index(rq)] < 0:
            state.setup_ground("BLOCK", *rq)
    assert len(state._fish_cells()) == 8
    sets = _market_sets(state)
    assert len(sets) == comb(8, 6)
    assert all(p == pytest.approx(1 / comb(8, 6)) for p in sets.values())
    assert sum(sets.values()) == pytest.approx(1.0)
    rng = random.Random(2)
    sampled = Counter()
    while sum(sampled.values()) < 2_800:
        roll = state.sample_chance(rng)
        if roll[0] == FISH_MARKET:
            sampled[roll] += 1
    assert set(sampled) == set(sets)
    assert all(abs(n - 100) < 45 for n in sampled.values()), sampled  # 100 each expected, sd about 10


def test_a_market_with_six_free_cells_or_fewer_is_one_outcome():
    state = empty_state(chaos=True)
    for rq in CELLS[4:]:
        if state.setup.city_at[CELLS.index(rq)] < 0:
            state.setup_ground("BLOCK", *rq)
    (market, p), = [(a, p) for a, p in state.chance_outcomes() if a[0] == FISH_MARKET]
    assert market == (FISH_MARKET, 0, 1, 2, 3) and state.chance_complete(market) and state.is_legal(market)
    with pytest.raises(ValueError):
        state.chance_outcomes(market)
    state.apply(NO_EVENT_ACTION)
    with pytest.raises(ValueError):
        state.chance_outcomes()
