"""Infinitron's fixed setup: the cities (drawn from the game seed), chaos and the turn limit.

:class:`Setup` holds what stays the same for a whole game, with the tables
derived from the cities; :func:`neutral_cities_from_seed` is the rules' draw
of the neutral cities, which must give the same cities on every Python.
"""
from __future__ import annotations

import random
from collections.abc import Iterable

from .geometry import CELL_COUNT, CELLS, DISTANCE, INDEX, WITHIN_1, hex_distance
from .rules import (
    CAPITAL_RESOURCES,
    CAPITAL_TERRAIN,
    CAPITAL_TERRITORY_MAX,
    CAPITALS,
    CITY_MIN_DISTANCE_FROM_CAPITALS,
    CITY_MIN_SPACING,
    CITY_RESOURCES,
    CITY_TERRAIN,
    DEFAULT_RULES,
    MAX_TURNS,
    NEUTRAL_CITY_PAIRS,
    NEUTRAL_TERRITORY_MAX,
    OPENING_RP,
)


class Setup:
    """What stays fixed during a game: cities, chaos, armour, the turn limit, the rules version.

    City 0 is Red's capital, city 1 Blue's, then the neutral cities in
    ascending cell order.  Territories are not fixed (claims shape them): the
    state holds them; ``start_territory`` is each city's at the start.
    """

    __slots__ = (
        "chaos",
        "armour",
        "max_turns",
        "cities",
        "resources",
        "terrain_values",
        "city_at",
        "start_territory",
        "territory_max",
        "build_zone",
        "asteroid_cells",
        "no_points",
        "rules",
        "opening_rp",
    )

    def __init__(
        self,
        neutral_cities: Iterable[int],
        chaos: bool = False,
        max_turns: int = MAX_TURNS,
        armour: bool = False,
        rules: str = DEFAULT_RULES,
    ):
        self.chaos = chaos
        self.rules = rules
        self.opening_rp: tuple[tuple[int, ...], tuple[int, ...]] = OPENING_RP[rules]
        self.armour = armour
        self.max_turns = max_turns
        self.cities: tuple[int, ...] = CAPITALS + tuple(sorted(neutral_cities))
        n = len(self.cities)
        self.resources = (CAPITAL_RESOURCES,) * 2 + (CITY_RESOURCES,) * (n - 2)
        self.terrain_values = (CAPITAL_TERRAIN,) * 2 + (CITY_TERRAIN,) * (n - 2)
        city_at = [-1] * CELL_COUNT
        for i, c in enumerate(self.cities):
            city_at[c] = i
        self.city_at = tuple(city_at)
        # A capital starts with its six neighbours; a neutral city has no territory until claims.
        self.start_territory = tuple(
            frozenset(WITHIN_1[c]) - {c} if i < 2 else frozenset() for i, c in enumerate(self.cities)
        )
        self.territory_max = (CAPITAL_TERRITORY_MAX,) * 2 + (NEUTRAL_TERRITORY_MAX,) * (n - 2)
        self.build_zone = tuple(WITHIN_1[c] for c in self.cities)
        self.asteroid_cells = tuple(
            c
            for c in range(CELL_COUNT)
            if all(DISTANCE[c * CELL_COUNT + cap] >= CITY_MIN_DISTANCE_FROM_CAPITALS for cap in CAPITALS)
        )
        self.no_points = (0,) * n


def uniform_index(rng: random.Random, n: int) -> int:
    # random() is the one Random method whose sequence Python keeps the same
    # across versions, so a seed gives the same draws everywhere.
    return int(rng.random() * n)


def neutral_cities_from_seed(seed: int) -> tuple[tuple[int, int], ...]:
    """The four neutral cities the rules choose with ``seed``, in ascending order.

    Two mirrored pairs ``(r, q)`` / ``(-r, -q)`` drawn uniformly, in turn, among
    the cells at distance >= 3 from both capitals and >= 2 from every city
    already placed (and from the cell's own mirror).
    """
    rng = random.Random(seed)
    capitals = [CELLS[c] for c in CAPITALS]
    placed: list[tuple[int, int]] = []
    for _ in range(NEUTRAL_CITY_PAIRS):
        candidates = [
            (r, q)
            for r, q in CELLS
            if all(hex_distance((r, q), cap) >= CITY_MIN_DISTANCE_FROM_CAPITALS for cap in capitals)
            and all(hex_distance((r, q), city) >= CITY_MIN_SPACING for city in placed)
            and hex_distance((r, q), (-r, -q)) >= CITY_MIN_SPACING
        ]
        r, q = candidates[uniform_index(rng, len(candidates))]
        placed += [(r, q), (-r, -q)]
    return tuple(sorted(placed))


def default_cities() -> Iterable[int]:
    """The neutral cities' cells of the default game (seed 0)."""
    return (INDEX[rq] for rq in neutral_cities_from_seed(0))
