"""What one ``go`` costs the referee under each way of waiting for the engine (docs/performance.md).

    python benchmarks/waiting_modes.py [--moves 3000]

One protocol v1 conversation with the instant C engine of ``arena bench`` (built by it into
~/.cache/arena-bench/; run ``arena bench -s manager --quick`` once first), Hex 11x11, asked
``--moves`` times for a move after 200 moves of warm-up, once per waiting strategy: asleep
(``spin = False``), spinning (the default where no core is lent) and with the engine on our
core (``CoreShare``).  Prints the referee process's CPU and the wall time per ``go`` as one
JSON line, so that runs of two trees can be alternated and compared pair by pair.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.engine.player import EngineSpec  # noqa: E402
from arena.engine.process import EngineProcess  # noqa: E402
from arena.engine.transport import PipeSettings  # noqa: E402
from arena.engine.waiting import CoreShare  # noqa: E402
from arena.rules import make_game  # noqa: E402

CACHE = Path.home() / ".cache" / "arena-bench"
WARM_UP = 200


def per_go(pipe: PipeSettings, engine: str, moves: int) -> tuple[float, float]:
    """Microseconds of our CPU and of wall time per go, after the warm-up."""
    proc = EngineProcess(EngineSpec("instant", (engine,)), pipe=pipe)
    proc.start()
    try:
        proc.new_game(make_game("hex", {"size": 11, "swap": False}), 0, 1, [])
        for _ in range(WARM_UP):
            proc.go("position start", "go movetime 1000", 1.0)
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(moves):
            proc.go("position start", "go movetime 1000", 1.0)
        return (time.process_time() - cpu) / moves * 1e6, (time.perf_counter() - wall) / moves * 1e6
    finally:
        proc.quit()
        if pipe.share is not None:
            pipe.share.vacate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=3000)
    args = parser.parse_args()
    engines = sorted(CACHE.glob("instant_engine-*"))
    if not engines:
        sys.exit(f"no instant engine in {CACHE}: run 'arena bench -s manager --quick' once first")
    cpus = sorted(os.sched_getaffinity(0))
    modes = {
        "sleep": PipeSettings(spin=False),
        "spin": PipeSettings(),
        "share": PipeSettings(share=CoreShare(cpus)),
    }
    print(json.dumps({mode: per_go(pipe, str(engines[-1]), args.moves) for mode, pipe in modes.items()}))


if __name__ == "__main__":
    main()
