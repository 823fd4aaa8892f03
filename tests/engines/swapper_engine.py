"""A protocol-v1 Hex engine that always swaps when it may, and otherwise plays at random."""

from protocol.sdk import Engine, run


class Swapper(Engine):
    name = "swapper"

    def choose_move(self, state, clock):
        moves = state.legal_moves()
        return "swap" if "swap" in moves else state.random_move(self.rng)


if __name__ == "__main__":
    run(Swapper())
