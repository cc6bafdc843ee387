"""An Infinitron position: its fields and the questions asked of it.

Representation, chosen for plain-Python speed:

* cells are numbers 0..90 (:mod:`.geometry`); ``ground`` is a ``bytearray`` of
  cell codes (plain, the four terrains, a fish token) and ``occ`` a list
  holding ``-1`` for an empty cell or ``uid * 2 + player`` for a unit;
* a player's units are a dict ``uid -> (cell, hp, template index)`` in
  building order; templates are shared immutable :class:`.rules.Template` values.

The mutable fields are declared once, in :data:`FIELDS`; snapshot, undo,
copy and key are derived from that declaration.

:class:`InfinitronPosition` holds the fields and the queries (whose turn, the
outcome, territories, which cells a unit can step to); the rules that change a
position are in :mod:`.state`.  The legality checks (:mod:`.legality`) and the
drawing (:mod:`.render`) read a position through this class, and the state
uses both: so they import this module, never :mod:`.state`.
"""
from __future__ import annotations

from typing import Any

from ..base import BLUE, CHANCE, RED, GameState, Outcome
from ..fields import AS_BYTES, AS_TUPLE, COPY, PAIR, PAIR_ITEMS, SORTED_ITEMS, Field, StateFields
from .geometry import CELL_COUNT, CELLS, STEPS
from .movement import capitals_joined, step_cells
from .notation import cell_of
from .rules import FISH, IMPASSABLE, PLAIN, RUBBLE, TERRAIN_NAMES, WIN_SCORE_LEAD, Template
from .setup import Setup, default_cities


# Keys written as expressions (format strings, like the constants of
# :mod:`..fields`), so that the generated key() makes no extra calls.
_SETUP_KEY = "({0}.cities, {0}.chaos, {0}.armour, {0}.max_turns, {0}.rules)"
# The DEFINE numbers (the first five fields and the armour code) decide the rest.
_TEMPLATES_KEY = "tuple([tuple([t[:5] + t[12:13] for t in ts]) for ts in {0}])"


#: The state's fields: how each is copied and keyed.  ``occ`` follows from
#: ``units`` and ``count`` is not part of the position, so neither is keyed;
#: ``setup`` never changes, so undo need not save it.
FIELDS = StateFields(
    (
        Field("setup", key=_SETUP_KEY, undo=False),
        Field("ground", COPY, AS_BYTES),
        Field("occ", COPY, None),
        Field("units", PAIR, PAIR_ITEMS),
        Field("templates", COPY, _TEMPLATES_KEY),
        Field("city_owner", COPY, AS_TUPLE),
        Field("city_flags", COPY, AS_BYTES),
        Field("rp", COPY, AS_TUPLE),
        Field("terrain_points"),
        Field("turn"),
        Field("commands"),
        Field("active"),
        Field("active_points"),
        Field("done", COPY, SORTED_ITEMS),
        Field("territories"),
        Field("claiming"),
        Field("rubble", COPY, SORTED_ITEMS),
        Field("chance_pending"),
        Field("next_uid", COPY, AS_TUPLE),
        Field("winner"),
        Field("count", key=None),
    ),
    transient=("_history", "_keep_history"),
)


# Outcomes

RED_CAPTURES = Outcome(RED, "capital")
BLUE_CAPTURES = Outcome(BLUE, "capital")
RED_ON_SCORE = Outcome(RED, "turn_limit")
BLUE_ON_SCORE = Outcome(BLUE, "turn_limit")
DRAW_ON_SCORE = Outcome(None, "turn_limit")


class InfinitronPosition(GameState[tuple[int, ...]]):
    """The fields of an Infinitron position and the questions asked of it (no rule that changes it).

    Only :class:`.state.InfinitronState` is made; this class is its first half.
    """

    __slots__ = FIELDS.slots

    def __init__(self, setup: Setup | None = None):
        """The fields of the starting position (the state then rolls for chaos or starts Red's turn)."""
        self.setup = setup if setup is not None else Setup(default_cities())
        self.ground = bytearray(CELL_COUNT)
        self.occ: list[int] = [-1] * CELL_COUNT
        self.units: list[dict[int, tuple[int, int, int]]] = [{}, {}]
        self.templates: list[tuple[Template, ...]] = [(), ()]
        n = len(self.setup.cities)
        self.city_owner: list[int] = [RED, BLUE] + [-1] * (n - 2)
        self.city_flags = bytearray(n)
        self.rp = [0, 0]
        self.terrain_points: tuple[int, ...] = self.setup.no_points
        self.turn = 0  # player turns completed; Red plays the even ones
        self.commands = 0  # commands in this turn so far, END_TURN not counted
        self.active = -1  # the unit last commanded this turn
        self.active_points = 0  # the movement points it has left
        self.done: dict[int, int] = {}  # uid -> why it can do nothing more this turn
        #: Each city's territory (cell sets, immutable: claims replace them).
        self.territories: tuple[frozenset[int], ...] = self.setup.start_territory
        self.claiming = 0  # bit i: city i takes CLAIMs this turn
        self.rubble: dict[int, int] = {}  # cell -> the turn count at which its rubble clears
        self.chance_pending = False
        self.next_uid = [0, 0]
        self.winner: int | None = None  # set when a capital is captured
        self.count = 0
        self._history: list[tuple[Any, ...]] = []
        self._keep_history = True

    @property
    def current_player(self) -> int:
        return CHANCE if self.chance_pending else self.turn & 1

    @property
    def player(self) -> int:
        """Whose turn it is (RED or BLUE), also while a chaos roll is pending."""
        return self.turn & 1

    @property
    def move_count(self) -> int:
        return self.count

    @property
    def outcome(self) -> Outcome | None:
        if self.winner is not None:
            return RED_CAPTURES if self.winner == RED else BLUE_CAPTURES
        if self.turn >= self.setup.max_turns:
            red, blue = self.score(RED), self.score(BLUE)
            if red - blue >= WIN_SCORE_LEAD:
                return RED_ON_SCORE
            if blue - red >= WIN_SCORE_LEAD:
                return BLUE_ON_SCORE
            return DRAW_ON_SCORE
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None or self.turn >= self.setup.max_turns

    def score(self, player: int) -> int:
        """Resource values of the cities ``player`` controls plus the costs of its living units."""
        templates = self.templates[player]
        cities = sum(v for v, o in zip(self.setup.resources, self.city_owner) if o == player)
        return cities + sum(templates[t].cost for _, _, t in self.units[player].values())

    def income(self, player: int) -> int:
        return sum(v for v, o in zip(self.setup.resources, self.city_owner) if o == player)

    def unit_at(self, r: int, q: int) -> tuple[int, int] | None:
        """``(player, uid)`` of the unit on a cell, or None."""
        o = self.occ[cell_of(r, q)]
        return None if o < 0 else (o & 1, o >> 1)

    def unit(self, player: int, uid: int) -> tuple[tuple[int, int], int, Template] | None:
        """``((r, q), hp, template)`` of a living unit, or None."""
        u = self.units[player].get(uid)
        if u is None:
            return None
        return CELLS[u[0]], u[1], self.templates[player][u[2]]

    def terrain_at(self, r: int, q: int) -> str:
        """``PLAIN``, ``BLOCK``, ``LAVA``, ``REPAIR``, ``LABEL``, ``RUBBLE`` or ``FISH`` (a token on plain ground)."""
        g = self.ground[cell_of(r, q)]
        return "FISH" if g == FISH else "RUBBLE" if g == RUBBLE else TERRAIN_NAMES[g]

    def territory(self, city: int) -> frozenset[int]:
        """The cell indices of city ``city``'s territory (cities numbered as in the setup).

        A capital's starts as its six neighbours, a neutral city's empty;
        claims add to them (see CLAIM).
        """
        return self.territories[city]

    def movement_points(self, player: int, uid: int) -> int:
        """The movement points unit ``uid`` has left this turn (0 once it cannot move any more)."""
        u = self.units[player].get(uid)
        if u is None or player != self.turn & 1 or uid in self.done:
            return 0
        return self.active_points if uid == self.active else self.templates[player][u[2]].budget

    def step_cells(self, uid: int) -> list[int]:
        """The cells the player to move's unit ``uid`` can MOVE (step) to now, ascending."""
        p = self.turn & 1
        u = self.units[p].get(uid)
        if u is None or uid in self.done or self.chance_pending or self.is_over:
            return []
        return step_cells(self.occ, self.ground, u[0], self.movement_points(p, uid), self.templates[p][u[2]])

    def claim_cells(self, city: int) -> list[int]:
        """The cells a CLAIM for ``city`` may add now, ascending ([] when the city takes no claims)."""
        if not self.claiming >> city & 1 or self.chance_pending or self.is_over:
            return []
        mine = self.territories[city]
        if len(mine) >= self.setup.territory_max[city]:
            return []
        taken: set[int] = set()
        for t in self.territories:
            taken |= t
        city_at = self.setup.city_at
        out: set[int] = set()
        for c in (self.setup.cities[city], *mine):
            for _, n in STEPS[c]:
                if n not in taken and city_at[n] < 0:
                    out.add(n)
        return sorted(out)

    def capitals_joined(self, also_blocked: int = -1) -> bool:
        """Whether passable cells (not BLOCK or RUBBLE; units ignored) join the capitals, ``also_blocked`` blocked."""
        return capitals_joined(self.ground, also_blocked)

    def city_cells(self) -> list[tuple[int, int]]:
        """Every city's cell: Red's capital, Blue's, then the neutral ones."""
        return [CELLS[c] for c in self.setup.cities]

    def _build_cells(self, p: int) -> list[int]:
        setup, occ, ground = self.setup, self.occ, self.ground
        zone: set[int] = set()
        for i, owner in enumerate(self.city_owner):
            if owner == p:
                zone.update(setup.build_zone[i])
        return [c for c in sorted(zone) if occ[c] < 0 and not IMPASSABLE[ground[c]]]

    def _terrain_cells(self) -> list[int]:
        setup, occ, ground = self.setup, self.occ, self.ground
        zone: set[int] = set()
        for i, points in enumerate(self.terrain_points):
            if points:
                zone |= self.territories[i]
        city_at = setup.city_at
        return [c for c in sorted(zone) if ground[c] == PLAIN and occ[c] < 0 and city_at[c] < 0]

    def _terrain_pool(self, cell: int) -> int:
        """The city whose terrain points pay for terrain on ``cell``: the lowest-numbered with points."""
        territory = self.territories
        for i, points in enumerate(self.terrain_points):
            if points and cell in territory[i]:
                return i
        return -1

    def _fish_cells(self) -> list[int]:
        """Cells a fish token may be put on: plain, empty, not a city."""
        occ, ground, city_at = self.occ, self.ground, self.setup.city_at
        return [c for c in range(CELL_COUNT) if ground[c] == PLAIN and occ[c] < 0 and city_at[c] < 0]
