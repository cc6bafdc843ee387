"""Infinitron heuristics, fourth layer: the short list of commands worth searching, scored."""
from __future__ import annotations

import random

from referee.games.infinitron.engine import (
    ABILITY,
    ABILITY_AMOUNTS,
    ABILITY_PRICES,
    ATTACK,
    BLAST1,
    BLAST2,
    DESTROYED,
    END_TURN_ACTION,
    HEAL1,
    HEAL2,
    LABEL,
    LAVA,
    LAVA_DAMAGE,
    MAX_COMMANDS,
    MOVE,
    REPAIR,
    SWIFT,
    TERRAIN,
    InfinitronState,
    Template,
)
from referee.games.infinitron.geometry import BLOCKERS, CELL_COUNT, DISTANCE, WITHIN_1, WITHIN_2

from ..base import WIN
from .army import Army
from .territory import IMPASSABLE_GROUND, path_distances


class Candidates(Army):
    """Units' attacks, abilities and steps, captures of the capital, and the lists the searches ask for."""

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

    def ordered_actions(
        self, state: InfinitronState, rng: random.Random | None = None, prune: bool = True
    ) -> list[tuple[int, ...]]:
        """With ``prune``, the candidates (see the module's docs); else every legal command, candidates first."""
        s = state
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

    def tactical_actions(self, state: InfinitronState) -> list[tuple[int, ...]]:
        """Captures of the enemy capital and kills, for the quiescence search."""
        s = state
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
        blocked = bytearray(bytes(s.ground).translate(IMPASSABLE_GROUND))
        for c in range(CELL_COUNT):
            if occ[c] >= 0 and c != cap:
                blocked[c] = 1
        free = path_distances([cap], bytes(blocked))
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
