"""What reading an engine's CPU time for its ``cpu_seconds`` budget costs the worker each move (docs/performance.md).

    python benchmarks/cpu_budget_read.py [--reads 20000] [--moves 3000] [--pairs 9]

Under ``cpu_seconds`` the worker reads its engine's CPU time before every ``go`` (an engine
that ignores SIGXCPU is stopped there).  For the instant C engine of ``arena bench`` (built
by it into ~/.cache/arena-bench/), as it is and sandboxed: the worker's CPU per read, the
/proc stat file opened, read and closed each time (``proctree.cpu_time_used``) against kept
open and read again (``proctree.CpuClock``, what the budget uses); and the worker's CPU per
``go`` (asleep in every wait) with a budget and without one.  Each pair of figures is taken
alternated, ``--pairs`` times; prints the medians and the median of the pairs' ratios as one
JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.engine import proctree  # noqa: E402
from arena.engine.player import EngineSpec, Sandbox  # noqa: E402
from arena.engine.process import EngineProcess  # noqa: E402
from arena.engine.transport import PipeSettings, PipeTransport  # noqa: E402
from arena.rules import make_game  # noqa: E402
from arena_bench.common import instant_engine  # noqa: E402

WARM_UP = 200
BUDGET_S = 100_000  # never reached: the read is what is measured


def cpu_us(call: Callable[[], object], times: int) -> float:
    """Our process's CPU per call, in microseconds."""
    started = time.process_time()
    for _ in range(times):
        call()
    return (time.process_time() - started) / times * 1e6


def started(folder: str, sandbox: bool, budget: bool) -> EngineProcess:
    spec = EngineSpec(
        "instant",
        instant_engine().argv,
        folder,
        cpu_seconds=BUDGET_S if budget else None,
        sandbox=Sandbox() if sandbox else None,
    )
    proc = EngineProcess(spec, pipe=PipeSettings(spin=False))
    proc.start()
    proc.new_game(make_game("hex", {"size": 11, "swap": False}), 0, 1, [])
    for _ in range(WARM_UP):
        proc.go("position start", "go movetime 1000", 1.0)
    return proc


def pairs(first: Callable[[], float], second: Callable[[], float], count: int) -> dict[str, float]:
    """Both figures ``count`` times, alternated (which goes first alternating too)."""
    a: list[float] = []
    b: list[float] = []
    for k in range(count):
        for measure, into in ((first, a), (second, b)) if k % 2 == 0 else ((second, b), (first, a)):
            into.append(measure())
    return {
        "first_us": statistics.median(a),
        "second_us": statistics.median(b),
        "ratio": statistics.median(y / x for x, y in zip(a, b, strict=True)),
    }


def one_way(folder: str, sandbox: bool, reads: int, moves: int, count: int) -> dict[str, float]:
    """The read's cost and a go's, with a budget and without, for the engine as it is or sandboxed."""
    budgeted, free = started(folder, sandbox, True), started(folder, sandbox, False)
    assert isinstance(budgeted.transport, PipeTransport)
    clock = proctree.CpuClock(pid := budgeted.transport.child.engine_pid)
    try:
        read = pairs(
            lambda: cpu_us(lambda: proctree.cpu_time_used(pid), reads),
            lambda: cpu_us(clock.seconds, reads),
            count,
        )
        go = pairs(
            lambda: cpu_us(lambda: free.go("position start", "go movetime 1000", 1.0), moves),
            lambda: cpu_us(lambda: budgeted.go("position start", "go movetime 1000", 1.0), moves),
            count,
        )
    finally:
        clock.close()
        budgeted.quit()
        free.quit()
    return {
        "read_opened_each_time_us": read["first_us"],
        "read_kept_open_us": read["second_us"],
        "read_kept_open_ratio": read["ratio"],
        "go_without_budget_us": go["first_us"],
        "go_with_budget_us": go["second_us"],
        "go_with_budget_ratio": go["ratio"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=20_000)
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--pairs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        figures = {
            way: one_way(folder, sandbox, args.reads, args.moves, args.pairs)
            for way, sandbox in (("as it is", False), ("sandboxed", True))
        }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
