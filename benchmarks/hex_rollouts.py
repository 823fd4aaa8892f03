"""CPU per Hex ``hard`` move with each rollout of the search engine, side by side.

    python benchmarks/hex_rollouts.py [--size 9] [--positions 7] [--iterations 3000]

The same positions (a few random stones after an opening) and the same seeds for both
rollouts; prints the median, fastest and slowest CPU seconds a move and the load
average, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from random import Random

from arena.rules.hex import HexGame, HexOptions, HexState
from engines.search import mcts
from engines.search.hex import ROLLOUTS, HexDomain


def positions(size: int, count: int) -> list[HexState]:
    game = HexGame(HexOptions(size=size, swap=True))
    out = []
    for seed in range(count):
        state, rng = game.initial_state(), Random(seed)
        for move in ("c3", "swap"):
            state.play(move)
        for _ in range(2 * seed):
            state.play(state.random_move(rng))
        out.append(state)
    return out


def cpu_per_move(rollout: str, states: list[HexState], iterations: int) -> list[float]:
    times = []
    for seed, state in enumerate(states):
        start = time.process_time()
        mcts.search(HexDomain("edge", rollout), state.clone(), Random(seed), iterations)
        times.append(time.process_time() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--positions", type=int, default=7)
    parser.add_argument("--iterations", type=int, default=3000)
    args = parser.parse_args()
    states = positions(args.size, args.positions)
    print(f"Hex {args.size}x{args.size}, {args.iterations} simulations, load average {os.getloadavg()}")
    medians = {}
    for rollout in ROLLOUTS:
        times = cpu_per_move(rollout, states, args.iterations)
        medians[rollout] = statistics.median(times)
        print(f"{rollout:8} CPU s a move: median {medians[rollout]:.3f}, min {min(times):.3f}, max {max(times):.3f}")
    print(f"bridges / uniform: {medians['bridges'] / medians['uniform']:.2f}")


if __name__ == "__main__":
    main()
