"""A local HTML page (a replay, a report) in the real browser, and what its board shows.

- :func:`open_page`: the page opened, with lists that gather its console problems and its requests.
- :func:`board_after`: the board after a record's first steps, by the engine (not by the page).
- :func:`board_drawn`: the board as a person sees it on the screen (colours, and the powers written).
- :func:`seconds`: a clock as the page writes it.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from referee.games.infexion import InfexionState
from referee.records import GameRecord


def open_page(browser: Any, path: Path | str) -> tuple[Any, list[str], list[str]]:
    """The file (or address) opened in a new page of ``browser``; its console's errors and warnings, and its
    requests."""
    page = browser.new_page()
    problems: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri() if isinstance(path, Path) else path)
    return page, problems, requests


def board_after(record: GameRecord, steps: int) -> dict[tuple[int, int], tuple[str, int]]:
    state = InfexionState()
    for text in record.actions[:steps]:
        state.apply_checked(state.parse_action(text))
    return {(r, q): ("red" if o == 0 else "blue", p) for r, q, o, p in state.cells()}


#: What each cell looks like on screen: the coordinates drawn in it, its
#: polygon's computed style, and the power text if the browser lays it out.
_DRAWN = """gs => gs.map(g => {
  const polygon = g.querySelector('polygon'), power = g.querySelector('text.power');
  const look = getComputedStyle(polygon), text = getComputedStyle(power);
  const shown = power.textContent !== '' && text.display !== 'none' && text.visibility !== 'hidden'
    && Number(text.opacity) > 0 && text.fill !== 'none' && power.getBBox().width > 0;
  return [g.querySelector('text.coord').textContent, look.fill, look.stroke, look.strokeDasharray,
          shown ? power.textContent : ''];
})"""


def rgb(css: str) -> tuple[int, int, int]:
    """``rgb(239, 154, 154)`` -> (239, 154, 154)."""
    match = re.fullmatch(r"rgba?\((\d+), (\d+), (\d+)(, [\d.]+)?\)", css)
    assert match, f"not a computed colour: {css!r}"
    return int(match[1]), int(match[2]), int(match[3])


def colour_name(css: str) -> str | None:
    """How a person reads a cell's fill: clearly red, clearly blue, or neither (empty, highlighted)."""
    r, g, b = rgb(css)
    if r - max(g, b) > 40:
        return "red"
    if b - max(r, g) > 30:
        return "blue"
    return None


def drawn_cells(page: Any) -> dict[tuple[int, int], dict[str, str]]:
    """Every cell as drawn, keyed by the coordinates written in it."""
    cells = {}
    for coord, fill, stroke, dashes, power in page.eval_on_selector_all("svg#board g.cell", _DRAWN):
        r, q = (int(v) for v in coord.split(","))
        cells[(r, q)] = {"fill": fill, "stroke": stroke, "dashes": dashes, "power": power}
    return cells


def board_drawn(page: Any) -> dict[tuple[int, int], tuple[str, int]]:
    """The stacks as a person sees them: a red or blue cell with its power written in it."""
    board = {}
    for cell, look in drawn_cells(page).items():
        owner = colour_name(look["fill"])
        # A coloured cell without its power, or a power on an uncoloured cell, is a wrong picture.
        assert (owner is None) == (look["power"] == ""), f"cell {cell} is drawn as {look}"
        if owner:
            board[cell] = (owner, int(look["power"]))
    return board


def seconds(value: float) -> str:
    """A clock as the page writes it: JavaScript's toFixed (halves of the exact value round up), then " s"."""
    places = "0.01" if value < 10 else "0.1"
    return f"{Decimal(value).quantize(Decimal(places), rounding=ROUND_HALF_UP)} s"
