"""Running a tournament: parallel workers play games, the coordinator stores them.

Each worker process keeps its own engine processes alive between games (like
fastchess) and restarts one only after it faulted.  The coordinator is the
single writer of the database; ratings are computed from the stored games in
schedule order, so the table does not depend on which worker finished first.
"""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing
import os
import signal
from dataclasses import dataclass
from multiprocessing.util import Finalize
from pathlib import Path
from typing import Any, Callable

import multiprocessing_logging
from tabulate import tabulate

from .engine import EngineFault, EngineProcess, EngineSpec
from .match import GameResult, TimeControl, forfeit_before_start, play_game
from .ratings import standings, table_rows
from .report import render_report
from .rules import Game, make_game
from .scheduler import ScheduledGame, round_robin
from .storage import GameStore
from .tournament import Tournament

log = logging.getLogger("arena.runner")


@dataclass(frozen=True)
class WorkerConfig:
    """Everything a worker needs, picklable."""

    tournament: str
    game: str
    options: dict[str, Any]
    engines: dict[str, EngineSpec]
    time_control: TimeControl


# -- worker side --------------------------------------------------------------

_worker: "_Worker | None" = None


class _Worker:
    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        self.game: Game = make_game(config.game, config.options)
        self.engines: dict[str, EngineProcess] = {}

    def engine(self, name: str) -> EngineProcess:
        """A running engine for ``name``; raises EngineFault if it cannot start."""
        proc = self.engines.get(name)
        if proc is None or not proc.alive:
            if proc is not None:
                proc.kill()
            proc = EngineProcess(self.config.engines[name])
            self.engines[name] = proc
            proc.start()
        return proc

    def play(self, scheduled: ScheduledGame) -> dict[str, Any]:
        procs: list[EngineProcess] = []
        for seat, name in enumerate(scheduled.seats):
            try:
                procs.append(self.engine(name))
            except EngineFault as exc:
                self.retire(name)
                return self._no_start_record(scheduled, seat, exc)
        result: GameResult = play_game(self.game, procs, seed=scheduled.seed,
                                       time_control=self.config.time_control, names=scheduled.seats)
        for seat in result.faulted_seats:
            self.retire(scheduled.seats[seat])
        return self._finish(result.record, scheduled)

    def _no_start_record(self, scheduled: ScheduledGame, seat: int, exc: EngineFault) -> dict[str, Any]:
        record = forfeit_before_start(self.game, scheduled.seed, scheduled.seats, seat, exc.code, exc.reason)
        return self._finish(record, scheduled)

    def _finish(self, record: dict[str, Any], scheduled: ScheduledGame) -> dict[str, Any]:
        record["id"] = scheduled.index
        record["round"] = scheduled.round
        record["tournament"] = self.config.tournament
        if record["termination"] != "normal":
            log.warning("game %d: %s", scheduled.index, record["reason"])
        return record

    def retire(self, name: str) -> None:
        proc = self.engines.pop(name, None)
        if proc is not None:
            proc.quit()

    def shutdown(self) -> None:
        for name in list(self.engines):
            self.retire(name)


def _init_worker(config: WorkerConfig) -> None:
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C
    _worker = _Worker(config)
    Finalize(_worker, _worker.shutdown, exitpriority=10)
    signal.signal(signal.SIGTERM, _terminate_worker)  # pool.terminate(): kill our engines first


def _terminate_worker(signum: int, frame: object) -> None:
    if _worker is not None:
        for proc in _worker.engines.values():
            proc.kill()
    os._exit(128 + signum)


def _play_in_worker(scheduled: ScheduledGame) -> dict[str, Any]:
    assert _worker is not None
    return _worker.play(scheduled)


# -- coordinator side ---------------------------------------------------------


def fingerprint(t: Tournament) -> str:
    """What must not change for a run to resume into the same database.

    ``rounds`` is left out on purpose: raising it extends a finished tournament,
    since the schedule lists games round by round."""
    data = t.data
    key = json.dumps({"game": data.game, "options": t.game.options.model_dump(),
                      "seed": data.seed, "engines": [e.name for e in data.engines]}, sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass
class RunSummary:
    played: int
    resumed: int
    headers: list[str]
    rows: list[list[Any]]
    table: str
    out: Path


def run_tournament(t: Tournament, out: Path, workers: int | None = None,
                   progress: Callable[[dict[str, Any], int, int], None] | None = None) -> RunSummary:
    """Play every scheduled game not yet in ``out``'s database, then rate and report."""
    workers = workers or t.data.workers
    schedule = round_robin([e.name for e in t.engines], t.game.players, t.data.rounds, t.data.seed)
    config = WorkerConfig(t.name, t.data.game, t.game.options.model_dump(),
                          {e.name: e for e in t.engines}, t.time_control)
    with GameStore(out) as store:
        store.open(fingerprint(t))
        done = store.done_ids()
        todo = [g for g in schedule if g.index not in done]
        log.info("%s: %d games scheduled, %d already played, %d workers",
                 t.name, len(schedule), len(done), workers)
        _play_all(config, todo, workers, store, progress, len(schedule), len(done))
        records = list(store.records())
    return _report(t, out, records, played=len(todo), resumed=len(done))


def _play_all(config: WorkerConfig, todo: list[ScheduledGame], workers: int, store: GameStore,
              progress, total: int, already: int) -> None:
    if not todo:
        return
    multiprocessing_logging.install_mp_handler()
    ctx = multiprocessing.get_context("fork")  # workers inherit the log handler
    pool = ctx.Pool(min(workers, len(todo)), initializer=_init_worker, initargs=(config,))
    finished = already
    try:
        for record in pool.imap_unordered(_play_in_worker, todo):
            store.add(record)
            finished += 1
            if progress:
                progress(record, finished, total)
        pool.close()
    except BaseException:
        pool.terminate()  # Ctrl-C or error: workers die, their engines get EOF and are killed below
        raise
    finally:
        pool.join()
        multiprocessing_logging.uninstall_mp_handler()


def _report(t: Tournament, out: Path, records: list[dict[str, Any]], played: int, resumed: int) -> RunSummary:
    players = t.game.players
    rows = standings([e.name for e in t.engines], records, players)
    headers, table = table_rows(rows, players)
    results = {
        "tournament": t.name,
        "game": t.data.game,
        "options": t.game.options.model_dump(),
        "games": len(records),
        "terminations": _count(r["termination"] for r in records),
        "standings": [dict(zip(headers, row)) for row in table],
    }
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    page = render_report(f"arena · {t.name}", results, headers, table, records)
    (out / "report.html").write_text(page, encoding="utf-8")
    text = tabulate(table, headers=headers, floatfmt=".2f")
    return RunSummary(played, resumed, headers, table, text, out)


def _count(values) -> dict[str, int]:
    counts: dict[str, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return counts
