"""What the ``arena`` command costs before it does anything: the CPU of a whole process that
prints the version, the help, or a one-line input error, next to a bare interpreter."""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .common import med

ARENA = (sys.executable, "-m", "arena")
# label -> the command line; the baselines first.
COMMANDS: dict[str, tuple[str, ...]] = {
    "python -c pass (baseline)": (sys.executable, "-c", "pass"),
    "python -c 'import click' (baseline)": (sys.executable, "-c", "import click"),
    "arena --version": (*ARENA, "--version"),
    "arena --help": (*ARENA, "--help"),
    "arena play --game hexx (input error)": (*ARENA, "play", "--game", "hexx", "a", "b"),
}
BUDGET_S = 0.25  # of CPU for each arena command


@dataclass(frozen=True)
class StartupFigures:
    cpu_s: dict[str, float]  # label -> median CPU of the whole process, user + system
    wall_s: dict[str, float]


def child_cpu_s(argv: Sequence[str], cwd: Path | None = None) -> tuple[float, float]:
    """Run one command to its end, output discarded; its CPU (user + system) and wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def measure(runs: int, commands: dict[str, tuple[str, ...]] = COMMANDS) -> StartupFigures:
    """The median of ``runs`` runs of each command, interleaved so load changes hit all alike."""
    cpu: dict[str, list[float]] = {label: [] for label in commands}
    wall: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(runs):
        for label, argv in commands.items():
            spent, elapsed = child_cpu_s(argv)
            cpu[label].append(spent)
            wall[label].append(elapsed)
    return StartupFigures({k: med(v) for k, v in cpu.items()}, {k: med(v) for k, v in wall.items()})
