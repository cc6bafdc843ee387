"""Infinitron heuristics, first layer: path maps to the objectives and capitals, cities' territory, claims and terrain.

The layers build on each other (territory, :mod:`.evaluation`, :mod:`.army`,
:mod:`.candidates`), and :class:`~agents.common.heuristics.infinitron.InfinitronHeuristics`
is the last; the package's docstring describes the whole.
"""
from __future__ import annotations

from collections.abc import Sequence

from referee.games.infinitron.engine import (
    BLOCK,
    CLAIM,
    DESTROYED,
    IMPASSABLE,
    LABEL,
    LAVA,
    MAX_TEMPLATES,
    PLAIN,
    REPAIR,
    TERRAIN,
    InfinitronState,
)
from referee.games.infinitron.geometry import CELL_COUNT, DISTANCE, STEPS

from ..base import Heuristics

#: Path distances beyond the board's diameter mean "cannot get there".
FAR = 20
#: Ground codes units cannot cross (BLOCK and RUBBLE), as a 256-byte table.
IMPASSABLE_GROUND = bytes(IMPASSABLE[i] if i < len(IMPASSABLE) else 0 for i in range(256))
#: A claim's score: territory is free to take once (its captor's turn) and kept for the game.
CLAIM_SCORE = 4.0
#: Most TERRAIN candidates at a node (their kinds and cells are many; the candidate list is short).
TERRAIN_CANDIDATES = 3


def path_distances(sources: Sequence[int], blocked: bytes) -> list[int]:
    """Steps from the nearest source over passable cells (units ignored)."""
    dist = [FAR] * CELL_COUNT
    frontier = []
    for s in sources:
        dist[s] = 0
        frontier.append(s)
    d = 0
    while frontier:
        d += 1
        nxt = []
        for c in frontier:
            for _, n in STEPS[c]:
                if dist[n] == FAR and not blocked[n]:
                    dist[n] = d
                    nxt.append(n)
        frontier = nxt
    return dist


class Territory(Heuristics[InfinitronState, tuple[int, ...]]):
    """Path maps (cached per map and city ownership), territory tests, and the claim and terrain candidates."""

    # Set by InfinitronHeuristics.__init__ (see its parameters); declared here so that
    # each layer's methods are checked against them.
    rp: int
    city: int
    template: int
    advance: int
    guard: int
    my_threat: float
    their_threat: float
    capture: int
    my_capture: float
    their_capture: float
    candidates: int
    unit_moves: int
    temperature: float
    varied: bool
    adaptive: bool
    plan: tuple[tuple[int, ...], ...]
    _maps: dict[tuple, tuple[list[int], list[int]]]
    _capital_maps: dict[tuple, list[int]]
    _last_list: list | None
    _last_scores: dict | None

    def _objective_maps(self, state: InfinitronState) -> tuple[list[int], list[int]]:
        """Per side, each cell's path distance to the nearest city that side does not hold."""
        blocked = bytes(state.ground).translate(IMPASSABLE_GROUND)
        key = (blocked, tuple(state.city_owner), bytes(state.city_flags))
        found = self._maps.get(key)
        if found is not None:
            return found
        if len(self._maps) > 2000:
            self._maps.clear()
        setup = state.setup
        cities, owner, flags = setup.cities, state.city_owner, state.city_flags
        maps = []
        for side in (0, 1):
            targets = [c for i, c in enumerate(cities) if owner[i] != side and not flags[i] & DESTROYED and i >= 2]
            dist = path_distances(targets, blocked) if targets else [FAR] * CELL_COUNT
            # The enemy capital is reached by standing next to it (see the module's docs).
            cap = path_distances([cities[1 - side]], blocked)
            for c in range(CELL_COUNT):
                d = cap[c] if cap[c] > 1 else 1
                if d < dist[c]:
                    dist[c] = d
            maps.append(dist)
        found = self._maps[key] = (maps[0], maps[1])
        return found

    def _capital_map(self, state: InfinitronState, side: int) -> list[int]:
        """Path distances to ``side``'s capital."""
        blocked = bytes(state.ground).translate(IMPASSABLE_GROUND)
        key = (blocked, side)
        found = self._capital_maps.get(key)
        if found is None:
            if len(self._capital_maps) > 2000:
                self._capital_maps.clear()
            found = self._capital_maps[key] = path_distances([state.setup.cities[side]], blocked)
        return found

    @staticmethod
    def _territory_clear(s: InfinitronState, city: int, side: int) -> bool:
        territory = s.territory(city)
        for cell, _, _ in s.units[1 - side].values():
            if cell in territory:
                return False
        return True

    def _open_capital(self, s: InfinitronState, me: int) -> bool:
        """No unit of ``me`` in its capital's territory, and an enemy unit two turns' walk from the capital."""
        if not self._territory_clear(s, me, 1 - me):
            return False
        cmap = self._capital_map(s, me)
        tpls = s.templates[1 - me]
        return any(tpls[t].move and cmap[cell] <= 2 * tpls[t].move for cell, _, t in s.units[1 - me].values())

    def _claims(self, s: InfinitronState, me: int, out: list) -> None:
        """The claims open this turn, those nearer the enemy capital first.

        A bigger territory is a wider ring the enemy must clear of the
        owner's units before capturing, and room for terrain: the varied
        army also prefers cells that can take terrain (plain and empty),
        since its terrain points are spent right after.
        """
        enemy_cap = s.setup.cities[1 - me]
        ground, occ = s.ground, s.occ
        for i in range(len(s.setup.cities)):
            for c in s.claim_cells(i):
                score = CLAIM_SCORE + 0.1 * (FAR - DISTANCE[c * CELL_COUNT + enemy_cap])
                if self.varied and ground[c] == PLAIN and occ[c] < 0:
                    score += 1.0
                out.append((score, (CLAIM, i, c)))

    def _terrain_commands(self, s: InfinitronState, me: int, cells: list[int], out: list) -> None:
        """The best few TERRAIN commands: the enemy's approach made costly, REPAIR behind, LABEL for SWIFT.

        A cell nearer the enemy capital than the city whose territory holds
        it is on the approach ("front").  Not the cells next to the city:
        own units are built there and walk out through them.  Further out,
        BLOCK where it is legal (not walling off a capital) and leaves this
        side's own way to the enemy capital no longer (allowing a step more
        each time let BLOCKs add up to walls), else LABEL when the army has
        a SWIFT template (its steps there are free), else LAVA.  One REPAIR
        per territory, on a cell off the front.  While claims are open they
        come first: terrain goes on the claimed cells.
        """
        setup = s.setup
        cities = setup.cities
        enemy_cap = cities[1 - me]
        own_cap = cities[me]
        tpls = s.templates[me]
        swift = any(t.swift for t in tpls) or (self.adaptive and len(tpls) < MAX_TEMPLATES)
        ground = s.ground
        claims_open = any(s.claim_cells(i) for i in range(len(cities)) if s.claiming >> i & 1)
        shift = -6.0 if claims_open else 0.0
        route = self._capital_map(s, 1 - me)[own_cap]
        blocked = bytearray(bytes(ground).translate(IMPASSABLE_GROUND))
        repaired: set[int] = set()
        for i, territory in enumerate(s.territories):
            if any(ground[c] == REPAIR for c in territory):
                repaired.add(i)
        found: list[tuple[float, tuple[int, ...]]] = []
        repair_at: dict[int, int] = {}
        for c in cells:
            pool = s._terrain_pool(c)
            city = cities[pool]
            to_enemy = DISTANCE[c * CELL_COUNT + enemy_cap]
            if to_enemy < DISTANCE[city * CELL_COUNT + enemy_cap]:
                if DISTANCE[c * CELL_COUNT + city] <= 1:
                    # Not next to the city: own units are built there and step through
                    # (in greedy games against the fixed army: 35-25 with LAVA there, 41-19 without).
                    continue
                blocked[c] = 1
                if s.capitals_joined(c) and path_distances([enemy_cap], bytes(blocked))[own_cap] <= route:
                    found.append((8.0, (TERRAIN, BLOCK, c)))
                blocked[c] = 0
                found.append((7.0 if swift else 6.0, (TERRAIN, LABEL if swift else LAVA, c)))
            elif pool not in repaired:
                best = repair_at.get(pool)
                if best is None or to_enemy < DISTANCE[best * CELL_COUNT + enemy_cap]:
                    repair_at[pool] = c
        found.extend((5.0, (TERRAIN, REPAIR, c)) for c in repair_at.values())
        found.sort(key=lambda sa: -sa[0])
        out.extend((sc + shift, a) for sc, a in found[:TERRAIN_CANDIDATES])
