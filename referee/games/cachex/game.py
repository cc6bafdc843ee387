"""The Cachex game: its one option, the board size ``n``."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import (
    Game,
    check_options,
)
from .state import CachexState
from .tables import DEFAULT_N, MAX_N, MIN_N, REASONS, check_size


class Cachex(Game):
    """The Cachex game (COMP30024, 2022) on an ``n x n`` board, ``n`` from 3 to 15."""

    name = "cachex"
    reasons = REASONS
    agent_types_module = "referee.cachex"

    def __init__(self, n: int = DEFAULT_N, **options: Any):
        check_options(self.name, options, ())
        super().__init__(n=check_size(n))
        self.n: int = n

    def new_state(self) -> CachexState:
        return CachexState(self.n)

    @property
    def agent_kwargs(self) -> Mapping[str, Any]:
        return {"n": self.n}

    @classmethod
    def add_arguments(cls, parser: Any) -> None:
        parser.add_argument(
            "-n", "--size", dest="n", type=int, default=None, metavar="N",
            help=f"Cachex board size, {MIN_N} to {MAX_N} (default {DEFAULT_N})",
        )

    @classmethod
    def options_from_args(cls, args: Any) -> dict[str, Any]:
        n = getattr(args, "n", None)
        return {} if n is None else {"n": n}
