"""Infinitron Skirmish rules engine (pure: no I/O, no clocks, no randomness of its own).

The rules are ``shared/specs/infinitron.md``; the readings this engine takes
where that text leaves room are listed in ``docs/infinitron.md``.

The engine is split by job: :mod:`.rules` (constants and tables),
:mod:`.notation` (action tuples and their text), :mod:`.setup` (the cities
and the seeded draw), :mod:`.movement` (reach and paths), :mod:`.legality`
(why a command is illegal), :mod:`.state` (the position) and :mod:`.game`
(the options).  This module gathers their public names, so that
``from referee.games.infinitron.engine import X`` keeps working.
"""
from __future__ import annotations

from ..base import (
    BLUE, CHANCE, PLAYER_NAMES, RED, Game, GameOptionError, GameState, NotationError, Outcome, check_options,
)
from .game import Infinitron
from .geometry import (
    BLOCKERS, CELL_COUNT, CELLS, DISTANCE, FACING, INDEX, STEPS, WITHIN_1, WITHIN_2, hex_distance, on_board,
)
from .notation import (
    ability, action_to_str, asteroid, attack, build, cell_of, cell_text, claim, define, fish_market, is_well_formed,
    move, parse_action, terrain,
)
from .rules import (
    ABILITY, ABILITY_AMOUNTS, ABILITY_NAMES, ABILITY_PRICES, ALL_DEFINES, ARTILLERY, ASTEROID, ASTEROID_RADIUS,
    ATTACK, BASE_HP, BLAST1, BLAST2, BLAST_REACH, BLOCK, BUILD, BUILD_RADIUS, CAPITAL_RESOURCES, CAPITAL_TERRAIN,
    CAPITALS, CHANCE_KINDS, CHAOS_ODDS, CITY_MIN_DISTANCE_FROM_CAPITALS, CITY_MIN_SPACING, CITY_RESOURCES,
    CITY_TERRAIN, CLAIMED, DAMAGE_TENS, DEFINE, DEFINE_PRICE, DESTROYED, DONE_ACTED, DONE_BUILT, DONE_SUPERSEDED,
    DONE_TEXT, END, END_TURN_ACTION, FISH, FISH_MARKET, FISH_TOKENS, HEAL1, HEAL2, HEAL_REACH, HP_PER_POINT,
    HP_POINTS, LABEL, LAVA, LAVA_DAMAGE, LONG, MAX_COMMANDS, MAX_TEMPLATE_COST, MAX_TEMPLATES, MAX_TURNS, MAX_UNITS,
    MEDIUM, MELEE, MIN_TEMPLATE_COST, MOVE, MOVE_VALUES, NEUTRAL_CITY_PAIRS, NO_EVENT, NO_EVENT_ACTION, NONE, PLAIN,
    PLAYER_KINDS, RANGE_NAMES, RANGE_RULES, REPAIR, REPAIR_HEAL, REPAIR_PRICE, SUPER, SWIFT, TEMPLATES, TERRAIN,
    TERRAIN_KINDS, TERRAIN_NAMES, WIN_SCORE_LEAD, Template, define_problem, make_template,
    move_points, template_cost, ARMOUR_CODES, ARMOUR_LAYOUTS, CAPITAL_CLAIMS, CAPITAL_TERRITORY_MAX, CLAIM,
    IMPASSABLE, NEUTRAL_TERRITORY_MAX, RUBBLE, RUBBLE_TURNS, all_armoured_defines, armour_code, armour_text,
    template_of,
)
from .setup import Setup, default_cities, neutral_cities_from_seed, uniform_index
from .position import BLUE_CAPTURES, BLUE_ON_SCORE, DRAW_ON_SCORE, RED_CAPTURES, RED_ON_SCORE
from .state import InfinitronState

__all__ = [
    "ABILITY", "ABILITY_AMOUNTS", "ABILITY_NAMES", "ABILITY_PRICES", "ALL_DEFINES", "ARTILLERY", "ASTEROID",
    "ASTEROID_RADIUS", "ATTACK", "BASE_HP", "BLAST1", "BLAST2", "BLAST_REACH", "BLOCK", "BLOCKERS", "BLUE",
    "BLUE_CAPTURES", "BLUE_ON_SCORE", "BUILD", "BUILD_RADIUS", "CAPITALS", "CAPITAL_RESOURCES", "CAPITAL_TERRAIN",
    "CELLS", "CELL_COUNT", "CHANCE", "CHANCE_KINDS", "CHAOS_ODDS", "CITY_MIN_DISTANCE_FROM_CAPITALS",
    "CITY_MIN_SPACING", "CITY_RESOURCES", "CITY_TERRAIN", "CLAIMED", "DAMAGE_TENS", "DEFINE", "DEFINE_PRICE",
    "DESTROYED", "DISTANCE", "DONE_ACTED", "DONE_BUILT", "DONE_SUPERSEDED", "DONE_TEXT", "DRAW_ON_SCORE", "END",
    "END_TURN_ACTION", "FISH", "FISH_MARKET", "FISH_TOKENS", "Game", "GameOptionError", "GameState", "HEAL1", "HEAL2",
    "HEAL_REACH", "HP_PER_POINT", "HP_POINTS", "INDEX", "Infinitron", "InfinitronState", "LABEL", "LAVA",
    "LAVA_DAMAGE", "LONG", "MAX_COMMANDS", "MAX_TEMPLATES", "MAX_TEMPLATE_COST", "MAX_TURNS", "MAX_UNITS", "MEDIUM",
    "MELEE", "MIN_TEMPLATE_COST", "MOVE", "MOVE_VALUES", "NEUTRAL_CITY_PAIRS", "NONE", "NO_EVENT", "NO_EVENT_ACTION",
    "NotationError", "Outcome", "PLAIN", "PLAYER_KINDS", "PLAYER_NAMES", "RANGE_NAMES", "RANGE_RULES", "RED",
    "RED_CAPTURES", "RED_ON_SCORE", "REPAIR", "REPAIR_HEAL", "REPAIR_PRICE", "STEPS", "SUPER", "SWIFT", "Setup",
    "TEMPLATES", "TERRAIN", "TERRAIN_KINDS", "TERRAIN_NAMES", "Template", "WIN_SCORE_LEAD",
    "WITHIN_1", "WITHIN_2", "ability", "action_to_str", "asteroid", "attack", "build", "cell_of", "cell_text",
    "check_options", "default_cities", "define", "define_problem", "fish_market", "hex_distance", "is_well_formed",
    "make_template", "move", "move_points", "neutral_cities_from_seed", "on_board", "parse_action", "template_cost",
    "terrain", "uniform_index", "ARMOUR_CODES", "ARMOUR_LAYOUTS", "CAPITAL_CLAIMS", "CAPITAL_TERRITORY_MAX",
    "CLAIM", "FACING", "IMPASSABLE", "NEUTRAL_TERRITORY_MAX", "RUBBLE", "RUBBLE_TURNS", "all_armoured_defines",
    "armour_code", "armour_text", "claim", "template_of",
]
