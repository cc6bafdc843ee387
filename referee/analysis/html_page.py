"""``analyse --html``: the game's HTML replay with its analysis, one self-contained page.

The page is the replay (:func:`referee.render.html_replay.replay_html`, every game's board as the replays draw it)
and an addition (``assets/``): the graph of Red's chance of winning (a point clicked: the board goes to that
position), the marked decisions and the turning point (one clicked: the board goes to the position it was made
from), and on that position the decision played and the engine's drawn over the board.  Which cells an action
touches comes from the game's own replay frames (its ``source`` and ``path``), so this module reads no game's
notation.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ..games import recorded_game, registration
from ..games.frames import ReplayError
from ..render.html_replay import PageAddition, replay_html, script_json
from .review import INACCURACY, Judged
from .runner import Analysis
from .text import label


@functools.cache
def _asset(name: str) -> str:
    """The text of ``assets/<name>`` beside this module (read once per process)."""
    return resources.files(__package__).joinpath(f"assets/{name}").read_text(encoding="utf-8")


def listed(analysis: Analysis) -> list[Judged]:
    """The decisions the page lists: the marked ones and the turning point (marked or not), in game order."""
    return [j for j in analysis.judged if j.severity is not None or j == analysis.turning]


def line_marks(analysis: Analysis, decisions: Sequence[Judged]) -> list[list[dict[str, Any]]]:
    """For each of ``decisions`` (in game order), the cells of the engine's decision as the replay marks an
    action's: per action that touches the board, its ``source`` cell (None: none) and ``path`` (the cells it
    reached or aimed at), as indexes of the replay's cells; empty where the engine's decision is the one played."""
    record = analysis.record
    builder = registration(record.game).frames_builder()
    if builder is None:
        raise ReplayError(f"no replay viewer for the game {record.game!r}")
    state = recorded_game(record.game, record.game_options).new_state()
    played = 0
    found: list[list[dict[str, Any]]] = []
    for judged in decisions:
        while played < judged.decision.start:
            state.apply(state.parse_action(record.actions[played]))
            played += 1
        if judged.better is None:
            found.append([])
            continue
        # The engine's line replayed by the game's frames from a copy of the position: the same cells a replay
        # marks for the same actions.
        steps = builder(judged.line, state.copy()).steps
        found.append([{"action": s["action"], "source": s["source"], "path": s["path"]}
                      for s in steps if s["source"] is not None or s["path"]])
    return found


def page_data(analysis: Analysis) -> dict[str, Any]:
    """What the page's script draws besides the replay: the graph's points and the listed decisions."""
    shown = listed(analysis)
    return {
        "settings": analysis.settings.describe(),
        "points": [[at, red] for at, red in analysis.red_curve()],
        "inaccuracy": INACCURACY,
        "cut_short": analysis.cut_short,
        "decisions": [
            {
                "start": j.decision.start,
                "end": j.decision.end,
                "color": j.color,
                "severity": j.severity,
                "turning": j == analysis.turning,
                "label": label(analysis, j),
                "played": j.played,
                "after": j.after,
                "better": j.better,
                "engine_after": j.engine_after,
                "engine": marks,
            }
            for j, marks in zip(shown, line_marks(analysis, shown))
        ],
    }


def analysis_html(analysis: Analysis) -> str:
    """The whole page: the replay of the analysed game with the graph, the listed decisions and their lines."""
    record = analysis.record
    title = f"Analysis of {record.game}: {record.name_of('RED')} vs {record.name_of('BLUE')}"
    # The fragment's one placeholder is replaced once; the replay then fills its own in one pass.
    above = _asset("graph.html").replace("__ANALYSIS__", script_json(page_data(analysis)))
    addition = PageAddition(above=above, aside=_asset("decisions.html"), style=_asset("analysis.css"),
                            script=_asset("analysis.js"))
    return replay_html(record, title, addition)


def write_html(analysis: Analysis, out: str) -> None:
    """Write the page to ``out`` (OSError when it cannot be written; ReplayError when the game has no viewer)."""
    text = analysis_html(analysis)
    Path(out).write_text(text, encoding="utf-8")


__all__ = ["analysis_html", "line_marks", "listed", "page_data", "write_html"]
