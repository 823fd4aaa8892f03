"""Small helpers shared by the benchmark sections: statistics, timing, engines on disk."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import TypedDict

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


def percentile(values: Sequence[float], p: float) -> float:
    """The p-th percentile (0..100) by linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def med(values: Sequence[float]) -> float:
    return median(values) if values else float("nan")


@dataclass(frozen=True)
class InstantEngine:
    """How to start the instant engine, and what it is (for the printed notes)."""

    argv: tuple[str, ...]
    kind: str  # "C" or "Python"
    note: str


def instant_engine() -> InstantEngine:
    """The C instant engine, compiled once per source version into a cache folder;
    the Python stand-in (with a note saying so) when gcc is missing or fails."""
    source = BENCHMARKS / "instant_engine.c"
    fallback = BENCHMARKS / "instant_engine.py"
    if not source.exists():
        raise FileNotFoundError(f"{source} is missing: run arena bench from a source checkout")
    exe, why = compiled(source)
    if exe is None:
        return InstantEngine(
            (sys.executable, str(fallback)),
            "Python",
            f"{why}: using the Python instant engine, whose own cost per move is far higher than the C "
            "one's; figures are pessimistic",
        )
    return InstantEngine((str(exe),), "C", f"C ({source.relative_to(ROOT)}, gcc -O2, cached as {exe})")


def compiled(source: Path) -> tuple[Path | None, str]:
    """``source`` (one C file) built with ``gcc -O2`` once per version of its text into the
    cache folder: the executable, or None and why not."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        return None, "gcc not found"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    exe = _cache_dir() / f"{source.stem}-{digest}"
    if not exe.exists():
        tmp = exe.with_name(f"{exe.name}.{os.getpid()}.tmp")
        done = subprocess.run([compiler, "-O2", "-o", str(tmp), str(source)], capture_output=True, text=True)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["?"])[-1]
            return None, f"gcc failed on {source.name} ({last})"
        os.replace(tmp, exe)
    return exe, ""


def _cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arena-bench"
    try:
        base.mkdir(parents=True, exist_ok=True)
        if os.access(base, os.W_OK):
            return base
    except OSError:
        pass
    fallback = Path(tempfile.gettempdir()) / f"arena-bench-{os.getuid()}"
    fallback.mkdir(exist_ok=True)
    return fallback


class EngineStats(TypedDict):
    pid: int
    cpu_us: int  # the process's own CPU
    think_us: list[int]  # its time on each move, as it measured it
    moves: int  # the moves it made (the UCI mover says; else its think times)


def read_engine_stats(folder: Path) -> list[EngineStats]:
    """The stats files the instant engine writes at exit (one per process)."""
    stats = []
    for path in sorted(folder.glob("engine-*.txt")):
        fields = {key: value for key, _, value in (line.partition(" ") for line in path.read_text().splitlines())}
        stats.append(
            EngineStats(
                pid=int(path.stem.split("-")[1]),
                cpu_us=int(fields.get("cpu_us", 0)),
                think_us=(think := [int(t) for t in fields.get("think_us", "").split()]),
                moves=int(fields.get("moves", len(think))),
            )
        )
    return stats
