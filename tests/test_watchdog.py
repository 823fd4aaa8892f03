"""The watchdog times each move, not the whole game: workers report every move to the
coordinator as it is played, and a worker that stops reporting (SIGSTOP, a stuck call)
is killed a grace after the step it reported should have ended; its game is played again
by another worker.  The whole-game bound stays as the backstop (test_reliability.py)."""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import signal
import time

import pytest

from arena.tournament import pool as pool_module
from arena.tournament.pool import Lost, WorkerPool, report_progress
from tests.helpers import ROOT, engine_toml, run_arena, write_tournament

ZOO = str(ROOT / "tests" / "engines" / "zoo_engine.py")


def _report_and_stop(task: int) -> int:
    """Report a 0.2 s step; task 2 then stops its worker, the others finish the step."""
    report_progress(0.2)
    if task == 2:
        os.kill(os.getpid(), signal.SIGSTOP)
    time.sleep(0.1)
    return task


def _long_but_reporting(task: int) -> int:
    """1.6 s of 0.1 s steps, each reported: longer than any one report's bound (the step,
    the report's slack and the grace)."""
    for _ in range(16):
        report_progress(0.1)
        time.sleep(0.1)
    return task


def _report_read_late_and_stop(task: int) -> int:
    """A report of a 0.2 s step that the coordinator reads 100 s after it was sent (as when it
    is busy storing results), then nothing more: the worker stops."""
    from arena.tournament import pool

    assert pool._coordinator is not None
    pool._coordinator.send(pool._Progress(time.monotonic() - 100, 0.2))
    os.kill(os.getpid(), signal.SIGSTOP)
    return task


def test_quick_steps_send_a_report_now_and_then_not_one_each(monkeypatch):
    """Whatever the step's limit: a report per step would wake the coordinator every move."""
    from arena.tournament import pool

    ours, theirs = multiprocessing.Pipe()
    monkeypatch.setattr(pool, "_coordinator", theirs)
    monkeypatch.setattr(pool, "_covered_until", 0.0)

    def sent() -> list[float]:
        reports = []
        while ours.poll():
            reports.append(ours.recv().seconds)
        return reports

    for limit in (10.0, 0.5, 30.0):
        for _ in range(1000):  # a thousand moves of no time at all
            report_progress(limit)
        assert sent() == [limit + pool.REPORT_SLACK], limit  # the first reports, the others are covered
    report_progress(0.5)  # a move after a long start-up: the loose report is tightened
    assert sent() == [0.5 + pool.REPORT_SLACK]


@pytest.mark.timeout(30)
def test_a_worker_that_stops_reporting_is_killed_within_its_steps_bound():
    # No whole-task bound at all: only the step watchdog can find the stopped worker.
    pool = WorkerPool(1, _report_and_stop, lambda: None, retries=1, step_grace=0.5)
    t0 = time.monotonic()
    results = list(pool.imap_unordered([1, 2, 3]))
    pool.close()
    assert sorted(r for r in results if not isinstance(r, Lost)) == [1, 3]
    [lost] = [r for r in results if isinstance(r, Lost)]
    assert lost.task == 2 and "died 2 times (it last hung)" in lost.reason
    # Two stops, each found about the step, the report's slack and the grace after its report.
    assert time.monotonic() - t0 < 10


@pytest.mark.timeout(30)
def test_a_reports_bound_runs_from_when_it_was_sent_not_when_it_was_read(caplog):
    """The step a report covers ended 99.3 s before the coordinator read it: the worker,
    silent since, is overdue at once, by the whole time since it was sent (a bound counted
    from the reading would give it the step and the grace again, and say 0.5 s)."""
    pool = WorkerPool(1, _report_read_late_and_stop, lambda: None, retries=0, step_grace=0.5)
    with caplog.at_level(logging.ERROR, logger="arena.runner"):
        [lost] = list(pool.imap_unordered([4]))
    pool.close()
    assert isinstance(lost, Lost) and "it last hung" in lost.reason
    [line] = [r.getMessage() for r in caplog.records if "has not reported on 4" in r.getMessage()]
    past = float(line.split(" for ")[1].split(" s past")[0])
    assert past >= 99.0, line  # 100 s ago, less the 0.2 s step; the 0.5 s grace is shown in it


@pytest.mark.timeout(30)
def test_a_worker_that_reports_its_steps_may_take_longer_than_any_one_step():
    pool = WorkerPool(1, _long_but_reporting, lambda: None, step_grace=0.2)
    assert list(pool.imap_unordered([7])) == [7]
    pool.close()


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_worker_stopped_in_the_middle_of_a_game_is_replaced_within_seconds(tmp_path):
    """Hex 7x7 at 400 ms a move: an engine stops its worker with SIGSTOP at its fourth move.
    The game is played again elsewhere a few seconds later, where the whole-game bound
    alone took the game's longest possible duration plus 30 s (118 s here)."""
    once, newgames = tmp_path / "stopped-once", tmp_path / "newgames"
    engines = engine_toml("good", "{python}", ZOO, "good") + engine_toml("stopper", "{python}", ZOO, "stop_worker", "4")
    path = write_tournament(
        tmp_path, engines, options="size = 7\nswap = false", rounds=1, workers=1, time_control="movetime_ms = 400"
    )
    env = {**os.environ, "ZOO_ONCE": str(once), "ZOO_NEWGAMES": str(newgames)}
    out = tmp_path / "out"
    result = run_arena("run", path, "--out", out, "-q", env=env, timeout=150)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert sorted(r["termination"] for r in records) == ["normal", "normal"]
    stopped = float(once.read_text())  # written just before the SIGSTOP
    starts = [line.split() for line in newgames.read_text().splitlines()]
    stopped_worker = next(ppid for t, _, ppid in starts if float(t) < stopped)
    after = [(float(t), ppid) for t, _, ppid in starts if float(t) > stopped]
    replayed, worker = after[0]
    assert worker != stopped_worker  # played again by another worker process
    found = replayed - stopped
    print(f"\nworker stopped mid-game; the game began again elsewhere {found:.2f} s later")
    assert found < 15, found  # the move's 0.5 s, the report's slack and the 3 s grace, on a loaded machine
    log = (out / "arena.log").read_text()
    assert "has not reported on" in log and "hung (killed after" in log


class _FakeConn:
    """A worker's end of the pipe as the coordinator sees it: whether it has said
    something not read yet, and what was sent to it."""

    def __init__(self, unread: bool = False) -> None:
        self.unread = unread
        self.sent: list[object] = []

    def poll(self) -> bool:
        return self.unread

    def send(self, message: object) -> None:
        self.sent.append(message)


class _FakeProc:
    def __init__(self, name: str, pid: int) -> None:
        self.name = name
        self.pid = pid


def _watched_pool(monkeypatch, now: float, limits: dict[str, float], step_grace: float | None, busy):
    """A pool whose workers are fakes, its clock at ``now``; ``busy``: (name, task, started,
    step_until or None) of each worker, in the order they were handed their tasks.  Returns
    the pool, the workers' connections by name, and the pids the watchdog kills."""
    killed: list[int] = []
    monkeypatch.setattr(pool_module.proctree, "kill_tree", killed.append)
    monkeypatch.setattr(pool_module.time, "monotonic", lambda: now)
    pool = WorkerPool(len(busy), abs, lambda: None, time_limit=limits.get, step_grace=step_grace)
    conns = {}
    for number, (name, task, started, step_until) in enumerate(busy, start=1):
        conn = conns[name] = _FakeConn()
        pool.workers[conn] = _FakeProc(name, 1000 + number)
        pool.busy[conn] = (task, 0)
        pool.started[conn] = started
        if step_until is not None:
            pool.step_until[conn] = step_until
    return pool, conns, killed


def test_a_task_is_overdue_at_exactly_its_time_limit_and_not_a_moment_before(monkeypatch, caplog):
    busy = [("w-early", "short", 100.0, None), ("w-due", "long", 95.0, None)]
    pool, _, killed = _watched_pool(monkeypatch, 105.0, {"short": 5.5, "long": 10.0}, None, busy)
    assert pool._until_overdue() == 0.0
    with caplog.at_level(logging.ERROR, logger="arena.runner"):
        pool._kill_overdue()
    assert killed == [1002]
    assert [r.getMessage() for r in caplog.records] == [
        "w-due has not finished 'long' within 10 s, the longest it can take: killing it and its engines"
    ]
    pool, _, killed = _watched_pool(monkeypatch, 104.0, {"short": 5.5, "long": 10.0}, None, busy)
    assert pool._until_overdue() == 1.0  # the time limit of each worker's own task
    pool._kill_overdue()
    assert killed == []


def test_a_step_overdue_by_its_grace_is_told_apart_from_a_task_over_its_time_limit(monkeypatch, caplog):
    """The step ran out first (3 s into a 10 s task): the message says how long past the
    step's own limit, the grace included."""
    busy = [("w-step", "game", 100.0, 103.0)]
    pool, _, killed = _watched_pool(monkeypatch, 103.5, {"game": 10.0}, 0.5, busy)
    with caplog.at_level(logging.ERROR, logger="arena.runner"):
        pool._kill_overdue()
    assert killed == [1001]
    assert [r.getMessage() for r in caplog.records] == [
        "w-step has not reported on 'game' for 1.0 s past its step's limit "
        "(the step's own limit and a 0.5 s grace): killing it and its engines"
    ]
    assert pool.hung == {next(iter(pool.busy)): 3.5}


def test_with_no_step_grace_the_time_past_a_step_is_counted_from_the_steps_own_end(monkeypatch, caplog):
    busy = [("w-step", "game", 100.0, 103.0)]
    pool, _, killed = _watched_pool(monkeypatch, 103.5, {"game": 10.0}, 0.0, busy)
    with caplog.at_level(logging.ERROR, logger="arena.runner"):
        pool._kill_overdue()
    assert killed == [1001]
    assert [r.getMessage() for r in caplog.records] == [
        "w-step has not reported on 'game' for 0.5 s past its step's limit "
        "(the step's own limit and a 0 s grace): killing it and its engines"
    ]


def test_a_worker_past_its_step_and_its_time_limit_together_is_told_it_ran_out_of_time(monkeypatch, caplog):
    busy = [("w-both", "game", 100.0, 104.0)]
    pool, _, killed = _watched_pool(monkeypatch, 105.0, {"game": 5.0}, 0.5, busy)
    with caplog.at_level(logging.ERROR, logger="arena.runner"):
        pool._kill_overdue()
    assert killed == [1001]
    assert [r.getMessage() for r in caplog.records] == [
        "w-both has not finished 'game' within 5 s, the longest it can take: killing it and its engines"
    ]


def test_the_watchdog_passes_over_a_worker_killed_already_or_waiting_or_with_news_and_kills_the_next(
    monkeypatch,
):
    busy = [
        ("w-hung", "game", 90.0, None),
        ("w-waiting", "game", 90.0, None),
        ("w-news", "game", 90.0, None),
        ("w-within", "other", 90.0, None),
        ("w-overdue", "game", 90.0, None),
    ]
    pool, conns, killed = _watched_pool(monkeypatch, 105.0, {"game": 10.0, "other": 20.0}, None, busy)
    pool.hung[conns["w-hung"]] = 10.0
    pool.waiting[conns["w-waiting"]] = (pool_module._Question("which?"), 99.0)
    conns["w-news"].unread = True
    pool._kill_overdue()
    assert killed == [1005]
    assert pool.hung == {conns["w-hung"]: 10.0, conns["w-overdue"]: 15.0}


def test_waiting_for_an_answer_stops_the_watchdogs_clock_and_the_step_grace_runs_from_the_answer(monkeypatch):
    """A worker that asked at 104 and is answered at 107 waited 3 s: its task counts as
    started 3 s later; a step report that ends later than the answer's grace stands, one
    that ends sooner is moved to the grace after the answer, none yet is set to it."""
    pool, conns, _ = _watched_pool(
        monkeypatch,
        107.0,
        {"game": 10.0},
        0.5,
        [("w-reported", "game", 100.0, 109.0), ("w-sooner", "game", 101.0, 104.5), ("w-none", "game", 102.0, None)],
    )
    pool.answer = lambda payload: f"answer to {payload}"
    for name in conns:
        pool.waiting[conns[name]] = (pool_module._Question(name), 104.0)
    pool._answer_waiting()
    assert pool.waiting == {}
    assert [conns[name].sent for name in conns] == [
        ["answer to w-reported"],
        ["answer to w-sooner"],
        ["answer to w-none"],
    ]
    assert [pool.started[conns[name]] for name in conns] == [103.0, 104.0, 105.0]
    assert [pool.step_until[conns[name]] for name in conns] == [109.0, 107.5, 107.5]


def test_on_a_clock_near_its_start_a_worker_not_reported_yet_gets_the_grace_from_now(monkeypatch):
    """Where no report came yet, the step bound is the grace from now, however early the
    clock (an answer, a task handed out)."""
    pool, conns, _ = _watched_pool(monkeypatch, 0.25, {"game": 10.0}, 0.5, [("w", "game", 0.0, None)])
    conn = conns["w"]
    pool.waiting[conn] = (pool_module._Question("which?"), 0.125)
    pool._answer_waiting()
    assert pool.step_until[conn] == 0.75
    del pool.busy[conn], pool.step_until[conn]
    pool.queue.append(("next", 0))
    pool._dispatch([conn])
    assert (pool.busy[conn], pool.step_until[conn], conn.sent[-1]) == (("next", 0), 0.75, "next")


def test_a_task_handed_out_keeps_a_step_report_that_reaches_further_than_the_grace(monkeypatch):
    pool, conns, _ = _watched_pool(monkeypatch, 50.0, {}, 0.5, [("w", "game", 40.0, 60.0)])
    conn = conns["w"]
    del pool.busy[conn]
    pool.queue.append(("next", 0))
    pool._dispatch([conn])
    assert (pool.started[conn], pool.step_until[conn]) == (50.0, 60.0)
