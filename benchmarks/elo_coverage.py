"""How often the Bradley–Terry intervals hold the true Elo (docs/ratings.md), measured.

    python benchmarks/elo_coverage.py [--fields 400] [--seed 2024]

Each scenario draws ``--fields`` round robins from known Elo (``simulate`` of
arena_bench/known_elo.py: the Bradley–Terry score, draws in proportion when asked), fits each with
BayesElo's prior (``prior=2``, arena's default) and without (``prior=0``, maximum
likelihood), and counts the engines whose 95% interval holds the truth (relative to the
field's mean, as the fit anchors it).  An unbounded rating holds nothing; "finite" is the
share of engines with a finite rating.  "swept" repeats the prior's coverage over the fields
where some pair of engines has a clean sweep (one took every point from the other).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.results.elo import fit_elo  # noqa: E402
from arena_bench.known_elo import has_sweep, holds_truth, simulate  # noqa: E402

SCENARIOS: dict[str, tuple[dict[str, float], int, float]] = {
    "5 engines 60-90 Elo apart, 16 games a pair": ({"a": 150, "b": 60, "c": 0, "d": -70, "e": -140}, 16, 0.0),
    "the same, 30% draws": ({"a": 150, "b": 60, "c": 0, "d": -70, "e": -140}, 16, 0.3),
    "4 engines 300-450 apart, 6 games a pair (sweeps)": ({"s": 700, "p": 350, "e": 0, "r": -450}, 6, 0.0),
    "3 engines 300 apart, 4 games a pair (chains)": ({"a": 300, "b": 0, "c": -300}, 4, 0.0),
    "2 engines 200 apart, 10 games": ({"a": 200, "b": 0}, 10, 0.0),
    "2 engines 400 apart, 10 games": ({"a": 400, "b": 0}, 10, 0.0),
}


def coverage(truth: dict[str, float], per_pair: int, draws: float, fields: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    counts = dict.fromkeys(("prior", "ml", "ml_finite", "swept", "swept_total", "total"), 0)
    for _ in range(fields):
        records = simulate(truth, per_pair, rng, draws)
        swept = has_sweep(records)
        for prior, key in ((2.0, "prior"), (0.0, "ml")):
            for r in fit_elo(records, prior=prior).ratings:
                held = holds_truth(r, truth)
                counts[key] += held
                if prior:
                    counts["total"] += 1
                    if swept:
                        counts["swept"] += held
                        counts["swept_total"] += 1
                else:
                    counts["ml_finite"] += r.elo is not None
    total = counts["total"]
    return {
        "prior": counts["prior"] / total,
        "ml": counts["ml"] / total,
        "ml_finite": counts["ml_finite"] / total,
        "swept": counts["swept"] / counts["swept_total"] if counts["swept_total"] else float("nan"),
        "swept_fields": counts["swept_total"] / len(truth) / fields,
        "intervals": total,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fields", type=int, default=400)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    print(f"{'scenario':52} {'prior 2':>8} {'ML':>6} {'ML finite':>10} {'swept fields':>13} {'prior 2 there':>14}")
    for k, (name, (truth, per_pair, draws)) in enumerate(SCENARIOS.items()):
        c = coverage(truth, per_pair, draws, args.fields, args.seed + k)
        print(
            f"{name:52} {c['prior']:8.1%} {c['ml']:6.1%} {c['ml_finite']:10.1%} "
            f"{c['swept_fields']:13.1%} {c['swept']:14.1%}"
        )


if __name__ == "__main__":
    main()
