"""The runner under stress: a tournament full of broken engines, Ctrl-C, kill -9,
a killed worker, two runners on one folder, and the pieces that make these safe."""

import json
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import ROOT, ZOO, arena_cmd, engine_toml, run_arena, write_tournament

from arena.engine import proctree
from arena.match import TimeControl
from arena.record import GameRecord
from arena.results.store import GameStore
from arena.tournament.config import load_tournament
from arena.tournament.droprule import FailureTracker
from arena.tournament.pool import Lost, WorkerPool
from arena.tournament.runner import run_tournament
from arena.tournament.schedule import ScheduledGame
from arena.tournament.worker import Worker, WorkerConfig, WorkerError


def engine_block(name: str, fault: str = "good", at: int = 1, extra: str = "") -> str:
    return engine_toml(name, "{python}", ZOO, fault, str(at), extra=extra)


FORFEITS = "forfeit_failed_engines = true"  # an engine that fails its start-up check: play on


def tournament(tmp_path: Path, engines: str, rounds: int = 1, workers: int = 2, extra: str = "") -> Path:
    return write_tournament(
        tmp_path,
        engines,
        name="zoo",
        options="size = 5\nswap = false",
        rounds=rounds,
        seed=3,
        workers=workers,
        time_control="movetime_ms = 200\nmargin_ms = 100",
        extra=extra,
    )


@pytest.fixture
def env(tmp_path):
    """The environment for arena: every process it starts inherits ZOO_PIDS=<marker>."""
    marker = tmp_path / "pids"
    return dict(os.environ, ZOO_PIDS=str(marker), PYTHONPATH=str(ROOT)), marker


def survivors(marker: Path) -> list[int]:
    return proctree.tagged_pids(str(marker), key="ZOO_PIDS")


def wait_until(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def run(path: Path, out: Path, env, *extra: str) -> subprocess.CompletedProcess:
    return run_arena("run", path, "--out", out, *extra, env=env[0], timeout=120)


def quick(env):
    """The same environment with the slow engines at full speed: a resuming run only has to
    finish the games the stopped one left, not outlast anything."""
    return {**env[0], "ZOO_SLOW_S": "0"}, env[1]


def start(path: Path, out: Path, env) -> subprocess.Popen:
    """A run in its own process group, like a job started from a terminal."""
    return subprocess.Popen(
        arena_cmd("run", path, "--out", out, "-q"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env[0],
        cwd=ROOT,
        start_new_session=True,
    )


def resumed_and_played(stdout: str) -> bool:
    """The second run found games of the first and played the rest."""
    found = re.search(r"(\d+) games played, (\d+) resumed", stdout)
    return bool(found) and int(found[1]) > 0 and int(found[2]) > 0


def stored(out: Path) -> list[dict]:
    db = sqlite3.connect(out / "arena.db")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return [json.loads(r[0]) for r in db.execute("SELECT record FROM games ORDER BY id")]
    finally:
        db.close()


def jsonl_ids(out: Path) -> list[int]:
    return sorted(json.loads(line)["id"] for line in (out / "games.jsonl").read_text().splitlines())


BROKEN = {  # engine name -> (zoo fault, its N, extra TOML, the termination it causes)
    "crasher": ("crash", 2, "max_failures = 0", "crash"),  # 0: never dropped
    "hanger": ("hang", 1, "", "timeout"),  # time losses never drop an engine
    "babbler": ("garbage", 1, "max_failures = 0", "protocol"),
    "hog": ("memory", 1, "memory_mb = 64\nmax_failures = 0", "crash"),
    "never_starts": ("crash_start", 1, "max_failures = 2", "crash"),
}


@pytest.mark.slow
def test_a_tournament_of_broken_engines_finishes_with_every_game_intact(tmp_path, env):
    engines = engine_block("good") + engine_block("detached", "fork_setsid")
    engines += "".join(engine_block(name, fault, at, extra) for name, (fault, at, extra, _) in BROKEN.items())
    out = tmp_path / "out"
    proc = run(tournament(tmp_path, engines, extra=FORFEITS), out, env)
    assert proc.returncode == 1, proc.stderr  # finished with never_starts dropped
    records = stored(out)
    assert [r["id"] for r in records] == list(range(7 * 6)) == jsonl_ids(out)
    for r in records:
        broken = [seat for seat, name in enumerate(r["players"]) if name in BROKEN]
        if not broken:
            assert r["termination"] == "normal", r["reason"]
            continue
        loser = r["players"][r["forfeit_seat"]]
        assert r["forfeit_seat"] in broken and r["places"][r["forfeit_seat"]] == 1
        assert r["termination"] in (BROKEN[loser][3], "dropped"), r["reason"]
    # the engine that never starts: two failures in a row, then dropped without being started
    theirs = [r["termination"] for r in records if "never_starts" in r["players"]]
    assert 2 <= theirs.count("crash") <= 2 + 2 and theirs.count("dropped") == 12 - theirs.count("crash")
    results = json.loads((out / "results.json").read_text())
    assert list(results["dropped"]) == ["never_starts"]
    assert "dropped: never_starts: 2 consecutive failures" in proc.stdout
    assert "cannot load my weights" in proc.stdout
    assert (
        subprocess.run(
            [sys.executable, "-m", "arena", "verify", str(out / "games.jsonl")], capture_output=True, cwd=ROOT
        ).returncode
        == 0
    )
    assert survivors(env[1]) == []


SLOW = engine_block("slow1", "slow") + engine_block("slow2", "fork+slow")
# Two or three whole runs each, stopped and resumed: more than the suite's per-test timeout
# allows on a busy machine (each run has its own 120 s limit).
RUNS = pytest.mark.timeout(120)


@pytest.mark.slow
@RUNS
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_ctrl_c_keeps_finished_games_kills_engines_and_resumes(tmp_path, env, how):
    # Slower moves than the other kill tests (a second or two a game, within the 200 ms a move):
    # the games left after the first two must outlast a second runner's start and refusal, even
    # on a slow machine.
    env = ({**env[0], "ZOO_SLOW_S": "0.1"}, env[1])
    path, out = tournament(tmp_path, SLOW, rounds=6), tmp_path / "out"
    first = start(path, out, env)
    wait_until(lambda: (out / "games.jsonl").exists() and len(jsonl_ids(out)) >= 2)
    second = run(path, out, env)  # a second runner on the same folder is refused
    assert second.returncode == 2 and "another arena run is using" in second.stderr
    assert "Traceback" not in second.stderr
    if how == "ctrl-c":
        os.killpg(first.pid, signal.SIGINT)  # what the terminal sends to the whole job
    else:
        os.kill(first.pid, signal.SIGTERM)  # what kill and service managers send to the runner
    _, err = first.communicate(timeout=30)
    assert first.returncode == (130 if how == "ctrl-c" else 143) and "interrupted; finished games are kept" in err, err
    kept = [r["id"] for r in stored(out)]
    assert kept and len(kept) < 12 and jsonl_ids(out) == kept
    assert survivors(env[1]) == []
    partial = json.loads((out / "results.json").read_text())  # the tables of what was stored
    assert (partial["games"], partial["scheduled_games"], partial["finished"]) == (len(kept), 12, False)
    assert "not finished" in (out / "standings.md").read_text()
    again = run(path, out, quick(env))
    assert again.returncode == 0 and f"{len(kept)} resumed" in again.stdout
    assert [r["id"] for r in stored(out)] == list(range(12)) == jsonl_ids(out)
    assert json.loads((out / "results.json").read_text())["finished"] is True


@pytest.mark.slow
@RUNS
def test_kill_9_of_the_runner_loses_nothing_and_resumes_at_once(tmp_path, env):
    path, out = tournament(tmp_path, SLOW, rounds=6), tmp_path / "out"
    first = start(path, out, env)
    wait_until(lambda: (out / "games.jsonl").exists() and len(jsonl_ids(out)) >= 2)
    os.kill(first.pid, signal.SIGKILL)
    first.communicate()
    wait_until(lambda: survivors(env[1]) == [], timeout=5)  # workers and engines die with it
    again = run(path, out, quick(env))  # the lock died with the runner: no refusal
    assert again.returncode == 0, again.stderr
    assert resumed_and_played(again.stdout)
    assert [r["id"] for r in stored(out)] == list(range(12)) == jsonl_ids(out)


@pytest.mark.slow
@RUNS
def test_kill_9_of_the_whole_job_is_swept_up_by_the_next_run(tmp_path, env):
    """Runner and workers killed at once: the engines die with their workers, but an
    engine's child has nobody left to kill it, until the next run on the folder."""
    path, out = tournament(tmp_path, SLOW, rounds=6), tmp_path / "out"
    first = start(path, out, env)
    wait_until(lambda: (out / "games.jsonl").exists() and len(jsonl_ids(out)) >= 2)
    os.killpg(first.pid, signal.SIGKILL)
    first.communicate()
    time.sleep(0.3)
    assert survivors(env[1])  # the forked children of the engines
    again = run(path, out, quick(env))
    assert again.returncode == 0, again.stderr
    assert resumed_and_played(again.stdout)
    assert "left behind by an earlier run" in (out / "arena.log").read_text()
    assert [r["id"] for r in stored(out)] == list(range(12)) == jsonl_ids(out)
    assert survivors(env[1]) == []


@pytest.mark.slow
@RUNS
def test_a_worker_killed_mid_game_is_replaced_and_its_game_replayed(tmp_path, env):
    path, out = tournament(tmp_path, SLOW, rounds=6), tmp_path / "out"
    first = start(path, out, env)
    wait_until(lambda: (out / "games.jsonl").exists() and len(jsonl_ids(out)) >= 1)
    children = Path(f"/proc/{first.pid}/task/{first.pid}/children").read_text().split()
    os.kill(int(children[0]), signal.SIGKILL)
    _, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    assert [r["id"] for r in stored(out)] == list(range(12)) == jsonl_ids(out)
    assert "died (exit code -9) in the middle of" in (out / "arena.log").read_text()
    assert survivors(env[1]) == []


# -- the pieces ---------------------------------------------------------------


def _die_on_two(task: int) -> int:
    if task == 2:
        os._exit(9)
    return task * 10


def test_pool_replaces_dead_workers_retries_once_then_gives_up():
    pool = WorkerPool(2, _die_on_two, lambda: None, retries=1)
    results = list(pool.imap_unordered([1, 2, 3, 4]))
    pool.close()
    assert sorted(r for r in results if not isinstance(r, Lost)) == [10, 30, 40]
    [lost] = [r for r in results if isinstance(r, Lost)]
    assert lost.task == 2 and "died 2 times" in lost.reason and "exit code 9" in lost.reason


def test_a_worker_dying_in_the_middle_of_a_task_is_logged_with_its_name_exit_code_and_task(caplog):
    pool = WorkerPool(1, _die_on_two, lambda: None, retries=1)
    with caplog.at_level(logging.ERROR, logger="arena.runner"):
        results = list(pool.imap_unordered([2]))
    pool.close()
    assert [r.getMessage() for r in caplog.records if r.name == "arena.runner"] == [
        "worker-1 died (exit code 9) in the middle of 2",
        "worker-2 died (exit code 9) in the middle of 2",
    ]
    assert results == [Lost(2, "its worker process died 2 times (last exit code 9)")]


def _exit_soon_after_one(task: int) -> int:
    if task == 1:  # answers, then its process dies while it waits for the next task
        threading.Timer(0.05, os._exit, (3,)).start()
    else:
        time.sleep(0.4)
    return task


def test_a_worker_dying_while_idle_is_logged_and_the_others_results_still_come(caplog):
    pool = WorkerPool(2, _exit_soon_after_one, lambda: None)
    with caplog.at_level(logging.ERROR, logger="arena.runner"):
        results = list(pool.imap_unordered([1, 2]))
    pool.close()
    assert sorted(results) == [1, 2]
    assert [r.getMessage() for r in caplog.records if r.name == "arena.runner"] == [
        "worker-2 died while idle (exit code 3); starting another"
    ]


def _hang_on_two(task: int) -> int:
    if task == 2:
        time.sleep(30)
    return task


def test_a_hung_worker_killed_by_the_watchdog_is_logged_as_hung_with_how_long_it_ran(caplog):
    pool = WorkerPool(1, _hang_on_two, lambda: None, retries=0, time_limit=lambda task: 0.2)
    with caplog.at_level(logging.ERROR, logger="arena.runner"):
        results = list(pool.imap_unordered([2]))
    pool.close()
    said = [r.getMessage() for r in caplog.records if r.name == "arena.runner"]
    assert said[0] == "worker-1 has not finished 2 within 0.2 s, the longest it can take: killing it and its engines"
    assert len(said) == 2 and re.fullmatch(r"worker-1 hung \(killed after 0\.[2-4] s\) in the middle of 2", said[1])
    assert results == [Lost(2, "its worker process died 1 times (it last hung)")]


def record(players, termination="normal", forfeit=None, started=True, id=0):
    return GameRecord(
        game="hex",
        moves=[],
        id=id,
        players=players,
        termination=termination,
        forfeit_seat=forfeit,
        engine_seeds=[1, 2] if started else [],
        reason="r",
    )


@pytest.mark.slow
def test_a_game_every_seat_forfeited_is_no_result(tmp_path, env):
    # Two engines that never start, dropped after one failure each, go on meeting each other:
    # those games are stored but are no result, not draws, in standings and head to head.
    engines = (
        engine_block("healthy")
        + engine_block("dud1", "crash_start", extra="max_failures = 1")
        + engine_block("dud2", "crash_start", extra="max_failures = 1")
    )
    path, out = tournament(tmp_path, engines, rounds=3, workers=1, extra=FORFEITS), tmp_path / "out"
    proc = run(path, out, env)
    assert proc.returncode == 1, proc.stderr  # finished with the duds dropped
    records = stored(out)
    duds = [r for r in records if set(r["players"]) == {"dud1", "dud2"}]
    assert len(duds) == 6 and all(r["places"] == [0, 0] for r in duds)
    both_dropped = [
        r for r in duds if r["termination"] == "dropped" and "dud1" in r["reason"] and "dud2" in r["reason"]
    ]
    assert both_dropped, [r["reason"] for r in duds]
    results = json.loads((out / "results.json").read_text())
    rows = {row["engine"]: row for row in results["standings"]}
    assert rows["healthy"]["games"] == rows["healthy"]["wins"] == 12
    for dud in ("dud1", "dud2"):
        # 6 games against healthy, and of the 6 against the other dud only the ones a live
        # engine lost by its own fault (before both were dropped) count
        assert rows[dud]["games"] == 6 + len(duds) - len(both_dropped)
        assert rows[dud]["draws"] == 0
    pair = [p for p in results["head_to_head"] if {p["engine"], p["opponent"]} == {"dud1", "dud2"}]
    # neither dud played any of those games (each was lost before its first move): head to
    # head, like every rating, counts only games played, so the pair has no result at all
    assert pair == []


def test_drop_rule_counts_consecutive_failures_only():
    tracker = FailureTracker({"a": 3, "b": 0, "c": 3})
    assert tracker.update(record(["a", "c"], "crash", 0, started=False)) == []
    assert tracker.update(record(["c", "a"], "handshake", 1)) == []
    assert tracker.update(record(["a", "c"])) == []  # a played a clean game: streak reset
    for _i in range(2):
        assert tracker.update(record(["a", "b"], "protocol", 0)) == []
    assert tracker.update(record(["b", "a"], "timeout", 1)) == []  # a time loss is a result
    assert tracker.update(record(["a", "b"], "crash", 0, id=7)) == ["a"]
    assert tracker.dropped["a"].startswith("3 consecutive failures, the last in game 7: crash")
    for _i in range(5):
        assert tracker.update(record(["b", "c"], "crash", 0)) == []  # max_failures = 0: never


def test_a_bug_in_a_game_is_reported_not_fatal(monkeypatch):
    spec_cmd = (sys.executable, ZOO, "good")
    from arena.engine.player import EngineSpec

    config = WorkerConfig(
        "t",
        "hex",
        {"size": 5, "swap": False},
        {"a": EngineSpec("a", spec_cmd), "b": EngineSpec("b", spec_cmd)},
        TimeControl(movetime_ms=300),
    )
    worker = Worker(config)
    monkeypatch.setattr(worker.game, "initial_state", lambda seed: 1 / 0)
    result = worker.play(ScheduledGame(5, 0, ("a", "b"), 1))
    assert result == WorkerError(5, "ZeroDivisionError: division by zero")
    assert worker.engines == {}


@pytest.mark.slow
def test_a_bug_in_a_worker_process_costs_its_game_not_the_run(tmp_path, monkeypatch):
    """The internal error travels from a forked worker process to the runner as a typed
    outcome: the game is named among those not recorded, the others are stored."""

    def broken_for_game_1(self, scheduled):
        return 1 / 0 if scheduled.index == 1 else None

    monkeypatch.setattr(Worker, "_transcript", broken_for_game_1)  # the workers are forked: they inherit it
    path = tournament(tmp_path, engine_block("a") + engine_block("b"), workers=1)
    out = tmp_path / "out"
    summary = run_tournament(load_tournament(path), out)
    assert summary.errors == ["game 1 not recorded: internal error ZeroDivisionError: division by zero (see arena.log)"]
    assert [json.loads(line)["id"] for line in (out / "games.jsonl").read_text().splitlines()] == [0]


def test_each_game_is_one_transaction(tmp_path):
    with GameStore(tmp_path) as store:
        store.open({"game": "hex", "seed": 0})
        game = GameRecord(game="hex", moves=[], id=0, round=0, players=["a", "b"], termination="normal", winner=0)
        store.add(game)
        with pytest.raises(sqlite3.IntegrityError):
            store.add(game)
        with pytest.raises(KeyError):
            store.add(GameRecord(game="hex", moves=[], id=1, round=0))
        assert store.done_ids() == {0}
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 1


def test_a_dropped_engines_games_still_in_play_neither_count_nor_drop_it_again():
    # up to workers - 1 games may have started the engine before its drop: as they finish,
    # the engine is dropped once, with the reason of the failure that reached the limit
    tracker = FailureTracker({"a": 1, "b": 0, "c": 2})
    assert tracker.update(record(["a", "c"], "crash", 0, id=1)) == ["a"]
    assert tracker.update(record(["c", "a"], "crash", 1, id=2)) == []
    assert tracker.dropped == {"a": "1 consecutive failures, the last in game 1: crash: r"}
    # the seat after a dropped engine's is still counted: c's second failure in a row drops it
    assert tracker.update(record(["c", "b"], "crash", 0, id=3)) == []
    assert tracker.update(record(["a", "c"], "handshake", 1, id=4)) == ["c"]


def test_a_resumed_tracker_keeps_an_engine_its_stored_forfeits_show_dropped_with_their_reason():
    # with two workers, a's failures in games 0 and 2 came in a row and dropped it before game 1
    # (which a played through) finished: in game order they are not consecutive, but the
    # dropped forfeit of game 3 says a was dropped, and a resume starts it no more
    stored = [
        record(["a", "c"], "crash", 0, id=0),
        record(["a", "c"], id=1),
        record(["c", "a"], "crash", 1, id=2),
        GameRecord(
            game="hex", moves=[], id=3, players=["a", "c"], termination="dropped", forfeit_seat=0, places=[1, 0]
        ),
    ]
    tracker = FailureTracker.resumed({"a": 2, "c": 0}, stored)
    assert tracker.dropped == {"a": "dropped (max_failures); first forfeit in game 3"}
    assert not tracker.may_start("a") and tracker.may_start("c")
