"""What the Bradley–Terry fit of a large rating list costs, and how it grows (docs/performance.md).

    python benchmarks/rating_list_fit.py [--engines 100 400 1000 3000] [--games 20000 100000 ...]
                                         [--draws 0.3] [--before-up-to 200]

``arena ratings`` fits every game of many folders at once, so its fields are the size of
CCRL's lists: thousands of engines, over a million games.  For each field size the script
draws ``--games`` two-player games between random pairs of engines of known Elo (fixed seed;
a share ``--draws`` of them drawn, in proportion so the expected score stays the model's),
counts them game by game into the fit's :class:`arena.results.elo.Tally` as ``arena ratings``
does while it reads its folders, and fits them with intervals
(:func:`arena.results.elo.fit_tally`).  It prints the counting's and the fit's wall time, the
fit's peak memory (tracemalloc: Python's and numpy's allocations) and the process's peak
resident memory, and each figure's growth from the first size.

Up to ``--before-up-to`` engines the same games also go through the fit as it was before
(benchmarks/elo_before.py, a hand-written elimination over Python lists, from game records),
side by side, and both must agree to 1e-6 Elo.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from arena.record import GameRecord, Termination  # noqa: E402
from arena.results.elo import EloFit, Tally, fit_tally  # noqa: E402

DEFAULT_ENGINES = [100, 200, 400, 1000, 3000]
GAMES_PER_ENGINE = 500  # CCRL's 40/15 list: about 1.5 million games over 3,000 engines


def field(
    engines: int, games: int, draws: float, seed: int = 1
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Engine names, and each game's first engine, second engine and the first's score."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 200, engines)
    first = rng.integers(0, engines, games)
    second = (first + rng.integers(1, engines, games)) % engines  # any other engine
    expected = 1 / (1 + 10 ** ((strength[second] - strength[first]) / 400))
    # A draw replaces a win with probability draws and a loss in proportion, so the expected
    # score stays the Bradley-Terry one: P(draw) = 2 draws min(p, 1-p).
    draw_chance = 2 * draws * np.minimum(expected, 1 - expected)
    u = rng.random(games)
    score = np.where(u < draw_chance, 0.5, (u < expected + draw_chance / 2).astype(float))
    return [f"e{k}" for k in range(engines)], first, second, score


def counted(names: list[str], first: np.ndarray, second: np.ndarray, score: np.ndarray) -> Tally:
    tally = Tally(names)
    for game in zip(first.tolist(), second.tolist(), score.tolist()):
        tally.add_game([game])
    return tally


def records(names: list[str], first: np.ndarray, second: np.ndarray, score: np.ndarray) -> list[GameRecord]:
    places = {1.0: [0, 1], 0.0: [1, 0], 0.5: [0, 0]}
    return [
        GameRecord(
            game="hex", moves=[], id=k, players=[names[a], names[b]], places=places[s], termination=Termination.NORMAL
        )
        for k, (a, b, s) in enumerate(zip(first.tolist(), second.tolist(), score.tolist()))
    ]


def same(new: EloFit, old: Any) -> bool:
    pairs = zip(new.ratings, old.ratings)
    return all(
        a.engine == b.engine
        and a.bound == b.bound
        and abs((a.elo or 0) - (b.elo or 0)) < 1e-6
        and abs((a.low or 0) - (b.low or 0)) < 1e-6
        and abs((a.high or 0) - (b.high or 0)) < 1e-6
        for a, b in pairs
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", type=int, nargs="+", default=DEFAULT_ENGINES)
    parser.add_argument(
        "--games",
        type=int,
        nargs="+",
        help=f"one per --engines, or one for all (default {GAMES_PER_ENGINE} per engine)",
    )
    parser.add_argument("--draws", type=float, default=0.0, help="share of draws where the engines are level")
    parser.add_argument(
        "--before-up-to", type=int, default=200, help="run the fit before side by side up to this many engines"
    )
    args = parser.parse_args()
    games = args.games or [GAMES_PER_ENGINE * n for n in args.engines]
    if len(games) == 1:
        games = games * len(args.engines)
    if len(games) != len(args.engines):
        parser.error("give one --games per --engines, or one for all")
    print(
        f"{'engines':>7}  {'games':>9}  {'count (s)':>9}  {'fit (s)':>8}  {'fit peak (MB)':>13}  "
        f"{'growth: time':>12}  {'games':>6}  {'engines^2':>9}  {'before (s)':>10}"
    )
    first_size = None
    for engines, n_games in zip(args.engines, games):
        names, a, b, s = field(engines, n_games, args.draws)
        start = time.perf_counter()
        tally = counted(names, a, b, s)
        count = time.perf_counter() - start
        tracemalloc.start()
        start = time.perf_counter()
        fit = fit_tally(tally)
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        before = "-"
        if engines <= args.before_up_to:
            import elo_before

            games_records = records(names, a, b, s)
            start = time.perf_counter()
            old = elo_before.fit_elo(games_records, names)
            before = f"{time.perf_counter() - start:.2f}"
            assert same(fit, old), "the fit differs from the fit before it"
            del games_records, old
        first_size = first_size or (engines, n_games, count + elapsed)
        growth = (count + elapsed) / first_size[2]
        print(
            f"{engines:>7}  {n_games:>9}  {count:>9.2f}  {elapsed:>8.2f}  {peak:>13.0f}  {growth:>11.1f}x  "
            f"{n_games / first_size[1]:>5.0f}x  {(engines / first_size[0]) ** 2:>8.0f}x  {before:>10}"
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of the whole command: {rss:.0f} MB")


if __name__ == "__main__":
    main()
