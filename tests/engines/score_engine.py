"""A random mover that reports a fixed ``info score`` with every move, for adjudication tests.

    score_engine.py SCORE [FROM]

Plays a uniformly random legal move (any game) and, before each one, sends
``info depth 1 score SCORE`` (its own view: positive is good for it).  With FROM, moves
before its FROM-th report no score (a run of scores starts late).  ``SCORE`` may be
``none``: no score at all.
"""

import sys

from arena.rules import State
from protocol.sdk import Clock, Engine, run

SCORE = sys.argv[1] if len(sys.argv) > 1 else "0"
FROM = int(sys.argv[2]) if len(sys.argv) > 2 else 1


class ScoreEngine(Engine):
    name = "score"
    author = "arena tests"

    def on_new_game(self) -> None:
        self.moves = 0

    def choose_move(self, state: State, clock: Clock) -> str:
        self.moves += 1
        if SCORE != "none" and self.moves >= FROM:
            self.info(f"depth 1 score {SCORE}")
        return state.random_move(self.rng)


if __name__ == "__main__":
    run(ScoreEngine())
