"""An engine for every game that breaks exactly one conformance check (arena check-engine).

    broken_engine.py FAULT

FAULT (``good``: breaks nothing):
    no_name          an empty 'id name' line                 (handshake)
    bad_option       declares an int option whose default is not a number  (handshake)
    setoption_reply  answers 'setoption' with a line         (options)
    swap             reads 'swap' as a pass (the stone stays put) and plays the first cell it thinks free  (hex after a swap)
    groups_multi     places one stone more than allowed when several are allowed  (groups)
    bases_full       sends a bad move when a base is one piece from full  (bases)
    hexgo_captures   sends a bad move once stones were captured  (hexgo)
    posies_private   crashes on a 'private' line             (posies)
    slow             takes movetime + 0.5 s when movetime is under 1 s  (move within movetime)
    clock_hang       waits for a movetime that a clock-only 'go' never gives  (move on a game clock)
    period_hang      hangs on the last move of a period ('movestogo 1')  (move with moves to go)
    always_swap      answers 'swap' to the first stone even when swap=false  (hex: swap off)
    second_game      crashes at its second 'newgame'         (several games in one process)
    ready_after_end  does not answer an 'isready' that follows 'gameover'  (isready after gameover)
    slow_quit        takes 3 s to exit after 'quit'          (quit within 1 s)
"""

import sys
import time

from arena.rules import bases as bases_rules
from arena.rules import groups as groups_rules
from arena.rules.hexgrid import Board
from engines.random_engine import RandomEngine
from protocol.sdk import run

FAULT = sys.argv[1] if len(sys.argv) > 1 else "good"


class Broken(RandomEngine):
    name = "" if FAULT == "no_name" else f"broken-{FAULT}"
    options = {"depth": ("int", "three" if FAULT == "bad_option" else 3)}
    newgames = 0

    def choose_move(self, state, clock):
        game = self.game.name
        if FAULT == "swap" and game == "hex" and "swap" in state.moves:
            # The bug: 'swap' read as a pass, so the first stone stays where it was played
            # and the cell it moved to looks free; the first free cell of that view.
            board = Board.rhombus(self.game.options.size)
            taken = {m for m in state.moves if m != "swap"}
            return next(name for name in board.names if name not in taken)
        if FAULT == "groups_multi" and game == "groups" and state.max_stones() >= 2:
            empty = [
                board_name
                for i, board_name in enumerate(state.game.board.names)
                if state.cells[i] == groups_rules.EMPTY
            ]
            return ",".join(empty[: state.max_stones() + 1])
        if FAULT == "bases_full" and game == "bases" and len(state.moves) >= 6:
            occupied = [sum(state.cells[c] != bases_rules.EMPTY for c in base) for base in self.game.layout.bases]
            if 5 in occupied:
                return "a1-a1"
        if FAULT == "hexgo_captures" and game == "hexgo" and state.details()["captures"]:
            return "zz99"
        if FAULT == "always_swap" and game == "hex" and len(state.moves) == 1:
            return "swap"
        if FAULT == "clock_hang" and clock.movetime is None and clock.movestogo is None:
            time.sleep(60)
        if FAULT == "period_hang" and clock.movestogo == 1:
            time.sleep(60)
        if FAULT == "slow" and clock.movetime is not None and clock.movetime < 1000:
            time.sleep(clock.movetime / 1000 + 0.5)
        return super().choose_move(state, clock)

    def on_new_game(self):
        Broken.newgames += 1
        if FAULT == "posies_private" and self.private:
            sys.stderr.write("broken: what is 'private'?\n")
            sys.exit(4)
        if FAULT == "second_game" and Broken.newgames == 2:
            sys.stderr.write("broken: I only ever play one game\n")
            sys.exit(5)


def lines():
    after_gameover = False
    for line in sys.stdin:
        word = line.split()[0] if line.split() else ""
        if FAULT == "setoption_reply" and word == "setoption":
            print("ok", flush=True)
        if FAULT == "ready_after_end" and word == "isready" and after_gameover:
            continue
        if FAULT == "slow_quit" and word == "quit":
            time.sleep(3)
        after_gameover = word == "gameover"
        yield line


if __name__ == "__main__":
    run(Broken(), stdin=lines())
