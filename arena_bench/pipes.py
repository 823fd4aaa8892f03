"""The baseline every manager figure is compared with: a raw line round trip over pipes.

The parent writes the very bytes the referee would write for a move (the
``position`` line and the ``go`` line) with one ``os.write`` and blocks in
``os.read`` until the reply's newline (optionally spinning before it blocks, as
arena's reader does for quick engines on another CPU): no selector, no deadline,
no parsing, no rules.  The peer is either a minimal Python loop (the target's "two
Python processes over pipes") or the C instant engine itself (same engine work as
in the tournament).
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from protocol import codec

# Reads lines, answers each 'go' with a move-sized reply: the least a Python peer can do.
PYTHON_PEER = (
    "import sys\n"
    "read, out = sys.stdin.buffer.readline, sys.stdout.buffer\n"
    "while line := read():\n"
    "    if line.startswith(b'go'):\n"
    "        out.write(b'move f6\\n'); out.flush()\n"
)
WARMUP = 1000
MIN_ROUND_TRIPS = 20_000  # short runs catch the scheduler before it settles the two processes


@dataclass
class RoundTrip:
    wall_us: float  # per round trip
    cpu_us: float  # the parent's own CPU per round trip


def move_messages(games: Sequence[Sequence[str]], go_line: str) -> list[bytes]:
    """What the referee writes for every move of these games (setup ``start``)."""
    messages = []
    for moves in games:
        for ply in range(len(moves)):
            messages.append(f"{codec.format_position('start', moves[:ply])}\n{go_line}\n".encode())
    return messages


def ping_pong(
    peer: Sequence[str], messages: Sequence[bytes], spin_s: float = 0.0, round_trips: int | None = None
) -> RoundTrip:
    """Send each message (cycling through them up to ``round_trips``, MIN_ROUND_TRIPS unless
    given), wait for a one-line answer; time the lot.  ``spin_s``: before blocking, try
    non-blocking reads for up to this long (what arena's engine reader does for quick
    engines that may run on another CPU)."""
    messages = list(messages) * -(-(round_trips or MIN_ROUND_TRIPS) // len(messages))
    proc = subprocess.Popen(list(peer), stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert proc.stdin is not None and proc.stdout is not None
    out, inp = proc.stdin.fileno(), proc.stdout.fileno()
    write, read = os.write, _spinning_reader(inp, spin_s) if spin_s else os.read

    def run(batch: Sequence[bytes]) -> None:
        for message in batch:
            write(out, message)
            reply = read(inp, 65536)
            while not reply.endswith(b"\n"):
                more = read(inp, 65536)
                if not more:
                    raise RuntimeError(f"ping-pong peer {peer[0]} closed its output")
                reply += more

    try:
        run(messages[:WARMUP])
        cpu0, wall0 = time.process_time(), time.perf_counter()
        run(messages)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    finally:
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()
    return RoundTrip(wall / len(messages) * 1e6, cpu / len(messages) * 1e6)


def _spinning_reader(fd: int, spin_s: float) -> Callable[[int, int], bytes]:
    """An ``os.read`` for ``fd`` that tries non-blocking reads for up to ``spin_s`` before
    it blocks in ``poll()``."""
    os.set_blocking(fd, False)
    wait = select.poll()
    wait.register(fd, select.POLLIN)
    now = time.monotonic

    def read(fd: int, size: int) -> bytes:
        until = now() + spin_s
        while True:
            try:
                return os.read(fd, size)
            except BlockingIOError:
                if now() >= until:
                    wait.poll()
                    return os.read(fd, size)

    return read


def python_peer() -> tuple[str, ...]:
    return (sys.executable, "-c", PYTHON_PEER)
