"""Checks written against the generic game interface only (referee.games.base), for any game's tests.

- :func:`random_games_conform`: seeded random games to the end, every action checked on the way
  (tests/games/test_conformance.py runs it on every game; other files on more boards).
- :func:`perft`: the leaves of the game tree ``depth`` actions deep (the perft tables' numbers).
"""
from __future__ import annotations

import random
from typing import Any

import pytest

from referee.games import load_game
from referee.games.base import BLUE, CHANCE, RED, IllegalActionError

#: Random games a game's configuration plays, unless a test asks for fewer.
GAMES_PER_CONFIG = 12


def random_games_conform(name: str, options: dict[str, Any], max_actions: int, games: int = GAMES_PER_CONFIG) -> None:
    """Play ``games`` seeded random games of ``name`` to the end, failing at the first action or ending that breaks
    the interface's contract (or a game longer than ``max_actions``)."""
    game = load_game(name, **options)
    allowed_reasons = set(game.reasons)
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_state()
        actions_played = 0
        while not state.is_over:
            before_player = state.current_player
            assert before_player in (RED, BLUE, CHANCE)
            if before_player == CHANCE:
                # Chance acts (e.g. a chaos event): drawn from a seeded RNG, legal, with a canonical text.
                action = state.sample_chance(rng)
                assert state.is_legal(action), f"chance drew {state.action_to_str(action)}, which is not legal"
                text = state.action_to_str(action)
                assert state.parse_action(text) == action, f"{text} must parse back"
                assert state.action_kind(action) == text.split("(")[0], f"{text}'s kind"
            else:
                legal = state.legal_actions()
                assert legal, "a game that is not over has a legal action"
                assert len(set(legal)) == len(legal), "no action listed twice"
                for candidate in legal:
                    text = state.action_to_str(candidate)
                    assert state.parse_action(text) == candidate, f"{text} must parse back"
                    assert state.is_legal(candidate)
                    assert state.action_kind(candidate) == text.split("(")[0], f"{text}'s kind"
                action = rng.choice(legal)
            before_key = state.key()
            before_count = state.move_count
            snapshot = state.copy()
            assert snapshot == state and snapshot.key() == state.key()

            state.apply(action)
            assert state.move_count == before_count + 1
            assert snapshot.key() == before_key, "a copy is independent of the original"
            state.undo()
            assert state == snapshot and state.key() == before_key
            assert state.current_player == before_player
            state.apply_checked(action)
            actions_played += 1
            assert actions_played <= max_actions

        outcome = state.outcome
        assert outcome is not None and outcome.reason in allowed_reasons
        assert outcome.winner in (0, 1, None)
        assert state.legal_actions() == []
        with pytest.raises(IllegalActionError):
            state.apply_checked(action)


def perft(state: Any, depth: int) -> int:
    """The positions ``depth`` actions after ``state`` (which is left as it was)."""
    if depth == 0:
        return 1
    if depth == 1:
        return len(state.legal_actions())
    total = 0
    for action in state.legal_actions():
        state.apply(action)
        total += perft(state, depth - 1)
        state.undo()
    return total
