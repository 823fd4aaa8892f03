"""A worker keeps at most ``idle_engines`` engines beside its game's: those the pool plans to keep, else the most recently used."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
from helpers import engine_toml, run_arena, write_tournament

from arena.engine.player import EngineSpec
from arena.match import TimeControl
from arena.tournament import local
from arena.tournament.config import load_tournament
from arena.tournament.pool import WorkerPool
from arena.tournament.runner import run_tournament
from arena.tournament.schedule import ScheduledGame
from arena.tournament.worker import Worker, WorkerConfig


def _running(binary: str) -> int:
    """Live processes of this very executable (not zombies)."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{entry}/exe") != binary:
                continue
            with open(f"/proc/{entry}/stat") as f:
                if f.read().rpartition(")")[2].split()[0] != "Z":
                    count += 1
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return count


class _Peak:
    """Samples how many processes of ``binary`` run, every millisecond or so, in a thread."""

    def __init__(self, binary: str) -> None:
        self.binary, self.peak, self.samples = binary, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _running(self.binary))
            self.samples += 1
            time.sleep(0.001)

    def __enter__(self) -> _Peak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@pytest.fixture
def own_zoo(zoo_c, tmp_path) -> str:
    """The C engine at a path of this test's own, so only its processes are counted."""
    binary = tmp_path / "idle_zoo"
    shutil.copy(zoo_c, binary)
    return str(binary.resolve())


def _config(binary: str, names: list[str], idle: int | None) -> WorkerConfig:
    engines = {n: EngineSpec(n, (binary, "good")) for n in names}
    return WorkerConfig(
        "t", "hex", {"size": 3, "swap": False}, engines, TimeControl(movetime_ms=2000), idle_engines=idle
    )


@pytest.mark.timeout(60)
def test_the_least_recently_used_engines_are_quit_first(own_zoo):
    worker = Worker(_config(own_zoo, ["a", "b", "c", "d"], idle=1))
    try:
        alive = []
        for k, seats in enumerate([("a", "b"), ("c", "d"), ("a", "c"), ("b", "a")]):
            record = worker.play(ScheduledGame(k, 0, seats, seed=k))
            assert record.termination.value == "normal", record.reason
            alive.append(list(worker.engines))
            assert _running(own_zoo) == len(worker.engines)
        # Before (c, d): a and b idle, a used least recently -> quit.  Before (a, c): b and d
        # idle, b older -> quit.  Before (b, a): d and c idle, d older -> quit.
        assert alive == [["a", "b"], ["b", "c", "d"], ["d", "a", "c"], ["c", "b", "a"]]
    finally:
        worker.shutdown()
    assert _running(own_zoo) == 0


@pytest.mark.timeout(60)
def test_the_engines_the_pool_plans_to_keep_stay_and_the_bound_holds(own_zoo, monkeypatch):
    """Told by the pool to keep a (planned_keep) before (c, d), the worker quits b, not the
    least recently used a; told to keep both a and c, it still keeps only one (the bound)."""
    from arena.tournament import pool

    worker = Worker(_config(own_zoo, ["a", "b", "c", "d"], idle=1))
    try:
        worker.play(ScheduledGame(0, 0, ("a", "b"), seed=0))  # a is now the least recently used
        monkeypatch.setattr(pool, "_keep", ("a",))
        worker.play(ScheduledGame(1, 0, ("c", "d"), seed=1))
        assert list(worker.engines) == ["a", "c", "d"] and _running(own_zoo) == 3
        monkeypatch.setattr(pool, "_keep", ("a", "c"))
        worker.play(ScheduledGame(2, 0, ("b", "d"), seed=2))
        assert sorted(worker.engines) == ["b", "c", "d"] and _running(own_zoo) == 3  # of the two, LRU's choice
    finally:
        worker.shutdown()
    assert _running(own_zoo) == 0


@pytest.mark.timeout(60)
def test_without_a_bound_every_engine_stays(own_zoo):
    worker = Worker(_config(own_zoo, ["a", "b", "c", "d"], idle=None))
    try:
        for k, seats in enumerate([("a", "b"), ("c", "d"), ("a", "c")]):
            worker.play(ScheduledGame(k, 0, seats, seed=k))
        assert sorted(worker.engines) == ["a", "b", "c", "d"]
        assert _running(own_zoo) == 4
    finally:
        worker.shutdown()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_run_never_holds_more_engines_than_the_bound(own_zoo, tmp_path):
    """The real path: `arena run` with 2 worker processes, 6 engines, --idle-engines 1: never more
    than 2 x (2 players + 1 idle) engine processes, counted from /proc while the run plays."""
    engines = "".join(engine_toml(f"e{i}", own_zoo, "good") for i in range(6))
    path = write_tournament(tmp_path, engines, options="size = 3\nswap = false", workers=2)
    with _Peak(own_zoo) as sampled:
        result = run_arena("run", path, "--out", tmp_path / "out", "--quiet", "--idle-engines", "1", timeout=100)
    assert result.returncode == 0, result.stderr
    with closing(sqlite3.connect(tmp_path / "out" / "arena.db")) as db:
        terminations = [row[0] for row in db.execute("SELECT termination FROM games")]
    assert terminations == ["normal"] * 30
    assert sampled.samples > 50
    assert 3 <= sampled.peak <= 2 * (2 + 1), f"{sampled.peak} engine processes at once"
    assert _running(own_zoo) == 0


def _same(task: tuple[str, ...]) -> tuple[str, ...]:
    return task


@pytest.mark.timeout(60)
def test_an_idle_worker_is_handed_a_game_of_the_engines_it_runs():
    """One worker that keeps no engine beside a game's (spare = 0): after a game of a and b it
    is handed the queued games of a and b before earlier ones, then one of a; without a
    bound (spare = None) it plays the queue in order."""
    games = [("a", "b"), ("c", "d"), ("e", "a"), ("a", "b"), ("b", "a")]

    def played(spare: int | None) -> list[tuple[str, ...]]:
        pool = WorkerPool(1, _same, lambda: None, uses=lambda game: game, spare=spare)
        order = list(pool.imap_unordered(games))
        pool.close()
        return order

    assert played(None) == games
    assert played(0) == [("a", "b"), ("a", "b"), ("b", "a"), ("e", "a"), ("c", "d")]


def _starting(starts: Path, engine: str) -> str:
    """A command that notes its pid in ``starts`` each time it starts, then runs ``engine``."""
    return f"echo $$ >> {starts}; exec {engine}"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_affinity_plays_the_same_games_with_the_same_results_and_fewer_starts(tmp_path, monkeypatch, instant_c):
    """The real path: 6 random engines, no idle engine kept (idle_engines = 0), 2 workers, once
    handed games by affinity and once in schedule order (as before): the same 30 games with
    the same results, id for id, and fewer engine starts by affinity. The engines are the C
    instant engine: a start costs milliseconds, not a Python start-up, and its moves depend
    only on each game's seed, as the random engine's do."""
    runs = {}
    for affinity in (True, False):
        if not affinity:
            monkeypatch.setattr(local, "idle_bound", lambda config: None)  # schedule order
        folder = tmp_path / ("affinity" if affinity else "in-order")
        folder.mkdir()
        starts = folder / "starts"
        engines = "".join(engine_toml(f"r{i}", "/bin/sh", "-c", _starting(starts, instant_c)) for i in range(6))
        path = write_tournament(folder, engines, options="size = 5\nswap = false", workers=2, seed=3)
        run_tournament(load_tournament(path), folder / "out", idle_engines=0)
        records = [json.loads(line) for line in (folder / "out" / "games.jsonl").read_text().splitlines()]
        runs[affinity] = records, len(starts.read_text().split())
    keys = ("round", "players", "seed", "engine_seeds", "moves", "termination", "winner", "places")
    (on, on_starts), (off, off_starts) = runs[True], runs[False]
    assert len(on) == 30 and all(r["termination"] == "normal" for r in on)
    assert {r["id"]: [r.get(k) for k in keys] for r in on} == {r["id"]: [r.get(k) for k in keys] for r in off}
    assert on_starts < off_starts, (on_starts, off_starts)


def test_the_bound_is_not_part_of_the_tournament(tmp_path):
    """A folder played with one idle bound resumes with another: it changes how games run, not how they go."""
    from arena.results.fingerprint import changes, fingerprint
    from arena.tournament.config import load_tournament
    from arena.tournament.settings import tournament_settings

    engines = engine_toml("a", "{python}", "-m", "engines.random_engine") + engine_toml(
        "b", "{python}", "-m", "engines.random_engine"
    )
    one = tournament_settings(load_tournament(write_tournament(tmp_path, engines, extra="idle_engines = 0")))
    other = tournament_settings(load_tournament(write_tournament(tmp_path, engines, extra="idle_engines = 9")))
    assert one["idle_engines"] == 0 and other["idle_engines"] == 9
    assert fingerprint(one) == fingerprint(other) and changes(one, other) == []


@pytest.mark.slow
def test_a_negative_bound_is_refused_in_one_line(tmp_path):
    engines = engine_toml("a", "{python}", "-m", "engines.random_engine") + engine_toml(
        "b", "{python}", "-m", "engines.random_engine"
    )
    path = write_tournament(tmp_path, engines, extra="idle_engines = -1")
    result = run_arena("run", path, "--out", tmp_path / "out", timeout=60)
    assert result.returncode == 2
    assert "idle_engines" in result.stderr and "Traceback" not in result.stderr
    assert Path(tmp_path / "out" / "arena.db").exists() is False
