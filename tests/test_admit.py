"""A results folder counts only the games its schedule holds, with the result their moves
give: a row copied under another id, a changed seat or seed, or a changed winner is refused
by a resume (naming the games and the way out) and left out by `arena results`.  A project
moved elsewhere, its tournament file and results folder side by side as before, resumes.
Every case goes through a real SQLite file and the real CLI."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner
from helpers import ROOT, ZOO, run_arena

from arena.cli import main
from arena.record import GameRecord
from arena.results.admit import Played, Refused, admit, judge, refusal_text, refused_line, replay_problem
from arena.results.slots import round_tables, slots
from arena.results.store import StoredGame, read_stored
from arena.rules import make_game

pytestmark = pytest.mark.timeout(240)

# A project as a user keeps one: the tournament file, its engines beside it (named
# relative to it, one by a folder of its own, one by a script run as the program) and
# its results folder.
TOURNAMENT = """name = "t"
game = "hex"
rounds = 1
seed = 3
workers = 1

[options]
size = 3
swap = false

[time_control]
movetime_ms = 500

[[engines]]
name = "a"
command = ["{python}", "engines/zoo_engine.py", "good"]

[[engines]]
name = "b"
command = ["{python}", "zoo_engine.py", "good"]
cwd = "engines"

[[engines]]
name = "c"
command = ["./engines/zoo.sh"]
"""


def make_project(where: Path) -> Path:
    (where / "engines").mkdir(parents=True)
    shutil.copy(ZOO, where / "engines" / "zoo_engine.py")
    script = where / "engines" / "zoo.sh"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$(dirname "$0")/zoo_engine.py" good\n')
    script.chmod(0o755)
    (where / "t.toml").write_text(TOURNAMENT)
    return where / "t.toml"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A finished project: six games of Hex 3x3 in its folder out/."""
    where = tmp_path_factory.mktemp("made") / "project"
    path = make_project(where)
    proc = run_arena("run", path, "--out", where / "out", "-q", timeout=120)
    assert proc.returncode == 0, proc.stderr
    return where


def copy_of(project: Path, where: Path) -> Path:
    shutil.copytree(project, where, symlinks=True)
    return where


def sql(folder: Path, statement: str) -> None:
    db = sqlite3.connect(folder / "arena.db")
    with db:
        assert db.execute(statement).rowcount == 1, statement
    db.close()


def count(folder: Path, table: str = "games") -> int:
    db = sqlite3.connect(folder / "arena.db")
    try:
        return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        db.close()


COPIED_AS_9999 = (
    "INSERT INTO games SELECT 9999, round, players, termination, winner, "
    "json_set(record, '$.id', 9999) FROM games WHERE id = 3"
)
EDITS = {
    "a row copied under id 9999": (COPIED_AS_9999, 9999, "the schedule has no game 9999 (its games are 0..5)"),
    "a seat changed": (
        "UPDATE games SET record = json_set(record, '$.players[1]', 'c') WHERE id = 0",
        0,
        "its seats are a, c; the schedule's game 0 seats a, b",
    ),
    "a seed changed": (
        "UPDATE games SET record = json_set(record, '$.seed', 7) WHERE id = 2",
        2,
        "its seed is 7; the schedule's game 2 has seed",
    ),
    "a winner changed": (
        "UPDATE games SET record = json_set(record, '$.winner', 1 - json_extract(record, '$.winner'), "
        "'$.scores', json(json_array(json_extract(record, '$.scores[1]'), json_extract(record, '$.scores[0]'))), "
        "'$.places', json(json_array(json_extract(record, '$.places[1]'), json_extract(record, '$.places[0]')))) "
        "WHERE id = 4",
        4,
        "its winner is",
    ),
    "the winner column changed": (
        "UPDATE games SET winner = 1 - winner WHERE id = 5",
        5,
        "its row's winner column says",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(EDITS))
def test_a_game_the_schedule_or_the_moves_do_not_give_is_refused_and_not_counted(project, tmp_path, case):
    statement, game_id, why = EDITS[case]
    where = copy_of(project, tmp_path / "project")
    out = where / "out"
    sql(out, statement)
    stored = count(out)
    proc = run_arena("run", where / "t.toml", "--out", out, "-q", timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    message = proc.stderr
    assert "Traceback" not in message and len(message.strip().splitlines()) == 1, message
    assert f"game {game_id}: {why}" in message, message
    assert f"DELETE FROM games WHERE id IN ({game_id})" in message and "--out" in message, message
    assert "arena verify" in message and count(out) == stored  # nothing played, nothing removed

    # `arena results` only reads the folder: in process (the resumes around it are processes)
    shown = CliRunner().invoke(main, ["results", str(out), "--wide"])  # its lines unwrapped
    assert shown.exit_code == 0, shown.output
    assert f"not counted: game(s) {game_id}," in shown.output and why in shown.output, shown.output
    results = json.loads(CliRunner().invoke(main, ["results", str(out), "-f", "json"]).output)
    assert [r["id"] for r in results["not_counted"]] == [game_id]
    counted = 6 if game_id == 9999 else 5
    assert results["games"] == counted and results["scheduled_games"] == 6
    assert results["finished"] is (counted == 6)
    assert sum(row["games"] for row in results["standings"]) == 2 * counted

    if game_id == 9999:  # the site leaves it out and names it too
        site = run_arena("report", out, "--out", tmp_path / "site", timeout=120)
        assert site.returncode == 0, site.stderr
        page = (tmp_path / "site" / "index.html").read_text()
        assert 'id="not-counted"' in page and "<td>9999</td>" in page and "the schedule has no game 9999" in page

    sql(out, f"DELETE FROM games WHERE id = {game_id}")  # the way out the message gives
    again = run_arena("run", where / "t.toml", "--out", out, "-q", timeout=120)
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "results.json").read_text())["games"] == 6
    assert json.loads((out / "results.json").read_text())["not_counted"] == []


@pytest.mark.slow
def test_a_record_without_its_mark_is_replayed_and_marked_again(project, tmp_path):
    """A folder an older arena made has no checked marks: its records are replayed once on
    resume, then marked; an edited record loses its mark (its text changed)."""
    where = copy_of(project, tmp_path / "project")
    out = where / "out"
    meta, stored = read_stored(out)
    assert len(stored) == 6 and all(game.checked for game in stored)  # the referee's records, marked
    db = sqlite3.connect(out / "arena.db")
    with db:
        db.execute("DROP TABLE checked")
    db.close()
    assert not any(game.checked for game in read_stored(out)[1])
    assert CliRunner().invoke(main, ["results", str(out)]).exit_code == 0  # replayed, all counted
    proc = run_arena("run", where / "t.toml", "--out", out, "-q", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert count(out, "checked") == 6 and all(game.checked for game in read_stored(out)[1])
    sql(out, "UPDATE games SET record = replace(record, '\"moves\":[', '\"moves\": [') WHERE id = 1")
    assert [game.checked for game in read_stored(out)[1]] == [True, False, True, True, True, True]


@pytest.mark.slow
def test_a_project_moved_elsewhere_resumes_and_a_changed_cwd_is_still_refused(project, tmp_path):
    where = copy_of(project, tmp_path / "elsewhere" / "deeper")
    path = where / "t.toml"
    path.write_text(path.read_text().replace("rounds = 1", "rounds = 2"))
    proc = run_arena("run", path, "--out", where / "out", "-q", timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6 games played, 6 resumed" in proc.stdout
    settings = json.loads((where / "out" / "results.json").read_text())["settings"]
    assert settings["paths"] == "relative"
    assert [e["cwd"] for e in settings["engines"]] == [".", "engines", "."]
    assert [e["command"][:2] for e in settings["engines"]][:2] == [
        ["{python}", "engines/zoo_engine.py"],
        ["{python}", "zoo_engine.py"],
    ]
    assert settings["engines"][2]["command"] == ["engines/zoo.sh"]
    assert str(tmp_path) not in json.dumps(settings)

    (where / "sub").mkdir()
    shutil.copy(where / "engines" / "zoo_engine.py", where / "sub")
    path.write_text(path.read_text().replace('cwd = "engines"', 'cwd = "sub"'))
    moved = run_arena("run", path, "--out", where / "out", "-q", timeout=120)
    assert moved.returncode == 2 and 'engines.b.cwd: "engines" -> "sub"' in moved.stderr, moved.stderr


def test_the_check_reads_each_game_against_its_slot():
    """The slots number the games as the schedule does, and the replay names what differs."""
    schedule = list(slots(round_tables(["a", "b", "c"], 2, "round-robin"), 1, 3))
    assert [s.seats for s in schedule] == [("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")]
    assert schedule[0].seed == schedule[1].seed != schedule[2].seed
    game = GameRecord(game="hex", options={"size": 3, "swap": False}, moves=[], seed=schedule[0].seed)
    assert replay_problem(game) is None  # no result recorded, none derived
    moves = ["a1", "b1", "a2", "b2", "a3", "b3"]
    state = make_game("hex", {"size": 3, "swap": False}).initial_state(schedule[0].seed)
    for move in moves:
        if not state.is_terminal():
            state.play(move)
    won = game.replace(moves=state.moves, termination="normal", winner=state.winner())
    assert state.is_terminal() and replay_problem(won) is None
    lost = won.replace(winner=1 - state.winner())
    assert replay_problem(lost) == f"its winner is {1 - state.winner()} but its moves give {state.winner()}"


def test_a_game_stored_with_its_seats_swapped_is_not_its_slots_game():
    """Both seat orders of a table share a round and a seed, so only the order of the players
    tells game 0 (a, b) from game 1 (b, a): a record of game 0 with the seats of game 1 is
    refused, the same players in the slot's order counted."""
    schedule = list(slots(round_tables(["a", "b"], 2, "round-robin"), 1, 3))
    game = GameRecord(id=0, game="hex", options={"size": 3, "swap": False}, moves=[], round=0, seed=schedule[0].seed)
    as_scheduled = StoredGame(game.replace(players=["a", "b"]), mark="", checked=True)
    swapped = StoredGame(game.replace(players=["b", "a"]), mark="", checked=True)
    assert admit([as_scheduled], schedule, None).counted == [as_scheduled.record]
    admitted = admit([swapped], schedule, None)
    assert admitted.counted == []
    assert admitted.refused == [Refused(0, "its seats are b, a; the schedule's game 0 seats a, b")]


def test_a_game_of_other_options_is_refused_by_its_id_and_a_replayed_one_is_kept_to_be_marked():
    """Game 0, stored without its mark, is replayed, agrees and is counted, to be marked
    again; game 1 sits in its slot but was played on another board than the tournament's,
    and is refused under its own id, as results.json lists it."""
    options = {"size": 3, "swap": False}
    schedule = list(slots(round_tables(["a", "b"], 2, "round-robin"), 1, 3))
    first = GameRecord(id=0, game="hex", options=options, moves=[], round=0, seed=schedule[0].seed, players=["a", "b"])
    second = first.replace(id=1, options={"size": 4, "swap": False}, seed=schedule[1].seed, players=["b", "a"])
    unmarked, other_board = StoredGame(first, mark="", checked=False), StoredGame(second, mark="", checked=True)
    admitted = admit([unmarked, other_board], schedule, Played("hex", options, book=False))
    assert admitted.counted == [first] and admitted.replayed == [unmarked]
    assert [r.as_dict() for r in admitted.refused] == [
        {
            "id": 1,
            "why": "it is a game of hex {'size': 4, 'swap': False}; the tournament plays hex {'size': 3, 'swap': False}",
        }
    ]


@pytest.mark.slow
def test_the_resume_benchmark_prints_its_figures():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "resume_check.py"), "--games", "20", "--repeats", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "hex 9x9, 20 games" in proc.stdout and "every record replayed" in proc.stdout
    assert len([line for line in proc.stdout.splitlines() if line.endswith("us/game")]) == 4


def test_a_refused_folder_names_its_games_why_and_the_ways_out():
    db = Path("/runs/out/arena.db")
    one = [Refused(4, "a move is illegal")]
    assert refusal_text(db, one) == (
        "/runs/out/arena.db holds 1 game(s) that are not the tournament's as played, and a resume never counts "
        'them: game 4: a move is illegal. Delete them (sqlite3 /runs/out/arena.db "DELETE FROM games WHERE id IN '
        '(4)") and run the same command, which plays the scheduled games then missing; or start a new folder '
        "with --out; 'arena verify /runs/out/games.jsonl' shows each record's replay."
    )
    many = [Refused(k, f"why {k}") for k in (9, 3, 7, 1, 5, 3, 8)]  # game 3 twice: two reasons
    text = refusal_text(db, many)
    assert text.startswith(
        "/runs/out/arena.db holds 6 game(s) that are not the tournament's as played, and a resume never counts "
        "them: game 9: why 9; game 3: why 3; game 7: why 7; game 1: why 1; game 5: why 5; and 2 more. "
        'Delete them (sqlite3 /runs/out/arena.db "DELETE FROM games WHERE id IN (1, 3, 5, 7, 8, 9)") and run'
    )
    assert "game 5: why 5; and 1 more. Delete them" in refusal_text(db, many[:6])
    five = refusal_text(db, many[:5])
    assert "game 5: why 5. Delete them" in five and "more" not in five
    assert refused_line(one) == (
        "not counted: game(s) 4, which are not the tournament's as played (game 4: a move is illegal). Delete "
        "those rows from arena.db and run the tournament again to play them, or start a new folder; "
        "'arena verify games.jsonl' shows each record's replay."
    )
    assert refused_line(many[:4]).startswith(
        "not counted: game(s) 9, 3, 7, 1, which are not the tournament's as played "
        "(game 9: why 9; game 3: why 3; game 7: why 7; ...). Delete those rows"
    )
    assert refused_line(many[:3]).startswith(
        "not counted: game(s) 9, 3, 7, which are not the tournament's as played "
        "(game 9: why 9; game 3: why 3; game 7: why 7). Delete"
    )


def test_a_replay_names_a_mismatchs_reason_and_an_absent_value_as_none():
    """A normal game that names a forfeiting seat: the replay derives no seat (shown as
    none) and says why, in brackets."""
    state = make_game("hex", {"size": 3, "swap": False}).initial_state(5)
    for move in ["a1", "b1", "a2", "b2", "a3"]:
        state.play(move)
    assert state.is_terminal()
    game = GameRecord(
        game="hex",
        options={"size": 3, "swap": False},
        seed=5,
        moves=state.moves,
        termination="normal",
        winner=state.winner(),
        forfeit_seat=1,
    )
    assert replay_problem(game) == (
        "its forfeit_seat is 1 but its moves give none (a game that ended by the rules has no forfeiting seat)"
    )


def test_a_gauntlets_stored_settings_slot_each_candidate_against_each_other_engine_only():
    """A folder's gauntlet is checked against the gauntlet's schedule: the candidate against
    every engine that is not one, in both seat orders, never the others against each other."""
    from arena.record import derive_seed
    from arena.results.slots import Slot, settings_slots

    settings = {
        "engines": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
        "format": "gauntlet",
        "candidates": ["c"],
        "rounds": 1,
        "seed": 7,
    }
    first, second = (derive_seed(7, "round", 0, "table", k) for k in (0, 1))
    assert settings_slots(settings, 2) == [
        Slot(0, 0, 0, ("c", "a"), first),
        Slot(1, 0, 0, ("a", "c"), first),
        Slot(2, 0, 1, ("c", "b"), second),
        Slot(3, 0, 1, ("b", "c"), second),
    ]


class _Slot(NamedTuple):
    """A slot as the schedule's Scheduled protocol reads it (the setup: a book line's board)."""

    round: int
    seats: tuple[str, ...]
    seed: int
    setup: str | None = None


def test_judging_a_game_past_the_schedules_end_names_the_ids_it_has():
    """Game 2 of a two-game schedule, and any game of an empty one, are refused with the
    ids the schedule holds; neither is replayed."""
    record = GameRecord(
        id=2, game="hex", options={"size": 3, "swap": False}, moves=[], round=0, seed=7, players=["a", "b"]
    )
    schedule = [_Slot(0, ("a", "b"), 7), _Slot(0, ("b", "a"), 7)]
    assert judge(StoredGame(record, mark="", checked=True), schedule, None) == (
        "the schedule has no game 2 (its games are 0..1)",
        False,
    )
    first = StoredGame(record.replace(id=0), mark="", checked=False)
    assert judge(first, [], None) == ("the schedule has no game 0 (its games are none)", False)
    assert judge(first, schedule[:1], None) == (None, True)  # in its slot: replayed, and it agrees


def test_judging_a_book_slot_asks_for_its_board_and_the_records_word_that_it_was_the_books():
    """A slot that starts on a book line's board counts a game with that board and
    ``opening_setup`` true; the same board without the word, or the word on another board, is
    refused."""
    game = make_game("hex", {"size": 3, "swap": False})
    board = game.initial_state(7).setup_token()
    slot = _Slot(0, ("a", "b"), 7, setup=board)
    record = GameRecord(
        id=0, game="hex", options={"size": 3, "swap": False}, moves=[], round=0, seed=7, players=["a", "b"]
    )
    why = "its board is not its opening's: the schedule's game 0 starts on the board of its book line"
    judged = [
        judge(StoredGame(r, mark="", checked=True), [slot], None)
        for r in (
            record.replace(setup=board, opening_setup=True),
            record.replace(setup=board, opening_setup=None),
            record.replace(setup=None, opening_setup=True),
        )
    ]
    assert judged == [(None, False), (why, False), (why, False)]


def test_judging_an_unmarked_game_whose_moves_do_not_hold_refuses_it_unmarked():
    """A game stored without its mark is replayed: a winner its moves do not give is the
    refusal, and the game is not kept to be marked."""
    state = make_game("hex", {"size": 3, "swap": False}).initial_state(7)
    for move in ["a1", "b1", "a2", "b2", "a3"]:
        state.play(move)
    assert state.is_terminal() and state.winner() == 0
    record = GameRecord(
        id=0,
        game="hex",
        options={"size": 3, "swap": False},
        moves=state.moves,
        round=0,
        seed=7,
        players=["a", "b"],
        termination="normal",
        winner=1,
    )
    assert judge(StoredGame(record, mark="", checked=False), None, None) == (
        "its winner is 1 but its moves give 0",
        False,
    )
