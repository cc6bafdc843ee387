
"use strict";
const board = document.getElementById("board");
const ANIMATION_MS = 350;  // per action while the board catches up with the game
let S = null;              // the last state the server sent
let cellEls = [];
let shown = 0;             // how many actions the board shows
let animation = null;
let selected = null;       // the cell of a first click waiting for its second (a SPREAD's direction)
// A kind of action with no cell to click is a button when it has at most this many legal actions; else it is typed
// (Infinitron's DEFINE: thousands).
const MOST_BUTTONS = 12;

// Games whose boards list units and terrain (Infinitron) show the text board too (RP, templates, HP) and take
// typed commands; they are not animated (a turn is many commands: the position now is what matters).
function rich() { return S.typed || typeof S.frames.boards[0] !== "string"; }
function kind(action) { return action.split("(")[0]; }  // its command word
let waiting = false, sending = false;

function say(text, error) {
  const m = document.getElementById("message");
  m.textContent = text;
  m.className = error ? "error" : "";
}

async function api(method, path, body) {
  const options = {method, headers: {}};
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data;
  try { data = await response.json(); } catch (e) { data = {error: response.statusText}; }
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

// The board, drawn as the replays draw it; a click on a cell plays it.
function build() {
  const F = S.frames;
  cellEls = drawBoard(board, F);
  cellEls.forEach((g, i) => g.addEventListener("click", () => clickCell(i)));
  document.getElementById("title").textContent = `Play ${S.game}` + (S.hot_seat ? " (hot seat)" : "");
  document.title = `play ${S.game}: ${S.players.RED} vs ${S.players.BLUE}`;
  // A game without clicks is played by typed commands on the text board; Infinitron by clicks on the board,
  // with the text board and typed commands beside it.
  board.style.display = S.typed ? "none" : "";  // an SVG element has no hidden property
  document.getElementById("cell-key").hidden = S.typed;
  document.getElementById("text-board").hidden = !rich();
  document.getElementById("command").hidden = !rich();
  legalKey = "";
  document.getElementById("how").textContent = S.how;  // the game's registration says how it is played
}

let legalKey = "";  // which legal actions the command list holds
function fillCommands() {
  const key = S.number + ":" + S.actions.length + ":" + S.legal.length;
  if (key === legalKey) return;
  legalKey = key;
  const list = document.getElementById("legal-list");
  while (list.firstChild) list.removeChild(list.firstChild);
  for (const a of S.legal) {
    const option = document.createElement("option");
    option.value = a;
    list.appendChild(option);
  }
  // Kinds with too many to suggest (Infinitron's DEFINEs with --armour): how many, so the person types one.
  const listed = {};
  for (const a of S.legal) { const word = a.split("(")[0]; listed[word] = (listed[word] || 0) + 1; }
  const unlisted = Object.entries(S.legal_counts).filter(([word, n]) => n > (listed[word] || 0));
  const note = document.getElementById("legal-note");
  note.hidden = !unlisted.length;
  note.textContent = unlisted.map(([word, n]) => `${n} legal ${word} commands: too many to suggest, type one`).join("; ");
}

let buttonsKey = null;  // which actions the buttons play
function fillButtons() {
  // A legal action with no cell to click (Cachex's STEAL, Infinitron's END_TURN) is a button, unless its kind
  // has too many to be buttons (Infinitron's DEFINE): those are typed.
  const actions = S.typed ? [] : S.legal.filter(a => !S.clicks[a].length && S.legal_counts[kind(a)] <= MOST_BUTTONS);
  const key = actions.join("\n");
  if (key === buttonsKey) return;
  buttonsKey = key;
  const box = document.getElementById("buttons");
  buttonRow(box, actions);
}

// One button per action in ``box`` (what was there goes), each sending its action.
function buttonRow(box, actions) {
  while (box.firstChild) box.removeChild(box.firstChild);
  for (const a of actions) {
    const button = document.createElement("button");
    button.textContent = a;
    button.dataset.action = a;
    button.onclick = () => send(a);
    box.append(button, " ");
  }
}

function firstClicks() {
  const starts = new Set();
  if (animation || !S.legal.length) return starts;
  for (const a of S.legal) if (S.clicks[a].length) starts.add(S.clicks[a][0]);
  return starts;
}

// Several legal actions fit the cells clicked (Infinitron: a BUILD of each template on a cell): buttons to pick one.
let choosing = [];
function offer(actions, text) {
  choosing = actions;
  const box = document.getElementById("choice-buttons");
  buttonRow(box, actions);
  document.getElementById("choices-text").textContent = text;
  document.getElementById("choices").hidden = !actions.length;
}
document.getElementById("choices-cancel").onclick = () => { selected = null; offer([], ""); say(""); paint(); };

function paint() {
  const F = S.frames;
  if (rich()) {
    document.getElementById("text-board").textContent = S.board;  // its last lines say what the summary says
    fillCommands();
  }
  const cells = F.boards[shown];
  const info = shown > 0 ? F.steps[shown - 1] : null;
  const mark = stepMarks(info);
  const starts = firstClicks();
  const targets = new Set();
  if (selected !== null) {
    for (const a of S.legal) if (S.clicks[a].length === 2 && S.clicks[a][0] === selected) targets.add(S.clicks[a][1]);
  }
  const drawn = S.typed || typeof cells === "string" ? null : paintBoard(cellEls, F, shown);  // units, terrain
  if (!S.typed) cellEls.forEach((g, i) => {
    let cls;
    if (drawn) {
      cls = g.getAttribute("class");
    } else {
      const [owner, power] = cellOwnerPower(cells[i]);
      g.setAttribute("data-owner", owner);
      g.setAttribute("data-power", String(power));
      cls = "cell " + (mark[i] || "");
      g.querySelector("text.power").textContent = owner && S.power ? String(power) : "";
    }
    if (selected === i) cls += " selected";
    else if (targets.has(i)) cls += " target";
    else if (selected === null && starts.has(i)) cls += " legal";
    g.setAttribute("class", cls);
  });
  document.querySelectorAll("#moves li").forEach((li, i) => li.classList.toggle("current", i === shown - 1));
  const idle = !animation && !S.thinking && !sending && shown === F.boards.length - 1;
  document.body.dataset.idle = idle ? "yes" : "no";
  document.body.dataset.shown = String(shown);
}

function seconds(s) { return s === null || s === undefined ? "\u2014" : s.toFixed(s < 10 ? 2 : 1) + " s"; }

function describe() {
  document.querySelector("#players .red-name").textContent = "RED: " + S.players.RED;
  document.querySelector("#players .blue-name").textContent = "BLUE: " + S.players.BLUE;
  let status;
  if (S.result) status = "Game over: " + S.result.message;
  else if (S.thinking) status = `${S.turn} (${S.players[S.turn]}) is thinking\u2026`;
  else status = `${S.turn} to move` + (S.humans.includes(S.turn) && !S.hot_seat ? " (you)" : "");
  document.getElementById("status").textContent = status;
  const body = document.querySelector("#clocks tbody");
  while (body.firstChild) body.removeChild(body.firstChild);
  for (const color of ["RED", "BLUE"]) {
    const c = S.clocks[color], tr = document.createElement("tr");
    if (S.turn === color) tr.className = "to-move";
    const cells = [color, c.who + (c.measure === "cpu" ? " (CPU)" : ""), seconds(c.used),
                   c.limit ? seconds(c.remaining) : "no limit"];
    cells.forEach((text, k) => {
      const td = document.createElement("td");
      td.textContent = text;
      if (k >= 2) td.className = "num";
      tr.appendChild(td);
    });
    if (S.turn === color && c.measure === "wall" && !S.result) {
      tr.dataset.ticking = "yes";  // a person's clock runs on between two answers of the server
      tr.dataset.used = String(c.used);
      tr.dataset.limit = c.limit === null ? "" : String(c.limit);
      tr.dataset.since = String(performance.now());
    }
    tr.dataset.color = color;
    body.appendChild(tr);
  }
  const moves = document.getElementById("moves");
  while (moves.children.length > S.frames.steps.length) moves.removeChild(moves.lastChild);
  S.frames.steps.forEach((s, i) => {
    let li = moves.children[i];
    if (!li) { li = document.createElement("li"); moves.appendChild(li); }
    if (li.dataset.action === s.action && li.dataset.player === s.player) return;
    while (li.firstChild) li.removeChild(li.firstChild);
    const who = document.createElement("span");
    who.className = s.player === "RED" ? "mv-red" : s.player === "BLUE" ? "mv-blue" : "mv-chance";
    who.textContent = s.player + " ";
    li.appendChild(who);
    li.appendChild(document.createTextNode(s.action));
    li.dataset.action = s.action;
    li.dataset.player = s.player;
  });
  const aside = moves.parentElement;  // the list scrolls to its end, the window stays where it is
  aside.scrollTop = aside.scrollHeight;
  document.getElementById("end").hidden = !S.result;
  document.getElementById("kept").textContent = S.kept
    ? ` \u00b7 kept as game ${S.kept.index + 1} of ${S.kept.file} (python -m referee replay ${S.kept.file} --game-index ${S.kept.index})`
    : "";
  if (S.result) askResign(false);  // nothing left to give up
  fillButtons();
  document.getElementById("undo").disabled = !!S.result || S.thinking;
  document.getElementById("resign").disabled = !!S.result || !document.getElementById("confirm-resign").hidden;
  document.getElementById("swap").hidden = S.hot_seat;
}

function update(state) {
  const fresh = !S || state.number !== S.number;
  S = state;
  if (fresh) { build(); shown = S.frames.boards.length - 1; selected = null; askResign(false); }
  if (shown > S.frames.boards.length - 1) { shown = S.frames.boards.length - 1; selected = null; }  // an undo
  if (!S.legal.length) selected = null;
  if (choosing.some(a => !S.legal.includes(a))) offer([], "");  // the position moved on
  if (rich()) shown = S.frames.boards.length - 1;  // the text board is the position now: nothing to animate
  describe();
  if (shown < S.frames.boards.length - 1 && !animation) {
    animation = setInterval(() => {
      shown += 1;
      if (shown >= S.frames.boards.length - 1) { clearInterval(animation); animation = null; }
      paint();
    }, ANIMATION_MS);
  }
  paint();
  if (S.thinking) waitForAgent();
}

async function waitForAgent() {
  if (waiting) return;
  waiting = true;
  let state;
  try { state = await api("GET", "/api/state?wait=1"); }
  catch (e) { say("lost the server: " + e.message, true); waiting = false; return; }
  waiting = false;
  update(state);
}

async function post(path, body) {
  sending = true;
  paint();
  try { update(await api("POST", path, body)); say(""); return true; }
  catch (e) { say(e.message, true); return false; }
  finally { sending = false; if (S) paint(); }
}

function send(action) {
  selected = null;
  offer([], "");
  post("/api/action", {action});
}

function clickCell(i) {
  if (!S || sending) return;
  if (S.result) { say("The game is over: start a new one.", true); return; }
  if (animation) return;
  if (S.thinking) { say(`Wait: ${S.turn} is thinking.`, true); return; }
  if (!S.legal.length) { say(`Not your turn: ${S.turn} is to move.`, true); return; }
  const is = (a, cells) => S.clicks[a].length === cells.length && S.clicks[a].every((c, k) => c === cells[k]);
  offer([], "");
  if (selected !== null) {
    // The second click: one action fits, it is played; several (or the first cell again, an Infinitron
    // unit's HEAL on itself), they are offered as buttons.
    const again = selected === i;
    const pairs = S.legal.filter(a => is(a, [selected, i]));
    if (pairs.length === 1 && !again) { send(pairs[0]); return; }
    if (pairs.length) { offer(pairs, again ? "On the unit itself:" : "These fit the two cells clicked:"); say(""); return; }
    selected = null;
    if (again) { say(""); paint(); return; }
  }
  const singles = S.legal.filter(a => is(a, [i]));
  const starting = S.legal.filter(a => S.clicks[a].length === 2 && S.clicks[a][0] === i);
  if (starting.length) {
    selected = i;
    const words = [...new Set(starting.map(kind))];
    say(words.length === 1 && words[0] === "SPREAD"
      ? "Now click a highlighted neighbour: the direction to spread (the same cell again: cancel)."
      : `Now click a highlighted cell to ${words.join(" or ")} (the same cell again: cancel).`);
    if (singles.length) offer(singles, "Or on this cell:");  // a unit standing where a CLAIM can go
    paint();
    return;
  }
  if (singles.length === 1) { send(singles[0]); return; }
  if (singles.length > 1) { offer(singles, "These fit this cell:"); say(""); return; }
  // No legal action starts here: ask anyway, so the rules themselves say why not.
  if (!S.cell_action) { say("No legal action starts on that cell.", true); return; }
  const c = S.frames.cells[i];
  send(S.cell_action.replace("{r}", c.r).replace("{q}", c.q));
}

document.getElementById("command").onsubmit = async (event) => {
  event.preventDefault();
  const input = document.getElementById("command-text");
  const text = input.value.trim();
  if (!text || !S || sending) return;
  if (S.result) { say("The game is over: start a new one.", true); return; }
  if (await post("/api/action", {action: text})) input.value = "";
};
document.getElementById("undo").onclick = () => post("/api/undo");
// Resigning ends the game at once: the button asks first, on the page (a dialog would stop the page's updates).
function askResign(show) {
  const box = document.getElementById("confirm-resign");
  if (show) {
    const side = S.hot_seat ? S.turn : S.humans[0];
    const other = side === "RED" ? "BLUE" : "RED";
    document.getElementById("confirm-text").textContent = `Resign as ${side}? ${other} wins the game.`;
  }
  box.hidden = !show;
  document.getElementById("resign").disabled = show || !!(S && S.result);
  if (show) document.getElementById("resign-no").focus();
}
document.getElementById("resign").onclick = () => { if (S && !S.result) askResign(true); };
document.getElementById("resign-no").onclick = () => askResign(false);
document.getElementById("resign-yes").onclick = async () => { askResign(false); await post("/api/resign"); };
document.addEventListener("keydown", e => { if (e.key === "Escape") askResign(false); });
document.getElementById("new").onclick = () => post("/api/new", {as: S.humans[0].toLowerCase()});
document.getElementById("swap").onclick = () => post("/api/new", {as: S.humans[0] === "RED" ? "blue" : "red"});

async function refresh() {
  // Keeps a second tab (and the clocks) current; the agent's reply itself comes through waitForAgent.
  if (waiting || sending) return;
  try { update(await api("GET", "/api/state")); }
  catch (e) { say("lost the server: " + e.message, true); }
}
function tick() {
  const tr = document.querySelector('#clocks tr[data-ticking="yes"]');
  if (!tr) return;
  const used = Number(tr.dataset.used) + (performance.now() - Number(tr.dataset.since)) / 1000;
  tr.children[2].textContent = seconds(used);
  if (tr.dataset.limit) tr.children[3].textContent = seconds(Math.max(0, Number(tr.dataset.limit) - used));
}

refresh();
setInterval(refresh, 2000);
setInterval(tick, 200);
