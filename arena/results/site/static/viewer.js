// The game viewer: a page holds the games of one paged list (its game-data: each game's
// record as the page shows it and the positions the referee computed), and shows the one
// its address asks for (?game=ID): its players and result, then its board
// (boards/<key>.js, loaded for it) one ply at a time, with board.js's drawing.
// It computes no rules; it only applies each frame's cell changes and shows its marks.
// Every text of a record (names, reasons, moves, engines' infos) goes in with textContent.
(function () {
  "use strict";
  const games = JSON.parse(document.getElementById("game-data").textContent).games;
  const asked = new URLSearchParams(location.search).get("game");
  const data = asked !== null && Object.prototype.hasOwnProperty.call(games, asked) ? games[asked] : null;
  if (data === null) {
    document.getElementById("no-game").hidden = false;
    return;
  }
  document.getElementById("game-head").hidden = false;
  document.title = "Game " + data.id + " · " + document.title.split(" · ").slice(1).join(" · ");
  document.getElementById("game-id").textContent = data.id;
  document.getElementById("game-round").textContent = data.round === null ? "" : data.round;
  const seats = document.getElementById("players");
  data.players.forEach(function (name, seat) {
    const colour = data.colours[seat] || "";
    const item = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = "swatch " + colour;
    item.appendChild(swatch);
    item.appendChild(document.createTextNode(" seat " + seat + (colour ? " (" + colour + ")" : "") + ": "));
    const player = document.createElement("strong");
    player.className = "player";
    player.textContent = name;
    item.appendChild(player);
    seats.appendChild(item);
  });
  document.getElementById("result-text").textContent = data.result;
  document.getElementById("termination").textContent = data.termination;
  document.getElementById("reason").textContent = data.reason;
  const when = [];
  if (data.started !== null) when.push("started " + data.started);
  if (data.duration_s !== null) when.push(data.duration_s + " s");
  document.getElementById("when").textContent = when.map(function (w) { return " · " + w; }).join("");
  if (data.error) {
    const error = document.getElementById("replay-error");
    error.textContent = "This game's record cannot be replayed by the rules (" + data.error +
      "), so its board is not shown. Moves: " + data.moves.join(" ");
    error.hidden = false;
    return;
  }
  document.querySelector(".viewer").hidden = false;
  const boardScript = document.createElement("script");
  boardScript.src = "../boards/" + encodeURIComponent(data.board) + ".js";
  boardScript.onload = function () { view(data, window.ARENA_BOARD); };
  document.head.appendChild(boardScript);

  // The board of the game, stepped through ply by ply.
  function view(data, board) {
    const draws = window.arenaBoard;
    const el = draws.el;
    const frames = data.frames.map(draws.expand);
    const last = frames.length - 1;
    const svg = document.getElementById("board");
    const drawn = draws.draw(svg, board);
    const states = draws.positions(frames, data.cells);

    // The legend: the marks the game describes (board.marks: name and meaning, in its
    // order), each that this game draws, with a sample drawn by the same stylesheet rules as
    // the board (the first cell it marks, as it was marked).  An ending's marks are drawn
    // with the class "end" too, so a mark the stylesheet does not name is still outlined.
    function sampleOf(k, i, classes) {
      const gone = (frames[k].gone || []).find(function (g) { return g[0] === i; });
      return {classes: `cell ${board.static[i] || ""} ${classes}`, state: states[k][i], gone: gone ? gone[1] : null};
    }
    const samples = {};
    frames.forEach(function (frame, k) {
      const kept = frame.kept || [];
      for (const i of frame.last || []) {
        samples.last = samples.last || sampleOf(k, i, "last" + (states[k][i] ? "" : " gone"));
      }
      for (const [i] of frame.gone || []) {
        if ((frame.last || []).includes(i)) continue;
        const key = kept.includes(i) ? "kept" : "gone";
        samples[key] = samples[key] || sampleOf(k, i, key === "kept" ? "gone kept" : "gone");
      }
    });
    const endMarks = (frames[last].end || {marks: {}}).marks;
    const endsOn = (frames[last].last || []).concat((frames[last].gone || []).map(function (g) { return g[0]; }));
    for (const mark in endMarks) {  // a cell the last move did not outline too, if there is one
      const marked = endMarks[mark];
      const i = marked.find(function (c) { return !endsOn.includes(c); });
      if (marked.length) samples[mark] = sampleOf(last, i === undefined ? marked[0] : i, "end " + mark);
    }
    const legend = document.getElementById("legend");
    for (const [key, meaning] of board.marks) {
      const sample = samples[key];
      if (!sample) continue;
      const item = document.createElement("li");
      item.dataset.mark = key;
      const half = board.kind === "points" ? 16 : 23;  // a sample cell, its outline inside the box
      const box = `${-half} ${-half} ${2 * half} ${2 * half}`;
      const icon = el("svg", {class: svg.getAttribute("class"), viewBox: box, width: 26, height: 26}, item);
      const attrs = {class: sample.classes, "data-state": sample.state};
      if (sample.gone !== null) attrs["data-gone"] = sample.gone;
      if (board.kind === "points") el("circle", Object.assign(attrs, {r: board.radius}), icon);
      else {
        const c = board.cells[0];
        const corners = c.outline.split(" ").map(function (p) {
          const [x, y] = p.split(",").map(Number);
          return `${(x - c.x).toFixed(2)},${(y - c.y).toFixed(2)}`;
        });
        el("polygon", Object.assign(attrs, {points: corners.join(" ")}), icon);
      }
      const text = document.createElement("span");
      text.textContent = meaning;
      item.appendChild(text);
      legend.appendChild(item);
    }
    legend.hidden = !legend.children.length;

    // The move list: text goes in with textContent, never parsed as HTML.
    // One row per ply, from the record: who moved (the frame after it says), the move, its
    // time (book plies are untimed: the times start after them), under a game clock the
    // mover's clock after it, and the search figures the engine reported.
    const clocks = data.clock ? data.players.map(function () { return data.clock[0]; }) : null;
    const moveRows = data.moves.map(function (move, ply) {
      const k = ply - data.opening;
      const seat = frames[ply + 1].seat;
      const ms = k >= 0 && k < data.times.length ? data.times[k] : null;
      let clock = null;
      if (clocks && ms !== null) clock = clocks[seat] += data.clock[1] - ms;
      return [ply, seat, move, ms, clock, k < 0, k >= 0 && k < data.infos.length ? data.infos[k] : ""];
    });
    const moveBody = document.querySelector("#moves tbody");
    const withClock = moveRows.some(function (m) { return m[4] !== null; });
    const withInfo = moveRows.some(function (m) { return m[6] !== ""; });
    const headings = document.querySelector("#moves thead tr");
    if (withClock) headings.appendChild(document.createElement("th")).textContent = "clock ms";
    if (withInfo) {
      const heading = headings.appendChild(document.createElement("th"));
      heading.className = "name";
      heading.textContent = "engine's info";
    }
    document.getElementById("plies").textContent = data.moves.length;
    const plyBox = document.getElementById("ply");
    plyBox.max = plyBox.value = data.moves.length;
    for (const [number, seat, move, ms, clock, book, info] of moveRows) {
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
      const ending = ply === last ? frame.end : null;
      draws.paint(drawn, state, frame, ending);
      end.hidden = !(ending && ending.reveal);
      end.textContent = ending ? ending.reveal : "";
      status.textContent = frame.status || "";
      plyInput.value = ply;
      rows.forEach(function (row) { row.classList.toggle("current", Number(row.dataset.position) === ply); });
      if (rows[ply]) keepInBox(rows[ply]);
      if (history.replaceState) history.replaceState(null, "", "#played=" + ply);
    }

    // The layout keeps the board in the window: the board is sized to the room left below
    // the page's header (and beside or above the move list), and stepping scrolls only the
    // move list's own box, never the window.
    const movesBox = document.getElementById("moves-box");
    const MAX_SCALE = 2;  // screen pixels per drawing unit, so a small board stays board-sized

    function keepInBox(row) {
      const box = movesBox.getBoundingClientRect();
      const head = moveBody.parentNode.tHead.getBoundingClientRect().height;
      const r = row.getBoundingClientRect();
      if (r.top < box.top + head) movesBox.scrollTop -= box.top + head - r.top;
      else if (r.bottom > box.bottom) movesBox.scrollTop += r.bottom - box.bottom;
    }

    function fit() {
      const drawn = svg.getBoundingClientRect();
      const top = drawn.top + window.scrollY;
      const room = svg.parentNode.clientWidth;
      // The board and its controls fit in the window; the status and legend below them too,
      // unless that would cost the board more than a seventh of its size (a phone).
      const controls = document.getElementById("controls").getBoundingClientRect();
      const below = svg.parentNode.getBoundingClientRect().bottom - drawn.bottom + 16;
      const withControls = controls.bottom - drawn.bottom + 16;
      const scaleFor = function (under) {
        return Math.min(MAX_SCALE, room / board.width, Math.max(window.innerHeight - top - under, 120) / board.height);
      };
      const full = scaleFor(withControls), withText = scaleFor(below);
      const scale = withText >= 0.85 * full ? withText : full;
      svg.setAttribute("width", Math.floor(board.width * scale));
      svg.setAttribute("height", Math.floor(board.height * scale));
      // Beside the board the move list ends at the window's bottom; below it (narrow
      // windows) it takes what is left, and at least a few rows.
      const listTop = movesBox.getBoundingClientRect().top + window.scrollY;
      movesBox.style.maxHeight = Math.max(window.innerHeight - listTop - 16, 192) + "px";
    }

    function refit() {
      fit();
      if (rows[ply]) keepInBox(rows[ply]);
    }
    window.addEventListener("resize", refit);
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
    refit();  // with the status and legend in place: the board gets the room they leave
    window.arenaViewer = {show: show, plies: last, ply: function () { return ply; }};
  }
})();
