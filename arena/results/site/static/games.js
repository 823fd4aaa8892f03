// The games list: filters, sorts and pages the compact index (data/games-index.js) in the
// browser (sorting all the games, not just the page shown; tables.js draws the headers).
// Text goes in with textContent, so nothing in it is ever parsed as HTML.
(function () {
  "use strict";
  const index = window.ARENA_INDEX;
  const PAGE = 100;
  const body = document.querySelector("#games tbody");
  const engine = document.getElementById("f-engine");
  const termination = document.getElementById("f-termination");
  let page = 0;
  let shown = index.games;

  function cell(row, text, cls) {
    const td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function filter() {
    const e = engine.value === "" ? null : Number(engine.value);
    const t = termination.value === "" ? null : index.terminations.indexOf(termination.value);
    shown = index.games.filter(function (g) {
      return (e === null || g[2].indexOf(e) >= 0) && (t === null || g[3] === t);
    });
    if (sorted) shown = window.ARENA_TABLES.sortBy(shown, COLUMNS[sorted.column], sorted.direction);
    page = 0;
    render();
  }

  function players(g) { return g[2].map(function (p) { return index.engines[p]; }); }
  function result(g) { return g[4] >= 0 ? players(g)[g[4]] + " wins" : "no single winner"; }
  // What each column of the table shows (and sorts by), from a game's row of the index.
  const COLUMNS = [
    function (g) { return g[0]; },
    function (g) { return g[1]; },
    function (g) { return players(g).join(" vs "); },
    result,
    function (g) { return index.terminations[g[3]]; },
    function (g) { return g[5]; },
    function (g) { return g[6]; },
  ];
  let sorted = null;  // {column, direction} once a header was clicked

  function render() {
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.max(0, Math.min(page, pages - 1));
    body.replaceChildren();
    for (const g of shown.slice(page * PAGE, (page + 1) * PAGE)) {
      const row = document.createElement("tr");
      const link = document.createElement("a");
      link.href = "games/" + Math.floor(g[0] / index.list_size) + ".html?game=" + g[0];
      link.textContent = g[0];
      cell(row, "").appendChild(link);
      cell(row, COLUMNS[1](g));
      cell(row, COLUMNS[2](g), "name");
      cell(row, COLUMNS[3](g), "name");
      cell(row, COLUMNS[4](g));
      cell(row, COLUMNS[5](g));
      cell(row, COLUMNS[6](g), "name");
      body.appendChild(row);
    }
    document.getElementById("count").textContent = shown.length + " of " + index.games.length + " games";
    document.getElementById("page").textContent = "page " + (page + 1) + " of " + pages;
  }

  engine.onchange = filter;
  termination.onchange = filter;
  document.getElementById("prev").onclick = function () { page -= 1; render(); };
  document.getElementById("next").onclick = function () { page += 1; render(); };
  window.ARENA_TABLES.sortable(document.getElementById("games"), function (column, direction) {
    sorted = { column: column, direction: direction };
    filter();
  });
  filter();
})();
