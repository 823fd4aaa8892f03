"""A series of games between fixed engines with the seats rotating (``arena play``).

The engines stay up from game to game, like a tournament worker keeps them, and one
that faulted is restarted for the next game.  Game ``i`` puts engine ``(seat + i) %
players`` in ``seat``; all the seat orders of one round share a seed (the first round's
is the series seed itself), so every setup is played from every seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from ..engine import open_engine
from ..engine.process import EngineFault, EngineProcess, EngineSpec
from ..match import TimeControl, derive_seed, forfeit_before_start, play_game
from ..rules import Game


@dataclass
class SeriesGame:
    """One finished game: its record and the engine index in each seat."""

    number: int
    record: dict[str, Any]
    order: list[int]


def round_seed(seed: int, round_: int) -> int:
    return seed if round_ == 0 else derive_seed(seed, "round", round_)


def play_series(game: Game, started: Sequence[EngineProcess], names: Sequence[str], *, games: int, seed: int,
                time_control: TimeControl,
                tracer: Callable[[int, Sequence[EngineProcess]], Any] | None = None) -> Iterator[SeriesGame]:
    """Play ``games`` games between ``started`` engines (one per seat of the first
    game); yields each game as it ends and quits the engines at the end.
    ``tracer(number, engines)``, if given, is called before each game."""
    players = game.players
    specs = [engine.spec for engine in started]
    engines: list[EngineProcess | None] = list(started)
    try:
        for number in range(games):
            order = [(seat + number) % players for seat in range(players)]
            seat_names = [names[i] for i in order]
            gseed = round_seed(seed, number // players)
            seated: list[EngineProcess] = []
            failed = None
            for seat, index in enumerate(order):
                try:
                    seated.append(_running(engines, specs, index))
                except EngineFault as exc:
                    failed = forfeit_before_start(game, gseed, seat_names, seat, exc.code, exc.reason)
                    _discard(engines, index)
                    break
            if failed is not None:
                yield SeriesGame(number, failed, order)
                continue
            if tracer is not None:
                tracer(number, seated)
            result = play_game(game, seated, seed=gseed, time_control=time_control, names=seat_names)
            for seat in result.faulted_seats:
                _discard(engines, order[seat])
            yield SeriesGame(number, result.record, order)
    finally:
        for engine in engines:
            if engine is not None:
                engine.quit()


def _running(engines: list[EngineProcess | None], specs: Sequence[EngineSpec], index: int) -> EngineProcess:
    engine = engines[index]
    if engine is None or not engine.alive:
        if engine is not None:
            engine.kill()
        engine = engines[index] = open_engine(specs[index])
        engine.start()
    return engine


def _discard(engines: list[EngineProcess | None], index: int) -> None:
    if engines[index] is not None:
        engines[index].kill()
        engines[index] = None
