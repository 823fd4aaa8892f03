"""The clock a game is played under (arena.match.TimeControl): periods of moves (cutechess's
``tc=40/60``), what each engine is told of them, a node budget, and a fresh engine every game."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.engine import EngineSpec, open_engine
from arena.engine.conformance import Conformance
from arena.engine.player import Reply, TimeLimit
from arena.match import TimeControl, longest_game_s, play_game
from arena.rules import Game, State, make_game
from tests.helpers import ROOT, engine_toml, run_arena, write_tournament

PY = sys.executable

# An SDK engine that logs what its clock says each move; argv: log file, its go keys.
LOGGER = """\
import json, sys
from protocol.sdk import Engine, run

class Logger(Engine):
    name = "logger"
    go_keys = tuple(k for k in sys.argv[2].split(",") if k)

    def choose_move(self, state, clock):
        with open(sys.argv[1], "a") as f:
            f.write(json.dumps([clock.movestogo, clock.nodes, clock.remaining and clock.remaining[self.seat]]) + "\\n")
        return state.legal_moves()[0]

run(Logger())
"""


class SteadyPlayer:
    """In memory: the first legal move, each taking ``ms`` by the referee's count."""

    def __init__(self, name: str, ms: int) -> None:
        self._name, self.ms = name, ms
        self.limits: list[TimeLimit] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def alive(self) -> bool:
        return True

    def start(self) -> None: ...

    def new_game(self, game: Game, seat: int, seed: int, private: Sequence[str]) -> None: ...

    def choose_move(self, state: State, limit: TimeLimit) -> Reply:
        self.limits.append(limit)
        return Reply(state.legal_moves()[0], self.ms / 1000)

    def longest_s(self, limit: TimeLimit | None) -> float:
        return 1.0

    def verify_result(self, state: State) -> None: ...

    def game_over(self, scores: Sequence[float], reason: str) -> None: ...

    def quit(self) -> None: ...

    def kill(self) -> None: ...


def test_a_period_adds_its_time_after_each_seats_moves_and_counts_them_down():
    a, b = SteadyPlayer("a", 100), SteadyPlayer("b", 300)
    clock = TimeControl(base_ms=1000, inc_ms=10, moves=3)
    record = play_game(make_game("hex", {"size": 4, "swap": False}), [a, b], seed=1, time_control=clock).record
    assert record.termination == "normal"
    assert [lim.movestogo for lim in a.limits][:7] == [3, 2, 1, 3, 2, 1, 3]
    # Seat 0's clock before each move: 1000, minus 100 and plus 10 a move, plus 1000 after every third.
    expected, left = [], 1000
    for k in range(len(a.limits)):
        expected.append(left)
        left += 10 - 100 + (1000 if (k + 1) % 3 == 0 else 0)
    assert [lim.clocks_ms[0] for lim in a.limits] == expected
    # Seat 1 spends 300 a move: 1000 - 3 * 290 = 130 left at its period's end, then 1130.
    assert [lim.clocks_ms[1] for lim in b.limits][:5] == [1000, 710, 420, 1130, 840]


def test_a_clock_without_periods_tells_no_moves_to_go_and_the_watchdog_bound_counts_periods():
    a, b = SteadyPlayer("a", 1), SteadyPlayer("b", 1)
    play_game(make_game("hex", {"size": 3, "swap": False}), [a, b], seed=1, time_control=TimeControl(base_ms=500))
    assert {lim.movestogo for lim in a.limits + b.limits} == {None}
    game = make_game("hex", {"size": 5})
    specs = [EngineSpec("a", ("x",)), EngineSpec("b", ("x",))]
    one = longest_game_s(game, TimeControl(base_ms=10_000), specs)
    periods = longest_game_s(game, TimeControl(base_ms=10_000, moves=5), specs)
    assert one is not None and periods is not None
    # 26 plies at most: ceil(26 / 5) = 6 periods of 10 s for each of the two seats, 100 s more.
    assert periods - one == pytest.approx(2 * 5 * 10.0)


def logger(tmp_path: Path, name: str, keys: str) -> tuple[EngineSpec, Path]:
    script = tmp_path / "logger.py"
    script.write_text(LOGGER)
    log = tmp_path / f"{name}.jsonl"
    return EngineSpec(name, (PY, str(script), str(log), keys), cwd=str(ROOT)), log


def play(specs: Sequence[EngineSpec], clock: TimeControl, size: int = 4) -> dict:
    engines = [open_engine(s) for s in specs]
    try:
        for e in engines:
            e.start()
        return play_game(make_game("hex", {"size": size, "swap": False}), engines, seed=3, time_control=clock).record
    finally:
        for e in engines:
            e.quit()


def test_moves_to_go_and_nodes_reach_only_an_engine_that_declares_them(tmp_path):
    """An engine of the first protocol text refuses go keys it does not know, so arena sends
    ``movestogo`` and ``nodes`` only to an engine whose ``id go`` lists them."""
    told, told_log = logger(tmp_path, "told", "movestogo,nodes")
    plain, plain_log = logger(tmp_path, "plain", "")
    record = play([told, plain], TimeControl(base_ms=60_000, moves=2, nodes=50))
    assert record["termination"] == "normal", record["reason"]
    told_seen = [json.loads(line) for line in told_log.read_text().splitlines()]
    plain_seen = [json.loads(line) for line in plain_log.read_text().splitlines()]
    assert [m for m, _, _ in told_seen][:4] == [2, 1, 2, 1] and {n for _, n, _ in told_seen} == {50}
    assert {(m, n) for m, n, _ in plain_seen} == {(None, None)}
    clocks = [c for _, _, c in told_seen]
    assert clocks[2] > clocks[1]  # the second period's minute was added


def test_the_search_engine_keeps_to_a_node_budget(tmp_path):
    search = EngineSpec("search", (PY, "-m", "engines.search"), cwd=str(ROOT), options=(("level", "hard"),))
    plain, _ = logger(tmp_path, "plain", "")
    record = play([search, plain], TimeControl(movetime_ms=20_000, nodes=40), size=5)
    assert record["termination"] == "normal", record["reason"]
    searched = [info["nodes"] for info in record["move_info"][0::2] if info and info.get("depth")]
    assert searched and max(searched) <= 40 and 40 in searched  # 'hard' alone would search 600


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_restart_always_starts_a_fresh_engine_for_every_game(tmp_path):
    here = f'cwd = "{ROOT}"'
    engines = engine_toml("fresh", "{python}", "-m", "engines.random_engine", extra=f'{here}\nrestart = "always"')
    engines += engine_toml("kept", "{python}", "-m", "engines.random_engine", extra=here)
    path = write_tournament(tmp_path, engines, options="size = 3", rounds=2, workers=1)
    out = tmp_path / "out"
    proc = run_arena("run", path, "--out", out, "--trace")
    assert proc.returncode == 0, proc.stderr
    starts = {"fresh": 0, "kept": 0}
    traces = sorted((out / "traces").iterdir())
    assert len(traces) == 4
    for trace in traces:
        for line in trace.read_text().splitlines():
            for name in starts:
                if f" {name} > arena 1" in line:
                    starts[name] += 1
    assert starts == {"fresh": 4, "kept": 1}


OVERRUN = """\
from protocol.sdk import Engine, run

class Overrun(Engine):
    name = "overrun"
    go_keys = ("movestogo", "nodes")

    def choose_move(self, state, clock):
        self.info(f"depth 1 nodes {clock.nodes * 10 if clock.nodes else 1}")
        return state.legal_moves()[0]

run(Overrun())
"""


def checks_until(spec: EngineSpec, last: str) -> dict[str, object]:
    """check-engine's checks on Hex, by name, up to the one named ``last`` (the rest not run)."""
    seen = {}
    for check in Conformance(spec, ["hex"]).run():
        seen[check.name.split(" (")[0]] = check
        if check.name.startswith(last):
            break
    return seen


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_check_engine_checks_what_an_engine_declares_of_moves_to_go_and_nodes(tmp_path):
    script = tmp_path / "overrun.py"
    script.write_text(OVERRUN)
    checks = checks_until(EngineSpec("o", (PY, str(script)), cwd=str(ROOT)), "move within a node budget")
    assert checks["move with moves to go"].passed
    budget = checks["move within a node budget"]
    assert budget.passed is False and "info nodes 1000" in budget.detail and "budget of 100" in budget.detail
    random = checks_until(EngineSpec("r", (PY, "-m", "engines.random_engine"), cwd=str(ROOT)), "several games")
    assert "move on a game clock, no movetime" in random and "move within a node budget" not in random
