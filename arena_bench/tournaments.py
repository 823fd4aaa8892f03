"""Sections 2-4: real tournaments (``run_tournament``, workers, storage and all)
between instant engines, each in a fresh child process (arena_bench/child.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.results import strictjson

from .common import ROOT, InstantEngine, read_engine_stats


@dataclass
class TournamentRun:
    workers: int
    games: int
    plies: int
    moves: list[list[str]]
    terminations: dict[str, int]
    wall_s: float
    coordinator_cpu_s: float
    children_cpu_s: float  # workers + engines
    engine_cpu_s: float  # what the engines reported for themselves
    engine_processes: int
    coordinator_rss_kib: int
    largest_child_rss_kib: int
    worker_rss_kib: list[int] | None
    progress_cpu_s: float = 0.0  # CPU the coordinator spent in the live progress
    site_cpu_s: float = 0.0  # CPU the live report site cost (its final write's forked page writers included)
    server_cpu_s: float = 0.0  # `arena run --serve`'s server process (not the manager's: not in children_cpu_s)
    steady_plies: int = 0  # the moves of the games after the first
    steady_manager_cpu_s: float = 0.0  # coordinator and workers (engines apart), from the first game stored to the last
    steady_workers_cpu_s: float = 0.0  # the workers' share of it
    steady_server_cpu_s: float = 0.0  # the server process, over the same games

    @property
    def manager_cpu_s(self) -> float:
        """Coordinator and workers, engines excluded."""
        return self.coordinator_cpu_s + self.children_cpu_s - self.engine_cpu_s


def play_tournament(
    engine: InstantEngine,
    *,
    workers: int,
    rounds: int,
    size: int,
    engine_args: Sequence[str] = (),
    sample_rss: bool = False,
    cpus: Sequence[int] = (),
    affinity: bool = False,
    note: Callable[[str], None] = print,
    progress: str | None = None,
    sandbox: bool = False,
    serve: bool = False,
    viewers: int = 0,
    latencies: list[float] | None = None,
) -> TournamentRun:
    """A Hex round-robin between two copies of the instant engine (2 x rounds games);
    ``cpus``: pin the whole process tree to these cores, as ``taskset`` would;
    ``affinity``: the tournament file's ``affinity = true`` (one core per worker);
    ``progress``: show the live progress in this mode ("lines" or "live"), as `arena run` does;
    ``sandbox``: both engines in their sandboxes (their --stats files cannot reach the folder
    from there: the run counts no engine CPU of its own); ``serve``: `arena run --serve`'s server
    (a process of its own, its CPU counted apart), ``viewers`` pages connected to its live feed
    (this process's threads, each move's delay from its file to the page added to ``latencies``).  Games
    that ended by a fault (a time loss on a loaded machine) are counted in the figures and
    reported through ``note``: a benchmark run is not thrown away for one of them."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        folder = Path(tmp)
        stats = folder / "stats"
        stats.mkdir()
        command = [*engine.argv, "--stats", str(stats), *engine_args]
        engines = "".join(
            f'\n[[engines]]\nname = "{name}"\ncommand = {strictjson.dumps(command)}\nsandbox = {str(sandbox).lower()}\n'
            for name in ("instant-a", "instant-b")
        )
        (folder / "bench.toml").write_text(
            f'name = "bench"\ngame = "hex"\nrounds = {rounds}\nseed = 1\nworkers = {workers}\n'
            f"affinity = {'true' if affinity else 'false'}\n"
            f"[options]\nsize = {size}\nswap = true\n[time_control]\nmovetime_ms = 1000\n{engines}"
        )
        config = {
            "file": str(folder / "bench.toml"),
            "out": str(folder / "out"),
            "workers": workers,
            "sample_rss": sample_rss,
            "cpus": list(cpus),
            "progress": progress,
            "url_file": str(folder / "url") if serve else "",
            "viewers": viewers,
        }
        (folder / "config.json").write_text(strictjson.dumps(config))
        pages = [LivePage(folder / "url", latencies) for _ in range(viewers)]
        for page in pages:
            page.start()
        done = subprocess.run(
            [sys.executable, "-m", "arena_bench.child", str(folder / "config.json")],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        for page in pages:
            page.join(timeout=30)
        if done.returncode != 0:
            raise RuntimeError(f"benchmark tournament failed: {done.stderr.strip()[-2000:]}")
        if pages and not all(page.events for page in pages):
            note(
                f"   note: {sum(not p.events for p in pages)} of {len(pages)} pages saw no move (no game lasted "
                "long enough to be shown, or the run was over before they connected)"
            )
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        engine_stats = read_engine_stats(stats)
    faults = {code: n for code, n in result["terminations"].items() if code != "normal"}
    if faults:
        note(
            f"   note: {sum(faults.values())} of {result['games']} benchmark games ended by a fault "
            f"({', '.join(f'{n} {code}' for code, n in sorted(faults.items()))}); they are in the figures"
        )
    return TournamentRun(
        workers=workers,
        engine_cpu_s=sum(s["cpu_us"] for s in engine_stats) / 1e6,
        engine_processes=len(engine_stats),
        **result,
    )


class LivePage(threading.Thread):
    """A page watching a run's live feed, as a browser's EventSource reads it: it connects
    once the run printed its link (to ``url_file``) and reads until the server stops."""

    def __init__(self, url_file: Path, latencies: list[float] | None) -> None:
        super().__init__(daemon=True)
        self.url_file, self.latencies = url_file, latencies
        self.events = 0

    def run(self) -> None:
        deadline = time.monotonic() + 60
        while not self.url_file.exists() or not self.url_file.read_text():
            if time.monotonic() > deadline:
                return
            time.sleep(0.01)
        link = re.search(r"http://\S+", self.url_file.read_text())
        if link is None:
            return
        try:
            with urllib.request.urlopen(link.group(0) + "0/feed", timeout=30) as feed:
                kind = ""
                for raw in feed:
                    line = raw.decode()
                    if line.startswith("event: "):
                        kind = line[7:].strip()
                    elif line.startswith("data: ") and kind in ("game", "moves"):  # a game whole, or its news
                        self.events += 1
                        if self.latencies is not None:
                            self.latencies.append(time.time() - json.loads(line[6:])["played_at"])
        except (OSError, ValueError):
            return  # the server stopped with the run


def machine_parallel_wall(engine: InstantEngine, *, processes: int, moves: int, size: int, busy_us: int) -> float:
    """Seconds for ``processes`` copies of the busy engine to make ``moves`` moves between
    them with no arena at all (input from a file, output discarded): what the machine
    itself gives in parallel, the ceiling for arena's scaling."""
    share = -(-moves // processes)
    script = f"newgame hex 0 2 size={size}\nseed 1\n" + "position start moves\ngo\n" * share
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        path = Path(tmp) / "moves.txt"
        path.write_text(script)
        start = time.perf_counter()
        procs = []
        for _ in range(processes):
            with open(path, "rb") as feed:
                procs.append(
                    subprocess.Popen([*engine.argv, "--busy-us", str(busy_us)], stdin=feed, stdout=subprocess.DEVNULL)
                )
        for proc in procs:
            proc.wait()
        return time.perf_counter() - start
