"""The conformance suite every game runs: seeded random games to the end.

It uses only the generic game interface (referee.games.base), so a new game
joins by adding a line to ``GAME_CONFIGS``.
"""
from __future__ import annotations

import random

import pytest

from referee.games import load_game
from referee.games.base import CHANCE, IllegalActionError
from tests.games.interface import GAMES_PER_CONFIG, random_games_conform

#: (game name, options, maximum number of actions a game can last)
GAME_CONFIGS = [
    ("infexion", {}, 343),
    *(("cachex", {"n": n}, 343) for n in (4, 5, 7, 11)),
]

# Infinitron: whole 343-turn games with chaos off and on (the seed places the
# neutral cities; chance draws from the suite's seeded RNG).  A turn is many
# commands, ended by END_TURN (at most 65), plus a chaos roll before Red's turns.
GAME_CONFIGS += [
    ("infinitron", {}, 343 * 65),
    ("infinitron", {"chaos": True, "seed": 7}, 343 * 65 + 172),
]
#: Fewer whole games where a game is long: Infinitron 1.1's step moves and
#: claims make half as many commands again as 1.0's (the suite's time is capped).
GAMES_OF = {"infinitron": 8}


def _ids(config):
    name, options, _ = config
    return name + "".join(f"-{k}{v}" for k, v in options.items())


@pytest.fixture(params=GAME_CONFIGS, ids=_ids)
def config(request):
    return request.param


def test_random_games_conform(config):
    name, options, max_actions = config
    random_games_conform(name, options, max_actions, GAMES_OF.get(name, GAMES_PER_CONFIG))


def test_illegal_actions_are_rejected_with_the_action_named(config):
    name, options, _ = config
    game = load_game(name, **options)
    state = game.new_state()
    rng = random.Random(1)
    for _ in range(6):
        _random_step(state, rng)
    while state.current_player == CHANCE:
        _random_step(state, rng)
    legal = set(state.legal_actions())
    # Any action that was legal somewhere in a game but is not legal now.
    probe = game.new_state()
    seen = set()
    while not probe.is_over and len(seen) < 500:
        seen.update(probe.legal_actions())
        _random_step(probe, rng)
    illegal = [a for a in seen if a not in legal]
    assert illegal
    for action in illegal[:20]:
        assert not state.is_legal(action)
        with pytest.raises(IllegalActionError) as err:
            state.apply_checked(action)
        assert state.action_to_str(action) in str(err.value)
    for junk in (None, "x", -1, 10**9, 1.5):
        assert not state.is_legal(junk)


def _random_step(state, rng):
    """Apply chance's draw or a uniformly random legal action."""
    if state.current_player == CHANCE:
        state.apply(state.sample_chance(rng))
    else:
        state.apply(rng.choice(state.legal_actions()))
