"""Plays a uniformly random legal move in any of arena's games.

Reproducible: its choices depend only on the referee's per-game ``seed``.
"""

from arena.rules import State
from protocol.sdk import Clock, Engine, run


class RandomEngine(Engine):
    name = "random"
    author = "arena"

    def choose_move(self, state: State, clock: Clock) -> str:
        # As rng.choice(legal_moves()), without building the list where it is huge (Groups).
        return state.random_move(self.rng)


def main() -> None:
    run(RandomEngine())


if __name__ == "__main__":
    main()
