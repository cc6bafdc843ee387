"""Cachex for agents: colours, action objects and their conversions.

Agents written for this framework import their types from here::

    from referee.cachex import PlayerColor, PlaceAction, StealAction

and receive the board size as ``n`` in the referee's keyword arguments.
:class:`referee.agentkit.GameView` keeps an engine position up to date with
``{"game": "cachex", "game_options": {"n": n}}``.  The conversions for the
course's 2022 tuple protocol live in :mod:`referee.cachex.legacy`.
"""
from ..game.player import PlayerColor
from .actions import Action, PlaceAction, StealAction, from_engine_action, to_engine_action
from .legacy import LEGACY_PLAYER_NAMES, describe_legacy, from_legacy, to_legacy

__all__ = [
    "Action",
    "LEGACY_PLAYER_NAMES",
    "PlaceAction",
    "PlayerColor",
    "StealAction",
    "describe_legacy",
    "from_engine_action",
    "from_legacy",
    "to_engine_action",
    "to_legacy",
]
