"""Infinitron's registration: its rules, its command objects, ``--chaos``, ``--armour`` and its replay frames.

The play command's ``--seed`` also places the neutral cities: that is the
game's ``seeded_options``, which the play command applies as a tournament does.
"""
from __future__ import annotations

from ..registration import GameOption, Registration

REGISTRATION = Registration(
    name="infinitron",
    game="referee.games.infinitron.engine:Infinitron",
    agent_types="referee.infinitron",
    options=(
        GameOption("chaos", ("--chaos",), "Infinitron: chaos events before Red's turns", type=bool),
        GameOption("armour", ("--armour",), "Infinitron: templates may carry an armour layout", type=bool),
    ),
    frames="referee.games.infinitron.frames:infinitron_frames",
    heuristics="agents.common.heuristics.infinitron:InfinitronHeuristics",
)
