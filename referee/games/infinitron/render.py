"""Text drawing of an Infinitron position (pure: returns a string).

The hexagon is drawn with one text row per ``r`` (r = 5 at the top, so
Red's capital is near the top and Blue's near the bottom, as on the drawn
board of the replays and the play page) and ``q`` increasing to the right;
neighbours in a row are one cell apart, and the rows below and above are
shifted by half a cell.  So +r is up-right and +q right: the drawn board
turned a twelfth of a turn, never its mirror image (docs/infinitron.md,
"Which way up").  Each cell shows its ground
and, when a unit stands on it, the owner's letter and the unit's number
(``r3``: Red's unit 3).  A plain cell in a city's territory shows the city's
number instead of a dot.  Below the map: cities with their territories, each
side's RP, templates and units with template and HP.
"""
from __future__ import annotations

from ..base import BLUE, PLAYER_NAMES, RED, count_of
from .geometry import CELLS, INDEX, RADIUS
from .position import InfinitronPosition
from .rules import (
    ABILITY_NAMES,
    BLOCK,
    DESTROYED,
    FISH,
    LABEL,
    LAVA,
    MAX_COMMANDS,
    PLAIN,
    RANGE_NAMES,
    REPAIR,
    RUBBLE,
    Template,
    armour_text,
)
from .notation import action_to_str


_RED = "\033[1;31m"
_BLUE = "\033[1;34m"
_DIM = "\033[2m"
_YELLOW = "\033[33m"
_RESET = "\033[0m"

_GROUND_ASCII = {PLAIN: ".", BLOCK: "#", LAVA: "~", REPAIR: "+", LABEL: "=", FISH: "$", RUBBLE: "%"}
_GROUND_UNICODE = {
    PLAIN: "\u00b7", BLOCK: "\u2588", LAVA: "\u2248", REPAIR: "\u271a", LABEL: "\u2261", FISH: "\u00a4",
    RUBBLE: "\u2592",
}
CELL_WIDTH = 6  # columns between neighbouring cells in a row


def template_text(tm: Template) -> str:
    """``DEFINE(...)`` plus what the template gives, e.g. ``60 HP, Move 2, 30 MEDIUM, HEAL1``."""
    spec = (1, tm.hp, tm.move, tm.dmg, tm.range, tm.ability)
    define = action_to_str(spec + (tm.armour,) if tm.armour else spec)
    attack = f"{tm.damage} {RANGE_NAMES[tm.range]}" if tm.damage else "no attack"
    armour = f", armour {armour_text(tm.armour)}" if tm.armour else ""
    return f"{define} cost {tm.cost}: {tm.max_hp} HP, Move {tm.move}, {attack}, {ABILITY_NAMES[tm.ability]}{armour}"


def render_state(state: InfinitronPosition, use_color: bool = False, use_unicode: bool = False) -> str:
    setup = state.setup
    glyphs = _GROUND_UNICODE if use_unicode else _GROUND_ASCII
    side_color = (_RED, _BLUE)

    def paint(text: str, code: str) -> str:
        return code + text + _RESET if use_color else text

    territory_of = [-1] * len(state.ground)
    for i in range(len(setup.cities)):
        for c in state.territory(i):
            territory_of[c] = i
    lines = []
    for r in range(RADIUS, -RADIUS - 1, -1):  # +r upwards, as the rules' directions and the drawn board
        q_lo, q_hi = max(-RADIUS, -RADIUS - r), min(RADIUS, RADIUS - r)
        indent = " " * (abs(r) * CELL_WIDTH // 2)
        cells = []
        for q in range(q_lo, q_hi + 1):
            cell = INDEX[(r, q)]
            city = setup.city_at[cell]
            if city >= 0:
                owner = state.city_owner[city]
                if state.city_flags[city] & DESTROYED:
                    ground = paint("X", _DIM)
                elif owner < 0:
                    ground = "@"
                else:
                    ground = paint("RB"[owner], side_color[owner])
            else:
                g = state.ground[cell]
                ground = glyphs[g]
                if g == PLAIN:
                    # A plain cell of a territory shows the city's number (cities 0..9 as digits).
                    i = territory_of[cell]
                    ground = paint(str(i % 10) if i >= 0 else ground, _DIM)
                elif g in (LAVA, FISH):
                    ground = paint(ground, _YELLOW)
            o = state.occ[cell]
            label = ""
            if o >= 0:
                label = "rb"[o & 1] + str(o >> 1)
                label = paint(label, side_color[o & 1]) + " " * (3 - len(label))
            else:
                label = "   "
            cells.append(ground + label)
        lines.append(f"r={r:>2} q={q_lo:>2}..{q_hi:>2}  " + indent + "  ".join(cells))

    lines.append("")
    city_parts = []
    for i, c in enumerate(setup.cities):
        where = "({}, {})".format(*CELLS[c])
        kind = f"{PLAYER_NAMES[i]} capital" if i < 2 else "city"
        owner = state.city_owner[i]
        status = (
            "destroyed"
            if state.city_flags[i] & DESTROYED
            else ("neutral" if owner < 0 else f"held by {PLAYER_NAMES[owner]}")
        )
        size = len(state.territory(i))
        city_parts.append(f"{i} {kind} {where} {status}, territory {size} {'cell' if size == 1 else 'cells'}")
    lines.append("cities: " + "; ".join(city_parts))
    if state.rubble:
        clears = min(state.rubble.values())
        lines.append(f"rubble: {count_of(len(state.rubble), 'cell')}, the first clearing at turn {clears + 1}")
    for p in (RED, BLUE):
        name = paint(PLAYER_NAMES[p], side_color[p])
        points = [
            f"{pts} at ({CELLS[setup.cities[i]][0]}, {CELLS[setup.cities[i]][1]})"
            for i, pts in enumerate(state.terrain_points)
            if pts and state.player == p
        ]
        terrain = f", terrain points {' + '.join(points)}" if points else ""
        lines.append(f"{name}: RP {state.rp[p]}, income {state.income(p)}, score {state.score(p)}{terrain}")
        for t, tm in enumerate(state.templates[p]):
            lines.append(f"  t{t} {template_text(tm)}")
        for uid, (cell, hp, t) in state.units[p].items():
            max_hp = state.templates[p][t].max_hp
            status = ""
            if state.player == p and not state.chance_pending:
                if uid in state.done:
                    status = " (done this turn)"
                elif uid == state.active:
                    status = f" (commanded, {state.active_points} movement points left)"
            label = paint(f"{'rb'[p]}{uid}", side_color[p])
            lines.append(f"  {label} t{t} {hp}/{max_hp} HP at ({CELLS[cell][0]}, {CELLS[cell][1]}){status}")
    key_text = "  ".join(
        f"{glyphs[g]} {name}"
        for g, name in (
            (PLAIN, "plain"), (BLOCK, "BLOCK"), (LAVA, "LAVA"), (REPAIR, "REPAIR"), (LABEL, "LABEL"), (FISH, "fish"),
            (RUBBLE, "RUBBLE"),
        )
    )
    lines.append(
        f"key: {key_text}  0-9 plain cell of that city's territory  @ neutral city  R/B city held by RED/BLUE  "
        "X destroyed city"
    )
    outcome = state.outcome
    if outcome is not None:
        who = "draw" if outcome.winner is None else f"{outcome.winner_name} wins"
        lines.append(f"game over after {state.turn} turns: {who} ({outcome.reason})")
    elif state.chance_pending:
        lines.append(f"turn {state.turn + 1} of {setup.max_turns}: a chaos roll is due before RED's turn")
    else:
        lines.append(
            f"turn {state.turn + 1} of {setup.max_turns}: {PLAYER_NAMES[state.player]} to command "
            f"({state.commands} of {MAX_COMMANDS} commands given)"
        )
    return "\n".join(lines)
