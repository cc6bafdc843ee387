"""The cells a person clicks on the play page to give an Infinitron command (``python -m referee play --web``).

Cells are numbered as the replay frames list them (``geometry.CELLS``), which
the page draws.  The mapping:

* ``BUILD(t, r, q)``, ``TERRAIN(kind, r, q)``, ``CLAIM(c, r, q)``: the cell
  ``(r, q)``.  A cell where several commands fit (a BUILD of each template, a
  TERRAIN of each kind, a claim for two cities) offers them as buttons to
  choose from.
* ``MOVE(u, r, q)``, ``ATTACK(u, r, q)``, ``ABILITY(u, r, q)``: the unit's
  cell, then the target cell (a step, an enemy in range, a cell to heal or
  blast; a HEAL on the unit itself: its cell twice).  A step and a BLAST on
  the same empty cell, or an ATTACK and a BLAST on the same enemy, are
  offered as buttons to choose from.
* ``END_TURN``: no cell, a button; ``DEFINE(...)``: no cell, typed (there are
  thousands), with the command box's suggestions.

Pure: it reads the state's units, and the rest from the command's text.
"""
from __future__ import annotations

import re

from .geometry import INDEX
from .position import InfinitronPosition

#: Commands given by clicking their target cell alone.
ON_A_CELL = ("BUILD", "TERRAIN", "CLAIM")
#: Commands of a unit: its cell, then the target's.
BY_A_UNIT = ("MOVE", "ATTACK", "ABILITY")
_NUMBER = re.compile(r"-?\d+")


def clicks(state: InfinitronPosition, text: str) -> list[int]:
    """The cells clicked, in order, to give the legal command ``text`` (canonical) of the player to move.

    No cells for a command given by a button or typed (``END_TURN``, ``DEFINE``, chance's).
    """
    word = text.split("(", 1)[0].strip()
    if word not in ON_A_CELL and word not in BY_A_UNIT:
        return []
    numbers = [int(n) for n in _NUMBER.findall(text)]
    if len(numbers) < 2:
        return []
    target = INDEX.get((numbers[-2], numbers[-1]))
    if target is None:
        return []
    if word in ON_A_CELL:
        return [target]
    unit = state.units[state.current_player].get(numbers[0])
    return [] if unit is None else [unit[0], target]
