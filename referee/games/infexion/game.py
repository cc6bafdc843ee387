"""The Infexion game: it takes no options and starts from the empty board."""
from __future__ import annotations

from ..base import (
    Game,
    check_options,
)
from .state import InfexionState


class Infexion(Game[int]):
    """The Infexion game (COMP30024, 2023). It takes no options."""

    name = "infexion"
    reasons = ("elimination", "turn_limit", "no_tokens")

    def __init__(self, **options: object):
        check_options(self.name, options, ())
        super().__init__(**options)

    def new_state(self) -> InfexionState:
        return InfexionState()
