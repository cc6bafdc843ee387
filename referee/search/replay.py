"""Check a Part A answer by replaying it with the engine's checked rules."""
from __future__ import annotations

from dataclasses import dataclass

from ..games.base import RED
from ..games.infexion.engine import InfexionState
from .board import Cells, format_spread


@dataclass(frozen=True)
class Verdict:
    """Whether a sequence of SPREADs takes every blue token, and if not why."""

    valid: bool
    reason: str  # empty when valid
    length: int


def check_sequence(cells: Cells, actions: list[int]) -> Verdict:
    """Replay ``actions`` (Red's SPREADs) on ``cells`` with the engine.

    Invalid when an action is not legal for Red at its step, when an action
    comes after every blue token is already gone, or when blue tokens remain
    at the end.
    """
    state = InfexionState(cells)
    for step, action in enumerate(actions, start=1):
        if state.blue_power == 0:
            return Verdict(
                False, f"step {step}: {format_spread(action)} comes after every blue token is gone", len(actions)
            )
        # Part A has Red alone moving; the engine alternates sides, so every
        # step is checked and applied as Red's turn.
        state.turn = RED
        problem = state.action_problem(action)
        if problem is not None:
            return Verdict(False, f"illegal action at step {step}: {format_spread(action)}: {problem}", len(actions))
        state.apply(action)
    if state.blue_power:
        left = sum(1 for _, _, owner, _ in state.cells() if owner != RED)
        tokens = state.blue_power
        return Verdict(
            False, f"{tokens} blue token{'s' * (tokens != 1)} left on {left} cell{'s' * (left != 1)}", len(actions)
        )
    return Verdict(True, "", len(actions))
