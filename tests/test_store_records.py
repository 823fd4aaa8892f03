"""Reading a results folder back: damaged records, bytes that are not UTF-8, folders we may
not write, and folders a run is still writing.  Every case goes through a real SQLite file
and the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, ZOO, arena_cmd, ctrl_c_before_games_jsonl, engine_toml, run_arena, write_tournament

from arena.cli import main
from arena.results.store import GameStore, StorageError, failure_text, read_folder

pytestmark = pytest.mark.timeout(240)


# Session-wide: the slow tests run before the quick ones (tests/conftest.py), and both read it.
@pytest.fixture(scope="session")
def played(tmp_path_factory) -> tuple[Path, Path]:
    """A finished folder of six games (no -wal or -shm left) and its tournament file."""
    tmp = tmp_path_factory.mktemp("played")
    engines = "".join(engine_toml(n, "{python}", ZOO, "good") for n in ("a", "b", "c"))
    path = write_tournament(tmp, engines, options="size = 3\nswap = false", workers=1, time_control="movetime_ms = 500")
    proc = run_arena("run", path, "--out", tmp / "out", "-q", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp / "out").glob("arena.db*")) == ["arena.db"]
    return path, tmp / "out"


def copy_of(folder: Path, where: Path) -> Path:
    shutil.copytree(folder, where)
    return where


def damage(folder: Path, expression: str) -> None:
    db = sqlite3.connect(folder / "arena.db")
    with db:
        assert db.execute(f"UPDATE games SET record = {expression} WHERE id = 1").rowcount == 1
    db.close()


DAMAGE = {
    "a time that is a string": ('replace(record, \'"times_ms":[\', \'"times_ms":["x",\')', "'times_ms.0'"),
    "a player that is a number": ("replace(record, '\"players\":[', '\"players\":[7,')", "'players.0'"),
    "a move that is a number": ("replace(record, '\"moves\":[', '\"moves\":[5,')", "'moves.0'"),
    "a negative time": ("json_set(record, '$.times_ms[0]', -3)", "'times_ms.0'"),
    "a winner that is true": ("json_set(record, '$.winner', json('true'))", "'winner'"),
    "a winner beyond the seats": ("json_set(record, '$.winner', 2)", "'winner' is seat 2"),
    "a place too many": ("json_set(record, '$.places[#]', 0)", "'places' has 3 entries for 2 players"),
    "a place beyond the seats": ("json_set(record, '$.places[0]', 9)", "'places' holds a place"),
    "a score that is text": ("json_set(record, '$.scores[1]', 'half')", "'scores.1'"),
    "a termination that is a number": ("json_set(record, '$.termination', 3)", "'termination'"),
    "options that are a list": ("json_set(record, '$.options', json('[]'))", "'options'"),
    "a list for a record": ("'[1, 2]'", "not a JSON object"),
    "another game's id": ("json_set(record, '$.id', 2)", "its id is 2, not 1"),
    "bytes that are not UTF-8": ("CAST(x'7bff00' AS TEXT)", "not UTF-8 text"),
}


def check_one_line(output: str, what: str) -> None:
    assert "Traceback" not in output and len(output.strip().splitlines()) == 1, output
    assert "game 1: the stored record is damaged" in output and what in output, output
    assert "DELETE FROM games WHERE id = 1" in output and "disk has room" not in output, output


@pytest.mark.slow
@pytest.mark.parametrize("case", list(DAMAGE))
def test_a_damaged_record_is_named_by_results_and_report(played, tmp_path, case):
    expression, what = DAMAGE[case]
    out = copy_of(played[1], tmp_path / "out")
    damage(out, expression)
    with pytest.raises(StorageError, match="game 1: the stored record is damaged"):
        read_folder(out)
    for args in (["results", str(out)], ["report", str(out), "--out", str(tmp_path / "site")]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        check_one_line(result.output, what)


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    ["a time that is a string", "a player that is a number", "a move that is a number", "bytes that are not UTF-8"],
)
def test_a_damaged_record_stops_a_resumed_run_with_the_way_out(played, tmp_path, case):
    expression, what = DAMAGE[case]
    out = copy_of(played[1], tmp_path / "out")
    damage(out, expression)
    proc = run_arena("run", played[0], "--out", out, timeout=60)
    assert proc.returncode == 2, proc.stderr
    check_one_line(proc.stderr, what)
    with GameStore(out) as store:  # the advice works: the other games are still there
        with pytest.raises(StorageError):
            store.open(json.loads(read_folder(played[1])[0]["settings"]))
    db = sqlite3.connect(out / "arena.db")
    with db:
        db.execute("DELETE FROM games WHERE id = 1")
    db.close()
    again = run_arena("run", played[0], "--out", out, "-q", timeout=60)
    assert again.returncode == 0 and "1 games played, 5 resumed" in again.stdout, again.stdout + again.stderr


def test_an_arena_db_that_is_no_database_is_named_damaged_with_the_way_out_and_a_full_disk_is_not(tmp_path):
    """The damaged database's message names the file, SQLite's words and what to do, whole;
    an OSError is the folder that cannot be written, even where its text has the words
    SQLite uses for a damaged file (an output folder named 'malformed')."""
    (tmp_path / "arena.db").write_text("notes, not a database\n" * 10)
    with GameStore(tmp_path) as store, pytest.raises(StorageError) as err:
        store.open({"name": "t", "game": "hex"})
    assert str(err.value) == (
        f"{tmp_path / 'arena.db'}: the database is damaged (file is not a database). Move it away and run again "
        "to start over (games.jsonl beside it has a copy of every finished game), or try 'sqlite3 arena.db .recover'."
    )
    full = OSError(28, "No space left on device", "/r/malformed/arena.db")
    assert failure_text(Path("/r/malformed"), full) == (
        "/r/malformed: cannot write the results ([Errno 28] No space left on device: '/r/malformed/arena.db'). "
        "Check that the output folder is writable and the disk has room, or choose another with --out."
    )


# -- folders we may not write, and folders a run is writing ------------------------------


def unprivileged(*command: object) -> list[str]:
    """``command`` as a process that file permissions apply to.  Root ignores them, so as
    root the process drops every capability (setpriv), which makes uid 0 a plain owner."""
    command = [str(c) for c in command]
    if os.geteuid() != 0:
        return command
    if shutil.which("setpriv") is None:
        pytest.skip("running as root, which ignores file permissions, and setpriv is not installed")
    return ["setpriv", "--bounding-set=-all", "--inh-caps=-all", *command]


def read_only(folder: Path) -> Path:
    for path in [folder, *folder.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)
    probe = subprocess.run(
        unprivileged(sys.executable, "-c", f"open({str(folder / 'probe')!r}, 'w')"), capture_output=True
    )
    if probe.returncode == 0:
        pytest.skip("this system lets the test write into a read-only folder")
    return folder


def writable_again(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)


def results_json(folder: Path) -> dict:
    proc = subprocess.run(
        unprivileged(*arena_cmd("results", folder, "-f", "json")), capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_finished_folder_is_read_without_creating_files(played, tmp_path):
    out = copy_of(played[1], tmp_path / "out")
    before = names(out)
    assert len(read_folder(out)[1]) == 6
    assert CliRunner().invoke(main, ["results", str(out)]).exit_code == 0
    assert names(out) == before  # no arena.db-wal or arena.db-shm left behind


@pytest.mark.slow
def test_a_read_only_finished_folder_is_read(played, tmp_path):
    out = read_only(copy_of(played[1], tmp_path / "out"))
    try:
        before = names(out)
        assert results_json(out)["games"] == 6
        site = tmp_path / "site"
        proc = subprocess.run(
            unprivileged(*arena_cmd("report", out, "--out", site)),
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        assert proc.returncode == 0 and (site / "index.html").is_file(), proc.stderr
        assert names(out) == before
    finally:
        writable_again(out)


def stored_again(played: Path, folder: Path) -> GameStore:
    """A store holding ``played``'s games, committed to its WAL and left open, as a run
    in progress has them."""
    meta, records = read_folder(played)
    store = GameStore(folder)
    store.open(json.loads(meta["settings"]))
    for record in records:
        store.add(record)
    assert (folder / "arena.db-wal").stat().st_size > 0
    return store


@pytest.mark.slow
def test_a_live_folder_shows_every_committed_game(played, tmp_path):
    out = tmp_path / "live"
    with stored_again(played[1], out):
        assert [r["id"] for r in read_folder(out)[1]] == list(range(6))
        assert results_json(out)["games"] == 6


def test_a_read_only_folder_whose_wal_holds_games_shows_them(played, tmp_path):
    """A killed run's folder, made read-only: the games in its WAL are read from a copy, as
    SQLite cannot create the -shm index beside them."""
    out, frozen = tmp_path / "live", tmp_path / "frozen"
    frozen.mkdir()
    with stored_again(played[1], out):
        for name in ("arena.db", "arena.db-wal"):
            shutil.copyfile(out / name, frozen / name)
    read_only(frozen)
    try:
        assert results_json(frozen)["games"] == 6
        assert names(frozen) == ["arena.db", "arena.db-wal"]
    finally:
        writable_again(frozen)


def killed_run(tmp_path: Path, damaged: bool = False) -> Path:
    """A folder as a run killed after three games leaves it: its arena.db and a WAL holding
    the games (copied while the store is open, before any checkpoint); with ``damaged``,
    game 1's record is not JSON."""

    folder = tmp_path / "killed"
    folder.mkdir(parents=True)
    with GameStore(tmp_path / "live") as store:
        store_three_games(store, damaged)
        for name in ("arena.db", "arena.db-wal"):
            shutil.copyfile(tmp_path / "live" / name, folder / name)
    return folder


def damaged_text(db: Path) -> str:
    return (
        f"{db}: game 1: the stored record is damaged (not valid JSON: Expecting value: line 1 column 1 (char 0)). "
        f'To have that game played again, delete it (sqlite3 {db} "DELETE FROM games WHERE id = 1") and run the '
        "same command."
    )


def test_a_killed_runs_folder_is_read_in_place_read_only_and_names_a_damaged_game_by_its_path(tmp_path):
    """Its WAL is read through SQLite's -shm index, on a read-only connection: a writing one
    would checkpoint the games into arena.db and delete the WAL as it closed."""
    folder = killed_run(tmp_path)
    assert [r.id for r in read_folder(folder)[1]] == [0, 1, 2]
    assert names(folder) == ["arena.db", "arena.db-shm", "arena.db-wal"]
    damaged = killed_run(tmp_path / "damaged", damaged=True)
    with pytest.raises(StorageError) as err:
        read_folder(damaged)
    assert str(err.value) == damaged_text(damaged / "arena.db")


@pytest.mark.parametrize("refusal", ["SQLITE_CANTOPEN", "SQLITE_READONLY_CANTINIT"])
def test_a_killed_runs_folder_sqlite_may_not_index_is_read_from_a_private_copy(tmp_path, monkeypatch, refusal):
    """Where SQLite cannot make the -shm index (a folder we may not write: SQLITE_CANTOPEN,
    as an unprivileged reader of one gets; or a read-only one it cannot start, SQLITE_READONLY_*),
    the database and its WAL are read from a copy in a private temporary folder, which is
    gone after; a damaged game is still named by the folder's own path.  Root writes any
    folder, so the refusal is SQLite's error raised for the folder's own file."""
    from arena.results import store

    real, calls = store._fold, []

    def refusing(path, params, shown_as, fold):
        calls.append((path, params, shown_as))
        if path == shown_as:
            exc = sqlite3.OperationalError("unable to open database file")
            exc.sqlite_errorname = refusal  # type: ignore[attr-defined]
            raise exc
        return real(path, params, shown_as, fold)

    monkeypatch.setattr(store, "_fold", refusing)
    folder = killed_run(tmp_path)
    db = folder / "arena.db"
    assert [r.id for r in read_folder(folder)[1]] == [0, 1, 2]
    (copy, params, shown_as) = calls[1]
    assert calls[0] == (db, "mode=ro", db) and (params, shown_as) == ("mode=ro", db)
    assert copy.name == "arena.db" and copy.parent.name.startswith("arena-read-") and not copy.parent.exists()
    assert names(folder) == ["arena.db", "arena.db-wal"]
    damaged = killed_run(tmp_path / "damaged", damaged=True)
    with pytest.raises(StorageError) as err:
        read_folder(damaged)
    assert str(err.value) == damaged_text(damaged / "arena.db")


def test_another_sqlite_error_of_a_live_folder_is_not_read_around(tmp_path, monkeypatch):
    from arena.results import store

    def busy(path, params, shown_as, fold):
        exc = sqlite3.OperationalError("database is locked")
        exc.sqlite_errorname = "SQLITE_BUSY"  # type: ignore[attr-defined]
        raise exc

    monkeypatch.setattr(store, "_fold", busy)
    folder = killed_run(tmp_path)
    with pytest.raises(StorageError) as err:
        read_folder(folder)
    assert str(err.value) == (
        f"{folder / 'arena.db'}: cannot read the games (database is locked); is it an arena results folder?"
    )


@pytest.fixture(scope="session")
def mixed(tmp_path_factory) -> Path:
    """A finished folder of three-seat Posies games with a bit of everything the tables count:
    games played to their end, and an engine that crashes at its start-up check and is
    dropped (its faults, then the games it forfeits unplayed), whose tables' other seats
    share a place (a draw between them)."""
    tmp = tmp_path_factory.mktemp("mixed")
    engines = (
        engine_toml("random", "{python}", "-m", "engines.random_engine")
        + engine_toml("random2", "{python}", "-m", "engines.random_engine")
        + engine_toml("random3", "{python}", "-m", "engines.random_engine")
        + engine_toml("dud", "{python}", ZOO, "crash_start", extra="max_failures = 1")
    )
    path = write_tournament(
        tmp, engines, game="posies", options="players = 3", rounds=1, seed=4, extra="forfeit_failed_engines = true"
    )
    proc = run_arena("run", path, "--out", tmp / "out", "-q", timeout=200)
    assert proc.returncode == 1, proc.stderr  # finished, with the dud dropped
    return tmp / "out"


@pytest.mark.slow
def test_the_quick_reader_gives_the_records_and_summary_of_the_full_one(mixed, monkeypatch):
    """A sound record is read in one pass of pydantic's JSON reader; the reader of
    ``json.loads`` and ``parse_record`` (the one that names what is wrong) gives the same
    records, value for value and type for type (``0`` stays ``0``, not ``0.0``), so the
    same summary: standings, Elo, head to head, statistics, faults and drops."""
    from arena.results import store
    from arena.results.export import results_json, summarize_folder

    with monkeypatch.context() as patched:  # every record the quick way: the full one would fail
        patched.setattr(store, "_record_problem", lambda data, game_id: pytest.fail("read the full way"))
        quick_meta, quick = read_folder(mixed)
        quick_summary = results_json(summarize_folder(mixed))
    monkeypatch.setattr(store, "_sound_record", lambda game_id, data: None)  # every record the full way
    full_meta, full = read_folder(mixed)
    assert quick_meta == full_meta and quick == full
    assert [store.record_line(r) for r in quick] == [store.record_line(r) for r in full]
    assert [r.model_fields_set for r in quick] == [r.model_fields_set for r in full]
    assert results_json(summarize_folder(mixed)) == quick_summary
    # the folder holds what the comparison is for: three seats, shared places, faults, drops
    document = json.loads(quick_summary)
    assert all(len(r.players or []) == 3 for r in quick)
    assert any(r.termination == "normal" for r in quick) and any(row["draws"] for row in document["standings"])
    assert {"crash", "dropped"} <= set(document["terminations"]) and document["dropped"]


def test_a_resume_copies_checked_texts_to_games_jsonl_and_writes_the_others_again(tmp_path):
    """games.jsonl is made again when a run opens its folder: a record whose text has its
    checked mark is copied as it is, without being read; one without (a hand-edited row, or
    one an older arena stored) is read, and written as the store writes records; a checked
    text over several lines (a hand-edited one a replay agreed with) is written on one."""
    from helpers import random_game_record

    from arena.results.store import check_mark, record_line

    records = [random_game_record(k, ["a", "b"], seed=k) for k in range(3)]
    settings = {"name": "t", "game": "hex"}
    with GameStore(tmp_path) as store:
        store.open(settings)
        store.add_many(records)
    spaced = [json.dumps(r.to_json()) for r in records]  # ", " and ": ": not the store's own text
    folded = json.dumps(records[2].to_json(), indent=1)
    db = sqlite3.connect(tmp_path / "arena.db")
    with db:
        for game_id, text in ((0, spaced[0]), (1, spaced[1]), (2, folded)):
            db.execute("UPDATE games SET record = ? WHERE id = ?", (text, game_id))
        for game_id, text in ((0, spaced[0]), (2, folded)):  # as a replay that agreed marks them
            db.execute("UPDATE checked SET mark = ? WHERE id = ?", (check_mark(text.encode()), game_id))
    db.close()
    with GameStore(tmp_path) as store:
        store.open(settings)
    lines = (tmp_path / "games.jsonl").read_text(encoding="utf-8").split("\n")
    assert lines == [spaced[0], record_line(records[1]), record_line(records[2]), ""]


def test_a_run_interrupted_between_a_commit_and_its_lines_leaves_games_jsonl_whole(tmp_path, monkeypatch):
    """Ctrl-C can land after a game's commit and before its line in games.jsonl: the stopped
    run's tables make the mirror whole again, and a whole one is left as it is."""
    from helpers import random_game_record

    from arena.results.store import record_line

    records = [random_game_record(k, ["a", "b"], seed=k) for k in range(3)]
    with GameStore(tmp_path) as store:
        store.open({"name": "t", "game": "hex"})
        store.add_many(records[:2])
        with ctrl_c_before_games_jsonl(monkeypatch), pytest.raises(KeyboardInterrupt):
            store.add(records[2])
        mirror = tmp_path / "games.jsonl"
        assert len(mirror.read_text().splitlines()) == 2 and len(store.done_ids()) == 3
        store.complete_mirror()
        assert sorted(mirror.read_text().splitlines()) == sorted(record_line(r) for r in records)
        whole = mirror.stat().st_ino  # a file made again is a new one
        store.complete_mirror()
        assert mirror.stat().st_ino == whole


def test_a_checked_text_with_a_carriage_return_is_written_again_on_one_line(tmp_path):
    """JSON allows a raw carriage return between tokens, and a reader that splits games.jsonl
    at any line end would cut such a record in two: a checked text holding one is written
    again, as the store writes records, not copied."""
    from helpers import random_game_record

    from arena.results.store import check_mark, record_line

    record = random_game_record(0, ["a", "b"], seed=0)
    settings = {"name": "t", "game": "hex"}
    with GameStore(tmp_path) as store:
        store.open(settings)
        store.add_many([record])
    text = record_line(record).replace(",", ",\r", 1)
    assert json.loads(text) == record.to_json()
    db = sqlite3.connect(tmp_path / "arena.db")
    with db:
        db.execute("UPDATE games SET record = ? WHERE id = 0", (text,))
        db.execute("UPDATE checked SET mark = ? WHERE id = 0", (check_mark(text.encode()),))
    db.close()
    with GameStore(tmp_path) as store:
        store.open(settings)
    assert (tmp_path / "games.jsonl").read_bytes() == record_line(record).encode() + b"\n"


def test_a_damaged_record_found_when_games_jsonl_is_written_again_is_named_by_the_database_path(tmp_path):
    """Opening a folder writes games.jsonl again and reads each unmarked record: a damaged one
    stops the open with the database's path, the game and the command that deletes it."""
    with GameStore(tmp_path) as store:
        store_three_games(store, damaged=True)
    with GameStore(tmp_path) as store, pytest.raises(StorageError) as err:
        store.open({"name": "t", "game": "hex"})
    assert str(err.value) == damaged_text(tmp_path / "arena.db")


def test_a_folder_another_store_holds_is_refused_whole_and_its_lock_file_names_the_holder(tmp_path):
    """A folder is one run's at a time: a second store opening it (another run, or the same
    process) is refused with the folder and what to do, and arena.lock holds the process id
    of the run that has it, for a user who wants to know which one."""
    settings = {"name": "t", "game": "hex"}
    with GameStore(tmp_path) as first:
        first.open(settings)
        assert (tmp_path / "arena.lock").read_text() == str(os.getpid())
        with GameStore(tmp_path) as second, pytest.raises(StorageError) as err:
            second.open(settings)
    assert str(err.value) == (
        f"another arena run is using {tmp_path}; wait for it to finish or use another --out folder"
    )


def test_the_collector_is_paused_while_a_folder_is_read_and_on_again_after(tmp_path):
    """A folder's records are read and folded with the cyclic collector off (its passes
    over every record were half of reading a large folder); it is on again after, even
    when the fold fails, and a pause inside another leaves it off until the outer one ends."""
    import gc

    from helpers import random_game_record

    from arena.results.store import collector_paused, fold_stored

    with GameStore(tmp_path) as store:
        store.open({"name": "t", "game": "hex"})
        store.add_many([random_game_record(k, ["a", "b"], seed=k) for k in range(3)])
    assert gc.isenabled()
    assert fold_stored(tmp_path, lambda meta, games: [gc.isenabled() for _ in games]) == [False] * 3
    assert gc.isenabled()

    def failing(meta, games):
        raise RuntimeError("a fold that fails")

    with pytest.raises(RuntimeError):
        fold_stored(tmp_path, failing)
    assert gc.isenabled()
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_what_a_pause_made_is_not_walked_at_once_after_it_and_its_cycles_are_still_collected():
    """The objects made during a pause join the oldest generation when it ends, so the
    collector's next pass (of the youngest) does not walk them all; a cycle made during it
    is garbage the collector still finds, and objects someone froze stay frozen."""
    import gc
    import weakref

    from arena.results.store import collector_paused

    class Node:
        pass

    others_frozen = gc.get_freeze_count()  # another thread's pool forking: then no move is made
    with collector_paused():
        kept = [[k] for k in range(50_000)]
        cycle = Node()
        cycle.me = cycle
        gone = weakref.ref(cycle)
        del cycle
    if not others_frozen:  # in the oldest generation at once, not in a young one a pass walks next
        oldest = gc.get_objects(generation=2)
        assert any(o is kept[0] for o in oldest) and any(o is kept[-1] for o in oldest)
        del oldest
    for _ in range(50):  # gc.collect() returns at once while another thread's pass runs
        gc.collect()
        if gone() is None:
            break
        time.sleep(0.01)
    assert gone() is None  # the cycle is garbage the collector finds, as ever
    assert len(kept) == 50_000
    theirs = [[k] for k in range(100)]
    gc.freeze()  # someone's objects frozen (a pool about to fork): a pause leaves them so
    try:
        with collector_paused():
            kept.append([0])
        # Still frozen: the collector's generations do not hold them. (The frozen count itself may
        # fall meanwhile: another thread of this process may free frozen objects of its own.)
        tracked = {id(o) for o in gc.get_objects()}
        assert gc.get_freeze_count() > 0 and not any(id(o) in tracked for o in theirs)
    finally:
        gc.unfreeze()


def site_files(folder: Path) -> dict[str, str]:
    """A report site's files, the time each summary page was written left out."""
    import re

    return {
        str(path.relative_to(folder)): re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "TIME", path.read_text())
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.mark.slow
@pytest.mark.parametrize("which", ["mixed", "played"])
def test_the_quick_tallies_give_the_outputs_of_the_plain_ones(which, request, tmp_path, monkeypatch):
    """The tallies' quick paths (each seat's times as a slice where seats take turns, the
    collector paused while a folder is read and counted, the site's summary made after its
    games' pages, as ``arena report`` makes it) give what the plain ones give: results.json,
    the printed tables and every file of the site, on a three-seat folder with faults, a
    dropped engine and shared places, and on a Hex folder with the swap."""
    import gc

    from arena.results import stats
    from arena.results.export import render, summarize_folder
    from arena.results.site import SiteWriter, load_folder

    folder = request.getfixturevalue(which)
    folder = folder[1] if isinstance(folder, tuple) else folder

    def outputs(site: Path, later: bool) -> tuple[str, str, dict[str, str], str]:
        summary = summarize_folder(folder)
        data = load_folder(folder, later=later)
        SiteWriter(site, parallel=False).write(data)
        assert data.summary is not None and data.summarize is None  # the folder's, made by then
        return render(summary, "json"), render(summary, "table"), site_files(site), render(data.summary, "json")

    quick = outputs(tmp_path / "quick", later=True)
    with monkeypatch.context() as plain:
        plain.setattr(gc, "disable", lambda: None)  # the collector never paused
        plain.setattr(
            stats,
            "_times_by_seat",
            lambda times, movers, seats: [
                (seat, [ms for ms, mover in zip(times, movers) if mover == seat]) for seat in sorted(set(movers))
            ],
        )
        assert outputs(tmp_path / "plain", later=False) == quick
    assert quick[3] == quick[0]  # the site's summary is the one `arena results` prints
    document = json.loads(quick[0])
    assert document["games"] and any(e["moves_timed"] for e in document["engines"])
    assert any(path.startswith("games/") for path in quick[2])


# -- the store's own pieces, on a folder written here (no run) ---------------------


def test_a_damaged_database_is_told_from_a_full_or_read_only_disk(tmp_path):
    from arena.results.store import failure_text, is_damaged

    bad = tmp_path / "arena.db"
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(sqlite3.DatabaseError) as real:
        sqlite3.connect(bad).execute("SELECT 1 FROM sqlite_master")
    assert is_damaged(real.value)

    def error(message: str, name: str | None = None) -> sqlite3.Error:
        exc = sqlite3.OperationalError(message)
        if name is not None:
            exc.sqlite_errorname = name  # as sqlite3 sets it on the errors it raises
        return exc

    assert is_damaged(error("x", "SQLITE_CORRUPT")) and is_damaged(error("x", "SQLITE_NOTADB"))
    for message in ("database disk image is malformed", "file is not a database", "Could not decode to UTF-8"):
        assert is_damaged(error(f"oh: {message}!")), message
        assert is_damaged(error(message, "SQLITE_ERROR")), message
    assert not is_damaged(error("database or disk is full", "SQLITE_FULL"))
    assert not is_damaged(error("attempt to write a readonly database", "SQLITE_READONLY"))
    assert not is_damaged(error("Malformed"))  # the words as SQLite writes them, not any case
    assert not is_damaged(error("x"))
    full = failure_text(tmp_path, error("database or disk is full", "SQLITE_FULL"))
    assert full == (
        f"{tmp_path}: cannot write the results (database or disk is full). Check that the output folder "
        "is writable and the disk has room, or choose another with --out."
    )
    assert failure_text(tmp_path, real.value).startswith(f"{bad}: the database is damaged (file is not a database).")
    assert failure_text(tmp_path, OSError("No space left")).startswith(f"{tmp_path}: cannot write the results (")


def test_why_engines_were_dropped_is_kept_and_a_resume_keeps_the_first_reason(tmp_path):
    with GameStore(tmp_path) as store:
        store.open({"name": "t"})
        assert store.get_meta("dropped") is None
        assert store.note_dropped({}) == {} and store.get_meta("dropped") == "{}"
        assert store.note_dropped({"x": "crashed 3 times"}) == {"x": "crashed 3 times"}
        assert store.get_meta("dropped") == '{"x": "crashed 3 times"}'
        known = store.note_dropped({"y": "timed out", "x": "a later reason"})
        assert known == {"y": "timed out", "x": "crashed 3 times"} and list(known) == ["y", "x"]
        assert json.loads(store.get_meta("dropped") or "") == known
        assert store.note_dropped({}) == known
        store.set_meta("dropped", "{not json")
        with pytest.raises(StorageError) as damaged:
            store.note_dropped({"z": "why"})
        assert str(damaged.value) == (
            f"{(tmp_path / 'arena.db').resolve()}: its stored 'dropped' is damaged; start a new folder "
            "with --out, or remove the folder to play the tournament again"
        )


def test_what_is_wrong_with_a_stored_record_is_said_in_a_few_words():
    from helpers import random_game_record

    from arena.results.store import _record_problem

    good = random_game_record(1, ["a", "b"]).to_json()
    assert _record_problem(good, 1) == (random_game_record(1, ["a", "b"]), None)
    assert _record_problem([good], 1) == (None, "not a JSON object")
    assert _record_problem("text", 1) == (None, "not a JSON object")
    less = {k: v for k, v in good.items() if k not in ("round", "places", "reason")}
    assert _record_problem(less, 1) == (None, "keys missing: round, reason, places")
    wrong = dict(good, moves=5, players="x", winner="q", times_ms="t")
    record, problem = _record_problem(wrong, 1)
    assert record is None and problem == (
        "'players': Input should be a valid list (got 'x'); 'moves': Input should be a valid list (got 5); "
        "'times_ms': Input should be a valid list (got 't')"
    )
    record, problem = _record_problem(dict(good, winner=5), 1)
    assert record is not None and record.winner == 5 and problem == "'winner' is seat 5 of a game with 2 players"
    record, problem = _record_problem(good, 2)
    assert record is not None and record.id == 1 and problem == "its id is 1, not 2"
    record, problem = _record_problem(dict(good, winner=5), 2)  # the seats first
    assert problem == "'winner' is seat 5 of a game with 2 players"


def test_the_stored_games_carry_their_checked_marks_which_a_replay_renews(tmp_path):
    from helpers import random_game_record

    from arena.results.store import StoredGame, check_mark, record_line

    records = [random_game_record(k, ["a", "b"], seed=k) for k in range(3)]
    with GameStore(tmp_path) as store:
        store.open({"name": "t"})
        store.add_many(records)
        assert list(store.records()) == records
        marks = [check_mark(record_line(r).encode()) for r in records]
        assert store.stored() == [StoredGame(r, m, True) for r, m in zip(records, marks)]
        spaced = json.dumps(records[1].to_json())  # the same record, other text: its mark is lost
        winner = 1 - (records[2].winner or 0)
        with store.db:
            store.db.execute("UPDATE games SET record = ? WHERE id = 1", (spaced,))
            store.db.execute("UPDATE games SET winner = ? WHERE id = 2", (winner,))
        stored = store.stored()
        edited = StoredGame(records[1], check_mark(spaced.encode()), False)
        assert stored[:2] == [StoredGame(records[0], marks[0], True), edited]
        assert stored[2].checked and stored[2].columns_problem == (
            f"its row's winner column says {winner} and its record {records[2].winner}"
        )
        store.mark_checked([edited])
        assert store.stored()[1] == StoredGame(records[1], check_mark(spaced.encode()), True)
        assert [g.checked for g in store.stored()] == [True, True, True]
        store.mark_checked([])
        assert list(store.records()) == records
        with store.db:
            store.db.execute("UPDATE games SET record = '{' WHERE id = 2")
        for read in (lambda: list(store.records()), store.stored):
            with pytest.raises(StorageError) as damaged:
                read()
            assert str(damaged.value).startswith(
                f"{tmp_path / 'arena.db'}: game 2: the stored record is damaged (not valid JSON: "
            )


def test_a_row_column_edited_by_hand_is_named_with_its_value_none_or_cut_past_60_characters(tmp_path):
    """A value of up to 60 characters is shown whole, a longer one as its first 57 and '...',
    and a NULL column as none."""
    from helpers import random_game_record

    records = [random_game_record(k, ["a", "b"], seed=k) for k in range(3)]
    with GameStore(tmp_path) as store:
        store.open({"name": "t"})
        store.add_many(records)
        with store.db:
            store.db.execute("UPDATE games SET winner = NULL WHERE id = 0")
            store.db.execute("UPDATE games SET players = ? WHERE id = 1", ("x" * 60,))
            store.db.execute("UPDATE games SET players = ? WHERE id = 2", ("y" * 61,))
        assert [g.columns_problem for g in store.stored()] == [
            f"its row's winner column says none and its record {records[0].winner}",
            f"its row's players column says {'x' * 60} and its record ['a', 'b']",
            f"its row's players column says {'y' * 57}... and its record ['a', 'b']",
        ]


def store_three_games(store: GameStore, damaged: bool) -> None:
    """Three Hex games of a and b into an open store; with ``damaged``, game 1's record is not JSON."""
    from helpers import random_game_record

    store.open({"name": "t", "game": "hex"})
    store.add_many([random_game_record(k, ["a", "b"], seed=k) for k in range(3)])
    if damaged:
        assert store.db is not None
        with store.db:
            store.db.execute("UPDATE games SET record = 'x' WHERE id = 1")


def finished_folder(folder: Path, damaged: bool = False) -> Path:
    """A folder as a finished run leaves it: arena.db alone, three games; with ``damaged``,
    game 1's record is not JSON."""
    with GameStore(folder) as store:
        store_three_games(store, damaged)
    assert names(folder) == ["arena.db", "arena.lock", "games.jsonl"]
    return folder


@pytest.mark.parametrize("wal", [None, b""], ids=["no WAL", "an empty WAL"])
def test_a_finished_folder_is_read_without_a_file_appearing_in_it_even_while_it_is_read(tmp_path, wal):
    from arena.results.store import fold_stored

    folder = finished_folder(tmp_path / "out")
    if wal is not None:
        (folder / "arena.db-wal").write_bytes(wal)
    before = names(folder)
    seen = fold_stored(
        folder, lambda meta, games: ([game.record.id for game in games], json.loads(meta["settings"]), names(folder))
    )
    assert seen == ([0, 1, 2], {"game": "hex", "name": "t"}, before)
    assert names(folder) == before


def test_a_damaged_record_of_a_finished_folder_is_named_by_the_folders_path(tmp_path):
    folder = finished_folder(tmp_path / "out", damaged=True)
    with pytest.raises(StorageError) as err:
        read_folder(folder)
    assert str(err.value) == damaged_text(folder / "arena.db")


def test_a_folder_an_older_arena_made_without_checked_marks_is_read_with_none_checked(tmp_path):
    from arena.results.store import read_stored

    folder = finished_folder(tmp_path / "out")
    db = sqlite3.connect(folder / "arena.db")
    with db:
        db.execute("DROP TABLE checked")
    db.close()
    meta, stored = read_stored(folder)
    assert json.loads(meta["settings"]) == {"game": "hex", "name": "t"}
    assert [(game.record.id, game.checked, game.columns_problem) for game in stored] == [
        (0, False, None),
        (1, False, None),
        (2, False, None),
    ]


def test_a_file_that_is_no_database_is_refused_without_a_file_appearing_beside_it(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "arena.db").write_bytes(b"not a database at all, only text" * 64)
    with pytest.raises(StorageError) as err:
        read_folder(folder)
    assert str(err.value) == (
        f"{folder / 'arena.db'}: cannot read the games (file is not a database); is it an arena results folder?"
    )
    assert names(folder) == ["arena.db"]


def test_an_sqlite_error_reading_a_finished_folder_that_did_not_change_is_told_not_read_around(tmp_path, monkeypatch):
    """A finished folder is read once, as immutable; when SQLite refuses it (as it refuses an
    unprivileged reader an arena.db it may not read) and arena.db did not change meanwhile,
    that is the answer: it is not read again as a live folder, nor from a copy."""
    from arena.results import store

    calls = []

    def refusing(path, params, shown_as, fold):
        calls.append((path, params, shown_as))
        exc = sqlite3.OperationalError("unable to open database file")
        exc.sqlite_errorname = "SQLITE_CANTOPEN"  # type: ignore[attr-defined]
        raise exc

    folder = finished_folder(tmp_path / "out")
    db = folder / "arena.db"
    monkeypatch.setattr(store, "_fold", refusing)
    with pytest.raises(StorageError) as err:
        read_folder(folder)
    assert (
        str(err.value) == f"{db}: cannot read the games (unable to open database file); is it an arena results folder?"
    )
    assert calls == [(db, "mode=ro&immutable=1", db)]


def test_a_finished_folder_that_changes_while_it_is_read_immutably_is_read_again_as_a_live_one(tmp_path, monkeypatch):
    """A run that checkpoints into arena.db during an immutable read may have changed pages
    that read saw: what it made is dropped (None), for the caller to read the folder live."""
    from arena.results import store as stored

    folder = finished_folder(tmp_path / "f")
    real = stored._fold

    def fold_then_change(*args):
        found = real(*args)
        os.utime(folder / "arena.db", ns=(1, 1))  # as a checkpoint into it would
        return found

    def count(meta, games):
        return sum(1 for _ in games)

    assert stored._fold_settled(folder / "arena.db", count) == (3,)
    monkeypatch.setattr(stored, "_fold", fold_then_change)
    assert stored._fold_settled(folder / "arena.db", count) is None


def test_a_text_column_edited_to_its_value_in_json_quotes_is_named_as_edited(tmp_path):
    """Only the players column holds JSON; a termination column rewritten as '"normal"'
    (quotes and all) no longer says what the record does."""
    from helpers import random_game_record

    record = random_game_record(0, ["a", "b"])
    with GameStore(tmp_path) as store:
        store.open({"name": "t"})
        store.add_many([record])
        with store.db:
            store.db.execute("""UPDATE games SET termination = '"normal"' WHERE id = 0""")
        problem = store.stored()[0].columns_problem
    assert problem == 'its row\'s termination column says "normal" and its record normal'


def _read(game_id, data):
    from arena.results.store import read_record

    return read_record(Path("f/arena.db"), game_id, data)


def _damage(game_id, data) -> str:
    with pytest.raises(StorageError) as damaged:
        _read(game_id, data)
    return str(damaged.value)


def _damaged(game_id: int, why: str) -> str:
    return (
        f"f/arena.db: game {game_id}: the stored record is damaged ({why}). To have that game played again, "
        f'delete it (sqlite3 f/arena.db "DELETE FROM games WHERE id = {game_id}") and run the same command.'
    )


def test_sound_records_read_in_one_pass_share_their_repeated_names():
    """Read by pydantic's own JSON reader, two records' engine names are one string object
    (its string cache: a third of a large folder's memory); the slower path of a damaged
    record's diagnosis would give two."""
    from helpers import random_game_record

    from arena.results.store import record_line

    first, second = random_game_record(0, ["alpha", "beta"]), random_game_record(1, ["alpha", "beta"], seed=1)
    read = [_read(r.id, record_line(r).encode()) for r in (first, second)]
    assert read == [first, second] and read[0].players[0] is read[1].players[0]


def test_a_record_only_the_careful_reader_takes_is_read_and_one_it_refuses_names_why():
    """A lone surrogate in a name (which pydantic's reader refuses and JSON allows) is read
    as text, bytes or str. A record under another row's id, with a place past its seats, in
    UTF-16 or not UTF-8, or cut short, is damaged, each named."""
    from helpers import random_game_record

    from arena.results.store import record_line

    record = random_game_record(0, ["a", "b"])
    line = record_line(record)
    lone = line.replace('"a"', '"\\ud800"', 1)
    assert _read(0, lone.encode()).players == ["\ud800", "b"] == _read(0, lone).players
    assert _read(0, line) == record
    assert _damage(3, line.encode()) == _damaged(3, "its id is 0, not 3")
    places = line.replace('"places":[0,1]', '"places":[0,2]').replace('"places":[1,0]', '"places":[2,0]')
    assert _damage(0, places.encode()) == _damaged(0, "'places' holds a place outside 0..1")
    assert _damage(0, line.encode("utf-16")).startswith(
        "f/arena.db: game 0: the stored record is damaged (not UTF-8 text: "
    )
    assert _damage(0, b'{"game": "\xff"}') == _damaged(0, "not UTF-8 text: invalid start byte at byte 10")
    assert _damage(0, b"{" + b" " * 100_000 + b"x") == _damaged(
        0, "not valid JSON: Expecting property name enclosed in double quotes: line 1 column 100002 (char 10"
    )


def test_a_stored_record_without_a_key_arena_stores_is_damaged_and_names_it():
    from helpers import random_game_record

    from arena.results.store import record_line

    line = record_line(random_game_record(0, ["a", "b"]))
    without_round = line.replace(',"round":0', "")
    assert without_round != line and _damage(0, without_round.encode()) == _damaged(0, "keys missing: round")


def test_a_stored_record_whose_seats_id_or_times_do_not_hold_is_damaged_and_names_which():
    from helpers import random_game_record

    from arena.results.store import record_line

    record = random_game_record(0, ["a", "b"])
    times = list(record.times_ms or [])
    times[2] = -5
    cases = {
        "'players' names no engine": record.replace(players=[]),
        "'id' is -1, not a game number": record.replace(id=-1),
        "'times_ms.2': a time is a non-negative number of milliseconds (got -5)": record.replace(times_ms=times),
    }
    for why, damaged in cases.items():
        assert _damage(0, record_line(damaged).encode()) == _damaged(0, why)
    no_id = record_line(record).replace(',"id":0', ',"id":null')
    assert _damage(0, no_id.encode()) == _damaged(0, "'id' is None, not a game number")


def test_each_seat_count_and_seat_number_of_a_stored_record_is_checked_and_named():
    """Two players: two scores, two places, two engine seeds; places, a winner and a
    forfeiting seat within 0..1, and a time of 0 ms as good as any. A drawn game's shared
    place is no damage."""
    from helpers import random_game_record

    from arena.results.store import record_line

    record = random_game_record(0, ["a", "b"])
    times = list(record.times_ms or [])
    times[1:3] = [0, -5]
    cases = {
        "'times_ms.2': a time is a non-negative number of milliseconds (got -5)": record.replace(times_ms=times),
        "'scores' has 1 entries for 2 players": record.replace(scores=[1.0]),
        "'places' has 3 entries for 2 players": record.replace(places=[0, 1, 2]),
        "'engine_seeds' has 3 entries for 2 players": record.replace(engine_seeds=[1, 2, 3]),
        "'places' holds a place outside 0..1": record.replace(places=[0, 2]),
        "'winner' is seat 2 of a game with 2 players": record.replace(winner=2),
        "'forfeit_seat' is seat 2 of a game with 2 players": record.replace(termination="crash", forfeit_seat=2),
        "'opening_plies' is 99 of 5 moves": record.replace(opening_plies=99),
    }
    for why, damaged in cases.items():
        assert _damage(0, record_line(damaged).encode()) == _damaged(
            0, why.replace("5 moves", f"{len(record.moves)} moves")
        )
    drawn = record.replace(winner=None, places=[0, 0], scores=[0.5, 0.5], times_ms=[0] * len(record.moves))
    assert _read(0, record_line(drawn).encode()) == drawn


def test_games_jsonl_holds_names_in_other_scripts_as_utf8_text_under_any_locale(tmp_path):
    """A stored line keeps "Zoë" as its UTF-8 letters (not a \\u escape), and the file is
    UTF-8 even when the locale's encoding is ASCII."""
    from helpers import ascii_locale, random_game_record

    from arena.results.store import record_line

    record = random_game_record(0, ["Zoë", "b"])
    assert '"players":["Zoë","b"]' in record_line(record)
    with ascii_locale(), GameStore(tmp_path) as store:
        store.open({"name": "t"})
        store.add_many([record])
    assert (tmp_path / "games.jsonl").read_bytes() == (record_line(record) + "\n").encode("utf-8")


def test_a_folder_with_games_refuses_other_settings_and_one_without_takes_them_over(tmp_path):
    from helpers import random_game_record

    empty, played = tmp_path / "empty", tmp_path / "played"
    for folder in (empty, played):
        with GameStore(folder) as store:
            store.open({"name": "t", "game": "hex", "seed": 1})
            if folder == played:
                store.add_many([random_game_record(0, ["a", "b"])])
    with GameStore(empty) as store:
        store.open({"name": "t", "game": "hex", "seed": 2})  # no game yet: the new settings hold
        assert json.loads(store.get_meta("settings") or "") == {"name": "t", "game": "hex", "seed": 2}
    with GameStore(played) as store, pytest.raises(StorageError) as refused:
        store.open({"name": "t", "game": "hex", "seed": 2})
    where = played.resolve()
    assert str(refused.value) == (
        f"{where} holds games played under other settings, and a folder never mixes them. Changed: seed: 1 -> 2. "
        f"Only raising 'rounds' extends a folder. To play the new settings, give a new folder with --out "
        f"(for example --out {where}-2), or delete {where} to start over."
    )


def test_a_folder_whose_stored_settings_are_damaged_names_them_and_the_way_out(tmp_path):
    from helpers import random_game_record

    with GameStore(tmp_path) as store:
        store.open({"name": "t"})
        store.add_many([random_game_record(0, ["a", "b"])])
        store.set_meta("settings", "{not json")
    with GameStore(tmp_path) as store, pytest.raises(StorageError) as damaged:
        store.open({"name": "t"})
    assert str(damaged.value) == (
        f"{tmp_path.resolve() / 'arena.db'}: its stored 'settings' is damaged; start a new folder with --out, "
        f"or remove the folder to play the tournament again"
    )


def test_a_records_check_mark_is_the_documented_digest_so_older_folders_keep_theirs():
    """sha256 of 'arena checked record v1' and a newline before the record's text: a
    folder marked by an earlier arena is not replayed again for nothing."""
    import hashlib

    from arena.results.store import check_mark

    assert check_mark(b'{"game":"hex"}') == hashlib.sha256(b'arena checked record v1\n{"game":"hex"}').hexdigest()


def test_games_added_together_are_one_line_each_in_games_jsonl(tmp_path):
    from helpers import random_game_record

    from arena.results.store import record_line

    records = [random_game_record(k, ["a", "b"], seed=k) for k in range(3)]
    with GameStore(tmp_path) as store:
        store.open({"name": "t"})
        store.add_many(records)
    assert (tmp_path / "games.jsonl").read_text(encoding="utf-8") == "".join(record_line(r) + "\n" for r in records)


def test_stored_settings_are_kept_sorted_and_every_change_is_named(tmp_path):
    from helpers import random_game_record

    with GameStore(tmp_path) as store:
        store.open({"seed": 1, "name": "t", "game": "hex"})
        assert store.get_meta("settings") == '{"game": "hex", "name": "t", "seed": 1}'
        store.add_many([random_game_record(0, ["a", "b"])])
    with GameStore(tmp_path) as store, pytest.raises(StorageError) as refused:
        store.open({"seed": 2, "name": "t", "game": "groups"})
    assert 'Changed: game: "hex" -> "groups"; seed: 1 -> 2. Only raising' in str(refused.value)


def test_a_store_closed_without_being_opened_closes_quietly_and_one_opens_a_new_nested_folder(tmp_path):
    with GameStore(tmp_path / "never"):
        pass  # a run refused before its folder was opened still closes its store
    nested = tmp_path / "results" / "hex" / "run-1"
    with GameStore(nested) as store:
        store.open({"name": "t"})
    assert (nested / "arena.db").is_file()


def test_a_store_closed_twice_closes_quietly_and_holds_no_lock_after(tmp_path):
    """close() lets go of the database and the lock once: a second close (a run's `with` after
    an early close) does nothing, and the closed store has no lock descriptor for a worker to
    release."""
    store = GameStore(tmp_path)
    store.open({"name": "t", "game": "hex"})
    assert store.lock_fd is not None
    store.close()
    assert store.lock_fd is None and store.db is None
    store.close()
    with GameStore(tmp_path) as again:  # the lock was let go of
        again.open({"name": "t", "game": "hex"})


def test_the_marks_of_replayed_games_are_kept_in_one_transaction(tmp_path):
    """A resume marks every game its replay agreed with (all of an older folder's, the first
    time): one transaction for them all, as add_many stores games, not a commit per game."""
    from helpers import random_game_record

    from arena.results.store import StoredGame

    records = [random_game_record(k, ["a", "b"], seed=k) for k in range(3)]
    with GameStore(tmp_path) as store:
        store.open({"name": "t", "game": "hex"})
        store.add_many(records)
        assert store.db is not None
        statements: list[str] = []
        store.db.set_trace_callback(statements.append)
        store.mark_checked(StoredGame(r, f"mark {r.id}", False) for r in records)
        store.db.set_trace_callback(None)
        marks = store.db.execute("SELECT id, mark FROM checked ORDER BY id").fetchall()
    assert [s.split()[0].upper() for s in statements] == ["BEGIN", "INSERT", "INSERT", "INSERT", "COMMIT"]
    assert marks == [(0, "mark 0"), (1, "mark 1"), (2, "mark 2")]
