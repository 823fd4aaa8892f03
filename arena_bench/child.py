"""Runs one tournament in a fresh process and prints what it cost as one JSON line.

Used by ``arena bench`` (see arena_bench/tournaments.py): the parent writes a
tournament file, starts ``python -m arena_bench.child CONFIG``, and subtracts the
engines' own CPU (which they report at exit) from this process tree's.

CPU accounting: ``RUSAGE_SELF`` is the coordinator; ``RUSAGE_CHILDREN`` covers
every descendant that was waited for: the pool's workers (joined at the end)
and, through them, the engines (each reaped by its worker), and `arena run
--serve`'s server process, whose own CPU is taken out and reported apart.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from arena.tournament.observers import QuietObserver

if TYPE_CHECKING:
    from arena.record import GameRecord
    from arena.results.export import Summary
    from arena.results.site.live import LiveSite
    from arena.results.sprt import SprtTest
    from arena.serve.beside import ServeBeside
    from arena.tournament.config import Tournament
    from arena.tournament.observers import RunObserver
    from arena.tournament.progress import Mode, Progress


class RssSampler(threading.Thread):
    """Polls the peak RSS (VmHWM) of this process's direct children (the workers)."""

    def __init__(self, interval: float) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.peaks: dict[int, int] = {}
        self.available = True
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(self.interval):
            self.sample()

    def stop(self) -> None:
        self._stop_event.set()
        self.join()

    def sample(self) -> None:
        for pid in self._children():
            peak = _peak_rss_kib(pid)
            if peak is not None:
                self.peaks[pid] = max(self.peaks.get(pid, 0), peak)

    def _children(self) -> list[int]:
        pids: list[int] = []
        try:
            for task in os.listdir("/proc/self/task"):
                pids += map(int, Path(f"/proc/self/task/{task}/children").read_text().split())
        except OSError:
            self.available = False
        return pids


def _peak_rss_kib(pid: int | str = "self") -> int | None:
    """A process's peak RSS (VmHWM) in KiB.  For the coordinator itself this, not
    ru_maxrss: Linux carries ru_maxrss across exec, so it would include the RSS of the
    benchmark process this one was forked from."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def main(config_path: str) -> None:
    config = json.loads(Path(config_path).read_text())
    if config.get("cpus"):  # like `taskset`: workers and engines inherit the mask
        os.sched_setaffinity(0, config["cpus"])
    from arena.results import strictjson
    from arena.results.logfile import attach_run_log
    from arena.tournament.config import load_tournament
    from arena.tournament.observers import live_site
    from arena.tournament.runner import run_tournament

    tournament = load_tournament(config["file"])
    out = Path(config["out"])
    attach_run_log(out)  # as `arena run` does
    sampler = RssSampler(0.01) if config.get("sample_rss") else None
    self0, kids0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    wall0 = time.perf_counter()
    if sampler:
        sampler.start()
    progress = _timed_progress(tournament, config["progress"]) if config.get("progress") else None
    site = _TimedSite(live_site(out / "report", tournament))  # as `arena run` does
    observers: list[RunObserver] = [site]
    server, first = None, None
    if config.get("url_file"):  # `arena run --serve`: its server process, its link to the bench
        from arena.serve.beside import ServeBeside

        def tell(line: str, url_file: Path = Path(config["url_file"])) -> None:
            url_file.write_text(line)

        server = ServeBeside(out, tell)
        first = _FirstPage(out, config.get("viewers", 0), Path(config["url_file"]), server)
        observers[:0] = [server, first]
    steady = _Steady(server)
    observers.append(steady)
    if progress:
        observers.append(progress)
    run_tournament(tournament, out, config["workers"], observers)
    if progress:
        progress.close()
    wall = time.perf_counter() - wall0
    if sampler:
        sampler.stop()
    self1, kids1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    server_cpu_s = server.cpu_s if server else 0.0  # reaped: in RUSAGE_CHILDREN too
    started_cpu_s = first.server_cpu_s if first else 0.0
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    terminations: dict[str, int] = {}
    for record in records:
        terminations[record["termination"]] = terminations.get(record["termination"], 0) + 1
    print(
        strictjson.dumps(
            {
                "games": len(records),
                "plies": sum(len(r["moves"]) for r in records),
                "moves": [r["moves"] for r in records],
                "terminations": terminations,
                "wall_s": wall,
                "coordinator_cpu_s": _cpu(self1) - _cpu(self0),
                "children_cpu_s": _cpu(kids1) - _cpu(kids0) - server_cpu_s,
                "server_cpu_s": server_cpu_s - started_cpu_s,  # from the first game on: its start apart
                "steady_plies": steady.plies,
                "steady_manager_cpu_s": steady.manager_cpu_s,
                "steady_workers_cpu_s": steady.workers_cpu_s,
                "steady_server_cpu_s": steady.server_cpu_s,
                "coordinator_rss_kib": _peak_rss_kib() or self1.ru_maxrss,
                "largest_child_rss_kib": kids1.ru_maxrss,
                "worker_rss_kib": sorted(sampler.peaks.values()) if sampler and sampler.available else None,
                "progress_cpu_s": progress.cpu_s if progress else 0.0,
                "site_cpu_s": site.cpu_s,
            }
        )
    )


class _FirstPage(QuietObserver):
    """Holds the run's first game until its server answers (its process started: a start
    that overlapped a short run's games and not a long run's would be counted per move) and
    the bench's pages are connected (the server marks the folder watched once one is, and the
    others come within milliseconds): a short run's games are then watched as a long run's are."""

    def __init__(self, out: Path, pages: int, url_file: Path, server: ServeBeside) -> None:
        self.mark, self.pages, self.url_file = out / "live" / "watching", pages, url_file
        self.server = server
        self.server_cpu_s = 0.0  # the server process's CPU when the first game starts (its start, about 0.8 s)

    def on_start(self, total: int, stored: Sequence[GameRecord], sprt: SprtTest | None) -> None:
        import urllib.error
        import urllib.request

        deadline = time.monotonic() + 30
        link = self.url_file.read_text().split()[4]  # "watch the games at URL (...)"
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(link + "0/live", timeout=5).close()
                break
            except urllib.error.HTTPError:
                break  # it answers
            except OSError:
                time.sleep(0.01)
        while self.pages and not self.mark.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        if self.pages:
            time.sleep(0.5)
        if self.server.process is not None:
            fields = Path(f"/proc/{self.server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            self.server_cpu_s = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Steady(QuietObserver):
    """The CPU of a run's steady part, from its first game stored to its last: the
    coordinator's (getrusage) and its children's but the server's (the workers': each one's
    own, from /proc, its engines apart), the server process's apart, and the moves played
    meanwhile.  A run's start and end (imports, the engines' starts, the final report) are
    left out, so one run gives a figure per move (no slope between two runs' totals, which
    doubles their noise)."""

    def __init__(self, server: ServeBeside | None) -> None:
        self.server = server
        self.start: tuple[float, float, float] | None = None
        self.plies = 0
        self.coordinator_cpu_s = self.workers_cpu_s = self.server_cpu_s = 0.0

    @property
    def manager_cpu_s(self) -> float:
        return self.coordinator_cpu_s + self.workers_cpu_s

    def on_game(self, record: GameRecord, finished: int, total: int) -> None:
        if self.start is None:
            self.start = self._sample()
            return
        self.plies += len(record.moves)
        if finished == total:
            end = self._sample()
            self.coordinator_cpu_s, self.workers_cpu_s, self.server_cpu_s = (b - a for a, b in zip(self.start, end))

    def _sample(self) -> tuple[float, float, float]:
        """The CPU seconds so far of the coordinator, its workers, and the server."""
        server = self.server.process.pid if self.server and self.server.process else None
        usage = resource.getrusage(resource.RUSAGE_SELF)
        workers, served = 0.0, 0.0
        for task in os.listdir("/proc/self/task"):
            try:
                pids = [int(pid) for pid in Path(f"/proc/self/task/{task}/children").read_text().split()]
            except OSError:
                continue
            for pid in pids:
                try:
                    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                own = (int(fields[11]) + int(fields[12])) / os.sysconf(
                    "SC_CLK_TCK"
                )  # utime + stime: not its children's
                if pid == server:
                    served += own
                else:
                    workers += own
        return usage.ru_utime + usage.ru_stime, workers, served


class _TimedSite:
    """The live report site, as `arena run` keeps it, counting the CPU it spends: in the
    coordinator, and in the processes its final write forks for the game pages."""

    def __init__(self, inner: LiveSite) -> None:
        self.inner = inner
        self.called_cpu_s = 0.0

    @property
    def cpu_s(self) -> float:
        """The observer's calls (the coordinator's thread) and the refresh threads."""
        return self.called_cpu_s + self.inner.refresh_cpu_s

    def _timed(self, call: Callable[[], None]) -> None:
        started, children = time.thread_time(), _cpu(resource.getrusage(resource.RUSAGE_CHILDREN))
        try:
            call()
        finally:
            # Only page writers end while the site writes: the run's workers are joined
            # after the last game is stored, before the final write.
            forked = _cpu(resource.getrusage(resource.RUSAGE_CHILDREN)) - children
            self.called_cpu_s += time.thread_time() - started + forked

    def on_start(self, total: int, stored: Sequence[GameRecord], sprt: SprtTest | None) -> None:
        self._timed(lambda: self.inner.on_start(total, stored, sprt))

    def on_game(self, record: GameRecord, finished: int, total: int) -> None:
        self._timed(lambda: self.inner.on_game(record, finished, total))

    def on_start_failure(self, engine: str, reason: str) -> None:
        self.inner.on_start_failure(engine, reason)

    def on_drop(self, engine: str, why: str) -> None:
        self.inner.on_drop(engine, why)

    def on_end(self, summary: Summary) -> None:
        self._timed(lambda: self.inner.on_end(summary))

    def on_stop(self) -> None:
        self._timed(self.inner.on_stop)


class _TimedProgress:
    """The live progress, as `arena run` shows it, counting the CPU it spends."""

    def __init__(self, inner: Progress) -> None:
        self.inner = inner
        self.cpu_s = 0.0

    def on_start(self, total: int, stored: Sequence[GameRecord], sprt: SprtTest | None) -> None:
        started = time.process_time()
        self.inner.on_start(total, stored, sprt)
        self.cpu_s += time.process_time() - started

    def on_game(self, record: GameRecord, finished: int, total: int) -> None:
        started = time.process_time()
        self.inner.on_game(record, finished, total)
        self.cpu_s += time.process_time() - started

    def on_start_failure(self, engine: str, reason: str) -> None:
        self.inner.on_start_failure(engine, reason)

    def on_drop(self, engine: str, why: str) -> None:
        self.inner.on_drop(engine, why)

    def on_end(self, summary: Summary) -> None:
        self.close()

    def on_stop(self) -> None:
        self.close()

    def close(self) -> None:
        started = time.process_time()
        self.inner.close()
        self.cpu_s += time.process_time() - started


def _timed_progress(tournament: Tournament, mode: Mode) -> _TimedProgress:
    """``lines``: a report every 10 games; ``live``: rich redrawing a terminal (output discarded)."""
    from rich.console import Console

    from arena.tournament.progress import Progress

    sink = open(os.devnull, "w")
    console = Console(file=sink, force_terminal=True, width=120) if mode == "live" else None
    return _TimedProgress(
        Progress(
            [e.name for e in tournament.engines],
            tournament.game.players,
            mode,
            report_every=10,
            echo=lambda line: print(line, file=sink),
            console=console,
        )
    )


if __name__ == "__main__":
    main(sys.argv[1])
