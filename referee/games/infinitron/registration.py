"""Infinitron's registration: its rules, its command objects, ``--chaos``, ``--armour``, its replay frames.

Its page in the browser is played by clicks (``clicks.py``: several commands a turn) and typed DEFINEs.

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
        GameOption(
            "rules", ("--rules",), "Infinitron: the rules version, 1.2 (the default: Blue's first two turns "
            "bring 2 RP more) or 1.1", type=str, metavar="VERSION", choices=("1.1", "1.2"),
        ),
    ),
    frames="referee.games.infinitron.frames:infinitron_frames",
    agent_surfaces=("referee.infinitron",),
    web=WebPlay(
        clicks="referee.games.infinitron.clicks:clicks",
        how="Click a highlighted cell to BUILD, put TERRAIN or CLAIM it; click one of your units, then a highlighted "
        "cell, to MOVE a step, ATTACK or use its ABILITY (its own cell twice: on itself). Where several commands "
        "fit, pick one from the buttons. Type a DEFINE (define 3 2 1 melee none) or any command in the box; "
        "your turn lasts until END_TURN (a button).",
    ),
    heuristics="agents.common.heuristics.infinitron:InfinitronHeuristics",
)
