// A board as the referee described it (boards.py's geometry: boards/<key>.js or a page's
// data), drawn into an <svg>: its streets, its cells (each with its name, index and the
// data-state the stylesheet colours), coloured edges and labels.  The game viewer and the
// play page both draw with it; neither knows a game.
window.arenaBoard = (function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    parent.appendChild(node);
    return node;
  }

  // Returns the cells' nodes by index and the layer they are drawn in (a cell moved to its
  // end is drawn on top of its neighbours).
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
    return {cells: cells, layer: layer};
  }

  return {el: el, draw: draw};
})();
