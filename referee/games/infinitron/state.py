"""The Infinitron state: legal commands, apply and undo, chance, copies and keys.

The fields and the queries are :class:`.position.InfinitronPosition`'s (its
docstring describes the representation).  Undo keeps one snapshot of every
mutable part per action: a few small copies, cheaper in Python than
journaling each change, and exact.

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

from ..base import BLUE, PLAYER_NAMES, RED, Outcome, count_of
from .geometry import BLOCKERS, CELL_COUNT, DISTANCE, FACING, WITHIN_1, WITHIN_2
from .legality import illegal_reason
from .movement import capitals_joined, step_cells, step_cost
from .notation import KIND_WORDS, action_to_str, cell_of, define, parse_action
from .position import FIELDS, InfinitronPosition
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
    all_armoured_defines,
    define_problem,
    template_of,
)
from .setup import Setup, uniform_index


# ---------------------------------------------------------------------------
# The state


class InfinitronState(InfinitronPosition):
    """An Infinitron position, with the undo history of the actions that led to it."""

    # The fields are InfinitronPosition's slots.
    __slots__ = ()

    def __init__(self, setup: Setup | None = None):
        """The starting position (chaos roll pending, or Red's first turn begun)."""
        super().__init__(setup)
        if self.setup.chaos:
            self.chance_pending = True
        else:
            self._start_turn(RED)

    # -- legal commands -----------------------------------------------------

    def legal_actions(self) -> list[tuple[int, ...]]:
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

    def is_legal(self, action: object) -> bool:
        return self.illegal_reason(action) is None

    def illegal_reason(self, action: object) -> str | None:
        return illegal_reason(self, action)

    # -- chance ---------------------------------------------------------------

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

    def chance_outcomes(self, drawn: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], float]]:
        """The chaos roll as data: the next draw's outcomes, each with its exact probability (they sum to 1).

        With nothing ``drawn``: ``NO_EVENT`` (11/12), each ``ASTEROID(cell)`` (1/24 shared evenly by the
        asteroid cells) and the fish market (1/24): the same distribution :meth:`sample_chance` draws from.
        A market's cells are a uniform set of six free cells, too many sets to list (hundreds of millions
        on an open board), so they are drawn one at a time as :meth:`sample_chance` draws them: while cells
        remain to draw, the market's outcome is the roll so far, ``(FISH_MARKET, cells drawn...)``, and
        ``chance_outcomes(that roll)`` lists the next cell's outcomes, equally likely.  Only a roll that
        :meth:`chance_complete` accepts is applied.
        """
        if not self.chance_pending:
            raise ValueError("no chaos roll is due: current_player is not CHANCE")
        if not drawn:
            cells = self.setup.asteroid_cells
            event = 1 / (2 * CHAOS_ODDS)
            market = (FISH_MARKET,) if len(self._fish_cells()) > FISH_TOKENS else (FISH_MARKET, *self._fish_cells())
            return [
                (NO_EVENT_ACTION, 1 - 1 / CHAOS_ODDS),
                *[((ASTEROID, c), event / len(cells)) for c in cells],
                (market, event),
            ]
        if drawn[0] != FISH_MARKET or self.chance_complete(drawn):
            raise ValueError(f"{action_to_str(drawn)} is not a fish market with cells still to draw")
        chosen = set(drawn[1:])
        left = [c for c in self._fish_cells() if c not in chosen]
        return [((FISH_MARKET, *sorted((*drawn[1:], c))), 1 / len(left)) for c in left]

    def chance_complete(self, roll: tuple[int, ...]) -> bool:
        """Whether a roll from :meth:`chance_outcomes` is whole (a fish market with all its cells drawn)."""
        return roll[0] != FISH_MARKET or len(roll) - 1 == min(FISH_TOKENS, len(self._fish_cells()))

    # -- changes ------------------------------------------------------------

    def undo(self) -> None:
        if not self._history:
            raise IndexError("no action to undo")
        FIELDS.restore(self, self._history.pop())

    def apply(self, action: tuple[int, ...]) -> None:
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
        """Income, then repair pads (lowest unit first, while RP lasts), then first-turn terrain points.

        On a player's first turns the rules version's extra RP (1.2: Blue's, see
        :data:`.rules.OPENING_RP`) come with the income, before the pads.
        """
        self.rp[p] += self.income(p)
        extra = self.setup.opening_rp[p]
        if self.turn >> 1 < len(extra):  # this is the player's turn number turn // 2 (from 0)
            self.rp[p] += extra[self.turn >> 1]
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

    def action_kind(self, action: tuple[int, ...]) -> str:
        # With --armour a turn may have 386,938 legal DEFINEs: their kind is their first item.
        if type(action) is tuple and action and action[0] in KIND_WORDS:
            return KIND_WORDS[action[0]]
        return super().action_kind(action)

    def parse_action(self, text: str) -> tuple[int, ...]:
        return parse_action(text)

    def __repr__(self) -> str:
        return f"InfinitronState({self.summary()})"

    def render(self, use_color: bool = False, use_unicode: bool = False) -> str:
        # Imported when drawn: an agent process loads the engine and never needs the renderer.
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
