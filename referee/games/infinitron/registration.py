"""Infinitron's registration: its rules, its command objects, ``--chaos``, ``--armour``, its replay frames.

Its page in the browser is played by typed commands (several a turn), which it explains.

The play command's ``--seed`` also places the neutral cities: that is the
game's ``seeded_options``, which the play command applies as a tournament does.
"""
from __future__ import annotations

from ..registration import GameOption, Registration, WebPlay

REGISTRATION = Registration(
    name="infinitron",
    game="referee.games.infinitron.engine:Infinitron",
    agent_types="referee.infinitron",
    options=(
        GameOption("chaos", ("--chaos",), "Infinitron: chaos events before Red's turns", type=bool),
        GameOption("armour", ("--armour",), "Infinitron: templates may carry an armour layout", type=bool),
    ),
    frames="referee.games.infinitron.frames:infinitron_frames",
    agent_surfaces=("referee.infinitron",),
    web=WebPlay(
        how="Type a command in the game's text (case and commas are free: define 3 2 1 melee none, build 0 3 -2), "
        "or pick one from the list; your turn lasts until END_TURN.",
    ),
    heuristics="agents.common.heuristics.infinitron:InfinitronHeuristics",
)
