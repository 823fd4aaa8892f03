"""`affinity = true`: each worker, and every engine it starts, runs on one core."""

import json
import os
import subprocess
import sys

import pytest
from helpers import ROOT, engine_toml, run_arena, write_tournament

from arena.engine import waiting
from arena.engine.player import EngineSpec
from arena.match import TimeControl
from arena.tournament.pool import WorkerPool
from arena.tournament.schedule import ScheduledGame
from arena.tournament.worker import Worker, WorkerConfig


def _masks(_task):
    """The worker's own mask and the mask a process it starts inherits."""
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(os.sched_getaffinity(0)), json.loads(child.stdout)


def _nothing():
    pass


def test_pinned_workers_and_their_children_share_one_core_each():
    cores = sorted(os.sched_getaffinity(0))
    pool = WorkerPool(len(cores), _masks, _nothing, cores=cores)
    try:
        results = list(pool.imap_unordered(range(2 * len(cores))))
        pool.close()
    finally:
        pool.terminate()
    for own, inherited in results:
        assert len(own) == 1 and own == inherited and own[0] in cores


def _dies_once_on_zero(task: tuple[int, str]) -> tuple[int, list[int]]:
    number, marker = task
    if number == 0 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(9)
    return number, sorted(os.sched_getaffinity(0))


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_a_dead_pinned_workers_replacement_takes_the_core_it_left(tmp_path):
    cores = sorted(os.sched_getaffinity(0))[:2]
    marker = str(tmp_path / "died")
    pool = WorkerPool(2, _dies_once_on_zero, _nothing, cores=cores)
    try:
        results = dict(pool.imap_unordered([(0, marker), (1, marker)]))
        pool.close()
    finally:
        pool.terminate()
    assert os.path.exists(marker)  # the worker playing 0 died once
    assert sorted(core for own in results.values() for core in own) == cores  # one worker a core, still


def test_unpinned_workers_keep_the_whole_mask():
    pool = WorkerPool(1, _masks, _nothing)
    try:
        ((own, inherited),) = list(pool.imap_unordered([0]))
        pool.close()
    finally:
        pool.terminate()
    assert own == inherited == sorted(os.sched_getaffinity(0))


@pytest.mark.slow
def test_a_tournament_with_affinity_plays_to_the_end(tmp_path):
    engines = engine_toml("random", "{python}", "-m", "engines.random_engine") + engine_toml(
        "pathfinder", "{python}", "-m", "engines.hex_pathfinder"
    )
    path = write_tournament(tmp_path, engines, rounds=2, extra="affinity = true")
    proc = run_arena("run", path, "--out", tmp_path / "out", "-q")
    assert proc.returncode == 0, proc.stderr
    assert len((tmp_path / "out" / "games.jsonl").read_text().splitlines()) == 4


@pytest.mark.slow
def test_without_cpu_affinity_a_tournament_still_runs_and_says_it_cannot_pin(tmp_path):
    # As on systems without sched_getaffinity / sched_setaffinity (macOS, for one).
    engines = engine_toml("r1", "{python}", "-m", "engines.random_engine") + engine_toml(
        "r2", "{python}", "-m", "engines.random_engine"
    )
    path = write_tournament(tmp_path, engines, rounds=1, extra="affinity = true")
    code = (
        "import os, sys; del os.sched_getaffinity, os.sched_setaffinity; "
        "from arena.cli import main; sys.argv[0] = 'arena'; main()"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "run", str(path), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "games played" in proc.stdout
    assert "workers are not pinned" in (tmp_path / "out" / "arena.log").read_text()


@pytest.mark.slow
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
@pytest.mark.parametrize(
    "workers,affinity,shared",
    [(1, "false", True), (len(os.sched_getaffinity(0)), "false", False), (1, "true", False)],
)
def test_quick_engines_may_share_their_workers_core_only_where_a_cpu_is_spare(
    tmp_path, monkeypatch, workers, affinity, shared
):
    """With a CPU left without a game the workers lend their core to quick engines; with
    every CPU busy, or with affinity = true (engines on their worker's core already), not."""
    from arena.tournament import runner
    from arena.tournament.config import load_tournament

    seen = []

    class Recording(runner.LocalGames):
        def __init__(self, config, *args):
            seen.append(Worker(config).share is not None)  # what each of its workers lends
            super().__init__(config, *args)

    monkeypatch.setattr(runner, "LocalGames", Recording)
    engines = engine_toml("r1", "{python}", "-m", "engines.random_engine") + engine_toml(
        "r2", "{python}", "-m", "engines.random_engine"
    )
    path = write_tournament(tmp_path, engines, rounds=2, workers=workers, extra=f"affinity = {affinity}")
    summary = runner.run_tournament(load_tournament(path), tmp_path / "out", workers)
    assert seen == [shared] and summary.played == 4


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_a_worker_lends_its_core_during_a_game_and_is_free_again_after_it(zoo_c, monkeypatch):
    cpus = sorted(os.sched_getaffinity(0))
    monkeypatch.setattr(waiting, "SPIN_S", 0.05)  # every answer of the C engine counts as quick
    entered = []
    real_enter = waiting.CoreShare.enter

    def enter(share, pid):
        real_enter(share, pid)
        entered.append((sorted(os.sched_getaffinity(pid)), sorted(os.sched_getaffinity(0)), share.home))

    monkeypatch.setattr(waiting.CoreShare, "enter", enter)
    engines = {n: EngineSpec(n, (zoo_c, "good")) for n in ("a", "b")}
    config = WorkerConfig(
        "t", "hex", {"size": 5, "swap": False}, engines, TimeControl(movetime_ms=2000), share_core=True
    )
    worker = Worker(config)
    try:
        for k in range(2):
            record = worker.play(ScheduledGame(k, 0, ("a", "b"), seed=k))
            assert record.termination.value == "normal", record.reason
            # after each game: every engine and the worker back on every CPU
            assert not worker.share.guests and worker.share.home is None
            assert sorted(os.sched_getaffinity(0)) == cpus
            assert all(sorted(os.sched_getaffinity(p.proc.pid)) == cpus for p in worker.engines.values())
    finally:
        worker.shutdown()
        os.sched_setaffinity(0, cpus)
    # each game, both engines moved onto the worker's core (and the worker pinned there)
    assert len(entered) >= 4 and all(engine == own == [home] for engine, own, home in entered)
