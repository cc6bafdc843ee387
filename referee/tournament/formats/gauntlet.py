"""Gauntlet: one agent, the challenger, plays a mini-match against each of the others."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar
from collections.abc import Callable, Mapping, Sequence

from ..problems import ConfigError
from .base import ConfigFields, EveryPairing, Plan

if TYPE_CHECKING:
    from ...match import AgentEntry


@dataclass(frozen=True)
class Gauntlet(EveryPairing):
    """``challenger`` as configured (an agent's name or spec); ``index``: its position once the field is known."""

    challenger: str = ""
    index: int | None = None

    name: ClassVar[str] = "gauntlet"
    title: ClassVar[str] = "gauntlet"
    fields: ClassVar[Mapping[str, str]] = {"challenger": ""}
    unequal_because: ClassVar[str] = "the challenger plays every game, so points do not compare it with the others"

    @classmethod
    def from_config(cls, fields: ConfigFields) -> Gauntlet:
        challenger = fields.data.get("challenger")
        if not isinstance(challenger, str) or not challenger:
            fields.note(
                "challenger" if "challenger" in fields.data else "format",
                "a gauntlet needs 'challenger': the name of one of the agents",
            )
            return cls()
        return cls(challenger)

    def fit(self, agents: Sequence[AgentEntry], where: Callable[[str], str]) -> Gauntlet:
        matches = [i for i, a in enumerate(agents) if self.challenger in (a.display_name, a.spec)]
        if not matches:
            known = ", ".join(a.display_name for a in agents[:12]) + (", ..." if len(agents) > 12 else "")
            raise ConfigError(f"{where('challenger')}: {self.challenger!r} is none of the agents ({known})")
        return Gauntlet(self.challenger, matches[0])

    def challenger_of(self, plan: Plan) -> int:
        assert self.index is not None, "a gauntlet's challenger is placed when the field is known (fit)"
        return self.index

    def pairing_count(self, plan: Plan) -> int:
        return len(plan.agents) - 1

    def pairing(self, plan: Plan, number: int) -> tuple[int, int]:
        if not 0 <= number < self.pairing_count(plan):
            raise IndexError(f"pairing {number} of {self.pairing_count(plan)}")
        challenger = self.challenger_of(plan)
        return challenger, number + (number >= challenger)

    @classmethod
    def in_words(cls, plan: Mapping[str, Any]) -> str:
        n = len(plan.get("agents", []))
        return (
            f"gauntlet: {plan.get('challenger')} plays each of the {n - 1} others {plan.get('games_per_pair')} "
            "games, both colours equally"
        )
