// The live page of `arena serve`: the games in progress of one results folder, as its
// feed sends them (Server-Sent Events), each drawn with the report's board script
// (board.js) from the referee's frames, its clocks counting down between moves.  An
// engine's text (its name, its info line) goes in with textContent, never as HTML; the
// standings come rendered and escaped by the report's own template.
(function () {
  "use strict";
  const draws = window.arenaBoard;
  const list = document.getElementById("live-games");
  const template = document.getElementById("live-game");
  const status = document.getElementById("live-status");
  const standings = document.getElementById("standings");
  const views = new Map();  // game id -> its section, board, last event and when it came
  const boards = new Map();  // board key -> its geometry, asked once

  function geometry(key) {
    if (!boards.has(key)) {
      boards.set(key, fetch("geometry/" + encodeURIComponent(key)).then(function (r) {
        if (!r.ok) throw new Error("no board " + key);
        return r.json();
      }));
    }
    return boards.get(key);
  }

  function cell(row, text, name) {
    const td = document.createElement("td");
    if (name) td.className = name;
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function clockText(ms) {
    const tenths = Math.max(0, Math.floor(ms / 100));
    const minutes = Math.floor(tenths / 600);
    const seconds = ((tenths % 600) / 10).toFixed(1);
    return minutes + ":" + (seconds.length < 4 ? "0" : "") + seconds;
  }

  function say() {
    const n = views.size;
    status.textContent = n === 0 ? "No game in progress." : n + (n === 1 ? " game" : " games") + " in progress.";
  }

  function show(game) {
    let view = views.get(game.id);
    if (!view) {
      const node = template.content.firstElementChild.cloneNode(true);
      node.dataset.game = game.id;
      list.appendChild(node);
      view = {node: node, drawn: null};
      views.set(game.id, view);
      say();
    }
    view.game = game;
    view.came = performance.now();
    if (view.drawn) render(view);
    else geometry(game.board).then(function (board) {
      if (!view.drawn && views.get(game.id) === view) view.drawn = draws.draw(view.node.querySelector("svg"), board);
      if (view.drawn) render(view);
    }).catch(function () { status.textContent = "a board could not be loaded; reload the page"; });
  }

  function render(view) {
    const game = view.game, node = view.node;
    const frames = game.frames.map(draws.expand);
    const states = draws.positions(frames, game.cells);
    const last = frames.length - 1;
    draws.paint(view.drawn, states[last], frames[last], frames[last].end || null);
    node.querySelector(".title").textContent =
      "Game " + game.id + " · round " + game.round + ": " + game.players.join(" vs ");
    node.querySelector(".status").textContent = frames[last].status || "";
    const seats = node.querySelector(".seats tbody");
    seats.textContent = "";
    game.players.forEach(function (name, seat) {
      const row = document.createElement("tr");
      row.dataset.seat = seat;
      if (seat === game.to_move) row.className = "to-move";
      cell(row, seat + (game.colours[seat] ? " (" + game.colours[seat] + ")" : ""));
      cell(row, name, "name player");
      cell(row, "", "clock");
      cell(row, game.said[seat] || "", "name said");
      seats.appendChild(row);
    });
    const moves = node.querySelector(".moves tbody");
    moves.textContent = "";
    game.moves.forEach(function (move, ply) {
      const row = document.createElement("tr");
      row.dataset.ply = ply;
      const k = ply - game.opening;
      cell(row, ply);
      cell(row, game.players[frames[ply + 1].seat], "name");
      cell(row, move, "name move");
      cell(row, k < 0 ? "book" : (k < game.times.length ? game.times[k] : ""));
      moves.appendChild(row);
    });
    const box = node.querySelector(".moves-box");
    box.scrollTop = box.scrollHeight;
    tick();
  }

  // The clocks: each seat's time left after the last move; the seat to move's runs down
  // from it by the time since the move (age_ms when the event was sent, then this page's).
  function tick() {
    const now = performance.now();
    views.forEach(function (view) {
      const game = view.game;
      const clocks = view.node.querySelectorAll(".seats td.clock");
      clocks.forEach(function (td, seat) {
        if (!game.clocks) { td.textContent = "—"; return; }
        const spent = seat === game.to_move ? game.age_ms + (now - view.came) : 0;
        td.textContent = clockText(game.clocks[seat] - spent);
      });
    });
  }
  setInterval(tick, 100);

  const feed = new EventSource("feed");
  feed.onopen = say;
  feed.onerror = function () { status.textContent = "reconnecting to the server…"; };
  feed.addEventListener("game", function (e) { show(JSON.parse(e.data)); });
  feed.addEventListener("over", function (e) {
    const id = JSON.parse(e.data).id;
    const view = views.get(id);
    if (view) {
      view.node.remove();
      views.delete(id);
    }
    say();
  });
  feed.addEventListener("standings", function (e) {
    standings.innerHTML = JSON.parse(e.data).html;  // rendered and escaped by the report's template
  });
  window.arenaLive = {games: function () { return Array.from(views.keys()); }};
})();
