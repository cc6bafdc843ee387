"""The search agents' clock: the safety margin they never spend (issue: safe clocks)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.common.clock import CUSHION_SHARE, move_budget, safety_margin


@pytest.mark.parametrize(
    ("limit", "margin"),
    [(180.0, 3.6), (60.0, 1.2), (30.0, 1.0), (10.0, 1.0), (1.0, 0.5), (None, 0.0), (0.0, 0.0)],
)
def test_margin_is_two_percent_or_a_second_whichever_is_larger(limit, margin):
    assert safety_margin(limit) == pytest.approx(margin)


@settings(max_examples=100, deadline=None)
@given(
    limit=st.floats(0.1, 400),
    guesses=st.lists(st.floats(0, 400), min_size=1, max_size=200),
    overhead=st.floats(0, 0.002),
)
def test_budgets_never_take_the_clock_below_the_margin(limit, guesses, overhead):
    # An agent that spends every budget in full, plus a little between
    # searches (turn() calls, a search's overshoot), still ends the game with
    # the margin left as long as all that overhead fits in the cushion above
    # it: the searches themselves never eat into margin or cushion.
    margin = safety_margin(limit)
    floor = margin * (1 + CUSHION_SHARE)
    remaining = limit
    for guess in guesses:
        spent = move_budget(remaining, guess, margin=margin)
        assert spent >= 0
        if remaining >= floor:
            assert remaining - spent >= floor - 1e-9
        remaining -= spent + overhead
    total_overhead = overhead * len(guesses)
    assert remaining >= floor - total_overhead - 1e-9
    if total_overhead <= CUSHION_SHARE * margin:
        assert remaining >= margin - 1e-9


def test_a_search_agent_keeps_the_margin_of_its_first_clock():
    from referee.game import PlayerColor

    from agents.mcts import Agent

    agent = Agent(PlayerColor.RED, time_remaining=60.0, space_remaining=250.0, space_limit=250.0)
    assert agent.margin == pytest.approx(1.2)
    # Without a clock at the start (an older referee), the first call's clock sets it.
    agent = Agent(PlayerColor.RED)
    agent.action(time_remaining=1.5, space_remaining=250.0)
    assert agent.margin == pytest.approx(0.75)
