"""The search agents' clock: the safety margin they never spend (issue: safe clocks)."""
from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.common.agent import SearchAgent
from agents.common.clock import CUSHION_SHARE, Deadline, clock_remaining, move_budget, safety_margin


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


def test_the_smaller_clock_is_the_one_budgeted_from():
    assert clock_remaining(60.0, 5.0) == 5.0
    assert clock_remaining(5.0, 60.0) == 5.0
    assert clock_remaining(60.0, None) == 60.0  # a local game: no wall clock
    assert clock_remaining(None, 7.0) == 7.0
    assert clock_remaining(None, None) is None


class _Budgets(SearchAgent):
    """A search agent that plays the first legal action, keeping the deadline each move was given."""

    name = "budgets"

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        self.deadlines: list[Deadline] = []

    def choose(self, deadline: Deadline):
        self.deadlines.append(deadline)
        return self.view.state.legal_actions()[0]


@pytest.mark.parametrize(("cpu", "wall", "follows"), [(60.0, 5.0, 5.0), (5.0, 60.0, 5.0), (60.0, None, 60.0)])
def test_a_search_agents_budget_follows_the_smaller_of_its_cpu_and_wall_clocks(cpu, wall, follows):
    from referee.game import PlayerColor

    agent = _Budgets(PlayerColor.RED, time_remaining=60.0, wall_remaining=None, space_remaining=250.0,
                     space_limit=250.0)
    moves_left = agent.heuristics.moves_left(agent.view.state)
    agent.action(time_remaining=cpu, wall_remaining=wall, space_remaining=250.0)
    [deadline] = agent.deadlines
    assert deadline.end - deadline.start == pytest.approx(move_budget(follows, moves_left, margin=agent.margin))
    # Budgeted from the server's wall clock, the deadline counts wall time too (a loaded machine's wall time
    # runs ahead of its CPU time); a local game's is on the CPU clock alone.
    assert deadline.on_wall == (wall is not None)


def test_a_deadline_on_the_wall_clock_passes_while_the_process_sleeps():
    # Sleeping uses no CPU: only the wall clock sees the time go.
    cpu_only, both = Deadline(0.05), Deadline(0.05, wall=True)
    time.sleep(0.1)
    assert both.expired() and both.overdue() and both.left() <= 0
    assert not cpu_only.expired() and cpu_only.left() > 0
