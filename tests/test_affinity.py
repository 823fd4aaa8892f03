"""`affinity = true`: each worker, and every engine it starts, runs on one core."""

import json
import os
import subprocess
import sys

from arena.pool import WorkerPool
from helpers import engine_toml, run_arena, write_tournament


def _masks(_task):
    """The worker's own mask and the mask a process it starts inherits."""
    child = subprocess.run([sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
                           capture_output=True, text=True, check=True)
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


def test_unpinned_workers_keep_the_whole_mask():
    pool = WorkerPool(1, _masks, _nothing)
    try:
        (own, inherited), = list(pool.imap_unordered([0]))
        pool.close()
    finally:
        pool.terminate()
    assert own == inherited == sorted(os.sched_getaffinity(0))


def test_a_tournament_with_affinity_plays_to_the_end(tmp_path):
    engines = (engine_toml("random", "{python}", "-m", "engines.random_engine")
               + engine_toml("pathfinder", "{python}", "-m", "engines.hex_pathfinder"))
    path = write_tournament(tmp_path, engines, rounds=2, extra="affinity = true")
    proc = run_arena("run", path, "--out", tmp_path / "out", "-q")
    assert proc.returncode == 0, proc.stderr
    assert len((tmp_path / "out" / "games.jsonl").read_text().splitlines()) == 4
