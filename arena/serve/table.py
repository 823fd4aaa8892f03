"""One person's game against engines: played by the match in a thread, stored in a folder.

A :class:`Table` seats a :class:`~arena.serve.human.HumanPlayer` and the engines, plays
the game with :func:`arena.match.play_game` (the referee judges every move, the
match's clocks time every seat) and stores the record through the results store in a
folder of its own, with settings that make it a one-game tournament: ``arena verify``,
``arena results``, the report and ``arena export`` read it as any other folder, the person
named as they chose.  The page sees the game through :meth:`Table.view`: the board, the
moves, the clocks, the legal moves on the person's turn and what only the person's seat
may know, never another seat's secret.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypedDict

from ..engine import Conversation, open_engine
from ..engine.player import EngineFault, EngineSpec, Player, Reply, TimeLimit
from ..match import TimeControl, forfeit_before_start, play_game
from ..record import GameRecord, record_start
from ..results.fingerprint import StoredSettings
from ..results.slots import Slot, settings_slots
from ..results.store import GameStore
from ..rules import Game, IllegalMove, State
from ..rules.base import JsonValue
from ..rules.picture import BoardPicture
from ..tournament.series import result_text
from .human import RESIGN, HumanPlayer

log = logging.getLogger("arena.serve")


class ClockView(TypedDict):
    """The clocks as the match last set them, and how long the seat to move has thought."""

    left_ms: list[int] | None
    movetime_ms: int | None
    thinking_ms: int
    seat: int


class TableView(TypedDict, total=False):
    """The game as the person's page shows it (JSON data): what is known so far."""

    version: int
    players: list[str]
    seat: int
    private: list[str]  # what only the person's seat knows
    folder: str
    moves: list[str]
    movers: list[int | None]  # the seat asked for each move (None: a book's)
    cells: list[str] | None
    last: list[int]
    colours: list[str]
    status: str
    to_move: int | None
    legal: list[list[Any]]  # each legal move and the cells a click names
    clock: ClockView
    result: str
    marks: dict[str, list[int]]
    reveal: str
    problem: str


class Watched:
    """A seat's player, telling its table whenever it is asked for a move."""

    def __init__(self, player: Player, table: Table) -> None:
        self.player = player
        self.table = table

    @property
    def name(self) -> str:
        return self.player.name

    @property
    def alive(self) -> bool:
        return self.player.alive

    def start(self) -> None:
        self.player.start()

    def new_game(self, game: Game, seat: int, seed: int, private: Sequence[str]) -> None:
        self.player.new_game(game, seat, seed, private)

    def choose_move(self, state: State, limit: TimeLimit) -> Reply:
        self.table.turn(state, limit)
        return self.player.choose_move(state, limit)

    def longest_s(self, limit: TimeLimit | None) -> float:
        return self.player.longest_s(limit)

    def verify_result(self, state: State) -> None:
        self.player.verify_result(state)

    def game_over(self, scores: Sequence[float], reason: str) -> None:
        self.player.game_over(scores, reason)

    def quit(self) -> None:
        self.player.quit()

    def kill(self) -> None:
        self.player.kill()


@dataclass(frozen=True)
class Seating:
    """What the setup page chose: the game, each seat's engine (None: the person's seat),
    the person's name, the time control and the master seed."""

    game: Game
    engines: tuple[EngineSpec | None, ...]
    person: str
    time_control: TimeControl
    seed: int

    @property
    def seat(self) -> int:
        return self.engines.index(None)

    def names(self) -> list[str]:
        names = [self.person if spec is None else spec.name for spec in self.engines]
        return [f"{name}-{seat}" if names.count(name) > 1 else name for seat, name in enumerate(names)]


class Table:
    """A game in progress (or finished) between a person and engines."""

    def __init__(self, seating: Seating, folder: Path) -> None:
        self.seating = seating
        self.folder = folder
        self.picture: BoardPicture = seating.game.picture()
        self.human = HumanPlayer(self.seating.names()[seating.seat])
        self.version = 0
        self.changed = threading.Condition()
        self.state: State | None = None  # the referee's position when a seat was last asked
        self.limit: TimeLimit | None = None
        self.turn_started = time.monotonic()
        self.record: GameRecord | None = None
        self.problem = ""  # why the game could not be stored, if it could not
        self._offered = -1  # the version the person's last move was offered at
        self.movers: dict[int, int] = {}  # ply -> the seat asked for it
        self._thread = threading.Thread(target=self._run, name=f"table {folder.name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    # -- what the match tells ---------------------------------------------------

    def turn(self, state: State, limit: TimeLimit) -> None:
        """A seat is asked for a move in ``state`` (the referee's: it never leaves here)."""
        with self.changed:
            self.state, self.limit, self.turn_started = state.clone(), limit, time.monotonic()
            self.movers[len(state.moves)] = state.current_player()
            self._bump()

    def _bump(self) -> None:
        self.version += 1
        self.changed.notify_all()

    # -- the person's moves -----------------------------------------------------

    def offer(self, move: str) -> str | None:
        """Pass the person's move to the match, or say why it cannot be played: not their
        turn, or the referee's reason for refusing it (checked on a copy first, so that a
        mistaken click costs no game; the match's referee judges it again)."""
        with self.changed:
            state = self.state
            if self.record is not None or state is None or state.current_player() != self.seating.seat:
                return "it is not your turn"
            if self._offered == self.version:
                return "your move is on its way"
            try:
                state.clone().play(move)
            except IllegalMove as exc:
                return exc.reason
            self.human.moves.put(move)
            self._offered = self.version
        return None

    def resign(self) -> None:
        self.human.moves.put(RESIGN)

    # -- the game ---------------------------------------------------------------

    def _run(self) -> None:
        """Play and store the game; a failure of arena's own is told to the page, not lost
        in a thread (an engine's faults are the game's, recorded by the match)."""
        try:
            self._play()
        except Exception as exc:
            log.exception("the game in %s stopped", self.folder)
            with self.changed:
                self.problem = f"the game stopped: {type(exc).__name__}: {exc}"
                self._bump()

    def _play(self) -> None:
        seating, names = self.seating, self.seating.names()
        engines: list[Conversation] = []
        slot = self._slot()
        try:
            players: list[Player] = []
            for seat, spec in enumerate(seating.engines):
                if spec is None:
                    players.append(Watched(self.human, self))
                    continue
                engine = open_engine(spec, game=seating.game.name, board=seating.game)
                engines.append(engine)
                try:
                    engine.start()
                except EngineFault as fault:
                    record = forfeit_before_start(seating.game, slot.seed, names, seat, fault.code, fault.reason)
                    break
                players.append(Watched(engine, self))
            else:
                result = play_game(
                    seating.game, players, seed=slot.seed, time_control=seating.time_control, names=names
                )
                record = result.record
        finally:
            for engine in engines:
                engine.quit()
        self._store(record.replace(id=slot.index, round=slot.round, tournament=self.folder.name))

    def _slot(self) -> Slot:
        """The game's place in its folder's one-table schedule: the seat order played."""
        settings = self.settings()
        slots = settings_slots(settings, self.seating.game.players)
        return next(s for s in slots if list(s.seats) == self.seating.names())

    def settings(self) -> StoredSettings:
        """The folder's settings: a one-game tournament of these seats, the person's entry
        saying who they are instead of a command."""
        seating = self.seating
        engines: list[dict[str, JsonValue]] = []
        for name, spec in zip(seating.names(), seating.engines):
            if spec is None:
                engines.append({"name": name, "person": True})
            else:
                options: dict[str, JsonValue] = dict(spec.options)
                engines.append(
                    {"name": name, "command": list(spec.command), "options": options, "protocol": spec.protocol}
                )
        tc = {key: value for key, value in asdict(seating.time_control).items() if value is not None}
        return {
            "name": self.folder.name,
            "game": seating.game.name,
            "options": seating.game.options.model_dump(mode="json"),
            "engines": engines,
            "format": "round-robin",
            "rounds": 1,
            "seed": seating.seed,
            "time_control": tc,
        }

    def _store(self, record: GameRecord) -> None:
        try:
            with GameStore(self.folder) as store:
                store.open(self.settings())
                store.add(record)
        except OSError as exc:
            self.problem = f"the game could not be stored in {self.folder} ({exc})"
        with self.changed:
            self.record = record
            self._bump()

    # -- what the page sees -----------------------------------------------------

    def view(self) -> TableView:
        """The game as the person's page shows it (JSON data): nothing another seat hides."""
        with self.changed:
            seating, record = self.seating, self.record
            state = self._final_state() if record is not None else self.state
            names = seating.names()
            view: TableView = {
                "version": self.version,
                "players": names,
                "seat": seating.seat,
                "private": self.human.private,
                "folder": str(self.folder),
            }
            if self.problem and record is None:
                return {**view, "moves": [], "cells": None, "to_move": None, "legal": [], "result": self.problem}
            if state is None:
                return {**view, "moves": [], "cells": None, "to_move": None, "legal": [], "status": "starting"}
            codes = self.picture.codes
            view["moves"] = list(state.moves)
            view["movers"] = [self.movers.get(ply) for ply in range(len(state.moves))]
            view["cells"] = [codes[value] for value in state.cells]
            view["last"] = self.picture.move_cells(state.moves[-1]) if state.moves else []
            view["colours"] = state.seat_colours()
            view["status"] = state.status(names)
            if record is not None:
                ending = state.ending(names) if state.is_terminal() else None
                view["result"] = result_text(record)
                view["marks"] = dict(ending.marks) if ending else {}
                view["reveal"] = ending.reveal if ending else ""
                view["problem"] = self.problem
                view["to_move"] = None
                view["legal"] = []
                return view
            to_move = state.current_player()
            view["to_move"] = to_move
            view["legal"] = self._legal(state) if to_move == seating.seat else []
            view["clock"] = self._clock(to_move)
            return view

    def _final_state(self) -> State:
        """The last position, replayed from the record (the match's own is not kept)."""
        record = self.record
        assert record is not None
        state = record_start(self.seating.game, record)
        for move in record.moves or []:
            state.play(move)
        return state

    def _legal(self, state: State) -> list[list[Any]]:
        """Each legal move with the cells a click names, in the order they are clicked."""
        return [[move, self.picture.move_cells(move)] for move in state.legal_moves()]

    def _clock(self, to_move: int) -> ClockView:
        """The clocks as the match last set them, and how long the seat to move has thought."""
        limit = self.limit
        assert limit is not None
        return {
            "left_ms": list(limit.clocks_ms) if limit.clocks_ms is not None else None,
            "movetime_ms": limit.movetime_ms,
            "thinking_ms": round((time.monotonic() - self.turn_started) * 1000),
            "seat": to_move,
        }


def attempted(cells: Sequence[str], legal: Sequence[str], picture: BoardPicture) -> str | None:
    """The move token a sequence of clicked cells stands for, written as the legal moves of
    as many cells write theirs (``a1-b2``, ``a1,b2``): what the referee is asked about when
    the clicks are no legal move, so its reason answers the click.  None when no legal move
    names as many cells (a piece not yet moved, say): no move of the game is so clicked."""
    for move in legal:
        if len(picture.move_cells(move)) == len(cells):
            parts = re.split(r"([-,/])", move)
            named = iter(cells)
            return "".join(next(named, part) if picture.board.lookup(part) is not None else part for part in parts)
    return None
