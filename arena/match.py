"""Playing one game between engine processes under the referee's rules.

The referee owns the position: engines only propose moves, and every proposal
goes through :meth:`State.play`.  Whatever an engine does wrong ends the game
as a loss for that engine with a recorded termination code and reason (see
PROTOCOL.md section 7); it never raises out of :func:`play_game`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol, TypedDict

from protocol import codec

from .adjudication import Adjudication, Adjudicator, Ending
from .engine.conversation import HANDSHAKE_TIMEOUT
from .engine.player import EngineFault, EngineSpec, Player, Reply, TimeLimit
from .engine.transport import EXIT_WAIT, QUIT_GRACE
from .record import GameRecord, Termination, adjudged_result, derive_seed, forfeit_result, starting_state
from .rules import Game, IllegalMove, State
from .rules.base import JsonValue

log = logging.getLogger("arena.match")

MAX_MOVE_MS = 600_000  # per-move ceiling when no time control is set
# Losses after which the engine's process is sound and kept for its next game.
_ENGINE_FINE = (Termination.ILLEGAL, Termination.RESIGN, Termination.ADJUDICATED_RESIGN)


@dataclass(frozen=True)
class TimeControl:
    """Per-move limit and/or a game clock with increment, all in milliseconds.  With
    ``moves`` the clock is a period (cutechess's ``tc=40/60``): after each ``moves`` moves
    of a seat, ``base_ms`` is added to what it has left.  ``nodes`` is a node budget a move,
    told to engines that declare they take one; the clock still decides time losses."""

    movetime_ms: int | None = None
    base_ms: int | None = None
    inc_ms: int = 0
    margin_ms: int = 100
    moves: int | None = None
    nodes: int | None = None


@dataclass
class GameResult:
    """A finished game: its record plus the seats whose engine must be restarted."""

    record: GameRecord
    faulted_seats: list[int] = field(default_factory=list)


class Watcher(Protocol):
    """Whoever shows a game while it is played (the live feed of ``arena serve``): told of
    its start and of every move, in the worker that plays it.  Neither may raise, and each
    must be cheap while nobody looks: it is called between the engines' moves."""

    def begin(self, state: State, seed: int, deal: int, opening_setup: bool = False) -> None:
        """The game starts from ``state`` (its opening played), set up from ``seed`` and ``deal``
        (its board a book's where ``opening_setup``, not the one the seed deals)."""

    def moved(self, state: State, seat: int, reply: Reply, clocks_ms: Sequence[int] | None) -> None:
        """``seat`` played ``reply``'s move; ``clocks_ms``: every seat's time left after it (None: no game clock)."""


class _Later(TypedDict, total=False):
    """A record's fields after its result: the deal always, the book's board where it gave
    one, the rest once moves were played."""

    deal: int
    move_info: list[Mapping[str, JsonValue] | None]
    started: str
    duration_s: float
    opening_plies: int
    opening_setup: bool
    faults: list[str]


class _Result(TypedDict):
    """A record's result: by the rules, or by a forfeit."""

    termination: Termination
    reason: str
    forfeit_seat: int | None
    winner: int | None
    scores: list[float]
    places: list[int]
    details: dict[str, JsonValue]


class _Adjudged(Exception):
    """arena ends the game by an adjudication whose result the position gives (a draw, a
    count, a decided win): record.ADJUDGED."""

    def __init__(self, ending: Ending) -> None:
        super().__init__(ending.reason)
        self.code, self.reason = ending.code, ending.reason


class _Forfeit(Exception):
    """The game is lost by ``seats`` (usually one; several only when dropped engines meet)."""

    def __init__(self, seat: int | Sequence[int], code: Termination, reason: str) -> None:
        super().__init__(reason)
        self.seats = (seat,) if isinstance(seat, int) else tuple(seat)
        self.seat, self.code = self.seats[0], code
        self.reason = codec.sanitize(reason, 400)  # engine text may be inside: keep it printable


def play_game(
    game: Game,
    engines: Sequence[Player],
    *,
    seed: int,
    time_control: TimeControl | Sequence[TimeControl],
    names: Sequence[str] | None = None,
    opening: Sequence[str] = (),
    setup: str | None = None,
    progress: Callable[[float], None] = lambda seconds: None,
    watcher: Watcher | None = None,
    adjudication: Adjudication | None = None,
) -> GameResult:
    """Play one game; ``engines[seat]`` must be started.  ``seed`` fixes the setup
    and the engines' per-game seeds; ``opening`` (checked when the book was loaded)
    is played before the engines take over, on the book's board ``setup`` where it names
    one (a game that deals its board at random: the seed deals the rest, a hidden part).
    ``time_control`` is one for all seats or one per seat (time odds; all with a game
    clock or none).  ``progress(seconds)`` is called before each step that waits on an
    engine (the new game, every move, the end) with the longest that step may take: a
    worker reports it to its coordinator, whose watchdog so times every move instead of
    the whole game.  ``watcher`` is told of the start and of every legal move as it is
    played.  ``adjudication`` may end the game before its rules do (arena/adjudication.py)."""
    started = datetime.now(UTC)
    t0 = time.monotonic()
    names = list(names or [e.name for e in engines])
    state, deal = starting_state(game, seed, names, setup=setup)
    for move in opening:
        state.play(move)
    # Keyed by engine name too, so mirrored seat orders of one setup are different games.
    engine_seeds = [derive_seed(seed, "engine", seat, name) for seat, name in enumerate(names)]
    times_ms: list[int] = []
    move_info: list[Mapping[str, JsonValue] | None] = []  # aligned with times_ms
    forfeit: _Forfeit | None = None
    adjudged: _Adjudged | None = None
    judge = Adjudicator(adjudication, len(engines)) if adjudication is not None and adjudication.active else None
    try:
        progress(_exchanges_s(engines))
        _announce(game, state, engines, engine_seeds)
        if watcher is not None:
            watcher.begin(state, seed, deal, setup is not None)
        per_seat = [time_control] * len(engines) if isinstance(time_control, TimeControl) else list(time_control)
        _play_moves(state, engines, per_seat, times_ms, move_info, progress, watcher, judge)
    except _Forfeit as exc:
        forfeit = exc
    except _Adjudged as exc:
        adjudged = exc
    progress(_exchanges_s(engines))  # the same bound as the next game's set-up: one report covers both
    # An adjudicated game is not over by the rules: there is no final score to verify.
    faults, disagreed = ([], []) if forfeit or adjudged else _verify_result(state, engines, names)
    later: _Later = {"deal": deal}
    if any(move_info):  # only engines that report depth, nodes or score (PROTOCOL.md section 4)
        later["move_info"] = move_info
    later["started"] = started.isoformat(timespec="seconds")
    later["duration_s"] = round(time.monotonic() - t0, 3)
    if opening:
        later["opening_plies"] = len(opening)  # the first moves were the book's, untimed
    if setup is not None:
        later["opening_setup"] = True  # the board was the book's, not the seed's
    if faults:
        later["faults"] = faults
    record = _record(game, state, names, seed, engine_seeds, times_ms, forfeit or adjudged, later)
    _tell_result(engines, record)
    faulted = [forfeit.seat] if forfeit and forfeit.code not in _ENGINE_FINE else disagreed
    return GameResult(record, faulted)


def forfeit_before_start(
    game: Game,
    seed: int,
    names: Sequence[str],
    seat: int | Sequence[int],
    code: Termination,
    reason: str,
    setup: str | None = None,
) -> GameRecord:
    """The record of a game lost before its first move (an engine would not start, or
    was dropped); ``seat`` may list several seats, who then share the last place.  ``setup``:
    the book's board it would have been played on (see :func:`play_game`)."""
    state, deal = starting_state(game, seed, names, setup=setup)
    later: _Later = {"deal": deal}
    if setup is not None:
        later["opening_setup"] = True
    return _record(game, state, names, seed, [], [], _Forfeit(seat, code, reason), later)


def _announce(game: Game, state: State, engines: Sequence[Player], engine_seeds: list[int]) -> None:
    for seat, engine in enumerate(engines):
        try:
            engine.new_game(game, seat, engine_seeds[seat], state.private_info(seat))
        except EngineFault as exc:
            raise _Forfeit(seat, exc.code, exc.reason) from None


def _exchanges_s(engines: Sequence[Player]) -> float:
    """The longest the exchanges around the moves may take, one engine after the other:
    a new game's set-up, or a game's end (``verify_result``, then ``game_over``, whose
    line may wait QUIT_GRACE for the engine to read it)."""
    return sum(max(engine.longest_s(None), QUIT_GRACE) for engine in engines)


def _verify_result(state: State, engines: Sequence[Player], names: Sequence[str]) -> tuple[list[str], list[int]]:
    """The faults of the engines that score the finished game otherwise than the referee
    (GTP's ``verify_score``), and their seats.  The referee's result stands: the moves are
    legal and end the game by the rules, so the record stays one ``arena verify`` accepts;
    the fault is recorded beside it and the engine, whose board cannot be trusted, is
    started afresh for its next game."""
    faults: list[str] = []
    seats: list[int] = []
    for seat, engine in enumerate(engines):
        if not engine.alive:
            continue
        try:
            engine.verify_result(state)
        except EngineFault as exc:
            fault = codec.sanitize(f"{names[seat]} (seat {seat}): {exc.code}: {exc.reason}", 400)
            log.warning("%s", fault)
            faults.append(fault)
            seats.append(seat)
    return faults, seats


def _play_moves(
    state: State,
    engines: Sequence[Player],
    tcs: Sequence[TimeControl],
    times_ms: list[int],
    move_info: list[Mapping[str, JsonValue] | None],
    progress: Callable[[float], None],
    watcher: Watcher | None,
    judge: Adjudicator | None,
) -> None:
    clocks = [tc.base_ms or 0 for tc in tcs] if tcs[0].base_ms is not None else None  # all or none have one
    incs = (
        tuple(tc.inc_ms for tc in tcs) if clocks is not None and any(tc.inc_ms for tc in tcs) else None
    )  # no 'inc 0,0'
    # Without a game clock a seat's limit is the same for every move: one object, built once.
    fixed = [TimeLimit(_move_limit(tc, None), tc.movetime_ms, nodes=tc.nodes) for tc in tcs]
    played = [0] * len(tcs)  # each seat's moves, for periods
    while not state.is_terminal():
        if judge is not None and (ending := judge.before_move(state)) is not None:
            raise _Adjudged(ending)
        seat = state.current_player()
        tc = tcs[seat]
        if clocks is not None:
            left = tuple([max(c, 0) for c in clocks])
            to_go = tc.moves - played[seat] % tc.moves if tc.moves else None
            limit = TimeLimit(_move_limit(tc, clocks[seat]), tc.movetime_ms, left, incs, to_go, tc.nodes)
        else:
            limit = fixed[seat]
        progress(engines[seat].longest_s(limit))
        try:
            reply = engines[seat].choose_move(state, limit)
        except EngineFault as exc:
            raise _Forfeit(seat, exc.code, exc.reason) from None
        elapsed_ms = round(reply.elapsed * 1000)
        times_ms.append(elapsed_ms)
        move_info.append(reply.info)
        if reply.move is None:
            raise _Forfeit(seat, Termination.RESIGN, "resigned")
        try:
            state.play(reply.move)
        except IllegalMove as exc:
            raise _Forfeit(
                seat, Termination.ILLEGAL, f"illegal move {codec.quote(exc.move, 60)}: {exc.reason}"
            ) from None
        except Exception:  # a referee bug on a strange token: the game must still be recorded
            log.exception("the %s referee failed on move %s", state.game.name, codec.quote(reply.move, 60))
            raise _Forfeit(
                seat,
                Termination.ILLEGAL,
                f"illegal move {codec.quote(reply.move, 60)}: not a move the referee can read",
            ) from None
        played[seat] += 1
        if clocks is not None:
            clocks[seat] += tc.inc_ms - elapsed_ms
            if tc.moves and played[seat] % tc.moves == 0:
                clocks[seat] += tc.base_ms or 0  # the next period's time, added to what is left
        if watcher is not None:
            watcher.moved(state, seat, reply, clocks)
        if judge is not None and (ending := judge.after_move(state, seat, reply.info)) is not None:
            if ending.loser is not None:
                raise _Forfeit(ending.loser, ending.code, ending.reason)
            raise _Adjudged(ending)


def _move_limit(tc: TimeControl, clock_ms: int | None) -> float:
    """Seconds an engine gets for a move: the tightest of movetime, its clock and the
    ceiling, plus the margin.  A clock overdrawn within the margin stays overdrawn, so the
    margin is spent once per game, not granted afresh each move to a clock that ran out."""
    allowed_ms = min(t for t in (tc.movetime_ms, clock_ms, MAX_MOVE_MS) if t is not None)
    return max(allowed_ms + tc.margin_ms, 0) / 1000


def longest_game_s(game: Game, tc: TimeControl, specs: Sequence[EngineSpec]) -> float | None:
    """The longest one game can take in the referee's hands, in seconds, with ``specs`` at
    the table (None for a game without a ply bound): every seat's start-up, ``isready`` and
    final ``quit`` at their limits, then every ply at its limit; a GTP engine is also told
    each move with its start-up limit.  The runner's watchdog adds a grace to it."""
    plies = game.max_plies
    if plies is None:
        return None
    starts = [s.handshake_ms / 1000 if s.handshake_ms else HANDSHAKE_TIMEOUT for s in specs]
    seats_s = sum(3 * start + QUIT_GRACE + EXIT_WAIT for start in starts)
    seats_s += sum(plies * start for start, s in zip(starts, specs) if s.protocol == "gtp")
    per_move_ms = min(t for t in (tc.movetime_ms, MAX_MOVE_MS) if t is not None) + tc.margin_ms
    moves_ms = plies * per_move_ms
    if tc.base_ms is not None:  # a seat's moves together take at most its clock, increments and margins
        periods = -(-plies // tc.moves) if tc.moves else 1
        moves_ms = min(moves_ms, len(specs) * (periods * tc.base_ms + plies * (tc.inc_ms + tc.margin_ms)))
    return seats_s + moves_ms / 1000


def _record(
    game: Game,
    state: State,
    names: Sequence[str],
    seed: int,
    engine_seeds: list[int],
    times_ms: list[int],
    ended: _Forfeit | _Adjudged | None,
    later: _Later,
) -> GameRecord:
    """The game's record; ``later`` holds the fields after the result (deal, timing)."""
    if isinstance(ended, _Adjudged):
        scores, places = adjudged_result(state, ended.code)
        result = _Result(
            termination=ended.code,
            reason=ended.reason,
            forfeit_seat=None,
            winner=places.index(0) if places.count(0) == 1 else None,
            scores=scores,
            places=places,
            details={},
        )
    elif (forfeit := ended) is not None:
        scores, places = forfeit_result(state, forfeit.seats)
        who = ", ".join(f"{names[s]} (seat {s})" for s in forfeit.seats)
        result = _Result(
            termination=forfeit.code,
            reason=f"{who}: {forfeit.reason}",
            forfeit_seat=forfeit.seat,
            winner=places.index(0) if places.count(0) == 1 else None,
            scores=scores,
            places=places,
            details={},
        )
    else:
        result = _Result(
            termination=Termination.NORMAL,
            reason=state.end_reason(),
            forfeit_seat=None,
            winner=state.winner(),
            scores=state.scores(),
            places=state.places(),
            details=dict(state.details()),
        )
    return GameRecord(
        game=game.name,
        options=game.options.model_dump(),
        setup=state.setup_token(),
        seed=seed,
        engine_seeds=engine_seeds,
        players=list(names),
        moves=list(state.moves),
        times_ms=list(times_ms),
        **result,
        **later,
    )


def _tell_result(engines: Sequence[Player], record: GameRecord) -> None:
    for engine in engines:
        if engine.alive:
            engine.game_over(record.scores or [], record.reason or "")
