"""What the transport's own calls cost the referee for one ``go`` (docs/performance.md).

    python benchmarks/transport_calls.py [--goes 2000] [--repeats 7]

One protocol v1 engine (the instant C engine of ``arena bench``, built by it into
~/.cache/arena-bench/; run ``arena bench -s manager --quick`` once first), waited for
asleep, and the calls a conversation makes for one move and nothing else: ``poll_lines``,
``send`` of the position and go lines, ``read_line`` up to the move.  Prints the process
CPU per go, the least of ``--repeats`` timings of ``--goes`` goes each: the figure a busy
machine disturbs least, so that two trees can be compared run against run.
"""

from __future__ import annotations

import argparse
import sys
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.engine.player import EngineSpec  # noqa: E402
from arena.engine.process import EngineProcess  # noqa: E402
from arena.engine.transport import PipeSettings  # noqa: E402
from arena.record import Termination  # noqa: E402

CACHE = Path.home() / ".cache" / "arena-bench"
WARM_UP = 300


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--goes", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    engines = sorted(CACHE.glob("instant_engine-*"))
    if not engines:
        sys.exit(f"no instant engine in {CACHE}: run 'arena bench -s manager --quick' once first")
    engine = EngineProcess(EngineSpec("instant", (str(engines[-1]),)), pipe=PipeSettings(spin=False))
    engine.start()
    transport = engine.transport

    def one_go() -> None:
        transport.poll_lines()
        transport.send("position start\ngo movetime 1000", time.monotonic() + 5)
        while not transport.read_line(time.monotonic() + 5, Termination.TIMEOUT, "no move").startswith("move"):
            pass

    try:
        for _ in range(WARM_UP):
            one_go()
        timings = timeit.repeat(one_go, timer=time.process_time, number=args.goes, repeat=args.repeats)
    finally:
        engine.quit()
    print(f"{min(timings) / args.goes * 1e6:.2f} us of CPU per go (least of {args.repeats} x {args.goes})")


if __name__ == "__main__":
    main()
