"""Does the drop rule cost parallelism?  Its default against the rule off, side by side (docs/performance.md).

    python benchmarks/drop_rule_parallel.py [--workers 8] [--games 16] [--sleep-ms 100] [--repeats 3] [--quick]

Two engines that sleep a known time per move (benchmarks/instant_engine.py --sleep-us) play
``--games`` games of Hex 5 on ``--workers`` local workers, once with the default drop rule
(``max_failures = 3``) and once with it off (``max_failures = 0``), the two runs interleaved
``--repeats`` times so that a change in the machine's load hits both alike.  The table gives
the median wall time of each (the whole run: start-up check, games, report), and their ratio;
"ideal" is what the sleeping alone takes when every worker plays a game at once.  The engines
never fail, so the two settings play the very same games: any gap is the rule holding games
back.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.tournament.config import load_tournament  # noqa: E402
from arena.tournament.runner import run_tournament  # noqa: E402

ENGINE = ROOT / "benchmarks" / "instant_engine.py"
SETTINGS = (("default (3)", 3), ("off (0)", 0))  # label, max_failures


def tournament_file(folder: Path, *, games: int, workers: int, sleep_ms: float, max_failures: int) -> Path:
    engines = "".join(
        f'[[engines]]\nname = "{name}"\n'
        f'command = ["{{python}}", "{ENGINE}", "--sleep-us", "{int(sleep_ms * 1000)}"]\n'
        f"max_failures = {max_failures}\n"
        for name in ("sleepy-a", "sleepy-b")
    )
    path = folder / f"pair-{max_failures}.toml"
    path.write_text(
        f'name = "pair"\ngame = "hex"\nrounds = {max(1, games // 2)}\nseed = 1\nworkers = {workers}\n'
        f"[options]\nsize = 5\nswap = false\n[time_control]\nmovetime_ms = {int(sleep_ms * 20 + 1000)}\n{engines}"
    )
    return path


def timed_run(path: Path, out: Path) -> tuple[float, int]:
    """Wall seconds of one whole run, and the plies its games had."""
    start = time.perf_counter()
    summary = run_tournament(load_tournament(path), out)
    seconds = time.perf_counter() - start
    assert not summary.dropped and not summary.errors, (summary.dropped, summary.errors)
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    return seconds, sum(len(r["moves"]) for r in records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--sleep-ms", type=float, default=100.0, help="each engine's sleep per move")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: proves the script works")
    args = parser.parse_args()
    if args.quick:
        args.workers, args.games, args.sleep_ms, args.repeats = 4, 4, 5.0, 1
    print(
        f"two engines sleeping {args.sleep_ms:g} ms a move, Hex 5, {args.games} games, {args.workers} workers, "
        f"{args.repeats} runs each, interleaved; cpus: {len(os.sched_getaffinity(0))}, "
        f"load average before: {os.getloadavg()[0]:.2f}"
    )
    times: dict[int, list[float]] = {limit: [] for _, limit in SETTINGS}
    plies = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = {
            limit: tournament_file(
                folder, games=args.games, workers=args.workers, sleep_ms=args.sleep_ms, max_failures=limit
            )
            for _, limit in SETTINGS
        }
        for k in range(args.repeats):
            for _, limit in SETTINGS:
                seconds, plies = timed_run(paths[limit], folder / f"out-{limit}-{k}")
                times[limit].append(seconds)
    # The same games every run (the schedule's seeds): their sleeping, spread over the workers.
    ideal = plies * args.sleep_ms / 1000 / min(args.workers, args.games)
    medians = {limit: statistics.median(times[limit]) for _, limit in SETTINGS}
    print(f"{'max_failures':>14} {'median s':>9} {'runs s':>24}")
    for label, limit in SETTINGS:
        runs = " ".join(f"{s:.2f}" for s in times[limit])
        print(f"{label:>14} {medians[limit]:>9.2f} {runs:>24}")
    print(f"{'ideal':>14} {ideal:>9.2f}   (the games' sleeping alone, {args.workers} at once)")
    print(f"default / off: {medians[3] / medians[0]:.2f}x (the target: at most 1.15x)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
