"""The Infinitron game: its options, checked, and the starting position they give."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..base import Game, GameOptionError, check_options
from .geometry import INDEX, on_board
from .rules import CAPITALS, DEFAULT_RULES, MAX_TURNS, RULES_VERSIONS
from .setup import Setup, neutral_cities_from_seed
from .state import InfinitronState


class Infinitron(Game[tuple[int, ...]]):
    """Infinitron Skirmish.

    Options: ``chaos`` (bool, default False); ``armour`` (bool, default
    False): templates may carry an armour layout; ``seed`` (int, default 0): chooses
    the neutral cities; ``cities`` (a list of ``[r, q]`` cells): the neutral
    cities given outright, taking precedence over ``seed``; ``max_turns``
    (default 343): the turn limit, for short games in tests; ``rules`` (``"1.2"``,
    the default, or ``"1.1"``): the rules version (1.2 adjusts the first turns'
    RP, see docs/infinitron.md).
    """

    name = "infinitron"
    reasons = ("capital", "turn_limit")
    one_action_per_turn = False

    def __init__(self, **options: Any):
        check_options(self.name, options, ("chaos", "armour", "seed", "cities", "max_turns", "rules"))
        super().__init__(**options)
        chaos = options.get("chaos", False)
        if type(chaos) is not bool:
            raise GameOptionError(f"infinitron: option chaos must be true or false, not {chaos!r}")
        armour = options.get("armour", False)
        if type(armour) is not bool:
            raise GameOptionError(f"infinitron: option armour must be true or false, not {armour!r}")
        max_turns = options.get("max_turns", MAX_TURNS)
        if type(max_turns) is not int or not 1 <= max_turns <= 100_000:
            raise GameOptionError(f"infinitron: option max_turns must be a whole number 1..100000, not {max_turns!r}")
        rules = options.get("rules", DEFAULT_RULES)
        if type(rules) is not str or rules not in RULES_VERSIONS:
            versions = " or ".join(f'"{v}"' for v in RULES_VERSIONS)
            raise GameOptionError(f"infinitron: option rules must be {versions} (a string), not {rules!r}")
        self.rules: str = rules
        neutral: Sequence[tuple[int, int]]
        if options.get("cities") is not None:
            neutral = _cities_option(options["cities"])
        else:
            seed = options.get("seed")
            if seed is None:
                seed = 0
            if type(seed) is not int:
                raise GameOptionError(f"infinitron: option seed must be a whole number, not {seed!r}")
            neutral = neutral_cities_from_seed(seed)
        self.neutral_cities: tuple[tuple[int, int], ...] = tuple(sorted(neutral))
        self.setup = Setup(
            (INDEX[rq] for rq in self.neutral_cities), chaos=chaos, max_turns=max_turns, armour=armour, rules=rules
        )

    def new_state(self) -> InfinitronState:
        return InfinitronState(self.setup)

    @property
    def agent_kwargs(self) -> dict[str, Any]:
        return {"neutral_cities": [list(rq) for rq in self.neutral_cities]}

    @classmethod
    def seeded_options(cls, options: Mapping[str, Any], seed: int | None) -> dict[str, Any]:
        """The game seed places the cities, unless the options fix them (``seed`` or ``cities``)."""
        out = dict(options)
        if seed is not None and "seed" not in out and "cities" not in out:
            out["seed"] = seed
        # Said outright, so that the record still names its rules once the default changes again.
        out.setdefault("rules", DEFAULT_RULES)
        return out

    @classmethod
    def recorded_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """A record without ``rules`` was written before 1.2 existed, when every game was 1.1."""
        out = dict(options)
        out.setdefault("rules", "1.1")
        return out


def _cities_option(value: object) -> list[tuple[int, int]]:
    if not isinstance(value, (list, tuple)):
        raise GameOptionError(f"infinitron: option cities must be a list of [r, q] cells, not {value!r}")
    cells: list[tuple[int, int]] = []
    for i, item in enumerate(value):
        if (
            not isinstance(item, (list, tuple))
            or len(item) != 2
            or not all(type(x) is int for x in item)
        ):
            raise GameOptionError(
                f"infinitron: option cities, item {i}: expected [r, q] with whole numbers, not {item!r}"
            )
        r, q = item
        if not on_board(r, q):
            raise GameOptionError(f"infinitron: option cities, item {i}: ({r}, {q}) is off the board")
        if INDEX[(r, q)] in CAPITALS:
            raise GameOptionError(f"infinitron: option cities, item {i}: ({r}, {q}) is a capital")
        if (r, q) in cells:
            raise GameOptionError(f"infinitron: option cities, item {i}: ({r}, {q}) is listed twice")
        cells.append((r, q))
    return cells
