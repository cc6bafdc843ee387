"""Why an Infinitron command is illegal: one check per command kind.

:func:`illegal_reason` handles what every command shares (well-formed, the
game not over, whose turn, the command limit) and hands the rest to the
check of the command's kind, found in :data:`CHECKS`.  Each check returns
``None`` for a legal command, else a sentence saying why it is not.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ..base import PLAYER_NAMES
from .geometry import BLOCKERS, CELL_COUNT, DISTANCE, STEPS
from .notation import cell_text, is_well_formed
from .position import InfinitronPosition
from .rules import (
    ABILITY,
    ABILITY_NAMES,
    ABILITY_PRICES,
    ASTEROID,
    ATTACK,
    BLAST_REACH,
    BLOCK,
    BUILD,
    BUILD_RADIUS,
    CHANCE_KINDS,
    CLAIM,
    DEFINE,
    DEFINE_PRICE,
    DONE_TEXT,
    END,
    FISH,
    FISH_MARKET,
    FISH_TOKENS,
    HEAL2,
    HEAL_REACH,
    IMPASSABLE,
    LABEL,
    MAX_COMMANDS,
    MAX_TEMPLATES,
    MAX_UNITS,
    MOVE,
    NO_EVENT,
    NONE,
    PLAIN,
    RANGE_NAMES,
    RUBBLE,
    SWIFT,
    TERRAIN,
    TERRAIN_NAMES,
    Template,
    define_problem,
)

Action = tuple[int, ...]
#: ``check(state, action, player)``: why the command is illegal, or None.
Check = Callable[[InfinitronPosition, Action, int], "str | None"]


def illegal_reason(state: InfinitronPosition, action: object) -> str | None:
    """Why ``action`` is illegal in ``state``, or None when it is legal."""
    if not is_well_formed(action):
        return f"not an Infinitron action: {action!r}"
    a: Action = action  # type: ignore[assignment]  # is_well_formed checked it
    kind = a[0]
    if state.is_over:
        return "the game is over"
    p = state.turn & 1
    if kind in CHANCE_KINDS:
        if not state.chance_pending:
            return "chaos events are chance's actions: none is due now (they come before RED's turns, with chaos on)"
        return CHECKS[kind](state, a, p)
    if state.chance_pending:
        return "a chaos roll is due before RED's turn: chance acts now, not a player"
    if kind == END:
        return None
    if state.commands >= MAX_COMMANDS:
        return f"{PLAYER_NAMES[p]} has given the {MAX_COMMANDS} commands a turn allows; the next must be END_TURN"
    return CHECKS[kind](state, a, p)


def _ground_name(g: int) -> str:
    return "RUBBLE" if g == RUBBLE else "a fish token" if g == FISH else TERRAIN_NAMES[g]


def _occupied(occupant: int, where: str) -> str:
    return f"cell {where} holds {PLAYER_NAMES[occupant & 1]} unit {occupant >> 1}"


def check_define(state: InfinitronPosition, a: Action, p: int) -> str | None:
    me = PLAYER_NAMES[p]
    if len(a) == 7 and not state.setup.armour:
        return "armour layouts need the game option armour, which is off in this game"
    if len(state.templates[p]) >= MAX_TEMPLATES:
        return f"{me} already has {MAX_TEMPLATES} templates, the most allowed"
    problem = define_problem(*a[1:])
    if problem:
        return problem
    rp = state.rp[p]
    if rp < DEFINE_PRICE:
        return f"DEFINE costs {DEFINE_PRICE} RP and {me} has {rp}"
    return None


def check_build(state: InfinitronPosition, a: Action, p: int) -> str | None:
    me = PLAYER_NAMES[p]
    t, cell = a[1], a[2]
    where = f"({cell_text(cell)})"
    templates = state.templates[p]
    if t >= len(templates):
        return f"{me} has no template {t} (it has {len(templates)})"
    if len(state.units[p]) >= MAX_UNITS:
        return f"{me} already has {MAX_UNITS} living units, the most allowed"
    cost, rp = templates[t].cost, state.rp[p]
    if rp < cost:
        return f"template {t} costs {cost} RP and {me} has {rp}"
    occupant = state.occ[cell]
    if occupant >= 0:
        return _occupied(occupant, where)
    if IMPASSABLE[state.ground[cell]]:
        return f"cell {where} is {_ground_name(state.ground[cell])} (impassable)"
    if cell not in state._build_cells(p):
        return f"cell {where} is not within distance {BUILD_RADIUS} of a city {me} controls"
    return None


def check_terrain(state: InfinitronPosition, a: Action, p: int) -> str | None:
    me = PLAYER_NAMES[p]
    cell = a[2]
    where = f"({cell_text(cell)})"
    if not any(state.terrain_points):
        return f"{me} holds no terrain points"
    g = state.ground[cell]
    if state.setup.city_at[cell] >= 0:
        return f"cell {where} is a city"
    if state._terrain_pool(cell) < 0:
        holders = ", ".join(
            f"({cell_text(state.setup.cities[i])})" for i, pts in enumerate(state.terrain_points) if pts
        )
        return f"cell {where} is not in the territory of a city that gave {me} terrain points ({holders})"
    if g != PLAIN:
        return f"cell {where} is not plain: it holds " + _ground_name(g)
    occupant = state.occ[cell]
    if occupant >= 0:
        return _occupied(occupant, where)
    if a[1] == BLOCK and not state.capitals_joined(cell):
        return (
            f"BLOCK on {where} would wall off a capital: no path of passable cells (neither BLOCK nor RUBBLE) "
            "would join the two capitals"
        )
    return None


def check_claim(state: InfinitronPosition, a: Action, p: int) -> str | None:
    me = PLAYER_NAMES[p]
    city, cell = a[1], a[2]
    where = f"({cell_text(cell)})"
    setup = state.setup
    if city >= len(setup.cities):
        return f"there is no city {city} (cities are numbered 0..{len(setup.cities) - 1})"
    name = f"city {city} ({cell_text(setup.cities[city])})"
    if not state.claiming >> city & 1:
        return (
            f"{me} cannot claim for {name} now: a neutral city's first captor claims in the turn of the capture, "
            "a capital's owner in its first turn"
        )
    territory = state.territories[city]
    if len(territory) >= setup.territory_max[city]:
        return f"{name}'s territory already has {len(territory)} cells, the most it may have"
    if setup.city_at[cell] >= 0:
        return f"cell {where} is a city"
    for i, other in enumerate(state.territories):
        if cell in other:
            whose = "its" if i == city else f"city {i}'s"
            return f"cell {where} is already in {whose} territory"
    if not any(n == setup.cities[city] or n in territory for _, n in STEPS[cell]):
        return f"cell {where} is adjacent neither to {name} nor to a cell of its territory"
    return None


class _UnitCommand(NamedTuple):
    """What MOVE, ATTACK and ABILITY checks read: the unit, its target and how to name them."""

    uid: int
    cell: int  # the target cell
    me: str  # the commanding player's name
    where: str  # the target cell as text, in brackets
    unit_cell: int
    template: Template


def _unit_command(state: InfinitronPosition, a: Action, p: int) -> _UnitCommand | str:
    """The unit command ``a`` of ``p``, or why its unit cannot be commanded at all now."""
    uid, cell = a[1], a[2]
    if uid not in state.units[p]:
        return f"{PLAYER_NAMES[p]} has no living unit {uid}"
    if uid in state.done:
        return f"{PLAYER_NAMES[p]} unit {uid} {DONE_TEXT[state.done[uid]]}"
    unit_cell, _, t = state.units[p][uid]
    return _UnitCommand(uid, cell, PLAYER_NAMES[p], f"({cell_text(cell)})", unit_cell, state.templates[p][t])


def _of_unit(check: Callable[[InfinitronPosition, _UnitCommand, int], str | None]) -> Check:
    """A unit command's check, first asking whether its unit can be commanded at all."""

    def checked(state: InfinitronPosition, a: Action, p: int) -> str | None:
        command = _unit_command(state, a, p)
        return command if isinstance(command, str) else check(state, command, p)

    return checked


def check_move(state: InfinitronPosition, command: _UnitCommand, p: int) -> str | None:
    uid, cell, me, where, ucell, tm = command
    if DISTANCE[ucell * CELL_COUNT + cell] != 1:
        return (
            f"a MOVE is one step to an adjacent cell; {where} is not adjacent to {me} unit {uid} "
            f"on ({cell_text(ucell)})"
        )
    occupant = state.occ[cell]
    if occupant >= 0:
        return _occupied(occupant, where)
    g = state.ground[cell]
    if IMPASSABLE[g]:
        return f"cell {where} is {_ground_name(g)} (impassable)"
    points = state.active_points if uid == state.active else tm.budget
    if points < 1 and not (tm.swift and g == LABEL):
        swift = " (a SWIFT unit steps onto LABEL for free)" if tm.swift else ""
        return f"{me} unit {uid} has no movement points left this turn (Move {tm.move}){swift}"
    return None


def check_attack(state: InfinitronPosition, command: _UnitCommand, p: int) -> str | None:
    uid, cell, me, where, ucell, tm = command
    if not tm.damage:
        return f"{me} unit {uid}'s template has no attack (dmg 0)"
    occupant = state.occ[cell]
    if occupant < 0:
        return f"no unit on {where} to attack"
    if occupant & 1 == p:
        return f"cell {where} holds {me}'s own unit {occupant >> 1}"
    distance = DISTANCE[ucell * CELL_COUNT + cell]
    if not tm.min_range <= distance <= tm.max_range:
        reach = f"<= {tm.max_range}" if tm.min_range == 1 else f"{tm.min_range} or {tm.max_range}"
        return (
            f"the target is at distance {distance}; {me} unit {uid}'s {RANGE_NAMES[tm.range]} attack "
            f"reaches distance {reach}"
        )
    if distance >= 2:
        for b in BLOCKERS[ucell * CELL_COUNT + cell]:
            o = state.occ[b]
            if o >= 0:
                return (
                    f"the line from ({cell_text(ucell)}) to {where} is blocked by "
                    f"{PLAYER_NAMES[o & 1]} unit {o >> 1} on ({cell_text(b)})"
                )
    return None


def check_ability(state: InfinitronPosition, command: _UnitCommand, p: int) -> str | None:
    uid, cell, me, where, ucell, tm = command
    ab = tm.ability
    if ab == NONE:
        return f"{me} unit {uid}'s template has no ability"
    if ab == SWIFT:
        return "SWIFT is passive: it is never used with ABILITY"
    distance = DISTANCE[ucell * CELL_COUNT + cell]
    if ab <= HEAL2:
        if distance > HEAL_REACH:
            return f"{ABILITY_NAMES[ab]} reaches distance <= {HEAL_REACH}; {where} is at distance {distance}"
        occupant = state.occ[cell]
        if occupant < 0 or occupant & 1 != p:
            return f"no {me} unit on {where} to heal"
    elif distance > BLAST_REACH:
        return f"{ABILITY_NAMES[ab]} targets a cell at distance <= {BLAST_REACH}; {where} is at distance {distance}"
    price, rp = ABILITY_PRICES[ab], state.rp[p]
    if rp < price:
        return f"{ABILITY_NAMES[ab]} costs {price} RP and {me} has {rp}"
    return None


def check_no_event(state: InfinitronPosition, a: Action, p: int) -> str | None:
    return None


def check_asteroid(state: InfinitronPosition, a: Action, p: int) -> str | None:
    if a[1] not in state.setup.asteroid_cells:
        return f"an asteroid falls at distance >= 3 from both capitals; ({cell_text(a[1])}) is not"
    return None


def check_fish_market(state: InfinitronPosition, a: Action, p: int) -> str | None:
    free = state._fish_cells()
    wanted = min(FISH_TOKENS, len(free))
    if len(a) - 1 != wanted:
        return f"FISH_MARKET puts {wanted} fish tokens (one per cell), not {len(a) - 1}"
    allowed = set(free)
    for c in a[1:]:
        if c not in allowed:
            return f"a fish token goes on an empty plain cell that is not a city; ({cell_text(c)}) is not one"
    return None


#: The check of each command kind but END_TURN (always legal when a player may act).
CHECKS: dict[int, Check] = {
    DEFINE: check_define,
    BUILD: check_build,
    MOVE: _of_unit(check_move),
    ATTACK: _of_unit(check_attack),
    ABILITY: _of_unit(check_ability),
    TERRAIN: check_terrain,
    CLAIM: check_claim,
    NO_EVENT: check_no_event,
    ASTEROID: check_asteroid,
    FISH_MARKET: check_fish_market,
}
