"""Infinitron's replay frames: the cells that are not plain ground, what each command touched, and the figures.

Besides the board, every frame carries what the page shows beside it: the
turn, each side's RP, income and score (the frames' scores), each side's
templates and the cities' territories.  They are read through the state's
queries (``rp``, ``income``, ``score``, ``templates``, ``units``,
``territory``, ...) so that the rules can change how they are worked out
without the viewer knowing.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..base import CHANCE
from ..frames import Frames, Interned, apply_recorded, xy
from .engine import ABILITY_NAMES, DESTROYED, RANGE_NAMES
from .geometry import CELLS, INDEX


_TARGET = re.compile(r"(-?\d+),\s*(-?\d+)\)$")
_UNIT_COMMAND = re.compile(r"^(MOVE|ATTACK|ABILITY)\((\d+),")
_OWNERS = ("red", "blue")
_PLAYERS = ("RED", "BLUE")

#: What the step highlights mean in Infinitron (a destroyed unit may be either side's).
LEGEND = [
    ("source", "the commanded unit (where it stood)"),
    ("touched", "the command's target cell"),
    ("captured", "a city captured this step"),
    ("killed", "a unit destroyed this step (either side's)"),
]

#: The board key: ``(kinds, owner, territory, text)``.  RUBBLE is keyed
#: ahead of the rules that bring it: a frame shows it as soon as the state's
#: ``terrain_at`` names it.
BOARD_KEY = [
    ("block", "", "", "BLOCK"),
    ("lava", "", "", "LAVA"),
    ("repair", "", "", "REPAIR"),
    ("label", "", "", "LABEL"),
    ("fish", "", "", "fish token"),
    ("rubble", "", "", "RUBBLE"),
    ("city", "", "", "neutral city"),
    ("city", "red", "", "city held by RED (BLUE's in blue)"),
    ("city capital", "red", "", "capital"),
    ("city destroyed", "", "", "destroyed city"),
    ("unit", "red", "", "RED unit, number:HP"),
    ("unit", "blue", "", "BLUE unit, number:HP"),
    ("", "", "red", "RED's territory"),
    ("", "", "blue", "BLUE's territory"),
    ("", "", "neutral", "a neutral city's territory"),
    ("", "", "blue red", "both sides' territory"),
]


def template_row(template: Any) -> list[Any]:
    """What the page shows of a template: [HP, Move, damage, range, min range, max range, ability, cost]."""
    return [
        template.max_hp,
        template.move,
        template.damage,
        RANGE_NAMES[template.range],
        template.min_range,
        template.max_range,
        ABILITY_NAMES[template.ability],
        template.cost,
    ]


def infinitron_frames(actions: Sequence[str], state: Any) -> Frames:
    """Frames listing only the cells that are not plain ground, with each board's figures.

    Each board entry is ``[cell, kinds, owner, text, template]``: kinds are
    CSS words (the ground's name in lower case, ``city capital destroyed
    unit``), owner ``red``/``blue``/``""`` (the unit's, else the city's),
    text the unit's number and HP (``3:60``) and template its template's
    number (units only).
    """
    cells = []
    for r, q in CELLS:
        x, y = xy(r, q)
        cells.append({"r": r, "q": q, "x": x, "y": y})
    frames = Frames("infinitron", cells, legend=LEGEND, board_key=BOARD_KEY, score_names=["RP", "income", "score"])
    setup = state.setup
    city_at = {c: i for i, c in enumerate(setup.cities)}  # cell -> city number
    templates, territories = Interned(), Interned()

    def units() -> dict[int, tuple[int, int, int, int]]:
        """cell -> (player, uid, hp, template)"""
        return {pos: (p, uid, hp, t) for p in (0, 1) for uid, (pos, hp, t) in state.units[p].items()}

    def destroyed(city: int) -> bool:
        return bool(state.city_flags[city] & DESTROYED)

    def board() -> list[list[Any]]:
        entries = []
        on = units()
        for i, (r, q) in enumerate(CELLS):
            kinds, owner, text, template = [], "", "", -1
            ground = state.terrain_at(r, q)
            if ground != "PLAIN":
                kinds.append(ground.lower())
            city = city_at.get(i, -1)
            if city >= 0:
                kinds.append("city")
                if city < 2:
                    kinds.append("capital")
                if destroyed(city):
                    kinds.append("destroyed")
                elif state.city_owner[city] >= 0:
                    owner = _OWNERS[state.city_owner[city]]
            if i in on:
                p, uid, hp, template = on[i]
                kinds.append("unit")
                owner, text = _OWNERS[p], f"{uid}:{hp}"
            if kinds:
                entry: list[Any] = [i, " ".join(kinds), owner, text]
                if template >= 0:
                    entry.append(template)
                entries.append(entry)
        return entries

    def status() -> dict[str, Any]:
        """The figures shown beside the board."""
        outcome = state.outcome
        if outcome is not None:
            to_act = "game over"
        elif state.current_player == CHANCE:
            to_act = "a chaos roll is due before RED's turn"
        else:
            to_act = f"{_PLAYERS[state.current_player]} to command"
        held = []
        for city in range(len(setup.cities)):
            if destroyed(city):
                continue  # a destroyed city has no territory that counts
            owner = state.city_owner[city]
            held.append([setup.cities[city], _OWNERS[owner] if owner >= 0 else "", sorted(state.territory(city))])
        return {
            # Turns are counted as the text view counts them: the one being played.
            "turn": min(state.turn + 1, setup.max_turns),
            "max_turns": setup.max_turns,
            "to_act": to_act,
            "templates": templates.index([[template_row(t) for t in state.templates[p]] for p in (0, 1)]),
            "territories": territories.index(held),
        }

    def scores() -> list[list[int]]:
        """Each side's RP, income and score (the page's figures table)."""
        return [[state.rp[p], state.income(p), state.score(p)] for p in (0, 1)]

    frames.boards.append(board())
    frames.scores.append(scores())
    frames.status.append(status())
    for i, text in enumerate(actions):
        mover = state.current_player
        before = units()
        owners_before = list(state.city_owner)
        source = None
        m = _UNIT_COMMAND.match(text)
        if m and mover != CHANCE:
            found = state.unit(mover, int(m.group(2)))
            source = INDEX[found[0]] if found else None
        apply_recorded(state, text, i)
        target = _TARGET.search(text)
        aimed = target is not None and "(" in text and not text.startswith("FISH")
        path = [INDEX[(int(target.group(1)), int(target.group(2)))]] if target and aimed else []
        after = {(p, uid) for p, uid, _, _ in units().values()}
        killed = [c for c, (p, uid, _, _) in before.items() if (p, uid) not in after]
        captured = [
            setup.cities[city]
            for city, owner in enumerate(state.city_owner)
            if owner >= 0 and owner != owners_before[city]
        ]
        frames.steps.append(
            {
                "player": "CHANCE" if mover == CHANCE else _PLAYERS[mover],
                "action": text,
                "source": source,
                "path": path,
                "captured": captured,
                "removed": [],
                "killed": killed,
            }
        )
        frames.boards.append(board())
        frames.scores.append(scores())
        frames.status.append(status())
    frames.shared = {"templates": templates.values, "territories": territories.values}
    return frames
