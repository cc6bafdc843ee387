"""Infinitron's replay frames: the cells that are not plain ground, and what each command touched."""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..base import CHANCE
from ..frames import Frames, apply_recorded, xy
from .engine import BLOCK, DESTROYED, FISH, LABEL, LAVA, REPAIR
from .geometry import CELLS, INDEX


_TARGET = re.compile(r"(-?\d+),\s*(-?\d+)\)$")
_UNIT_COMMAND = re.compile(r"^(MOVE|ATTACK|ABILITY)\((\d+),")


def infinitron_frames(actions: Sequence[str], state: Any) -> Frames:
    """Frames listing only the cells that are not plain ground.

    Each entry is ``[cell, kinds, owner, text]``: kinds are CSS words
    (``block lava repair label fish city capital destroyed unit``), owner
    ``red``/``blue``/``""`` (the unit's, else the city's), text the unit's
    number and HP (``3:60``).
    """
    ground_kind = {BLOCK: "block", LAVA: "lava", REPAIR: "repair", LABEL: "label", FISH: "fish"}
    cells = []
    for r, q in CELLS:
        x, y = xy(r, q)
        cells.append({"r": r, "q": q, "x": x, "y": y})
    frames = Frames("infinitron", cells)
    setup = state.setup
    owners = ("red", "blue")

    def units() -> dict[int, tuple[int, int, int]]:
        """cell -> (player, uid, hp)"""
        return {pos: (p, uid, hp) for p in (0, 1) for uid, (pos, hp, _) in state.units[p].items()}

    def board() -> list[list[Any]]:
        entries = []
        on = units()
        for i in range(len(CELLS)):
            kinds, owner, text = [], "", ""
            g = state.ground[i]
            if g in ground_kind:
                kinds.append(ground_kind[g])
            city = setup.city_at[i]
            if city >= 0:
                kinds.append("city")
                if city < 2:
                    kinds.append("capital")
                if state.city_flags[city] & DESTROYED:
                    kinds.append("destroyed")
                elif state.city_owner[city] >= 0:
                    owner = owners[state.city_owner[city]]
            if i in on:
                p, uid, hp = on[i]
                kinds.append("unit")
                owner, text = owners[p], f"{uid}:{hp}"
            if kinds:
                entries.append([i, " ".join(kinds), owner, text])
        return entries

    frames.boards.append(board())
    for i, text in enumerate(actions):
        mover = state.current_player
        before = units()
        source = None
        m = _UNIT_COMMAND.match(text)
        if m and mover != CHANCE:
            found = state.unit(mover, int(m.group(2)))
            source = INDEX[found[0]] if found else None
        apply_recorded(state, text, i)
        target = _TARGET.search(text)
        aimed = target is not None and "(" in text and not text.startswith("FISH")
        path = [INDEX[(int(target.group(1)), int(target.group(2)))]] if target and aimed else []
        after = units()
        gone = [c for c, (p, uid, _) in before.items() if not any(u[:2] == (p, uid) for u in after.values())]
        frames.steps.append(
            {
                "player": "CHANCE" if mover == CHANCE else ("RED" if mover == 0 else "BLUE"),
                "action": text,
                "source": source,
                "path": path,
                "captured": gone,
                "removed": [],
            }
        )
        frames.boards.append(board())
    return frames
