"""The fault zoo's shared parts: misbehaving engines played through the runner's real
worker path, and the checks every fault test makes (its fixtures are in conftest.py)."""

import sys
import time
from pathlib import Path

from arena.engine import proctree
from arena.engine.player import EngineSpec
from arena.match import TimeControl
from arena.tournament.schedule import ScheduledGame
from arena.tournament.worker import Worker, WorkerConfig

HERE = Path(__file__).resolve().parent
ZOO = str(HERE / "engines" / "zoo_engine.py")
ZOO_C = HERE / "engines" / "zoo_engine.c"
MOVETIME, MARGIN = 300, 100
LIMIT = (MOVETIME + MARGIN) / 1000
SLACK = 1.0  # start-up of two engines plus scheduling noise on a busy machine


def survivors(marker: Path) -> list[int]:
    return proctree.tagged_pids(str(marker), key="ZOO_PIDS")


def started_pids(marker: Path) -> list[int]:
    return [int(p) for p in marker.read_text().split()] if marker.exists() else []


def zoo(fault: str, at: int = 1, **limits) -> EngineSpec:
    return EngineSpec(f"zoo-{fault}", (sys.executable, ZOO, fault, str(at)), **limits)


GOOD = EngineSpec("good", (sys.executable, ZOO, "good"))


def play_one(bad: EngineSpec, bad_seat: int = 0, movetime: int = MOVETIME, time_control: TimeControl | None = None):
    """One game in a worker; returns the record, its wall time and the worker."""
    config = WorkerConfig(
        "zoo",
        "hex",
        {"size": 5, "swap": False},
        {bad.name: bad, GOOD.name: GOOD},
        time_control or TimeControl(movetime_ms=movetime, margin_ms=MARGIN),
    )
    worker = Worker(config)
    seats = (bad.name, GOOD.name) if bad_seat == 0 else (GOOD.name, bad.name)
    t0 = time.monotonic()
    record = worker.play(ScheduledGame(0, 0, seats, seed=1))
    return record, time.monotonic() - t0, worker


def check_fault(record, worker, bad_seat, code, reason):
    assert record["termination"] == code, record["reason"]
    assert reason in record["reason"]
    assert record["forfeit_seat"] == bad_seat
    assert record["winner"] == 1 - bad_seat and record["places"][bad_seat] == 1
    good = worker.engines["good"]
    assert good.alive  # the opponent keeps its process for its next game


def check_clean(worker, marker):
    worker.shutdown()
    assert started_pids(marker), "the zoo engines did not record their pids"
    assert survivors(marker) == []
