// The board drawing the game viewer (viewer.js), the live page and the play page of `arena serve` share:
// the board the referee described (boards/<key>.js, or the live feed's geometry) drawn as
// SVG, and a position painted on it from the referee's frames.  It computes no rules; text
// goes in with textContent, never parsed as HTML.
window.arenaBoard = (function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    parent.appendChild(node);
    return node;
  }

  // The board's cells, edges and labels in `svg`; returns what paint() needs.
  function draw(svg, board) {
    svg.classList.add(board.kind);  // "cells" or "points": the stylesheet draws each kind
    svg.setAttribute("viewBox", `0 0 ${board.width} ${board.height}`);
    for (const s of board.streets) el("line", {x1: s[0], y1: s[1], x2: s[2], y2: s[3], class: "street"}, svg);
    const layer = el("g", {}, svg);
    const cells = board.cells.map(function (c, i) {
      const attrs = {"data-cell": c.name, "data-index": i, "data-state": ""};
      const node = board.kind === "points"
        ? el("circle", Object.assign(attrs, {cx: c.x, cy: c.y, r: board.radius}), layer)
        : el("polygon", Object.assign(attrs, {points: c.outline}), layer);
      el("title", {}, node).textContent = c.name;
      return node;
    });
    for (const e of board.edges) el("line", {x1: e[0], y1: e[1], x2: e[2], y2: e[3], class: "edge-" + e[4]}, svg);
    for (const l of board.labels) el("text", {x: l[0], y: l[1], class: "label"}, svg).textContent = l[2];
    return {board: board, layer: layer, cells: cells};
  }

  // A short frame [seat, cell, code, status?] is a move that only put a piece on its cell.
  function expand(f) {
    return Array.isArray(f) ? {seat: f[0], set: [[f[1], f[2]]], last: [f[1]], status: f[3]} : f;
  }

  // The contents of every cell at every ply, from the frames' changes.
  function positions(frames, count) {
    const states = [];
    let current = new Array(count).fill("");
    for (const frame of frames) {
      current = current.slice();
      for (const [i, code] of frame.set) current[i] = code;
      states.push(current);
    }
    return states;
  }

  // One position on the drawn board: its cells, the move's marks, and `ending`'s marks if given.
  function paint(drawn, state, frame, ending) {
    const cells = drawn.cells, layer = drawn.layer, statics = drawn.board.static;
    cells.forEach(function (node, i) {
      node.setAttribute("class", "cell " + (statics[i] || ""));
      node.setAttribute("data-state", state[i]);
      node.removeAttribute("data-gone");
    });
    for (const i of frame.last || []) cells[i].classList.add("last");
    for (const [i, code] of frame.gone || []) {
      cells[i].classList.add("gone");
      cells[i].setAttribute("data-gone", code);
    }
    for (const i of frame.kept || []) cells[i].classList.add("kept");
    // Outlined cells on top, the move's own last, so no neighbour covers their outline.
    for (const [i] of frame.gone || []) layer.appendChild(cells[i]);
    for (const i of frame.last || []) layer.appendChild(cells[i]);
    if (ending) {
      for (const mark in ending.marks) {
        for (const i of ending.marks[mark]) {
          cells[i].classList.add("end", mark);
          layer.appendChild(cells[i]);  // on top, so the highlight is not covered
        }
      }
      for (const i of frame.last || []) layer.appendChild(cells[i]);  // but the move's own above all
    }
  }

  return {el: el, draw: draw, expand: expand, positions: positions, paint: paint};
})();
