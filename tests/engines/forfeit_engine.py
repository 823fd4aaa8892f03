"""Plays random legal moves in any game, then an illegal one at its N-th move.

    forfeit_engine.py N

Its choices depend only on the referee's seed (like engines/random_engine.py), so a
test can pick a seed where it forfeits in a known position.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from anywhere

from protocol.sdk import Clock, Engine, run  # noqa: E402

FORFEIT_AT = int(sys.argv[1])


class ForfeitEngine(Engine):
    name = "forfeit"

    def on_new_game(self) -> None:
        self.moves = 0

    def choose_move(self, state, clock: Clock) -> str:
        self.moves += 1
        return "zz99" if self.moves == FORFEIT_AT else state.random_move(self.rng)


if __name__ == "__main__":
    run(ForfeitEngine())
