"""A recorded game as frames for the replay viewers: board layout + every step.

The record's actions are replayed with the game's own engine (so the viewer
needs no rules of its own) by the frames function its registration names
(``referee/games/<game>/frames.py``; what they share is
:mod:`referee.games.frames`).  This module checks the replay against the
record's result.
"""
from __future__ import annotations

from ..games import GAMES, recorded_game, registration
from ..games.base import GameRuleError, GameState, Outcome
from ..games.frames import Frames, ReplayError, cell_char
from ..core import ending_message
from ..records import GameRecord

__all__ = ["Frames", "ReplayError", "build_frames", "cell_char", "has_viewer", "record_mismatch"]


def record_mismatch(record: GameRecord, final: GameState) -> str | None:
    """Why ``record``'s actions, replayed to ``final``, do not lead to its result; None if they do.

    A game the rules ended must end, after exactly the recorded actions, in
    the recorded winner and reason; a game an agent's failure ended (a
    forfeit, or a game a person quit) must not be over by the rules.  Either way the record must hold
    as many actions as it says were played.  A record cut short (or edited)
    otherwise replays as if complete.
    """
    held = len(record.actions)
    problems = []
    if record.turns != held:
        problems.append(f"it says {record.turns} actions were played but holds {held}")
    outcome: Outcome | None = final.outcome
    if record.cut_short:
        if outcome is not None:
            ended = ending_message(outcome.winner_name, outcome.reason)
            problems.append(f"its actions end the game by the rules, in {ended}")
    elif outcome is None:
        problems.append(f"after its {held} actions the game is not over")
    elif (outcome.winner_name, outcome.reason) != (record.winner, record.reason):
        problems.append(f"its actions end the game in {ending_message(outcome.winner_name, outcome.reason)}")
    if not problems:
        return None
    return (
        f"this record's actions do not lead to its result, {ending_message(record.winner, record.reason)}: "
        + "; ".join(problems)
        + ". It may have been cut short or edited."
    )


def has_viewer(game: str) -> bool:
    """Whether records of ``game`` can be replayed as HTML (its registration names frames)."""
    try:
        return registration(game).frames is not None
    except GameRuleError:
        return False


def build_frames(record: GameRecord) -> Frames:
    """Replay ``record`` with its game's engine into :class:`Frames`."""
    if not has_viewer(record.game):
        viewers = ", ".join(name for name in GAMES if has_viewer(name))
        raise ReplayError(f"no replay viewer for the game {record.game!r} (viewers exist for {viewers})")
    builder = registration(record.game).frames_builder()
    assert builder is not None
    try:
        state = recorded_game(record.game, record.game_options).new_state()
    except GameRuleError as exc:
        raise ReplayError(f"the record's game cannot be set up: {exc}") from None
    frames = builder(record.actions, state)  # replays every action into ``state``
    frames.warning = record_mismatch(record, state)
    return frames
