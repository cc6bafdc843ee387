"""Infinitron's rules as numbers and tables: limits, prices, codes, templates.

Everything here is constant: the other engine modules (notation, setup,
legality, state) and the renderer read it, and it reads nothing of theirs.
"""
from __future__ import annotations

from typing import NamedTuple

from .geometry import INDEX


MAX_TURNS = 343
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
ASTEROID_RADIUS = 2
TERRITORY_RADIUS = 2
BUILD_RADIUS = 1

CAPITALS = (INDEX[(4, -2)], INDEX[(-4, 2)])  # Red's, Blue's
CAPITAL_RESOURCES, CAPITAL_TERRAIN = 3, 6
CITY_RESOURCES, CITY_TERRAIN = 2, 4
NEUTRAL_CITY_PAIRS = 2
CITY_MIN_DISTANCE_FROM_CAPITALS = 3
CITY_MIN_SPACING = 2

# Ground codes (one byte a cell).  TERRAIN kinds are 1..4.
PLAIN, BLOCK, LAVA, REPAIR, LABEL, FISH = 0, 1, 2, 3, 4, 5
TERRAIN_NAMES = ("PLAIN", "BLOCK", "LAVA", "REPAIR", "LABEL")
TERRAIN_KINDS = (BLOCK, LAVA, REPAIR, LABEL)

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


# Command kinds: the first item of every action tuple.
END, DEFINE, BUILD, MOVE, ATTACK, ABILITY, TERRAIN, NO_EVENT, ASTEROID, FISH_MARKET = range(10)
PLAYER_KINDS = frozenset((END, DEFINE, BUILD, MOVE, ATTACK, ABILITY, TERRAIN))
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


class Template(NamedTuple):
    """A unit template: the five DEFINE numbers and what they give."""

    hp: int  # HP points bought, 0..4
    move: int  # Move value 0..3
    dmg: int  # damage in tens, 0..5 (0: no attack)
    range: int  # index into RANGE_NAMES
    ability: int  # index into ABILITY_NAMES
    cost: int
    max_hp: int
    budget: int  # movement allowance in half points (SWIFT pays 1 half point onto LABEL)
    damage: int
    min_range: int
    max_range: int
    swift: bool


def template_cost(hp: int, move: int, dmg: int, range_: int, ability: int) -> int:
    attack = dmg + RANGE_RULES[range_][0] if dmg else 0
    return hp + move_points(move) + attack + ABILITY_PRICES[ability]


def make_template(hp: int, move: int, dmg: int, range_: int, ability: int) -> Template:
    _, lo, hi = RANGE_RULES[range_]
    return Template(
        hp,
        move,
        dmg,
        range_,
        ability,
        template_cost(hp, move, dmg, range_, ability),
        BASE_HP + HP_PER_POINT * hp,
        2 * move,
        10 * dmg,
        lo,
        hi,
        ability == SWIFT,
    )


#: Every well-formed DEFINE's template, by ``(hp, move, dmg, range, ability)``.
TEMPLATES: dict[tuple[int, ...], Template] = {
    (h, m, d, r, a): make_template(h, m, d, r, a)
    for h in HP_POINTS
    for m in MOVE_VALUES
    for d in DAMAGE_TENS
    for r in range(len(RANGE_NAMES))
    for a in range(len(ABILITY_NAMES))
}


def define_problem(hp: int, move: int, dmg: int, range_: int, ability: int) -> str | None:
    """Why a DEFINE's template is not allowed, whoever defines it."""
    if dmg == 0 and range_ != MELEE:
        return "a template with dmg 0 has no attack, so its range must be written MELEE"
    cost = TEMPLATES[(hp, move, dmg, range_, ability)].cost
    if not MIN_TEMPLATE_COST <= cost <= MAX_TEMPLATE_COST:
        return f"the template costs {cost} points; a template must cost {MIN_TEMPLATE_COST}..{MAX_TEMPLATE_COST}"
    return None


#: Every valid DEFINE action, in a fixed order (what legal_actions lists).
ALL_DEFINES: tuple[tuple[int, ...], ...] = tuple(
    (DEFINE, *spec) for spec in TEMPLATES if define_problem(*spec) is None
)
