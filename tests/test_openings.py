"""Opening books: checked when the tournament file is loaded, each opening played from
every seat, recorded and verifiable."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ZOO, engine_toml, run_arena, write_tournament

from arena.cli import main
from arena.tournament.config import ConfigError, load_tournament
from arena.tournament.schedule import round_robin


def tournament(
    tmp_path: Path, book: str | None, game: str = "hex", options: str = "size = 5\nswap = false", rounds: int = 2
) -> Path:
    if book is not None:
        (tmp_path / "book.txt").write_text(book)
    engines = "".join(engine_toml(name, "{python}", ZOO, "good") for name in "abc")
    return write_tournament(
        tmp_path,
        engines,
        name="book",
        game=game,
        options=options,
        rounds=rounds,
        seed=4,
        time_control="movetime_ms = 500",
        extra='openings = "book.txt"' if book is not None else "",
    )


def test_book_is_loaded_in_canonical_spelling_skipping_comments(tmp_path):
    t = load_tournament(tournament(tmp_path, "# first moves\nc3\n\n  c3 d3 \nb2 e4  # 0.512 (draw 3)\n"))
    assert t.openings == [("c3",), ("c3", "d3"), ("b2", "e4")]


def test_each_opening_is_played_from_every_seat_and_the_book_is_cycled():
    book = [("c3",), ("b2", "d4"), ("e5",)]
    games = round_robin(["a", "b", "c"], 2, 2, 1, book)
    by_table = {}
    for g in games:
        by_table.setdefault((g.round, frozenset(g.seats)), set()).add(g.opening)
    assert all(len(openings) == 1 for openings in by_table.values())  # both seat orders share it
    assert [g.opening for g in games[::2]] == [book[i % 3] for i in range(6)]
    assert all(g.opening == () for g in round_robin(["a", "b"], 2, 1, 1))


@pytest.mark.parametrize(
    "book,game,options,message",
    [
        ("c3 c3\n", "hex", "size = 5", "book.txt, line 1: 'c3' at ply 1 is illegal"),
        ("c3\nzz9\n", "hex", "size = 5", "book.txt, line 2: 'zz9' at ply 0 is illegal"),
        ("a1 b1 a2 b2 a3\n", "hex", "size = 3", "line 1: the game is over after this opening"),
        ("# nothing\n\n", "hex", "size = 5", "no openings in the file"),
        ("c3\n", "posies", "players = 2", "book.txt, line 1: posies deals its board at random, so each opening starts"),
        (f"{'pug' * 17} d1-e1\n", "posies", "players = 2", "book.txt, line 1: 'd1-e1' at ply 0 is illegal"),
        (None, "hex", "size = 5", "cannot read the openings file"),
    ],
)
def test_bad_books_are_refused_naming_the_line_and_the_fix(tmp_path, book, game, options, message):
    path = tournament(tmp_path, book, game, options)
    if book is None:
        path.write_text(path.read_text().replace("seed = 4", 'seed = 4\nopenings = "missing.txt"'))
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output
    with pytest.raises(ConfigError):
        load_tournament(path)


@pytest.mark.slow
def test_a_tournament_with_a_book_records_and_verifies_its_games(tmp_path):
    path, out = tournament(tmp_path, "c3\nb2 d4\n", rounds=1), tmp_path / "out"
    proc = run_arena("run", path, "--out", out, "-q")
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 6
    for r in records:
        opening = ["c3"] if r["opening_plies"] == 1 else ["b2", "d4"]
        assert r["moves"][: r["opening_plies"]] == opening and r["termination"] == "normal"
        assert len(r["times_ms"]) == len(r["moves"]) - r["opening_plies"]
    verify = run_arena("verify", out / "games.jsonl")
    assert verify.returncode == 0
    # a different book is a different tournament: the folder is not resumed into
    (tmp_path / "book.txt").write_text("e5\n")
    again = CliRunner().invoke(main, ["run", str(path), "--out", str(out)])
    assert again.exit_code == 2 and "openings.moves_sha256" in again.output


def test_only_a_short_name_is_a_shipped_suite_and_a_path_is_a_path(tmp_path):
    """hex9-1ply is the shipped suite; a path that reaches the same file through the suites'
    folder is a path from the tournament's folder, as any other."""
    from arena.tournament.openings import SUITES, book_path

    assert book_path("hex9-1ply", tmp_path) == SUITES / "hex9-1ply.txt"
    assert book_path("../suites/hex9-1ply", tmp_path) == tmp_path / "../suites/hex9-1ply"
    assert book_path("no-such-suite", tmp_path) == tmp_path / "no-such-suite"


def test_a_book_that_cannot_be_read_is_refused_with_the_reason_missing_or_not_utf8(tmp_path):
    from arena.rules import make_game
    from arena.tournament.openings import OpeningsError, load_openings

    game = make_game("hex", {"size": 3})
    (tmp_path / "latin.txt").write_bytes(b"a1 \xe9\n")
    for name, reason in (("missing.txt", "No such file or directory"), ("latin.txt", "not UTF-8 text")):
        with pytest.raises(OpeningsError) as err:
            load_openings(tmp_path / name, game)
        assert str(err.value) == (
            f"cannot read the openings file {str(tmp_path / name)!r} ({reason}); "
            "the path is relative to the tournament file"
        )


def test_a_book_line_with_moves_after_the_game_ended_is_refused(tmp_path):
    from arena.rules import make_game
    from arena.tournament.openings import OpeningsError, load_openings

    book = tmp_path / "over.txt"
    book.write_text("a1 b1 a2 b2 a3 b3\n")  # Red's a-column joins top and bottom at a3
    with pytest.raises(OpeningsError) as err:
        load_openings(book, make_game("hex", {"size": 3}))
    assert str(err.value) == f"{book}, line 1: the game is over after this opening; shorten it"


def test_a_suite_made_for_other_options_names_both_option_sets_and_every_shipped_suite(tmp_path):
    from arena.rules import make_game
    from arena.tournament.openings import OpeningsError, load_openings, suite_names

    book = tmp_path / "mine.txt"
    book.write_text("# options size=9 swap=true\na1\n")
    with pytest.raises(OpeningsError) as err:
        load_openings(book, make_game("hex", {"size": 3}))
    assert str(err.value) == (
        "mine is made for hex size=9 swap=true, but the tournament plays hex size=3 swap=true: set those options, "
        f"or pick a suite made for these ({', '.join(suite_names())})"
    )
    assert len(suite_names()) > 1


def test_random_plies_on_a_dealt_board_start_from_the_board_the_seed_deals():
    from arena.rules import make_game
    from arena.tournament.openings import Start, random_opening, start_state

    game = make_game("posies", {"players": 2})
    assert start_state(game, 5, Start(None, ())).setup_token() == game.initial_state(5).setup_token()
    opening = random_opening(game, 5, Start(None, ()), 3)
    assert random_opening(game, 5, Start(None, ()), 3) == opening
    state = game.initial_state(5)
    for move in opening.moves:
        state.play(move)  # legal on the seed's board
    assert len(state.moves) == 3


def test_random_plies_that_always_end_the_game_are_refused_naming_the_seed():
    from arena.rules import make_game
    from arena.tournament.openings import OpeningsError, Start, random_opening

    with pytest.raises(OpeningsError) as err:
        random_opening(make_game("hex", {"size": 3}), 3, Start(None, ()), 20)  # 9 cells: every game ends
    assert str(err.value) == "100 draws of 20 random plies all ended the game (seed 3); lower random_plies"


EIGHT = "a1\nb1\nc1\nd1\ne1\na2\nb2\nc2\n"


def book_file(tmp_path: Path, book: str, openings: str, seed: int = 4) -> Path:
    """A tournament of three engines on Hex 5x5 with ``book`` and an ``[openings]`` table."""
    (tmp_path / "book.txt").write_text(book)
    engines = "".join(engine_toml(name, "{python}", ZOO, "good") for name in "abc")
    return write_tournament(
        tmp_path, engines, name="book", seed=seed, extra=f'[openings]\nfile = "book.txt"\n{openings}'
    )


def test_a_book_may_start_at_its_last_opening_and_then_wraps_round(tmp_path):
    t = load_tournament(book_file(tmp_path, "a1\nb1\nc1\n", "start = 3"))
    assert t.openings == [("c1",), ("a1",), ("b1",)]
    assert load_tournament(book_file(tmp_path, "a1\n", "start = 1")).openings == [("a1",)]


def test_a_start_past_the_end_of_the_book_is_refused_in_one_line_naming_the_count(tmp_path):
    path = book_file(tmp_path, "a1\n", "start = 2")
    with pytest.raises(ConfigError) as err:
        load_tournament(path)
    assert str(err.value) == f"{path}: openings: start = 2 but the book has 1 opening(s)"
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip().splitlines()[-1] == f"arena: {path}: openings: start = 2 but the book has 1 opening(s)"


def test_random_plies_without_a_book_start_at_the_first_opening_only(tmp_path):
    engines = "".join(engine_toml(name, "{python}", ZOO, "good") for name in "ab")
    path = write_tournament(tmp_path, engines, extra="[openings]\nrandom_plies = 2\nstart = 2")
    with pytest.raises(ConfigError) as err:
        load_tournament(path)
    assert str(err.value) == f"{path}: openings: start = 2 but the book has 0 opening(s)"


def test_a_random_book_order_is_a_shuffle_the_seed_draws(tmp_path):
    """order = "random" plays every opening of the book once a cycle, in an order of the
    tournament's seed: the same seed the same order, another seed another order (8 lines:
    40,320 orders, so a shuffle equal to the file's or to another seed's is not expected)."""
    in_file = [(move,) for move in EIGHT.split()]
    four = load_tournament(book_file(tmp_path, EIGHT, 'order = "random"', seed=4)).openings
    again = load_tournament(book_file(tmp_path, EIGHT, 'order = "random"', seed=4)).openings
    five = load_tournament(book_file(tmp_path, EIGHT, 'order = "random"', seed=5)).openings
    assert four == again and sorted(four) == sorted(five) == sorted(in_file)
    assert four != in_file and five != in_file and four != five
    assert load_tournament(book_file(tmp_path, EIGHT, 'order = "sequential"', seed=4)).openings == in_file


def test_a_random_book_order_is_the_one_earlier_arenas_drew_so_their_folders_resume(tmp_path):
    """A results folder stores its openings' moves in the order played (their sha256): a
    shuffle drawn from another stream of the seed (the label "book order" is part of it)
    would be a changed setting and refuse every folder made with order = "random". This is
    the order arena has drawn for seed 4 since the option was added."""
    t = load_tournament(book_file(tmp_path, EIGHT, 'order = "random"', seed=4))
    assert t.openings == [("a1",), ("c1",), ("b2",), ("c2",), ("e1",), ("d1",), ("b1",), ("a2",)]


def test_random_plies_that_end_every_game_of_a_tournament_are_refused_naming_the_file_and_its_openings(tmp_path):
    """On Hex 3x3, 20 random plies always end the game: the file is refused before any game,
    naming the first table's seed (the one of its first game, as the schedule deals it)."""
    engines = "".join(engine_toml(name, "{python}", ZOO, "good") for name in "ab")
    path = write_tournament(tmp_path, engines, options="size = 3", seed=3, extra="[openings]\nrandom_plies = 20")
    seed = round_robin(["a", "b"], 2, 1, 3)[0].seed
    with pytest.raises(ConfigError) as err:
        load_tournament(path)
    assert str(err.value) == (
        f"{path}: openings: 100 draws of 20 random plies all ended the game (seed {seed}); lower random_plies"
    )
