
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
      // A game whose cells hold one stone each (Cachex) says so in its frames: no number on its cells.
      g.querySelector("text.power").textContent = owner && F.powers !== false ? String(power) : "";
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
