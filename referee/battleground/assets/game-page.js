
"use strict";
const G = JSON.parse(document.getElementById("game-data").textContent);
const board = document.getElementById("board");
const POLL_MS = 1000;
let F = null;          // the last frames drawn
let cellEls = [];
let busy = false, timer = null, noBoard = false;

async function getJSON(path) {
  const response = await fetch(path, {cache: "no-store"});
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const error = new Error((data && data.error) || response.statusText || String(response.status));
    error.status = response.status;
    throw error;
  }
  return data;
}

function problem(text) {
  const p = document.getElementById("problem");
  p.textContent = text;
  p.hidden = !text;
}

// The layout, once per game, as the replays draw it.
function build() {
  cellEls = drawBoard(board, F);
}

// The latest position, with the last action's marks.
function paint() {
  const step = F.boards.length - 1;
  const info = step > 0 ? F.steps[step - 1] : null;
  paintBoard(cellEls, F, step);
  document.getElementById("current").textContent =
    info ? `Action ${step}: ${info.player} plays ${info.action}` : "Start of the game";
  document.body.dataset.shown = String(step);
}

function statusOf(record) {
  const mark = record.extra && record.extra.battleground;
  if (mark && ["running", "finished", "aborted"].includes(mark.status)) return mark.status;
  return record.reason === "unfinished" ? "running" : "finished";
}

function describe(record, status) {
  const turns = record.actions.length;
  let text;
  if (status === "running") text = `Being played: ${turns} actions so far`;
  else if (status === "aborted") {
    text = `Aborted after ${turns} actions (the server stopped during the game; not counted)`;
  }
  else {
    const name = record.winner === "RED" ? (record.red_name || record.red) : (record.blue_name || record.blue);
    const head = record.winner ? `${record.winner} (${name}) wins (${record.reason})` : `Draw (${record.reason})`;
    text = `Game over after ${turns} actions: ${head}` + (record.message ? ` \u2014 ${record.message}` : "");
  }
  document.getElementById("status").textContent = text;
  document.getElementById("end").hidden = status === "running";
  document.getElementById("analysis").hidden = status === "running";
  document.body.dataset.status = status;
}

async function poll() {
  if (busy) return;
  busy = true;
  try {
    const record = await getJSON(`/api/games/${G.id}`);
    const status = statusOf(record);
    // The frames only when the game moved on: the record says how far it is.
    if (!noBoard && (!F || F.steps.length !== record.actions.length)) {
      try {
        const frames = await getJSON(`/api/games/${G.id}/frames`);
        const fresh = !F;
        F = frames;
        if (fresh) build();
        paint();
      } catch (e) {
        if (e.status === 404) { noBoard = true; problem("No board to show: " + e.message); } else throw e;
      }
    }
    describe(record, status);
    if (status !== "running") stop();
    else if (!noBoard) problem("");
  } catch (e) {
    if (e.status === 404) { problem(e.message); stop(); }
    else problem("lost the server (trying again): " + e.message);
  } finally {
    busy = false;
  }
}

function stop() {
  if (timer !== null) { clearInterval(timer); timer = null; }
  document.body.dataset.polling = "no";
}

document.body.dataset.polling = "yes";
timer = setInterval(poll, POLL_MS);
poll();
