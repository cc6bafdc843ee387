"""A recorded game as one self-contained HTML page (no network at all).

CSS, JavaScript, data and the SVG board are all inline.  Text that came from
a record (agent names, error messages) is only ever inserted with
``textContent``, and the embedded JSON is escaped so it cannot close the
``<script>`` element.
"""
from __future__ import annotations

import html
import json
from typing import Any

from ..records import GameRecord
from .frames import build_frames


def script_json(data: Any) -> str:
    """JSON safe to place inside a <script> element."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("\u2028", "\\u2028")


def replay_data(record: GameRecord) -> dict[str, Any]:
    frames = build_frames(record)
    return {
        **frames.to_json_data(),
        "red": record.name_of("RED"),
        "blue": record.name_of("BLUE"),
        "winner": record.winner,
        "reason": record.reason,
        "message": record.message,
        "turns": record.turns,
        "time_used": record.time_used,
        "peak_memory_mb": record.peak_memory_mb,
    }


def replay_html(record: GameRecord, title: str | None = None) -> str:
    """The whole page for one game."""
    data = replay_data(record)
    heading = title or f"{record.game}: {record.name_of('RED')} vs {record.name_of('BLUE')}"
    return (
        _PAGE.replace("__TITLE__", html.escape(heading))
        .replace("__STYLE__", _STYLE)
        .replace("__SCRIPT__", _SCRIPT)
        .replace("__DATA__", script_json(data))
    )


def board_style() -> str:
    """The replays' CSS: how a cell looks for its owner, kind and highlight (the play page draws boards with it)."""
    return _STYLE


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
  <section id="board-area">
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
    <p id="current"></p>
    <p class="legend"><span class="key source"></span> the acting cell
      <span class="key touched"></span> cells it reached
      <span class="key captured"></span> taken from the opponent
      <span class="key removed"></span> emptied;
      keys: &larr; &rarr; Home End Space</p>
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

// Flat-topped hexes: neighbouring centres are 1 apart, so the radius is 1/sqrt(3).
const R = 1 / Math.sqrt(3) * 0.97;
const xs = D.cells.map(c => c.x), ys = D.cells.map(c => c.y);
const pad = 1.0;
const minX = Math.min(...xs) - pad, minY = Math.min(...ys) - pad;
board.setAttribute("viewBox", `${minX} ${minY} ${Math.max(...xs) - minX + pad} ${Math.max(...ys) - minY + pad}`);
for (const side of D.sides) {
  el("polyline", {class: "side " + side.color, points: side.points.map(p => p.join(",")).join(" ")}, board);
}
const cellEls = D.cells.map((c, i) => {
  const g = el("g", {class: "cell", "data-r": c.r, "data-q": c.q, "data-index": i}, board);
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = Math.PI / 3 * k;
    pts.push(`${(c.x + R * Math.cos(a)).toFixed(4)},${(c.y + R * Math.sin(a)).toFixed(4)}`);
  }
  el("polygon", {points: pts.join(" ")}, g);
  const coord = el("text", {class: "coord", x: c.x, y: c.y + R * 0.72}, g);
  coord.textContent = `${c.r},${c.q}`;
  el("text", {class: "power", x: c.x, y: c.y - 0.04}, g);
  return g;
});

document.querySelector("#players .red-name").textContent = "RED: " + D.red;
document.querySelector("#players .blue-name").textContent = "BLUE: " + D.blue;
document.getElementById("result").textContent =
  (D.winner ? `${D.winner} wins` : "Draw") + ` (${D.reason}) after ${D.turns} actions` +
  (D.message && D.message !== `${D.winner} wins (${D.reason})` && D.message !== `draw (${D.reason})` ? ` \u2014 ${D.message}` : "");

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
  const cells = D.boards[step];
  const info = step > 0 ? D.steps[step - 1] : null;
  const mark = {};
  if (info) {
    for (const c of info.path) mark[c] = "touched";
    for (const c of info.removed) mark[c] = "removed";
    for (const c of info.captured) mark[c] = "captured";
    if (info.source !== null && info.source !== undefined) mark[info.source] = (mark[info.source] || "") + " source";
  }
  if (typeof cells === "string") {
    cellEls.forEach((g, i) => {
      const ch = cells[i];
      let owner = "", power = 0;
      if (ch >= "a" && ch <= "z") { owner = "red"; power = ch.charCodeAt(0) - 96; }
      else if (ch >= "A" && ch <= "Z") { owner = "blue"; power = ch.charCodeAt(0) - 64; }
      g.setAttribute("data-owner", owner);
      g.setAttribute("data-power", String(power));
      g.setAttribute("class", "cell " + (mark[i] || ""));
      g.querySelector("text.power").textContent = owner && D.game !== "cachex" ? String(power) : "";
    });
  } else {
    // [cell, kinds, owner, text] for every cell that is not plain ground.
    const extra = {};
    for (const e of cells) extra[e[0]] = e;
    cellEls.forEach((g, i) => {
      const e = extra[i] || [i, "", "", ""];
      g.setAttribute("data-owner", e[2]);
      g.setAttribute("data-kind", e[1]);
      g.setAttribute("class", "cell " + e[1] + " " + (mark[i] || ""));
      g.querySelector("text.power").textContent = e[3];
    });
  }
  slider.value = String(step);
  document.getElementById("counter").textContent = `${step} / ${total}`;
  document.getElementById("current").textContent =
    info ? `Action ${step}: ${info.player} plays ${info.action}` : "Start of the game";
  moves.querySelectorAll("li").forEach((li, i) => li.classList.toggle("current", i === step - 1));
  const cur = moves.children[step - 1];
  if (cur) cur.scrollIntoView({block: "nearest"});
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
