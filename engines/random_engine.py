"""Plays a uniformly random legal move in any of arena's games.

Reproducible: its choices depend only on the referee's per-game ``seed``.
"""

from protocol.sdk import Clock, Engine, run


class RandomEngine(Engine):
    name = "random"
    author = "arena"

    def choose_move(self, state, clock: Clock) -> str:
        # Games whose full move list is huge (Groups) offer their own fast sampler
        # (not uniform over legal_moves(); see that game's rules doc).
        sampler = getattr(state, "random_move", None)
        if sampler is not None:
            return sampler(self.rng)
        return self.rng.choice(state.legal_moves())


def main() -> None:
    run(RandomEngine())


if __name__ == "__main__":
    main()
