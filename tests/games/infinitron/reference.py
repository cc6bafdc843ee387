"""A deliberately simple Infinitron implementation, written from the rules text.

No tables and no encodings: dicts keyed by ``(r, q)``, commands as text, and
the rules (version 1.1, and 1.2's extra RP for Blue's first two turns) spelled
out one by one in the most direct way (exact fractions for hex lines and
armour sides, a fresh search for every wall-off question, every cell of the
board tried for every command).  Slow on purpose; the fast engine is checked
against it.  Where the rules leave room, it takes the readings written in
docs/infinitron.md.

With the armour option the armoured DEFINEs (2,744 x 140) are not listed by
:meth:`RefGame.legal`; :meth:`RefGame.armoured_defines` counts them.
"""
from __future__ import annotations

import re
from fractions import Fraction
from functools import cache
from itertools import product

R = 5
DIRS = [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)]
BOARD = [(r, q) for r in range(-R, R + 1) for q in range(-R, R + 1) if max(abs(r), abs(q), abs(r + q)) <= R]
CAPITAL = {"r": (4, -2), "b": (-4, 2)}
RANGES = {
    "MELEE": (0, {1}), "MEDIUM": (1, {1, 2}), "LONG": (2, {1, 2, 3}),
    "ARTILLERY": (2, {4, 5}), "SUPER": (4, {1, 2, 3, 4, 5}),
}
ABILITIES = {"NONE": 0, "HEAL1": 1, "HEAL2": 2, "BLAST1": 2, "BLAST2": 3, "SWIFT": 1}
TERRAINS = ["BLOCK", "LAVA", "REPAIR", "LABEL"]


def dist(a, b):
    dr, dq = a[0] - b[0], a[1] - b[1]
    return max(abs(dr), abs(dq), abs(dr + dq))


def other(colour):
    return "b" if colour == "r" else "r"


def cost_of(hp, move, dmg, rng, ability):
    points = hp
    points += {0: -2, 1: 0, 2: 1, 3: 2}[move]
    if dmg > 0:
        points += dmg + RANGES[rng][0]
    return points + ABILITIES[ability]


@cache  # a pure function of two cells: computed once per pair (exact fractions are slow)
def between_cells(a, b):
    """Cells strictly between a and b on the hex line; on a tie, both cells."""
    n = dist(a, b)
    found = set()
    for i in range(1, n):
        t = Fraction(i, n)
        pr, pq = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
        # Squared distance in the plane between axial points: dq^2 + dq*dr + dr^2.
        def d2(c, pr=pr, pq=pq):
            dr, dq = c[0] - pr, c[1] - pq
            return dq * dq + dq * dr + dr * dr

        best = min(d2(c) for c in BOARD)
        found |= {c for c in BOARD if d2(c) == best}
    return found


def cell_text(c):
    return f"{c[0]}, {c[1]}"


def neighbours(c):
    return [(c[0] + dr, c[1] + dq) for dr, dq in DIRS]


def plane_d2(c, pr, pq):
    """Squared distance in the plane between cell c's centre and the axial point (pr, pq)."""
    dr, dq = c[0] - pr, c[1] - pq
    return dq * dq + dq * dr + dr * dr


@cache
def facing_sides(unit, source):
    """The side(s) of ``unit`` facing ``source``: the neighbour(s) nearest the hex line's first point."""
    if unit == source:
        return []
    n = dist(unit, source)
    t = Fraction(1, n)
    pr, pq = unit[0] + (source[0] - unit[0]) * t, unit[1] + (source[1] - unit[1]) * t
    near = neighbours(unit)
    best = min(plane_d2(c, pr, pq) for c in near)
    return [i for i, c in enumerate(near) if plane_d2(c, pr, pq) == best]


ARMOUR_CHANGE = {"+": -10, "0": 0, "-": 10}
LAYOUTS = ["".join(x) for x in product("+0-", repeat=6) if x.count("+") == x.count("-") and set(x) != {"0"}]


#: Rules 1.2: RP added to a player's income on its first, second... turn (1.1: none).
OPENING_EXTRA = {"1.1": {"r": [], "b": []}, "1.2": {"r": [], "b": [2, 2]}}


class RefGame:
    def __init__(self, neutral, chaos=False, max_turns=343, armour=False, rules="1.2"):
        self.chaos = chaos
        self.rules = rules
        self.armour = armour
        self.max_turns = max_turns
        # cities: list of dicts, capitals first; "most" is the largest territory allowed.
        self.cities = [
            {"cell": CAPITAL[c], "res": 3, "tv": 6, "owner": c, "destroyed": False, "claimed": True,
             "territory": {n for n in neighbours(CAPITAL[c])}, "most": 12}
            for c in "rb"
        ] + [
            {"cell": c, "res": 2, "tv": 4, "owner": None, "destroyed": False, "claimed": False,
             "territory": set(), "most": 8}
            for c in sorted(neutral)
        ]
        self.claim_open = set()  # cities taking CLAIMs this turn
        self.terrain = {}  # cell -> BLOCK / LAVA / REPAIR / LABEL / RUBBLE
        self.rubble_until = {}  # cell -> the turn number at which its rubble goes
        self.fish = set()
        self.units = {}  # (colour, number) -> {"cell", "hp", "t"}
        self.templates = {"r": [], "b": []}  # dicts hp/move/dmg/range/ability
        self.rp = {"r": 0, "b": 0}
        self.points = {}  # city index -> terrain points (of the player to move)
        self.turn = 0
        self.commands = 0
        self.last = None
        self.last_points = 0  # movement points the last commanded unit has left
        self.acted, self.finished, self.built = set(), set(), set()
        self.next_number = {"r": 0, "b": 0}
        self.chance_due = False
        self.winner = None
        if chaos:
            self.chance_due = True
        else:
            self.begin_turn()

    # -- helpers -----------------------------------------------------------
    def mover(self):
        return "r" if self.turn % 2 == 0 else "b"

    def unit_on(self, cell):
        for key, u in self.units.items():
            if u["cell"] == cell:
                return key
        return None

    def tmpl(self, key):
        return self.templates[key[0]][self.units[key]["t"]]

    def max_hp(self, key):
        return 20 + 20 * self.tmpl(key)["hp"]

    def city_index(self, cell):
        for i, c in enumerate(self.cities):
            if c["cell"] == cell:
                return i
        return None

    def passable(self, cell):
        return self.terrain.get(cell) not in ("BLOCK", "RUBBLE")

    def passable_empty(self, cell):
        return self.passable(cell) and self.unit_on(cell) is None

    def joined_without(self, blocked):
        """Whether passable cells join the capitals once ``blocked`` is BLOCK too (units ignored)."""
        seen = {CAPITAL["r"]}
        todo = [CAPITAL["r"]]
        while todo:
            c = todo.pop()
            if c == CAPITAL["b"]:
                return True
            for n in neighbours(c):
                if n in BOARD_SET and n not in seen and n != blocked and self.passable(n):
                    seen.add(n)
                    todo.append(n)
        return False

    def score(self, colour):
        s = sum(c["res"] for c in self.cities if c["owner"] == colour and not c["destroyed"])
        for key in self.units:
            if key[0] == colour:
                t = self.tmpl(key)
                s += cost_of(t["hp"], t["move"], t["dmg"], t["range"], t["ability"])
        return s

    def result(self):
        if self.winner:
            return (self.winner, "capital")
        if self.turn >= self.max_turns:
            red, blue = self.score("r"), self.score("b")
            if red - blue >= 2:
                return ("r", "turn_limit")
            if blue - red >= 2:
                return ("b", "turn_limit")
            return (None, "turn_limit")
        return None

    def begin_turn(self):
        me = self.mover()
        self.rp[me] += sum(c["res"] for c in self.cities if c["owner"] == me and not c["destroyed"])
        extra = OPENING_EXTRA[self.rules][me]  # the extra RP of the player's first turns come with its income
        if self.turn // 2 < len(extra):
            self.rp[me] += extra[self.turn // 2]
        for key in sorted(k for k in self.units if k[0] == me):
            u = self.units[key]
            if self.terrain.get(u["cell"]) == "REPAIR" and u["hp"] < self.max_hp(key) and self.rp[me] >= 1:
                u["hp"] = min(u["hp"] + 20, self.max_hp(key))
                self.rp[me] -= 1
        if self.turn < 2:
            i = 0 if me == "r" else 1
            self.points[i] = 6
            self.claim_open.add(i)

    def points_left(self, key):
        if key == self.last:
            return self.last_points
        return self.tmpl(key)["move"]

    def step_cost(self, key, cell):
        return 0 if self.tmpl(key)["ability"] == "SWIFT" and self.terrain.get(cell) == "LABEL" else 1

    def can_command(self, key):
        return key in self.units and key not in self.built and key not in self.acted and key not in self.finished

    def territory_cells(self, i):
        return sorted(self.cities[i]["territory"])

    def claimable(self, i):
        city = self.cities[i]
        if i not in self.claim_open or len(city["territory"]) >= city["most"]:
            return []
        out = []
        for cell in BOARD:
            if self.city_index(cell) is not None or any(cell in c["territory"] for c in self.cities):
                continue
            if any(n == city["cell"] or n in city["territory"] for n in neighbours(cell)):
                out.append(cell)
        return out

    def armoured_defines(self):
        """How many armoured DEFINEs are legal now (listed by the engine, only counted here)."""
        if not self.armour or self.result() is not None or self.chance_due or self.commands >= 64:
            return 0
        me = self.mover()
        if len(self.templates[me]) >= 4 or self.rp[me] < 2:
            return 0
        valid = sum(
            1
            for hp, mv, dmg, rng, ab in product(range(5), range(4), range(6), RANGES, ABILITIES)
            if (dmg > 0 or rng == "MELEE") and 3 <= cost_of(hp, mv, dmg, rng, ab) <= 12
        )
        return valid * len(LAYOUTS)

    # -- legal commands -----------------------------------------------------
    def legal(self):
        if self.result() is not None or self.chance_due:
            return set()
        if self.commands >= 64:
            return {"END_TURN"}
        me = self.mover()
        rp = self.rp[me]
        out = {"END_TURN"}
        if len(self.templates[me]) < 4 and rp >= 2:
            for hp, mv, dmg, rng, ab in product(range(5), range(4), range(6), RANGES, ABILITIES):
                if dmg == 0 and rng != "MELEE":
                    continue
                if 3 <= cost_of(hp, mv, dmg, rng, ab) <= 12:
                    out.add(f"DEFINE({hp}, {mv}, {dmg}, {rng}, {ab})")
        mine = [k for k in self.units if k[0] == me]
        if len(mine) < 12:
            for i, t in enumerate(self.templates[me]):
                if cost_of(t["hp"], t["move"], t["dmg"], t["range"], t["ability"]) > rp:
                    continue
                for cell in BOARD:
                    if not self.passable_empty(cell):
                        continue
                    if any(
                        c["owner"] == me and not c["destroyed"] and dist(cell, c["cell"]) <= 1 for c in self.cities
                    ):
                        out.add(f"BUILD({i}, {cell_text(cell)})")
        for key in mine:
            if not self.can_command(key):
                continue
            u = self.units[key]
            t = self.tmpl(key)
            for n in neighbours(u["cell"]):
                if n in BOARD_SET and self.passable_empty(n) and self.step_cost(key, n) <= self.points_left(key):
                    out.add(f"MOVE({key[1]}, {cell_text(n)})")
            if t["dmg"] > 0:
                for cell in BOARD:
                    target = self.unit_on(cell)
                    if target is None or target[0] == me:
                        continue
                    d = dist(u["cell"], cell)
                    if d not in RANGES[t["range"]][1]:
                        continue
                    if any(self.unit_on(b) is not None for b in between_cells(u["cell"], cell)):
                        continue
                    out.add(f"ATTACK({key[1]}, {cell_text(cell)})")
            ab = t["ability"]
            if ab in ("HEAL1", "HEAL2", "BLAST1", "BLAST2") and rp >= ABILITIES[ab]:
                for cell in BOARD:
                    d = dist(u["cell"], cell)
                    if ab.startswith("HEAL"):
                        friend = self.unit_on(cell)
                        if d <= 1 and friend is not None and friend[0] == me:
                            out.add(f"ABILITY({key[1]}, {cell_text(cell)})")
                    elif d <= 2:
                        out.add(f"ABILITY({key[1]}, {cell_text(cell)})")
        for i, pts in self.points.items():
            if pts <= 0:
                continue
            for cell in self.territory_cells(i):
                if cell in self.terrain or cell in self.fish or self.unit_on(cell) is not None:
                    continue
                if self.city_index(cell) is not None:
                    continue
                for kind in TERRAINS:
                    if kind != "BLOCK" or self.joined_without(cell):
                        out.add(f"TERRAIN({kind}, {cell_text(cell)})")
        for i in self.claim_open:
            for cell in self.claimable(i):
                out.add(f"CLAIM({i}, {cell_text(cell)})")
        return out

    # -- playing ------------------------------------------------------------
    def play(self, text):
        word = text.split("(")[0]
        nums = [int(x) for x in re.findall(r"-?\d+", text)]
        if word == "END_TURN":
            self.points = {}
            self.claim_open = set()
            self.turn += 1
            self.commands = 0
            self.last = None
            self.acted, self.finished, self.built = set(), set(), set()
            if self.turn < self.max_turns:
                for cell, until in list(self.rubble_until.items()):
                    if until <= self.turn:
                        del self.rubble_until[cell]
                        del self.terrain[cell]
                if self.mover() == "r" and self.chaos:
                    self.chance_due = True
                else:
                    self.begin_turn()
            return
        if word in ("NO_EVENT", "ASTEROID", "FISH_MARKET"):
            self.chance_due = False
            if word == "ASTEROID":
                centre = (nums[0], nums[1])
                for cell in BOARD:
                    if dist(cell, centre) <= 1:
                        key = self.unit_on(cell)
                        if key:
                            del self.units[key]
                        self.terrain[cell] = "RUBBLE"
                        self.rubble_until[cell] = self.turn + 24
                        self.fish.discard(cell)
                        i = self.city_index(cell)
                        if i is not None:
                            self.cities[i]["destroyed"] = True
                            self.cities[i]["owner"] = None
            elif word == "FISH_MARKET":
                for k in range(0, len(nums), 2):
                    self.fish.add((nums[k], nums[k + 1]))
            self.begin_turn()
            return
        me = self.mover()
        self.commands += 1
        if word == "DEFINE":
            args = [a.strip() for a in text[text.index("(") + 1 : -1].split(",")]
            self.templates[me].append(
                {"hp": int(args[0]), "move": int(args[1]), "dmg": int(args[2]), "range": args[3], "ability": args[4],
                 "armour": args[5] if len(args) == 6 else "000000"}
            )
            self.rp[me] -= 2
            return
        if word == "CLAIM":
            self.cities[nums[0]]["territory"].add((nums[1], nums[2]))
            return
        if word == "TERRAIN":
            kind = text[text.index("(") + 1 :].split(",")[0].strip()
            cell = (nums[0], nums[1])
            for i in sorted(self.points):
                if self.points[i] > 0 and cell in self.cities[i]["territory"]:
                    self.points[i] -= 1
                    break
            self.terrain[cell] = kind
            return
        if word == "BUILD":
            t = self.templates[me][nums[0]]
            self.rp[me] -= cost_of(t["hp"], t["move"], t["dmg"], t["range"], t["ability"])
            key = (me, self.next_number[me])
            self.next_number[me] += 1
            self.units[key] = {"cell": (nums[1], nums[2]), "hp": 20 + 20 * t["hp"], "t": nums[0]}
            self.built.add(key)
            return
        key = (me, nums[0])
        cell = (nums[1], nums[2])
        if self.last != key:
            if self.last is not None:
                self.finished.add(self.last)
            self.last = key
            self.last_points = self.tmpl(key)["move"]
        t = self.tmpl(key)
        if word == "MOVE":
            self.last_points -= self.step_cost(key, cell)
            u = self.units[key]
            if cell in self.fish:
                self.fish.discard(cell)
                self.rp[me] += 1
            if self.terrain.get(cell) == "LAVA":
                u["hp"] -= 20
                if u["hp"] <= 0:
                    del self.units[key]
                    return
            u["cell"] = cell
            i = self.city_index(cell)
            if i is None or self.cities[i]["destroyed"] or self.cities[i]["owner"] == me:
                return
            if any(k[0] != me and v["cell"] in self.cities[i]["territory"] for k, v in self.units.items()):
                return
            self.cities[i]["owner"] = me
            if i == (1 if me == "r" else 0):
                self.winner = me
            elif i >= 2 and not self.cities[i]["claimed"]:
                self.cities[i]["claimed"] = True
                self.claim_open.add(i)
                self.points[i] = self.points.get(i, 0) + 4
            return
        self.acted.add(key)
        if word == "ATTACK":
            self.hurt(cell, 10 * t["dmg"], self.units[key]["cell"])
            return
        ab = t["ability"]
        self.rp[me] -= ABILITIES[ab]
        if ab.startswith("HEAL"):
            friend = self.unit_on(cell)
            amount = 20 if ab == "HEAL1" else 40
            self.units[friend]["hp"] = min(self.units[friend]["hp"] + amount, self.max_hp(friend))
        else:
            amount = 20 if ab == "BLAST1" else 40
            for c in BOARD:
                if dist(c, cell) <= 1:
                    self.hurt(c, amount, cell)

    def hurt(self, cell, amount, source):
        key = self.unit_on(cell)
        if key is None:
            return
        sides = facing_sides(cell, source)
        if sides:
            layout = self.tmpl(key)["armour"]
            amount = max(0, amount + min(ARMOUR_CHANGE[layout[s]] for s in sides))
        self.units[key]["hp"] -= amount
        if self.units[key]["hp"] <= 0:
            del self.units[key]


BOARD_SET = set(BOARD)
