"""Round robin: every pair of agents plays a mini-match of ``games_per_pair`` games, both colours equally."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar
from collections.abc import Mapping

from .base import EveryPairing, Plan


@dataclass(frozen=True)
class RoundRobin(EveryPairing):
    """Every pairing once per round (agent i against each j > i, in order); no settings of its own."""

    name: ClassVar[str] = "round_robin"
    title: ClassVar[str] = "round robin"

    def pairing_count(self, plan: Plan) -> int:
        n = len(plan.agents)
        return n * (n - 1) // 2

    def pairing(self, plan: Plan, number: int) -> tuple[int, int]:
        if not 0 <= number < self.pairing_count(plan):
            raise IndexError(f"pairing {number} of {self.pairing_count(plan)}")
        # Agent i is first in n-1-i pairings; they start at i(n-1) - i(i-1)/2.
        n = len(plan.agents)
        low, high = 0, n - 2
        while low < high:  # the last first agent whose pairings start at or before number
            middle = (low + high + 1) // 2
            if middle * (n - 1) - middle * (middle - 1) // 2 <= number:
                low = middle
            else:
                high = middle - 1
        start = low * (n - 1) - low * (low - 1) // 2
        return low, low + 1 + number - start

    @classmethod
    def in_words(cls, plan: Mapping[str, Any]) -> str:
        n = len(plan.get("agents", []))
        return (
            f"round robin: each pair of the {n} agents plays {plan.get('games_per_pair')} games, "
            "both colours equally"
        )
