
"use strict";
const ASCENDING_FIRST = new Set(["rank", "game", "round", "agent", "opponent", "RED", "BLUE", "Red",
  "Blue", "code", "reached", "higher seed", "lower seed", "result", "reason", "folder"]);
function sortKey(text) {
  const t = text.trim().replace(/^[\u00b1+]/, "");
  if (t === "" || t === "\u2014") return null;
  if (t === "inf") return Infinity;
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  return t.toLowerCase();
}
function compare(a, b) {
  if (typeof a === typeof b) return a < b ? -1 : a > b ? 1 : 0;
  return typeof a === "number" ? -1 : 1;
}
for (const table of document.querySelectorAll("table.sortable")) {
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  rows.forEach((row, i) => { row.dataset.order = i; });
  const heads = Array.from(table.tHead.rows[0].cells);
  heads.forEach((th, column) => {
    if (!th.textContent.trim()) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "sort";
    button.textContent = th.textContent;
    button.title = "sort by " + th.textContent;
    th.textContent = "";
    th.appendChild(button);
    th.setAttribute("aria-sort", "none");
    button.addEventListener("click", () => {
      const was = th.getAttribute("aria-sort");
      const first = ASCENDING_FIRST.has(button.textContent) ? "ascending" : "descending";
      const now = was === "none" ? first : was === "ascending" ? "descending" : "ascending";
      heads.forEach(h => h.setAttribute("aria-sort", "none"));
      th.setAttribute("aria-sort", now);
      const sign = now === "ascending" ? 1 : -1;
      const text = row => row.cells[column] ? row.cells[column].textContent : "";
      const keyed = Array.from(body.rows, row => [sortKey(text(row)), row]);
      keyed.sort(([a, ra], [b, rb]) => {
        // Empty cells last either way; equal keys keep the table's own order.
        if (a === null || b === null) return (a === null) - (b === null) || ra.dataset.order - rb.dataset.order;
        return sign * compare(a, b) || ra.dataset.order - rb.dataset.order;
      });
      for (const [, row] of keyed) body.appendChild(row);
    });
  });
}
const search = document.getElementById("standings-search");
const standings = document.getElementById("standings");
const titles = standings ? Array.from(standings.tHead.rows[0].cells, th => th.textContent) : [];
const column = titles.indexOf("agent");
if (search && column >= 0) {
  const count = document.getElementById("standings-count");
  const total = standings.tBodies[0].rows.length;
  const filter = () => {
    const wanted = search.value.trim().toLowerCase();
    let shown = 0;
    for (const row of standings.tBodies[0].rows) {
      const hit = row.cells[column].textContent.toLowerCase().includes(wanted);
      row.hidden = !hit;
      shown += hit;
    }
    count.textContent = wanted ? `${shown} of ${total} agents` : `${total} agents`;
  };
  search.addEventListener("input", filter);
  document.getElementById("find").hidden = false;
  filter();
}
