"""Tournament formats (round-robin, gauntlet), generated openings and their checks."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from helpers import ZOO, engine_toml, refusal, run_arena, write_tournament

from arena.results.slots import gauntlet_tables
from arena.rules import make_game
from arena.tournament.config import ConfigError, build_schedule, load_tournament
from arena.tournament.openings import OpeningPlan, arrange_book
from arena.tournament.schedule import play_tables


def zoo_file(
    tmp_path: Path, names: str, extra: str = "", game: str = "hex", options: str = "size = 5", rounds: int = 1
) -> Path:
    engines = "".join(engine_toml(name, "{python}", ZOO, "good") for name in names)
    return write_tournament(
        tmp_path,
        engines,
        game=game,
        options=options,
        rounds=rounds,
        seed=5,
        time_control="movetime_ms = 1000",
        extra=extra,
    )


def test_gauntlet_tables_pit_each_candidate_against_every_other_engine():
    assert gauntlet_tables("abcd", ["a"], 2) == [("a", "b"), ("a", "c"), ("a", "d")]
    assert gauntlet_tables("abcd", ["a", "b"], 2) == [("a", "c"), ("a", "d"), ("b", "c"), ("b", "d")]
    three = gauntlet_tables("abcde", ["a", "b"], 3)
    assert three == [
        ("a", "c", "d"),
        ("a", "c", "e"),
        ("a", "d", "e"),
        ("b", "c", "d"),
        ("b", "c", "e"),
        ("b", "d", "e"),
    ]


def test_a_gauntlet_of_posies_plays_every_seat_order_with_one_candidate_per_table(tmp_path):
    path = zoo_file(tmp_path, "abcd", 'format = "gauntlet"\ncandidates = ["a"]', game="posies", options="players = 3")
    games = build_schedule(load_tournament(path))
    assert len(games) == 3 * 6  # tables {a,b,c} {a,b,d} {a,c,d}, 3! seat orders each
    assert all(sum(name == "a" for name in g.seats) == 1 for g in games)
    assert Counter(frozenset(g.seats) for g in games) == {frozenset(t): 6 for t in ("abc", "abd", "acd")}


def test_round_robin_stays_the_default(tmp_path):
    games = build_schedule(load_tournament(zoo_file(tmp_path, "abc")))
    assert [g.seats for g in games] == [("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")]


@pytest.mark.slow
def test_a_gauntlet_runs_end_to_end_and_candidates_never_meet(tmp_path):
    path = zoo_file(tmp_path, "abcd", 'format = "gauntlet"\ncandidates = ["a", "b"]', rounds=2)
    proc = run_arena("run", path, "--out", tmp_path / "out", "-q")
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2 * 4 * 2
    assert all(not {"a", "b"} <= set(r["players"]) for r in records)
    assert all({"c", "d"} != set(r["players"]) for r in records)


@pytest.mark.slow
def test_a_posies_gauntlet_runs_end_to_end(tmp_path):
    path = zoo_file(tmp_path, "abcd", 'format = "gauntlet"\ncandidates = ["d"]', game="posies", options="players = 3")
    proc = run_arena("run", path, "--out", tmp_path / "out", "-q")
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert len(records) == 3 * 6 and all(r["players"].count("d") == 1 for r in records)
    assert {frozenset(r["players"]) for r in records} == {frozenset(t) for t in ("abd", "acd", "bcd")}


@pytest.mark.slow
@pytest.mark.parametrize(
    "extra, message",
    [
        ('format = "gauntlet"', "needs candidates"),
        ('format = "gauntlet"\ncandidates = ["zz"]', "zz not among the engines"),
        ('candidates = ["a"]', 'only apply to format = "gauntlet"'),
        ('format = "gauntlet"\ncandidates = ["a", "b", "c"]', "list more engines that are not candidates"),
        ('format = "double-elimination"', "format"),
        ("[sprt]\nelo0 = 0\nelo1 = 5", "list exactly two engines"),
        ("[sprt]\nelo0 = 5\nelo1 = 0", "elo0 must be less than elo1"),
        ('[sprt]\nelo0 = 0\nelo1 = 5\nmodel = "bayes"', "sprt.model"),
        ("[openings]\nrandom_plies = -1", "openings"),
        ('[openings]\nfile = "book.txt"\nstart = 3', "start = 3 but the book has 2"),
        ('[openings]\norder = "shuffled"', "order"),
        ("[openings]\nworkers = 3", "unknown key 'openings.workers'; check the spelling"),  # not the other form's
        ("[openings]\nrandom_plies = 25", "random plies all ended the game"),
    ],
)
def test_bad_format_sprt_and_openings_settings_are_refused(tmp_path, extra, message):
    (tmp_path / "book.txt").write_text("c3\nb2\n")
    path = zoo_file(tmp_path, "abc", extra)
    args = ["run", str(path), "--out", str(tmp_path / "out")]
    # one case in the command's own process, the others' parse in this one
    code, stderr = refusal(*args, in_process=message != "needs candidates")
    assert code == 2 and message in stderr and "Traceback" not in stderr, stderr
    assert "{'name'" not in stderr and len(stderr.splitlines()) == 1  # the message, not the file
    with pytest.raises(ConfigError):
        load_tournament(path)


# -- openings -----------------------------------------------------------------


def test_random_plies_are_shared_by_a_table_and_differ_between_tables():
    game = make_game("hex", {"size": 7})
    games = play_tables([("a", "b"), ("a", "c")], 3, 11, OpeningPlan(random_plies=4, game=game))
    assert all(len(g.opening) == 4 for g in games)
    for first, second in zip(games[::2], games[1::2]):
        assert first.opening == second.opening and first.seats == second.seats[::-1]
    assert len({g.opening for g in games}) == 6
    again = play_tables([("a", "b"), ("a", "c")], 3, 11, OpeningPlan(random_plies=4, game=game))
    assert [g.opening for g in again] == [g.opening for g in games]  # from the seeds alone


def test_random_plies_follow_a_book_opening():
    game = make_game("hex", {"size": 7})
    games = play_tables([("a", "b")], 2, 1, OpeningPlan(book=(("d4",), ("c3",)), random_plies=2, game=game))
    assert [g.opening[0] for g in games] == ["d4", "d4", "c3", "c3"] and all(len(g.opening) == 3 for g in games)


def test_book_start_and_random_order():
    book = [("a1",), ("b1",), ("c1",), ("d1",), ("e1",)]
    assert arrange_book(book, "sequential", 1, 0) == book
    assert arrange_book(book, "sequential", 3, 0) == book[2:] + book[:2]
    shuffled = arrange_book(book, "random", 1, 0)
    assert sorted(shuffled) == book and shuffled != book
    assert arrange_book(book, "random", 1, 0) == shuffled != arrange_book(book, "random", 1, 1)


@pytest.mark.slow
def test_random_plies_are_recorded_as_the_opening_and_verify(tmp_path):
    path = zoo_file(tmp_path, "ab", "[openings]\nrandom_plies = 3", game="posies", options="players = 2", rounds=2)
    proc = run_arena("run", path, "--out", tmp_path / "out", "-q")
    assert proc.returncode == 0, proc.stderr
    jsonl = tmp_path / "out" / "games.jsonl"
    records = sorted((json.loads(line) for line in jsonl.read_text().splitlines()), key=lambda r: r["id"])
    assert all(r["opening_plies"] == 3 for r in records)
    for first, second in zip(records[::2], records[1::2]):
        assert first["moves"][:3] == second["moves"][:3] and first["seed"] == second["seed"]
    assert run_arena("verify", jsonl).returncode == 0
    # A results folder never mixes openings: other random plies are another tournament.
    path.write_text(path.read_text().replace("random_plies = 3", "random_plies = 4"))
    other = run_arena("run", path, "--out", tmp_path / "out", "-q")
    assert other.returncode == 2 and "Traceback" not in other.stderr


def test_the_short_book_form_still_works(tmp_path):
    (tmp_path / "book.txt").write_text("c3\nb2\n")
    t = load_tournament(zoo_file(tmp_path, "ab", 'openings = "book.txt"'))
    assert t.openings == [("c3",), ("b2",)]
    t = load_tournament(zoo_file(tmp_path, "ab", '[openings]\nfile = "book.txt"\nstart = 2'))
    assert t.openings == [("b2",), ("c3",)]
