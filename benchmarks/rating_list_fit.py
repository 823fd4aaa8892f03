"""What the Bradley–Terry fit of a large rating list costs (docs/ratings.md).

    python benchmarks/rating_list_fit.py [--engines 10 40 100] [--games 20000] [--repeats 3]

``arena ratings`` fits every game of many folders at once, so its fields are larger than one
tournament's.  For each field size the script draws ``--games`` two-player results between
random pairs of engines of known Elo (fixed seed) and times :func:`arena.results.elo.fit_elo`,
median of ``--repeats`` runs, side by side with the same fit done as it was before large
lists: the dispersion step summing the whole field's quadratic form for every game (not only
the engines of the game), and the covariance inverted by one elimination per column (not one
for all).  Both must give the same ratings, intervals and covariance to the last bit.
"""

from __future__ import annotations

import argparse
import functools
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.record import GameRecord  # noqa: E402
from arena.results import elo  # noqa: E402

T = TypeVar("T")


def whole_field_dispersion(data: Any, where: dict[int, int], theta: list[float], inverse: list[list[float]]) -> float:
    """The baseline: the dispersion's quadratic form over every engine of the field, per game."""
    free = len(where) - 1
    if free < 1:
        return 1.0
    total = 0.0
    for game in data.games:
        u = [0.0] * len(where)
        for i, j, s in game:
            if i in where and j in where:
                a, b = where[i], where[j]
                r = s - 1 / (1 + math.exp(theta[b] - theta[a]))
                u[a] += r
                u[b] -= r
        v = u[1:]
        total += sum(v[p] * inverse[p][q] * v[q] for p in range(free) for q in range(free) if v[p] and v[q])
    return max(1.0, total / free)


def one_elimination_per_column(matrix: list[list[float]]) -> list[list[float]]:
    """The baseline inverse: one :func:`elo.solve_linear` (a whole elimination) per column."""
    n = len(matrix)
    columns = [elo.solve_linear(matrix, [float(r == c) for r in range(n)]) for c in range(n)]
    return [[columns[c][r] for c in range(n)] for r in range(n)]


def field(engines: int, games: int, seed: int = 1) -> tuple[list[str], list[GameRecord]]:
    rng = random.Random(seed)
    names = [f"e{k}" for k in range(engines)]
    strength = {name: rng.gauss(0, 200) for name in names}
    records = []
    for game in range(games):
        a, b = rng.sample(names, 2)
        first_wins = rng.random() < 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
        records.append(
            GameRecord.model_validate(
                {
                    "id": game,
                    "game": "hex",
                    "moves": [],
                    "players": [a, b],
                    "termination": "normal",
                    "places": [0, 1] if first_wins else [1, 0],
                }
            )
        )
    return names, records


def timed(run: Callable[[], T], repeats: int) -> tuple[float, T]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", type=int, nargs="+", default=[10, 40, 100])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'engines':>7}  {'games':>6}  {'fit (s)':>8}  {'as before (s)':>15}  {'ratio':>6}")
    current = elo.dispersion, elo.inverse_matrix
    for engines in args.engines:
        names, records = field(engines, args.games)
        fast, fit = timed(functools.partial(elo.fit_elo, records, names), args.repeats)
        elo.dispersion, elo.inverse_matrix = whole_field_dispersion, one_elimination_per_column
        try:
            slow, baseline = timed(functools.partial(elo.fit_elo, records, names), args.repeats)
        finally:
            elo.dispersion, elo.inverse_matrix = current
        assert fit.as_dict() == baseline.as_dict() and fit.covariance == baseline.covariance
        print(f"{engines:>7}  {args.games:>6}  {fast:>8.2f}  {slow:>15.2f}  {slow / fast:>6.1f}")


if __name__ == "__main__":
    main()
