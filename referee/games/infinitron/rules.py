"""Infinitron's rules as numbers and tables: limits, prices, codes, templates.

Everything here is constant: the other engine modules (notation, setup,
legality, state) and the renderer read it, and it reads nothing of theirs.
"""
from __future__ import annotations

from typing import NamedTuple

from .geometry import INDEX


MAX_TURNS = 343
#: The rules versions the engine plays (game option ``rules``); 1.0 is gone (its records do not replay).
RULES_VERSIONS = ("1.1", "1.2")
DEFAULT_RULES = "1.2"
#: RP added to each player's income at the start of its first turns, per rules version:
#: ``(Red's, Blue's)``, each a tuple holding the extra RP of the player's 1st, 2nd... turn.
#: 1.2 evens out the first move: see docs/infinitron.md, "Version 1.2".
OPENING_RP: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {"1.1": ((), ()), "1.2": ((), (2, 2))}
WIN_SCORE_LEAD = 2
MAX_COMMANDS = 64  # per turn, END_TURN not counted: the 65th command must be END_TURN
MAX_TEMPLATES = 4
MAX_UNITS = 12
DEFINE_PRICE = 2
MIN_TEMPLATE_COST = 3
MAX_TEMPLATE_COST = 12
LAVA_DAMAGE = 20
REPAIR_HEAL = 20
REPAIR_PRICE = 1
HP_PER_POINT = 20
BASE_HP = 20
CHAOS_ODDS = 12  # an event with probability 1/12
FISH_TOKENS = 6
ASTEROID_RADIUS = 1
RUBBLE_TURNS = 24  # player turns an asteroid's rubble lasts
BUILD_RADIUS = 1
#: Cells a territory may hold: a neutral city's (all claimed), a capital's (six neighbours + 6 claimed).
NEUTRAL_TERRITORY_MAX = 8
CAPITAL_CLAIMS = 6
CAPITAL_TERRITORY_MAX = 6 + CAPITAL_CLAIMS
ARMOUR_STEP = 10  # damage taken through a side: -10 for +, +10 for -

CAPITALS = (INDEX[(4, -2)], INDEX[(-4, 2)])  # Red's, Blue's
CAPITAL_RESOURCES, CAPITAL_TERRAIN = 3, 6
CITY_RESOURCES, CITY_TERRAIN = 2, 4
NEUTRAL_CITY_PAIRS = 2
CITY_MIN_DISTANCE_FROM_CAPITALS = 3
CITY_MIN_SPACING = 2

# Ground codes (one byte a cell).  TERRAIN kinds are 1..4; RUBBLE only comes from asteroids.
PLAIN, BLOCK, LAVA, REPAIR, LABEL, FISH, RUBBLE = 0, 1, 2, 3, 4, 5, 6
TERRAIN_NAMES = ("PLAIN", "BLOCK", "LAVA", "REPAIR", "LABEL")
TERRAIN_KINDS = (BLOCK, LAVA, REPAIR, LABEL)
#: ``IMPASSABLE[g]``: whether ground code ``g`` stops units (BLOCK and RUBBLE).
IMPASSABLE = bytes(1 if g in (BLOCK, RUBBLE) else 0 for g in range(7))

RANGE_NAMES = ("MELEE", "MEDIUM", "LONG", "ARTILLERY", "SUPER")
MELEE, MEDIUM, LONG, ARTILLERY, SUPER = range(5)
#: (points, min distance, max distance) per range.
RANGE_RULES = ((0, 1, 1), (1, 1, 2), (2, 1, 3), (2, 4, 5), (4, 1, 5))

ABILITY_NAMES = ("NONE", "HEAL1", "HEAL2", "BLAST1", "BLAST2", "SWIFT")
NONE, HEAL1, HEAL2, BLAST1, BLAST2, SWIFT = range(6)
ABILITY_PRICES = (0, 1, 2, 2, 3, 1)  # template points; also the RP per use of an active one
ABILITY_AMOUNTS = (0, 20, 40, 20, 40, 0)  # HP healed or blast damage
HEAL_REACH, BLAST_REACH = 1, 2

HP_POINTS = range(5)
MOVE_VALUES = range(4)
DAMAGE_TENS = range(6)


def move_points(move: int) -> int:
    """Template points of a Move value: Move 1 free, +1 per point above, Move 0 gives -2."""
    return -2 if move == 0 else move - 1


# Command kinds: the first item of every action tuple.  CLAIM (1.1) comes
# last so that the 1.0 kinds keep their numbers.
END, DEFINE, BUILD, MOVE, ATTACK, ABILITY, TERRAIN, NO_EVENT, ASTEROID, FISH_MARKET, CLAIM = range(11)
PLAYER_KINDS = frozenset((END, DEFINE, BUILD, MOVE, ATTACK, ABILITY, TERRAIN, CLAIM))
CHANCE_KINDS = frozenset((NO_EVENT, ASTEROID, FISH_MARKET))

END_TURN_ACTION = (END,)
NO_EVENT_ACTION = (NO_EVENT,)

# Why a unit is done for the turn (for error messages).
DONE_BUILT, DONE_ACTED, DONE_SUPERSEDED = 1, 2, 3
DONE_TEXT = {
    DONE_BUILT: "was built this turn and can do nothing else this turn",
    DONE_ACTED: "has already attacked or used its ability this turn",
    DONE_SUPERSEDED: "is done for this turn: another unit was commanded after it",
}

# City flags.
CLAIMED, DESTROYED = 1, 2


#: An armour layout is written as six characters, one per side in direction
#: order; in an action it is a number whose base-3 digits are the sides
#: (side i is digit i: 0 for ``0``, 1 for ``+``, 2 for ``-``).  0 is no armour.
ARMOUR_CHARS = "0+-"
ARMOUR_CODES = 3**6
NO_ARMOUR: tuple[int, ...] = (0,) * 6


def armour_text(code: int) -> str:
    """The six characters of an armour layout's code."""
    return "".join(ARMOUR_CHARS[(code // 3**i) % 3] for i in range(6))


def armour_code(text: str) -> int:
    """The code of six armour characters (ValueError if they are not six of ``+0-``)."""
    if len(text) != 6 or any(ch not in ARMOUR_CHARS for ch in text):
        raise ValueError(f"an armour layout is six characters from +, 0, -, not {text!r}")
    return sum(ARMOUR_CHARS.index(ch) * 3**i for i, ch in enumerate(text))


def armour_changes(code: int) -> tuple[int, ...]:
    """The damage change through each side: -10 for ``+``, +10 for ``-``, 0 for ``0``."""
    return tuple((0, -ARMOUR_STEP, ARMOUR_STEP)[(code // 3**i) % 3] for i in range(6))


def armour_balanced(code: int) -> bool:
    text = armour_text(code)
    return text.count("+") == text.count("-")


class Template(NamedTuple):
    """A unit template: the DEFINE numbers and what they give."""

    hp: int  # HP points bought, 0..4
    move: int  # Move value 0..3
    dmg: int  # damage in tens, 0..5 (0: no attack)
    range: int  # index into RANGE_NAMES
    ability: int  # index into ABILITY_NAMES
    cost: int
    max_hp: int
    budget: int  # movement points a turn (the Move value; SWIFT steps onto LABEL are free)
    damage: int
    min_range: int
    max_range: int
    swift: bool
    armour: int = 0  # the layout's code (0: none)
    armour_changes: tuple[int, ...] = NO_ARMOUR  # damage change through each side


def template_cost(hp: int, move: int, dmg: int, range_: int, ability: int) -> int:
    attack = dmg + RANGE_RULES[range_][0] if dmg else 0
    return hp + move_points(move) + attack + ABILITY_PRICES[ability]


def make_template(hp: int, move: int, dmg: int, range_: int, ability: int, armour: int = 0) -> Template:
    """The template of a DEFINE; with dmg 0 the range is MELEE whatever was written (1.1)."""
    if dmg == 0:
        range_ = MELEE
    _, lo, hi = RANGE_RULES[range_]
    return Template(
        hp,
        move,
        dmg,
        range_,
        ability,
        template_cost(hp, move, dmg, range_, ability),  # armour is free: its + and - balance
        BASE_HP + HP_PER_POINT * hp,
        move,
        10 * dmg,
        lo,
        hi,
        ability == SWIFT,
        armour,
        armour_changes(armour),
    )


#: Every well-formed unarmoured DEFINE's template, by ``(hp, move, dmg, range, ability)``
#: (armoured ones, by the six DEFINE numbers, are added by :func:`template_of` when first met).
TEMPLATES: dict[tuple[int, ...], Template] = {
    (h, m, d, r, a): make_template(h, m, d, r, a)
    for h in HP_POINTS
    for m in MOVE_VALUES
    for d in DAMAGE_TENS
    for r in range(len(RANGE_NAMES))
    for a in range(len(ABILITY_NAMES))
}


def template_of(spec: tuple[int, ...]) -> Template:
    """The template of a DEFINE's numbers ``(hp, move, dmg, range, ability[, armour])``."""
    found = TEMPLATES.get(spec)
    if found is None:
        found = TEMPLATES[spec] = make_template(*spec)
    return found


def define_problem(hp: int, move: int, dmg: int, range_: int, ability: int, armour: int = 0) -> str | None:
    """Why a DEFINE's template is not allowed, whoever defines it (the armour option aside)."""
    if armour and not armour_balanced(armour):
        return f"an armour layout has as many + as - sides; {armour_text(armour)} does not"
    cost = TEMPLATES[(hp, move, dmg, range_, ability)].cost
    if not MIN_TEMPLATE_COST <= cost <= MAX_TEMPLATE_COST:
        return f"the template costs {cost} points; a template must cost {MIN_TEMPLATE_COST}..{MAX_TEMPLATE_COST}"
    return None


def is_canonical_define(spec: tuple[int, ...]) -> bool:
    """Whether a DEFINE's numbers are in canonical form: a template without attack says MELEE."""
    return spec[2] != 0 or spec[3] == MELEE


#: Every valid unarmoured DEFINE action, in canonical form and a fixed order (what legal_actions lists).
ALL_DEFINES: tuple[tuple[int, ...], ...] = tuple(
    (DEFINE, *spec) for spec in TEMPLATES if is_canonical_define(spec) and define_problem(*spec) is None
)

#: The codes of the balanced armour layouts but "000000", ascending.
ARMOUR_LAYOUTS: tuple[int, ...] = tuple(c for c in range(1, ARMOUR_CODES) if armour_balanced(c))

_ARMOURED: list[tuple[tuple[int, ...], ...]] = []


def all_armoured_defines() -> tuple[tuple[int, ...], ...]:
    """Every valid armoured DEFINE (built on first use: there are 2,744 x 140 of them)."""
    if not _ARMOURED:
        _ARMOURED.append(tuple((*d, code) for d in ALL_DEFINES for code in ARMOUR_LAYOUTS))
    return _ARMOURED[0]
