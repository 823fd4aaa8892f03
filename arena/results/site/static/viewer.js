// The game viewer: draws the board the referee described (boards/<key>.js) and the
// positions it computed (the page's game-data), one ply at a time.  It computes no
// rules; it only applies each frame's cell changes and shows its marks.
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const board = window.ARENA_BOARD;
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const frames = data.frames;
  const last = frames.length - 1;
  const svg = document.getElementById("board");

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    parent.appendChild(node);
    return node;
  }

  svg.classList.add(board.kind);  // "cells" or "points": the stylesheet draws each kind
  svg.setAttribute("viewBox", `0 0 ${board.width} ${board.height}`);
  svg.setAttribute("width", Math.round(board.width * 1.5));
  svg.setAttribute("height", Math.round(board.height * 1.5));
  for (const s of board.streets) el("line", {x1: s[0], y1: s[1], x2: s[2], y2: s[3], class: "street"}, svg);
  const cellLayer = el("g", {}, svg);
  const cells = board.cells.map(function (c, i) {
    const attrs = {"data-cell": c.name, "data-index": i, "data-state": ""};
    const node = board.kind === "points"
      ? el("circle", Object.assign(attrs, {cx: c.x, cy: c.y, r: board.radius}), cellLayer)
      : el("polygon", Object.assign(attrs, {points: c.outline}), cellLayer);
    el("title", {}, node).textContent = c.name;
    return node;
  });
  for (const e of board.edges) el("line", {x1: e[0], y1: e[1], x2: e[2], y2: e[3], class: "edge-" + e[4]}, svg);
  for (const l of board.labels) el("text", {x: l[0], y: l[1], class: "label"}, svg).textContent = l[2];

  // The contents of every cell at every ply, from the frames' changes.
  const states = [];
  let current = new Array(data.cells).fill("");
  for (const frame of frames) {
    current = current.slice();
    for (const [i, code] of frame.set) current[i] = code;
    states.push(current);
  }

  // The move list: text goes in with textContent, never parsed as HTML.
  const moveBody = document.querySelector("#moves tbody");
  const withClock = data.moves.some(function (m) { return m[4] !== null; });
  const withInfo = data.moves.some(function (m) { return m[6] !== ""; });
  for (const [number, seat, move, ms, clock, book, info] of data.moves) {
    const row = document.createElement("tr");
    row.dataset.ply = number;  // counted from 0, as in the records
    row.dataset.position = number + 1;  // the plies played once it is
    const texts = [number, data.players[seat], move, book ? "book" : (ms === null ? "" : ms)];
    if (withClock) texts.push(clock === null ? "" : clock);
    if (withInfo) texts.push(info);
    texts.forEach(function (text, k) {
      const td = document.createElement("td");
      if (k === 1 || k === 2 || (withInfo && k === texts.length - 1)) td.className = "name";
      td.textContent = text;
      row.appendChild(td);
    });
    moveBody.appendChild(row);
  }

  const plyInput = document.getElementById("ply");
  const status = document.getElementById("status");
  const end = document.getElementById("end");
  const rows = Array.from(document.querySelectorAll("#moves tr[data-position]"));
  let ply = last;

  function show(k) {
    ply = Math.max(0, Math.min(last, k));
    const state = states[ply];
    const frame = frames[ply];
    cells.forEach(function (node, i) {
      node.setAttribute("class", "cell " + (board.static[i] || ""));
      node.setAttribute("data-state", state[i]);
      node.removeAttribute("data-gone");
    });
    for (const i of frame.last || []) cells[i].classList.add("last");
    for (const [i, code] of frame.gone || []) {
      cells[i].classList.add("gone");
      cells[i].setAttribute("data-gone", code);
    }
    for (const i of frame.kept || []) cells[i].classList.add("kept");
    const ending = ply === last ? frame.end : null;
    end.hidden = !(ending && ending.reveal);
    end.textContent = ending ? ending.reveal : "";
    if (ending) {
      for (const mark in ending.marks) {
        for (const i of ending.marks[mark]) {
          cells[i].classList.add(mark);
          cellLayer.appendChild(cells[i]);  // on top, so the highlight is not covered
        }
      }
    }
    status.textContent = frame.status || "";
    plyInput.value = ply;
    rows.forEach(function (row) { row.classList.toggle("current", Number(row.dataset.position) === ply); });
    const row = rows[ply];
    if (row && row.scrollIntoView) row.scrollIntoView({block: "nearest"});
    if (history.replaceState) history.replaceState(null, "", "#played=" + ply);
  }

  document.getElementById("first").onclick = function () { show(0); };
  document.getElementById("back").onclick = function () { show(ply - 1); };
  document.getElementById("forward").onclick = function () { show(ply + 1); };
  document.getElementById("last").onclick = function () { show(last); };
  plyInput.onchange = function () { show(Number(plyInput.value) || 0); };
  rows.forEach(function (row) { row.onclick = function () { show(Number(row.dataset.position)); }; });
  document.addEventListener("keydown", function (event) {
    if (event.target === plyInput) return;
    const moves = {ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity};
    if (event.key in moves) {
      event.preventDefault();
      const step = moves[event.key];
      show(Number.isFinite(step) ? ply + step : (step < 0 ? 0 : last));
    }
  });
  const wanted = /(?:played|ply)=(\d+)/.exec(location.hash);  // #ply=: links from before the rename
  show(wanted ? Number(wanted[1]) : last);
  window.arenaViewer = {show: show, plies: last, ply: function () { return ply; }};
})();
