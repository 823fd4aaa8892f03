"""Games on a book's board: in Posies, which deals its board at random from each game's seed,
a book line is a position (the board's setup token, then moves); its games start on that
board, their records say so (``opening_setup``), and every reader replays them from it:
``arena verify``, a resume's admission, ``arena results``, the report site and the live feed.
A record that does not say so is checked against its seed as before."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, engine_toml, run_arena, write_tournament

from arena.cli import main
from arena.engine.player import Reply
from arena.record import GameRecord, starting_state
from arena.results.verify import verify_record
from arena.rules import make_game
from arena.serve.feed import LiveGame
from arena.tournament.config import build_schedule, load_tournament
from arena.tournament.livegames import FileSink, LiveReader, LiveWriter, WatchMark, read_live_games, touch_watching

GAME = make_game("posies", {"players": 2})
FIRST, SECOND = GAME.initial_state(5), GAME.initial_state(6)  # two boards, neither a game's seed's
FIRST_MOVE = FIRST.legal_moves()[3]
BOOK = f"# options players=2\n{FIRST.setup_token()} {FIRST_MOVE}\n{SECOND.setup_token()}\n"


def posies_book_tournament(where: Path, variant: int = 0, rounds: int = 2) -> Path:
    (where / "book.txt").write_text(BOOK)
    here = f'cwd = "{ROOT}"'
    engines = "".join(engine_toml(n, "{python}", "-m", "engines.random_engine", extra=here) for n in "ab")
    return write_tournament(
        where,
        engines,
        game="posies",
        options=f"players = 2\nvariant = {variant}",
        rounds=rounds,
        seed=3,
        time_control="movetime_ms = 1000",
        extra='openings = "book.txt"',
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A finished run over the two-line book: each line's board in both seat orders."""
    where = tmp_path_factory.mktemp("boards")
    proc = run_arena("run", posies_book_tournament(where), "--out", where / "out", "-q", timeout=120)
    assert proc.returncode == 0, proc.stderr
    return where


def records(out: Path) -> list[dict]:
    return sorted((json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()), key=lambda r: r["id"])


def stored(out: Path) -> dict[int, dict]:
    db = sqlite3.connect(out / "arena.db")
    try:
        return {i: json.loads(text) for i, text in db.execute("SELECT id, record FROM games")}
    finally:
        db.close()


@pytest.mark.slow  # the module's run
def test_each_game_is_played_on_its_lines_board_and_replays_from_it(project):
    played = records(project / "out")
    boards = [r["setup"] for r in played]
    assert boards == [FIRST.setup_token()] * 2 + [SECOND.setup_token()] * 2  # a table's seat orders share a line
    assert all(r["opening_setup"] is True for r in played)
    assert all(r["termination"] == "normal" for r in played)  # the engines were told the line's board
    assert [r.get("opening_plies") for r in played] == [1, 1, None, None]
    assert all(r["moves"][0] == FIRST_MOVE for r in played[:2])
    assert all(GAME.initial_state(r["seed"]).setup_token() != r["setup"] for r in played)  # not the seed's board
    verified = run_arena("verify", project / "out" / "games.jsonl")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    shown = CliRunner().invoke(main, ["results", str(project / "out")])
    assert shown.exit_code == 0 and "not counted" not in shown.output, shown.output
    assert (project / "out" / "report" / "index.html").is_file()  # the site replayed every game


def test_random_plies_and_a_cut_book_keep_each_lines_board(tmp_path):
    """``plies`` cuts a line's moves, never its board; ``random_plies`` are drawn on the board."""
    path = posies_book_tournament(tmp_path)
    text = path.read_text().replace('openings = "book.txt"', "")
    path.write_text(text + '\n[openings]\nfile = "book.txt"\nplies = 1\nrandom_plies = 3\n')
    t = load_tournament(path)
    assert t.openings == [(FIRST.setup_token(), FIRST_MOVE), (SECOND.setup_token(),)]
    games = build_schedule(t)
    assert [g.setup for g in games] == [FIRST.setup_token()] * 2 + [SECOND.setup_token()] * 2
    assert [len(g.opening) for g in games] == [4, 4, 3, 3] and games[0].opening[0] == FIRST_MOVE
    for g in games:
        state = GAME.state_from_setup(g.setup or "")
        for move in g.opening:
            state.play(move)  # legal on the line's board
        assert not state.is_terminal()


def test_an_events_tables_take_the_books_boards_in_turn(tmp_path):
    """A Swiss round's tables (arena/results/events.py draws them) take the book's lines in
    turn, each line's board with it, as a round-robin's do."""
    path = posies_book_tournament(tmp_path, rounds=1)
    here = f'cwd = "{ROOT}"'
    more = "".join(engine_toml(n, "{python}", "-m", "engines.random_engine", extra=here) for n in "cd")
    path.write_text(path.read_text().replace("rounds = 1", 'rounds = 1\nformat = "swiss"') + more)
    games = build_schedule(load_tournament(path))
    assert [g.setup for g in games] == [FIRST.setup_token()] * 2 + [SECOND.setup_token()] * 2
    assert [g.opening for g in games] == [(FIRST_MOVE,)] * 2 + [()] * 2


@pytest.mark.slow  # the module's run
def test_a_record_that_does_not_say_its_board_was_a_books_is_checked_against_its_seed(project):
    record = GameRecord.model_validate(records(project / "out")[0])
    assert verify_record(record)["ok"]
    unmarked = GameRecord.model_validate({k: v for k, v in record.to_json().items() if k != "opening_setup"})
    with pytest.raises(ValueError, match=r"'setup' does not match the setup that seed \d+ produces"):
        verify_record(unmarked)
    without_board = GameRecord.model_validate({k: v for k, v in record.to_json().items() if k != "setup"})
    with pytest.raises(ValueError, match="'opening_setup' is true but the record has no 'setup'"):
        verify_record(without_board)


@pytest.mark.slow
def test_a_resume_plays_the_missing_games_on_their_boards_and_refuses_a_board_changed(project, tmp_path):
    where = tmp_path / "copy"
    shutil.copytree(project, where)
    out = where / "out"
    before = stored(out)
    db = sqlite3.connect(out / "arena.db")
    with db:
        db.execute("DELETE FROM games WHERE id IN (1, 2)")  # as if the run was stopped before storing them
    db.close()
    proc = run_arena("run", where / "t.toml", "--out", out, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "2 games played, 2 resumed" in proc.stdout, proc.stdout
    after = stored(out)
    for game_id in (1, 2):  # the same games again: variant 0 deals nothing the seed does not give
        for key in ("players", "seed", "setup", "opening_setup", "opening_plies", "moves", "scores"):
            assert after[game_id].get(key) == before[game_id].get(key), key
    assert {i: after[i] for i in (0, 3)} == {i: before[i] for i in (0, 3)}

    db = sqlite3.connect(out / "arena.db")
    with db:  # game 0 moved to the other line's board, its moves still legal there or not
        db.execute("UPDATE games SET record = json_set(record, '$.setup', ?) WHERE id = 0", (SECOND.setup_token(),))
    db.close()
    refused = run_arena("run", where / "t.toml", "--out", out, timeout=120)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "game 0: its board is not its opening's" in refused.stderr and "Traceback" not in refused.stderr


@pytest.mark.slow
def test_a_hidden_colour_game_on_a_books_board_replays_with_its_own_deal(tmp_path):
    """Variant 2: the board is the line's, the hidden posies a deal of the game's own
    (drawn when it starts, recorded at its end), from which `arena verify` re-scores it."""
    path = posies_book_tournament(tmp_path, variant=2, rounds=1)
    proc = run_arena("run", path, "--out", tmp_path / "out", "-q", timeout=120)
    assert proc.returncode == 0, proc.stderr
    played = records(tmp_path / "out")
    assert [r["setup"] for r in played] == [FIRST.setup_token()] * 2
    assert all(r["opening_setup"] is True and "deal" in r and "hidden" in r["details"] for r in played)
    assert played[0]["deal"] != played[1]["deal"]
    verified = run_arena("verify", tmp_path / "out" / "games.jsonl")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_live_game_on_a_books_board_is_shown_from_that_board(tmp_path):
    live = tmp_path / "live"
    live.mkdir()
    touch_watching(live)
    writer = LiveWriter(FileSink(live / "0.jsonl"), WatchMark(live), 0, 0, ["a", "b"])
    state, deal = starting_state(GAME, 5, ["a", "b"], setup=SECOND.setup_token())
    writer.begin(state, 5, deal, True)
    move = state.legal_moves()[0]
    state.play(move)
    writer.moved(state, 0, Reply(move, 0.25, None, None), None)
    deadline = time.monotonic() + 5
    while not read_live_games(live) and time.monotonic() < deadline:  # shown once it lasted FLUSH_S
        time.sleep(0.01)
    [(_, path)] = read_live_games(live).values()
    reader = LiveReader(path)
    assert reader.update() and reader.head is not None and reader.head.get("opening_setup") is True
    shown = LiveGame(reader, reader.head)
    assert shown.replay.state.setup_token() == SECOND.setup_token()
    writer.end()


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_cluster_run_plays_the_books_boards_as_a_local_run(project, tmp_path):
    """The book's board travels with each game to the Dask workers: the same games, on the
    same boards, with the same moves as on the local workers."""
    pytest.importorskip("distributed")
    clustered = tmp_path / "c.toml"
    clustered.write_text((project / "t.toml").read_text() + '\n[cluster]\naddress = "local:2"\n')
    shutil.copy(project / "book.txt", tmp_path / "book.txt")
    remote = run_arena("run", clustered, "--out", tmp_path / "cluster", "-q", timeout=240)
    assert remote.returncode == 0, remote.stderr

    def games(out: Path) -> list[tuple]:
        return [(r["id"], r["setup"], r["opening_setup"], r["moves"], r["winner"]) for r in records(out)]

    assert games(tmp_path / "cluster") == games(project / "out")


LEGACY = ROOT / "tests" / "data" / "legacy-posies2"  # made by arena before books had boards
LEGACY_MADE_IN = "/tmp/p4_posies_suite/old"  # the engines' cwd its stored settings hold


@pytest.mark.slow
def test_a_posies_folder_made_before_resumes_with_more_rounds_and_verifies(tmp_path):
    """Two hidden-colour games stored by the arena before this change (setups from their
    seeds, deals recorded, no opening_setup): a resume with a second round keeps them as they
    were and plays the new round, and every record verifies."""
    out = tmp_path / "out"
    out.mkdir()
    for name in ("arena.db", "games.jsonl"):
        shutil.copy(LEGACY / name, out / name)
    toml = (LEGACY / "tournament.toml.in").read_text().replace("{root}", str(ROOT))
    (tmp_path / "t.toml").write_text(toml.replace("rounds = 1", "rounds = 2"))
    db = sqlite3.connect(out / "arena.db")
    with db:
        [(text,)] = db.execute("SELECT value FROM meta WHERE key = 'settings'")
        settings = json.loads(text)
        for engine in settings["engines"]:
            engine["cwd"] = engine["cwd"].replace(LEGACY_MADE_IN, str(ROOT))
        db.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (json.dumps(settings, sort_keys=True),))
    db.close()
    before = {i: json.dumps(r, sort_keys=True) for i, r in stored(out).items()}
    proc = run_arena("run", tmp_path / "t.toml", "--out", out, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "2 games played, 2 resumed" in proc.stdout, proc.stdout
    after = stored(out)
    assert {i: json.dumps(after[i], sort_keys=True) for i in before} == before
    assert all(
        "opening_setup" not in r and GAME.initial_state(r["seed"]).setup_token() == r["setup"] for r in after.values()
    )
    verified = run_arena("verify", out / "games.jsonl")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert len(verified.stdout.splitlines()) == 4


@pytest.mark.slow
def test_a_game_that_says_it_started_on_a_books_board_where_there_is_no_book_is_refused(tmp_path):
    """Without a book a Posies game's board is its seed's: a stored record that claims a
    book's board (and names another) is neither resumed nor counted."""
    path = posies_book_tournament(tmp_path, rounds=1)
    path.write_text(path.read_text().replace('openings = "book.txt"', ""))
    out = tmp_path / "out"
    assert run_arena("run", path, "--out", out, "-q", timeout=120).returncode == 0
    db = sqlite3.connect(out / "arena.db")
    with db:
        db.execute(
            "UPDATE games SET record = json_set(record, '$.setup', ?, '$.opening_setup', json('true')) WHERE id = 0",
            (SECOND.setup_token(),),
        )
    db.close()
    refused = run_arena("run", path, "--out", out, "-q", timeout=120)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    why = "game 0: it says it started on an opening book's board, but the tournament plays no book"
    assert why in refused.stderr and "Traceback" not in refused.stderr
    shown = CliRunner().invoke(main, ["results", str(out), "--wide"])  # its lines unwrapped
    assert shown.exit_code == 0 and "not counted: game(s) 0" in shown.output and why in shown.output, shown.output
