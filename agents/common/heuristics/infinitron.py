"""Infinitron Skirmish knowledge: material, cities, threats, and a short list of commands.

A position is valued in hundredths of a template point (one RP buys one point),
for the player whose turn it is (Red while a chaos roll is due)::

    units    100 · cost · (1 + hp / max_hp) / 2 per unit: whole at full HP,
             half when nearly dead, so damage and kills both count
    RP       ``rp`` per resource point (less than a built point, so RP is
             spent; half beyond 24, none beyond 48), with the income to come: the other
             side's next in full, the mover's 3/4 (so END_TURN alone never
             looks like a gain when the incomes are equal)
    cities   ``city`` per neutral city held; ``template`` per template defined
    advance  ``advance`` per step closer than 10 between each mobile unit and
             the nearest city its side does not hold (the enemy capital counts
             from its neighbours: standing on it would only block one's own
             capture); a bonus, not a penalty, so building is never a loss
    guard    ``guard`` per unit (up to two) in the side's capital territory
             or within distance 2 of the capital
    threats  the mover's units still able to act: ``my_threat`` × the best
             damage each can deal this turn; the other side's units (all
             fresh next turn): −``their_threat`` × the same
    capital  ``capture`` × ``my_capture`` when the mover looks able to take
             the enemy capital this turn, −``capture`` × ``their_capture``
             when the other side looks able to take the mover's next turn

The mover's chances weigh more than the other side's, so ending the turn never
looks better than an equally good command, and a threat to one's capital
looks worse once the turn is over and nothing can be done about it.

The full command list is huge (2,744 DEFINEs while templates can be bought,
every step and claim), so :meth:`ordered_actions` with ``prune`` proposes a
handful: the next template (picked for the position, or a fixed plan),
BUILDs of the template the army needs on the best cells (and
a defender next to an open capital rather than saving up), per unit its best
attacks, heals and blasts and the two best steps (captures, attack
positions, progress towards its objective, lava avoided; the unit under way
first, since commanding another ends its movement: rules 1.1), the claims
open this turn, terrain on the enemy's approach and REPAIR pads, END_TURN.
``prune_everywhere`` makes the searches use that list at their roots too.

Option ``army``: ``varied`` (the default) plays all of this; ``fixed`` is
the agents before issue 22 (1.0's four ability-free templates, REPAIR the
only terrain, no abilities), kept to measure against.
"""
from __future__ import annotations

import math
import random
from typing import Any
from collections.abc import Sequence

from referee.games.base import GameState
from referee.games.infinitron.engine import (
    ABILITY,
    ABILITY_AMOUNTS,
    ABILITY_PRICES,
    ATTACK,
    BLAST1,
    BLAST2,
    BLOCK,
    BUILD,
    CLAIM,
    DEFINE,
    DEFINE_PRICE,
    DESTROYED,
    END_TURN_ACTION,
    HEAL1,
    HEAL2,
    IMPASSABLE,
    LABEL,
    LAVA,
    LAVA_DAMAGE,
    LONG,
    MAX_COMMANDS,
    MAX_TEMPLATES,
    MAX_UNITS,
    MEDIUM,
    MELEE,
    MOVE,
    NO_EVENT_ACTION,
    NONE,
    PLAIN,
    REPAIR,
    SUPER,
    SWIFT,
    TERRAIN,
    InfinitronState,
    Template,
    parse_action,
)
from referee.games.infinitron.geometry import BLOCKERS, CELL_COUNT, DISTANCE, FACING, STEPS, WITHIN_1, WITHIN_2

from .base import WIN, Heuristics

#: The templates the agents define, in order (see :class:`InfinitronHeuristics`).
DEFAULT_PLAN = (
    "DEFINE(1, 2, 2, MELEE, NONE)",  # raider, 4: takes the neutral cities early
    "DEFINE(3, 0, 3, MEDIUM, NONE)",  # turret, 5: guards the capital, never leaves
    "DEFINE(3, 2, 4, MEDIUM, NONE)",  # trooper, 9: the line
    "DEFINE(4, 3, 5, MEDIUM, NONE)",  # champion, 12: the most a unit can be worth
)

#: The varied army's templates ``(hp, move, dmg, range, ability)`` by role;
#: :meth:`InfinitronHeuristics._plan_define` picks one per slot from the position.
RAIDER = (1, 2, 2, MELEE, NONE)  # 4: takes the neutral cities early
#: 11: a fort next to the capital, hitting for 50 anything within 5 (the whole approach).
#: Move 0 refunds 2 points, so it is the most HP and damage a template can carry;
#: measured against the 3-HP LONG and 2-HP SUPER turrets it replaced, see docs/infinitron.md.
FORT = (4, 0, 5, SUPER, NONE)
MEDIC = (3, 2, 4, MEDIUM, HEAL1)  # 10: the line, healing its neighbours
BLASTER = (3, 2, 4, MEDIUM, BLAST1)  # 11: the line against a swarm
CHAMPION = (4, 2, 4, LONG, SWIFT)  # 12: hits first (reach 5); LABEL in own ground speeds it
#: Armies the heuristics take (option ``army``).
ARMIES = ("varied", "fixed")
#: Most TERRAIN candidates at a node (their kinds and cells are many; the candidate list is short).
TERRAIN_CANDIDATES = 3

#: Own turns ahead that the clock is shared over (see ``moves_left``).
HORIZON_TURNS = 60
#: Path distances beyond the board's diameter mean "cannot get there".
FAR = 20
#: RP beyond this are worth half as much, beyond twice this nothing (they should have been spent).
HOARD = 24
#: Steps from its objective within which a mobile unit earns ``advance`` a step.
CLOSE = 10

#: Ground codes units cannot cross (BLOCK and RUBBLE), as a 256-byte table.
_IMPASSABLE = bytes(IMPASSABLE[i] if i < len(IMPASSABLE) else 0 for i in range(256))
#: A claim's score: territory is free to take once (its captor's turn) and kept for the game.
CLAIM_SCORE = 4.0


def _path_distances(sources: Sequence[int], blocked: bytes) -> list[int]:
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


class InfinitronHeuristics(Heuristics):
    """Evaluation, candidate commands and playout policy for Infinitron Skirmish."""

    value_scale = 1500.0
    prune_everywhere = True
    # A key holds the whole position (ground, units, cities: 8.8-9.9 KB
    # measured in games), so a table sized for Infexion's 300-byte entries
    # took minimax to 220 MB of a 250 MB limit.
    table_entry_bytes = 12_000

    def __init__(
        self,
        game: Any = None,
        *,
        rp: int = 60,
        city: int = 600,
        template: int = 250,
        advance: int = 20,
        guard: int = 150,
        my_threat: float = 0.6,
        their_threat: float = 0.4,
        capture: int = 4000,
        my_capture: float = 1.0,
        their_capture: float = 0.6,
        candidates: int = 14,
        unit_moves: int = 6,
        temperature: float = 300.0,
        value_scale: float = 1500.0,
        plan: Sequence[str] | None = None,
        army: str = "varied",
    ):
        super().__init__(game)
        self.rp = rp
        self.city = city
        self.template = template
        self.advance = advance
        self.guard = guard
        self.my_threat = my_threat
        self.their_threat = their_threat
        self.capture = capture
        self.my_capture = my_capture
        self.their_capture = their_capture
        #: Most commands offered at a node (END_TURN always among them).
        self.candidates = candidates
        #: Units offered MOVEs at a node (those fighting first, then the farthest from their objectives).
        self.unit_moves = unit_moves
        #: Softmax temperature of the MCTS priors, in evaluation units.
        self.temperature = temperature
        #: MCTS squashes evaluations with tanh(value / value_scale).
        self.value_scale = value_scale
        if army not in ARMIES:
            raise ValueError(f"army: one of {', '.join(ARMIES)}, not {army!r}")
        #: The whole game (army design, terrain, abilities), or 1.0's fixed army ("fixed").
        self.varied = army == "varied"
        #: A plan given outright is followed as it is; the varied army without one picks its templates.
        self.adaptive = self.varied and plan is None
        plan_actions = [parse_action(text) for text in (DEFAULT_PLAN if plan is None else plan)]
        if not plan_actions or any(a[0] != DEFINE for a in plan_actions) or len(plan_actions) > MAX_TEMPLATES:
            raise ValueError(f"plan: 1..{MAX_TEMPLATES} DEFINE commands, not {list(plan or ())!r}")
        self.plan: tuple[tuple[int, ...], ...] = tuple(plan_actions)
        # Cached per map (BLOCK cells) and city ownership: they change rarely.
        self._maps: dict[tuple, tuple[list[int], list[int]]] = {}
        self._capital_maps: dict[tuple, list[int]] = {}
        # The scores of the last list ordered_actions returned (for priors).
        self._last_list: list | None = None
        self._last_scores: dict | None = None

    # -- maps ----------------------------------------------------------------------

    def _objective_maps(self, state: InfinitronState) -> tuple[list[int], list[int]]:
        """Per side, each cell's path distance to the nearest city that side does not hold."""
        blocked = bytes(state.ground).translate(_IMPASSABLE)
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
            dist = _path_distances(targets, blocked) if targets else [FAR] * CELL_COUNT
            # The enemy capital is reached by standing next to it (see the module's docs).
            cap = _path_distances([cities[1 - side]], blocked)
            for c in range(CELL_COUNT):
                d = cap[c] if cap[c] > 1 else 1
                if d < dist[c]:
                    dist[c] = d
            maps.append(dist)
        found = self._maps[key] = (maps[0], maps[1])
        return found

    def _capital_map(self, state: InfinitronState, side: int) -> list[int]:
        """Path distances to ``side``'s capital."""
        blocked = bytes(state.ground).translate(_IMPASSABLE)
        key = (blocked, side)
        found = self._capital_maps.get(key)
        if found is None:
            if len(self._capital_maps) > 2000:
                self._capital_maps.clear()
            found = self._capital_maps[key] = _path_distances([state.setup.cities[side]], blocked)
        return found

    # -- evaluation ------------------------------------------------------------------

    def evaluate(self, state: GameState) -> int:
        """The position's value for the player whose turn it is."""
        s: InfinitronState = state  # type: ignore[assignment]
        me = s.turn & 1
        setup = s.setup
        cities = setup.cities
        owner = s.city_owner
        resources = setup.resources
        maps = self._objective_maps(s)
        left = setup.max_turns - s.turn
        # RP left at the end score nothing: spend it as the end nears.
        rp_weight = self.rp if left >= 12 else self.rp * left // 12
        total = 0.0
        # Per side: units as (cell, hp, template), and targets for the other side.
        lists = []
        for side in (0, 1):
            tpls = s.templates[side]
            dmap = maps[side]
            territory = s.territory(side)
            capital = cities[side]
            value = 0
            guards = 0
            near = 0
            units = []
            targets = []
            for cell, hp, t in s.units[side].values():
                tp = tpls[t]
                full = 100 * tp.cost
                mx = tp.max_hp
                value += full * (mx + hp) // (2 * mx)
                if tp.budget:
                    d = dmap[cell]
                    if d < CLOSE:
                        near += CLOSE - d
                # A guard stands in the capital's territory, or a step or two from it
                # (1.1 territories are small: the six neighbours and the claims).
                if cell in territory or DISTANCE[cell * CELL_COUNT + capital] <= 2:
                    guards += 1
                units.append((cell, hp, tp))
                # (cell, hp, value if killed, value of one HP)
                targets.append((cell, hp, full * (mx + hp) // (2 * mx), full / (2 * mx)))
            held = 0
            income = 0
            for i in range(len(cities)):
                if owner[i] == side:
                    income += resources[i]
                    if i >= 2:
                        held += 1

            # Income still to come counts already: in full for the side whose
            # turn starts next, 3/4 for the mover (plus its own income while
            # that is still due, at a chaos roll).  END_TURN then changes the
            # balance by income/4 - 3/4 of the other's: never a gain for
            # equal incomes, so a turn is not ended just to make time pass.
            if side != me:
                bank = 4 * (s.rp[side] + income)
            elif s.chance_pending:
                bank = 4 * s.rp[side] + 7 * income
            else:
                bank = 4 * s.rp[side] + 3 * income
            # A large bank is worth less a point, and nothing beyond twice
            # HOARD: it should have been spent, and counting it would drown
            # everything else (MCTS squashes values with tanh).
            if bank > 4 * HOARD:
                bank = 4 * HOARD + min(bank - 4 * HOARD, 4 * HOARD) // 2
            v = (
                value
                + rp_weight * bank // 4
                + self.city * held
                + self.template * len(tpls)
                + self.advance * near
                + self.guard * (guards if guards < 2 else 2)
            )
            total += v if side == me else -v
            lists.append((units, targets))
        my_units, my_targets = lists[me]
        their_units, their_targets = lists[1 - me]
        # The mover's units: only those that can still act.
        mine = self._threat(s, me, my_units, their_targets, True)
        theirs = self._threat(s, 1 - me, their_units, my_targets, False)
        total += self.my_threat * mine - self.their_threat * theirs
        if left > 0 and self._can_take_capital(s, me, True):
            total += self.capture * self.my_capture
        if left > 1 and self._can_take_capital(s, 1 - me, False):
            total -= self.capture * self.their_capture
        return int(total)

    def _threat(self, s: InfinitronState, side: int, units: list, targets: list, now: bool) -> float:
        """The sum over ``side``'s units of the best damage each can deal (in evaluation units).

        ``now``: only the units that can still act this turn, a unit that has
        moved only from where it stands; otherwise every unit, as next turn.
        Reach is by distance (move + range), ignoring what is in the way.
        """
        if not targets:
            return 0.0
        total = 0.0
        done = s.done if now else None
        uids = list(s.units[side]) if now else None
        for k, (cell, _hp, tp) in enumerate(units):
            dmg = tp.damage
            if not dmg:
                continue
            base = cell * CELL_COUNT
            mv = tp.move
            if now:
                uid = uids[k]  # type: ignore[index]
                if uid in done:  # type: ignore[operator]
                    continue
                mv = s.movement_points(side, uid)
                if not mv:  # it can no longer move: from where it stands
                    total += self._fixed_threat(s, base, tp, targets)
                    continue
            lo = tp.min_range - mv
            hi = tp.max_range + mv
            best = 0.0
            for tcell, thp, kill, per_hp in targets:
                d = DISTANCE[base + tcell]
                if lo <= d <= hi:
                    g = kill if dmg >= thp else per_hp * dmg
                    if g > best:
                        best = g
            total += best
        return total

    @staticmethod
    def _fixed_threat(s: InfinitronState, base: int, tp: Template, targets: list) -> float:
        """The best damage a unit that has moved can still deal from where it stands."""
        occ = s.occ
        dmg, lo, hi = tp.damage, tp.min_range, tp.max_range
        best = 0.0
        for tcell, thp, kill, per_hp in targets:
            d = DISTANCE[base + tcell]
            if lo <= d <= hi and (d < 2 or all(occ[b] < 0 for b in BLOCKERS[base + tcell])):
                g = kill if dmg >= thp else per_hp * dmg
                if g > best:
                    best = g
        return best

    def _can_take_capital(self, s: InfinitronState, side: int, now: bool) -> bool:
        """Whether ``side`` looks able to take the enemy capital (this turn if ``now``, else next).

        A unit must be able to walk onto it, and the defenders in its
        territory must look killable: no more of them than ``side``'s
        attackers in reach, and no more HP than their damage.
        """
        enemy = 1 - side
        if s.city_owner[enemy] != enemy:
            return False
        cmap = self._capital_map(s, enemy)
        tpls = s.templates[side]
        done = s.done if now else {}
        runner = False
        attackers = 0
        damage = 0
        for uid, (cell, _hp, t) in s.units[side].items():
            if uid in done:
                continue
            tp = tpls[t]
            steps = s.movement_points(side, uid) if now else tp.move
            if steps and cmap[cell] <= steps:
                runner = True
            if tp.damage and cmap[cell] <= steps + tp.max_range + 2:
                attackers += 1
                damage += tp.damage
        if not runner:
            return False
        territory = s.territory(enemy)
        guards = 0
        guard_hp = 0
        for cell, hp, _ in s.units[enemy].values():
            if cell in territory:
                guards += 1
                guard_hp += hp
        if not guards:
            return True
        return guards < attackers and guard_hp <= damage

    # -- candidate commands -------------------------------------------------------------

    def scored_actions(self, state: InfinitronState) -> list[tuple[float, tuple[int, ...]]]:
        """``(score, command)`` for the commands worth searching, best first.

        A score estimates the command's gain in evaluation units; END_TURN is 0.
        """
        s = state
        if s.chance_pending or s.is_over:
            return []
        if s.commands >= MAX_COMMANDS:
            return [(0.0, END_TURN_ACTION)]
        me = s.turn & 1
        setup = s.setup
        dmap = self._objective_maps(s)[me]
        out: list[tuple[float, tuple[int, ...]]] = [(0.0, END_TURN_ACTION)]
        self._unit_commands(s, me, dmap, out)
        self._economy(s, me, dmap, out)
        if any(s.terrain_points):
            cells = s._terrain_cells()
            if cells and self.varied:
                self._terrain_commands(s, me, cells, out)
            elif cells:
                enemy_cap = setup.cities[1 - me]
                # A REPAIR pad nearest the enemy capital: where damaged units come back to.
                best = min(cells, key=lambda c: DISTANCE[c * CELL_COUNT + enemy_cap])
                out.append((5.0, (TERRAIN, REPAIR, best)))
        if s.claiming:
            self._claims(s, me, out)
        out.sort(key=lambda sa: -sa[0])
        # A step can come both as a capital approach and as a unit's best step: keep its best score.
        seen: set[tuple[int, ...]] = set()
        unique = []
        for sa in out:
            if sa[1] not in seen:
                seen.add(sa[1])
                unique.append(sa)
        return unique

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
        blocked = bytearray(bytes(ground).translate(_IMPASSABLE))
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
                if s.capitals_joined(c) and _path_distances([enemy_cap], bytes(blocked))[own_cap] <= route:
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

    def _unit_commands(self, s: InfinitronState, me: int, dmap: list[int], out: list) -> None:
        """Attacks, captures and the best steps of the units that can still act."""
        setup = s.setup
        city_at = setup.city_at
        owner = s.city_owner
        flags = s.city_flags
        tpls = s.templates[me]
        etpls = s.templates[1 - me]
        occ = s.occ
        done = s.done
        active = s.active
        enemies = []
        for cell, hp, t in s.units[1 - me].values():
            tp = etpls[t]
            full = 100 * tp.cost
            mx = tp.max_hp
            enemies.append((cell, hp, full * (mx + hp) // (2 * mx), full / (2 * mx)))
        # Cities a unit would take by stopping on them, found once per node.
        takeable: dict[int, bool] = {}
        enemy_cap = setup.cities[1 - me]
        if owner[1 - me] == 1 - me and self._territory_clear(s, 1 - me, me):
            self._capital_moves(s, me, out)
        movers = []
        for uid, (cell, uhp, t) in s.units[me].items():
            if uid in done:
                continue
            tp = tpls[t]
            dmg = tp.damage
            lo, hi = tp.min_range, tp.max_range
            is_active = uid == active
            base = cell * CELL_COUNT
            if dmg:
                # Commanding another unit ends this one's turn: its attack comes now or never.
                urgency = 1.2 if is_active else 1.0
                for ecell, ehp, kill, per_hp in enemies:
                    d = DISTANCE[base + ecell]
                    if lo <= d <= hi and (d < 2 or all(occ[b] < 0 for b in BLOCKERS[base + ecell])):
                        g = kill if dmg >= ehp else per_hp * dmg
                        out.append((urgency * g + 50.0, (ATTACK, uid, ecell)))
            if self.varied and tp.ability and tp.ability != SWIFT:
                self._ability_commands(s, me, uid, cell, tp, out)
            dests = s.step_cells(uid)
            if not dests:
                continue
            reach = s.movement_points(me, uid) + hi
            near = [e for e in enemies if DISTANCE[base + e[0]] <= reach] if dmg else []
            capital = DISTANCE[base + enemy_cap] == 1
            # The unit being moved first (commanding another ends its move), then units in a
            # fight or able to take the capital, then the farthest from their objective.
            movers.append((is_active, bool(near) or capital, dmap[cell], uid, tp, near, dests, uhp))
        movers.sort(key=lambda m: (m[0], m[1], m[2]), reverse=True)
        ground = s.ground
        for is_active, urgent, here, uid, tp, near, dests, uhp in movers[: self.unit_moves]:
            if not urgent and here == 0:
                continue  # on its objective with nothing to fight
            dmg = tp.damage
            lo, hi = tp.min_range, tp.max_range
            # A step is one of several: the unit already under way keeps going rather than stop short.
            keep_going = 1.5 if is_active else 1.0
            best: list[tuple[float, int]] = []
            for c in dests:
                if c == enemy_cap:
                    continue  # see _capital_moves
                score: float = self.advance * (here - dmap[c])
                if self.varied:
                    g = ground[c]
                    if g == LAVA:
                        # What the lava takes, as the evaluation counts it (a kill: the whole unit).
                        full = 100 * tp.cost
                        score -= full * (tp.max_hp + uhp) / (2 * tp.max_hp) if uhp <= LAVA_DAMAGE else (
                            full * LAVA_DAMAGE / (2 * tp.max_hp)
                        )
                    elif g == LABEL and tp.swift:
                        score += self.advance / 2  # a free step: the points are left for more
                i = city_at[c]
                if i >= 0 and owner[i] != me and not flags[i] & DESTROYED:
                    clear = takeable.get(i)
                    if clear is None:
                        clear = takeable[i] = self._territory_clear(s, i, me)
                    if clear:
                        score += self.city
                if near:
                    b2 = c * CELL_COUNT
                    top = 0.0
                    for ecell, ehp, kill, per_hp in near:
                        d = DISTANCE[b2 + ecell]
                        if lo <= d <= hi:
                            g = kill if dmg >= ehp else per_hp * dmg
                            if g > top:
                                top = g
                    score += 0.8 * top
                best.append((score, c))
            if not best:
                continue
            best.sort(reverse=True)
            for score, c in best[:2]:
                if score > 0:
                    out.append((keep_going * score, (MOVE, uid, c)))

    def _ability_commands(self, s: InfinitronState, me: int, uid: int, cell: int, tp: Template, out: list) -> None:
        """HEAL for a damaged friend in reach; BLAST on cells where it hurts the enemy more than this side.

        A score is the change in unit value (as :meth:`evaluate` counts it:
        a kill is the victim's whole value) less the RP paid.
        """
        ab = tp.ability
        price = ABILITY_PRICES[ab]
        if s.rp[me] < price:
            return
        amount = ABILITY_AMOUNTS[ab]
        cost = self.rp * price
        occ = s.occ
        units = s.units
        templates = s.templates
        if ab in (HEAL1, HEAL2):
            for c in WITHIN_1[cell]:
                o = occ[c]
                if o < 0 or o & 1 != me:
                    continue
                _, hp, t = units[me][o >> 1]
                friend = templates[me][t]
                healed = min(amount, friend.max_hp - hp)
                if healed > 0:
                    gain = 100 * friend.cost * healed / (2 * friend.max_hp) - cost
                    if gain > 0:
                        out.append((gain, (ABILITY, uid, c)))
            return
        if ab not in (BLAST1, BLAST2):
            return
        for target in WITHIN_2[cell]:
            enemy_loss = 0.0
            own_loss = 0.0
            for c in WITHIN_1[target]:
                o = occ[c]
                if o < 0:
                    continue
                side = o & 1
                _, hp, t = units[side][o >> 1]
                victim = templates[side][t]
                full = 100 * victim.cost
                # Armour is left out: a side's +/-10 hardly changes which cells are worth it.
                loss = full * (victim.max_hp + hp) / (2 * victim.max_hp) if amount >= hp else full * amount / (
                    2 * victim.max_hp
                )
                if side == me:
                    own_loss += loss
                else:
                    enemy_loss += loss
            # Never more own value than the enemy's: the blast must be a clear gain.
            if enemy_loss > own_loss and enemy_loss - own_loss > cost:
                out.append((enemy_loss - own_loss - cost, (ABILITY, uid, target)))

    def _capital_moves(self, s: InfinitronState, me: int, out: list) -> None:
        """With the enemy capital's territory empty: steps towards it that take it this turn, or out of their way.

        A unit whose movement points reach the capital over empty cells gets
        its step along the way (the capture itself scores a win); one that
        could reach it but for its own side's units in the way makes every
        step of the units near it a candidate, so that clearing the way and
        then walking in is searched.
        """
        cap = s.setup.cities[1 - me]
        cmap = self._capital_map(s, 1 - me)
        occ = s.occ
        # Steps to the capital over empty passable cells (the capital itself is the goal).
        blocked = bytearray(bytes(s.ground).translate(_IMPASSABLE))
        for c in range(CELL_COUNT):
            if occ[c] >= 0 and c != cap:
                blocked[c] = 1
        free = _path_distances([cap], bytes(blocked))
        done = s.done
        in_the_way = False
        for uid, (cell, _, _t) in s.units[me].items():
            points = s.movement_points(me, uid) if uid not in done else 0
            if not points or cmap[cell] > points:
                continue
            dests = s.step_cells(uid)
            if cap in dests:
                out.append((float(WIN), (MOVE, uid, cap)))
                return
            on_way = [c for c in dests if free[c] < points]  # then free[c] + 1 <= points
            if on_way:
                out.append((self.capture, (MOVE, uid, min(on_way, key=lambda c: free[c]))))
            else:
                in_the_way = True  # near enough, but its own units stand in the way
        if not in_the_way:
            return
        for uid, (cell, _, _t) in s.units[me].items():
            if uid not in done and DISTANCE[cell * CELL_COUNT + cap] <= 3:
                out.extend((self.capture / 2, (MOVE, uid, c)) for c in s.step_cells(uid) if c != cap)

    @staticmethod
    def _territory_clear(s: InfinitronState, city: int, side: int) -> bool:
        territory = s.territory(city)
        for cell, _, _ in s.units[1 - side].values():
            if cell in territory:
                return False
        return True

    def _economy(self, s: InfinitronState, me: int, dmap: list[int], out: list) -> None:
        """The next template of the plan when it is due, and the BUILD the army needs."""
        tpls = s.templates[me]
        rp = s.rp[me]
        units = s.units[me]
        n = len(tpls)
        slots = MAX_TEMPLATES if self.adaptive else len(self.plan)
        if n < MAX_TEMPLATES and n < slots and rp >= DEFINE_PRICE:
            # One template to start with; each next one once the army has grown.
            if n == 0 or len(units) >= 2 * n - 1:
                out.append((float(self.template), self._plan_define(s, me, n)))
        if not tpls or len(units) >= MAX_UNITS:
            return
        if self.varied and (self._can_take_capital(s, 1 - me, False) or self._open_capital(s, me)):
            self._defenders(s, me, tpls, rp, out)
        choice = self._build_choice(s, me, tpls, rp)
        if choice is None:
            return
        t, turret = choice
        cells = s._build_cells(me)
        score = (100 - self.rp) * tpls[t].cost + (self.guard if turret else 0)
        if not cells:
            self._make_room(s, me, score, out)
            return
        if turret:
            cap = s.setup.cities[me]
            enemy_cap = s.setup.cities[1 - me]
            ring = [c for c in cells if DISTANCE[c * CELL_COUNT + cap] == 1]
            if not ring:
                return
            cell = min(ring, key=lambda c: DISTANCE[c * CELL_COUNT + enemy_cap])
        else:
            cell = min(cells, key=lambda c: (dmap[c], c))
        out.append((float(score), (BUILD, t, cell)))

    def _open_capital(self, s: InfinitronState, me: int) -> bool:
        """No unit of ``me`` in its capital's territory, and an enemy unit two turns' walk from the capital."""
        if not self._territory_clear(s, me, 1 - me):
            return False
        cmap = self._capital_map(s, me)
        tpls = s.templates[1 - me]
        return any(tpls[t].move and cmap[cell] <= 2 * tpls[t].move for cell, _, t in s.units[1 - me].values())

    def _defenders(self, s: InfinitronState, me: int, tpls: tuple, rp: int, out: list) -> None:
        """BUILDs next to an open capital (see :meth:`_economy`: the enemy could take it next turn, or soon).

        Any unit in the capital's territory stops a capture until it is
        killed, and the fort costs 11: saving up for it while the capital
        stands open loses the game.  Offered: the affordable template with
        the most HP, and the cheapest, on the free neighbours nearest the enemy.
        """
        cap = s.setup.cities[me]
        cells = [c for c in s._build_cells(me) if DISTANCE[c * CELL_COUNT + cap] == 1]
        affordable = [t for t, tp in enumerate(tpls) if tp.cost <= rp]
        if not cells or not affordable:
            return
        enemies = [cell for cell, _, _ in s.units[1 - me].values()]
        cells.sort(key=lambda c: min((DISTANCE[c * CELL_COUNT + e] for e in enemies), default=0))
        picks = {
            max(affordable, key=lambda t: (tpls[t].max_hp, -tpls[t].cost)),
            min(affordable, key=lambda t: tpls[t].cost),
        }
        score = self.capture * self.their_capture
        out.extend((score, (BUILD, t, c)) for t in picks for c in cells[:2])

    def _plan_define(self, s: InfinitronState, me: int, n: int) -> tuple[int, ...]:
        """The DEFINE for template slot ``n``: the plan's, or the varied army's pick for the position.

        Slot 0 a raider; slot 1 the SUPER-range fort; slot 2 the
        line, with BLAST when the enemy fields more units than this side
        (a swarm), else HEAL; slot 3 a LONG-range SWIFT champion.  With the
        ``armour`` option every template gets ``+`` on the sides facing the
        enemy capital and ``-`` on the sides away from it.
        """
        if not self.adaptive:
            return self.plan[n]
        if n == 0:
            spec = RAIDER
        elif n == 1:
            spec = FORT
        elif n == 2:
            spec = BLASTER if len(s.units[1 - me]) > len(s.units[me]) else MEDIC
        else:
            spec = CHAMPION
        if s.setup.armour:
            return (DEFINE, *spec, self._armour_layout(s, me))
        return (DEFINE, *spec)

    @staticmethod
    def _armour_layout(s: InfinitronState, me: int) -> int:
        """The armour code with ``+`` on the sides facing the enemy capital, ``-`` on the opposite ones.

        Attacks come mostly from the enemy's side; the back pays for it.
        """
        cities = s.setup.cities
        code = 0
        for side in FACING[cities[me] * CELL_COUNT + cities[1 - me]]:
            code += 1 * 3**side + 2 * 3 ** ((side + 3) % 6)  # digit 1 is "+", 2 is "-"
        return code

    def _make_room(self, s: InfinitronState, me: int, score: float, out: list) -> None:
        """Moves that free a build cell, when a BUILD is wanted and every one is taken.

        (Asteroids can wall a capital in: then the units on its build cells
        must step aside, or the RP can never become units, which score.)
        """
        setup = s.setup
        zone: set[int] = set()
        for i, owner in enumerate(s.city_owner):
            if owner == me:
                zone.update(setup.build_zone[i])
        done = s.done
        for uid, (cell, _, _t) in s.units[me].items():
            if cell not in zone or uid in done:
                continue
            dests = s.step_cells(uid)
            away = [c for c in dests if c not in zone]
            if away:
                out.append((score / 2, (MOVE, uid, away[0])))

    def _build_choice(self, s: InfinitronState, me: int, tpls: tuple, rp: int) -> tuple[int, bool] | None:
        """Which template to build now, and whether it is a capital guard; None to save up."""
        units = s.units[me]
        territory = s.territory(me)
        guards = sum(1 for cell, _, t in units.values() if cell in territory and not tpls[t].budget)
        immobile = [t for t, tp in enumerate(tpls) if not tp.budget]
        mobile = [t for t, tp in enumerate(tpls) if tp.budget and tp.damage]
        n = len(units)
        if immobile and guards < (1 if n < 6 else 2):
            t = max(immobile, key=lambda t: tpls[t].cost)
            return (t, True) if tpls[t].cost <= rp else None
        if not mobile:
            candidates = [t for t, tp in enumerate(tpls) if tp.cost <= rp]
            return (max(candidates, key=lambda t: tpls[t].cost), False) if candidates else None
        # The army's slots are few (12): cheap units only while it is small.
        affordable = [t for t in mobile if tpls[t].cost <= rp]
        if not affordable:
            return None
        best = max(mobile, key=lambda t: tpls[t].cost)
        if n >= 4 and tpls[best].cost > rp:
            return None  # save up for the best
        return max(affordable, key=lambda t: tpls[t].cost), False

    def ordered_actions(  # type: ignore[override]
        self, state: GameState, rng: random.Random | None = None, prune: bool = True
    ) -> list[tuple[int, ...]]:
        """With ``prune``, the candidates (see the module's docs); else every legal command, candidates first."""
        s: InfinitronState = state  # type: ignore[assignment]
        scored = self.scored_actions(s)
        if rng is not None:
            rng.shuffle(scored)
            scored.sort(key=lambda sa: -sa[0])
        if prune:
            top = scored[: self.candidates]
            if END_TURN_ACTION not in [a for _, a in top]:
                top.append((0.0, END_TURN_ACTION))
            actions = [a for _, a in top]
            scores = dict((a, sc) for sc, a in top)
        else:
            seen = set()
            actions = []
            for _, a in scored:
                if a not in seen:
                    seen.add(a)
                    actions.append(a)
            rest = s.legal_actions()
            if rng is not None:
                rng.shuffle(rest)
            actions.extend(a for a in rest if a not in seen)
            scores = dict((a, sc) for sc, a in scored)
        self._last_list, self._last_scores = actions, scores
        return actions

    def tactical_actions(self, state: GameState) -> list[tuple[int, ...]]:  # type: ignore[override]
        """Captures of the enemy capital and kills, for the quiescence search."""
        s: InfinitronState = state  # type: ignore[assignment]
        if s.chance_pending or s.is_over or s.commands >= MAX_COMMANDS:
            return []
        me = s.turn & 1
        out: list[tuple[float, tuple[int, ...]]] = []
        enemy_cap = s.setup.cities[1 - me]
        clear = s.city_owner[1 - me] == 1 - me and self._territory_clear(s, 1 - me, me)
        tpls = s.templates[me]
        etpls = s.templates[1 - me]
        occ = s.occ
        done = s.done
        enemies = []
        for cell, hp, t in s.units[1 - me].values():
            tp = etpls[t]
            enemies.append((cell, hp, tp.cost))
        for uid, (cell, _hp, t) in s.units[me].items():
            if uid in done:
                continue
            tp = tpls[t]
            if clear and DISTANCE[cell * CELL_COUNT + enemy_cap] == 1 and enemy_cap in s.step_cells(uid):
                return [(MOVE, uid, enemy_cap)]
            dmg = tp.damage
            if not dmg:
                continue
            lo, hi = tp.min_range, tp.max_range
            base = cell * CELL_COUNT
            for ecell, ehp, cost in enemies:
                if ehp <= dmg:
                    d = DISTANCE[base + ecell]
                    if lo <= d <= hi and (d < 2 or all(occ[b] < 0 for b in BLOCKERS[base + ecell])):
                        out.append((cost, (ATTACK, uid, ecell)))
        out.sort(key=lambda sa: -sa[0])
        return [a for _, a in out[:3]]

    # -- MCTS ---------------------------------------------------------------------

    def priors(self, state: GameState, actions: Sequence[tuple[int, ...]]) -> list[float]:  # type: ignore[override]
        """A softmax of the candidates' scores (every other command gets the lowest).

        (Priors from the evaluation after each command were tried: no
        stronger against greedy over 24 games, and five times the cost.)
        """
        if actions is self._last_list and self._last_scores is not None:
            scores = self._last_scores
        else:
            scores = dict((a, sc) for sc, a in self.scored_actions(state))  # type: ignore[arg-type]
        t = self.temperature
        # Commands outside the candidates (prune=False lists) get the lowest weight.
        weights = [math.exp(min(max(scores.get(a, -3.0 * t) / t, -3.0), 20.0)) for a in actions]
        total = sum(weights)
        return [w / total for w in weights]

    def rollout_action(self, state: GameState, rng: random.Random) -> tuple[int, ...]:
        """Mostly the best candidate, sometimes another."""
        scored = self.scored_actions(state)  # type: ignore[arg-type]
        if not scored:
            return state.legal_actions()[0]  # type: ignore[return-value]
        if len(scored) > 1 and rng.random() < 0.25:
            return scored[int(rng.random() * len(scored))][1]
        return scored[0][1]

    def chance_samples(self, state: GameState, rng: random.Random) -> list[tuple[int, ...]]:  # type: ignore[override]
        """No event: it comes 11 times in 12, and events cannot be planned for."""
        return [NO_EVENT_ACTION]

    def moves_left(self, state: GameState) -> float:
        """This player's ``action()`` calls still to come, this turn's included.

        Each turn: 2 + 1.5 a unit, at least four units' worth (armies grow);
        games between the bundled agents took about 3 + 0.7 a unit.  Turns
        are counted up to :data:`HORIZON_TURNS` ahead, not to the turn limit:
        capitals fall within 15 to 60 turns, and counting all 343 left 90% of
        the clock unused.  The budget still decays geometrically, so a longer
        game stays inside the limit (simulated with 1.5 ms a call whatever
        the budget: 16 commands on each of 172 turns at ``-t 10``).
        """
        s: InfinitronState = state  # type: ignore[assignment]
        turns = min((s.setup.max_turns - s.turn + 1) // 2, HORIZON_TURNS)
        units = len(s.units[s.turn & 1])
        per_turn = 2.0 + 1.5 * max(units, 4)
        this_turn = max(1.0, 1.0 + 1.5 * units - s.commands)
        return this_turn + max(0, turns - 1) * per_turn
