"""Section 10's figures: what an engine's sandbox (docs/sandbox.md) costs, as the time to start
an engine and answer its handshake, sandboxed and not, runs alternated so load changes hit
both alike."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine.player import EngineSpec, Sandbox
from arena.engine.transport import PipeTransport
from arena.record import Termination

from .common import med

HANDSHAKE_S = 10.0


@dataclass(frozen=True)
class StartTimes:
    plain_s: float  # median wall from launch to 'arenaok', as it is
    sandboxed_s: float  # the same in its sandbox
    runs: int


def start_to_handshake_s(spec: EngineSpec) -> float:
    """Seconds from launching the engine to its 'arenaok' (then it is told to quit)."""
    transport = PipeTransport(spec)
    started = time.perf_counter()
    transport.launch()
    try:
        transport.send("arena 1", time.monotonic() + HANDSHAKE_S)
        while not transport.read_line(time.monotonic() + HANDSHAKE_S, Termination.HANDSHAKE, "no arenaok").startswith(
            "arenaok"
        ):
            pass
        return time.perf_counter() - started
    finally:
        transport.close("quit")


def start_times(argv: Sequence[str], runs: int) -> StartTimes:
    """The median start of the engine ``argv`` runs, plain and sandboxed, alternated."""
    plain: list[float] = []
    sandboxed: list[float] = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        spec = EngineSpec("instant", tuple(argv), folder)
        boxed = EngineSpec("instant", tuple(argv), folder, sandbox=Sandbox())
        for _ in range(runs):
            plain.append(start_to_handshake_s(spec))
            sandboxed.append(start_to_handshake_s(boxed))
    return StartTimes(med(plain), med(sandboxed), runs)
