"""Memory of a many-engine tournament against the workers' idle-engine bound (docs/performance.md).

    python benchmarks/engine_memory.py [--engines 32] [--workers 2] [--bounds all,4] [--repeats 1] [--quick]

A round-robin of ``--engines`` copies of the bundled random engine (a Python process that
imports arena's rules, about 30 MB each) on Hex 5, played by ``--workers`` local workers,
once per idle bound (``idle_engines``; ``all`` keeps every engine a worker met, as arena
did before the bound).  While each run plays, a thread sums the resident memory (VmRSS)
of every engine process every 20 ms; the table gives the peak of that sum, the most
engine processes at once, how many engine processes were started in all, and games per
second (what restarting engines costs).  With ``--repeats N`` the bounds' runs are
interleaved N times (a change in a shared machine's load then hits each alike): games per
second are then the median of a bound's runs (the other columns are its last run's), and
the last column is that median against the first bound's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.tournament.config import load_tournament  # noqa: E402
from arena.tournament.runner import run_tournament  # noqa: E402

MARKER = b"engines.random_engine"  # in every engine's command line, in no other process's


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rpartition(")")[2].split()[1])


def _ours(pid: int) -> bool:
    """Started by this script's runs: its engines are children of its workers, its children
    (the machine may run other tournaments with the same engine)."""
    for _ in range(3):
        pid = _parent(pid)
        if pid == os.getpid():
            return True
        if pid <= 1:
            return False
    return False


def engine_processes() -> dict[int, int]:
    """pid -> resident KiB of every live engine process of these runs."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if MARKER not in f.read() or not _ours(int(entry)):
                    continue
            with open(f"/proc/{entry}/status") as f:
                rss = next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), None)
        except (OSError, ValueError):  # gone meanwhile
            continue
        if rss is not None:  # a zombie has no VmRSS line
            found[int(entry)] = rss
    return found


class Sampler:
    """The peak sum of the engines' RSS and the most engines at once, sampled in a thread."""

    def __init__(self, every_s: float = 0.02) -> None:
        self.every_s = every_s
        self.peak_kib = self.peak_count = 0
        self.pids: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            found = engine_processes()
            self.pids.update(found)
            self.peak_kib = max(self.peak_kib, sum(found.values()))
            self.peak_count = max(self.peak_count, len(found))
            time.sleep(self.every_s)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def tournament_file(folder: Path, engines: int, workers: int, rounds: int) -> Path:
    blocks = "".join(
        f'[[engines]]\nname = "r{i:02d}"\ncommand = ["{{python}}", "-m", "engines.random_engine"]\n'
        for i in range(engines)
    )
    path = folder / "many.toml"
    path.write_text(
        f'name = "many"\ngame = "hex"\nrounds = {rounds}\nseed = 1\nworkers = {workers}\n'
        f"[options]\nsize = 5\nswap = false\n[time_control]\nmovetime_ms = 5000\n{blocks}"
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--bounds", default="all,4", help="idle bounds, comma-separated; all: unbounded")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each bound, interleaved")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: proves the script works")
    args = parser.parse_args()
    if args.quick:
        args.engines, args.bounds = 6, "all,0"
    bounds = [None if b == "all" else int(b) for b in args.bounds.split(",")]
    games = args.engines * (args.engines - 1) * args.rounds
    print(
        f"{args.engines}-engine round-robin, {games} games of Hex 5, {args.workers} workers, the bundled "
        f"random engine; load average before: {os.getloadavg()[0]:.2f}"
    )
    runs: dict[int, list[tuple[float, Sampler]]] = {k: [] for k in range(len(bounds))}
    with tempfile.TemporaryDirectory() as tmp:
        path = tournament_file(Path(tmp), args.engines, args.workers, args.rounds)
        t = load_tournament(path)
        for repeat in range(args.repeats):
            for k, bound in enumerate(bounds):
                idle = args.engines if bound is None else bound  # engines - 2 idle at most: every one kept
                with Sampler() as sampled:
                    start = time.perf_counter()
                    run_tournament(t, Path(tmp) / f"out-{k}-{repeat}", idle_engines=idle)
                    seconds = time.perf_counter() - start
                runs[k].append((games / seconds, sampled))
    print(
        f"{'idle bound':>16} {'peak engines':>13} {'peak RSS MiB':>13} {'engines started':>16} {'games/s':>8} "
        f"{'vs first':>9}"
    )
    first = statistics.median(rate for rate, _ in runs[0])
    for k, bound in enumerate(bounds):
        rate, sampled = statistics.median(rate for rate, _ in runs[k]), runs[k][-1][1]
        label = "all (before)" if bound is None else str(bound)
        print(
            f"{label:>16} {sampled.peak_count:>13} {sampled.peak_kib / 1024:>13.0f} "
            f"{len(sampled.pids):>16} {rate:>8.1f} {rate / first:>8.2f}x"
        )
    if args.repeats > 1:
        for k, bound in enumerate(bounds):
            print(f"   runs of {'all' if bound is None else bound}: " + " ".join(f"{r:.1f}" for r, _ in runs[k]))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
