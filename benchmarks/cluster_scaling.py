"""What scales on a Dask cluster, measured (docs/cluster.md).

    python benchmarks/cluster_scaling.py [--workers 1,2,4,8] [--sleep-ms 10] [--rounds 2]
                                         [--coordinator-games 6000] [--coordinator-workers 4]
                                         [--coordinator-repeats 1]
                                         [--only-coordinator] [--quick]

1. Games per second against the number of workers, with engines that sleep a known
   time per move (benchmarks/instant_engine.py --sleep-us): a LocalCluster of N
   worker processes (``--cluster local:N``) next to arena's own N local workers,
   same tournament, same seeds.  "ideal" is N workers doing nothing but sleeping.
2. The most games per second one coordinator can take: a cluster run (local:4) whose
   tasks return a stored game's record at once (instant engines), so the figure is
   Dask's dispatch plus storing (SQLite commit, JSON Lines), with and without the live
   report site ``arena run`` keeps, and with the drop rule on and off; with the
   coordinator's CPU per game.  Its storing and rating alone are timed too.

Every figure is from a real ``run_tournament``; the machine may be shared, so the
script prints its load average next to the figures.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.record import GameRecord  # noqa: E402
from arena.results.ratings import standings  # noqa: E402
from arena.results.store import GameStore  # noqa: E402
from arena.tournament.cluster import ClusterGames, ClusterSpec, TaskResult  # noqa: E402
from arena.tournament.config import load_tournament  # noqa: E402
from arena.tournament.droprule import DropGate, FailureTracker  # noqa: E402
from arena.tournament.observers import QuietObserver, RunObserver, live_site  # noqa: E402
from arena.tournament.runner import run_tournament  # noqa: E402
from arena.tournament.schedule import ScheduledGame  # noqa: E402
from arena.tournament.worker import WorkerConfig, WorkerError  # noqa: E402

ENGINE = ROOT / "benchmarks" / "instant_engine.py"
ENGINES = 4  # 6 tables x 2 seat orders = 12 games per round


def tournament_file(folder: Path, *, sleep_ms: float, rounds: int, workers: int, max_failures: int = 3) -> Path:
    engines = "".join(
        f'[[engines]]\nname = "e{i}"\ncommand = ["{{python}}", "{ENGINE}", "--sleep-us", "{int(sleep_ms * 1000)}"]\n'
        f"max_failures = {max_failures}\n"
        for i in range(ENGINES)
    )
    path = folder / f"sleepy-{workers}-{max_failures}.toml"
    path.write_text(
        f'name = "sleepy"\ngame = "hex"\nrounds = {rounds}\nseed = 1\nworkers = {workers}\n'
        f"[options]\nsize = 7\nswap = false\n[time_control]\nmovetime_ms = 5000\n{engines}"
    )
    return path


class _Timed(ClusterSpec):
    """A cluster spec that notes when the cluster is ready (handshake done), so startup
    is not counted in games per second."""

    def open(self, config: WorkerConfig, may_start: DropGate | None = None) -> ClusterGames:
        games = super().open(config, may_start)
        READY.append(time.perf_counter())
        return games


READY: list[float] = []
READY_CPU: list[float] = []


def process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed_run(path: Path, out: Path, cluster: ClusterSpec | None) -> tuple[float, float, list[GameRecord]]:
    """Seconds from the start to the last game stored, of which the cluster's start-up
    (connecting, or starting a LocalCluster, and the handshake), and the records."""
    READY.clear()
    start = time.perf_counter()
    arrivals = _Arrivals()
    run_tournament(load_tournament(path), out, observers=[arrivals], cluster=cluster)
    startup = READY[0] - start if READY else 0.0
    return arrivals.times[-1] - start, startup, stored_records(out)


class _Arrivals(QuietObserver):
    """An observer of the run that notes when each game is stored."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.cpu = 0.0  # this process's CPU (all threads) when the last game was stored

    def on_game(self, record: GameRecord, finished: int, total: int) -> None:
        self.times.append(time.perf_counter())
        if finished == total:  # (not at every game: reading it costs a millisecond on a loaded machine)
            self.cpu = process_cpu()


def stored_records(out: Path) -> list[GameRecord]:
    db = sqlite3.connect(out / "arena.db")
    try:
        return [GameRecord.model_validate(json.loads(r[0])) for r in db.execute("SELECT record FROM games ORDER BY id")]
    finally:
        db.close()


def scaling(folder: Path, counts: list[int], sleep_ms: float, rounds: int) -> None:
    print(
        f"\n1. games/s against workers: Hex 7x7, {ENGINES} engines sleeping {sleep_ms:g} ms per move, "
        f"{ENGINES * (ENGINES - 1) // 2 * 2 * rounds} games per run, the same games in every run"
    )
    print(
        "   local: N arena workers; cluster: --cluster local:N; whole run = start to last game stored;\n"
        "   playing = after the cluster's start-up (LocalCluster + handshake); ideal = N workers only sleeping"
    )
    print(
        f"{'workers':>7} {'ideal g/s':>10} {'local g/s':>10} {'cluster g/s':>12} {'start-up s':>11} "
        f"{'playing g/s':>12} {'playing/ideal':>14} {'cluster/local':>14}"
    )
    for n in counts:
        path = tournament_file(folder, sleep_ms=sleep_ms, rounds=rounds, workers=n)
        local_s, _, records = timed_run(path, folder / f"local-{n}", None)
        cluster_s, startup, cluster_records = timed_run(path, folder / f"cluster-{n}", _Timed(f"local:{n}", print))
        assert [r["moves"] for r in records] == [r["moves"] for r in cluster_records], "different games"
        plies = sum(len(r["moves"]) for r in records)
        ideal = len(records) / (plies * sleep_ms / 1000 / n)
        local, cluster = len(records) / local_s, len(records) / cluster_s
        playing = len(records) / (cluster_s - startup)
        print(
            f"{n:>7} {ideal:>10.2f} {local:>10.2f} {cluster:>12.2f} {startup:>11.2f} {playing:>12.2f} "
            f"{playing / ideal:>14.2f} {cluster / local:>14.2f}"
        )


def _canned(
    template: dict[str, Any], config: WorkerConfig, games: tuple[ScheduledGame, ...], dropped: tuple[int, ...]
) -> TaskResult:
    """A task that plays nothing: the template record, renamed for each of its games."""
    start = time.perf_counter()
    record = GameRecord.model_validate(template)
    records: list[GameRecord | WorkerError] = [
        record.model_copy(
            update={"id": g.index, "round": g.round, "players": list(g.seats), "tournament": config.tournament}
        )
        for g in games
    ]
    return records, time.perf_counter() - start


TEMPLATE: dict[str, Any] = {}  # a record as its JSON
TASKS: list[int] = []  # games per task submitted, of the last run


class _Instant(ClusterGames):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.task = functools.partial(_canned, dict(TEMPLATE))  # the template travels with each task

    def _submit(self, games: list[ScheduledGame], attempt: int) -> Any:
        TASKS.append(len(games))
        return super()._submit(games, attempt)


class _InstantSpec(_Timed):
    def open(self, config: WorkerConfig, may_start: DropGate | None = None) -> ClusterGames:
        games = _Instant(self, config, may_start)
        READY.append(time.perf_counter())
        READY_CPU.append(process_cpu())
        return games


def instant_run(folder: Path, path: Path, out: str, workers: int, site: bool) -> tuple[float, float, list[GameRecord]]:
    """Games per second of a run of canned tasks (start-up left out), with or without the
    live report site that ``arena run`` keeps, and the coordinator's CPU seconds per game
    over the same span (its process: the runner, the Dask client, and with local:N the
    Dask scheduler too)."""
    TASKS.clear()
    READY.clear()
    READY_CPU.clear()
    t = load_tournament(path)
    arrivals = _Arrivals()
    observers: list[RunObserver] = [live_site(folder / out / "report", t), arrivals] if site else [arrivals]
    run_tournament(t, folder / out, observers=observers, cluster=_InstantSpec(f"local:{workers}", print))
    seconds = arrivals.times[-1] - READY[0]
    records = stored_records(folder / out)
    return len(records) / seconds, (arrivals.cpu - READY_CPU[0]) / len(records), records


def coordinator(folder: Path, games: int, template: GameRecord, workers: int, repeats: int = 1) -> None:
    TEMPLATE.clear()
    TEMPLATE.update(template.to_json())
    rounds = max(1, games // (ENGINES * (ENGINES - 1)))
    print(
        f"\n2. one coordinator's ceiling: tasks that return a {len(template['moves'])}-ply record at once "
        f"(instant engines), local:{workers}, {rounds * ENGINES * (ENGINES - 1)} games, after start-up"
    )
    print(
        "   max_failures 0: the drop rule is off; 3 (the default): it counts every game, holding none back\n"
        "   (the engines never fail, so the two play the same games)"
    )
    print(
        "   games/s: stored per second of wall time; coordinator CPU: its process's CPU per game (the runner,\n"
        "   the Dask client and, with local:N, the scheduler); capacity: games per second of that CPU"
    )
    print(
        f"{'live site':>10} {'max_failures':>13} {'games/s':>9} {'coordinator CPU us/game':>24} "
        f"{'capacity g/s':>13} {'games per task':>15}"
    )
    records: list[GameRecord] = []
    rates: dict[tuple[bool, int], list[float]] = {}
    # The drop rule off and on, side by side (interleaved when repeated), then the site off.
    for k, (site, limit) in enumerate([(True, 0), (True, 3)] * repeats + [(False, 0)]):
        path = tournament_file(folder, sleep_ms=0, rounds=rounds, workers=workers, max_failures=limit)
        rate, cpu, records = instant_run(folder, path, f"instant-{k}", workers, site)
        rates.setdefault((site, limit), []).append(rate)
        per_task = statistics.mean(TASKS) if TASKS else 0
        print(
            f"{'on' if site else 'off':>10} {limit:>13} {rate:>9.0f} {cpu * 1e6:>24.0f} "
            f"{1 / cpu:>13.0f} {per_task:>15.1f}"
        )
    ratio = statistics.median(rates[True, 3]) / statistics.median(rates[True, 0])
    print(f"   live site on, max_failures 3 against 0: {ratio:.2f}x the games/s (medians of {repeats})")
    # The coordinator's own parts, without Dask.
    with GameStore(folder / "store-only") as store:
        store.open({"name": "bench"})
        tracker = FailureTracker({f"e{i}": 3 for i in range(ENGINES)})
        start = time.perf_counter()
        for record in records:
            store.add(record)
            tracker.update(record)
        store_s = time.perf_counter() - start
    times = []
    for _ in range(3):
        start = time.perf_counter()
        standings([f"e{i}" for i in range(ENGINES)], records, 2)
        times.append(time.perf_counter() - start)
    rate_s = statistics.median(times)
    print(f"   storing alone (commit + JSON Lines + drop rule): {len(records) / store_s:8.0f} games/s")
    print(f"   rating alone (TrueSkill over all games, median of 3): {len(records) / rate_s:8.0f} games/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2,4,8", help="worker counts, comma-separated")
    parser.add_argument("--sleep-ms", type=float, default=10.0, help="engine sleep per move")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--coordinator-games", type=int, default=6000)
    parser.add_argument("--coordinator-workers", type=int, default=4)
    parser.add_argument("--coordinator-repeats", type=int, default=1, help="runs of the drop rule off and on")
    parser.add_argument("--only-coordinator", action="store_true", help="part 2 only (its template from a short run)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: proves the script works")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]
    if args.quick:
        # one worker count and one-worker clusters: every part runs, on the fewest processes
        counts, args.rounds, args.coordinator_games, args.coordinator_workers = [1], 1, 100, 1
        args.sleep_ms = min(args.sleep_ms, 1.0)  # the engines still sleep, the games take a tenth of the time
    print(
        f"cpus: {len(os.sched_getaffinity(0))}, load average before: {os.getloadavg()[0]:.2f} "
        f"(a shared machine: other jobs run too)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.only_coordinator:
            timed_run(tournament_file(folder, sleep_ms=0, rounds=1, workers=1), folder / "local-template", None)
            template = stored_records(folder / "local-template")[0]
        else:
            scaling(folder, counts, args.sleep_ms, args.rounds)
            template = stored_records(folder / f"local-{counts[0]}")[0]
        coordinator(
            folder, args.coordinator_games, template, workers=args.coordinator_workers, repeats=args.coordinator_repeats
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
