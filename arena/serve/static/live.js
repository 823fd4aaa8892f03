// The live page of `arena serve`: the games in progress of one results folder, as its
// feed sends them (Server-Sent Events): each game whole once, then its new moves, added
// to what the page holds; each drawn with the report's board script (board.js) from the
// referee's frames, its clocks counting down between moves.  An engine's text (its name,
// its info line) goes in with textContent, never as HTML; the standings come rendered and
// escaped by the report's own template.
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

  // A game whole: a page that just came, a new game, or a page set right after a gap.
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
    view.frames = game.frames.map(draws.expand);
    view.state = null;  // the board's cells, worked out afresh from the frames
    view.came = performance.now();
    const seats = view.node.querySelector(".seats tbody");
    seats.textContent = "";
    game.players.forEach(function (name, seat) {
      const row = document.createElement("tr");
      row.dataset.seat = seat;
      cell(row, "", "seat");
      cell(row, name, "name player");
      cell(row, "", "clock");
      cell(row, "", "name said");
      seats.appendChild(row);
    });
    view.node.querySelector(".title").textContent =
      "Game " + game.id + " · round " + game.round + ": " + game.players.join(" vs ");
    view.node.querySelector(".moves tbody").textContent = "";
    addRows(view, 0);
    if (view.drawn) paint(view);
    else geometry(game.board).then(function (board) {
      if (!view.drawn && views.get(game.id) === view) view.drawn = draws.draw(view.node.querySelector("svg"), board);
      if (view.drawn) paint(view);
    }).catch(function () { status.textContent = "a board could not be loaded; reload the page"; });
  }

  // A game's new moves: added to what the page holds, which must be every move before them.
  function advance(news) {
    const view = views.get(news.id);
    if (!view || view.game.moves.length !== news.from) return false;
    const game = view.game, from = game.moves.length;
    game.moves.push.apply(game.moves, news.moves);
    game.times.push.apply(game.times, news.times);
    view.frames.push.apply(view.frames, news.frames.map(draws.expand));
    ["clocks", "to_move", "said", "colours", "age_ms", "played_at"].forEach(function (key) { game[key] = news[key]; });
    view.came = performance.now();
    addRows(view, from);
    if (view.drawn) paint(view);
    return true;
  }

  // The move list's rows from ply `from` on.
  function addRows(view, from) {
    const game = view.game, frames = view.frames;
    const moves = view.node.querySelector(".moves tbody");
    for (let ply = from; ply < game.moves.length; ply++) {
      const row = document.createElement("tr");
      row.dataset.ply = ply;
      const k = ply - game.opening;
      cell(row, ply);
      cell(row, game.players[frames[ply + 1].seat], "name");
      cell(row, game.moves[ply], "name move");
      cell(row, k < 0 ? "book" : (k < game.times.length ? game.times[k] : ""));
      moves.appendChild(row);
    }
    const box = view.node.querySelector(".moves-box");
    box.scrollTop = box.scrollHeight;
  }

  // The board as it stands, the seats' colours, the seat to move and the engines' last words.
  function paint(view) {
    const game = view.game, frames = view.frames, node = view.node;
    const last = frames.length - 1;
    if (!view.state || view.painted > last) {
      view.state = draws.positions(frames, game.cells)[last];
    } else {
      view.state = view.state.slice();
      for (let k = view.painted + 1; k <= last; k++) for (const [i, code] of frames[k].set) view.state[i] = code;
    }
    view.painted = last;
    draws.paint(view.drawn, view.state, frames[last], frames[last].end || null);
    node.querySelector(".status").textContent = frames[last].status || "";
    node.querySelectorAll(".seats tbody tr").forEach(function (row, seat) {
      row.className = seat === game.to_move ? "to-move" : "";
      row.querySelector("td.seat").textContent = seat + (game.colours[seat] ? " (" + game.colours[seat] + ")" : "");
      row.querySelector("td.said").textContent = game.said[seat] || "";
    });
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

  // The feed: each game whole when the page comes (and after a gap the server could not
  // fill), then each game's new moves.  A move that does not follow what the page holds
  // (never expected) makes the page start afresh: a new EventSource is sent every game whole.
  const received = {games: 0, game: 0, moves: 0, standings: 0, over: 0};
  let feed = null;
  function listen() {
    feed = new EventSource("feed");
    feed.onopen = say;
    feed.onerror = function () { status.textContent = "reconnecting to the server…"; };
    feed.addEventListener("games", function (e) {
      received.games++;
      const on = new Set(JSON.parse(e.data).ids);
      views.forEach(function (view, id) { if (!on.has(id)) drop(id); });
      say();
    });
    feed.addEventListener("game", function (e) { received.game++; show(JSON.parse(e.data)); });
    feed.addEventListener("moves", function (e) {
      received.moves++;
      if (!advance(JSON.parse(e.data))) {
        feed.close();
        listen();
      }
    });
    feed.addEventListener("over", function (e) {
      received.over++;
      drop(JSON.parse(e.data).id);
      say();
    });
    feed.addEventListener("standings", function (e) {
      received.standings++;
      standings.innerHTML = JSON.parse(e.data).html;  // rendered and escaped by the report's template
    });
  }
  function drop(id) {
    const view = views.get(id);
    if (view) {
      view.node.remove();
      views.delete(id);
    }
  }
  listen();
  window.arenaLive = {
    games: function () { return Array.from(views.keys()); },
    received: received,  // events by kind, for the tests: a move came as news, not the game again
  };
})();
