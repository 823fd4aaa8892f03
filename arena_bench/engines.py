"""Section 6: the bundled search engine's speed per game, and its clock mode's margin.

Search speed is measured in this process on one core, the way the engine runs in a
tournament: ``SearchEngine.choose_move`` at a level's fixed budget on positions of
a seeded random game (its start and a few plies in), timing CPU and wall clock.
The clock mode (``level time``) plays a real game through a subprocess under a
move time, and the figure is what the referee charged for each of its moves.
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass
from typing import Any

from arena.engine.player import EngineSpec
from arena.engine.process import EngineProcess
from arena.match import TimeControl, play_game
from arena.record import GameRecord
from arena.rules import Game, make_game
from engines.search.engine import PARTS, SearchEngine
from protocol.sdk import Clock

from .common import med

LADDER_LEVELS = ("easy", "medium", "hard")
POSITION_PLIES = (0, 6, 12)  # plies of a random game before each measured move


@dataclass
class SearchFigures:
    game: str
    level: str
    budget: int
    iterations_per_s: float  # median over the positions, CPU time
    cpu_s: list[float]  # per measured move
    wall_s: list[float]

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "level": self.level,
            "budget": self.budget,
            "iterations_per_s": self.iterations_per_s,
            "move_cpu_s_max": max(self.cpu_s),
            "move_cpu_s_median": med(self.cpu_s),
            "move_wall_s_max": max(self.wall_s),
        }


def search_speed(game_name: str, level: str, repeats: int) -> SearchFigures:
    """Moves at ``level`` on the game's default options, ``repeats`` times per position."""
    game = make_game(game_name)
    rates, cpu, wall = [], [], []
    for plies in POSITION_PLIES:
        state = game.initial_state(1)
        rng = random.Random(plies)
        while len(state.moves) < plies and not state.is_terminal():
            state.play(state.random_move(rng))
        if state.is_terminal():
            continue
        for repeat in range(repeats):
            engine = SearchEngine()
            engine.on_option("level", level)
            engine.players, engine.rng = game.players, random.Random(repeat)
            engine.seat = state.current_player()
            c0, w0 = time.process_time(), time.perf_counter()
            engine.choose_move(state.clone(), Clock(engine.seat, None, None, None))
            c1, w1 = time.process_time(), time.perf_counter()
            cpu.append(c1 - c0)
            wall.append(w1 - w0)
            if engine.last is not None and engine.last.iterations:
                rates.append(engine.last.iterations / max(c1 - c0, 1e-9))
    return SearchFigures(game_name, level, PARTS[game_name].budgets[level], med(rates), cpu, wall)


def clock_mode_times(movetime_ms: int, games: int) -> list[int]:
    """What the referee charged the ``level time`` engine per move (ms), Hex 9x9 against
    the random engine, both seat orders."""
    game = make_game("hex", {"size": 9})
    search = EngineSpec("search", (sys.executable, "-m", "engines.search"), options=(("level", "time"),))
    charged: list[int] = []
    for k in range(games):
        specs, record = _against_random(game, search, k, movetime_ms)
        mine = specs.index(search)
        charged += [t for ply, t in enumerate(record["times_ms"]) if ply % 2 == mine]
    return charged


def _against_random(game: Game, search: EngineSpec, k: int, movetime_ms: int) -> tuple[list[EngineSpec], GameRecord]:
    """Game ``k`` (its seed) of ``search`` against the random engine, the seats swapped on
    odd ``k``, through real processes: the seat order and the record."""
    rand = EngineSpec("random", (sys.executable, "-m", "engines.random_engine"))
    specs = [search, rand] if k % 2 == 0 else [rand, search]
    procs = [EngineProcess(spec) for spec in specs]
    try:
        for proc in procs:
            proc.start()
        return specs, play_game(game, procs, seed=k, time_control=TimeControl(movetime_ms=movetime_ms)).record
    finally:
        for proc in procs:
            proc.quit()


@dataclass
class LadderMoves:
    """One level's moves in ladder games against random: per game the slowest move the
    referee charged, and the moves the clock stopped before the level's count."""

    game: str
    level: str
    movetime_ms: int
    slowest_ms: list[float]  # per game
    moves: int
    clock_stopped: int

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def ladder_moves(game_name: str, level: str, games: int, options: dict[str, Any] | None = None) -> LadderMoves:
    """``games`` games of ``level`` against random at the ladder's options and move time
    (``options`` over them), both seat orders, through real processes."""
    from arena.ladder import ladders, move_times

    ladder = ladders()[game_name]
    game = make_game(game_name, {**ladder.options, **(options or {})})
    search = EngineSpec(level, (sys.executable, "-m", "engines.search"), options=(("level", level),))
    slowest: list[float] = []
    moves = stopped = 0
    for k in range(games):
        specs, played = _against_random(game, search, k, ladder.movetime_ms)
        record = GameRecord(**{**played, "players": [s.name for s in specs]})
        figures = move_times(level, [record], PARTS[game_name].budgets[level])
        slowest.append(figures.slowest_ms or 0)
        moves += figures.moves
        stopped += figures.clock_stopped
    return LadderMoves(game_name, level, ladder.movetime_ms, slowest, moves, stopped)
