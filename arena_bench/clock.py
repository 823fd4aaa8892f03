"""Section 5: how much the referee's clock charges an engine beyond its own thinking.

The instant engine sleeps a known time on every move and measures, itself, the
time from having read ``go`` to having written its move.  The referee's figure
is what :meth:`EngineProcess.choose_move` measured (``Reply.elapsed``, from before
writing ``position``/``go`` to after reading the ``move`` line) and what the
game record charged (``times_ms``, whole milliseconds).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.engine.player import EngineSpec, Reply, TimeLimit
from arena.engine.process import EngineProcess
from arena.match import TimeControl, play_game
from arena.rules import State, make_game

from .common import InstantEngine, med, percentile, read_engine_stats


class _TimedEngine(EngineProcess):
    """The real engine driver, noting the elapsed time of every move."""

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__(spec)
        self.charged: list[float] = []

    def choose_move(self, state: State, limit: TimeLimit) -> Reply:
        reply = super().choose_move(state, limit)
        self.charged.append(reply.elapsed)
        return reply


@dataclass
class ClockFigures:
    sleep_ms: float
    moves: int
    measured_error_ms: list[float]  # Reply.elapsed - engine's own time
    recorded_error_ms: list[float]  # times_ms in the record - engine's own time

    def as_dict(self) -> dict[str, Any]:
        return {
            "sleep_ms": self.sleep_ms,
            "moves": self.moves,
            "measured_error_median_ms": med(self.measured_error_ms),
            "measured_error_p99_ms": percentile(self.measured_error_ms, 99),
            "recorded_error_median_ms": med(self.recorded_error_ms),
            "recorded_error_p99_ms": percentile(self.recorded_error_ms, 99),
        }


def clock_accuracy(engine: InstantEngine, *, games: int, size: int, sleep_us: int) -> ClockFigures:
    game = make_game("hex", {"size": size, "swap": True})
    with tempfile.TemporaryDirectory(prefix="arena-bench-clock-") as tmp:
        argv = (*engine.argv, "--stats", tmp, "--sleep-us", str(sleep_us))
        seats = [_TimedEngine(EngineSpec(f"sleeper{seat}", argv)) for seat in range(2)]
        records = []
        try:
            pids = []
            for seat in seats:
                seat.start()
                assert seat.proc is not None  # start() has just made it
                pids.append(seat.proc.pid)
            for seed in range(games):
                records.append(play_game(game, seats, seed=seed, time_control=TimeControl(movetime_ms=10_000)).record)
        finally:
            for seat in seats:
                seat.quit()
        own = {s["pid"]: s["think_us"] for s in read_engine_stats(Path(tmp))}
    recorded: list[list[int]] = [[], []]
    for record in records:
        state = game.initial_state(record["seed"])
        for move, ms in zip(record["moves"], record["times_ms"]):
            recorded[state.current_player()].append(ms)
            state.play(move)
    measured_error, recorded_error = [], []
    for index, pid in enumerate(pids):
        thinks = own.get(pid, [])
        if len(thinks) != len(seats[index].charged):
            raise RuntimeError(
                f"engine {pid} reported {len(thinks)} moves, the referee timed {len(seats[index].charged)}"
            )
        measured_error += [c * 1e3 - t / 1e3 for c, t in zip(seats[index].charged, thinks)]
        recorded_error += [ms - t / 1e3 for ms, t in zip(recorded[index], thinks)]
    return ClockFigures(sleep_us / 1000, len(measured_error), measured_error, recorded_error)
