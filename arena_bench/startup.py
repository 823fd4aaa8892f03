"""What a process costs before it does anything: the CPU of a whole ``arena`` command that
prints the version, the help, or a one-line input error, and of a bundled engine that starts,
takes a game and quits (a run of many engines starts one per game it cannot keep), each next
to a bare interpreter."""

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
# What the referee says to an engine it starts for one game and then retires: the handshake,
# a Hex game (the default options' tokens), ready, quit.
ONE_GAME = b"arena 1\nnewgame hex 0 2 size=11 swap=true\nseed 1\nisready\nquit\n"
ENGINE_STARTS: dict[str, tuple[str, ...]] = {
    "python -c pass (baseline)": (sys.executable, "-c", "pass"),
    "random engine: start, a game, quit": (sys.executable, "-m", "engines.random_engine"),
    "search engine: start, a game, quit": (sys.executable, "-m", "engines.search"),
}
ENGINE_BUDGET_S = 0.1  # of CPU for the random engine's start; it was 0.15-0.2 s with pydantic


@dataclass(frozen=True)
class StartupFigures:
    cpu_s: dict[str, float]  # label -> median CPU of the whole process, user + system
    wall_s: dict[str, float]


def child_cpu_s(argv: Sequence[str], cwd: Path | None = None, given: bytes = b"") -> tuple[float, float]:
    """Run one command to its end, ``given`` as its input and its output discarded; its CPU
    (user + system) and wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, input=given, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def measure(runs: int, commands: dict[str, tuple[str, ...]] = COMMANDS, given: bytes = b"") -> StartupFigures:
    """The median of ``runs`` runs of each command (``given`` as its input), interleaved so
    load changes hit all alike."""
    cpu: dict[str, list[float]] = {label: [] for label in commands}
    wall: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(runs):
        for label, argv in commands.items():
            spent, elapsed = child_cpu_s(argv, given=given)
            cpu[label].append(spent)
            wall[label].append(elapsed)
    return StartupFigures({k: med(v) for k, v in cpu.items()}, {k: med(v) for k, v in wall.items()})
