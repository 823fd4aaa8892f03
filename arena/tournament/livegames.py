"""The games in progress, for whoever watches them (``arena serve``): a file per game.

A run's workers cannot reach a web server, and a server started later by another process
cannot reach the run; both can reach the results folder.  So while someone watches, the
worker that plays a game keeps ``live/<id>.jsonl`` in the folder: the game's set-up on its
first line, then a line a move (its time, the clocks, the mover's last ``info`` line),
appended as the game goes, and removed when the game ends; a server reads each file from
where it stopped (:class:`LiveReader`).  A game's file is made only once the game has lasted
FLUSH_S while watched: a game of quick engines that ends sooner (an instant engine's takes a
few milliseconds) goes straight to the store and the standings, and costs the worker no file.
Whether someone watches is a file too: a server with a viewer connected touches
``live/watching`` every second (:func:`touch_watching`); a worker looks at its time at most
every :data:`CHECK_S`.  With nobody watching no file is written and nothing reaches the
coordinator: a move costs the worker a tuple kept and one clock read.  A file that cannot be
written (a full disk) costs the viewers the game, never the game.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii as quote
from pathlib import Path
from typing import IO, NotRequired, Protocol, TypedDict

from protocol import codec

from ..engine.player import Reply
from ..rules import State
from ..rules.base import Options

log = logging.getLogger("arena.runner")

LIVE = "live"  # the folder's sub-folder of games in progress
WATCHING = "watching"  # its file whose time says a viewer is connected
MARK_S = 1.0  # how often a server with a viewer renews the mark (and a cluster's coordinator tells its workers)
FRESH_S = 3.0  # a mark older than this: the viewers left (or their server died)
CHECK_S = 0.5  # how often a worker looks at the mark
SAID_KEEP = 200  # characters of an engine's info line shown
# A worker hands its lines to the file at most this often: quick engines' moves go out together
# (a write a move would cost them more than the move), a slow engine's at once.  A game is
# first shown once it has lasted this long: one that ends sooner is not worth a file.
FLUSH_S = 0.05
# How often the held lines' thread looks for lines a move left waiting (the engine to move is
# thinking long), while this process plays a watched game: the worker writes its lines itself
# when it takes a move, so the thread only catches what no later move would send soon.
TICK_S = 0.1
# The thread goes on ticking this long after the last watched game ended, so that back-to-back
# games (an instant engine's) do not wake it one each.
LINGER_S = 1.0


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
    opening_setup: NotRequired[bool]  # true: the board was a book's, not the one the seed deals
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


class LiveSink(Protocol):
    """Where one game's lines go while someone watches: its file (:class:`FileSink`), or a
    cluster's channel to the coordinator (:class:`MessageSink`)."""

    def write(self, text: str) -> None:
        """Lines to add (the game's head first); may hold them until ``flush``; raises OSError."""

    def flush(self) -> None:
        """What was written, out now."""

    def close(self) -> None:
        """The game is over: its file goes."""


class FileSink:
    """A game's lines into ``live/<id>.jsonl``, made at the first write."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file: IO[str] | None = None

    def write(self, text: str) -> None:
        if self.file is None:
            self.file = open(self.path, "w", encoding="utf-8")
        self.file.write(text)

    def flush(self) -> None:
        try:
            if self.file is not None:
                self.file.flush()
        except (OSError, ValueError):  # a full disk, or the game ended meanwhile and closed it
            pass

    def close(self) -> None:
        if self.file is not None:
            try:
                self.file.close()
                self.path.unlink(missing_ok=True)
            except OSError:
                pass
            self.file = None


class LiveMessage(TypedDict, total=False):
    """What a :class:`MessageSink` sends: a game's new lines, or that it is over."""

    id: int
    lines: str
    end: bool


class MessageSink:
    """A game's lines as messages, ``send``'s (a Dask worker's event to the coordinator,
    where :class:`LiveRelay` writes them into the folder): one a flush, and one at the end."""

    def __init__(self, send: Callable[[LiveMessage], None], game_id: int) -> None:
        self.send, self.game_id = send, game_id
        self.held: list[str] = []
        self.lock = threading.Lock()  # the worker's writes and the HeldLines thread's flushes
        self.sent = False

    def write(self, text: str) -> None:
        with self.lock:
            self.held.append(text)

    def flush(self) -> None:
        with self.lock:
            text, self.held = "".join(self.held), []
            if text:
                self.sent = True
                self._send({"id": self.game_id, "lines": text})

    def close(self) -> None:
        self.flush()
        with self.lock:
            if self.sent:
                self._send({"id": self.game_id, "end": True})

    def _send(self, message: LiveMessage) -> None:
        try:
            self.send(message)
        except Exception as exc:  # a worker leaving its cluster: the viewers lose the game, never the game
            log.warning("cannot show game %s live (%s)", self.game_id, exc)


class LiveRelay:
    """The coordinator's end of a cluster's channel: each :class:`LiveMessage` written into
    ``live/``, the very files a local run's workers write, so every server reads them alike."""

    def __init__(self, live: Path) -> None:
        self.live = live
        self.games: dict[int, FileSink] = {}
        self.lock = threading.Lock()

    def take(self, message: LiveMessage) -> None:
        with self.lock:
            game_id = message["id"]
            try:
                if message.get("end"):
                    sink = self.games.pop(game_id, None)
                    if sink is not None:
                        sink.close()
                    return
                if game_id not in self.games:
                    self.live.mkdir(parents=True, exist_ok=True)
                    self.games[game_id] = FileSink(self.live / f"{game_id}.jsonl")
                self.games[game_id].write(message["lines"])
                self.games[game_id].flush()
            except OSError as exc:  # a full disk costs the viewers the game
                log.warning("cannot show game %s live (%s)", game_id, exc)

    def close(self) -> None:
        with self.lock:
            for sink in self.games.values():
                sink.close()
            self.games.clear()


@dataclass(frozen=True)
class LiveChannel:
    """How a worker's games reach the viewers: whether someone watches now (asked every move,
    so cheap), and each game's sink."""

    watched: Callable[[], bool]
    sink: Callable[[int], LiveSink]  # a game's, by its id

    def writer(self, game_id: int, round_: int, players: Sequence[str]) -> LiveWriter:
        return LiveWriter(self.sink(game_id), self.watched, game_id, round_, players)


def folder_channel(live: Path) -> LiveChannel:
    """A local run's channel: the files of ``live``, kept while its watching mark is fresh."""
    return LiveChannel(WatchMark(live), lambda game_id: FileSink(live / f"{game_id}.jsonl"))


class LiveWriter:
    """A :class:`~arena.match.Watcher` of one game: its lines, kept while someone watches.

    The lines are JSON Lines, the game's head then a line a move, so a move costs one short
    append (a file rewritten whole and renamed costs a disk's journal a commit a move). A
    worker keeps each move in memory as it comes (a tuple), and makes the lines the sink lacks
    only when they go out: with the move that comes FLUSH_S or more after the last went out (or
    after the game began: a game over sooner never reaches its sink, which so never makes a
    file for it), so a quick engine's moves go out together and a held move costs the worker a
    clock read.  The process's :class:`HeldLines` thread, which looks every TICK_S while a
    watched game is in play, sends what a move left waiting when no later move comes in time,
    so a quick engine's batches cost no wake of it (docs/performance.md, "Watching: the worker
    writes its own lines")."""

    def __init__(
        self, sink: LiveSink, watched: Callable[[], bool], game_id: int, round_: int, players: Sequence[str]
    ) -> None:
        self.sink = sink
        self.watched = watched
        self.head: dict[str, object] = {"id": game_id, "round": round_, "players": list(players)}
        self.moves: list[Played] = []
        self.started = False  # the head is written
        self.lines = 0  # moves written
        self.flushed = 0.0  # when the lines last went out, or the game began (monotonic)
        self.registered = False  # the HeldLines thread looks at this writer
        self.lock = threading.Lock()  # the worker's write-outs and the HeldLines thread's
        self.over = False
        self.broken = False

    def begin(self, state: State, seed: int, deal: int, opening_setup: bool = False) -> None:
        game = state.game
        self.head |= {"game": game.name, "options": game.options.model_dump(), "setup": state.setup_token()}
        self.head |= {"seed": seed, "deal": deal, "opening": list(state.moves)}
        if opening_setup:
            self.head["opening_setup"] = True
        self.head |= {"to_move": state.current_player(), "at": time.time()}
        self.flushed = time.monotonic()  # shown once it has lasted FLUSH_S
        self._show()

    def moved(self, state: State, seat: int, reply: Reply, clocks_ms: Sequence[int] | None) -> None:
        # Kept as it came: made into text only when it goes out to a viewer (_line).
        clocks = None if clocks_ms is None else list(clocks_ms)
        to_move = None if state.is_terminal() else state.current_player()
        ms = round(reply.elapsed * 1000)
        self.moves.append((state.moves[-1], seat, ms, clocks, reply.said, to_move, time.time()))
        self._show()

    def _show(self) -> None:
        if self.broken or not self.watched():
            return
        if not self.registered:
            self.registered = True
            held_lines().hold(self)
        if time.monotonic() - self.flushed >= FLUSH_S:
            self._flush()

    def due(self, now: float) -> bool:
        """Lines are waiting (or the head), and the last went out FLUSH_S ago or more."""
        if self.over or self.broken:
            return False
        return (not self.started or self.lines < len(self.moves)) and now - self.flushed >= FLUSH_S

    def _flush(self) -> None:
        """The lines the sink lacks, made and sent out now (from the HeldLines thread too)."""
        with self.lock:
            if self.over or self.broken:
                return
            self.flushed = time.monotonic()
            count = len(self.moves)  # the worker may append meanwhile: those go out next time
            try:
                if not self.started:
                    self.sink.write(json.dumps(self.head, separators=(",", ":")) + "\n")
                    self.started = True
                self.sink.write("".join([_line(move) for move in self.moves[self.lines : count]]))
                self.sink.flush()
            except OSError as exc:
                self.broken = True  # the viewers lose this game; the game goes on
                log.warning("cannot show game %s live (%s)", self.head["id"], exc)
                return
            except Exception:  # a bug's, in the worker's thread or the held lines': never worth the game
                self.broken = True  # and said once, not at every look
                log.exception("cannot show game %s live", self.head["id"])
                return
            self.lines = count

    def end(self) -> None:
        """The game is over (stored, forfeited or failed): its file goes, the lines still held
        with it (nobody would read them)."""
        with self.lock:
            self.over = True
            self.sink.close()
        if self.registered:
            held_lines().release(self)


class HeldLines(threading.Thread):
    """The one thread of a worker process that sends its games' lines a move left waiting,
    looking every TICK_S while a watched game is in play (and LINGER_S after the last), asleep
    otherwise.  A timer a game started a thread a game, which cost an instant engine's game
    about 0.15 ms of the worker's CPU (3 us a move); this one wakes at most every TICK_S, and
    once for the first watched game after a pause."""

    def __init__(self) -> None:
        super().__init__(name="arena-live-lines", daemon=True)
        self.writers: set[LiveWriter] = set()
        self.ready = threading.Condition()
        self.asleep = True  # waiting for a writer, not ticking
        self.pid = os.getpid()

    def hold(self, writer: LiveWriter) -> None:
        with self.ready:
            self.writers.add(writer)
            if self.asleep:
                self.asleep = False
                self.ready.notify()

    def release(self, writer: LiveWriter) -> None:
        with self.ready:
            self.writers.discard(writer)

    def run(self) -> None:
        idle_since: float | None = None
        while True:
            with self.ready:
                while self.asleep:
                    self.ready.wait()
            time.sleep(TICK_S)
            now = time.monotonic()
            with self.ready:
                writers = [writer for writer in self.writers if writer.due(now)]
                if self.writers:
                    idle_since = None
                elif idle_since is None:
                    idle_since = now
                elif now - idle_since >= LINGER_S:
                    self.asleep, idle_since = True, None
            for writer in writers:
                writer._flush()  # never raises: a failure breaks that game's lines only


_held_lines: HeldLines | None = None
_held_lines_made = threading.Lock()


def held_lines() -> HeldLines:
    """This process's :class:`HeldLines` thread, started on first use (again in a forked child,
    which has none of its parent's threads)."""
    global _held_lines
    with _held_lines_made:
        if _held_lines is None or _held_lines.pid != os.getpid():
            _held_lines = HeldLines()
            _held_lines.start()
        return _held_lines


def _line(move: Played) -> str:
    """A move's line, the JSON of a :class:`LiveMove` written out by hand: ``json.dumps`` of
    the dict costs several times this, paid on every move while someone watches.  Strings go
    through json's own escaping (its C function, the one ``json.dumps`` calls)."""
    token, seat, ms, clocks, said, to_move, at = move
    shown_clocks = "null" if clocks is None else f"[{','.join([str(c) if c > 0 else '0' for c in clocks])}]"
    shown_said = "null" if said is None else quote(codec.sanitize(said, SAID_KEEP))
    shown_to_move = "null" if to_move is None else str(to_move)
    return (
        f'{{"move":{quote(token)},"seat":{seat},"ms":{ms},"clocks":{shown_clocks},'
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
        if ext == "jsonl" and dot and stem.isascii() and stem.isdigit():  # "²".isdigit(), but int() refuses it
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
        if not lines:
            return False
        # One parse of them all as a JSON array: a third of a parse a line, paid on every move.
        parsed = json.loads(b"[" + b",".join(lines) + b"]")
        if self.head is None:
            self.head = parsed.pop(0)
        self.moves += parsed
        return True
