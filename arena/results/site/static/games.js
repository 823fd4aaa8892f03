// The games list: filters and pages the compact index (data/games-index.js) in the browser.
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
    page = 0;
    render();
  }

  function render() {
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.max(0, Math.min(page, pages - 1));
    body.replaceChildren();
    for (const g of shown.slice(page * PAGE, (page + 1) * PAGE)) {
      const row = document.createElement("tr");
      const link = document.createElement("a");
      link.href = "games/" + g[0] + ".html";
      link.textContent = g[0];
      cell(row, "").appendChild(link);
      cell(row, g[1]);
      const players = g[2].map(function (p) { return index.engines[p]; });
      cell(row, players.join(" vs "), "name");
      cell(row, g[4] >= 0 ? players[g[4]] + " wins" : "no single winner", "name");
      cell(row, index.terminations[g[3]]);
      cell(row, g[5]);
      cell(row, g[6], "name");
      body.appendChild(row);
    }
    document.getElementById("count").textContent = shown.length + " of " + index.games.length + " games";
    document.getElementById("page").textContent = "page " + (page + 1) + " of " + pages;
  }

  engine.onchange = filter;
  termination.onchange = filter;
  document.getElementById("prev").onclick = function () { page -= 1; render(); };
  document.getElementById("next").onclick = function () { page += 1; render(); };
  filter();
})();
