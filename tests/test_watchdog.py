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
