"""Where finished games live: an SQLite database plus a JSON Lines mirror.

The database is the source of truth.  Each game is committed in its own
transaction the moment it arrives, so a killed run loses nothing it finished;
beside it goes the game's *checked mark* (the digest of its text, see :func:`check_mark`),
which says that this text came from the referee or agreed with a replay, so that a
resume or a reader replays only the records that changed since (arena/results/admit.py);
``games.jsonl`` is rewritten from the database when a run (re)starts and then
appended to, so it never holds a duplicate, and made whole when a run is interrupted
between a commit and its lines.  An exclusive lock file keeps a
second runner away from the same output folder.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import gc
import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, TypeVar

from pydantic import ValidationError

from ..record import GameRecord
from . import strictjson
from .fingerprint import changes, fingerprint
from .verify import InvalidRecord, parse_record

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY,      -- index in the schedule
    round       INTEGER NOT NULL,
    players     TEXT NOT NULL,            -- JSON list of engine names by seat
    termination TEXT NOT NULL,
    winner      INTEGER,
    record      TEXT NOT NULL             -- the full JSON record
);
CREATE TABLE IF NOT EXISTS checked (
    id          INTEGER PRIMARY KEY,      -- a game's id
    mark        TEXT NOT NULL             -- check_mark() of its record's text when it was checked
);
"""


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector held off while a folder's records are read and tallied.
    A record is a few dozen containers that are never part of a cycle, and a folder of
    100,000 games holds millions of them: each of the collector's full passes (about a
    dozen while such a folder is read) walks every one, which cost as much CPU as reading
    them (half of reading the 100,000-game folder of benchmarks/big_folder.py).  Reference
    counting frees everything as usual meanwhile; a cycle made meanwhile waits for the
    collector's next pass after.  Nested or in threads, the collector is on again once the
    outermost pause that turned it off ends."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        # What the pause made joins the oldest generation without a pass over it (freeze,
        # then unfreeze, moves every object there): else the collector's next pass, of the
        # youngest generation, would walk all of it at once.  Not while someone else's
        # objects are frozen (a pool about to fork): unfreezing would take theirs back too.
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        gc.enable()


class StorageError(Exception):
    """The output folder cannot be used (locked, or holds a different tournament)."""


def decode_meta(folder: Path, key: str, text: str | None, default: Any = None) -> Any:
    """A JSON value of the folder's meta table; a damaged one is named with the way out."""
    if text is None:
        return default
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise StorageError(
            f"{Path(folder).resolve() / 'arena.db'}: its stored {key!r} is damaged; "
            f"start a new folder with --out, or remove the folder to play the tournament again"
        ) from None


# The keys every record arena stored has (written by arena/match.py and the runner); the
# readers (standings, Elo, statistics, exports, the site) rely on them.
STORED_KEYS = (
    "id",
    "round",
    "game",
    "options",
    "players",
    "moves",
    "times_ms",
    "termination",
    "reason",
    "forfeit_seat",
    "winner",
    "scores",
    "places",
    "engine_seeds",
)


def _record_problem(data: Any, game_id: object) -> tuple[GameRecord | None, str | None]:
    """A decoded stored record, or what is wrong with it in a few words."""
    if not isinstance(data, dict):
        return None, "not a JSON object"
    missing = [key for key in STORED_KEYS if key not in data]
    if missing:
        return None, f"keys missing: {', '.join(missing)}"
    try:
        record = parse_record(data)
    except InvalidRecord as exc:
        return None, "; ".join(exc.problems[:3])
    problem = _seats_problem(record)
    if problem is None and record.id != game_id:
        problem = f"its id is {record.id}, not {game_id}"
    return record, problem


def _seats_problem(record: GameRecord) -> str | None:
    """What a stored record says that does not fit its own seats and moves."""
    players, scores, places = record.players or [], record.scores or [], record.places or []
    seats = len(players)
    if not seats:
        return "'players' names no engine"
    if record.id is None or record.id < 0:
        return f"'id' is {record.id}, not a game number"
    times = record.times_ms or []
    if times and min(times) < 0:  # min() first: the index is looked for only in a damaged record
        bad = next(k for k, t in enumerate(times) if t < 0)
        return f"'times_ms.{bad}': a time is a non-negative number of milliseconds (got {times[bad]})"
    for key, values in (("scores", scores), ("places", places)):
        if len(values) != seats:
            return f"{key!r} has {len(values)} entries for {seats} players"
    if record.engine_seeds and len(record.engine_seeds) != seats:
        return f"'engine_seeds' has {len(record.engine_seeds)} entries for {seats} players"
    if places and not 0 <= min(places) <= max(places) < seats:
        return f"'places' holds a place outside 0..{seats - 1}"
    for key, seat in (("winner", record.winner), ("forfeit_seat", record.forfeit_seat)):
        if seat is not None and not 0 <= seat < seats:
            return f"{key!r} is seat {seat} of a game with {seats} players"
    if (record.opening_plies or 0) > len(record.moves):
        return f"'opening_plies' is {record.opening_plies} of {len(record.moves)} moves"
    return None


def is_damaged(exc: sqlite3.Error) -> bool:
    """A database file that is corrupt, not a database at all, or holds text that is not
    UTF-8 (not a full or read-only disk)."""
    name = getattr(exc, "sqlite_errorname", "")
    return name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or any(
        text in str(exc) for text in ("malformed", "not a database", "Could not decode")
    )


def failure_text(folder: Path, exc: OSError | sqlite3.Error) -> str:
    """What to tell the user when the results cannot be written or read."""
    if isinstance(exc, sqlite3.Error) and is_damaged(exc):
        return (
            f"{folder / 'arena.db'}: the database is damaged ({exc}). Move it away and run again to "
            f"start over (games.jsonl beside it has a copy of every finished game), or try "
            f"'sqlite3 arena.db .recover'."
        )
    return (
        f"{folder}: cannot write the results ({exc}). Check that the output folder is writable and "
        f"the disk has room, or choose another with --out."
    )


def read_record(db_path: Path, game_id: object, data: bytes | str) -> GameRecord:
    """A stored record, checked: a damaged one (not UTF-8, not JSON, a missing key or a
    value of the wrong type) names its game and how to recover."""
    record = _sound_record(game_id, data)
    if record is not None:
        return record
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        record, problem = _record_problem(json.loads(text), game_id)
    except UnicodeDecodeError as exc:
        problem = f"not UTF-8 text: {exc.reason} at byte {exc.start}"
    except (ValueError, RecursionError) as exc:
        problem = f"not valid JSON: {str(exc)[:80]}"
    if record is None or problem is not None:
        raise StorageError(
            f"{db_path}: game {game_id}: the stored record is damaged ({problem}). To have that "
            f'game played again, delete it (sqlite3 {db_path} "DELETE FROM games WHERE '
            f'id = {game_id}") and run the same command.'
        )
    return record


def _sound_record(game_id: object, data: bytes | str) -> GameRecord | None:
    """A sound record read in one pass of pydantic's own JSON reader, or None when anything
    is wrong with it (read_record's slower path then says what).  The same checks as that
    path, as strict (the reader refuses all the JSON, UTF-8 and types ``json.loads`` and
    parse_record refuse, and a lone surrogate besides), in about a fifth of the time: a folder of
    100,000 games is read in seconds.  Its string cache gives a folder's repeated moves and
    names one object each (what interning them did: a third of the records' memory)."""
    try:
        record = GameRecord.model_validate_json(data)
    except (ValidationError, RecursionError):
        return None
    given = record.model_fields_set.union(record.__pydantic_extra__ or ())
    if not given.issuperset(STORED_KEYS) or _seats_problem(record) is not None or record.id != game_id:
        return None
    return record


ROW_KEYS = ("id", "round", "players", "termination", "winner")  # the games table's columns

# Records are read as bytes and decoded one by one, so a byte that is not UTF-8 names its game.
RECORDS_QUERY = "SELECT id, CAST(record AS BLOB) FROM games ORDER BY id"
# With each record its checked mark (a folder an older arena made has no table of them) and
# the row's other columns, which must say what the record says.
COLUMNS = ", ".join(ROW_KEYS[1:])
STORED_QUERY = (
    f"SELECT id, CAST(record AS BLOB), checked.mark, {COLUMNS} FROM games LEFT JOIN checked USING (id) ORDER BY id"
)
MARKED_QUERY = "SELECT id, CAST(record AS BLOB), checked.mark FROM games LEFT JOIN checked USING (id) ORDER BY id"
UNMARKED_QUERY = f"SELECT id, CAST(record AS BLOB), NULL, {COLUMNS} FROM games ORDER BY id"


def check_mark(text: bytes) -> str:
    """The mark of a record's exact stored text: any edit of the text (a winner, a move, an
    id) gives another mark, so the edited record is replayed again.  It is a plain digest,
    not a secret: someone who rewrites the marks by hand as well can make a resume skip
    the replay, which ``arena verify games.jsonl`` still does for every record."""
    return hashlib.sha256(b"arena checked record v1\n" + text).hexdigest()


@dataclass(frozen=True)
class StoredGame:
    """A stored record and whether its text still has the mark it was checked with."""

    record: GameRecord
    mark: str  # check_mark of its text as stored
    checked: bool
    columns_problem: str | None = None  # a column of its row that says otherwise than the record


def _stored_game(db_path: Path, row: tuple[Any, ...]) -> StoredGame:
    game_id, data, mark, *columns = row
    record = read_record(db_path, game_id, data)
    own = check_mark(data if isinstance(data, bytes) else data.encode("utf-8"))
    return StoredGame(record, own, mark == own, _columns_problem(record, columns))


def _columns_problem(record: GameRecord, columns: list[Any]) -> str | None:
    """Where the games table's columns (written from the record, for SQL readers) and the
    record disagree: the row was edited by hand, and which of them is right is not known."""
    for key, value in zip(ROW_KEYS[1:], columns):
        if key == "players" and isinstance(value, str):
            value = _json_or_text(value)
        if value != getattr(record, key):  # the row's keys are fields: None when the record has none
            return f"its row's {key} column says {_short(value)} and its record {_short(getattr(record, key))}"
    return None


@functools.lru_cache(maxsize=1024)
def _json_or_text(text: str) -> Any:
    """A column's JSON, or its text; kept for the next row, since a folder's games repeat a
    few seatings (only compared, never changed)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def _short(value: Any) -> str:
    text = "none" if value is None else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _stored_query(db: sqlite3.Connection) -> str:
    has_marks = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checked'").fetchone()
    return STORED_QUERY if has_marks else UNMARKED_QUERY


class GameStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.db_path = folder / "arena.db"
        self.jsonl_path = folder / "games.jsonl"
        self._lock_file: TextIO | None = None
        self.db: sqlite3.Connection | None = None

    def open(
        self,
        settings: Mapping[str, Any],
        legacy_fingerprint: str | None = None,
        resolved: Mapping[str, Any] | None = None,
    ) -> None:
        """Lock the folder, open the database, and check it belongs to this tournament:
        the same settings (arena/results/fingerprint.py) or only raised ``rounds``.
        ``legacy_fingerprint`` lets a folder made before settings were stored resume, and
        ``resolved`` (the settings with every path absolute) one made before they were
        stored with the project's paths (``"paths": "relative"``)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock()
        self.db = sqlite3.connect(self.db_path, isolation_level=None)
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
            self._check_settings(settings, legacy_fingerprint, resolved)
        except sqlite3.DatabaseError as exc:
            if is_damaged(exc):
                raise StorageError(failure_text(self.folder, exc)) from None
            raise
        self._rewrite_jsonl()

    def _check_settings(
        self, settings: Mapping[str, Any], legacy_fingerprint: str | None, resolved: Mapping[str, Any] | None
    ) -> None:
        stored, stored_settings = self.get_meta("fingerprint"), self.get_meta("settings")
        # A folder without games holds no tournament yet (a run refused before its first
        # game, say): the settings of this run take it over.
        assert self.db is not None
        if stored is not None and self.db.execute("SELECT 1 FROM games LIMIT 1").fetchone():
            if stored_settings is not None:
                old = decode_meta(self.folder, "settings", stored_settings)
                paths_resolved = isinstance(old, dict) and "paths" not in old  # as folders made before hold them
                changed = changes(old, resolved if paths_resolved and resolved is not None else settings)
            else:
                changed = (
                    []
                    if stored == legacy_fingerprint
                    else ["settings differ (this folder was made by an older arena, which kept no list of them)"]
                )
            if changed:
                where = self.folder.resolve()
                raise StorageError(
                    f"{where} holds games played under other settings, and a folder never mixes them. "
                    f"Changed: " + "; ".join(changed) + ". Only raising 'rounds' extends a folder. To play "
                    f"the new settings, give a new folder with --out (for example --out {where}-2), "
                    f"or delete {where} to start over."
                )
        self.set_meta("fingerprint", fingerprint(settings))
        self.set_meta("settings", strictjson.dumps(settings, sort_keys=True))

    def _lock(self) -> None:
        lock_file = open(self.folder / "arena.lock", "w")
        try:
            fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock_file.close()
            raise StorageError(
                f"another arena run is using {self.folder}; wait for it to finish or use another --out folder"
            ) from None
        lock_file.write(str(os.getpid()))
        lock_file.flush()
        self._lock_file = lock_file

    @property
    def lock_fd(self) -> int | None:
        """The lock file's descriptor; forked workers must let go of it (see runner)."""
        return self._lock_file.fileno() if self._lock_file is not None else None

    def get_meta(self, key: str) -> str | None:
        assert self.db is not None
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        assert self.db is not None
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def note_dropped(self, dropped: Mapping[str, str]) -> dict[str, str]:
        """Keep why engines were dropped (engine -> reason) beside the games, so a later
        reader of the folder shows the same reasons; returns every run's drops."""
        known = decode_meta(self.folder, "dropped", self.get_meta("dropped"), {})
        known = {**dropped, **known}  # the run that dropped an engine said why; a resume keeps that
        self.set_meta("dropped", strictjson.dumps(known))
        return known

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- games ----------------------------------------------------------------

    def done_ids(self) -> set[int]:
        assert self.db is not None
        return {row[0] for row in self.db.execute("SELECT id FROM games")}

    def add(self, record: GameRecord) -> None:
        """Commit one finished game, then mirror it to the JSON Lines file."""
        self.add_many([record])

    def add_many(self, records: Sequence[GameRecord]) -> None:
        """Commit finished games in one transaction (games that arrived together: a commit
        each would cost more than storing them), then mirror them to the JSON Lines file."""
        assert self.db is not None
        if not records:
            return
        # The rows' columns (KeyError for a record without one), then the records themselves.
        rows = [(*(record[k] for k in ROW_KEYS), record_line(record)) for record in records]
        with self.db:  # one transaction
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany(
                "INSERT INTO games (id, round, players, termination, winner, record) VALUES (?,?,?,?,?,?)",
                [
                    (game_id, round_, strictjson.dumps(players), termination, winner, text)
                    for game_id, round_, players, termination, winner, text in rows
                ],
            )
            # The referee played every move of them through the rules: checked as they are made.
            self.db.executemany(
                "INSERT OR REPLACE INTO checked VALUES (?, ?)", [(row[0], check_mark(row[-1].encode())) for row in rows]
            )
        with open(self.jsonl_path, "a", encoding="utf-8") as out:
            out.write("".join(row[-1] + "\n" for row in rows))

    def complete_mirror(self) -> None:
        """After an interrupt: games.jsonl holds every stored game.  A Ctrl-C between a
        commit and its lines leaves the mirror short; its lines are counted (one read of
        the file, which the stopped run's tables read whole anyway) and, if they are not
        the database's games, it is made again."""
        assert self.db is not None
        ((stored,),) = self.db.execute("SELECT COUNT(*) FROM games")
        try:
            with open(self.jsonl_path, "rb") as mirror:
                lines = sum(chunk.count(b"\n") for chunk in iter(lambda: mirror.read(1 << 20), b""))
        except FileNotFoundError:
            lines = -1
        if lines != stored:
            self._rewrite_jsonl()

    def records(self) -> Iterator[GameRecord]:
        assert self.db is not None
        for game_id, data in self.db.execute(RECORDS_QUERY):  # a row at a time
            yield read_record(self.db_path, game_id, data)

    def stored(self) -> list[StoredGame]:
        """Every record (by id) with whether it still has its checked mark."""
        assert self.db is not None
        # A row at a time: the folder's texts are never all in memory beside their records.
        with collector_paused():
            return [_stored_game(self.db_path, row) for row in self.db.execute(STORED_QUERY)]

    def mark_checked(self, games: Iterable[StoredGame]) -> None:
        """Keep the marks of records a replay has just agreed with, in one transaction (in
        autocommit each row would be a commit of its own: 20,000 marks took 0.38 s, not 0.08 s)."""
        assert self.db is not None
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany("INSERT OR REPLACE INTO checked VALUES (?, ?)", [(g.record.id, g.mark) for g in games])

    def _rewrite_jsonl(self) -> None:
        """games.jsonl made again from the database.  A record whose text has its checked mark
        is copied as it is: that text was read and checked when it was marked (and the
        admission that follows a resume reads it again), so parsing it here would only
        cost a resume a second read of every game.  Any other record is read, so a damaged
        one stops the run here, and written as the store writes records."""
        assert self.db is not None
        tmp = self.jsonl_path.with_suffix(".jsonl.tmp")
        with open(tmp, "wb") as out:
            for game_id, data, mark in self.db.execute(MARKED_QUERY):  # a row at a time
                if mark == check_mark(data) and b"\n" not in data and b"\r" not in data:
                    out.write(data + b"\n")
                else:
                    out.write(record_line(read_record(self.db_path, game_id, data)).encode() + b"\n")
        os.replace(tmp, self.jsonl_path)


def record_line(record: GameRecord) -> str:
    """A record as one line of games.jsonl and arena.db's ``record`` column: compact strict JSON."""
    return strictjson.dumps(record.to_json(), separators=(",", ":"), ensure_ascii=False)


def read_folder(folder: Path) -> tuple[dict[str, str], list[GameRecord]]:
    """The meta table and every game record (by id) of a results folder (see read_stored)."""
    meta, stored = read_stored(folder)
    return meta, [game.record for game in stored]


def read_stored(folder: Path) -> Contents:
    """The meta table and every stored game (by id) of a results folder, as a list (see
    fold_stored, which reads them one at a time)."""
    return fold_stored(folder, lambda meta, games: (meta, list(games)))


Contents = tuple[dict[str, str], list[StoredGame]]
Folded = TypeVar("Folded")
Fold = Callable[[dict[str, str], Iterator[StoredGame]], Folded]


def fold_stored(folder: Path, fold: Fold[Folded]) -> Folded:
    """``fold(meta, games)``: the folder's meta table and its stored games (by id) as they are
    read, one row at a time, so a reader that keeps only counts never holds the folder's
    records.  Read-only: no lock, so a running tournament's folder can be read while it plays
    (WAL keeps each read consistent), and nothing is written, so a folder we may not write is
    read too.  ``fold`` may run twice (see _fold_settled): it starts from nothing each time.
    Raises StorageError when the folder holds no arena database."""
    db_path = folder / "arena.db"
    if not db_path.is_file():
        raise StorageError(
            f"{folder}: no arena.db here; give the output folder of an arena run (out/<tournament name> by default)"
        )
    try:
        with collector_paused():
            found = _fold_settled(db_path, fold)
            return found[0] if found is not None else _fold_live(db_path, fold)
    except (sqlite3.Error, OSError) as exc:
        raise StorageError(f"{db_path}: cannot read the games ({exc}); is it an arena results folder?") from None


def _fold_settled(db_path: Path, fold: Fold[Folded]) -> tuple[Folded] | None:
    """A folder whose WAL is absent or empty (a finished run) has every game in arena.db
    itself: read it as immutable, which needs no -shm file, so it neither creates files
    nor needs the folder to be writable.  None if the file changed meanwhile (a run
    checkpointed into it): then what ``fold`` made is dropped and it is read as a live folder."""
    wal = db_path.with_name(db_path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return None

    def identity() -> tuple[int, ...]:
        st = db_path.stat()
        return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns

    before = identity()
    try:
        found = _fold(db_path, "mode=ro&immutable=1", db_path, fold)
    except sqlite3.Error:
        if identity() == before:
            raise
        return None
    return (found,) if identity() == before else None


def _fold_live(db_path: Path, fold: Fold[Folded]) -> Folded:
    """A folder whose WAL holds games (a run in progress, or one that was killed)."""
    try:
        return _fold(db_path, "mode=ro", db_path, fold)
    except sqlite3.OperationalError as exc:
        if not getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN")):
            raise
    # A folder we may not write: SQLite cannot make the -shm index a WAL is read through,
    # so read a private copy of the database and its WAL instead.
    with tempfile.TemporaryDirectory(prefix="arena-read-") as tmp:
        copy = Path(tmp) / db_path.name
        for suffix in ("", "-wal"):
            if (source := db_path.with_name(db_path.name + suffix)).exists():
                shutil.copyfile(source, copy.with_name(copy.name + suffix))
        return _fold(copy, "mode=ro", db_path, fold)


def _fold(path: Path, params: str, shown_as: Path, fold: Fold[Folded]) -> Folded:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?{params}", uri=True)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        # The cursor hands over one row at a time: the folder is never in memory at once.
        return fold(meta, (_stored_game(shown_as, row) for row in db.execute(_stored_query(db))))
    finally:
        db.close()
