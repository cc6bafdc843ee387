"""The turning point of a lost game, in its feedback: where the game was lost, judged by a bundled engine.

For each opponent, the first ``turning_points.games`` games the submission lost by the rules (not by a fault of
its own: those are told first, and their cause is already plain) among those its feedback tells are analysed by
:func:`referee.analysis.analyse` at the scheme's modest effort, all of them within one wall-clock budget.  The
analysis reads only the record (a value), in the grader's own process, after every game is over: no agent runs.

An analysis never makes the marking fail: one that fails or runs out of the budget leaves that game's feedback
without the sentence, and the results' ``extra_data`` says why, for staff.
"""
from __future__ import annotations

import time
from typing import Any

from ...analysis import AnalysisError, EngineSettings, analyse
from ...analysis.text import label, turning_sentence
from ..feedback import code_span, plain
from .games import Game
from .marks import SHOWN_GAMES, not_won
from .scheme import Scheme


class _OutOfTime(Exception):
    """The budget of the analyses is spent: this one stops at its next position."""


def lost_by_the_rules(game: Game) -> bool:
    """The opponent won and the submission did not fail (no crash, illegal action, time or memory)."""
    record = game.record
    return record is not None and record.winner not in (None, game.color) and not record.error.get(game.color)


def chosen(scheme: Scheme, games: list[Game]) -> list[Game]:
    """The games to analyse: each opponent's first few lost by the rules among those its test tells."""
    wanted = scheme.turning_points.games
    picked: list[Game] = []
    for opponent in scheme.opponents:
        told = not_won(games, opponent)[:SHOWN_GAMES]
        picked += [game for game in told if lost_by_the_rules(game)][:wanted]
    return sorted(picked, key=lambda game: game.index)


def paragraph(sentence: str, settings: EngineSettings) -> str:
    """The feedback's paragraph: the sentence, the engine that said it, and how to see the whole analysis."""
    return (
        f"**Turning point** (judged by the referee's MCTS at {settings.iterations} simulations a position): "
        f"{plain(sentence)} "
        f"For the whole game analysed, add {code_span('--record game.json')} to the command below and run "
        f"{code_span('python -I -m referee analyse game.json')}."
    )


def turning_points(scheme: Scheme, games: list[Game], workers: int = 1) -> tuple[dict[int, str], dict[str, Any]]:
    """The paragraph on each analysed game's turning point, by game index, and what was done (for ``extra_data``:
    the settings, the seconds spent, and for each game chosen its turning point's action or why there is none)."""
    settings = EngineSettings(iterations=scheme.turning_points.iterations)
    start = time.monotonic()
    deadline = start + scheme.turning_points.seconds
    paragraphs: dict[int, str] = {}
    said: dict[str, str] = {}

    def in_time(done: int, total: int) -> None:
        if time.monotonic() > deadline:
            raise _OutOfTime

    for game in chosen(scheme, games):
        assert game.record is not None
        if time.monotonic() > deadline:
            said[str(game.index)] = "not analysed: out of time"
            continue
        try:
            analysis = analyse(game.record, settings, workers=workers, progress=in_time)
        except _OutOfTime:
            said[str(game.index)] = "not analysed: out of time"
            continue
        except AnalysisError as exc:
            said[str(game.index)] = f"not analysed: {exc}"
            continue
        except Exception as exc:  # noqa: BLE001  an analysis's bug costs its sentence, never the student's marks
            said[str(game.index)] = f"not analysed: the analysis failed ({type(exc).__name__}: {exc})"
            continue
        turning = analysis.turning
        if turning is None:
            said[str(game.index)] = "no turning point: the agent's decisions cost it nothing the engine saw"
            continue
        paragraphs[game.index] = paragraph(turning_sentence(analysis, turning, you=game.color), settings)
        said[str(game.index)] = f"turning point: {label(analysis, turning)}, {turning.played}"
    note = {"settings": settings.describe(), "seconds": round(time.monotonic() - start, 1), "games": said}
    return paragraphs, note
