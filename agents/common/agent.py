"""What the bundled search agents share: following the game, options, the clock.

A bundled agent is a :class:`SearchAgent` with a :meth:`~SearchAgent.choose`
method.  Options come from the referee's keyword arguments (a tournament
passes an agent's ``options`` there): each agent declares the ones it takes
with their types, and a wrong one stops the agent at construction with a
message naming it, which the referee reports as a load error.
"""
from __future__ import annotations

import random
from typing import Any
from collections.abc import Hashable, Mapping

from referee.agentkit import GameView
from referee.games.agent_kwargs import REFEREE_KWARGS

from .clock import Deadline, clock_remaining, move_budget, move_extension, safety_margin
from .heuristics import heuristics_for

#: Options every bundled agent takes: name -> (type, default).
COMMON_OPTIONS: dict[str, tuple[type, Any]] = {
    # Seconds per move when the referee sets no time limit.
    "move_time": (float, 0.5),
    # An upper bound on the seconds of any one move (none by default).
    "max_move_time": (float, None),
    # Keyword arguments for the game's heuristics (evaluation weights...).
    "heuristics": (dict, None),
}

#: Below this share of its safety margin left, an agent plays the game's hurry action unsearched (if any).
#: At the whole margin, minimax at -t 1 in armour games of Infinitron lost 5 of 6 to greedy (ending every
#: turn from half-way on); with none, it lost one of 6 on time.
HURRY_SHARE = 0.5

#: Referee keyword arguments that are not agent options (besides the game's own).
REFEREE_KEYS = frozenset(REFEREE_KWARGS)


class OptionError(ValueError):
    """An agent option with a wrong name or type."""


def read_options(
    agent: str,
    referee: Mapping[str, Any],
    declared: Mapping[str, tuple[type, Any]],
    skip: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """The declared options from ``referee``, type-checked, with their defaults.

    Keys the referee itself sends (and those in ``skip``, the game's own) are
    passed over; any other unknown key is an error, so a misspelt option in a
    tournament config does not go unnoticed.
    """
    values = {name: default for name, (_, default) in declared.items()}
    for key, value in referee.items():
        if key in REFEREE_KEYS or key in skip:
            continue
        if key not in declared:
            known = ", ".join(sorted(declared))
            raise OptionError(f"{agent}: unknown option {key!r} (it takes: {known})")
        kind = declared[key][0]
        if value is None:
            values[key] = None
            continue
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            raise OptionError(f"{agent}: option {key!r} must be {kind.__name__}, not {value!r}")
        if kind in (int, float) and isinstance(value, (int, float)) and value < 0:  # isinstance: for mypy
            raise OptionError(f"{agent}: option {key!r} must not be negative, not {value!r}")
        values[key] = value
    return values


class SearchAgent:
    """Follows the game through :class:`GameView` and times each decision."""

    #: The agent's name in messages and in its seed.
    name = "search"
    #: Options this agent takes beyond :data:`COMMON_OPTIONS`.
    options: dict[str, tuple[type, Any]] = {}

    def __init__(self, color: Any, **referee: Any):
        self.view = GameView(color, referee)
        self.config = read_options(
            self.name, referee, {**COMMON_OPTIONS, **self.options}, frozenset(self.view.game.agent_kwargs)
        )
        try:
            self.heuristics = heuristics_for(self.view.game, **(self.config["heuristics"] or {}))
        except TypeError as exc:
            raise OptionError(f"{self.name}: bad heuristics option: {exc}") from None
        seed = referee.get("seed")
        # Mix in the agent and colour so two seeded agents do not mirror each other.
        self.rng = random.Random(None if seed is None else f"{seed}:{self.name}:{self.view.me}")
        self.space_limit: float | None = referee.get("space_limit")
        self.last: Any = None  # what the last search reported (for tests and tuning)
        # The first time_remaining the referee gives is (all but the start-up's
        # CPU of) the game's limit: the margin is a share of that, fixed for the game.
        self.margin: float | None = None
        if "time_remaining" in referee:
            self.margin = safety_margin(referee["time_remaining"])

    def action(self, **referee: Any) -> Any:
        state = self.view.state
        # On the battleground the server's wall clock runs too: the budget comes from whichever clock is shorter.
        wall = referee.get("wall_remaining")
        remaining = clock_remaining(referee.get("time_remaining"), wall)
        if self.margin is None:
            self.margin = safety_margin(remaining)
        if remaining is not None and remaining < HURRY_SHARE * self.margin:
            # Deep into the margin: what the budgets did not cover (each call's own costs) is eating the clock.
            hurried = self.heuristics.hurry_action(state)
            if hurried is not None:
                return self.view.to_agent(hurried)
        budget = move_budget(
            remaining,
            self.heuristics.moves_left(state),
            default=self.config["move_time"],
            cap=self.config["max_move_time"],
            margin=self.margin,
        )
        # An agent that takes the option may go on past its budget while the move is in doubt.
        most = move_extension(
            remaining, budget, self.config.get("extend") or 1.0, cap=self.config["max_move_time"], margin=self.margin
        )
        return self.view.to_agent(self.choose(Deadline(budget, most, wall=wall is not None)))

    def turn(self, color: Any, action: Any, **referee: Any) -> None:
        self.observed(self.view.observe(action))

    def choose(self, deadline: Deadline) -> Hashable:
        """The engine action to play now, decided before ``deadline``."""
        raise NotImplementedError

    def observed(self, action: Hashable) -> None:
        """Called after every action of the game has been applied to the view."""

    def memory_share(self, per_item_bytes: int, default_items: int) -> int:
        """How many table entries or tree nodes fit in a third of the space limit."""
        if not self.space_limit:
            return default_items
        return max(1_000, min(default_items, int(self.space_limit * 1_000_000 / 3 / per_item_bytes)))
