"""arena's rating fit side by side with Ordo and BayesElo on the same games (docs/performance.md).

    python benchmarks/versus_ordo.py --ordo SOURCE_OR_BINARY [--bayeselo SOURCE_OR_BINARY]
        [--engines 100 200 400 1000 3000] [--games-per-engine 500] [--draws 0.3]
        [--fixture tests/data/ordo_fixture.json]

Neither program is vendored: give the folder of its source (``michiguel/Ordo``; a copy of
Rémi Coulom's bayeselo such as ``MichaelB7/bayeselo``, whose ``src/`` holds its Makefile),
which the script builds with its own Makefile (gcc/make), or a binary already built.  Nothing
is downloaded.

For each size the script draws the list of ``rating_list_fit.py`` (two-player games between
random pairs of engines of known Elo, fixed seed, ``--draws`` of the games between level
engines drawn), writes it as PGN (the first engine has White), and times:

- arena: counting the games (:class:`arena.results.elo.Tally`) and fitting them with
  intervals, without the prior (``prior=0``: maximum likelihood, a draw half a point), the
  mean of the engines anchored at 0;
- Ordo on the PGN, its fit alone (no ``-s`` simulations for errors), the same anchor
  (``-a 0``) and the same scale (``-z``: the Elo difference of a 76% score on the logistic
  Elo scale), with its largest difference from arena's ratings;
- BayesElo's ``readpgn``, ``elo``, ``mm`` and ``ratings`` (its own model with its default
  draw and White advantage parameters and its prior of 2 virtual draws), against arena's fit of
  the same model (:func:`arena.results.elo.fit_bayeselo`, ``arena ratings --model bayeselo``),
  the mean at 0 (bayeselo prints whole Elo, offset by its ``offset``).

``--fixture`` writes the first size's games and both programs' ratings as JSON, which
tests/test_elo_scale.py compares arena's fits against where the binaries are absent.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from rating_list_fit import counted, field  # noqa: E402

from arena.results.elo import fit_bayeselo, fit_tally  # noqa: E402

SCALE_76 = 400 * math.log10(0.76 / 0.24)  # Ordo's -z: the Elo difference of a 76% score
RESULT = {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}


def built(path: Path, name: str) -> Path:
    """The binary ``name`` at ``path``: the file itself, or built from the source folder by its
    own Makefile (``src/`` for bayeselo's copies)."""
    if path.is_file():
        return path
    for folder in (path, path / "src"):
        if (folder / name).is_file():
            return folder / name
        if (folder / "Makefile").is_file():
            subprocess.run(["make", "-C", str(folder)], check=True, capture_output=True)
            return folder / name
    raise SystemExit(f"{path}: neither the {name} binary nor a source folder with a Makefile")


def write_pgn(path: Path, names: list[str], first: np.ndarray, second: np.ndarray, score: np.ndarray) -> None:
    """The games as PGN: the seven-tag roster's names and result, and no moves."""
    with path.open("w") as out:
        for a, b, s in zip(first.tolist(), second.tolist(), score.tolist()):
            result = RESULT[s]
            out.write(f'[White "{names[a]}"]\n[Black "{names[b]}"]\n[Result "{result}"]\n\n{result}\n\n')


def ordo(binary: Path, pgn: Path) -> tuple[float, dict[str, float]]:
    table = pgn.with_suffix(".ordo.csv")
    start = time.perf_counter()
    run = [str(binary), "-p", str(pgn), "-a", "0", "-z", f"{SCALE_76:.6f}", "-c", str(table), "-q"]
    subprocess.run(run, check=True, capture_output=True)
    elapsed = time.perf_counter() - start
    with table.open() as rows:
        return elapsed, {row["PLAYER"]: float(row["RATING"]) for row in csv.DictReader(rows)}


def bayeselo(binary: Path, pgn: Path) -> tuple[float, dict[str, float]]:
    table = pgn.with_suffix(".bayeselo.txt")
    commands = f"readpgn {pgn}\nelo\nmm\nratings >{table}\nx\nx\n"
    start = time.perf_counter()
    subprocess.run([str(binary)], input=commands, text=True, check=True, capture_output=True)
    elapsed = time.perf_counter() - start
    rows = [line.split() for line in table.read_text().splitlines()]
    ratings = {row[1]: float(row[2]) for row in rows if len(row) > 2 and row[0].isdigit()}
    mean = sum(ratings.values()) / len(ratings)  # its offset (0, or 3100 in some copies)
    return elapsed, {name: elo - round(mean) for name, elo in ratings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ordo", type=Path, required=True, help="Ordo's source folder or binary")
    parser.add_argument("--bayeselo", type=Path, help="bayeselo's source folder or binary")
    parser.add_argument("--engines", type=int, nargs="+", default=[100, 200, 400, 1000, 3000])
    parser.add_argument("--games-per-engine", type=int, default=500)
    parser.add_argument("--draws", type=float, default=0.3, help="share of draws where the engines are level")
    parser.add_argument("--fixture", type=Path, help="write the first size's games and Ordo's ratings here")
    args = parser.parse_args()
    ordo_bin = built(args.ordo, "ordo")
    bayeselo_bin = built(args.bayeselo, "bayeselo") if args.bayeselo else None
    print(
        f"{'engines':>7}  {'games':>9}  {'arena fit (s)':>13}  {'arena count+fit':>15}  {'Ordo (s)':>8}  "
        f"{'arena/Ordo':>10}  {'max |diff| Elo':>14}  {'BayesElo mm (s)':>15}  {'arena (s)':>9}  {'max |diff|':>10}"
    )
    with tempfile.TemporaryDirectory(prefix="arena-versus-ordo-") as tmp:
        for k, engines in enumerate(args.engines):
            games = engines * args.games_per_engine
            names, a, b, s = field(engines, games, args.draws)
            pgn = Path(tmp) / f"list{engines}.pgn"
            write_pgn(pgn, names, a, b, s)
            start = time.perf_counter()
            tally = counted(names, a, b, s)
            fitting = time.perf_counter()
            fit = fit_tally(tally, prior=0.0)
            done = time.perf_counter()
            ordo_s, theirs = ordo(ordo_bin, pgn)
            diff = max(abs((r.elo or math.nan) - theirs[r.engine]) for r in fit.ratings)
            be_s, be_arena, be_diff = "-", "-", "-"
            bayes: dict[str, float] = {}
            if bayeselo_bin:
                elapsed, bayes = bayeselo(bayeselo_bin, pgn)
                be_start = time.perf_counter()
                ours = fit_bayeselo(tally)
                be_arena = f"{time.perf_counter() - be_start:.2f}"
                be_s = f"{elapsed:.2f}"
                be_diff = f"{max(abs((r.elo or math.nan) - bayes[r.engine]) for r in ours.ratings):.2f}"
            print(
                f"{engines:>7}  {games:>9}  {done - fitting:>13.2f}  {done - start:>15.2f}  {ordo_s:>8.2f}  "
                f"{(done - fitting) / ordo_s:>10.2f}  {diff:>14.2f}  {be_s:>15}  {be_arena:>9}  {be_diff:>10}"
            )
            if k == 0 and args.fixture:
                document = {
                    "made_by": "python benchmarks/versus_ordo.py " + " ".join(sys.argv[1:]),
                    "ordo": f"{ordo_bin.name} -p LIST.pgn -a 0 -z {SCALE_76:.6f} -c TABLE.csv",
                    "names": names,
                    "games": [[x, y, z] for x, y, z in zip(a.tolist(), b.tolist(), s.tolist())],
                    "ordo_ratings": theirs,
                    "bayeselo": "readpgn LIST.pgn, elo, mm, ratings (whole Elo, the mean at 0)",
                    "bayeselo_ratings": bayes,
                }
                args.fixture.write_text(json.dumps(document, separators=(",", ":")) + "\n")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
