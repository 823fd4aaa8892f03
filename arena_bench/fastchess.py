"""The fastchess side of the manager section: the same measurement on fastchess.

fastchess (a chess tournament manager in C++) plays a match between two copies of
``benchmarks/uci_random_mover.c``, a UCI engine that answers every ``go`` at once with a
random legal move and reports its own CPU at exit, one game at a time
(``-concurrency 1``), engines kept from game to game (its default), 1 s a move as arena's
side has.  Its CPU is counted as arena's is: fastchess and the engines it waited for
(``RUSAGE_CHILDREN`` of the process that waited for fastchess) minus what the engines
report, divided by the moves the engines made.  fastchess is not installed with arena:
``arena bench -s manager --fastchess PATH`` (or ``ARENA_FASTCHESS=PATH``) names a binary.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .common import BENCHMARKS, compiled, read_engine_stats

ENV_VAR = "ARENA_FASTCHESS"


@dataclass
class FastchessRun:
    games: int
    moves: int
    wall_s: float
    cpu_s: float  # fastchess and its engines
    engine_cpu_s: float  # what the engines reported for themselves

    @property
    def manager_cpu_us(self) -> float:
        """fastchess's own CPU per move, the engines' excluded."""
        return (self.cpu_s - self.engine_cpu_s) / self.moves * 1e6


def find_fastchess(given: str | None) -> tuple[Path | None, str]:
    """The fastchess binary named by ``given`` or ``$ARENA_FASTCHESS``, or None and why."""
    name = given or os.environ.get(ENV_VAR)
    if not name:
        return None, f"no fastchess binary given (--fastchess PATH or {ENV_VAR}=PATH)"
    path = shutil.which(name) or (name if Path(name).is_file() else None)
    if path is None or not os.access(path, os.X_OK):
        return None, f"{name}: no such executable"
    return Path(path).resolve(), ""


def uci_mover() -> tuple[Path | None, str]:
    """The random UCI mover, compiled once per version of its source."""
    return compiled(BENCHMARKS / "uci_random_mover.c")


def play_fastchess(binary: Path, mover: Path, rounds: int) -> FastchessRun:
    """A fastchess match of ``2 x rounds`` games between two random movers."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-fastchess-") as tmp:
        folder = Path(tmp)
        stats = folder / "stats"
        stats.mkdir()
        engines = []
        for name, seed in (("mover-a", 1), ("mover-b", 2)):
            engines += ["-engine", f"cmd={mover}", f"name={name}", f"args=--stats {stats} --seed {seed}"]
        command = [str(binary), *engines, "-each", "st=1", "-rounds", str(rounds), "-games", "2", "-concurrency", "1"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise RuntimeError(f"fastchess failed (exit {done.returncode}): {done.stdout.strip()[-1000:]}")
        own = read_engine_stats(stats)
    cpu = lambda u: u.ru_utime + u.ru_stime
    moves = sum(s["moves"] for s in own)
    if moves == 0:
        raise RuntimeError(f"fastchess played no move: {done.stdout.strip()[-1000:]}")
    return FastchessRun(
        games=2 * rounds,
        moves=moves,
        wall_s=wall,
        cpu_s=cpu(after) - cpu(before),
        engine_cpu_s=sum(s["cpu_us"] for s in own) / 1e6,
    )
