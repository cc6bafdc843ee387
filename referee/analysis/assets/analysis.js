
// The analysis page (python -m referee analyse --html): run after the replay's script, in its scope (D, step,
// total, board, show).  Its own names live in this function, so none of them replaces one of the replay's.
(() => {
  const A = JSON.parse(document.getElementById("analysis-data").textContent);
  const NS = "http://www.w3.org/2000/svg";
  const graph = document.getElementById("graph");
  const marked = document.getElementById("marked");
  const note = document.getElementById("decision-note");
  // The graph's size in its own units, and its margins (the percentages on the left).
  const W = 800, H = 180, LEFT = 38, RIGHT = 8, TOP = 8, BOTTOM = 8;
  const span = Math.max(1, total);
  const gx = at => LEFT + (W - LEFT - RIGHT) * at / span;
  const gy = red => TOP + (H - TOP - BOTTOM) * (1 - red);
  const pct = chance => `${Math.round(100 * chance)}%`;
  const byStart = new Map(A.decisions.map(d => [d.start, d]));

  function node(tag, attrs, parent, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  }

  document.getElementById("engine-settings").textContent =
    `Judged by ${A.settings}. Each decision is compared with the engine's own from the same position.`;
  if (A.cut_short) {
    const cut = document.getElementById("cut-short");
    cut.textContent = `The game did not end by the rules (${A.cut_short}): its last decision is judged by ` +
      "the engine's view of the last position.";
    cut.hidden = false;
  }

  // -- the graph ---------------------------------------------------------------------------------------------
  graph.setAttribute("viewBox", `0 0 ${W} ${H}`);
  for (const level of [1, 0.75, 0.5, 0.25, 0]) {
    node("line", {class: level === 0.5 ? "even" : "grid", x1: LEFT, x2: W - RIGHT, y1: gy(level), y2: gy(level)}, graph);
    node("text", {class: "axis", x: LEFT - 4, y: gy(level)}, graph, pct(level));
  }
  // The area between the curve and 50 %, red where Red is ahead and blue where Blue is (each half clipped).
  const line = A.points.map(([at, red]) => `${gx(at)},${gy(red)}`).join(" ");
  const first = A.points[0][0], last = A.points[A.points.length - 1][0];
  const area = `${gx(first)},${gy(0.5)} ${line} ${gx(last)},${gy(0.5)}`;
  const halves = node("defs", {}, graph);
  node("rect", {x: 0, y: 0, width: W, height: gy(0.5)}, node("clipPath", {id: "red-ahead"}, halves));
  node("rect", {x: 0, y: gy(0.5), width: W, height: H - gy(0.5)}, node("clipPath", {id: "blue-ahead"}, halves));
  node("polygon", {class: "area red", points: area, "clip-path": "url(#red-ahead)"}, graph);
  node("polygon", {class: "area blue", points: area, "clip-path": "url(#blue-ahead)"}, graph);
  node("polyline", {class: "curve", points: line}, graph);
  const turning = A.decisions.find(d => d.turning);
  if (turning) {
    node("line", {class: "turning", x1: gx(turning.start), x2: gx(turning.start), y1: TOP, y2: H - BOTTOM}, graph);
  }
  const cursor = node("line", {class: "cursor", y1: TOP, y2: H - BOTTOM}, graph);
  // The dots as big as the game leaves room for: a long game's would hide its curve.
  const room = (W - LEFT - RIGHT) / Math.max(1, A.points.length - 1);
  const small = Math.min(2.5, Math.max(1.2, room * 0.4)), big = Math.min(4.5, Math.max(2.2, room * 0.8));
  const dots = A.points.map(([at, red]) => {
    const d = byStart.get(at);
    const kind = d ? ` ${d.severity || ""}${d.turning ? " turning" : ""}` : "";
    const dot = node("circle", {class: "point" + kind, cx: gx(at), cy: gy(red), r: d ? big : small, "data-step": at}, graph);
    node("title", {}, dot, `after ${at} actions: Red ${pct(red)}` + (d ? `; ${d.color} to decide` : ""));
    return dot;
  });
  graph.addEventListener("click", e => {
    // The point nearest the click along the game: in a long game the points are closer together than a pointer.
    const at = new DOMPoint(e.clientX, e.clientY).matrixTransform(graph.getScreenCTM().inverse()).x;
    let nearest = 0;
    A.points.forEach(([s], k) => { if (Math.abs(gx(s) - at) < Math.abs(gx(A.points[nearest][0]) - at)) nearest = k; });
    show(A.points[nearest][0]);
  });

  // -- the list of marked decisions ---------------------------------------------------------------------------
  const items = A.decisions.map(d => {
    const li = document.createElement("li");
    li.className = "decision";
    li.dataset.step = String(d.start);
    if (d.severity) node2("span", `sev ${d.severity}`, li, d.severity);
    if (d.turning) node2("span", "sev turning", li, "turning point");
    node2("span", "where", li, d.label);
    node2("span", d.color === "RED" ? "mv-red" : "mv-blue", li, d.color);
    node2("span", "played", li, `${d.played} (${pct(d.after)})`);
    if (d.better) node2("span", "better", li, `engine: ${d.better} (${pct(d.engine_after)})`);
    li.addEventListener("click", () => show(d.start));
    marked.appendChild(li);
    return li;
  });
  if (!items.length) {
    node2("li", "none", marked, `No decision cost its side ${pct(A.inaccuracy)} or more of its chance of winning.`);
  }

  function node2(tag, cls, parent, text) {
    const e = document.createElement(tag);
    e.className = cls;
    e.textContent = text;
    parent.appendChild(e);
    return e;
  }

  // -- the decisions drawn on the board -----------------------------------------------------------------------
  const layer = node("g", {id: "decision-marks"}, board);  // last: above the cells and the territories
  const defs = node("defs", {}, layer);
  for (const who of ["played", "engine"]) {
    const marker = node("marker", {id: `head-${who}`, viewBox: "0 0 10 10", refX: 7, refY: 5, markerWidth: 4,
                                   markerHeight: 4, orient: "auto-start-reverse"}, defs);
    node("path", {class: `head ${who}`, d: "M 0 0 L 10 5 L 0 10 z"}, marker);
  }
  const shapes = node("g", {}, layer);

  function cellAttrs(i, cls) {
    return {class: cls, "data-index": i, "data-r": D.cells[i].r, "data-q": D.cells[i].q};
  }

  function drawActions(actions, who) {
    // Each action: a ring on its cell (where it acts, else where it aims), an arrow from there to the first cell
    // it reaches, and an outline on each cell reached.
    for (const a of actions) {
      const at = a.source !== null && a.source !== undefined ? a.source : a.path[0];
      const c = D.cells[at];
      node("circle", {...cellAttrs(at, `mark ${who} at`), cx: c.x, cy: c.y, r: HEX_R * 0.62}, shapes);
      for (const i of a.path) {
        if (i !== at) node("polygon", {...cellAttrs(i, `mark ${who} reach`), points: hexPoints(D.cells[i], HEX_R * 0.8)}, shapes);
      }
      if (a.path.length && a.path[0] !== at) {
        const to = D.cells[a.path[0]], dx = to.x - c.x, dy = to.y - c.y, len = Math.hypot(dx, dy);
        const cut = Math.min(0.3, len / 3);  // from the ring's edge, stopping short of the cell's centre
        node("line", {class: `mark ${who} arrow`, x1: c.x + dx * cut / len, y1: c.y + dy * cut / len,
                      x2: to.x - dx * cut / len, y2: to.y - dy * cut / len, "marker-end": `url(#head-${who})`}, shapes);
      }
    }
  }

  function follow(n) {
    cursor.setAttribute("x1", gx(n));
    cursor.setAttribute("x2", gx(n));
    dots.forEach((dot, k) => dot.classList.toggle("current", A.points[k][0] === n));
    items.forEach(li => li.classList.toggle("current", li.dataset.step === String(n)));
    shapes.replaceChildren();
    const d = byStart.get(n);
    if (!d) { note.textContent = ""; return; }
    // The decision made from this position: the one played (from the replay's own steps) and the engine's.
    drawActions(D.steps.slice(d.start, d.end).filter(s => s.source !== null && s.source !== undefined || s.path.length),
                "played");
    drawActions(d.engine, "engine");
    const mark = [d.severity, d.turning ? "the turning point" : null].filter(x => x).join(", ");
    note.textContent = `${d.label}, ${d.color} to decide (${mark}): played ${d.played}, ${d.color}'s chance after it ` +
      `${pct(d.after)} (solid arrows and rings)` + (d.better ? `; the engine's ${d.better}: ${pct(d.engine_after)} ` +
      "(dashed)" : "") + ". The next step plays it.";
    const li = items.find(x => x.dataset.step === String(n));
    if (li) li.scrollIntoView({block: "nearest"});
  }

  document.addEventListener("replay-step", e => follow(e.detail));
  follow(step);
})();
