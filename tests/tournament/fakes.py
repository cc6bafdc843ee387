"""Synthetic records and stand-in play functions for tournament tests.

The play functions are module-level so that spawned worker processes can
import them; they stand in for ``play_match`` where a test is about the
tournament machinery rather than real games (real games are tested in
test_cli.py).
"""
from __future__ import annotations

import os
import time
from typing import Any

from referee.match import AgentEntry, MatchSettings
from referee.records import GameRecord


def make_record(
    red: str,
    blue: str,
    winner: str | None,
    reason: str = "elimination",
    *,
    cpu: tuple[float, float] = (0.5, 0.25),
    moves: tuple[int, int] = (10, 10),
    memory: tuple[float, float] = (1.0, 2.0),
    extra: dict[str, Any] | None = None,
    error_color: str | None = None,
) -> GameRecord:
    error: dict[str, Any] = {"RED": None, "BLUE": None}
    if error_color:
        error[error_color] = {"kind": reason, "message": "failed", "traceback": None}
    return GameRecord(
        game="infexion",
        red=f"pkg.{red}",
        blue=f"pkg.{blue}",
        red_name=red,
        blue_name=blue,
        winner=winner,
        reason=reason,
        turns=sum(moves),
        actions=[],
        moves={"RED": moves[0], "BLUE": moves[1]},
        time_used={"RED": cpu[0], "BLUE": cpu[1]},
        peak_memory_mb={"RED": memory[0], "BLUE": memory[1]},
        error=error,
        extra=dict(extra or {}),
    )


def _record_for(red: AgentEntry, blue: AgentEntry, settings: MatchSettings, winner: str | None) -> GameRecord:
    record = make_record(red.display_name, blue.display_name, winner, extra=dict(settings.extra))
    return GameRecord(**{**record.to_dict(), "red": red.spec, "blue": blue.spec, "seed": settings.seed})


def play_by_seed(red: AgentEntry, blue: AgentEntry, settings: MatchSettings) -> GameRecord:
    """A deterministic 'game': the seed decides Red win, draw or Blue win."""
    winner = ("RED", None, "BLUE")[settings.seed % 3]
    return _record_for(red, blue, settings, winner)


def play_strong_first(red: AgentEntry, blue: AgentEntry, settings: MatchSettings) -> GameRecord:
    """The agent named 'strong' always wins."""
    winner = "RED" if red.display_name == "strong" else "BLUE"
    return _record_for(red, blue, settings, winner)


def play_or_fail(red: AgentEntry, blue: AgentEntry, settings: MatchSettings) -> GameRecord:
    """Raises (a bug in the referee, say) for game index 1; otherwise like play_by_seed."""
    if settings.extra["game_index"] == 1:
        raise RuntimeError("referee bug in game 1")
    return play_by_seed(red, blue, settings)


def play_slowly(red: AgentEntry, blue: AgentEntry, settings: MatchSettings) -> GameRecord:
    """Like play_by_seed, after a pause given (in seconds) by the env var FAKE_GAME_SECONDS."""
    time.sleep(float(os.environ.get("FAKE_GAME_SECONDS", "0.2")))
    return play_by_seed(red, blue, settings)


def play_and_die(red: AgentEntry, blue: AgentEntry, settings: MatchSettings) -> GameRecord:
    """The worker process dies in every game (as if it could not work at all)."""
    os._exit(3)
