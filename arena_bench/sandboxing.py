"""Section 10's figures: what an engine's sandbox (docs/sandbox.md) costs, sandboxed and not,
runs alternated so load changes hit both alike: the time to start an engine and answer its
handshake, and the worker's own CPU and wall time per move once its engines run.

The per-move figures are the worker's own (``getrusage(RUSAGE_SELF)``: the process and its
threads, never its children), measured around :class:`~arena.tournament.worker.Worker`, the
very code a pool's worker runs, in this process: bubblewrap's processes and the engines are
children and do not count, so nothing is estimated and subtracted, and the engines' starts
(the start figure's) are left out by a game of warm-up."""

from __future__ import annotations

import resource
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.engine import proctree
from arena.engine.player import EngineSpec, Sandbox
from arena.engine.sandbox import with_results_hidden
from arena.engine.transport import PipeTransport
from arena.match import TimeControl
from arena.record import Termination
from arena.tournament.schedule import ScheduledGame
from arena.tournament.worker import Worker, WorkerConfig, WorkerError

from .common import med, percentile

HANDSHAKE_S = 10.0
MOVETIME_MS = 1000  # the clock of the per-move games: never reached by the instant engine


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


@dataclass(frozen=True)
class Block:
    """One block of games a worker played: its own CPU and the wall time, per move."""

    cpu_us: float  # user + system (the kernel splits the two by sampling: their sum is the exact figure)
    wall_us: float
    moves: int


@dataclass(frozen=True)
class PerMove:
    """The worker per move, as it is and sandboxed: blocks alternated, pair by pair."""

    plain: list[Block]
    sandboxed: list[Block]

    def ratios(self, field: str) -> list[float]:
        """Sandboxed over as it is, for each pair of blocks played one after the other."""
        return [getattr(s, field) / getattr(p, field) for p, s in zip(self.plain, self.sandboxed, strict=True)]

    def ratio(self, field: str) -> float:
        """The median of the pairs' ratios: load that changes between pairs hits both sides of a pair."""
        return med(self.ratios(field))

    def quartiles(self, field: str) -> tuple[float, float]:
        ratios = self.ratios(field)
        return percentile(ratios, 25), percentile(ratios, 75)


class BenchWorker:
    """A worker of a one-worker run between two copies of an engine, played in this process."""

    def __init__(self, argv: Sequence[str], folder: Path, size: int, sandbox: bool, asleep: bool = False) -> None:
        """``asleep``: the worker sleeps in every wait for its engines (no spin, no shared
        core), so that what it does is the same from run to run (an instruction count's)."""
        results = folder / "out"  # hidden from sandboxed engines, as a run's results folder is
        results.mkdir(exist_ok=True)
        specs = [EngineSpec(name, tuple(argv), str(folder), sandbox=Sandbox() if sandbox else None) for name in "ab"]
        cpus = proctree.usable_cpus()
        # one worker: a CPU has no game, so quick engines share its core or are spun for
        spare = len(cpus) > 1 and not asleep
        config = WorkerConfig(
            "bench",
            "hex",
            {"size": size, "swap": True},
            {spec.name: spec for spec in with_results_hidden(specs, results)},
            TimeControl(movetime_ms=MOVETIME_MS),
            run_tag=proctree.new_tag(),
            spin=spare,
            share_core=spare and proctree.can_pin(),
        )
        self.worker = Worker(config)
        self.played = 0

    def play(self, games: int) -> Block:
        """The worker's own CPU and wall per move over the next ``games`` games."""
        before, wall, moves = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter(), 0
        for _ in range(games):
            seats = ("a", "b") if self.played % 2 == 0 else ("b", "a")
            record = self.worker.play(ScheduledGame(self.played, self.played // 2, seats, self.played // 2))
            if isinstance(record, WorkerError):
                raise RuntimeError(f"the worker could not play a benchmark game: {record.error}")
            self.played += 1
            moves += len(record.moves)
        wall_s, after = time.perf_counter() - wall, resource.getrusage(resource.RUSAGE_SELF)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        return Block(cpu / moves * 1e6, wall_s / moves * 1e6, moves)

    def close(self) -> None:
        for name in list(self.worker.engines):
            self.worker.retire(name)


def worker_per_move(argv: Sequence[str], *, size: int, games: int, blocks: int) -> PerMove:
    """The worker's own CPU and wall per move with two copies of the engine ``argv``, as it
    is and sandboxed: ``blocks`` blocks of ``games`` games each way, alternated (which goes
    first alternates too), after one game each way to start the engines."""
    plain: list[Block] = []
    sandboxed: list[Block] = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        workers = [BenchWorker(argv, Path(tmp), size, sandbox) for sandbox in (False, True)]
        try:
            for worker in workers:
                worker.play(1)
            for pair in range(blocks):
                order = ((0, plain), (1, sandboxed))
                for way, blocks_of in order if pair % 2 == 0 else order[::-1]:  # neither always goes first
                    blocks_of.append(workers[way].play(games))
        finally:
            for worker in workers:
                worker.close()
    return PerMove(plain, sandboxed)
