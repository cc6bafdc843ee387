"""Cachex's registration: its rules, the course's agent types and 2022 protocol, ``-n``, its replay frames."""
from __future__ import annotations

from ..registration import GameOption, Registration
from . import DEFAULT_N, MAX_N, MIN_N

REGISTRATION = Registration(
    name="cachex",
    game="referee.games.cachex.engine:Cachex",
    agent_types="referee.cachex",
    options=(
        GameOption("n", ("-n", "--size"), f"Cachex board size, {MIN_N} to {MAX_N} (default {DEFAULT_N})", metavar="N"),
    ),
    legacy="referee.cachex.legacy:ADAPTER",
    frames="referee.games.cachex.frames:cachex_frames",
    heuristics="agents.common.heuristics.cachex:CachexHeuristics",
)
