// A game played by clicking.  The board is drawn by board.js from the referee's geometry;
// the server's view of the game (its board, moves, clocks, and on the person's turn every
// legal move with the cells it names, in click order) says everything else.  A move is
// the cells clicked in order: each click narrows the legal moves that start with the cells
// clicked so far; a move that names no cell (a swap, a pass) is a button.  Clicks that are
// no legal move are sent as they are, and the referee's reason is shown.  It knows no game.
(function () {
  "use strict";
  const $ = function (id) { return document.getElementById(id); };
  const data = JSON.parse($("play-data").textContent);
  const board = data.board;
  const base = "/play/game/" + encodeURIComponent(data.id);
  const svg = $("board");
  const drawn = window.arenaBoard.draw(svg, board);
  const cells = drawn.cells;
  const names = board.cells.map(function (c) { return c.name; });
  let view = null;
  let picked = [];  // the cells clicked so far for the move being made
  let receivedAt = 0;

  function mine() {
    return view !== null && view.to_move !== null && view.to_move === view.seat && !view.result;
  }

  function startsWith(list, prefix) {
    return prefix.every(function (c, k) { return list[k] === c; });
  }

  // Legal moves that go on from the cells picked, and the moves the picks complete.
  function going(extra) {
    const prefix = extra === undefined ? picked : picked.concat([extra]);
    const on = view.legal.filter(function (m) { return m[1].length >= prefix.length && startsWith(m[1], prefix); });
    return {prefix: prefix, on: on, done: on.filter(function (m) { return m[1].length === prefix.length; })};
  }

  function say(text) { $("message").textContent = text; }

  async function post(path, body) {
    const answer = await fetch(base + path, {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
    });
    return {ok: answer.ok, reply: await answer.json()};
  }

  async function play(body) {
    picked = [];
    drawPicks();
    const sent = await post("/move", body);
    say(sent.ok ? "" : sent.reply.error);
  }

  function drawPicks() {
    cells.forEach(function (node, i) {
      node.classList.toggle("picked", picked.includes(i));
      node.classList.remove("target");
    });
    $("clear").hidden = !picked.length;
    const actions = $("actions");
    actions.textContent = "";
    if (!mine()) return;
    if (picked.length) {
      const g = going();
      for (const m of g.on) if (m[1].length > picked.length) cells[m[1][picked.length]].classList.add("target");
      for (const m of g.done) actions.appendChild(button("play " + m[0], m[0]));
    } else {
      for (const m of view.legal) if (!m[1].length) actions.appendChild(button(m[0], m[0]));
    }
  }

  function button(text, move) {
    const node = document.createElement("button");
    node.type = "button";
    node.textContent = text;
    node.dataset.move = move;
    node.onclick = function () { play({move: move}); };
    return node;
  }

  function click(i) {
    if (view === null || view.result) return;
    if (!mine()) { say(`wait: it is ${view.players[view.to_move]}'s turn`); return; }
    const g = going(i);
    if (!g.on.length) {  // no legal move: the referee says why
      play({cells: g.prefix.map(function (c) { return names[c]; })});
      return;
    }
    say("");
    if (g.done.length === 1 && g.on.length === 1) { play({move: g.done[0][0]}); return; }
    picked = g.prefix;  // more to click, or a choice between moves these cells make
    drawPicks();
  }

  function hover(i) {
    if (!mine()) { $("hover").textContent = ""; return; }
    const g = going(i);
    cells.forEach(function (node) { node.classList.remove("legal", "illegal"); });
    cells[i].classList.add(g.on.length ? "legal" : "illegal");
    const moves = g.on.map(function (m) { return m[0]; });
    $("hover").textContent = moves.length
      ? `${names[i]}: ${moves.slice(0, 8).join(" ")}${moves.length > 8 ? ` and ${moves.length - 8} more` : ""}`
      : `${names[i]}: no legal move ${picked.length ? "goes on" : "starts"} here`;
  }

  cells.forEach(function (node, i) {
    node.addEventListener("click", function () { click(i); });
    node.addEventListener("mouseenter", function () { hover(i); });
  });
  svg.addEventListener("mouseleave", function () {
    cells.forEach(function (node) { node.classList.remove("legal", "illegal"); });
    $("hover").textContent = "";
  });
  $("clear").onclick = function () { picked = []; drawPicks(); };
  $("resign").onclick = async function () {
    if (view && !view.result) await post("/resign", {});
  };
  $("new-game").onclick = async function (event) {  // a game left running is resigned, not left to time out
    if (!view || view.result) return;
    event.preventDefault();
    await post("/resign", {});
    location.href = $("new-game").href;
  };

  function render() {
    const v = view;
    $("resign").disabled = !!v.result || v.cells === null;
    const seats = $("seats");
    seats.textContent = "";
    v.players.forEach(function (name, s) {
      const item = document.createElement("li");
      item.dataset.seat = s;
      item.classList.toggle("to-move", v.to_move === s);
      item.classList.toggle("you", v.seat === s);
      const colour = (v.colours || [])[s];
      const swatch = document.createElement("span");
      swatch.className = "swatch " + (colour || "");
      item.appendChild(swatch);
      const who = document.createElement("strong");
      who.className = "player";
      who.textContent = name;
      item.append(` seat ${s}${colour ? " (" + colour + ")" : ""}: `, who, v.seat === s ? " (you) " : " ");
      const clock = document.createElement("span");
      clock.className = "clock";
      item.appendChild(clock);
      seats.appendChild(item);
    });
    if (v.cells !== null) {
      cells.forEach(function (node, i) {
        node.setAttribute("class", "cell " + (board.static[i] || ""));
        node.setAttribute("data-state", v.cells[i]);
      });
      for (const i of v.last || []) cells[i].classList.add("last");
      for (const mark in v.marks || {}) for (const i of v.marks[mark]) cells[i].classList.add("end", mark);
    }
    const body = $("moves").tBodies[0];
    body.textContent = "";
    (v.moves || []).forEach(function (move, ply) {
      const row = document.createElement("tr");
      const seat = (v.movers || [])[ply];
      for (const text of [ply, seat === null || seat === undefined ? "" : v.players[seat], move]) {
        const td = document.createElement("td");
        td.textContent = text;
        row.appendChild(td);
      }
      row.children[1].className = row.children[2].className = "name";
      body.appendChild(row);
    });
    $("moves-box").scrollTop = $("moves-box").scrollHeight;
    $("private").hidden = !v.private.length;
    $("private").textContent = v.private.length ? "Only you see: " + v.private.join("; ") : "";
    $("status").textContent = v.status || "";
    $("result").hidden = !v.result;
    $("result").textContent = v.result || "";
    $("end").hidden = !v.reveal;
    $("end").textContent = v.reveal || "";
    $("stored").hidden = !v.result;
    $("stored").textContent = v.result ? (v.problem || "Stored in " + v.folder) : "";
    if (!v.result && v.to_move !== null) {
      say(mine() ? (picked.length ? "" : "Your move.") : `${v.players[v.to_move]} is thinking.`);
    } else if (v.result) {
      say("");
    }
    drawPicks();
    tick();
  }

  // The clocks: the mover's counts down from what the match gave it when its turn began.
  function tick() {
    if (view === null || !view.clock) {
      for (const node of document.querySelectorAll("#seats .clock")) node.textContent = "";
      return;
    }
    const c = view.clock;
    const thought = c.thinking_ms + (performance.now() - receivedAt);
    document.querySelectorAll("#seats li").forEach(function (item, s) {
      let ms = null;
      if (c.left_ms) ms = c.left_ms[s] - (s === c.seat ? thought : 0);
      else if (c.movetime_ms !== null && s === c.seat) ms = c.movetime_ms - thought;
      item.querySelector(".clock").textContent = ms === null ? "" : clockText(ms);
    });
  }

  function clockText(ms) {
    const s = Math.max(0, Math.ceil(ms / 1000));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }
  setInterval(tick, 250);

  async function follow() {
    let since = -1;
    for (;;) {
      try {
        const answer = await fetch(`${base}/view?since=${since}`);
        if (!answer.ok) { say("This game is not on this server any more."); return; }
        const next = await answer.json();
        receivedAt = performance.now();
        if (next.version !== since) {
          if (view === null || next.version !== view.version) picked = [];
          view = next;
          since = next.version;
          render();
        }
        if (view.result) return;
      } catch (err) {
        say("The server does not answer; retrying.");
        await new Promise(function (done) { setTimeout(done, 1000); });
      }
    }
  }
  follow();
  window.arenaPlay = {view: function () { return view; }};  // for tests and the console
})();
