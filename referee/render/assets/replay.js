
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
  // Pages built on the replay (the analysis page) follow the step shown.
  document.dispatchEvent(new CustomEvent("replay-step", {detail: step}));
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
