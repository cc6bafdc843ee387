"""A recorded game as one self-contained HTML page (no network at all).

CSS, JavaScript, data and the SVG board are all inline.  Text that came from
a record (agent names, error messages) is only ever inserted with
``textContent``, and the embedded JSON is escaped so it cannot close the
``<script>`` element.
"""
from __future__ import annotations

import html
import json
import math
import re
from typing import Any

from ..limits import limits_text
from ..core import message_detail
from ..records import COLORS, GameRecord
from .frames import build_frames


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


def replay_html(record: GameRecord, title: str | None = None) -> str:
    """The whole page for one game."""
    data = replay_data(record)
    heading = title or f"{record.game}: {record.name_of('RED')} vs {record.name_of('BLUE')}"
    panels = "status" in data
    timed = any(limit is not None for limit in data["clock"]["limit"])
    return (
        # The game's own parts first, so that nothing a record holds (a title) is taken for a placeholder.
        _PAGE.replace("__LEGEND__", legend_html(data.get("legend"), data.get("board_key", [])))
        .replace("__FIGURES__", figures_html(data.get("score_names", []), turn=panels, timed=timed))
        .replace("__PANELS__", _PANELS if panels else "")
        .replace("__TITLE__", html.escape(heading))
        .replace("__STYLE__", _STYLE)
        .replace("__SCRIPT__", BOARD_SCRIPT + _SCRIPT)
        .replace("__DATA__", script_json(data))
    )


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
    return _STYLE


#: Script functions the replays and the play page share: a cell's hexagon and contents, a step's marks.
BOARD_SCRIPT = r"""
function hexPoints(c, radius) {
  // A flat-topped hexagon of the given radius around the cell's centre, as an SVG points list.
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = Math.PI / 3 * k;
    pts.push(`${(c.x + radius * Math.cos(a)).toFixed(4)},${(c.y + radius * Math.sin(a)).toFixed(4)}`);
  }
  return pts.join(" ");
}

function cellOwnerPower(ch) {
  // A board string's letter: a..z a Red stack of power 1..26, A..Z a Blue one, anything else empty.
  if (ch >= "a" && ch <= "z") return ["red", ch.charCodeAt(0) - 96];
  if (ch >= "A" && ch <= "Z") return ["blue", ch.charCodeAt(0) - 64];
  return ["", 0];
}

function stepMarks(info) {
  const mark = {};
  if (info) {
    for (const c of info.path) mark[c] = "touched";
    for (const c of info.removed) mark[c] = "removed";
    for (const c of info.captured) mark[c] = "captured";
    if (info.source !== null && info.source !== undefined) mark[info.source] = (mark[info.source] || "") + " source";
    for (const c of info.killed || []) mark[c] = (mark[c] || "") + " killed";
  }
  return mark;
}

function svgNode(tag, attrs, parent) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// The hex radius: flat-topped hexes whose neighbouring centres are 1 apart.
const HEX_R = 1 / Math.sqrt(3) * 0.97;

function drawBoard(board, F) {
  // The board's layout from the frames (F): the sides' edges and one group per cell; the cells' groups.
  while (board.firstChild) board.removeChild(board.firstChild);
  const pad = 1.0;
  const xs = F.cells.map(c => c.x), ys = F.cells.map(c => c.y);
  const minX = Math.min(...xs) - pad, minY = Math.min(...ys) - pad;
  board.setAttribute("viewBox", `${minX} ${minY} ${Math.max(...xs) - minX + pad} ${Math.max(...ys) - minY + pad}`);
  for (const side of F.sides) {
    svgNode("polyline", {class: "side " + side.color, points: side.points.map(p => p.join(",")).join(" ")}, board);
  }
  return F.cells.map((c, i) => {
    const g = svgNode("g", {class: "cell", "data-r": c.r, "data-q": c.q, "data-index": i}, board);
    svgNode("polygon", {points: hexPoints(c, HEX_R)}, g);
    svgNode("text", {class: "coord", x: c.x, y: c.y + HEX_R * 0.72}, g).textContent = `${c.r},${c.q}`;
    svgNode("text", {class: "power", x: c.x, y: c.y - 0.04}, g);
    return g;
  });
}

function paintBoard(cellEls, F, step) {
  // The position after `step` actions with that action's marks; for games with terrain and units, the
  // [cell, kinds, owner, text] of every cell that is not plain ground, by cell (else null).
  const cells = F.boards[step];
  const mark = stepMarks(step > 0 ? F.steps[step - 1] : null);
  if (typeof cells === "string") {
    cellEls.forEach((g, i) => {
      const [owner, power] = cellOwnerPower(cells[i]);
      g.setAttribute("data-owner", owner);
      g.setAttribute("data-power", String(power));
      g.setAttribute("class", "cell " + (mark[i] || ""));
      g.querySelector("text.power").textContent = owner && F.game !== "cachex" ? String(power) : "";
    });
    return null;
  }
  const extra = {};
  for (const e of cells) extra[e[0]] = e;
  cellEls.forEach((g, i) => {
    const e = extra[i] || [i, "", "", ""];
    g.setAttribute("data-owner", e[2]);
    g.setAttribute("data-kind", e[1]);
    g.setAttribute("class", "cell " + e[1] + " " + (mark[i] || ""));
    g.querySelector("text.power").textContent = e[3];
  });
  return extra;
}
"""


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>__TITLE__</title>
<style>__STYLE__</style>
</head>
<body>
<header>
  <h1>__TITLE__</h1>
  <p id="players"><span class="red-name"></span> vs <span class="blue-name"></span></p>
  <p id="result"></p>
  <p id="warning" role="alert" hidden></p>
</header>
<main>
  <section id="board-area">__FIGURES__
    <svg id="board" role="img" aria-label="game board"></svg>
    <div id="controls">
      <button id="first" title="first (Home)">&laquo;</button>
      <button id="prev" title="back (Left arrow)">&lsaquo;</button>
      <button id="play" title="play/pause (Space)">play</button>
      <button id="next" title="forward (Right arrow)">&rsaquo;</button>
      <button id="last" title="last (End)">&raquo;</button>
      <input id="slider" type="range" min="0" value="0" aria-label="step">
      <span id="counter"></span>
    </div>
    <p id="current"></p>__PANELS__
    __LEGEND__
  </section>
  <aside>
    <h2>Actions</h2>
    <ol id="moves"></ol>
  </aside>
</main>
<script id="replay-data" type="application/json">__DATA__</script>
<script>__SCRIPT__</script>
</body>
</html>
"""  # noqa: E501 (the page's text, kept as served: the CSP rule is one attribute)

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1rem 2rem; color: #222; background: #fafafa; }
h1 { font-size: 1.3rem; margin: 0 0 .3rem; }
header p { margin: .2rem 0; }
main { display: flex; gap: 2rem; align-items: flex-start; flex-wrap: wrap; }
#board { width: min(90vw, 640px); height: auto; background: #fff; border: 1px solid #ddd; }
#controls { display: flex; align-items: center; gap: .4rem; margin-top: .5rem; }
#controls button { font-size: 1rem; min-width: 2.4rem; }
#slider { flex: 1; }
aside { max-height: 80vh; overflow-y: auto; min-width: 16rem; }
#moves { font-family: ui-monospace, monospace; font-size: .85rem; padding-left: 3rem; }
#moves li { cursor: pointer; padding: 1px 4px; }
#moves li.current { background: #ffe58f; }
.red-name, .mv-red { color: #c62828; font-weight: 600; }
.blue-name, .mv-blue { color: #1565c0; font-weight: 600; }
.cell polygon { stroke: #999; stroke-width: .03; fill: #f4f4f4; }
.cell[data-owner=red] polygon { fill: #ef9a9a; }
.cell[data-owner=blue] polygon { fill: #90caf9; }
.cell.touched polygon { stroke: #f9a825; stroke-width: .09; }
.cell.source polygon { stroke: #6d4c41; stroke-width: .11; stroke-dasharray: .12 .06; }
.cell.captured polygon { stroke: #2e7d32; stroke-width: .11; }
.cell.removed polygon { fill: #fff59d; }
.cell text.power { font-size: .42px; font-weight: 700; text-anchor: middle; dominant-baseline: central; }
.cell text.coord { font-size: .16px; fill: #777; text-anchor: middle; }
.cell.block polygon { fill: #555; } .cell.lava polygon { fill: #ffab91; } .cell.repair polygon { fill: #c5e1a5; }
.cell.label polygon { fill: #d1c4e9; } .cell.fish polygon { fill: #b2ebf2; }
.cell.city polygon { stroke: #333; stroke-width: .08; } .cell.capital polygon { stroke-width: .14; }
.cell.city[data-owner=red] polygon { fill: #ffcdd2; } .cell.city[data-owner=blue] polygon { fill: #bbdefb; }
.cell.destroyed polygon { fill: #9e9e9e; }
.cell.unit[data-owner=red] polygon { fill: #e57373; } .cell.unit[data-owner=blue] polygon { fill: #64b5f6; }
.cell.unit text.power { font-size: .26px; }
.mv-chance { color: #6a1b9a; font-weight: 600; }
.side { fill: none; stroke-width: .12; stroke-linecap: round; }
.side.red { stroke: #c62828; } .side.blue { stroke: #1565c0; }
#result { font-weight: 600; }
#warning { margin: .5rem 0; padding: .5rem .8rem; max-width: 60rem; background: #fff3cd; color: #7a2e00;
  border: 2px solid #e65100; border-radius: 4px; font-weight: 600; }
.legend { font-size: .8rem; color: #555; }
.key { display: inline-block; width: .9rem; height: .9rem; vertical-align: middle; margin-left: .6rem; border: 3px solid; }
.key.source { border-color: #6d4c41; border-style: dashed; } .key.touched { border-color: #f9a825; }
.key.captured { border-color: #2e7d32; } .key.removed { background: #fff59d; border-color: #999; border-width: 1px; }
.cell.rubble polygon { fill: #bcaaa4; }
.cell.city.touched polygon { stroke: #f9a825; stroke-width: .09; }
.cell.city.source polygon { stroke: #6d4c41; stroke-width: .11; stroke-dasharray: .12 .06; }
.cell.city.captured polygon { stroke: #2e7d32; stroke-width: .11; }
.cell.killed polygon, .cell.city.killed polygon { stroke: #ad1457; stroke-width: .13; stroke-dasharray: none; }
.key.killed { border-color: #ad1457; }
.terr { fill: none; stroke: none; stroke-width: .05; stroke-dasharray: .1 .05; pointer-events: none; }
.terr[data-territory~=neutral] { stroke: #757575; }
.terr[data-territory~=red] { stroke: #c62828; } .terr[data-territory~=blue] { stroke: #1565c0; }
.terr[data-territory~=red][data-territory~=blue] { stroke: #6a1b9a; }
.key-item { white-space: nowrap; margin-right: .7rem; }
.swatch { width: 1.1rem; height: 1.1rem; vertical-align: middle; }
#status p { margin: .2rem 0; font-weight: 600; }
#status p#clock-note { font-weight: normal; font-size: .8rem; color: #555; max-width: 40rem; }
#figures, .templates { border-collapse: collapse; font-size: .85rem; margin: .2rem 0; }
#figures th, #figures td, .templates th, .templates td { border: 1px solid #ddd; padding: 1px 6px; text-align: right; }
#figures td.clock, #figures td.left { font-family: ui-monospace, monospace; }
#figures tr.mover th { text-decoration: underline; }
.templates { display: inline-table; margin-right: 1rem; vertical-align: top; }
.templates caption { text-align: left; }
#templates h2 { font-size: 1rem; margin: .6rem 0 .2rem; }
#board-area:has(#status) { max-width: 680px; }
#cell-info { min-height: 1.2em; font-size: .9rem; }
"""  # noqa: E501 (the page's text, kept as served)

_SCRIPT = r"""
"use strict";
const D = JSON.parse(document.getElementById("replay-data").textContent);
const SVG = "http://www.w3.org/2000/svg";
const board = document.getElementById("board");
const slider = document.getElementById("slider");
const moves = document.getElementById("moves");
const total = D.boards.length - 1;
let step = 0, timer = null;

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

const R = HEX_R;
const cellEls = drawBoard(board, D);

// Games with figures (Infinitron): territories are outlined on a layer above
// the cells, so that no cell's fill covers them and the pointer passes through.
// The outline is 0.88 of the cell, as the board key's (_TERRITORY_SCALE).
const terrEls = D.status ? D.cells.map((c, i) =>
  el("polygon", {class: "terr", points: hexPoints(c, R * 0.88), "data-r": c.r, "data-q": c.q, "data-index": i,
                 "data-territory": ""}, board)) : [];
const SIDES = ["RED", "BLUE"];
let shown = {};  // cell -> its board entry at the step shown (games with terrain, cities and units)
let hovered = null, pinned = null;

document.querySelector("#players .red-name").textContent = "RED: " + D.red;
document.querySelector("#players .blue-name").textContent = "BLUE: " + D.blue;
document.getElementById("result").textContent = resultLine();

function resultLine() {
  // A game a person stopped has no winner but is no draw either.
  const head = !D.winner && D.reason === "unfinished" ? "Unfinished" : (D.winner ? `${D.winner} wins` : "Draw") + ` (${D.reason})`;
  // What the message adds to the head ("RED (human) resigned ..."), cut by the referee (match.message_detail).
  const more = D.detail;
  return `${head} after ${D.turns} actions` + (more ? ` \u2014 ${more}` : "");
}

document.getElementById("clock-note").textContent = D.clock.note;
if (!D.scores) D.scores = D.boards.map(() => [[], []]);  // a game whose frames give no figures: clocks only

if (D.warning) {
  // The actions do not lead to the recorded result (a record cut short or edited).
  const warning = document.getElementById("warning");
  warning.textContent = "Warning: " + D.warning;
  warning.hidden = false;
}

D.steps.forEach((s, i) => {
  const li = document.createElement("li");
  const who = document.createElement("span");
  who.className = s.player === "RED" ? "mv-red" : s.player === "BLUE" ? "mv-blue" : "mv-chance";
  who.textContent = s.player + " ";
  li.appendChild(who);
  li.appendChild(document.createTextNode(s.action));
  li.addEventListener("click", () => show(i + 1));
  moves.appendChild(li);
});
slider.max = String(total);

function show(n) {
  step = Math.max(0, Math.min(total, n));
  const info = step > 0 ? D.steps[step - 1] : null;
  const extra = paintBoard(cellEls, D, step);
  if (extra) shown = extra;
  showFigures();
  if (D.status) { showStatus(D.status[step]); showInfo(); }
  slider.value = String(step);
  document.getElementById("counter").textContent = `${step} / ${total}`;
  document.getElementById("current").textContent =
    info ? `Action ${step}: ${info.player} plays ${info.action}` : "Start of the game";
  moves.querySelectorAll("li").forEach((li, i) => li.classList.toggle("current", i === step - 1));
  const cur = moves.children[step - 1];
  if (cur) cur.scrollIntoView({block: "nearest"});
}

function seconds(s) { return s === null || s === undefined ? "\u2014" : s.toFixed(s < 10 ? 2 : 1) + " s"; }

function clockAt(n, p) {
  // Each side's time used after step n: the record's clocks at the end for the last step, else per action.
  if (n === total) return D.clock.total[p];
  if (n === 0) return D.clock.after.length ? 0 : null;
  const pair = D.clock.after[n - 1];
  return pair ? pair[p] : null;
}

function showFigures() {
  const info = step > 0 ? D.steps[step - 1] : null;
  ["red", "blue"].forEach((side, p) => {
    const row = document.querySelector(`#figures tr.${side}`);
    row.querySelectorAll("td.figure").forEach((td, k) => { td.textContent = String(D.scores[step][p][k]); });
    const used = clockAt(step, p), before = step > 0 ? clockAt(step - 1, p) : null;
    // The mover's clock says what its action took (as the clock ran since the action before).
    const took = info && info.player === SIDES[p] && used !== null && before !== null ? used - before : null;
    row.querySelector("td.clock").textContent = seconds(used) + (took !== null ? ` (+${took.toFixed(2)})` : "");
    row.classList.toggle("mover", !!info && info.player === SIDES[p]);
    const left = row.querySelector("td.left");
    if (left) {
      const limit = D.clock.limit[p];
      left.textContent = limit === null ? "no limit" : used === null ? "\u2014" : seconds(Math.max(0, limit - used));
    }
  });
}

function showStatus(st) {
  document.getElementById("turn").textContent = `Turn ${st.turn} of ${st.max_turns}: ${st.to_act}`;
  ["red", "blue"].forEach((side, p) => {
    const body = document.querySelector(`table.templates.${side} tbody`);
    body.replaceChildren();
    D.shared.templates[st.templates][p].forEach((t, n) => {
      const tr = document.createElement("tr");
      for (const text of [n, t[0], t[1], t[2] ? t[2] : "none", t[2] ? reach(t) : "\u2014", t[6], t[7]]) {
        const td = document.createElement("td");
        td.textContent = String(text);
        tr.appendChild(td);
      }
      body.appendChild(tr);
    });
  });
  // A cell may lie in several cities' territories: its outline says whose.
  const whose = terrEls.map(() => new Set());
  for (const [, owner, cells] of D.shared.territories[st.territories]) {
    for (const c of cells) whose[c].add(owner || "neutral");
  }
  terrEls.forEach((t, i) => t.setAttribute("data-territory", [...whose[i]].sort().join(" ")));
}

function reach(t) {
  return t[4] === t[5] ? `${t[3]} ${t[4]}` : `${t[3]} ${t[4]}\u2013${t[5]}`;
}

function templateOf(side, number) {
  return D.shared.templates[D.status[step].templates][side === "red" ? 0 : 1][number];
}

function describe(i) {
  const c = D.cells[i], e = shown[i] || [i, "", "", ""];
  const kinds = e[1].split(" ").filter(k => k);
  const at = `(${c.r}, ${c.q})`;
  const ground = kinds.filter(k => !["city", "capital", "destroyed", "unit"].includes(k)).map(k => k === "fish" ? "a fish token" : k.toUpperCase());
  let place = ground.length ? ground.join(", ") : "plain ground";
  if (kinds.includes("city")) {
    const what = kinds.includes("capital") ? "capital" : "city";
    const owner = kinds.includes("unit") ? cityOwner(i) : e[2];
    place = kinds.includes("destroyed") ? `destroyed ${what}` : owner ? `${what} held by ${owner.toUpperCase()}` : `neutral ${what}`;
  }
  if (!kinds.includes("unit")) return `${at}: ${place}`;
  const [uid, hp] = e[3].split(":");
  const t = templateOf(e[2], e[4]);
  const attack = t[2] ? `damage ${t[2]} at range ${reach(t)}` : "no attack";
  return `${e[2].toUpperCase()} unit ${uid} at ${at} (${place}): template ${e[4]}, HP ${hp} of ${t[0]}, ` +
    `Move ${t[1]}, ${attack}, ability ${t[6]}, cost ${t[7]}`;
}

function cityOwner(i) {
  // Under a unit the entry's owner is the unit's: the city's is in the territory list.
  for (const [cell, owner] of D.shared.territories[D.status[step].territories]) if (cell === i) return owner;
  return "";
}

function showInfo() {
  const i = hovered !== null ? hovered : pinned;
  document.getElementById("cell-info").textContent =
    i === null ? "Point at a cell to see what is on it (click to keep it shown)." :
    (i === pinned && hovered === null ? "Kept: " : "") + describe(i);
}

if (D.status) {
  cellEls.forEach((g, i) => {
    g.addEventListener("mouseenter", () => { hovered = i; showInfo(); });
    g.addEventListener("mouseleave", () => { hovered = null; showInfo(); });
    g.addEventListener("click", () => { pinned = pinned === i ? null : i; showInfo(); });
  });
}

function play() {
  if (timer) { clearInterval(timer); timer = null; document.getElementById("play").textContent = "play"; return; }
  if (step >= total) show(0);
  document.getElementById("play").textContent = "pause";
  timer = setInterval(() => { if (step >= total) play(); else show(step + 1); }, 400);
}

document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(step - 1);
document.getElementById("next").onclick = () => show(step + 1);
document.getElementById("last").onclick = () => show(total);
document.getElementById("play").onclick = play;
slider.addEventListener("input", () => show(Number(slider.value)));
document.addEventListener("keydown", e => {
  if (e.target === slider && (e.key === "ArrowLeft" || e.key === "ArrowRight")) return;  // the slider moves itself
  if (e.key === "ArrowRight") { show(step + 1); e.preventDefault(); }
  else if (e.key === "ArrowLeft") { show(step - 1); e.preventDefault(); }
  else if (e.key === "Home") { show(0); e.preventDefault(); }
  else if (e.key === "End") { show(total); e.preventDefault(); }
  else if (e.key === " ") { play(); e.preventDefault(); }
});
show(0);
"""  # noqa: E501 (the page's text, kept as served)
