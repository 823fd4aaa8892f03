"""The Python stand-in for instant_engine.c, used by `arena bench` when gcc is missing.

Same protocol subset, options and stats file as the C engine (see its header);
it costs tens of microseconds per move instead of a few, which the bench says
when it falls back to it.  Standard library only, so it starts fast.
"""

import os
import random
import resource
import sys
import time


def main(argv: list[str]) -> None:
    opts = dict(zip(argv[::2], argv[1::2]))
    busy = int(opts.get("--busy-us", 0)) / 1e6
    sleep = int(opts.get("--sleep-us", 0)) / 1e6
    stats = opts.get("--stats")
    size, rng, occupied, thinks = 11, random.Random(0), set(), []
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        line = raw.decode().strip()
        if line.startswith("go"):
            start = time.monotonic()
            empty = [(r, c) for r in range(size) for c in range(size) if (r, c) not in occupied]
            if busy:
                until = time.thread_time() + busy
                while time.thread_time() < until:
                    pass
            if sleep:
                time.sleep(sleep)
            if empty:
                r, c = rng.choice(empty)
                out.write(f"move {chr(97 + c)}{r + 1}\n".encode())
            else:
                out.write(b"resign\n")
            out.flush()
            thinks.append(round((time.monotonic() - start) * 1e6))
        elif line.startswith("position "):
            occupied = _stones(line.split()[3:], size)
        elif line == "isready":
            out.write(b"readyok\n")
            out.flush()
        elif line.startswith("newgame "):
            size = next((int(t[5:]) for t in line.split() if t.startswith("size=")), 11)
        elif line.startswith("seed "):
            rng = random.Random(int(line.split()[1]))
        elif line.startswith("arena "):
            out.write(b"id name instant-py\nid author arena bench\narenaok 1\n")
            out.flush()
        elif line == "quit":
            break
    if stats:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu = round((usage.ru_utime + usage.ru_stime) * 1e6)
        with open(os.path.join(stats, f"engine-{os.getpid()}.txt"), "w") as f:
            f.write(f"cpu_us {cpu}\nthink_us {' '.join(map(str, thinks))}\n")


def _stones(moves: list[str], size: int) -> set[tuple[int, int]]:
    stones: set[tuple[int, int]] = set()
    first = None
    for ply, move in enumerate(moves):
        if move == "swap" and ply == 1 and first is not None:
            stones.discard(first)
            stones.add((first[1], first[0]))
            continue
        cell = (int(move[1:]) - 1, ord(move[0]) - 97)
        stones.add(cell)
        if ply == 0:
            first = cell
    return stones


if __name__ == "__main__":
    main(sys.argv[1:])
