"""A recorded game as one self-contained HTML page (no network at all).

CSS, JavaScript, data and the SVG board are all inline (the page's skeleton,
CSS and scripts are kept in ``assets/``).  Text that came from
a record (agent names, error messages) is only ever inserted with
``textContent``, and the embedded JSON is escaped so it cannot close the
``<script>`` element.
"""
from __future__ import annotations

import functools
import html
import json
import math
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..limits import limits_text
from ..core import message_detail
from ..records import COLORS, GameRecord
from .frames import build_frames


@functools.cache
def _asset(name: str) -> str:
    """The text of ``assets/<name>`` beside this module, as the pages serve it (read once per process)."""
    return resources.files(__package__).joinpath(f"assets/{name}").read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """JSON safe to place inside a <script> element."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("\u2028", "\\u2028")


def _humans(record: GameRecord) -> set[str]:
    """The sides a person played (``extra.human`` of ``python -m referee play``'s records: "RED", "RED BLUE")."""
    extra = record.extra if isinstance(record.extra, dict) else {}
    human = extra.get("human")
    return set(human.split()) if isinstance(human, str) else set()


def clock_data(record: GameRecord) -> dict[str, Any]:
    """Each side's clock at every step, for the figures table: what was used, the limit, and what is measured.

    ``after`` is the record's ``time_used_after`` (one ``[red, blue]`` per
    action; empty in records written before it), ``total`` its ``time_used``
    (the clocks at the game's end), ``limit`` each side's budget (``-t`` for an
    agent, ``--human-time`` for a person; None: none).
    """
    humans = _humans(record)
    extra = record.extra if isinstance(record.extra, dict) else {}
    human_time = extra.get("human_time")
    limits, measures = [], []
    for color in COLORS:
        if color in humans:
            limits.append(human_time if isinstance(human_time, (int, float)) and human_time > 0 else None)
            measures.append(f"{color}: a person's wall-clock seconds, counted while it was their move")
        else:
            limits.append(record.limit_of(color, "time_limit"))
            measures.append(f"{color}: the agent's CPU seconds")
    if not humans:
        measures = ["CPU seconds each agent used"]
    note = "Time used: " + "; ".join(measures) + "."
    if record.at_odds:
        note += " A game at odds: " + "; ".join(
            f"{color} had {limits_text(record.limit_of(color, 'time_limit'), record.limit_of(color, 'space_limit'))}"
            for color in COLORS
        ) + "."
    if not record.time_used_after and record.actions:
        note += (" This record keeps each side's total only, not the clocks after each action:"
                 " they are shown at the last step.")
    return {
        "after": record.time_used_after,
        "total": [float(record.time_used.get(color, 0.0)) for color in COLORS],
        "limit": limits,
        "note": note,
    }


def replay_data(record: GameRecord) -> dict[str, Any]:
    frames = build_frames(record)
    extra: dict[str, Any] = {}
    # The page's legend and board key are written into its HTML (replay_html), not read by its script.
    if frames.legend is not None:
        extra["legend"] = frames.legend
    if frames.board_key:
        extra["board_key"] = frames.board_key
    return {
        **frames.to_json_data(),
        **extra,
        "red": record.name_of("RED"),
        "blue": record.name_of("BLUE"),
        "winner": record.winner,
        "reason": record.reason,
        "message": record.message,
        "detail": message_detail(record.winner, record.reason, record.message or ""),
        "turns": record.turns,
        "time_used": record.time_used,
        "peak_memory_mb": record.peak_memory_mb,
        "clock": clock_data(record),
    }


@dataclass(frozen=True)
class PageAddition:
    """What a page built on the replay adds to it (the analysis page): HTML above the board and at the top of the
    side column, its CSS, and a script run after the replay's, in the same scope (it may read ``D`` and call
    ``show``; the replay tells ``document`` of each step it shows with a ``replay-step`` event)."""

    above: str = ""
    aside: str = ""
    style: str = ""
    script: str = ""


#: The placeholders of ``assets/replay.html``.
_PLACEHOLDER = re.compile(r"__(LEGEND|FIGURES|PANELS|TITLE|STYLE|SCRIPT|DATA|ABOVE|ASIDE)__")


def replay_html(record: GameRecord, title: str | None = None, addition: PageAddition | None = None) -> str:
    """The whole page for one game; ``addition``: what a page built on the replay adds."""
    data = replay_data(record)
    heading = title or f"{record.game}: {record.name_of('RED')} vs {record.name_of('BLUE')}"
    panels = "status" in data
    timed = any(limit is not None for limit in data["clock"]["limit"])
    extra = addition or PageAddition()
    parts = {
        "LEGEND": legend_html(data.get("legend"), data.get("board_key", [])),
        "FIGURES": figures_html(data.get("score_names", []), turn=panels, timed=timed),
        "PANELS": _PANELS if panels else "",
        "TITLE": html.escape(heading),
        "STYLE": board_style() + extra.style,
        "SCRIPT": board_script() + _asset("replay.js") + extra.script,
        "DATA": script_json(data),
        "ABOVE": extra.above,
        "ASIDE": extra.aside,
    }
    # One pass over the skeleton: nothing a part holds (a title, a record's text) is taken for a placeholder.
    return _PLACEHOLDER.sub(lambda match: parts[match[1]], _asset("replay.html"))


#: The legend of games whose frames give none (Infexion's wording).
_DEFAULT_LEGEND = """<p class="legend"><span class="key source"></span> the acting cell
      <span class="key touched"></span> cells it reached
      <span class="key captured"></span> taken from the opponent
      <span class="key removed"></span> emptied;
      keys: &larr; &rarr; Home End Space</p>"""


def _hexagon(radius: float) -> str:
    """The points of a flat-topped hexagon around (0, 0), as the board's cells are drawn."""
    corners = (
        (radius * math.cos(math.pi / 3 * k), radius * math.sin(math.pi / 3 * k)) for k in range(6)
    )
    return " ".join(f"{x:.4f},{y:.4f}" for x, y in corners)


def legend_html(legend: list[tuple[str, str]] | None, board_key: list[tuple[str, str, str, str]]) -> str:
    """The legend under the board: what the step highlights mean, then the board key (if the game has one)."""
    if legend is None:
        return _DEFAULT_LEGEND
    marks = "\n      ".join(
        f'<span class="key {html.escape(mark)}"></span> {html.escape(text)}' for mark, text in legend
    )
    parts = [f'<p class="legend" id="step-key">{marks};\n      keys: &larr; &rarr; Home End Space</p>']
    if board_key:
        # Each entry is a small cell with the board's own classes, so the board's CSS colours it alike.
        cell, inner = _hexagon(_RADIUS), _hexagon(_RADIUS * _TERRITORY_SCALE)
        items = []
        for kinds, owner, territory, text in board_key:
            items.append(
                f'<span class="key-item" data-kinds="{html.escape(kinds)}" data-owner="{html.escape(owner)}"'
                f' data-territory="{html.escape(territory)}"><svg class="swatch" viewBox="-0.6 -0.6 1.2 1.2"'
                f' aria-hidden="true"><g class="cell {html.escape(kinds)}" data-owner="{html.escape(owner)}">'
                f'<polygon points="{cell}"/></g><polygon class="terr" data-territory="{html.escape(territory)}"'
                f' points="{inner}"/></svg> {html.escape(text)}</span>'
            )
        parts.append('<p class="legend" id="board-key">' + "\n      ".join(items) + "</p>")
    return "\n    ".join(parts)


# The cell radius the script draws with (neighbouring centres 1 apart; its R)
# and the territory outline's, a smaller hexagon inside the cell (the script's 0.88).
_RADIUS = 1 / math.sqrt(3) * 0.97
_TERRITORY_SCALE = 0.88

def figures_html(names: list[str], turn: bool, timed: bool) -> str:
    """The table above the board: each side's figures (the frames' ``score_names``), time used and left.

    ``turn``: a line for the turn above it (games with a status: Infinitron);
    ``timed``: a column for the time left (a side had a limit).
    """
    figure_class = [re.sub(r"[^a-z0-9]+", "-", name.lower()) for name in names]
    heads = "".join(f"<th>{html.escape(name)}</th>" for name in names) + "<th>time used</th>"
    cells = "".join(f'<td class="figure {c}"></td>' for c in figure_class) + '<td class="clock"></td>'
    if timed:
        heads += "<th>left</th>"
        cells += '<td class="left"></td>'
    rows = "".join(
        f'\n          <tr class="{side}"><th class="{side}-name">{side.upper()}</th>{cells}</tr>'
        for side in ("red", "blue")
    )
    return f"""
    <div id="status">{'<p id="turn"></p>' if turn else ""}
      <table id="figures">
        <thead><tr><th></th>{heads}</tr></thead>
        <tbody>{rows}
        </tbody>
      </table>
      <p id="clock-note"></p>
    </div>"""

#: The panels under the board: the cell pointed at, and each side's templates.
_PANELS = """
    <p id="cell-info" aria-live="polite"></p>
    <div id="templates">
      <h2>Templates</h2>
      <table class="templates red"><caption class="red-name">RED</caption>
        <thead><tr><th>#</th><th>HP</th><th>Move</th><th>damage</th><th>range</th><th>ability</th><th>cost</th></tr></thead>
        <tbody></tbody></table>
      <table class="templates blue"><caption class="blue-name">BLUE</caption>
        <thead><tr><th>#</th><th>HP</th><th>Move</th><th>damage</th><th>range</th><th>ability</th><th>cost</th></tr></thead>
        <tbody></tbody></table>
    </div>"""


def board_style() -> str:
    """The replays' CSS: how a cell looks for its owner, kind and highlight (the play page draws boards with it)."""
    return _asset("replay.css")


def board_script() -> str:
    """Script functions the replays and the play page share: a cell's hexagon and contents, a step's marks."""
    return _asset("board.js")
