"""Infexion's registration: its rules, the course's agent types (``referee.game``), its replay frames and its clicks."""
from __future__ import annotations

import re
from typing import Any

from ..registration import Registration, WebPlay

#: The side of Infexion's board (its replay frames list the cells row ``r`` by row).
SIDE = 7


def clicks(state: Any, text: str) -> list[int]:
    """The cells a person clicks to play ``text``: ``SPAWN(r, q)`` that cell; ``SPREAD(r, q, dr, dq)``
    the cell, then its neighbour in that direction, across the board's wrapped edges."""
    numbers = [int(n) for n in re.findall(r"-?\d+", text)]
    if len(numbers) < 2:
        return []
    r, q = numbers[0], numbers[1]
    cells = [r * SIDE + q]
    if len(numbers) == 4:
        cells.append(((r + numbers[2]) % SIDE) * SIDE + (q + numbers[3]) % SIDE)
    return cells


REGISTRATION = Registration(
    name="infexion",
    game="referee.games.infexion.engine:Infexion",
    agent_types="referee.game.actions",
    frames="referee.games.infexion.frames:infexion_frames",
    agent_surfaces=("referee.game",),
    web=WebPlay(
        clicks="referee.games.infexion.registration:clicks",
        cell_action="SPAWN({r}, {q})",
        how="Click an empty cell to SPAWN; click one of your stacks, then one of the highlighted neighbours, "
        "to SPREAD that way (the board wraps around its edges).",
    ),
    heuristics="agents.common.heuristics.infexion:InfexionHeuristics",
)
