// A protocol-v1 engine in JavaScript (Node.js), written from protocol/PROTOCOL.md alone:
// Hex (with the swap) and Groups.  It keeps the board from the 'position' lines and plays
// a random empty cell (one stone in Groups, always legal) from the referee's seed; as Blue
// it swaps when Red's first stone is in the centre third of the board.
//
//     node node_engine.js [--crash-at N]    (throws an uncaught Error at its N-th go)
"use strict";
const readline = require("readline");

const crashAt = process.argv.indexOf("--crash-at") > 0 ? Number(process.argv[process.argv.indexOf("--crash-at") + 1]) : 0;
let game = "hex", size = 11, swapOn = true, taken = new Set(), plies = 0, gos = 0;
let state = 1; // xorshift32 state, from the seed

// Section 3: seeds go up to 2^63, past JavaScript's exact integers: read them as BigInt.
function seedFrom(text) {
  const low = Number(BigInt.asUintN(32, BigInt(text)));
  state = low || 1;
}
function random() {
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state;
}

// Section 6: Hex is the n x n rhombus; a hexhex board with s cells a side is the
// (2s-1) x (2s-1) rhombus with s-1 <= row + column <= 3s-3 (0-based).
function cells() {
  const span = game === "hex" ? size : 2 * size - 1, all = [];
  for (let r = 0; r < span; r++)
    for (let c = 0; c < span; c++)
      if (game === "hex" || (r + c >= size - 1 && r + c <= 3 * size - 3))
        all.push(String.fromCharCode(97 + c) + (r + 1));
  return all;
}
const mirror = (cell) => String.fromCharCode(96 + Number(cell.slice(1))) + (cell.charCodeAt(0) - 96);

function position(words) {            // position <setup> moves m1 m2 ...
  taken = new Set();
  const moves = words.slice(3);
  for (const move of moves) {
    if (move === "swap") {            // the first stone moves to (column, row) and is Blue's
      const [first] = taken; taken = new Set([mirror(first)]);
    } else move.split(",").forEach((cell) => taken.add(cell));
  }
  plies = moves.length;
}

function go() {
  gos += 1;
  if (gos === crashAt) throw new Error(`no legal move found at go ${gos}`);
  if (game === "hex" && swapOn && plies === 1) {
    const [first] = taken, col = first.charCodeAt(0) - 97, row = Number(first.slice(1)) - 1;
    const third = size / 3;
    if (col >= third && col < size - third && row >= third && row < size - third) return "move swap";
  }
  const free = cells().filter((cell) => !taken.has(cell));
  return free.length ? `move ${free[random() % free.length]}` : "resign";
}

const rl = readline.createInterface({ input: process.stdin, terminal: false, crlfDelay: Infinity });
rl.on("line", (line) => {
  const words = line.trim().split(/ +/);
  const out = (text) => process.stdout.write(text + "\n");
  switch (words[0]) {
    case "arena":
      out("id name node-random\nid author arena tests\nid games hex,groups\narenaok 1");
      break;
    case "newgame":
      game = words[1];
      for (const option of words.slice(4)) {
        const [key, value] = option.split("=");
        if (key === "size") size = Number(value);
        if (key === "swap") swapOn = value === "true";
      }
      break;
    case "seed": seedFrom(words[1]); break;
    case "isready": out("readyok"); break;
    case "position": position(words); break;
    case "go": out(go()); break;
    case "quit": process.exit(0);
  }
});
