"""The shared conformance suite's random games on the smallest and largest boards.

``tests/games/test_conformance.py`` runs Cachex on n = 4, 5, 7, 11; its
illegal-action test plays six random actions first, which can end a game on
the 3x3 board (Red can win with the fifth action), so the extreme sizes run
only the random-games part here.
"""
from __future__ import annotations

import pytest

from tests.games.interface import random_games_conform


@pytest.mark.parametrize("n", [3, 15])
def test_random_games_conform_on_extreme_sizes(n):
    random_games_conform("cachex", {"n": n}, 343)
