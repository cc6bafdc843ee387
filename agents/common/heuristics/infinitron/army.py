"""Infinitron heuristics, third layer: the army: which templates to define and what to build where."""
from __future__ import annotations


from referee.games.infinitron.engine import (
    BLAST1,
    BUILD,
    DEFINE,
    DEFINE_PRICE,
    HEAL1,
    LONG,
    MAX_TEMPLATES,
    MAX_UNITS,
    MEDIUM,
    MELEE,
    MOVE,
    NONE,
    SUPER,
    SWIFT,
    InfinitronState,
)
from referee.games.infinitron.geometry import CELL_COUNT, DISTANCE, FACING

from .evaluation import Evaluation

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


class Army(Evaluation):
    """The DEFINE and BUILD candidates: the plan or the varied army's pick, defenders, room to build."""

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
