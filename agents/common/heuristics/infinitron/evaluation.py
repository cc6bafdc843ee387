"""Infinitron heuristics, second layer: the value of a position (see the package's docstring for its terms)."""
from __future__ import annotations

from referee.games.infinitron.engine import InfinitronState, Template
from referee.games.infinitron.geometry import BLOCKERS, CELL_COUNT, DISTANCE

from .territory import Territory

#: RP beyond this are worth half as much, beyond twice this nothing (they should have been spent).
HOARD = 24
#: Steps from its objective within which a mobile unit earns ``advance`` a step.
CLOSE = 10


class Evaluation(Territory):
    """Material, cities, threats and capital captures, for the player to move."""

    def evaluate(self, state: InfinitronState) -> int:
        """The position's value for the player whose turn it is."""
        s = state
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
