// The play page's setup: the form is built from what each game says of its options (their
// kinds, ranges, defaults and meanings) and from the engines the server offers; the seats
// come from the server, which asks the game.  It knows no game.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("setup-data").textContent);
  const $ = function (id) { return document.getElementById(id); };
  const gameSelect = $("game"), optionsBox = $("options"), seatSelect = $("seat"), opponents = $("opponents");
  const problem = $("problem");

  function option(select, value, text) {
    const node = document.createElement("option");
    node.value = value;
    node.textContent = text;
    select.appendChild(node);
  }

  function say(text) {
    problem.textContent = text;
    problem.hidden = !text;
  }

  for (const game of data.games) option(gameSelect, game.name, game.name);

  function currentGame() {
    return data.games.find(function (g) { return g.name === gameSelect.value; });
  }

  // One input per option, of the option's kind; its meaning is its title and hint.
  function buildOptions() {
    optionsBox.textContent = "";
    for (const opt of currentGame().options) {
      const label = document.createElement("label");
      label.title = opt.meaning;
      label.append(opt.name + " ");
      let input;
      if (opt.kind === "choice") {
        input = document.createElement("select");
        for (const choice of opt.choices) option(input, JSON.stringify(choice), String(choice));
        input.value = JSON.stringify(opt.default);
      } else {
        input = document.createElement("input");
        if (opt.kind === "switch") {
          input.type = "checkbox";
          input.checked = !!opt.default;
        } else if (opt.kind === "number") {
          input.type = "number";
          if ("min" in opt) input.min = opt.min;
          if ("max" in opt) input.max = opt.max;
          input.value = opt.default;
        } else {
          input.value = opt.default;
        }
      }
      input.dataset.option = opt.name;
      input.dataset.kind = opt.kind;
      input.addEventListener("change", refreshSeats);
      label.appendChild(input);
      const hint = document.createElement("small");
      hint.textContent = opt.meaning;
      label.appendChild(hint);
      optionsBox.appendChild(label);
    }
  }

  function chosenOptions() {
    const options = {};
    for (const input of optionsBox.querySelectorAll("[data-option]")) {
      const kind = input.dataset.kind;
      options[input.dataset.option] = kind === "switch" ? input.checked
        : kind === "choice" ? JSON.parse(input.value)
        : kind === "number" ? Number(input.value) : input.value;
    }
    return options;
  }

  // The seats the game has with these options: the person's seat, an engine for each other.
  async function refreshSeats() {
    const query = new URLSearchParams({game: gameSelect.value, options: JSON.stringify(chosenOptions())});
    const answer = await fetch("/play/seats?" + query);
    const seats = await answer.json();
    if (!answer.ok) { say(seats.error); return; }
    say("");
    const keep = seatSelect.value;
    seatSelect.textContent = "";
    for (let s = 0; s < seats.players; s++) {
      option(seatSelect, s, seats.colours[s] ? `${s} (${seats.colours[s]}, ${s === 0 ? "moves first" : "moves after seat " + (s - 1)})` : `${s}${s === 0 ? " (moves first)" : ""}`);
    }
    if (Number(keep) < seats.players) seatSelect.value = keep;
    const before = Array.from(opponents.querySelectorAll("select")).map(function (s) { return s.value; });
    opponents.textContent = "";
    for (let k = 0; k < seats.players - 1; k++) {
      const label = document.createElement("label");
      label.append(`opponent ${k + 1} `);
      const select = document.createElement("select");
      select.dataset.opponent = k;
      for (const name of data.engines) option(select, name, name);
      if (before[k]) select.value = before[k];
      label.appendChild(select);
      opponents.appendChild(label);
    }
  }

  $("clock-kind").addEventListener("change", function () {
    const clock = $("clock-kind").value === "clock";
    for (const node of document.querySelectorAll(".clock-game")) node.hidden = !clock;
    for (const node of document.querySelectorAll(".clock-move")) node.hidden = clock;
  });
  gameSelect.addEventListener("change", function () { buildOptions(); refreshSeats(); });

  $("setup").addEventListener("submit", async function (event) {
    event.preventDefault();
    const clock = $("clock-kind").value === "clock"
      ? {kind: "clock", base_s: Number($("base-min").value) * 60, inc_s: Number($("inc-s").value)}
      : {kind: "move", move_s: Number($("move-s").value)};
    const body = {
      game: gameSelect.value,
      options: chosenOptions(),
      name: $("name").value,
      seat: Number(seatSelect.value),
      engines: Array.from(opponents.querySelectorAll("select")).map(function (s) { return s.value; }),
      clock: clock,
    };
    const answer = await fetch("/play/new", {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
    });
    const reply = await answer.json();
    if (!answer.ok) { say(reply.error); return; }
    location.href = reply.url;
  });

  buildOptions();
  refreshSeats();
})();
