"""A series of games between fixed engines with the seats rotating (``arena play``).

The engines stay up from game to game, like a tournament worker keeps them, and one
that faulted is restarted for the next game.  Game ``i`` puts engine ``(seat + i) %
players`` in ``seat``; all the seat orders of one round share a seed (the first round's
is the series seed itself), so every setup is played from every seat.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..engine import Conversation, open_engine
from ..engine.player import EngineFault, EngineSpec
from ..engine.trace import Transcript, end_trace, trace_path
from ..match import TimeControl, forfeit_before_start, play_game
from ..record import GameRecord, derive_seed
from ..rules import Game


@dataclass
class SeriesGame:
    """One finished game: its record, the engine index in each seat, its transcript."""

    number: int
    record: GameRecord
    order: list[int]
    trace: Path | None = None


class StartFailure(Exception):
    """An engine could not start for the first game (nothing was played)."""

    def __init__(self, index: int, fault: EngineFault) -> None:
        super().__init__(fault.reason)
        self.index, self.fault = index, fault


def round_seed(seed: int, round_: int) -> int:
    return seed if round_ == 0 else derive_seed(seed, "round", round_)


def unique_names(names: Sequence[str]) -> list[str]:
    """Engine names, with the seat added where two engines call themselves the same."""
    return [f"{name}-{seat}" if names.count(name) > 1 else name for seat, name in enumerate(names)]


def play_series(
    game: Game,
    specs: Sequence[EngineSpec],
    names: Sequence[str | None],
    *,
    games: int,
    seed: int,
    time_control: TimeControl,
    trace_dir: Path | None = None,
) -> Iterator[SeriesGame]:
    """Play ``games`` games; yields each as it ends and quits the engines at the end.
    ``names[i]`` None: engine ``i``'s own ``id name``.  Raises StartFailure if an engine
    cannot start for the first game; later, that is a lost game like any fault."""
    players = game.players
    engines: list[Conversation | None] = [None] * len(specs)
    resolved: list[str] | None = None
    try:
        for number in range(games):
            order = [(seat + number) % players for seat in range(players)]
            gseed = round_seed(seed, number // players)
            transcript = None
            if trace_dir is not None:
                title = f"game {number + 1} of {games}, seed {gseed}: {game.name} {' '.join(game.option_tokens())}"
                transcript = Transcript(trace_path(trace_dir, f"{seed}-{number + 1}"), title)
            try:
                seated, failed = _seat_engines(
                    engines,
                    specs,
                    game,
                    order,
                    transcript,
                    resolved or [n or s.name for n, s in zip(names, specs)],
                )
                if failed is not None and resolved is None:
                    raise StartFailure(*failed)
                if resolved is None:
                    resolved = unique_names(
                        [
                            n or (e.identity.get("name", s.name) if e is not None else s.name)  # all started here
                            for n, e, s in zip(names, engines, specs)
                        ]
                    )
                seat_names = [resolved[i] for i in order]
                if failed is not None:
                    seat, fault = order.index(failed[0]), failed[1]
                    record = forfeit_before_start(game, gseed, seat_names, seat, fault.code, fault.reason)
                else:
                    result = play_game(game, seated, seed=gseed, time_control=time_control, names=seat_names)
                    for seat in result.faulted_seats:
                        _discard(engines, order[seat])
                    record = result.record
            finally:
                if transcript is not None:
                    end_trace(transcript, [e for e in engines if e is not None])
            yield SeriesGame(number, record, order, transcript.path if transcript else None)
    finally:
        for engine in engines:
            if engine is not None:
                engine.quit()


def _seat_engines(
    engines: list[Conversation | None],
    specs: Sequence[EngineSpec],
    game: Game,
    order: list[int],
    transcript: Transcript | None,
    names: Sequence[str],
) -> tuple[list[Conversation], tuple[int, EngineFault] | None]:
    """The running engines in seat order, or the first that could not start."""
    seated: list[Conversation] = []
    for seat, index in enumerate(order):
        trace = transcript.seat(seat, names[index]) if transcript else None
        engine = engines[index]
        if engine is None or not engine.alive:
            if engine is not None:
                engine.kill()
            engine = engines[index] = open_engine(specs[index], game=game.name, board=game)
            engine.trace = trace
            engine.stderr_home = str(transcript.path) if transcript else "not kept; run arena play with --trace"
            try:
                engine.start()
            except EngineFault as fault:
                _discard(engines, index)
                return seated, (index, fault)
        engine.trace = trace
        engine.stderr_home = str(transcript.path) if transcript else "not kept; run arena play with --trace"
        seated.append(engine)
    return seated, None


def _discard(engines: list[Conversation | None], index: int) -> None:
    engine = engines[index]
    if engine is not None:
        engine.kill()
        engines[index] = None


def score(points: dict[str, float], record: GameRecord) -> None:
    """Add a game's points per engine: 1 a win, shared on a draw (places tied at 0)."""
    first = [seat for seat, place in enumerate(record["places"]) if place == 0]
    for seat, name in enumerate(record["players"]):
        points[name] = points.get(name, 0.0) + (1 / len(first) if seat in first else 0.0)


def result_text(record: GameRecord) -> str:
    """A game's outcome in words: who won, or the scores, and how it ended."""
    if record["winner"] is not None:
        outcome = f"{record['players'][record['winner']]} wins"
    else:
        outcome = "scores " + " ".join(f"{s:g}" for s in record["scores"])
    return f"{outcome} ({record['termination']}: {record['reason']})"
