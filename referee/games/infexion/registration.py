"""Infexion's registration: its rules, the course's agent types (``referee.game``) and its replay frames."""
from __future__ import annotations

from ..registration import Registration

REGISTRATION = Registration(
    name="infexion",
    game="referee.games.infexion.engine:Infexion",
    agent_types="referee.game.actions",
    frames="referee.games.infexion.frames:infexion_frames",
    heuristics="agents.common.heuristics.infexion:InfexionHeuristics",
)
