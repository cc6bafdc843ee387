"""The Cachex game: its one option, the board size ``n``."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import (
    Game,
    check_options,
)
from .state import CachexState
from .tables import DEFAULT_N, REASONS, check_size


class Cachex(Game[int]):
    """The Cachex game (COMP30024, 2022) on an ``n x n`` board, ``n`` from 3 to 15."""

    name = "cachex"
    reasons = REASONS

    def __init__(self, n: int = DEFAULT_N, **options: Any):
        check_options(self.name, options, ())
        super().__init__(n=check_size(n))
        self.n: int = n

    def new_state(self) -> CachexState:
        return CachexState(self.n)

    @property
    def agent_kwargs(self) -> Mapping[str, Any]:
        return {"n": self.n}
