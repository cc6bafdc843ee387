"""The Infinitron position: queries, legal commands, apply and undo, copies and keys.

Representation, chosen for plain-Python speed:

* cells are numbers 0..90 (:mod:`.geometry`); ``ground`` is a ``bytearray`` of
  cell codes (plain, the four terrains, a fish token) and ``occ`` a list
  holding ``-1`` for an empty cell or ``uid * 2 + player`` for a unit;
* a player's units are a dict ``uid -> (cell, hp, template index)`` in
  building order; templates are shared immutable :class:`.rules.Template` values;
* undo keeps one snapshot of every mutable part per action: a few small
  copies, cheaper in Python than journaling each change, and exact.

The mutable fields are declared once, in :data:`FIELDS`; snapshot, undo,
copy and key are derived from that declaration.

Version 1.1 of the rules: territories are claimed (``territories``, read
through :meth:`InfinitronState.territory`), MOVE is one step (the commanded
unit's points left are ``active_points``), asteroids leave ``rubble`` that
clears, and with the ``armour`` option templates carry armour layouts.

Chance: with the ``chaos`` option, before each of Red's turns the state waits
for chance (``current_player == CHANCE``); :meth:`InfinitronState.sample_chance`
draws ``NO_EVENT``, ``ASTEROID(r, q)`` or ``FISH_MARKET(...)`` from the RNG it
is given and applying that action runs Red's turn start.
"""
from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

from ..base import BLUE, CHANCE, PLAYER_NAMES, RED, GameState, Outcome, count_of
from ..fields import AS_BYTES, AS_TUPLE, COPY, PAIR, PAIR_ITEMS, SORTED_ITEMS, Field, StateFields
from .geometry import BLOCKERS, CELL_COUNT, CELLS, DISTANCE, FACING, STEPS, WITHIN_1, WITHIN_2
from .legality import illegal_reason
from .movement import capitals_joined, step_cells, step_cost
from .notation import KIND_WORDS, action_to_str, cell_of, define, parse_action
from .rules import (
    ABILITY,
    ABILITY_AMOUNTS,
    ABILITY_PRICES,
    ALL_DEFINES,
    ASTEROID,
    ATTACK,
    BLOCK,
    BUILD,
    CHAOS_ODDS,
    CLAIM,
    CLAIMED,
    DEFINE,
    DEFINE_PRICE,
    DESTROYED,
    DONE_ACTED,
    DONE_BUILT,
    DONE_SUPERSEDED,
    END,
    END_TURN_ACTION,
    FISH,
    FISH_MARKET,
    FISH_TOKENS,
    HEAL2,
    IMPASSABLE,
    LAVA,
    LAVA_DAMAGE,
    MAX_COMMANDS,
    MAX_TEMPLATES,
    MAX_UNITS,
    MOVE,
    NO_EVENT,
    NO_EVENT_ACTION,
    PLAIN,
    REPAIR,
    REPAIR_HEAL,
    REPAIR_PRICE,
    RUBBLE,
    RUBBLE_TURNS,
    SWIFT,
    TERRAIN,
    TERRAIN_KINDS,
    TERRAIN_NAMES,
    WIN_SCORE_LEAD,
    Template,
    all_armoured_defines,
    define_problem,
    template_of,
)
from .setup import Setup, default_cities, uniform_index


# Keys written as expressions (format strings, like the constants of
# :mod:`..fields`), so that the generated key() makes no extra calls.
_SETUP_KEY = "({0}.cities, {0}.chaos, {0}.armour, {0}.max_turns)"
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


# ---------------------------------------------------------------------------
# The state


class InfinitronState(GameState):
    """An Infinitron position, with the undo history of the actions that led to it."""

    __slots__ = FIELDS.slots

    def __init__(self, setup: Setup | None = None):
        """The starting position (chaos roll pending, or Red's first turn begun)."""
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
        if self.setup.chaos:
            self.chance_pending = True
        else:
            self._start_turn(RED)

    # -- queries ------------------------------------------------------------

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

    def legal_actions(self) -> list[tuple[int, ...]]:  # type: ignore[override]
        """Every legal command of the player to move ([] while chance acts or once over)."""
        if self.chance_pending or self.is_over:
            return []
        if self.commands >= MAX_COMMANDS:
            return [END_TURN_ACTION]
        p = self.turn & 1
        rp = self.rp[p]
        templates = self.templates[p]
        units = self.units[p]
        occ = self.occ
        acts: list[tuple[int, ...]] = []
        if len(templates) < MAX_TEMPLATES and rp >= DEFINE_PRICE:
            acts.extend(ALL_DEFINES)
            if self.setup.armour:
                acts.extend(all_armoured_defines())
        if len(units) < MAX_UNITS:
            affordable = [t for t, tm in enumerate(templates) if tm.cost <= rp]
            if affordable:
                cells = self._build_cells(p)
                for t in affordable:
                    acts.extend([(BUILD, t, c) for c in cells])
        enemy = self.units[1 - p]
        done = self.done
        ground = self.ground
        for uid, (cell, _, t) in units.items():
            if uid in done:
                continue
            tm = templates[t]
            points = self.active_points if uid == self.active else tm.budget
            if points or tm.swift:
                acts.extend([(MOVE, uid, c) for c in step_cells(occ, ground, cell, points, tm)])
            if tm.damage:
                lo, hi = tm.min_range, tm.max_range
                base = cell * CELL_COUNT
                for ecell, _, _ in enemy.values():
                    d = DISTANCE[base + ecell]
                    if lo <= d <= hi and (d < 2 or all(occ[b] < 0 for b in BLOCKERS[base + ecell])):
                        acts.append((ATTACK, uid, ecell))
            ab = tm.ability
            if ab and ab != SWIFT and rp >= ABILITY_PRICES[ab]:
                if ab <= HEAL2:
                    acts.extend([(ABILITY, uid, c) for c in WITHIN_1[cell] if occ[c] >= 0 and occ[c] & 1 == p])
                else:
                    acts.extend([(ABILITY, uid, c) for c in WITHIN_2[cell]])
        if any(self.terrain_points):
            cells = self._terrain_cells()
            for kind in TERRAIN_KINDS:
                if kind == BLOCK:
                    acts.extend([(TERRAIN, kind, c) for c in cells if capitals_joined(ground, c)])
                else:
                    acts.extend([(TERRAIN, kind, c) for c in cells])
        claiming = self.claiming
        i = 0
        while claiming:
            if claiming & 1:
                acts.extend([(CLAIM, i, c) for c in self.claim_cells(i)])
            claiming >>= 1
            i += 1
        acts.append(END_TURN_ACTION)
        return acts

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

    def is_legal(self, action: object) -> bool:
        return self.illegal_reason(action) is None

    def illegal_reason(self, action: object) -> str | None:
        return illegal_reason(self, action)

    def _terrain_pool(self, cell: int) -> int:
        """The city whose terrain points pay for terrain on ``cell``: the lowest-numbered with points."""
        territory = self.territories
        for i, points in enumerate(self.terrain_points):
            if points and cell in territory[i]:
                return i
        return -1

    # -- chance ---------------------------------------------------------------

    def _fish_cells(self) -> list[int]:
        """Cells a fish token may be put on: plain, empty, not a city."""
        occ, ground, city_at = self.occ, self.ground, self.setup.city_at
        return [c for c in range(CELL_COUNT) if ground[c] == PLAIN and occ[c] < 0 and city_at[c] < 0]

    def sample_chance(self, rng: random.Random) -> tuple[int, ...]:
        """Draw the chaos roll: ``NO_EVENT`` (11 in 12), else ``ASTEROID`` or ``FISH_MARKET`` evenly.

        Uses only ``rng.random()``, whose sequence Python keeps the same across
        versions, so a seeded game replays identically.
        """
        if not self.chance_pending:
            raise ValueError("no chaos roll is due: current_player is not CHANCE")
        if uniform_index(rng, CHAOS_ODDS) != 0:
            return NO_EVENT_ACTION
        if uniform_index(rng, 2) == 0:
            cells = self.setup.asteroid_cells
            return (ASTEROID, cells[uniform_index(rng, len(cells))])
        free = self._fish_cells()
        chosen = []
        for _ in range(min(FISH_TOKENS, len(free))):
            chosen.append(free.pop(uniform_index(rng, len(free))))
        return (FISH_MARKET, *sorted(chosen))

    # -- changes ------------------------------------------------------------

    def undo(self) -> None:
        if not self._history:
            raise IndexError("no action to undo")
        FIELDS.restore(self, self._history.pop())

    def apply(self, action: tuple[int, ...]) -> None:  # type: ignore[override]
        if self._keep_history:
            self._history.append(FIELDS.snapshot(self))
        self.count += 1
        kind = action[0]
        if kind == END:
            self._end_turn()
            return
        if NO_EVENT <= kind <= FISH_MARKET:
            self._chaos(action)
            return
        self.commands += 1
        p = self.turn & 1
        if kind == MOVE:
            self._command(action[1])
            self._move(p, action[1], action[2])
        elif kind == ATTACK:
            uid = action[1]
            self._command(uid)
            self.done[uid] = DONE_ACTED
            self.active = -1
            cell, _, t = self.units[p][uid]
            self._damage(action[2], self.templates[p][t].damage, cell)
        elif kind == ABILITY:
            uid = action[1]
            self._command(uid)
            self.done[uid] = DONE_ACTED
            self.active = -1
            cell, _, t = self.units[p][uid]
            ab = self.templates[p][t].ability
            self.rp[p] -= ABILITY_PRICES[ab]
            target = action[2]
            if ab <= HEAL2:
                self._heal(p, self.occ[target] >> 1, ABILITY_AMOUNTS[ab])
            else:
                for c in WITHIN_1[target]:
                    self._damage(c, ABILITY_AMOUNTS[ab], target)
                if uid not in self.units[p]:
                    del self.done[uid]
        elif kind == BUILD:
            tm = self.templates[p][action[1]]
            self.rp[p] -= tm.cost
            uid = self.next_uid[p]
            self.next_uid[p] = uid + 1
            self.units[p][uid] = (action[2], tm.max_hp, action[1])
            self.occ[action[2]] = uid * 2 + p
            self.done[uid] = DONE_BUILT
        elif kind == DEFINE:
            self.rp[p] -= DEFINE_PRICE
            self.templates[p] = self.templates[p] + (template_of(action[1:]),)
        elif kind == CLAIM:
            i = action[1]
            territories = list(self.territories)
            territories[i] = territories[i] | {action[2]}
            self.territories = tuple(territories)
        else:  # TERRAIN
            pool = self._terrain_pool(action[2])
            points = list(self.terrain_points)
            points[pool] -= 1
            self.terrain_points = tuple(points)
            self.ground[action[2]] = action[1]

    def _command(self, uid: int) -> None:
        """Commanding another unit ends the previously commanded one's turn; the new one has its Move's points."""
        active = self.active
        if active != uid:
            p = self.turn & 1
            if active >= 0 and active not in self.done and active in self.units[p]:
                self.done[active] = DONE_SUPERSEDED
            self.active = uid
            u = self.units[p].get(uid)
            self.active_points = self.templates[p][u[2]].budget if u is not None else 0

    def _move(self, p: int, uid: int, target: int) -> None:
        """One step onto an adjacent cell: pay its point, collect a fish, take lava damage, capture."""
        units = self.units[p]
        start, hp, t = units[uid]
        ground = self.ground
        g = ground[target]
        self.active_points -= step_cost(self.templates[p][t], g)
        self.occ[start] = -1
        if g == FISH:
            ground[target] = PLAIN
            self.rp[p] += 1
        elif g == LAVA:
            hp -= LAVA_DAMAGE
            if hp <= 0:  # killed entering: removed there, capturing nothing
                del units[uid]
                return
        units[uid] = (target, hp, t)
        self.occ[target] = uid * 2 + p
        self._capture(p, target)

    def _capture(self, p: int, cell: int) -> None:
        setup = self.setup
        i = setup.city_at[cell]
        if i < 0 or self.city_owner[i] == p or self.city_flags[i] & DESTROYED:
            return
        territory = self.territories[i]  # empty for a never-captured neutral city
        for ecell, _, _ in self.units[1 - p].values():
            if ecell in territory:
                return
        self.city_owner[i] = p
        if i == 1 - p:  # the opponent's capital
            self.winner = p
        elif i >= 2 and not self.city_flags[i] & CLAIMED:
            self.city_flags[i] |= CLAIMED
            self.claiming |= 1 << i  # its first captor shapes its territory this turn
            points = list(self.terrain_points)
            points[i] += setup.terrain_values[i]
            self.terrain_points = tuple(points)

    def _damage(self, cell: int, amount: int, source: int) -> None:
        """Damage to the unit on ``cell`` (if any) coming from ``source``, through its armour."""
        o = self.occ[cell]
        if o < 0:
            return
        owner, uid = o & 1, o >> 1
        units = self.units[owner]
        ucell, hp, t = units[uid]
        tm = self.templates[owner][t]
        if tm.armour:
            sides = FACING[cell * CELL_COUNT + source]  # none at a blast's centre
            if sides:
                # On a tie between two sides the defender gets the better one.
                amount = max(0, amount + min([tm.armour_changes[s] for s in sides]))
        hp -= amount
        if hp <= 0:
            del units[uid]
            self.occ[cell] = -1
        else:
            units[uid] = (ucell, hp, t)

    def _heal(self, p: int, uid: int, amount: int) -> None:
        cell, hp, t = self.units[p][uid]
        self.units[p][uid] = (cell, min(hp + amount, self.templates[p][t].max_hp), t)

    def _end_turn(self) -> None:
        self.terrain_points = self.setup.no_points  # unspent points lapse
        self.turn += 1
        self.commands = 0
        self.active = -1
        self.active_points = 0
        self.done = {}
        self.claiming = 0  # claims end at END_TURN: territories are fixed from now on
        if self.turn >= self.setup.max_turns:
            return
        if self.rubble:
            self._clear_rubble()
        p = self.turn & 1
        if p == RED and self.setup.chaos:
            self.chance_pending = True
        else:
            self._start_turn(p)

    def _start_turn(self, p: int) -> None:
        """Income, then repair pads (lowest unit first, while RP lasts), then first-turn terrain points."""
        self.rp[p] += self.income(p)
        units = self.units[p]
        templates = self.templates[p]
        ground = self.ground
        for uid, (cell, hp, t) in units.items():
            if ground[cell] == REPAIR and self.rp[p] >= REPAIR_PRICE:
                max_hp = templates[t].max_hp
                if hp < max_hp:
                    units[uid] = (cell, min(hp + REPAIR_HEAL, max_hp), t)
                    self.rp[p] -= REPAIR_PRICE
        if self.turn == p:  # the player's first turn: its capital's terrain value and claims
            self.claiming |= 1 << p
            points = list(self.terrain_points)
            points[p] += self.setup.terrain_values[p]
            self.terrain_points = tuple(points)

    def _chaos(self, action: tuple[int, ...]) -> None:
        self.chance_pending = False
        kind = action[0]
        if kind == ASTEROID:
            setup = self.setup
            clears = self.turn + RUBBLE_TURNS
            for c in WITHIN_1[action[1]]:
                o = self.occ[c]
                if o >= 0:
                    del self.units[o & 1][o >> 1]
                    self.occ[c] = -1
                self.ground[c] = RUBBLE
                self.rubble[c] = clears
                i = setup.city_at[c]
                if i >= 0:
                    self.city_flags[i] |= DESTROYED
                    self.city_owner[i] = -1
        elif kind == FISH_MARKET:
            for c in action[1:]:
                self.ground[c] = FISH
        self._start_turn(RED)

    def _clear_rubble(self) -> None:
        """Rubble that has lasted its turns becomes plain ground again."""
        turn = self.turn
        for c, clears in list(self.rubble.items()):
            if clears <= turn:
                del self.rubble[c]
                self.ground[c] = PLAIN

    # -- copies, keys, text ----------------------------------------------------

    def copy(self) -> InfinitronState:
        other = self._bare_copy()
        other._history = self._history.copy()
        return other

    def copy_without_history(self) -> InfinitronState:
        """A copy that cannot undo past this point and keeps no history (for playouts)."""
        other = self._bare_copy()
        other._history = []
        other._keep_history = False
        return other

    def _bare_copy(self) -> InfinitronState:
        other: InfinitronState = FIELDS.copy_into(self, InfinitronState.__new__(InfinitronState))
        other._keep_history = self._keep_history
        return other

    def key(self) -> Hashable:
        """Everything that decides the rest of the game (the declared fields' keys), so never a collision."""
        return FIELDS.key(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, InfinitronState):
            return NotImplemented
        return self.count == other.count and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable: use key()

    def action_to_str(self, action: object) -> str:
        return action_to_str(action)

    def action_kind(self, action: object) -> str:
        # With --armour a turn may have 386,938 legal DEFINEs: their kind is their first item.
        if type(action) is tuple and action and action[0] in KIND_WORDS:
            return KIND_WORDS[action[0]]
        return super().action_kind(action)

    def parse_action(self, text: str) -> tuple[int, ...]:
        return parse_action(text)

    def __repr__(self) -> str:
        return f"InfinitronState({self.summary()})"

    def render(self, use_color: bool = False, use_unicode: bool = False) -> str:
        from .render import render_state

        return render_state(self, use_color=use_color, use_unicode=use_unicode)

    def summary(self) -> str:
        parts = []
        for p in (RED, BLUE):
            cities = sum(1 for o in self.city_owner if o == p)
            parts.append(
                f"{PLAYER_NAMES[p]} RP {self.rp[p]}, {count_of(cities, 'city', 'cities')}, "
                f"{count_of(len(self.units[p]), 'unit')}, score {self.score(p)}"
            )
        return f"turn {min(self.turn + 1, self.setup.max_turns)} of {self.setup.max_turns}; " + "; ".join(parts)

    # -- random play (benchmarks) ----------------------------------------------

    def random_playout(self, rng: random.Random, max_actions: int | None = None) -> Outcome | None:
        """Play uniformly random commands (chance from ``rng`` too) to the end.

        Returns the outcome, or None if ``max_actions`` ran out first.  Keeps
        no undo records while it plays.
        """
        keep, self._keep_history = self._keep_history, False
        try:
            played = 0
            while not self.is_over:
                if max_actions is not None and played >= max_actions:
                    return None
                if self.chance_pending:
                    self.apply(self.sample_chance(rng))
                else:
                    legal = self.legal_actions()
                    self.apply(legal[int(rng.random() * len(legal))])
                played += 1
            return self.outcome
        finally:
            self._keep_history = keep

    # -- setting up positions (tests, puzzles) ----------------------------------

    def setup_template(
        self, player: int, hp: int, move: int, dmg: int, range_: str, ability: str, armour: str = "000000"
    ) -> int:
        """Give ``player`` a template without paying for it; returns its number.

        Position set-up only: it clears the undo history.
        """
        spec = define(hp, move, dmg, range_, ability, armour)[1:]
        problem = define_problem(*spec)
        if problem:
            raise ValueError(problem)
        self.templates[player] = self.templates[player] + (template_of(spec),)
        self._history.clear()
        return len(self.templates[player]) - 1

    def setup_unit(self, player: int, template: int, r: int, q: int, hp: int | None = None) -> int:
        """Put a unit of ``player``'s template on an empty cell; returns its number."""
        cell = cell_of(r, q)
        if self.occ[cell] >= 0:
            raise ValueError(f"({r}, {q}) is occupied")
        tm = self.templates[player][template]
        uid = self.next_uid[player]
        self.next_uid[player] = uid + 1
        self.units[player][uid] = (cell, tm.max_hp if hp is None else hp, template)
        self.occ[cell] = uid * 2 + player
        self._history.clear()
        return uid

    def setup_ground(self, kind: str, r: int, q: int, rubble_turns: int = RUBBLE_TURNS) -> None:
        """Set a cell's ground: PLAIN, BLOCK, LAVA, REPAIR, LABEL, FISH, or RUBBLE clearing after ``rubble_turns``."""
        cell = cell_of(r, q)
        self.ground[cell] = FISH if kind == "FISH" else RUBBLE if kind == "RUBBLE" else TERRAIN_NAMES.index(kind)
        self.rubble.pop(cell, None)
        if kind == "RUBBLE":
            self.rubble[cell] = self.turn + rubble_turns
        self._history.clear()

    def setup_city_owner(self, r: int, q: int, player: int | None) -> None:
        """Give a city to a player (or make it neutral with None)."""
        i = self.setup.city_at[cell_of(r, q)]
        if i < 0:
            raise ValueError(f"({r}, {q}) is not a city")
        self.city_owner[i] = -1 if player is None else player
        self._history.clear()

    def setup_territory(self, city: int, cells: list[tuple[int, int]]) -> None:
        """Set a city's territory outright (its claims are not checked)."""
        territories = list(self.territories)
        territories[city] = frozenset(cell_of(r, q) for r, q in cells)
        self.territories = tuple(territories)
        self._history.clear()
