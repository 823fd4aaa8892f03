"""What watching costs a worker's own CPU per move (docs/performance.md, docs/serve.md).

    python benchmarks/watched_worker.py [--block 20] [--pairs 11]

The section `arena bench -s watching` measures the whole manager, whose CPU per move swings
by tens of percent on a shared machine; this measures the worker alone.  arena's own
``Worker`` plays blocks of ``--block`` games of Hex 11x11 between two copies of the instant
engine (benchmarks/instant_engine.c, as the bench compiles it) in this process, in three
ways alternated (their order reversed every other time): no live folder at all; a live
folder nobody watches; and one whose watching mark is fresh (its games shown as `arena
serve` would read them).  Per block the process's own CPU (``getrusage(RUSAGE_SELF)``: its
threads, the live lines' thread too, never the engines, which are its children) over the
block's moves; printed: each way's median, the median of the pairs' ratios and differences to
"nobody watching", and the wall time of a game.  To compare another tree, copy this file into
it and run it there.  Prints one JSON line last.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.engine.player import EngineSpec  # noqa: E402
from arena.match import TimeControl  # noqa: E402
from arena.tournament.livegames import WATCHING, folder_channel, touch_watching  # noqa: E402
from arena.tournament.schedule import ScheduledGame  # noqa: E402
from arena.tournament.worker import Worker, WorkerConfig, WorkerError  # noqa: E402
from arena_bench.common import instant_engine  # noqa: E402

WAYS = ("no live folder", "nobody watching", "watched")


def own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Blocks:
    """A worker for each way, and the games' ids going on across them."""

    def __init__(self, live: Path, block: int, sleep_us: int = 0) -> None:
        engine = instant_engine()
        argv = (*engine.argv, "--sleep-us", str(sleep_us)) if sleep_us else engine.argv
        specs = {name: EngineSpec(name, argv) for name in ("a", "b")}

        def worker(live_dir: str) -> Worker:
            clock = TimeControl(movetime_ms=1000)
            return Worker(WorkerConfig("bench", "hex", {"size": 11, "swap": True}, specs, clock, live_dir=live_dir))

        self.live, self.block, self.next_id = live, block, 0
        self.workers = dict(zip(WAYS, (worker(""), worker(str(live)), worker(str(live))), strict=True))

    def play(self, way: str) -> tuple[float, float]:
        """A block's CPU per move (us) and wall time per game (ms)."""
        if way == "watched":
            touch_watching(self.live)
        else:
            (self.live / WATCHING).unlink(missing_ok=True)
        worker = self.workers[way]
        if worker.live is not None:
            worker.live = folder_channel(self.live)  # its mark looked at afresh, not up to CHECK_S later
        cpu, wall, moves = own_cpu_s(), time.perf_counter(), 0
        for _ in range(self.block):
            self.next_id += 1
            seats = ("a", "b") if self.next_id % 2 else ("b", "a")
            record = worker.play(ScheduledGame(self.next_id, 0, seats, seed=self.next_id))
            assert not isinstance(record, WorkerError), record
            moves += len(record["moves"])
        return (own_cpu_s() - cpu) / moves * 1e6, (time.perf_counter() - wall) / self.block * 1e3

    def shutdown(self) -> None:
        for worker in self.workers.values():
            worker.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--block", type=int, default=20)
    parser.add_argument("--pairs", type=int, default=11)
    parser.add_argument("--sleep-us", type=int, default=0, help="the engines think this long a move (asleep)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-watched-worker-") as tmp:
        live = Path(tmp) / "live"
        live.mkdir()
        blocks = Blocks(live, args.block, args.sleep_us)
        try:
            for way in WAYS:  # the engines started, the code warm
                blocks.play(way)
            cpu: dict[str, list[float]] = {way: [] for way in WAYS}
            wall: dict[str, list[float]] = {way: [] for way in WAYS}
            for pair in range(args.pairs):
                for way in WAYS if pair % 2 == 0 else tuple(reversed(WAYS)):
                    us, ms = blocks.play(way)
                    cpu[way].append(us)
                    wall[way].append(ms)
        finally:
            blocks.shutdown()
    median = statistics.median
    base = cpu["nobody watching"]
    figures = {}
    for way in WAYS:
        ratios = [value / b for value, b in zip(cpu[way], base, strict=True)]
        more = [value - b for value, b in zip(cpu[way], base, strict=True)]
        figures[way] = {
            "cpu_us_per_move": median(cpu[way]),
            "x_nobody_watching": median(ratios),
            "range": [min(ratios), max(ratios)],
            "more_us_per_move": median(more),
            "game_wall_ms": median(wall[way]),
        }
        print(
            f"{way:16} {median(cpu[way]):6.2f} us a move, x nobody watching {median(ratios):.3f} "
            f"({min(ratios):.2f}-{max(ratios):.2f}), {median(more):+.2f} us; a game {median(wall[way]):.1f} ms"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(json.dumps({"block": args.block, "pairs": args.pairs, "load": os.getloadavg()[0], "ways": figures}))


if __name__ == "__main__":
    main()
