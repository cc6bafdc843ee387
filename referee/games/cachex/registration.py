"""Cachex's registration: its rules, the course's agent types, 2022 protocol and board, ``-n``, frames and clicks."""
from __future__ import annotations

import re
from typing import Any

from ..registration import GameOption, Registration, WebPlay
from . import DEFAULT_N, MAX_N, MIN_N


def clicks(state: Any, text: str) -> list[int]:
    """The cell a person clicks to play ``text``: ``PLACE(r, q)`` that cell; STEAL is a button (no cell)."""
    numbers = [int(n) for n in re.findall(r"-?\d+", text)]
    return [numbers[0] * state.n + numbers[1]] if len(numbers) == 2 else []


REGISTRATION = Registration(
    name="cachex",
    game="referee.games.cachex.engine:Cachex",
    agent_types="referee.cachex",
    options=(
        GameOption("n", ("-n", "--size"), f"Cachex board size, {MIN_N} to {MAX_N} (default {DEFAULT_N})", metavar="N"),
    ),
    legacy="referee.cachex.legacy:ADAPTER",
    frames="referee.games.cachex.frames:cachex_frames",
    agent_surfaces=("referee.cachex", "referee.board"),
    web=WebPlay(
        clicks="referee.games.cachex.registration:clicks",
        cell_action="PLACE({r}, {q})",
        how="Click an empty cell to PLACE a stone; STEAL (a button) takes the opponent's first stone on your "
        "first move.",
        power=False,
    ),
    heuristics="agents.common.heuristics.cachex:CachexHeuristics",
)
