"""A small GTP Hex engine that follows Benzene's (MoHex's) conventions, strictly.

    gtp_hex_engine.py [--seed N] [--swap] [--time benzene|standard|none]
                      [--fault FAULT] [--at N] [--log FILE] [--max-size N]

Conventions (docs/gtp.md): ``black`` moves first and joins the top and bottom rows,
``white`` the left and right columns; cells are column letter + row number, ``a1``
top-left; ``play white swap-pieces`` after black's first stone leaves that stone where
it is, still black, and white moves next (the players changed colours); a ``genmove``
when the game is over answers ``resign``; ``param_game allow_swap`` enables the swap.
With ``--mohex-params`` it also answers ``param_mohex KEY VALUE`` (accepted, ignored),
to stand in for MoHex in a ladder.

Stricter than Benzene, to catch a bridge that translates wrongly: a ``play`` or
``genmove`` of the colour not to move, on an occupied or unknown cell, or a swap when
it is not allowed, is answered with ``?``.  It plays uniformly random free cells
(``--seed``); with ``--swap`` it answers ``swap-pieces`` whenever the swap is allowed.
With ``--log FILE`` it appends each game's final board, in its own convention, as a
JSON line.  ``boardsize`` above ``--max-size`` (default 26) is answered with ``?``, as
MoHex answers a size above its limit.  ``final_score`` answers ``B+`` or ``W+`` (Benzene's
form) for the winner on its own board, ``cannot score`` without one.  FAULT (at the N-th
genmove, default 1; start-up faults ignore N):

    error_genmove  '? cannot generate a move'     reject_play   '?' to the N-th play
    crash          exits with a message on stderr  hang          never answers
    garbage        a line that is not a response    illegal       an occupied cell
    resign         resigns                          no_genmove    list_commands lacks genmove
    pass           answers 'pass'                   double        two answers to one genmove
    vt_move        a free cell followed by \x0b (not a GTP blank, so not the cell)
    wrong_score    final_score names the loser     no_final_score  list_commands lacks final_score
"""

import argparse
import json
import random
import sys
import time

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--swap", action="store_true")
    parser.add_argument("--time", choices=("benzene", "standard", "none"), default="benzene")
    parser.add_argument("--fault", default="")
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--log")
    parser.add_argument("--max-size", type=int, default=26)
    parser.add_argument("--mohex-params", action="store_true")
    return parser.parse_args()


class Board:
    def __init__(self, size: int) -> None:
        self.size = size
        self.stones: dict[str, str] = {}
        self.history: list[tuple[str, str]] = []
        self.to_move = "black"
        self.clock_lines: list[str] = []  # time_settings / time_left received, for the log

    def cells(self) -> list[str]:
        return [f"{LETTERS[c]}{r + 1}" for r in range(self.size) for c in range(self.size)]

    def coords(self, cell: str) -> tuple[int, int] | None:
        if len(cell) < 2 or cell[0] not in LETTERS[: self.size] or not cell[1:].isascii() or not cell[1:].isdigit():
            return None
        row = int(cell[1:]) - 1
        return (row, LETTERS.index(cell[0])) if 0 <= row < self.size else None

    def winner(self) -> str | None:
        for colour in ("black", "white"):
            own = {self.coords(c) for c, s in self.stones.items() if s == colour}
            start = [rc for rc in own if (rc[0] if colour == "black" else rc[1]) == 0]
            seen, todo = set(start), list(start)
            while todo:
                r, c = todo.pop()
                if (r if colour == "black" else c) == self.size - 1:
                    return colour
                for dr, dc in ((0, 1), (0, -1), (-1, 0), (-1, 1), (1, 0), (1, -1)):
                    n = (r + dr, c + dc)
                    if n in own and n not in seen:
                        seen.add(n)
                        todo.append(n)
        return None

    def play(self, colour: str, move: str, allow_swap: bool) -> str | None:
        """None, or why the move is refused."""
        if colour != self.to_move:
            return f"not {colour}'s turn"
        if move == "swap-pieces":
            if not allow_swap or len(self.history) != 1:
                return "illegal move: swap not allowed"
            self.history.append((colour, move))
            return None  # the stone stays; the same colour moves again (the players changed colours)
        if self.coords(move) is None:
            return f"illegal move: {move} (invalid)"
        if move in self.stones:
            return f"illegal move: {move} (occupied)"
        self.stones[move] = colour
        self.history.append((colour, move))
        self.to_move = "white" if colour == "black" else "black"
        return None


def main() -> None:
    args = parse_args()
    rng = random.Random(args.seed)
    board = Board(11)
    allow_swap = False
    genmoves = plays = 0

    def respond(text: str = "", ok: bool = True) -> None:
        sys.stdout.write(("= " if ok else "? ") + text + "\n\n")
        sys.stdout.flush()

    def log_game() -> None:
        if args.log and board.history:
            with open(args.log, "a", encoding="utf-8") as f:
                f.write(
                    json.dumps(
                        {
                            "size": board.size,
                            "stones": board.stones,
                            "moves": [m for _, m in board.history],
                            "clock": board.clock_lines,
                            "allow_swap": allow_swap,
                        }
                    )
                    + "\n"
                )

    commands = [
        "protocol_version",
        "name",
        "version",
        "list_commands",
        "boardsize",
        "clear_board",
        "play",
        "genmove",
        "quit",
        "param_game",
        "showboard",
        "final_score",
    ]
    if args.time != "none":
        commands.append("time_left")
    if args.time == "standard":
        commands.append("time_settings")
    if args.fault == "no_genmove":
        commands.remove("genmove")
    if args.fault == "no_final_score":
        commands.remove("final_score")
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd, rest = words[0], words[1:]
        if cmd == "protocol_version":
            respond("2")
        elif cmd == "name":
            respond("gtp-hex-test")
        elif cmd == "version":
            respond("1.0")
        elif cmd == "list_commands":
            respond("\n".join(commands))
        elif cmd in ("boardsize", "clear_board"):
            log_game()
            size = int(rest[0]) if cmd == "boardsize" else board.size
            if cmd == "boardsize" and len(rest) == 2 and rest[1] != rest[0]:
                respond("only square boards", ok=False)
                continue
            if size > args.max_size:
                respond(f"board size {size} is above this program's limit of {args.max_size}", ok=False)
                continue
            board = Board(size)
            respond()
        elif cmd == "param_game" and len(rest) == 2 and rest[0] == "allow_swap":
            allow_swap = rest[1] in ("1", "true")
            respond()
        elif cmd == "param_mohex" and len(rest) == 2 and args.mohex_params:  # MoHex's settings: nothing to set
            respond()
        elif (
            cmd == "time_left"
            and len(rest) == (3 if args.time == "standard" else 2)
            or cmd == "time_settings"
            and len(rest) == 3
        ):
            board.clock_lines.append(line.strip())
            respond()
        elif cmd == "play" and len(rest) == 2:
            plays += 1
            if args.fault == "reject_play" and plays == args.at:
                respond("illegal move: I do not like it", ok=False)
                continue
            why = board.play(rest[0].lower(), rest[1].lower(), allow_swap)
            respond(why or "", ok=why is None)
        elif cmd == "genmove" and len(rest) == 1:
            genmoves += 1
            colour = rest[0].lower()
            fault = args.fault if genmoves == args.at else ""
            if colour != board.to_move:
                respond(f"not {colour}'s turn", ok=False)
                continue
            if board.winner() is not None or fault == "resign":
                respond("resign")
                continue
            if fault == "error_genmove":
                respond("cannot generate a move", ok=False)
                continue
            if fault == "crash":
                sys.stderr.write("gtp-hex-test: out of cheese\n")
                sys.exit(3)
            if fault == "hang":
                time.sleep(3600)
            if fault == "garbage":
                sys.stdout.write("bestmove e5\n")
                sys.stdout.flush()
                continue
            if fault == "pass":
                respond("pass")
                continue
            if fault == "vt_move":
                respond(rng.choice([c for c in board.cells() if c not in board.stones]) + "\x0b")
                continue
            free = [c for c in board.cells() if c not in board.stones]
            if fault == "illegal" and board.stones:
                move = next(iter(board.stones))
            elif args.swap and allow_swap and len(board.history) == 1:
                move = "swap-pieces"
                board.play(colour, move, allow_swap)
            else:
                move = rng.choice(free)
                board.play(colour, move, allow_swap)
            respond(move)
            if fault == "double":
                respond(rng.choice(free))
        elif cmd == "final_score" and "final_score" in commands:
            winner = board.winner()
            if winner is not None and args.fault == "wrong_score":
                winner = "white" if winner == "black" else "black"
            respond({"black": "B+", "white": "W+", None: "cannot score"}[winner])
        elif cmd == "showboard":
            respond(json.dumps(board.stones))
        elif cmd == "quit":
            log_game()
            respond()
            break
        else:
            respond(f"unknown command: {cmd}", ok=False)


if __name__ == "__main__":
    main()
