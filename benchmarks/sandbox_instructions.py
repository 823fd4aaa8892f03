"""The worker's own instructions per move, its engines sandboxed and not (docs/performance.md).

    python benchmarks/sandbox_instructions.py [--games 4 --more 12]

CPU time per move swings by tens of percent on a shared machine; an instruction count does
not.  The worker (``arena_bench.sandboxing.BenchWorker``: arena's own ``Worker``, in one
process) plays Hex 11x11 games between two instant C engines (``arena bench`` builds it into
~/.cache/arena-bench/), asleep in every wait so that it runs the same code from run to run,
under ``valgrind --tool=callgrind`` (the engines and bubblewrap run natively: callgrind does
not follow children).  Each way is counted twice, ``--games`` and ``--games + --more`` games
after one game that starts the engines; the difference over the difference of the moves is
the instructions of one move, start-up and imports cancelled out.  Prints one JSON line.

Callgrind counts instructions in user space only: what the kernel does for the worker (its
system calls, its wake-ups) is not in the figure; ``perf stat -e instructions`` would count
it where the machine exposes hardware counters (a VM often does not).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena_bench.common import instant_engine  # noqa: E402
from arena_bench.sandboxing import BenchWorker  # noqa: E402

SIZE = 11


def play(sandbox: bool, games: int) -> None:
    """The measured process: one game to start the engines, then ``games`` more; prints their moves."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        worker = BenchWorker(instant_engine().argv, Path(tmp), SIZE, sandbox, asleep=True)
        try:
            worker.play(1)
            print(worker.play(games).moves if games else 0)
        finally:
            worker.close()


def counted(sandbox: bool, games: int) -> tuple[int, int]:
    """Instructions callgrind counted in a whole run of :func:`play`, and the moves it played."""
    with tempfile.TemporaryDirectory(prefix="arena-callgrind-") as tmp:
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={tmp}/out",
                sys.executable,
                __file__,
                "--play",
                "sandboxed" if sandbox else "plain",
                "--games",
                str(games),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no count: {done.stderr[-500:]}")
    return int(found.group(1)), int(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games of the shorter run, after the first")
    parser.add_argument("--more", type=int, default=12, help="games the longer run plays beside those")
    parser.add_argument("--play", choices=("plain", "sandboxed"), help=argparse.SUPPRESS)  # the measured process
    args = parser.parse_args()
    if args.play:
        play(args.play == "sandboxed", args.games)
        return
    per_move: dict[str, float] = {}
    moves: dict[str, int] = {}
    for way, sandbox in (("as it is", False), ("sandboxed", True)):
        (short, short_moves), (long, long_moves) = (counted(sandbox, n) for n in (args.games, args.games + args.more))
        per_move[way], moves[way] = (long - short) / (long_moves - short_moves), long_moves - short_moves
    figures = {"instructions_per_move": per_move, "moves": moves, "ratio": per_move["sandboxed"] / per_move["as it is"]}
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
