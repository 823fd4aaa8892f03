"""Per-engine statistics over the stored game records.

:func:`engine_stats` answers, for every engine: how it scored (overall and by seat), how its
games ended, how long they lasted, how much time it used per move and, when it reported
them, how deep it searched and how fast.  Everything is a pure function of the records.

Which record fields are read:

- ``players``, ``places``, ``termination``, ``forfeit_seat``: results (a tie on places is a
  draw; two seats that both forfeited have no result between them, as in the standings).
- ``moves`` and ``opening_plies``: game length (plies, the book's included) and who made each
  move; ``times_ms[k]`` is the time of the engine's move at ply ``opening_plies + k``.
- ``move_info[k]`` (optional, aligned with ``times_ms``): the ``depth``, ``nodes`` and
  ``score`` the engine last reported with ``info`` before that move (PROTOCOL.md section 4),
  or null.
- Hex and HexGo swaps: a ``swap`` token at the second ply.  The seat that played it
  "swapped", the seat whose first stone was taken "was swapped".

Who made which move is replayed with the rules (HexGo's swap changes the turn order); a
record the rules cannot replay still counts its results, without per-move figures.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..record import GameRecord, Termination, record_start
from ..rules import Game, IllegalMove, OptionError, find_game, make_game
from ..rules.base import JsonValue
from .ratings import forfeited, game_outcome, opponents, seats_of


@dataclass
class SeatStats:
    """An engine's results from one seat; ``points`` over ``results`` pairwise results."""

    seat: int
    name: str
    games: int = 0
    points: float = 0.0
    results: int = 0

    @property
    def score(self) -> float | None:
        return self.points / self.results if self.results else None


@dataclass
class EngineStats:
    engine: str
    games: int = 0  # games with a result (see module doc)
    wins: int = 0  # ahead of every opponent
    losses: int = 0  # behind at least one opponent
    draws: int = 0  # otherwise (level with the best opponent)
    points: float = 0.0
    results: int = 0
    seats: list[SeatStats] = field(default_factory=list)
    swapped: int = 0  # times it answered the first stone with swap
    was_swapped: int = 0  # times its first stone was swapped
    terminations: dict[str, int] = field(default_factory=dict)  # its own forfeits, by code
    opponent_forfeits: int = 0  # games an opponent forfeited
    plies: int = 0  # summed over its games
    moves_timed: int = 0
    time_ms: float = 0  # ints as the records hold them; a hand-written record may time in fractions
    max_move_ms: float | None = None
    depth_sum: float = 0.0
    depth_moves: int = 0
    nodes: int = 0
    nodes_ms: float = 0  # time of the moves that reported nodes

    @property
    def score(self) -> float | None:
        return self.points / self.results if self.results else None

    @property
    def mean_plies(self) -> float | None:
        return self.plies / self.games if self.games else None

    @property
    def mean_move_ms(self) -> float | None:
        return self.time_ms / self.moves_timed if self.moves_timed else None

    @property
    def mean_depth(self) -> float | None:
        return self.depth_sum / self.depth_moves if self.depth_moves else None

    @property
    def nodes_per_second(self) -> float | None:
        """Reported nodes over the time of the moves that reported them (None: no reports,
        or they all took 0 ms)."""
        return self.nodes * 1000 / self.nodes_ms if self.nodes_ms else None

    def seat_pct(self, seat: int) -> float | str:
        """The score % from ``seat`` as the tables show it ("" where it has no result)."""
        score = self.seats[seat].score if seat < len(self.seats) else None
        return "" if score is None else round(100 * score, 1)

    def as_dict(self) -> dict[str, JsonValue]:
        """JSON-ready (snake_case; null: no data, e.g. no move reported its depth)."""
        return {
            "engine": self.engine,
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "points": self.points,
            "score": _round(self.score, 4),
            "seats": [
                {"seat": s.seat, "name": s.name, "games": s.games, "points": s.points, "score": _round(s.score, 4)}
                for s in self.seats
            ],
            "swapped": self.swapped,
            "was_swapped": self.was_swapped,
            "terminations": dict(self.terminations),
            "opponent_forfeits": self.opponent_forfeits,
            "mean_plies": _round(self.mean_plies, 1),
            "moves_timed": self.moves_timed,
            "mean_move_ms": _round(self.mean_move_ms, 1),
            "max_move_ms": self.max_move_ms,
            "mean_depth": _round(self.mean_depth, 2),
            "nodes_per_second": _round(self.nodes_per_second, 0),
        }


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def engine_stats(
    records: Iterable[GameRecord], engines: Sequence[str] = (), replayed: bool = False
) -> dict[str, EngineStats]:
    """Statistics of every engine in ``engines`` and ``records``, in that order of first
    appearance (``replayed``: see StatsTally)."""
    tally = StatsTally(replayed)
    for record in records:
        tally.add(record)
    return tally.table(engines)


class StatsTally:
    """:func:`engine_stats` one game at a time: the live site adds each new game to the
    tallies of the ones before instead of replaying every game at every refresh.
    ``replayed``: the records' moves are known to be legal (the referee played them, or
    the folder's admission replayed them), so a game whose seats take turns and that the
    rules ended needs no replay to know who made each move."""

    def __init__(self, replayed: bool = False) -> None:
        self.rows: dict[str, EngineStats] = {}
        self.movers = _Movers(replayed)

    def add(self, record: GameRecord) -> None:
        for name in record.players or []:
            self.rows.setdefault(name, EngineStats(name))
        _count_results(self.rows, record)
        _count_moves(self.rows, record, self.movers.of(record))

    def table(self, engines: Sequence[str] = ()) -> dict[str, EngineStats]:
        """The rows of ``engines`` first (a row of no games for one not met yet), then the others."""
        table = {name: self.rows.get(name) or EngineStats(name) for name in engines}
        table.update((name, row) for name, row in self.rows.items() if name not in table)
        return table


def seat_name(game: str, seat: int) -> str:
    """A seat as tables name it: its colour where the game fixes one, else its number."""
    known = find_game(game)
    names = known.seat_names if known else ()
    return names[seat] if seat < len(names) else f"seat {seat}"


@functools.cache
def swap_move(game: str) -> str | None:
    """The game's swap token (the second player taking over the first move), if it has one."""
    known = find_game(game)
    return known.swap_move if known else None


def _count_results(table: dict[str, EngineStats], record: GameRecord) -> None:
    (names, places), offenders = seats_of(record), forfeited(record)
    for seat, name in enumerate(names):
        row = table[name]
        while len(row.seats) < len(names):
            row.seats.append(SeatStats(len(row.seats), seat_name(record.game, len(row.seats))))
        if seat in offenders:
            code = str(record.termination)
            row.terminations[code] = row.terminations.get(code, 0) + 1
        elif offenders:
            row.opponent_forfeits += 1
        others = [places[o] for o in opponents(record, seat, offenders)]
        if not others:
            continue
        points, outcome = game_outcome(places[seat], others)
        row.games += 1
        row.points += points
        row.results += len(others)
        row.plies += len(record.moves)
        setattr(row, outcome, getattr(row, outcome) + 1)
        by_seat = row.seats[seat]
        by_seat.games += 1
        by_seat.points += points
        by_seat.results += len(others)


def _count_moves(table: dict[str, EngineStats], record: GameRecord, movers: list[int] | None) -> None:
    names, moves = record.players or [], record.moves
    swap = swap_move(record.game)
    if swap is not None and len(moves) > 1 and moves[1] == swap:
        table[names[1]].swapped += 1  # seat 0 moves first, seat 1 may swap
        table[names[0]].was_swapped += 1
    if movers is None:
        return
    first = record.opening_plies or 0
    infos = record.move_info or []
    times = (record.times_ms or [])[: max(0, len(movers) - first)]
    timed_movers = movers[first : first + len(times)]
    for seat, timed in _times_by_seat(times, timed_movers, len(names)):
        row = table[names[seat]]
        row.moves_timed += len(timed)
        row.time_ms += sum(timed)
        row.max_move_ms = max(timed) if row.max_move_ms is None else max(row.max_move_ms, *timed)
    for k, info in enumerate(infos[: len(times)]):
        if isinstance(info, Mapping):
            row = table[names[movers[first + k]]]
            if isinstance(depth := info.get("depth"), (int, float)):
                row.depth_sum += depth
                row.depth_moves += 1
            if isinstance(nodes := info.get("nodes"), int):
                row.nodes += nodes
                row.nodes_ms += times[k]


def _times_by_seat(times: list[float], movers: list[int], seats: int) -> list[tuple[int, list[float]]]:
    """Each seat that made a timed move (in seat order) with the times of its moves, in order."""
    if seats and movers and tuple(movers) == _in_turn(movers[0], seats, len(movers)):
        # Seats taking turns (every move of most games): each seat's times are a slice.
        return sorted(((movers[0] + k) % seats, times[k::seats]) for k in range(min(seats, len(movers))))
    return [(seat, [ms for ms, mover in zip(times, movers) if mover == seat]) for seat in sorted(set(movers))]


@functools.lru_cache(maxsize=4096)
def _in_turn(start: int, seats: int, moves: int) -> tuple[int, ...]:
    """The movers of ``moves`` moves of ``seats`` seats in turn from ``start`` (a few lengths
    recur through a folder's games)."""
    return tuple((start + k) % seats for k in range(moves))


def movers_of(record: GameRecord) -> list[int] | None:
    """The seat that made each move of ``record`` (None: it does not replay)."""
    return _Movers().of(record)


class _Movers:
    """The seat that made each move of a record (and the seat to move after the last, whose
    rejected move may have been timed), by replaying it (a record the rules cannot replay
    has none); games are cached by options.  ``replayed``: see StatsTally."""

    def __init__(self, replayed: bool = False) -> None:
        self.games: dict[str, Game] = {}
        self.replayed = replayed

    def of(self, record: GameRecord) -> list[int] | None:
        key = f"{record.game}:{sorted(record.options.items())}"
        try:
            game = self.games.get(key) or make_game(record.game, record.options)
            self.games[key] = game
            state = record_start(game, record)
            if self.replayed and game.takes_turns and record.termination is Termination.NORMAL:
                # Seats in turn to the end the rules reached: no replay (a site counts
                # thousands of games); a forfeit's rejected last move is the next seat's.
                return list(_in_turn(state.current_player(), game.players, len(record.moves)))
            seats = []
            for move in record.moves:
                seats.append(state.current_player())
                state.play(move)
            if not state.is_terminal():  # an illegal last move was timed but not recorded
                seats.append(state.current_player())
            return seats
        except (OptionError, IllegalMove, ValueError, KeyError, TypeError):
            return None
