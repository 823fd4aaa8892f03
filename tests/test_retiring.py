"""Engines quit in the background (arena/engine/retiring.py): a stubborn one is killed after its
grace, a quitting one still counts in a worker's bound, and those the plan lets go leave at once."""

from __future__ import annotations

import sys
import threading
import time

import pytest
from zoo import ZOO, survivors

from arena.engine import open_engine
from arena.engine.player import EngineSpec
from arena.engine.retiring import Retiring
from arena.engine.transport import QUIT_GRACE
from arena.match import TimeControl
from arena.rules import make_game
from arena.tournament import pool
from arena.tournament.schedule import ScheduledGame
from arena.tournament.worker import Worker, WorkerConfig

STUBBORN = "ignore_signals"  # the zoo engine that plays well but ignores quit and SIGTERM


def _spec(name: str, fault: str) -> EngineSpec:
    return EngineSpec(name, (sys.executable, ZOO, fault))


def _config(names: list[str], fault: str, idle: int | None) -> WorkerConfig:
    engines = {n: _spec(n, fault) for n in names}
    return WorkerConfig(
        "t", "hex", {"size": 3, "swap": False}, engines, TimeControl(movetime_ms=2000), idle_engines=idle
    )


class _Peak:
    """The most zoo processes of this test alive at once, sampled in a thread."""

    def __init__(self, marker) -> None:
        self.marker, self.peak, self.samples = marker, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, len(survivors(self.marker)))
            self.samples += 1
            time.sleep(0.002)

    def __enter__(self) -> _Peak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@pytest.mark.timeout(60)
def test_an_engine_that_ignores_quit_is_killed_after_the_grace(marker):
    engine = open_engine(_spec("stubborn", STUBBORN), game="hex", board=make_game("hex", {"size": 3, "swap": False}))
    engine.start()
    retiring = Retiring()
    asked = time.monotonic()
    retiring.retire(engine)  # returns at once: the quit is not waited for here
    assert len(retiring) == 1 and len(survivors(marker)) == 1  # it ignores the quit
    retiring.wait_fewer(0)
    assert time.monotonic() - asked >= QUIT_GRACE * 0.99  # not killed before its grace
    assert survivors(marker) == [] and engine.proc is None  # killed and reaped
    assert len(retiring) == 0


@pytest.mark.timeout(60)
def test_a_well_behaved_engine_is_seen_off_as_it_exits(marker):
    engine = open_engine(_spec("good", "good"), game="hex", board=make_game("hex", {"size": 3, "swap": False}))
    engine.start()
    retiring = Retiring()
    retiring.retire(engine)
    retiring.wait_fewer(0)
    assert survivors(marker) == [] and engine.proc is None


@pytest.mark.timeout(90)
def test_engines_still_quitting_count_in_the_bound(marker):
    """No idle engine kept (idle_engines = 0), engines that ignore quit: before (c, d) the worker
    quits a and b, which stay alive for their grace; c and d start only as they go, so never
    more than 2 zoo processes run."""
    worker = Worker(_config(["a", "b", "c", "d"], STUBBORN, idle=0))
    try:
        with _Peak(marker) as sampled:
            for k, seats in enumerate([("a", "b"), ("c", "d"), ("a", "c")]):
                record = worker.play(ScheduledGame(k, 0, seats, seed=k))
                assert record.termination.value == "normal", record.reason
        assert sampled.samples > 10  # each sample reads every process's environment: slow on a busy machine
        assert sampled.peak == 2, f"{sampled.peak} engine processes at once"
    finally:
        worker.shutdown()
    assert survivors(marker) == []


@pytest.mark.timeout(60)
def test_engines_the_plan_does_not_keep_are_let_go_while_the_game_plays(marker, monkeypatch):
    """Room for 4 idle engines, but the pool plans to keep none of a and b beside (c, d): they are
    quit once c and d run, before the game, not when a later game needs their room."""
    worker = Worker(_config(["a", "b", "c", "d"], "good", idle=4))
    try:
        worker.play(ScheduledGame(0, 0, ("a", "b"), seed=0))
        monkeypatch.setattr(pool, "_keep", ("a",))
        record = worker.play(ScheduledGame(1, 0, ("c", "d"), seed=1))
        assert record.termination.value == "normal", record.reason
        assert list(worker.engines) == ["a", "c", "d"]
        worker.retiring.wait_fewer(0)
        assert len(survivors(marker)) == 3
    finally:
        worker.shutdown()
    assert survivors(marker) == []
