"""Tournaments on a real Dask cluster (LocalCluster worker processes, `dask worker`
processes): the same table as a local run, a worker killed mid-tournament, an engine
missing on one worker, a coordinator killed with -9."""

import dataclasses
import json
import logging
import os
import pickle
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")  # a dependency of distributed
dask_config = pytest.importorskip("dask.config")

from helpers import ROOT, ZOO, arena_cmd, engine_toml, run_arena, run_arena_in_order, write_tournament  # noqa: E402

from arena.cli import main  # noqa: E402
from arena.engine.player import EngineSpec  # noqa: E402
from arena.engine.sandbox import sandbox_problem  # noqa: E402
from arena.match import TimeControl  # noqa: E402
from arena.record import GameRecord  # noqa: E402
from arena.results.logfile import attach_run_log  # noqa: E402
from arena.tournament import cluster as arena_cluster  # noqa: E402
from arena.tournament import livegames  # noqa: E402
from arena.tournament.cluster import (  # noqa: E402
    ClusterError,
    ClusterGames,
    ClusterSpec,
    EngineUnavailable,
    _BatchSize,
    _failed_everywhere,
    first_copies,
    game_of,
)
from arena.tournament.config import load_tournament  # noqa: E402
from arena.tournament.livegames import touch_watching  # noqa: E402
from arena.tournament.pool import Lost  # noqa: E402
from arena.tournament.runner import run_tournament  # noqa: E402
from arena.tournament.schedule import ScheduledGame  # noqa: E402
from arena.tournament.verdict import StartupFailure  # noqa: E402
from arena.tournament.worker import Worker, WorkerConfig, WorkerError  # noqa: E402

pytestmark = pytest.mark.timeout(180)


def stored(out: Path) -> list[dict]:
    db = sqlite3.connect(out / "arena.db")
    try:
        return [json.loads(r[0]) for r in db.execute("SELECT record FROM games ORDER BY id")]
    finally:
        db.close()


def stored_count(out: Path) -> int:
    try:
        db = sqlite3.connect(out / "arena.db")
        try:
            return db.execute("SELECT count(*) FROM games").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def jsonl_ids(out: Path) -> list[int]:
    return sorted(json.loads(line)["id"] for line in (out / "games.jsonl").read_text().splitlines())


def wait_until(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def deterministic_engines() -> str:
    return (
        engine_toml("random", "{python}", "-m", "engines.random_engine")
        + engine_toml("pathfinder", "{python}", "-m", "engines.hex_pathfinder")
        + engine_toml("random2", "{python}", "-m", "engines.random_engine")
    )


def slow_zoo(*names: str) -> str:
    """Well-behaved engines whose games take a while, so a kill lands mid-game."""
    return "".join(engine_toml(name, "{python}", ZOO, "good+slow") for name in names)


@pytest.fixture
def cluster():
    """A LocalCluster of two worker processes, one thread each."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        with distributed.Client(local) as client:
            yield local, client


def run_here_and_on_a_cluster(
    tmp_path: Path, path: Path
) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    """The tournament file ``path`` run on local workers (into ``local``), then the same file
    with a [cluster] section, not part of the tournament's identity (into ``cluster``)."""
    local = run_arena("run", path, "--out", tmp_path / "local", "-q")
    assert local.returncode == 0, local.stderr
    clustered = tmp_path / "c.toml"
    clustered.write_text(path.read_text() + '\n[cluster]\naddress = "local:2"\n')
    remote = run_arena("run", clustered, "--out", tmp_path / "cluster", "-q")
    assert remote.returncode == 0, remote.stderr
    return local, remote


@pytest.mark.slow
def test_cluster_run_has_the_table_of_a_local_run(tmp_path):
    path = write_tournament(tmp_path, deterministic_engines(), rounds=2, seed=11, workers=2)
    local, remote = run_here_and_on_a_cluster(tmp_path, path)
    assert "Traceback" not in remote.stderr
    a = json.loads((tmp_path / "local" / "results.json").read_text())
    b = json.loads((tmp_path / "cluster" / "results.json").read_text())
    assert a["games"] == b["games"] == 12
    assert a["standings"] == b["standings"]
    assert a["head_to_head"] == b["head_to_head"]
    moves = lambda out: [(r["id"], r["players"], r["moves"], r["winner"]) for r in stored(out)]  # noqa: E731
    assert moves(tmp_path / "local") == moves(tmp_path / "cluster")
    assert local.stdout.split("\n\n")[1] == remote.stdout.split("\n\n")[1]  # the printed table


@pytest.mark.slow
def test_a_cluster_run_adjudicates_as_a_local_run(tmp_path):
    """The [adjudication] settings travel with each game to the Dask workers: the same games
    end at the same plies with the same terminations as on the local workers."""
    table = "[adjudication]\ndecided = true\nmax_plies = 14\n"
    path = write_tournament(tmp_path, deterministic_engines(), seed=5, workers=2, extra=table)
    local, remote = run_here_and_on_a_cluster(tmp_path, path)
    games = lambda out: [(r["id"], r["moves"], r["termination"], r["winner"]) for r in stored(out)]  # noqa: E731
    assert games(tmp_path / "local") == games(tmp_path / "cluster")
    assert {"decided", "max-plies"} & {g[2] for g in games(tmp_path / "local")}


@pytest.mark.slow
def test_a_cluster_run_names_its_dashboard_and_workers_before_the_first_game(tmp_path):
    path = write_tournament(tmp_path, deterministic_engines(), rounds=1, seed=11, workers=2)
    proc = run_arena_in_order("run", path, "--out", tmp_path / "out", "--cluster", "local:2", timeout=240)
    assert proc.returncode == 0, proc.stdout
    lines = proc.stdout.splitlines()
    first_game = next(i for i, line in enumerate(lines) if line.startswith("Finished game "))
    told = lines[:first_game]
    assert any(re.fullmatch(r"arena: cluster local:2: dashboard http://\S+:\d+/status", line) for line in told), told
    assert any(
        re.fullmatch(r"arena: cluster local:2: 2 workers can play: tcp://.+, tcp://.+", line) for line in told
    ), told
    quiet = run_arena("run", path, "--out", tmp_path / "quiet", "--cluster", "local:2", "-q", timeout=240)
    assert quiet.returncode == 0 and "dashboard" not in quiet.stdout + quiet.stderr


ACCEPTED = "tcp://HOST:PORT or tls://HOST:PORT of a Dask scheduler"


def check_bad_address(stderr: str, address: str, words: str, out: Path) -> None:
    """One line naming the address and what is wrong, no traceback, no output folder made."""
    assert stderr.count("\n") == 1 and f"cluster {address!r}" in stderr, stderr
    assert words in stderr and "Traceback" not in stderr, stderr
    if not address.startswith(("tls", "local")):
        assert "local:N" in stderr and ACCEPTED in stderr, stderr
    assert not out.exists()


# Each address is refused while the command line is read, before a cluster or a folder exists,
# so all but one are checked in this process; the TLS one runs as a real process (below).
@pytest.mark.parametrize(
    "address, words",
    [
        ("nowhere", ACCEPTED),
        ("", ACCEPTED),
        ("local:0", "local:N"),
        ("foo://head:8786", "'foo://' is not one arena plays over"),
        ("tcp://127.0.0.1", "no port"),
        ("tcp://[::1", "closing bracket"),
        ("ucx://head:13337", "'ucx://' is not one"),
        ("inproc://x", "'inproc://' is not one"),
    ],
)
def test_bad_cluster_address_is_a_clear_error(tmp_path, address, words):
    path = write_tournament(tmp_path, deterministic_engines())
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "out"), "--cluster", address])
    assert result.exit_code == 2, (address, result.output)
    check_bad_address(result.output, address, words, tmp_path / "out")  # stdout and stderr: one line in all


@pytest.mark.slow
def test_a_bad_cluster_address_ends_the_arena_process_with_one_line(tmp_path):
    """End to end, as a process with no DASK_ variables: TLS without certificates, then a bad
    [cluster] address in the tournament file."""
    path = write_tournament(tmp_path, deterministic_engines())
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}  # no TLS settings
    address = "tls://127.0.0.1:9"
    result = run_arena("run", path, "--out", tmp_path / "out", "--cluster", address, env=env)
    assert result.returncode == 2, (address, result.stderr)
    check_bad_address(result.stderr, address, "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT", tmp_path / "out")
    assert "distributed.comm.tls.ca-file" in result.stderr
    path.write_text(path.read_text() + '\n[cluster]\naddress = "scheduler"\n')
    result = run_arena("run", path, "--out", tmp_path / "out")
    assert result.returncode == 2 and "[cluster] address" in result.stderr and str(path) in result.stderr


def test_scheduler_addresses_dask_can_reach_are_taken(monkeypatch):
    for address in ("tcp://head:8786", "tcp://10.0.0.1:8786", "tcp://[fd00::1]:8786", " local:4 "):
        assert ClusterSpec.parse(address).address == address.strip()
    with dask_config.set({"distributed.comm.tls.ca-file": "ca.pem", "distributed.comm.tls.client.cert": "c.pem"}):
        assert ClusterSpec.parse("tls://head:8786").address == "tls://head:8786"


def listening(process: psutil.Process) -> set[str]:
    """The addresses a process and its children accept connections on."""
    return {
        connection.laddr.ip
        for p in [process, *process.children(recursive=True)]
        for connection in p.net_connections("inet")
        if connection.status == psutil.CONN_LISTEN
    }


@pytest.mark.slow
def test_a_local_cluster_listens_on_this_machine_only(tmp_path, monkeypatch):
    path = write_tournament(tmp_path, deterministic_engines(), rounds=1)
    seen: dict[str, object] = {}
    check = ClusterGames._check_workers

    def look_then_check(self) -> None:
        local = self.cluster
        seen.update(
            scheduler=local.scheduler_address,
            dashboard=local.dashboard_link,
            workers=list(local.scheduler_info["workers"]),
            listening=listening(psutil.Process()),
        )
        check(self)

    monkeypatch.setattr(ClusterGames, "_check_workers", look_then_check)
    summary = run_tournament(load_tournament(path), tmp_path / "out", cluster=ClusterSpec.parse("local:2"))
    assert summary.played == 6
    assert seen["scheduler"].startswith("tcp://127.0.0.1:")
    assert seen["dashboard"].startswith("http://127.0.0.1:")
    assert len(seen["workers"]) == 2 and all(w.startswith("tcp://127.0.0.1:") for w in seen["workers"])
    assert seen["listening"] == {"127.0.0.1"}  # the dashboard too (Dask's default is every interface)


@pytest.mark.slow
def test_a_worker_killed_mid_game_has_its_game_played_again_once(tmp_path, cluster):
    local, client = cluster
    path = write_tournament(
        tmp_path,
        slow_zoo("a", "b", "c"),
        options="size = 5\nswap = false",
        rounds=2,
        seed=3,
        time_control="movetime_ms = 500\nmargin_ms = 200",
    )
    t = load_tournament(path)
    out = tmp_path / "out"
    pids = client.run(os.getpid)
    killed: dict[str, object] = {}

    def kill_a_busy_worker() -> None:
        def busy():
            processing = client.processing()
            for address, keys in processing.items():
                if keys and stored_count(out) >= 1:
                    return address, keys[0]
            return None

        deadline = time.monotonic() + 60
        while (found := busy()) is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if found:
            killed["address"], killed["key"] = found
            os.kill(pids[found[0]], signal.SIGKILL)

    killer = threading.Thread(target=kill_a_busy_worker)
    killer.start()
    summary = run_tournament(t, out, cluster=ClusterSpec(local.scheduler_address))
    killer.join()
    assert killed, "no game was in progress to kill"
    game_id = int(str(killed["key"]).split("-game-")[1].split("-")[0])
    records = stored(out)
    assert [r["id"] for r in records] == list(range(12))  # every game once, the killed one included
    assert jsonl_ids(out) == list(range(12))
    assert summary.errors == [] and summary.played == 12
    assert all(r["termination"] == "normal" for r in records)
    assert records[game_id]["moves"]
    alive = client.run(os.getpid, on_error="return").values()  # a replacement may be starting
    assert pids[killed["address"]] not in alive  # it was really killed


@pytest.mark.slow
def test_a_result_dask_loses_on_the_way_back_has_its_game_played_again(tmp_path, cluster, monkeypatch):
    """The worker finished the game but the client could not take the result (as when that
    worker dies just then and Dask trips over its recomputation): the game is played again,
    not recorded as lost."""
    local, _ = cluster
    path = write_tournament(tmp_path, deterministic_engines(), options="size = 5\nswap = false", rounds=1, seed=2)
    real_result = distributed.Future.result
    tripped: list[str] = []

    def result_lost_once(self, *args, **kwargs):
        if "-game-2-" in self.key and not tripped:
            tripped.append(self.key)
            raise RuntimeError("<asyncio.locks.Event object> is bound to a different event loop")
        return real_result(self, *args, **kwargs)

    monkeypatch.setattr(distributed.Future, "result", result_lost_once)
    out = tmp_path / "out"
    summary = run_tournament(load_tournament(path), out, cluster=ClusterSpec(local.scheduler_address))
    assert tripped, "the result of game 2 was never taken"
    assert summary.errors == [] and [r["id"] for r in stored(out)] == list(range(6))


@pytest.mark.slow
def test_a_bug_on_a_dask_worker_costs_its_game_not_the_run(tmp_path, monkeypatch):
    """A Dask worker's internal error reaches the runner as the local pool's does: the game
    is named among those not recorded, the others are stored.  The workers are threads of
    this process here, so the bug planted in them holds there."""

    def broken_for_game_2(self, scheduled):
        return 1 / 0 if scheduled.index == 2 else None

    monkeypatch.setattr(Worker, "_transcript", broken_for_game_2)
    path = write_tournament(tmp_path, deterministic_engines(), options="size = 5\nswap = false", rounds=1, seed=2)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as local:
        summary = run_tournament(load_tournament(path), tmp_path / "out", cluster=ClusterSpec(local.scheduler_address))
    assert summary.errors == ["game 2 not recorded: internal error ZeroDivisionError: division by zero (see arena.log)"]
    assert [r["id"] for r in stored(tmp_path / "out")] == [0, 1, 3, 4, 5]


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_the_drop_rule_drops_on_a_cluster_past_its_limit(tmp_path, cluster):
    """Two Dask workers, a dud that crashes at its second move against a slow opponent: its
    games run side by side (the drop rule holds none back), at most the tasks in flight (8)
    start it past its limit, and every later game is a dropped forfeit that never starts it
    (its processes are counted)."""
    local, _ = cluster
    starts = tmp_path / "dud-starts"
    engines = engine_toml("tortoise", "{python}", ZOO, "good+slow", extra='env = { ZOO_SLOW_S = "0.4" }')
    engines += engine_toml(
        "dud", "{python}", ZOO, "crash", "2", extra=f'max_failures = 2\nenv = {{ ZOO_PIDS = "{starts}" }}'
    )
    path = write_tournament(
        tmp_path, engines, options="size = 5\nswap = false", rounds=6, time_control="movetime_ms = 1000"
    )
    summary = run_tournament(load_tournament(path), tmp_path / "out", cluster=ClusterSpec(local.scheduler_address))
    records = stored(tmp_path / "out")
    crashed = [r for r in records if r["termination"] == "crash"]
    assert 2 <= len(crashed) <= 2 + 8, [r["termination"] for r in records]
    assert len(records) == 12 and all(r["termination"] == "dropped" for r in records if r not in crashed)
    # a worker's handshake starts the dud once and its first game reuses that process
    assert len(crashed) <= len(starts.read_text().split()) <= 2 + len(crashed)
    assert summary.dropped["dud"].startswith("2 consecutive failures")


def dask_worker(scheduler: str, name: str, env: dict) -> subprocess.Popen:
    dask = Path(sys.executable).with_name("dask")
    command = (
        [str(dask), "worker", scheduler]
        if dask.exists()
        else [sys.executable, "-m", "distributed.cli.dask_worker", scheduler]
    )
    return subprocess.Popen(
        [*command, "--nworkers", "1", "--nthreads", "1", "--name", name, "--no-dashboard"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def bots_tournament(tmp_path: Path, rounds: int = 3, fault: str = "good") -> Path:
    """Two engines that live under $BOTS: a worker whose $BOTS is an empty folder lacks them."""
    bots = tmp_path / "bots"
    bots.mkdir()
    shutil.copy(ZOO, bots / "zoo_engine.py")
    wrapper = tmp_path / "bot.sh"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$BOTS/zoo_engine.py" {fault}\n')
    wrapper.chmod(0o755)
    engines = engine_toml("a", str(wrapper)) + engine_toml("b", str(wrapper))
    return write_tournament(
        tmp_path,
        engines,
        options="size = 5\nswap = false",
        rounds=rounds,
        seed=3,
        time_control="movetime_ms = 500\nmargin_ms = 300",
    )


def test_a_workers_refusal_reaches_the_coordinator_whole():
    refusal = EngineUnavailable("tcp://10.0.0.7:4000", "node7 (pid 9)", {"a": "handshake: not found"})
    back = pickle.loads(pickle.dumps(refusal))  # how Dask sends a task's exception back
    assert (back.address, back.host, back.problems) == (refusal.address, refusal.host, refusal.problems)
    assert str(back) == "node7 (pid 9): engine a: handshake: not found"


@pytest.mark.slow
def test_a_cluster_where_no_worker_can_start_the_engines_is_refused(tmp_path):
    """The handshake is the cluster's start-up check: an engine no worker can start stops the
    run before its first game, with the start-up failure's exit code and fix."""
    path = bots_tournament(tmp_path)
    env = dict(os.environ, BOTS=str(tmp_path / "missing"), PYTHONPATH=str(ROOT))
    result = run_arena("run", path, "--out", tmp_path / "out", "--cluster", "local:1", env=env)
    assert result.returncode == 3, result.stderr
    assert "cannot play" in result.stderr and "no worker of the cluster" in result.stderr
    assert "engine 'a' failed its start-up check" in result.stderr and "--forfeit-failed-engines" in result.stderr
    assert "Traceback" not in result.stderr
    assert stored_count(tmp_path / "out") == 0


@pytest.mark.slow
def test_a_worker_that_joins_later_without_the_engines_sends_its_game_back(tmp_path, monkeypatch):
    path = bots_tournament(tmp_path, rounds=12, fault="good+slow")
    monkeypatch.setenv("BOTS", str(tmp_path / "bots"))
    fast = tmp_path / "fast"  # the games are slow until the late worker has said no, then quick
    monkeypatch.setenv("ZOO_FAST_AFTER", str(fast))
    out = tmp_path / "out"
    said: list[str] = []
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        env = dict(os.environ, BOTS=str(tmp_path / "missing"), PYTHONPATH=str(ROOT))
        late: list[subprocess.Popen] = []

        def join_when_playing() -> None:
            wait_until(lambda: stored_count(out) >= 1)
            late.append(dask_worker(local.scheduler_address, "late-without-bots", env))
            try:
                wait_until(lambda: any("cannot play" in line for line in said))
            finally:
                fast.touch()

        joiner = threading.Thread(target=join_when_playing)
        joiner.start()
        try:
            summary = run_tournament(
                load_tournament(path), out, cluster=ClusterSpec(local.scheduler_address, said.append)
            )
        finally:
            joiner.join()
            for worker in late:
                worker.terminate()
                worker.wait(30)
    assert summary.errors == [] and summary.played == 24
    assert [r["id"] for r in stored(out)] == list(range(24))
    refusals = [line for line in said if "cannot play" in line]
    assert len(refusals) == 1 and "gets no more games" in refusals[0], said


@pytest.mark.slow
def test_a_worker_that_cannot_start_an_engine_is_named_before_any_game(tmp_path, monkeypatch):
    path = bots_tournament(tmp_path)
    monkeypatch.setenv("BOTS", str(tmp_path / "bots"))
    monkeypatch.setenv("ZOO_PIDS", str(tmp_path / "pids"))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        with distributed.Client(local) as client:
            env = dict(os.environ, BOTS=str(tmp_path / "missing"), PYTHONPATH=str(ROOT))
            worker = dask_worker(local.scheduler_address, "no-bots-here", env)
            try:
                client.wait_for_workers(2, timeout=60)
                result = run_arena(
                    "run",
                    path,
                    "--out",
                    tmp_path / "out",
                    "--cluster",
                    local.scheduler_address,
                    env=dict(os.environ, PYTHONPATH=str(ROOT)),
                )
            finally:
                worker.terminate()
                worker.wait(30)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "cannot play" in line]
    assert len(lines) == 1, result.stderr
    assert "no-bots-here" in lines[0] and "engine a" in lines[0] and "engine b" in lines[0]
    assert "zoo_engine.py" in lines[0]  # the engine's own complaint, from its stderr
    assert "gets no games" in lines[0]
    records = stored(tmp_path / "out")
    assert [r["id"] for r in records] == list(range(6))
    assert all(r["termination"] == "normal" for r in records)
    # The good worker kept its two engines alive for all six games.
    assert len((tmp_path / "pids").read_text().split()) == 2


@pytest.mark.slow
def test_a_coordinator_killed_with_9_resumes_from_its_database(tmp_path):
    marker = tmp_path / "pids"
    env = dict(os.environ, ZOO_PIDS=str(marker), PYTHONPATH=str(ROOT))
    path = write_tournament(
        tmp_path,
        slow_zoo("a", "b", "c"),
        options="size = 5\nswap = false",
        rounds=2,
        seed=3,
        time_control="movetime_ms = 500\nmargin_ms = 200",
    )
    out = tmp_path / "out"
    first = subprocess.Popen(
        arena_cmd("run", path, "--out", out, "-q", "--cluster", "local:2"),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(lambda: stored_count(out) >= 2)
    finally:
        first.kill()
        first.wait()
    before = stored_count(out)
    assert before < 12
    second = run_arena("run", path, "--out", out, "--cluster", "local:2", env=env, timeout=150)
    assert second.returncode == 0, second.stderr
    assert "resumed from an earlier run" in second.stdout
    records = stored(out)
    assert [r["id"] for r in records] == list(range(12))
    assert jsonl_ids(out) == list(range(12))
    # Nothing the killed run started is left: its Dask workers died with it, their engines too.
    from arena.engine import proctree

    wait_until(lambda: not proctree.tagged_pids(str(marker), key="ZOO_PIDS"), timeout=20)


@pytest.mark.slow
def test_quick_games_travel_in_batches_and_each_is_stored_once(tmp_path, zoo_c):
    """Games of a few milliseconds: a task carries many of them, and every game of the
    schedule is stored exactly once, in the database and in games.jsonl."""
    opened: list[ClusterGames] = []

    class Watched(ClusterSpec):
        def open(self, config, may_start=None):
            opened.append(super().open(config, may_start))
            return opened[-1]

    engines = "".join(engine_toml(name, zoo_c, "good", extra="max_failures = 0") for name in ("a", "b", "c"))
    path = write_tournament(tmp_path, engines, options="size = 3\nswap = false", rounds=30)
    out = tmp_path / "out"
    summary = run_tournament(load_tournament(path), out, cluster=Watched("local:1"))
    assert summary.errors == [] and summary.played == 180
    assert [r["id"] for r in stored(out)] == list(range(180)) and jsonl_ids(out) == list(range(180))
    assert opened[0].batch.size > 1, "every task carried one game"


def sandboxed_tournament(tmp_path: Path) -> tuple[Path, Path]:
    """A sandboxed engine that tries to write into its tournament's folder, against the random
    engine: the tournament file, and the file it would write."""
    planted = tmp_path / "planted.txt"
    intruder = str(ROOT / "tests" / "engines" / "intruder_engine.py")
    engines = engine_toml("intruder", "{python}", intruder, f"write:{planted}", extra="sandbox = true")
    engines += engine_toml("random", "{python}", str(ROOT / "engines" / "random_engine.py"))
    return write_tournament(tmp_path, engines, rounds=2, time_control="movetime_ms = 5000"), planted


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.skipif(sandbox_problem() is not None, reason="no sandbox here")
def test_cluster_workers_run_a_sandboxed_engine_in_its_sandbox(tmp_path):
    path, planted = sandboxed_tournament(tmp_path)
    result = run_arena("run", path, "--out", tmp_path / "out", "--cluster", "local:2", "-q", timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    records = stored(tmp_path / "out")
    assert len(records) == 4 and all(r["termination"] == "normal" for r in records)
    assert not planted.exists()  # it played inside its sandbox, on the workers


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.skipif(sandbox_problem() is not None, reason="no sandbox here")
def test_a_worker_without_bubblewrap_cannot_play_a_sandboxed_engine(tmp_path):
    path, planted = sandboxed_tournament(tmp_path)
    no_bwrap = tmp_path / "empty-bin"
    no_bwrap.mkdir()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        with distributed.Client(local) as client:
            env = dict(os.environ, PATH=str(no_bwrap), PYTHONPATH=str(ROOT))
            worker = dask_worker(local.scheduler_address, "no-bwrap-here", env)
            try:
                client.wait_for_workers(2, timeout=60)
                result = run_arena(
                    "run", path, "--out", tmp_path / "out", "--cluster", local.scheduler_address,
                    env=dict(os.environ, PYTHONPATH=str(ROOT)),
                )  # fmt: skip
            finally:
                worker.terminate()
                worker.wait(30)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "cannot play" in line]
    assert len(lines) == 1, result.stderr
    assert "no-bwrap-here" in lines[0] and "engine intruder" in lines[0] and "bubblewrap" in lines[0]
    assert "engine random" not in lines[0]  # the unsandboxed engine it can play
    records = stored(tmp_path / "out")
    assert len(records) == 4 and all(r["termination"] == "normal" for r in records)
    assert not planted.exists()


def test_a_game_that_comes_back_twice_is_kept_once_whatever_its_outcome() -> None:
    """A rescued task and its first copy can both finish: a record, a worker error or a lost
    game arriving a second time is dropped, so the database never sees a game twice."""
    seen: set[int] = set()
    record = GameRecord(id=3, game="hex", moves=[])
    lost = Lost(ScheduledGame(index=4, round=0, seats=("a", "b"), seed=1), "workers kept dying")
    error = WorkerError(5, "ValueError: x")
    assert first_copies([record, lost, error], seen) == [record, lost, error]
    again = GameRecord(id=3, game="hex", moves=["a1"])
    assert first_copies([again, lost, error, GameRecord(id=6, game="hex", moves=[])], seen) == [
        GameRecord(id=6, game="hex", moves=[])
    ]
    assert seen == {3, 4, 5, 6}


# -- In this process: the addresses, the batch size, the workers' side and the coordinator on an
# in-process LocalCluster (threads, no worker processes), so that the fast tests reach cluster.py.

SCHEDULER_FORMS = (
    "give tcp://HOST:PORT or tls://HOST:PORT of a Dask scheduler (an IPv6 HOST in brackets), "
    "or local:N for N workers on this machine"
)


@pytest.mark.parametrize(
    "address, problem",
    [
        ("nowhere", "it has no transport"),
        ("foo://head:8786", "the transport 'foo://' is not one arena plays over"),
        ("tcp://", "it names no host and no port"),
        ("tcp://head", "it names no port"),
        ("tcp://[::1", "an IPv6 host needs its closing bracket and a port, as in [::1]:8786"),
        ("tcp://[::1]8786", "an IPv6 host needs its closing bracket and a port, as in [::1]:8786"),
        ("tcp://::1:8786", "an IPv6 host goes in brackets, as in [::1]:8786"),
        ("tcp://:8786", "it names no host"),
        ("tcp://[]:8786", "it names no host"),
        ("tcp://head:", "it has no port (1 to 65535) after the host"),
        ("tcp://head:0", "'0' is not a port (1 to 65535)"),
        ("tcp://head:65536", "'65536' is not a port (1 to 65535)"),
        ("tcp://head:http", "'http' is not a port (1 to 65535)"),
        ("tcp://head:\uff18\uff17", "'\uff18\uff17' is not a port (1 to 65535)"),  # full-width digits
    ],
)
def test_a_scheduler_address_arena_cannot_use_is_refused_with_its_reason_and_the_forms(address, problem):
    with pytest.raises(ClusterError) as refused:
        ClusterSpec.parse(address)
    assert str(refused.value) == f"cluster {address!r}: {problem}; {SCHEDULER_FORMS}"


def test_an_ipv6_address_is_read_from_its_first_closing_bracket_and_its_whole_port():
    """After "[::1]" comes ":PORT": a second bracket is not part of the host, and a port of five
    digits is read whole (99999 is not a port, though its last four are)."""
    for address, problem in [
        ("tcp://[::1]]:8786", "an IPv6 host needs its closing bracket and a port, as in [::1]:8786"),
        ("tcp://[::1]:99999", "'99999' is not a port (1 to 65535)"),
    ]:
        with pytest.raises(ClusterError) as refused:
            ClusterSpec.parse(address)
        assert str(refused.value) == f"cluster {address!r}: {problem}; {SCHEDULER_FORMS}"


@pytest.mark.parametrize("address", ["local:0", "local:257", "local:", "local:x", "local:\u00b2", "local:-1"])
def test_a_local_cluster_needs_1_to_256_workers(address):
    with pytest.raises(ClusterError) as refused:
        ClusterSpec.parse(address)
    assert str(refused.value) == f"cluster {address!r}: write local:N with N from 1 to 256 worker processes"


def test_a_cluster_spec_keeps_its_address_its_ways_to_tell_and_its_local_workers():
    echo, tell = [].append, [].append
    for text, workers in [("local:1", 1), (" local:256 ", 256), ("tcp://head:1", None), ("tcp://[::1]:65535", None)]:
        spec = ClusterSpec.parse(text, echo, tell)
        assert spec == ClusterSpec(text.strip(), echo, tell)
        assert spec.local_workers == workers
    assert ClusterSpec.parse("tcp://head:8786") == ClusterSpec("tcp://head:8786", print, None)


TLS_ADVICE_TAIL = (
    "give distributed.comm.tls.ca-file, distributed.comm.tls.client.cert, distributed.comm.tls.client.key in "
    "Dask's configuration (~/.config/dask/*.yaml) or as the environment variables "
    "DASK_DISTRIBUTED__COMM__TLS__CA_FILE, DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT, "
    "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY (see docs/cluster.md)"
)


def test_a_tls_address_without_dasks_tls_settings_is_refused_naming_those_missing():
    unset = {"distributed.comm.tls.ca-file": None, "distributed.comm.tls.client.cert": None}
    with dask_config.set(unset), pytest.raises(ClusterError) as refused:
        ClusterSpec.parse("tls://head:8786")
    assert str(refused.value) == (
        "cluster 'tls://head:8786': a tls:// address needs Dask's TLS settings (distributed.comm.tls.ca-file and "
        f"distributed.comm.tls.client.cert are not set): {TLS_ADVICE_TAIL}"
    )
    with dask_config.set({**unset, "distributed.comm.tls.ca-file": "ca.pem"}), pytest.raises(ClusterError) as refused:
        ClusterSpec.parse("tls://head:8786")
    assert str(refused.value) == (
        "cluster 'tls://head:8786': a tls:// address needs Dask's TLS settings (distributed.comm.tls.client.cert "
        f"is not set): {TLS_ADVICE_TAIL}"
    )
    # the key may be in the certificate's file: not needed
    with dask_config.set({**unset, "distributed.comm.tls.ca-file": "ca.pem", "distributed.comm.tls.client.cert": "c"}):
        assert ClusterSpec.parse("tls://head:8786").address == "tls://head:8786"
    with dask_config.set(unset):  # only a tls:// address needs them
        assert ClusterSpec.parse("tcp://head:8786").address == "tcp://head:8786"


def test_a_task_carries_as_many_games_as_take_about_50_ms_growing_at_most_twofold():
    batch = _BatchSize()
    assert (batch.size, batch.per_game_s) == (1, None)
    sizes = []
    for _ in range(7):
        batch.learn(batch.size, batch.size * 0.001)  # a millisecond a game: 50 games fit in 50 ms
        sizes.append(batch.size)
    assert sizes == [2, 4, 8, 16, 32, 50, 50]
    assert batch.per_game_s == pytest.approx(0.001)
    batch.learn(1, 0.199)  # the mean of the per-game times so far and this task's: 0.1 s
    assert (batch.size, batch.per_game_s) == (1, pytest.approx(0.1))
    batch.learn(0, 0.0)  # a task that played no game: its time counts as one game's
    assert batch.per_game_s == pytest.approx(0.05) and batch.size == 1


def test_a_task_never_carries_more_than_256_games_however_quick_they_are():
    batch = _BatchSize()
    for _ in range(10):
        batch.learn(batch.size, 0.0)
    assert batch.size == 256 and batch.per_game_s == 0.0


def test_an_outcome_names_its_game_and_a_second_copy_is_logged(caplog):
    scheduled = ScheduledGame(index=4, round=0, seats=("a", "b"), seed=1)
    assert [
        game_of(o) for o in [GameRecord(id=3, game="hex", moves=[]), Lost(scheduled, "x"), WorkerError(5, "e")]
    ] == [3, 4, 5]
    assert game_of(GameRecord(game="hex", moves=[])) == -1
    with caplog.at_level(logging.ERROR, logger="arena.cluster"):
        assert first_copies(
            [GameRecord(id=3, game="hex", moves=[]), GameRecord(id=3, game="hex", moves=[])], set()
        ) == [GameRecord(id=3, game="hex", moves=[])]
    assert [r.getMessage() for r in caplog.records] == ["game 3 arrived twice; the second copy is ignored"]


def test_the_engines_no_worker_could_start_are_those_failing_on_every_worker():
    answers = {
        "w1": ({"a": "crash: not here", "b": "crash: nor b"}, {}),
        "w2": ({"a": "crash: not there"}, {}),
    }
    assert _failed_everywhere(answers) == {"a": "crash: not here"}  # one worker's fault, b played on w2
    assert _failed_everywhere({"w1": ({}, {}), "w2": ({"a": "crash: x"}, {})}) == {}
    assert _failed_everywhere({**answers, "w3": OSError("no arena")}) == {}  # w3 says nothing of the engines


HEX3 = {"size": 3, "swap": False}  # the zoo's engines play the first free cell: Red (seat 0) wins every game


def zoo_config(zoo_c: str, marker: Path, *broken: EngineSpec, max_failures: dict | None = None) -> WorkerConfig:
    """Two good engines of the C zoo, a and b (each writes its pid to ``marker``), then ``broken``,
    for Hex 3x3 games, under a run tag of its own."""
    env = (("ZOO_PIDS", str(marker)),)
    engines = [EngineSpec(name, (zoo_c, "good"), env=env) for name in ("a", "b")] + list(broken)
    return WorkerConfig(
        "t",
        "hex",
        HEX3,
        {e.name: e for e in engines},
        TimeControl(movetime_ms=2000),
        run_tag=f"run-{uuid.uuid4().hex}",
        max_failures=max_failures or {},
        coordinator=os.getpid(),
        spin=True,
        share_core=True,
        affinity=True,
    )


def hex3_games(count: int, seats: tuple[str, str] = ("a", "b"), first: int = 0) -> list[ScheduledGame]:
    """Games ``first``.. of ``seats``, their seats swapped every other game."""
    return [ScheduledGame(i, 0, seats if i % 2 == 0 else seats[::-1], seed=i) for i in range(first, first + count)]


def started_pids(marker: Path) -> list[int]:
    return [int(p) for p in marker.read_text().split()] if marker.exists() else []


def wait_gone(marker: Path) -> None:
    """Every engine that wrote its pid to ``marker`` has ended."""
    from arena.engine import proctree

    wait_until(lambda: not proctree.tagged_pids(str(marker), key="ZOO_PIDS"), timeout=10)


MISSING = EngineSpec("gone", ("/nonexistent/engine",))
MISSING_FAULT = "crash: cannot start '/nonexistent/engine': No such file or directory"


def test_a_workers_handshake_names_each_engine_that_cannot_start_once_and_keeps_the_started(zoo_c, tmp_path):
    marker = tmp_path / "pids"
    undeclared = EngineSpec("fussy", (zoo_c, "good"), options=(("depth", "3"),))
    state = arena_cluster._RunState(zoo_config(zoo_c, marker, MISSING, undeclared))
    refusal = "refused: option 'depth' is not one the engine declared (it declares no options)"
    try:
        problems = state.handshake()
        assert problems == {"gone": MISSING_FAULT, "fussy": f"handshake: {refusal}"}
        assert state.refused == {"fussy": refusal}  # what it declares: the same on every worker
        assert len(started_pids(marker)) == 2  # a and b, kept for the first game
        assert state.handshake() is problems and len(started_pids(marker)) == 2  # it ran once
        assert [sorted(w.engines) for w in state.idle] == [["a", "b"]]
    finally:
        state.shutdown()
    assert state.idle == []
    wait_gone(marker)


def test_a_workers_handshake_skips_the_dropped_engines(zoo_c, tmp_path):
    state = arena_cluster._RunState(zoo_config(zoo_c, tmp_path / "pids", MISSING))
    try:
        assert state.handshake(skip=("gone", "b")) == {}
        assert len(started_pids(tmp_path / "pids")) == 1
    finally:
        state.shutdown()


def test_a_worker_that_cannot_start_an_engine_refuses_its_games_naming_itself(zoo_c, tmp_path):
    state = arena_cluster._RunState(zoo_config(zoo_c, tmp_path / "pids", MISSING))
    try:
        with pytest.raises(EngineUnavailable) as refused:
            state.play(hex3_games(1), (0, 0, 0))
        here = f"{socket.gethostname()} (pid {os.getpid()})"
        assert (refused.value.address, refused.value.host, refused.value.problems) == (
            "",
            here,
            {"gone": MISSING_FAULT},
        )
        # with "gone" dropped its games are forfeits that never start it: the worker plays
        state.problems = None
        assert [r.id for r in state.play(hex3_games(2), (0, 0, 1))] == [0, 1]
        assert state.dropped == [0, 0, 1]
    finally:
        state.shutdown()


def test_a_workers_task_plays_its_games_in_turn_on_one_set_of_engines(zoo_c, tmp_path):
    marker = tmp_path / "pids"
    state = arena_cluster._RunState(zoo_config(zoo_c, marker))
    try:
        records = state.play(hex3_games(3), (0, 0))
        assert [(r.id, r.players, r.winner, r.termination.value) for r in records] == [
            (0, ["a", "b"], 0, "normal"),
            (1, ["b", "a"], 0, "normal"),
            (2, ["a", "b"], 0, "normal"),
        ]
        assert len(state.idle) == 1 and len(started_pids(marker)) == 2  # the handshake's engines played them
        assert state.dropped == [0, 0]
    finally:
        state.shutdown()
    wait_gone(marker)


def test_a_task_stops_after_a_game_failing_an_engine_the_drop_rule_counts(zoo_c, tmp_path):
    dud = EngineSpec("dud", (zoo_c, "segv", "2"))  # crashes at its second move
    games = hex3_games(4, ("dud", "a"))
    state = arena_cluster._RunState(zoo_config(zoo_c, tmp_path / "pids", dud, max_failures={"dud": 2}))
    try:
        records = state.play(games, (0, 0, 0))
        assert [(r.id, r.termination.value, r.forfeit_seat) for r in records] == [(0, "crash", 0)]
    finally:
        state.shutdown()
    state = arena_cluster._RunState(zoo_config(zoo_c, tmp_path / "pids", dud, max_failures={"dud": 0}))  # never dropped
    try:
        records = state.play(games, (0, 0, 0))
        assert [(r.id, r.termination.value) for r in records] == [
            (0, "crash"),
            (1, "crash"),
            (2, "crash"),
            (3, "crash"),
        ]
    finally:
        state.shutdown()


def test_a_run_long_unused_on_a_worker_has_its_engines_quit_when_another_run_starts(zoo_c, tmp_path):
    old, kept, new = (zoo_config(zoo_c, tmp_path / name) for name in ("old", "kept", "new"))
    try:
        stale, recent = arena_cluster._state(old), arena_cluster._state(kept)
        stale.handshake()
        assert arena_cluster._state(old) is stale
        stale.used = time.monotonic() - arena_cluster.STALE_S - 1
        recent.used = time.monotonic() - arena_cluster.STALE_S + 60
        fresh = arena_cluster._state(new)
        assert fresh.config is new and arena_cluster._RUNS[new.run_tag] is fresh
        assert old.run_tag not in arena_cluster._RUNS and arena_cluster._RUNS[kept.run_tag] is recent
        assert stale.idle == []
        wait_gone(tmp_path / "old")
    finally:
        for config in (old, kept, new):
            arena_cluster._release(config.run_tag)
    assert not {old.run_tag, kept.run_tag, new.run_tag} & set(arena_cluster._RUNS)


def test_a_drop_watching_and_release_reach_only_their_runs_state_on_a_worker(zoo_c, tmp_path):
    config, other = zoo_config(zoo_c, tmp_path / "pids"), zoo_config(zoo_c, tmp_path / "other")
    try:
        state, bystander = arena_cluster._state(config), arena_cluster._state(other)
        arena_cluster._drop_engine(config.run_tag, 1)
        arena_cluster._drop_engine("no-such-run", 0)
        assert (state.dropped, bystander.dropped) == ([0, 1], [0, 0])
        before = time.monotonic()
        arena_cluster._watch(config.run_tag)
        arena_cluster._watch("no-such-run")
        assert before + 3.0 <= state.watched_until <= time.monotonic() + 3.0 and bystander.watched_until == 0.0
        assert arena_cluster._handshake(config, ("b",)) == ({}, {})
        arena_cluster._release(config.run_tag)
        arena_cluster._release("no-such-run")
        assert config.run_tag not in arena_cluster._RUNS and arena_cluster._RUNS[other.run_tag] is bystander
        assert state.idle == []
        wait_gone(tmp_path / "pids")
    finally:
        arena_cluster._release(config.run_tag)
        arena_cluster._release(other.run_tag)


def test_a_worker_that_stops_quits_every_runs_engines(zoo_c, tmp_path, monkeypatch):
    monkeypatch.setattr(arena_cluster, "_RUNS", {})
    first, second = zoo_config(zoo_c, tmp_path / "first"), zoo_config(zoo_c, tmp_path / "second")
    states = [arena_cluster._state(first), arena_cluster._state(second)]
    for state in states:
        state.handshake()
    arena_cluster._release_all()
    assert arena_cluster._RUNS == {} and [s.idle for s in states] == [[], []]
    wait_gone(tmp_path / "first")
    wait_gone(tmp_path / "second")


@contextmanager
def threads_cluster(workers: int = 2, threads: int = 1) -> Iterator[distributed.LocalCluster]:
    """A LocalCluster whose workers are threads of this process: a task runs cluster.py's
    worker side here (and the tests see it); no dashboard.  The workers' log records are not
    forwarded to the coordinator: here they would come back to this process's own "arena" logger,
    to be forwarded again without end (``forwarded``: what the coordinator asked for)."""
    forwarded.clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(distributed.Client, "forward_logging", lambda client, *args: forwarded.append(args))
        with distributed.LocalCluster(
            n_workers=workers, threads_per_worker=threads, processes=False, dashboard_address=None
        ) as local:
            yield local


forwarded: list[tuple] = []


@contextmanager
def opened(spec: ClusterSpec, config: WorkerConfig, may_start=None) -> Iterator[ClusterGames]:
    games = spec.open(config, may_start)
    try:
        yield games
    finally:
        games.close()


def worker_addresses(local: distributed.LocalCluster) -> list[str]:
    """The workers' addresses in the order of their names (0, 1, ...)."""
    return [worker.address for _, worker in sorted(local.workers.items())]


def played(batches: Iterable[list]) -> list[tuple]:
    """The games' ids, seats, winners and endings, in id order."""
    return sorted((r.id, tuple(r.players), r.winner, r.termination.value) for batch in batches for r in batch)


def expected_games(games: list[ScheduledGame]) -> list[tuple]:
    return [(g.index, g.seats, 0, "normal") for g in games]  # Red (seat 0) wins every Hex 3x3 game of the zoo


def test_a_cluster_plays_every_game_once_in_batches_and_quits_its_engines_at_the_end(zoo_c, tmp_path):
    marker = tmp_path / "pids"
    config = zoo_config(zoo_c, marker)
    said: list[str] = []
    told: list[str] = []
    games = hex3_games(20)
    with threads_cluster() as local:
        address = local.scheduler_address
        with opened(ClusterSpec(address, said.append, told.append), config) as on_cluster:
            assert (on_cluster.config.spin, on_cluster.config.share_core) == (False, False)  # for the local runner
            assert (on_cluster.config.coordinator, on_cluster.config.affinity) == (0, False)
            assert on_cluster.live is None and on_cluster.config.live_topic == ""
            batches = list(on_cluster.imap_batches(games))
            assert on_cluster.bad == {} and on_cluster.dropped == [0, 0]
            assert on_cluster.batch.per_game_s is not None  # learnt from the tasks (see below)
            dashboard = on_cluster.client.dashboard_link
            assert config.run_tag in arena_cluster._RUNS
            w0, w1 = worker_addresses(local)
        assert forwarded == [("arena", logging.INFO)]  # the workers' log lines, in arena.log
        assert config.run_tag not in arena_cluster._RUNS  # released on every worker
        assert on_cluster.client.status == "closed"
        assert local.status.name == "running"  # a cluster arena did not start is left running
    assert played(batches) == expected_games(games)
    assert said == []
    assert told[0] == f"arena: cluster {address}: dashboard {dashboard}"
    assert told[1:] in (
        [f"arena: cluster {address}: 2 workers can play: {w0} (0), {w1} (1)"],
        [f"arena: cluster {address}: 2 workers can play: {w1} (1), {w0} (0)"],
    )
    wait_gone(marker)


def test_a_clusters_games_come_one_by_one_to_a_caller_that_wants_them_so(zoo_c, tmp_path):
    games = hex3_games(6)
    with (
        threads_cluster(1) as local,
        opened(ClusterSpec(local.scheduler_address), zoo_config(zoo_c, tmp_path / "p")) as c,
    ):
        outcomes = list(c.imap_unordered(games))
        assert all(isinstance(outcome, GameRecord) for outcome in outcomes)
        assert played([outcomes]) == expected_games(games)
        c.terminate()  # as close: the run's engines quit on every worker
        assert c.client.status == "closed"


LOCAL_CLUSTER = distributed.LocalCluster


class FakeLocalCluster:
    """Stands for Dask's LocalCluster: what it was asked for, then a cluster of threads."""

    def __init__(self, asked: list[dict], closed: list[bool], **kwargs) -> None:
        asked.append(kwargs)
        self.real = LOCAL_CLUSTER(n_workers=kwargs["n_workers"], processes=False, dashboard_address=None)
        self.dashboard_link = self.real.dashboard_link
        self.closed = closed

    def close(self) -> None:
        self.closed.append(True)
        self.real.close()


def test_local_n_starts_n_single_threaded_worker_processes_listening_on_this_machine_only(zoo_c, tmp_path, monkeypatch):
    asked: list[dict] = []
    closed: list[bool] = []
    made: list[FakeLocalCluster] = []

    def local_cluster(**kwargs):
        made.append(FakeLocalCluster(asked, closed, **kwargs))
        return made[-1]

    real_client = distributed.Client
    monkeypatch.setattr(distributed, "LocalCluster", local_cluster)
    monkeypatch.setattr(distributed, "Client", lambda cluster: real_client(cluster.real))
    monkeypatch.setattr(real_client, "forward_logging", lambda client, *args: None)  # (see threads_cluster)
    told: list[str] = []
    games = hex3_games(4)
    with opened(ClusterSpec("local:2", tell=told.append), zoo_config(zoo_c, tmp_path / "pids")) as on_cluster:
        assert on_cluster.cluster is made[0]
        assert played(on_cluster.imap_batches(games)) == expected_games(games)
        assert told[1].startswith("arena: cluster local:2: 2 workers can play: ")
    assert asked == [
        dict(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            silence_logs=logging.CRITICAL + 1,  # none of Dask's own lines on the terminal
        )
    ]
    assert closed == [True]  # a cluster arena started is shut down with the run


def test_a_scheduler_that_cannot_be_reached_is_a_clear_error(monkeypatch):
    asked: list[tuple] = []

    def unreachable(*args, **kwargs):
        asked.append((args, kwargs))
        raise OSError("Timed out trying to connect")

    monkeypatch.setattr(distributed, "Client", unreachable)
    config = WorkerConfig("t", "hex", HEX3, {}, TimeControl(movetime_ms=100))
    for address, tls in [
        ("tcp://head:8786", ""),
        ("tls://head:8786", " and that Dask's TLS settings (distributed.comm.tls.*) name files that exist"),
    ]:
        with pytest.raises(ClusterError) as refused:
            ClusterSpec(address).open(config)
        assert str(refused.value) == (
            f"cannot reach the Dask scheduler at {address} (Timed out trying to connect); start one with "
            f"'dask scheduler' and give its address{tls} (see docs/cluster.md)"
        )
    assert asked == [(("tcp://head:8786",), {"timeout": 30.0}), (("tls://head:8786",), {"timeout": 30.0})]


def test_a_local_cluster_whose_client_cannot_connect_is_shut_down(monkeypatch):
    closed: list[bool] = []
    monkeypatch.setattr(distributed, "LocalCluster", lambda **kw: FakeLocalCluster([], closed, **kw))

    def timed_out(cluster):
        raise TimeoutError("no answer")

    monkeypatch.setattr(distributed, "Client", timed_out)
    with pytest.raises(ClusterError) as refused:
        ClusterSpec("local:1").open(WorkerConfig("t", "hex", HEX3, {}, TimeControl(movetime_ms=100)))
    assert str(refused.value) == (
        "cannot reach the Dask scheduler at local:1 (no answer); start one with 'dask scheduler' and give its "
        "address (see docs/cluster.md)"
    )
    assert closed == [True]


def test_an_engine_no_worker_can_start_stops_the_run_before_any_game_naming_each_worker(zoo_c, tmp_path):
    said: list[str] = []
    config = zoo_config(zoo_c, tmp_path / "pids", MISSING)
    with threads_cluster() as local, pytest.raises(StartupFailure) as stopped:
        address = local.scheduler_address
        workers = worker_addresses(local)
        ClusterSpec(address, said.append).open(config)
    assert str(stopped.value).startswith(
        f"cluster {address} (no worker of the cluster could start them): engine 'gone' failed its start-up check "
        f"({MISSING_FAULT}). The run stopped before its first game: "
    )
    assert sorted(said) == [
        f"arena: cluster worker {w} ({name}) cannot play: engine gone: {MISSING_FAULT}; it gets no games"
        for name, w in enumerate(workers)
    ]
    assert config.run_tag in arena_cluster._RUNS  # (the workers' engines quit with their process)
    arena_cluster._release(config.run_tag)
    wait_gone(tmp_path / "pids")


def test_an_engine_whose_declarations_do_not_fit_is_refused_before_any_game(zoo_c, tmp_path, monkeypatch):
    fussy = EngineSpec("fussy", (zoo_c, "good"), options=(("depth", "3"),))
    config = zoo_config(zoo_c, tmp_path / "pids", fussy)
    closed: list[bool] = []
    close = ClusterGames._close_client
    monkeypatch.setattr(ClusterGames, "_close_client", lambda self: (closed.append(True), close(self)))
    with threads_cluster() as local, pytest.raises(ClusterError) as refused:
        ClusterSpec(local.scheduler_address, [].append).open(config)
    assert str(refused.value) == (
        "tournament 't': engine 'fussy': refused: option 'depth' is not one the engine declared (it declares no "
        "options). Fix the engine's entry (or the engine)."
    )
    assert closed == [True]  # the client let go
    arena_cluster._release(config.run_tag)


def test_an_engine_dropped_before_the_run_is_not_started_by_the_handshake(zoo_c, tmp_path):
    config = zoo_config(zoo_c, tmp_path / "pids", MISSING)
    said: list[str] = []
    with threads_cluster(1) as local:
        with opened(ClusterSpec(local.scheduler_address, said.append), config, lambda name: name != "gone") as c:
            assert c.bad == {}
            assert played(c.imap_batches(hex3_games(2))) == expected_games(hex3_games(2))
    assert said == []


def fake_handshake(answers: dict[str, object]):
    """A handshake whose answer depends on the worker's name (the workers here share one process):
    an exception is raised, anything else is the answer; unnamed workers run the real one."""
    real = arena_cluster._handshake

    def handshake(config, skip=(), dask_worker=None):  # Dask passes its worker to client.run's function
        answer = answers.get(str(dask_worker.name))
        if isinstance(answer, BaseException):
            raise answer
        return real(config, skip) if answer is None else answer

    return handshake


played_on: list[int] = []  # the workers (by name) that played play_saying_where's tasks


def play_saying_where(config: WorkerConfig, games: tuple[ScheduledGame, ...], dropped: tuple[int, ...]):
    """A game's task that notes its worker (a function of this module: Dask sends it by name)."""
    played_on.append(distributed.get_worker().name)
    return arena_cluster._play(config, games, dropped)


def test_a_worker_that_cannot_play_is_named_and_the_games_go_to_the_others(zoo_c, tmp_path, monkeypatch):
    monkeypatch.setattr(arena_cluster, "_handshake", fake_handshake({"1": ({"b": "crash: no b here"}, {})}))
    monkeypatch.setattr(ClusterGames, "task", staticmethod(play_saying_where))
    played_on.clear()
    said: list[str] = []
    told: list[str] = []
    config = zoo_config(zoo_c, tmp_path / "pids")
    games = hex3_games(12)
    with threads_cluster() as local:
        address = local.scheduler_address
        w0, w1 = worker_addresses(local)
        with opened(ClusterSpec(address, said.append, told.append), config) as c:
            assert played(c.imap_batches(games)) == expected_games(games)
            assert c.bad == {w1: "engine b: crash: no b here"}
            assert c._threads() == 1
    assert said == [f"arena: cluster worker {w1} (1) cannot play: engine b: crash: no b here; it gets no games"]
    assert told[1:] == [f"arena: cluster {address}: 1 worker can play: {w0} (0)"]
    assert played_on and set(played_on) == {0}


def test_a_worker_where_arena_cannot_run_is_named_with_its_error(zoo_c, tmp_path, monkeypatch):
    monkeypatch.setattr(arena_cluster, "_handshake", fake_handshake({"0": RuntimeError("no arena here")}))
    said: list[str] = []
    with threads_cluster() as local:
        w0, w1 = worker_addresses(local)
        with opened(ClusterSpec(local.scheduler_address, said.append), zoo_config(zoo_c, tmp_path / "pids")) as c:
            assert c.bad == {w0: "cannot run arena there: RuntimeError: no arena here"}
    assert said == [
        f"arena: cluster worker {w0} (0) cannot play: cannot run arena there: RuntimeError: no arena here; "
        "it gets no games"
    ]


def test_a_cluster_where_arena_runs_on_no_worker_is_refused(zoo_c, tmp_path, monkeypatch):
    broken = {"0": RuntimeError("no arena here"), "1": ({"a": "crash: no a"}, {})}
    monkeypatch.setattr(arena_cluster, "_handshake", fake_handshake(broken))
    with threads_cluster() as local, pytest.raises(ClusterError) as refused:
        address = local.scheduler_address
        ClusterSpec(address, [].append).open(zoo_config(zoo_c, tmp_path / "pids"))
    assert str(refused.value) == (
        f"no worker of the cluster at {address} can start every engine; install the engines there (see docs/cluster.md)"
    )


def test_a_cluster_with_no_workers_yet_says_so_and_its_games_wait_for_one(zoo_c, tmp_path, caplog):
    told: list[str] = []
    games = hex3_games(3)
    with threads_cluster(0) as local:
        address = local.scheduler_address
        with opened(ClusterSpec(address, tell=told.append), zoo_config(zoo_c, tmp_path / "pids")) as c:
            local.scale(1)
            assert played(c.imap_batches(games)) == expected_games(games)
    assert told[1:] == [f"arena: cluster {address}: no workers yet; the games wait for one to join"]
    assert "the cluster has no workers yet; games wait for one to join" in [
        r.getMessage() for r in caplog.records if r.name == "arena.cluster"
    ]


def test_a_worker_joining_later_that_cannot_start_an_engine_is_named_once_and_its_games_are_lost(zoo_c, tmp_path):
    said: list[str] = []
    config = zoo_config(zoo_c, tmp_path / "pids", MISSING)
    games = hex3_games(2)
    host = f"{socket.gethostname()} (pid {os.getpid()})"
    with threads_cluster(0) as local:
        with opened(ClusterSpec(local.scheduler_address, said.append), config) as c:
            local.scale(1)
            outcomes = [o for batch in c.imap_batches(games) for o in batch]
            (worker,) = worker_addresses(local)
            assert c.bad == {worker: f"{host}: engine gone: {MISSING_FAULT}"}
    assert said == [
        f"arena: cluster worker {worker} cannot play: {host}: engine gone: {MISSING_FAULT}; it gets no more games"
    ]
    why = f"it landed 3 times on cluster workers that cannot start its engines (last: {host}: engine gone: {MISSING_FAULT})"
    assert sorted(outcomes, key=game_of) == [Lost(game, why) for game in games]


failing: dict[int, BaseException] = {}  # play_or_fail's games that fail (by index), and how


def play_or_fail(config: WorkerConfig, games: tuple[ScheduledGame, ...], dropped: tuple[int, ...]):
    """A game's task that raises ``failing``'s exception for its game, else plays."""
    for game in games:
        if game.index in failing:
            raise failing[game.index]
    return arena_cluster._play(config, games, dropped)


def test_a_game_whose_task_fails_or_whose_workers_die_or_refuse_it_is_lost_the_others_stored(
    zoo_c, tmp_path, monkeypatch
):
    host = "node7 (pid 9)"
    refusal = EngineUnavailable("", host, {"a": "crash: not here"})  # no address: no worker to name
    killed = distributed.scheduler.KilledWorker("arena-x", SimpleNamespace(address="tcp://gone:1"), 3)
    failing.clear()
    failing.update({1: ZeroDivisionError("division by zero"), 2: killed, 3: refusal})
    monkeypatch.setattr(ClusterGames, "task", staticmethod(play_or_fail))
    said: list[str] = []
    games = hex3_games(5)
    with threads_cluster(1) as local:
        with opened(ClusterSpec(local.scheduler_address, said.append), zoo_config(zoo_c, tmp_path / "pids")) as c:
            outcomes = sorted((o for batch in c.imap_batches(games) for o in batch), key=game_of)
            assert c.bad == {}
    failing.clear()
    assert outcomes[1:4] == [
        Lost(games[1], "its Dask task failed: ZeroDivisionError: division by zero"),
        Lost(games[2], f"the Dask workers playing it died too often ({killed})"),
        Lost(
            games[3],
            f"it landed 3 times on cluster workers that cannot start its engines (last: {host}: engine a: crash: not here)",
        ),
    ]
    assert played([[outcomes[0], outcomes[4]]]) == expected_games([games[0], games[4]])
    assert said == []


def test_a_result_dask_loses_is_played_again_and_lost_the_third_time(zoo_c, tmp_path, monkeypatch, caplog):
    real_result = distributed.Future.result
    taken: list[str] = []

    def lost_for(times: int):
        def result(self, *args, **kwargs):
            taken.append(self.key)
            if "-game-2-" in self.key and taken.count(self.key) == 1 and sum("-game-2-" in k for k in taken) <= times:
                raise RuntimeError("bound to a different event loop")
            return real_result(self, *args, **kwargs)

        return result

    games = hex3_games(3)
    for times, tries, expected in [(1, 2, expected_games(games)), (3, 3, expected_games(games[:2]))]:
        monkeypatch.setattr(distributed.Future, "result", lost_for(times))
        taken.clear()
        caplog.clear()
        config = zoo_config(zoo_c, tmp_path / "pids")
        with threads_cluster(1) as local, opened(ClusterSpec(local.scheduler_address), config) as c:
            outcomes = [o for batch in c.imap_batches(games) for o in batch]
        records = [o for o in outcomes if isinstance(o, GameRecord)]
        assert played([records]) == expected
        tag = config.run_tag[:12]
        assert taken[:3] == [f"arena-{tag}-game-{i}-{i}-x1" for i in range(3)]  # one game a task at first
        assert [k for k in taken if "-game-2-" in k] == [f"arena-{tag}-game-2-{n}-x1" for n in range(2, 2 + tries)]
        # Warnings only: a test before this one in the same process may have left arena's loggers
        # at INFO, and the cluster then tells its workers' count too.
        warned = [r.getMessage() for r in caplog.records if r.name == "arena.cluster" and r.levelno >= logging.WARNING]
        assert (
            warned
            == [
                "games 2: Dask lost their result (RuntimeError: bound to a different event loop); they are played again"
            ]
            * times
        )
    assert outcomes[-1] == Lost(
        games[2], "it had its result lost by Dask 3 times (last: RuntimeError: bound to a different event loop)"
    )


partial_batches: list[list[int]] = []  # the games of play_only_the_first's tasks


def play_only_the_first(config: WorkerConfig, games: tuple[ScheduledGame, ...], dropped: tuple[int, ...]):
    """A task stopped after its first game (as for the drop rule): the others go back."""
    partial_batches.append([g.index for g in games])
    return arena_cluster._play(config, games[:1], dropped)


def test_the_games_a_task_did_not_play_are_submitted_again_first(zoo_c, tmp_path, monkeypatch):
    monkeypatch.setattr(ClusterGames, "task", staticmethod(play_only_the_first))
    partial_batches.clear()
    games = hex3_games(4)
    with (
        threads_cluster(1) as local,
        opened(ClusterSpec(local.scheduler_address), zoo_config(zoo_c, tmp_path / "p")) as c,
    ):
        c.batch.size = 4
        c.batch.per_game_s = 0.001
        assert played(c.imap_batches(games)) == expected_games(games)
    assert partial_batches[0] == [0, 1, 2, 3]
    assert partial_batches[1][0] == 1  # the games handed back lead the queue
    assert sorted(b[0] for b in partial_batches) == [0, 1, 2, 3]  # each game played once


def test_the_requeued_games_lead_the_queue_and_a_game_bouncing_3_times_is_given_up():
    games = hex3_games(3)
    queue = deque(hex3_games(1, first=9))
    bounces = {1: 2}
    lost = ClusterGames._again(games, bounces, queue, "fell off")
    assert lost == [Lost(games[1], "it fell off")]
    assert list(queue) == [games[0], games[2], *hex3_games(1, first=9)]
    assert bounces == {0: 1, 1: 3, 2: 1}


def test_an_engine_dropped_during_the_run_is_never_started_again_on_any_worker(zoo_c, tmp_path):
    marker = tmp_path / "pids"
    config = zoo_config(zoo_c, marker, EngineSpec("c", (zoo_c, "good"), env=(("ZOO_PIDS", str(tmp_path / "c")),)))
    with threads_cluster() as local, opened(ClusterSpec(local.scheduler_address), config) as c:
        c.drop("c")
        assert c.dropped == [0, 0, 1]
        assert arena_cluster._RUNS[config.run_tag].dropped == [0, 0, 1]  # told to every worker at once
        arena_cluster._release(config.run_tag)  # the handshake's engines, c's among them, quit
        wait_gone(tmp_path / "c")
        outcomes = played(c.imap_batches(hex3_games(2, ("c", "a"))))
    assert outcomes == [(0, ("c", "a"), 1, "dropped"), (1, ("a", "c"), 0, "dropped")]
    assert len(started_pids(tmp_path / "c")) == 1  # by the handshake only (the workers here share one process)


def test_a_drop_the_workers_cannot_be_told_of_still_travels_with_every_task(zoo_c, tmp_path, monkeypatch, caplog):
    config = zoo_config(zoo_c, tmp_path / "pids")
    with threads_cluster(1) as local, opened(ClusterSpec(local.scheduler_address), config) as c:
        run = c.client.run

        def unreachable(function, *args, **kwargs):
            if function is arena_cluster._drop_engine:
                raise OSError("worker gone")
            return run(function, *args, **kwargs)

        monkeypatch.setattr(c.client, "run", unreachable)
        c.drop("b")
        assert arena_cluster._RUNS[config.run_tag].dropped == [0, 0]
        outcomes = played(c.imap_batches(hex3_games(2)))
        assert arena_cluster._RUNS[config.run_tag].dropped == [0, 1]  # the task told it
    assert outcomes == [(0, ("a", "b"), 0, "dropped"), (1, ("b", "a"), 1, "dropped")]
    assert "could not tell the cluster's workers that b is dropped: worker gone" in [
        r.getMessage() for r in caplog.records if r.name == "arena.cluster"
    ]


def test_a_cluster_going_away_at_the_end_is_logged_and_the_client_still_closed(zoo_c, tmp_path, monkeypatch, caplog):
    config = zoo_config(zoo_c, tmp_path / "pids")
    with threads_cluster(1) as local:
        c = ClusterSpec(local.scheduler_address).open(config)

        def gone(*args, **kwargs):
            raise OSError("scheduler gone")

        monkeypatch.setattr(c.client, "run", gone)
        c.close()
        assert c.client.status == "closed"
    assert "could not release the engines on the cluster: scheduler gone" in [
        r.getMessage() for r in caplog.records if r.name == "arena.cluster"
    ]
    arena_cluster._release(config.run_tag)


class PendingFuture:
    """Stands for a task's future in _rescue: its status, and whether it was cancelled."""

    def __init__(self, status: str = "pending") -> None:
        self.status = status
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def test_games_waiting_for_workers_that_are_gone_are_queued_again_first(zoo_c, tmp_path):
    games = hex3_games(6)
    with (
        threads_cluster(1) as local,
        opened(ClusterSpec(local.scheduler_address), zoo_config(zoo_c, tmp_path / "p")) as c,
    ):
        (alive,) = worker_addresses(local)
        stuck, tied_alive, anywhere, finished = (
            PendingFuture(),
            PendingFuture(),
            PendingFuture(),
            PendingFuture("finished"),
        )
        pending = {
            stuck: arena_cluster._Task(games[0:2], ["tcp://gone:1"]),
            tied_alive: arena_cluster._Task(games[2:3], ["tcp://gone:1", alive]),
            anywhere: arena_cluster._Task(games[3:4], []),
            finished: arena_cluster._Task(games[4:5], ["tcp://gone:1"]),
        }
        queue = deque(games[5:])
        c._rescue(pending, queue)
    assert list(pending) == [tied_alive, anywhere, finished]
    assert [f.cancelled for f in (stuck, tied_alive, anywhere, finished)] == [True, False, False, False]
    assert list(queue) == [games[0], games[1], games[5]]


release_tasks = threading.Event()  # wait_to_play's tasks wait for it


def wait_to_play(config: WorkerConfig, games: tuple[ScheduledGame, ...], dropped: tuple[int, ...]):
    release_tasks.wait(30)
    return arena_cluster._play(config, games, dropped)


@pytest.mark.parametrize("threads, in_flight", [(1, 8), (5, 10)])
def test_the_tasks_in_flight_are_two_a_worker_thread_and_at_least_eight(
    zoo_c, tmp_path, monkeypatch, threads, in_flight
):
    monkeypatch.setattr(ClusterGames, "task", staticmethod(wait_to_play))
    release_tasks.clear()
    games = hex3_games(12)
    with threads_cluster(1, threads) as local:
        with opened(ClusterSpec(local.scheduler_address), zoo_config(zoo_c, tmp_path / "pids")) as c:
            submitted: list[int] = []
            submit = c._submit
            monkeypatch.setattr(
                c, "_submit", lambda batch, attempt: (submitted.append(len(batch)), submit(batch, attempt))[1]
            )
            counted: list[int] = []

            def release_when_filled() -> None:
                wait_until(lambda: len(submitted) >= in_flight, timeout=10)
                time.sleep(0.1)  # a task more would be submitted by now
                counted.append(len(submitted))
                release_tasks.set()

            releaser = threading.Thread(target=release_when_filled)
            releaser.start()
            try:
                assert played(c.imap_batches(games)) == expected_games(games)
            finally:
                release_tasks.set()
                releaser.join()
    assert counted == [in_flight] and submitted[:in_flight] == [1] * in_flight


def test_games_not_yet_submitted_are_not_played_once_the_caller_cancels_them(zoo_c, tmp_path):
    games = hex3_games(30)
    with (
        threads_cluster(1) as local,
        opened(ClusterSpec(local.scheduler_address), zoo_config(zoo_c, tmp_path / "p")) as c,
    ):
        ids = []
        for batch in c.imap_batches(games):
            c.cancel_queued()
            ids += [r.id for r in batch]
    assert sorted(ids) == list(range(len(ids))) and 8 <= len(ids) < 30


def test_the_schedulers_list_of_workers_is_asked_for_again_after_a_second(zoo_c, tmp_path, monkeypatch):
    with (
        threads_cluster(1) as local,
        opened(ClusterSpec(local.scheduler_address), zoo_config(zoo_c, tmp_path / "p")) as c,
    ):
        asked: list[float] = []
        info = c.client.scheduler_info
        monkeypatch.setattr(c.client, "scheduler_info", lambda: (asked.append(time.monotonic()), info())[1])
        now = time.monotonic()
        c._known = (now, c._known[1])
        assert c._workers() == c._known[1] and asked == []
        c._workers(fresh=True)
        assert len(asked) == 1
        c._known = (now - 1.1, c._known[1])
        assert list(c._workers()) == worker_addresses(local) and len(asked) == 2
        c._known = (time.monotonic() - 0.9, c._known[1])
        c._workers()
        assert len(asked) == 2


def test_watched_games_travel_from_the_workers_to_the_folders_live_files(zoo_c, tmp_path, monkeypatch):
    monkeypatch.setattr(arena_cluster, "MARK_S", 0.01)  # the coordinator tells the workers every 10 ms
    monkeypatch.setattr(livegames, "CHECK_S", 0.01)  # and looks at the watching mark as often
    live = tmp_path / "live"
    config = dataclasses.replace(zoo_config(zoo_c, tmp_path / "pids"), live_dir=str(live))
    with threads_cluster(1) as local, opened(ClusterSpec(local.scheduler_address), config) as c:
        topic = f"arena-live-{config.run_tag}"
        assert (c.config.live_dir, c.config.live_topic) == ("", topic)  # a worker may lack the folder
        assert c.live is not None and c.live.thread is not None and c.live.thread.name == "arena-live"
        state = arena_cluster._RUNS[config.run_tag]
        time.sleep(0.05)
        assert state.watched_until == 0.0  # nobody watches: the workers are not told
        touch_watching(live)
        wait_until(lambda: state.watched_until > time.monotonic(), timeout=10)
        assert played(c.imap_batches(hex3_games(1))) == expected_games(hex3_games(1))
        channel = state.live  # made by the first game's task, on its worker
        assert channel is not None and channel.watched()
        sink = channel.sink(7)
        sink.write('{"id":7}\n')
        sink.flush()  # sent as the worker's event, written by the coordinator
        wait_until(lambda: (live / "7.jsonl").exists() and (live / "7.jsonl").read_text() == '{"id":7}\n', timeout=10)
        sink.close()
        wait_until(lambda: not (live / "7.jsonl").exists(), timeout=10)
        relaying = c.live
    assert not relaying.thread.is_alive() and relaying.stopping.is_set()
    arena_cluster._release(config.run_tag)


task_games: list[int] = []  # the games each play_2ms_a_game task carried


def play_2ms_a_game(config: WorkerConfig, games: tuple[ScheduledGame, ...], dropped: tuple[int, ...]):
    """A game's task that says its games took 2 ms each."""
    task_games.append(len(games))
    outcomes, _ = arena_cluster._play(config, games, dropped)
    return outcomes, 0.002 * len(games)


def test_each_task_back_tells_how_many_games_the_next_ones_carry(zoo_c, tmp_path, monkeypatch):
    monkeypatch.setattr(ClusterGames, "task", staticmethod(play_2ms_a_game))
    task_games.clear()
    games = hex3_games(80)
    with (
        threads_cluster(1) as local,
        opened(ClusterSpec(local.scheduler_address), zoo_config(zoo_c, tmp_path / "p")) as c,
    ):
        batches = list(c.imap_batches(games))
        assert c.batch.size == 25 and c.batch.per_game_s == pytest.approx(0.002)  # 25 games fit in 50 ms
    assert played(batches) == expected_games(games)
    assert sorted(len(batch) for batch in batches) == sorted(task_games)  # a task's games stored together
    # eight tasks of one game in flight, then each task back lets the next carry twice as many, up to 25
    assert sorted(task_games) == sorted([1] * 8 + [2, 4, 8, 16, 25, 80 - 8 - 2 - 4 - 8 - 16 - 25])


def test_without_dask_distributed_a_cluster_run_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed: importing it fails
    assert ClusterSpec.parse("tls://head:8786").address == "tls://head:8786"  # no TLS settings to read
    with pytest.raises(ClusterError) as refused:
        ClusterSpec("tcp://head:8786").open(WorkerConfig("t", "hex", HEX3, {}, TimeControl(movetime_ms=100)))
    assert str(refused.value) == (
        "running on a cluster needs Dask distributed: pip install -e '.[cluster]' in arena's source folder"
    )


def test_a_game_shown_live_when_the_run_ends_has_its_file_taken_away(zoo_c, tmp_path):
    live = tmp_path / "live"
    config = dataclasses.replace(zoo_config(zoo_c, tmp_path / "pids"), live_dir=str(live))
    with threads_cluster(1) as local, opened(ClusterSpec(local.scheduler_address), config) as c:
        # The subscription travels on the client's batched stream and the event on a comm of its
        # own: an event the scheduler gets first reaches nobody (workers send a game's lines only
        # once told someone watches, a second after the start at the earliest).
        topic = local.scheduler._broker._topics[c.config.live_topic]
        wait_until(lambda: c.client.id in topic.subscribers, timeout=10)
        c.client.log_event(c.config.live_topic, {"id": 3, "lines": '{"id":3}\n'})  # as a worker sends a game's lines
        wait_until(lambda: (live / "3.jsonl").exists() and (live / "3.jsonl").read_text() == '{"id":3}\n', timeout=10)
    assert not (live / "3.jsonl").exists()  # the game never ended: its file goes with the run
    arena_cluster._release(config.run_tag)


def play_and_send_game_0_again(config: WorkerConfig, games: tuple[ScheduledGame, ...], dropped: tuple[int, ...]):
    """A task whose batch brings game 0 back a second time (as a rescued task and its first copy
    can): its games' outcomes, then game 0's."""
    outcomes, seconds = arena_cluster._play(config, games, dropped)
    if games[0].index != 0:
        outcomes += arena_cluster._play(config, tuple(hex3_games(1)), dropped)[0]
    return outcomes, seconds


def test_a_game_that_comes_back_a_second_time_from_the_cluster_is_yielded_once(zoo_c, tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(ClusterGames, "task", staticmethod(play_and_send_game_0_again))
    games = hex3_games(3)
    with (
        threads_cluster(1) as local,
        opened(ClusterSpec(local.scheduler_address), zoo_config(zoo_c, tmp_path / "p")) as c,
    ):
        outcomes = [o for batch in c.imap_batches(games) for o in batch]
    assert sorted(game_of(o) for o in outcomes) == [0, 1, 2]
    assert [r.getMessage() for r in caplog.records if r.name == "arena.cluster" and r.levelno == logging.ERROR] == [
        "game 0 arrived twice; the second copy is ignored"
    ] * 2


def test_the_games_a_task_hands_back_go_before_those_never_submitted(zoo_c, tmp_path, monkeypatch):
    monkeypatch.setattr(ClusterGames, "task", staticmethod(play_only_the_first))
    games = hex3_games(20)
    with (
        threads_cluster(1) as local,
        opened(ClusterSpec(local.scheduler_address), zoo_config(zoo_c, tmp_path / "p")) as c,
    ):
        submitted: list[list[int]] = []
        submit = c._submit
        monkeypatch.setattr(
            c, "_submit", lambda batch, attempt: (submitted.append([g.index for g in batch]), submit(batch, attempt))[1]
        )
        c.batch.size = 2
        c.batch.per_game_s = 0.001
        assert played(c.imap_batches(games)) == expected_games(games)
    assert submitted[:8] == [[i, i + 1] for i in range(0, 16, 2)]  # eight tasks in flight, four games left
    assert submitted[8][0] in (1, 3, 5, 7, 9, 11, 13, 15)  # a game handed back by the first task back


def play_the_first_in_10ms(config: WorkerConfig, games: tuple[ScheduledGame, ...], dropped: tuple[int, ...]):
    """A task stopped after its first game, which it says took 10 ms."""
    outcomes, _ = arena_cluster._play(config, games[:1], dropped)
    return outcomes, 0.01


def test_a_task_cut_short_counts_the_seconds_of_the_games_it_played(zoo_c, tmp_path, monkeypatch):
    monkeypatch.setattr(ClusterGames, "task", staticmethod(play_the_first_in_10ms))
    games = hex3_games(6)
    with (
        threads_cluster(1) as local,
        opened(ClusterSpec(local.scheduler_address), zoo_config(zoo_c, tmp_path / "p")) as c,
    ):
        c.batch.size = 3
        assert played(c.imap_batches(games)) == expected_games(games)
        assert c.batch.per_game_s == pytest.approx(0.01)  # not 10 ms shared by the games handed back


def test_a_task_tells_the_coordinator_the_time_its_games_took(zoo_c, tmp_path):
    with (
        threads_cluster(1) as local,
        opened(ClusterSpec(local.scheduler_address), zoo_config(zoo_c, tmp_path / "p")) as c,
    ):
        assert played(c.imap_batches(hex3_games(2))) == expected_games(hex3_games(2))
        assert c.batch.per_game_s is not None and c.batch.per_game_s > 0


def test_dask_s_own_log_lines_go_to_the_run_log_and_never_the_terminal(zoo_c, tmp_path, capfd, monkeypatch):
    """Dask logs its shutdown races at CRITICAL with a traceback (a closed comm while a
    worker's last log line is forwarded): while arena uses a cluster they reach arena.log,
    not stderr, and Dask's own handler is given back its level afterwards."""
    handler = attach_run_log(tmp_path / "out")
    # Dask's handler on the terminal, as Dask sets it up in a process whose root logger has
    # none (arena's; under pytest the root logger has pytest's, and Dask adds none)
    dask_stream = logging.StreamHandler(sys.stderr)
    monkeypatch.setattr(logging.getLogger("distributed"), "handlers", [dask_stream])
    monkeypatch.setattr(logging.getLogger("distributed"), "propagate", False)
    try:
        with threads_cluster(1) as local:
            level = dask_stream.level
            with opened(ClusterSpec(local.scheduler_address), zoo_config(zoo_c, tmp_path / "pids")):
                try:
                    raise ConnectionError("Comm already closed")
                except ConnectionError:
                    logging.getLogger("distributed.scheduler").critical(
                        "Closed comm while trying to write", exc_info=True
                    )
                logging.getLogger("distributed.worker").info("an info line stays out of arena.log")
            assert dask_stream.level == level
    finally:
        logging.getLogger("arena").removeHandler(handler)
        handler.close()
    assert "Traceback" not in capfd.readouterr().err
    written = (tmp_path / "out" / "arena.log").read_text()
    assert "distributed.scheduler CRITICAL Closed comm while trying to write" in written
    assert "ConnectionError: Comm already closed" in written and "an info line" not in written
