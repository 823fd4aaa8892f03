"""The games in progress, for whoever watches them (``arena serve``): a file per game.

A run's workers cannot reach a web server, and a server started later by another process
cannot reach the run; both can reach the results folder.  So while someone watches, the
worker that plays a game keeps ``live/<id>.jsonl`` in the folder: the game's set-up on its
first line, then a line a move (its time, the clocks, the mover's last ``info`` line),
appended as the game goes, and removed when the game ends; a server reads each file from
where it stopped (:class:`LiveReader`).  Whether someone watches is a file too: a server
with a viewer connected touches ``live/watching`` every second (:func:`touch_watching`); a
worker looks at its time at most every :data:`CHECK_S`.  With nobody watching no file is
written and nothing reaches the coordinator: a move costs the worker a tuple kept and one
clock read.  A file that cannot be written (a full disk) costs the viewers the game, never
the game.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TypedDict

from protocol import codec

from ..engine.player import Reply
from ..rules import State
from ..rules.base import Options

log = logging.getLogger("arena.runner")

LIVE = "live"  # the folder's sub-folder of games in progress
WATCHING = "watching"  # its file whose time says a viewer is connected
FRESH_S = 3.0  # a mark older than this: the viewers left (or their server died)
CHECK_S = 0.5  # how often a worker looks at the mark
SAID_KEEP = 200  # characters of an engine's info line shown
# A worker hands its lines to the file at most this often: quick engines' moves go out together
# (a write a move would cost them more than the move), a slow engine's within this delay.
FLUSH_S = 0.05


class LiveHead(TypedDict):
    """The first line of ``live/<id>.jsonl``: the game as it starts (the deal stays with the server)."""

    id: int
    round: int
    players: list[str]
    game: str
    options: Options
    setup: str | None
    seed: int
    deal: int
    opening: list[str]  # a book's moves, played before the engines took over (untimed)
    to_move: int
    at: float  # when it started (Unix time)


class LiveMove(TypedDict):
    """Every later line: one move, as the referee took it."""

    move: str
    seat: int
    ms: int  # its time
    clocks: list[int] | None  # every seat's time left after it
    said: str | None  # the mover's last info line
    to_move: int | None  # the seat thinking now; None once the game is over
    at: float  # when it was played (Unix time): the clock of ``to_move`` runs from it


def live_folder(folder: Path) -> Path:
    return folder / LIVE


def touch_watching(live: Path) -> None:
    """Tell the run that someone watches (again, every second while they do)."""
    live.mkdir(parents=True, exist_ok=True)
    (live / WATCHING).touch()


class WatchMark:
    """Whether someone watches the games of ``live`` now, looked at every CHECK_S at most."""

    def __init__(self, live: Path) -> None:
        self.mark = live / WATCHING
        self.due = 0.0
        self.watched = False

    def __call__(self) -> bool:
        now = time.monotonic()
        if now >= self.due:
            self.due = now + CHECK_S
            try:
                self.watched = time.time() - self.mark.stat().st_mtime < FRESH_S
            except OSError:
                self.watched = False
        return self.watched


Played = tuple[str, int, int, list[int] | None, str | None, int | None, float]  # a LiveMove's values, as they came


class LiveWriter:
    """A :class:`~arena.match.Watcher` of one game: its file, kept while someone watches.

    The file is JSON Lines, the game's head then a line a move, so a move costs one short
    append (a file rewritten whole and renamed costs a disk's journal a commit a move). A
    worker keeps each move in memory as it comes (a tuple), and writes the lines the file
    lacks when someone watches: all of them when a viewer comes mid-game."""

    def __init__(self, live: Path, watched: WatchMark, game_id: int, round_: int, players: Sequence[str]) -> None:
        self.path = live / f"{game_id}.jsonl"
        self.watched = watched
        self.head: dict[str, object] = {"id": game_id, "round": round_, "players": list(players)}
        self.moves: list[Played] = []
        self.file: IO[str] | None = None
        self.lines = 0  # moves the file holds
        self.flushed = 0.0  # when the lines last went to the file (monotonic)
        self.later: threading.Timer | None = None  # the flush of the lines held back, if any
        self.broken = False

    def begin(self, state: State, seed: int, deal: int) -> None:
        game = state.game
        self.head |= {"game": game.name, "options": game.options.model_dump(), "setup": state.setup_token()}
        self.head |= {"seed": seed, "deal": deal, "opening": list(state.moves)}
        self.head |= {"to_move": state.current_player(), "at": time.time()}
        self._show()

    def moved(self, state: State, seat: int, reply: Reply, clocks_ms: Sequence[int] | None) -> None:
        # Kept as it came: made into text only if someone watches (_line).
        clocks = None if clocks_ms is None else list(clocks_ms)
        to_move = None if state.is_terminal() else state.current_player()
        self.moves.append(
            (state.moves[-1], seat, round(reply.elapsed * 1000), clocks, reply.said, to_move, time.time())
        )
        self._show()

    def _show(self) -> None:
        if self.broken or not self.watched():
            return
        try:
            if self.file is None:
                self.file = open(self.path, "w", encoding="utf-8")
                self.file.write(json.dumps(self.head, separators=(",", ":")) + "\n")
            self.file.write("".join([_line(move) for move in self.moves[self.lines :]]))
            if time.monotonic() - self.flushed >= FLUSH_S:
                self._flush()
            elif self.later is None or not self.later.is_alive():
                self.later = threading.Timer(FLUSH_S, self._flush)
                self.later.daemon = True
                self.later.start()
        except OSError as exc:
            self.broken = True  # the viewers lose this game; the game goes on
            log.warning("cannot show game %s live (%s)", self.head["id"], exc)
            return
        self.lines = len(self.moves)

    def _flush(self) -> None:
        """The lines held back to the file (from the timer's thread too; the file's own lock
        orders it with the worker's writes)."""
        self.flushed = time.monotonic()
        try:
            if self.file is not None:
                self.file.flush()
        except (OSError, ValueError):  # a full disk, or the game ended meanwhile and closed it
            pass

    def end(self) -> None:
        """The game is over (stored, forfeited or failed): its file goes."""
        if self.later is not None:
            self.later.cancel()
        if self.file is not None:
            try:
                self.file.close()
                self.path.unlink(missing_ok=True)
            except OSError:
                pass
            self.file = None


def _line(move: Played) -> str:
    """A move's line, the JSON of a :class:`LiveMove` written out by hand: ``json.dumps`` of
    the dict costs several times this, paid on every move while someone watches."""
    token, seat, ms, clocks, said, to_move, at = move
    shown_clocks = "null" if clocks is None else f"[{','.join(str(max(c, 0)) for c in clocks)}]"
    shown_said = "null" if said is None else json.dumps(codec.sanitize(said, SAID_KEEP))
    shown_to_move = "null" if to_move is None else str(to_move)
    return (
        f'{{"move":{json.dumps(token)},"seat":{seat},"ms":{ms},"clocks":{shown_clocks},'
        f'"said":{shown_said},"to_move":{shown_to_move},"at":{at!r}}}\n'
    )


def clear_live(live: Path) -> None:
    """Forget the games in progress a run left (a killed worker's, a stopped run's): at a
    run's start and end, when none of its games is being played."""
    for path in read_live_games(live).values():
        try:
            path[1].unlink(missing_ok=True)
        except OSError:
            pass


def read_live_games(live: Path) -> dict[int, tuple[float, Path]]:
    """The game files of ``live`` now: each game's id, its file's time and path."""
    found: dict[int, tuple[float, Path]] = {}
    try:
        entries = list(os.scandir(live))
    except OSError:
        return found
    for entry in entries:
        stem, dot, ext = entry.name.partition(".")
        if ext == "jsonl" and dot and stem.isdigit():
            try:
                found[int(stem)] = (entry.stat().st_mtime, Path(entry.path))
            except OSError:
                continue  # it ended between the listing and the look
    return found


class LiveReader:
    """One game's file as a server follows it: the lines appended since its last look."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.inode: int | None = None
        self.offset = 0
        self.partial = b""  # a line being written
        self.head: LiveHead | None = None
        self.moves: list[LiveMove] = []

    def update(self) -> bool:
        """Read what was appended (all of it again if the file is another); True if a line came.
        Raises OSError if the file went, ValueError if a line is not the JSON a worker writes."""
        with open(self.path, "rb") as file:
            found = os.fstat(file.fileno())
            if found.st_ino != self.inode or found.st_size < self.offset:
                self.inode, self.offset, self.partial, self.head, self.moves = found.st_ino, 0, b"", None, []
            file.seek(self.offset)
            data = file.read()
        self.offset += len(data)
        buffer = self.partial + data
        end = buffer.rfind(b"\n") + 1
        self.partial = buffer[end:]
        lines = buffer[:end].splitlines()
        for line in lines:
            if self.head is None:
                self.head = json.loads(line)
            else:
                self.moves.append(json.loads(line))
        return bool(lines)
