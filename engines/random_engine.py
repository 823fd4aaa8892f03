"""Plays a uniformly random legal move in any of arena's games.

Reproducible: its choices depend only on the referee's per-game ``seed``.
"""

from protocol.sdk import Clock, Engine, run


class RandomEngine(Engine):
    name = "random"
    author = "arena"

    def choose_move(self, state, clock: Clock) -> str:
        # rng.choice(legal_moves()), except where the full move list is huge (Groups): that
        # game's sampler is not uniform over legal_moves(); see its rules doc.
        return state.random_move(self.rng)


def main() -> None:
    run(RandomEngine())


if __name__ == "__main__":
    main()
