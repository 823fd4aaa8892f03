"""Time losses under load: said once (stderr and arena.log) with the numbers, counted apart in
the run's summary, the loss standing.  The load is simulated (an injected source, or
os.getloadavg replaced in the real command's process), never the machine's own."""

from __future__ import annotations

import json
import logging
import os
import sys

import pytest
from helpers import ROOT, ZOO, engine_toml, write_tournament

from arena.results.logfile import attach_run_log
from arena.tournament.config import load_tournament
from arena.tournament.load import LoadWatch
from arena.tournament.runner import run_tournament

# 'late' answers 0.4 s past its 100 ms move time: every game it plays is lost on time
ENGINES = engine_toml("good", "{python}", ZOO, "good") + engine_toml("late", "{python}", ZOO, "late")


def late_tournament(tmp_path, rounds: int = 2):
    options = "size = 5\nswap = false"
    return write_tournament(tmp_path, ENGINES, rounds=rounds, options=options, time_control="movetime_ms = 100")


def records_of(out):
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_time_losses_under_load_are_said_once_and_counted_apart(tmp_path):
    said: list[str] = []
    watch = LoadWatch(warn=said.append, source=lambda: 4.5, cores=2)
    out = tmp_path / "out"
    handler = attach_run_log(out)
    try:
        summary = run_tournament(load_tournament(late_tournament(tmp_path)), out, load=watch)
    finally:
        logging.getLogger("arena").removeHandler(handler)
        handler.close()
    records = records_of(out)
    assert [r["termination"] for r in records] == ["timeout"] * 4  # the losses stand
    assert all(r["players"][r["places"].index(1)] == "late" for r in records)
    assert len(said) == 1 and "load average 4.5 on 2 cores" in said[0] and "The loss stands" in said[0], said
    log = (out / "arena.log").read_text()
    assert log.count("was lost on time while the machine was loaded (load average 4.5 on 2 cores)") == 1
    assert "timeouts 4 in this run (4 under load 4.5 on 2 cores); the losses stand" in summary.table


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_time_losses_without_load_say_nothing_and_are_counted(tmp_path):
    loads = iter([0.5, 1.9, 2.0, 1.0])  # never above the 2 cores
    said: list[str] = []
    watch = LoadWatch(warn=said.append, source=lambda: next(loads), cores=2)
    summary = run_tournament(load_tournament(late_tournament(tmp_path)), tmp_path / "out", load=watch)
    assert said == [] and watch.loaded == {}
    assert "timeouts 4 in this run (none under load: load average at most 2.0 on 2 cores)" in summary.table


def test_only_time_losses_are_sampled_and_the_warning_comes_once():
    from arena.record import Termination

    class Game:
        def __init__(self, k: int, termination: Termination) -> None:
            self.id, self.termination = k, termination

    samples = iter([3.0, 9.0, 1.0])
    said: list[str] = []
    watch = LoadWatch(warn=said.append, source=lambda: next(samples), cores=2)
    for k, how in enumerate([Termination.NORMAL, Termination.TIMEOUT, Termination.CRASH, Termination.TIMEOUT]):
        watch.note(Game(k, how))  # type: ignore[arg-type]
    watch.note(Game(9, Termination.TIMEOUT))  # type: ignore[arg-type]
    assert watch.timeouts == 3 and watch.loaded == {1: 3.0, 3: 9.0} and len(said) == 1 and "game 1" in said[0]
    assert watch.summary_text() == "timeouts 3 in this run (2 under load 9.0 on 2 cores); the losses stand"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_real_command_says_it_on_stderr_and_in_its_summary(tmp_path):
    """`arena run` as a process, its os.getloadavg replaced by a load of four times the cores."""
    import subprocess

    cores = os.cpu_count() or 1
    load = 4 * cores + 0.5
    start = f"import os; os.getloadavg = lambda: ({load}, {load}, {load}); from arena.cli import main; main()"
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-c", start, "run", late_tournament(tmp_path), "--out", out, "-q"],
        capture_output=True, text=True, cwd=ROOT, timeout=100, env={**os.environ, "COLUMNS": "100"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if "lost on time while the machine was loaded" in line]
    assert len(said) == 1 and f"(load average {load:.1f} on {cores} core" in said[0], proc.stderr
    assert f"timeouts 4 in this run (4 under load {load:.1f} on {cores} core" in proc.stdout
    assert "lost on time while the machine was loaded" in (out / "arena.log").read_text()
    assert [r["termination"] for r in records_of(out)] == ["timeout"] * 4


def test_a_load_of_exactly_the_cores_is_no_load_and_the_words_name_the_cores(caplog):
    from arena.record import Termination

    class Game:
        def __init__(self, k: int) -> None:
            self.id, self.termination = k, Termination.TIMEOUT

    said: list[str] = []
    watch = LoadWatch(warn=said.append, source=lambda: 1.0, cores=1)
    watch.note(Game(4))  # type: ignore[arg-type]
    assert said == [] and watch.loaded == {}  # every core busy, none shared: not loaded
    assert watch.summary_text() == "timeouts 1 in this run (none under load: load average at most 1.0 on 1 core)"
    watch.source = lambda: 1.5
    with caplog.at_level(logging.WARNING, logger="arena.load"):
        watch.note(Game(5))  # type: ignore[arg-type]
    assert said == [
        "arena: game 5 was lost on time while the machine was loaded (load average 1.5 on 1 core): engines get "
        "less CPU than their clocks assume. The loss stands; fewer --workers or a quieter machine avoid it"
    ]
    assert [(r.name, r.getMessage()) for r in caplog.records] == [("arena.load", said[0].removeprefix("arena: "))]
    assert watch.summary_text() == "timeouts 2 in this run (1 under load 1.5 on 1 core); the losses stand"


def test_the_load_is_the_one_minute_average_and_the_cores_at_least_one(monkeypatch):
    from arena.tournament import load

    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 2.5, 3.5))
    assert load.load_average() == 1.5
    monkeypatch.setattr(os, "cpu_count", lambda: None)  # Python could not tell
    assert load.machine_cores() == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert load.machine_cores() == 8
