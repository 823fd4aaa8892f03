"""The opening suites that ship with arena (arena/tournament/suites): each is what `arena
openings generate` writes, a tournament names one by its short name and must play the options
it is made for, and with a suite two copies of one engine score half the points."""

from __future__ import annotations

import json
import math
import re
import shlex
from itertools import permutations
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena import balanced
from arena.balanced import THRESHOLD, drawn_opening, is_even, judge_opening
from arena.cli import main
from arena.rules import Game, make_game
from arena.tournament.config import ConfigError, load_tournament
from arena.tournament.openings import OPTIONS_LINE, SUITES, book_start, load_openings, start_state, suite_names
from engines.search.engine import judge
from tests.helpers import ROOT, engine_toml, run_arena, write_tournament

SIZES = (7, 9, 11, 13)
# The balanced suites of the games without a first-moves suite, at the bundled tournaments' options.
BALANCED = ("bases-balanced", "groups5-balanced", "hexgo5-balanced", "posies2-balanced", "posies3-balanced")


def test_every_shipped_suite_is_what_the_command_writes():
    assert suite_names() == sorted([*(f"hex{n}-1ply" for n in SIZES), *BALANCED])
    for n in SIZES:
        name = f"hex{n}-1ply"
        args = ["openings", "generate", "-g", "hex", "-O", f"size={n}", "-O", "swap=false", "--first-moves"]
        written = CliRunner().invoke(main, [*args, "--name", name])
        assert written.exit_code == 0, written.output
        assert (SUITES / f"{name}.txt").read_text() == written.output
        moves = [ln for ln in written.output.splitlines() if not ln.startswith("#")]
        assert len(moves) == len(set(moves)) == n * n  # every cell once
    listed = CliRunner().invoke(main, ["openings", "list"]).output
    assert all(name in listed for name in suite_names())
    shown = CliRunner().invoke(main, ["openings", "list", "hex9-1ply"]).output
    assert shown == (SUITES / "hex9-1ply.txt").read_text()
    unknown = CliRunner().invoke(main, ["openings", "list", "hex8-1ply"])
    assert unknown.exit_code == 2 and "no suite 'hex8-1ply'" in unknown.output


def test_a_game_with_a_random_setup_has_no_suite_of_first_moves():
    said = CliRunner().invoke(main, ["openings", "generate", "-g", "posies", "--first-moves"])
    assert said.exit_code == 2 and "posies deals its board at random, so it has no first moves" in said.output


def test_balanced_openings_longer_than_any_game_are_refused_in_one_line():
    said = CliRunner().invoke(main, ["openings", "generate", "-g", "hexgo", "-O", "size=2", "--plies", "30"])
    assert said.exit_code == 2 and said.output == "arena: 30 random plies end every hexgo game drawn; ask fewer plies\n"


def balanced_suite_parts(name: str) -> tuple[list[str], list[str], Game]:
    """A shipped balanced suite's comment lines, its opening lines and the game it is for."""
    lines = (SUITES / f"{name}.txt").read_text().splitlines()
    header = [ln for ln in lines if ln.startswith("#")]
    openings = [ln for ln in lines if not ln.startswith("#")]
    assert lines == header + openings  # the comments first, then one opening a line
    options = next(ln for ln in header if ln.startswith(OPTIONS_LINE))[len(OPTIONS_LINE) :].split()
    game = make_game(name.split("-")[0].rstrip("0123456789"), dict(t.split("=") for t in options))
    return header, openings, game


def command_of(header: list[str]) -> list[str]:
    """The arguments of the command a suite says wrote it."""
    written = next(ln for ln in header if ln.startswith("# written by: arena "))
    return shlex.split(written.removeprefix("# written by: arena "))


OPENING_LINE = re.compile(r"(?P<moves>[^#]+?)  # (?P<score>[01]\.\d{3}) \(draw (?P<draw>\d+)\)")


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize("name", BALANCED)
def test_a_balanced_suite_begins_and_ends_as_its_command_writes_it(name):
    """The command, asked for one opening, writes the suite's first under the same comments (a
    draw's moves and judgement depend only on the seed and its number, so a smaller count
    writes the first openings of a larger one); the last is drawn and judged again from its
    draw's number.  So the file is the command's output without a test drawing and judging
    the whole suite again (minutes at the hard level's counts)."""
    header, openings, game = balanced_suite_parts(name)
    args = command_of(header)
    count = args[args.index("--count") + 1]
    args[args.index("--count") + 1] = "1"
    written = CliRunner().invoke(main, args)
    assert written.exit_code == 0, written.output
    fewer = [ln.replace(f"{count} openings", "1 openings").replace(f"--count {count}", "--count 1") for ln in header]
    assert written.output.splitlines() == fewer + openings[:1]
    seed, plies = (int(args[args.index(flag) + 1]) for flag in ("--seed", "--plies"))
    last = OPENING_LINE.fullmatch(openings[-1])
    assert last is not None
    draw = int(last["draw"])
    again = judge_opening(game, seed, drawn_opening(game, seed, plies, draw), draw)
    assert again is not None and " ".join(again.moves) == last["moves"] and f"{again.score:.3f}" == last["score"]


@pytest.mark.parametrize("name", BALANCED)
def test_every_opening_of_a_balanced_suite_is_legal_unfinished_and_was_judged_even(name):
    header, openings, game = balanced_suite_parts(name)
    args = command_of(header)
    seed, plies, count = (int(args[args.index(flag) + 1]) for flag in ("--seed", "--plies", "--count"))
    assert len(openings) == count == len(load_openings(SUITES / f"{name}.txt", game))  # the book reader's checks
    parsed = [OPENING_LINE.fullmatch(ln) for ln in openings]
    assert all(parsed), openings
    books = [tuple(m["moves"].split()) for m in parsed if m]
    starts = [book_start(game, line) for line in books]  # a Posies line is its board, then the plies
    assert len(set(books)) == count and all(len(start.moves) == plies for start in starts)
    assert all((start.setup is None) != game.random_setup for start in starts)
    for start in starts:
        state = start_state(game, 0, start)  # raises IllegalMove for an illegal move, OptionError for a bad board
        assert not state.is_terminal() and state.legal_moves()
    scores = [float(m["score"]) for m in parsed if m]
    assert all(abs(score - 0.5) <= THRESHOLD for score in scores), scores
    draws = [int(m["draw"]) for m in parsed if m]
    assert draws == sorted(set(draws))  # kept in the order drawn
    assert all(drawn_opening(game, seed, plies, d) == moves for d, moves in zip(draws, books, strict=True))


def test_the_search_judges_a_won_position_far_from_even():
    """Hex 4x4 without the swap: Red (joining rows 1 and 4) holds b1 b2 b3, which a4 or b4
    joins to row 4.  With Red to move the position is won; with Blue to move it is lost, as
    Blue can take only one of the two.  The judge sees both, where a constant would not."""
    game = make_game("hex", {"size": 4, "swap": False})
    state = game.initial_state(0)
    for move in ("b1", "d1", "b2", "d2", "b3", "d3"):
        state.play(move)
    red = judge(state, seed=1)
    assert red is not None and red > 0.5 + THRESHOLD and not is_even(red)
    before = game.initial_state(0)
    for move in ("b1", "d1", "b2", "d2", "b3"):
        before.play(move)
    blue = judge(before, seed=1)
    assert blue is not None and blue < 0.5 - THRESHOLD


def rng_engines(tmp_path) -> str:
    here = f'cwd = "{ROOT}"'
    return engine_toml("a", "{python}", "-m", "engines.random_engine", extra=here) + engine_toml(
        "b", "{python}", "-m", "engines.random_engine", extra=here
    )


def test_a_suite_is_named_by_its_short_name_and_refuses_other_options(tmp_path):
    path = write_tournament(
        tmp_path, rng_engines(tmp_path), options="size = 7\nswap = false", extra='openings = "hex7-1ply"'
    )
    t = load_tournament(path)
    assert [o for o in t.openings] == [(m,) for m in make_game("hex", {"size": 7}).initial_state().legal_moves()]
    wrong = write_tournament(tmp_path, rng_engines(tmp_path), options="size = 7", extra='openings = "hex7-1ply"')
    with pytest.raises(ConfigError) as refused:
        load_tournament(wrong)
    said = str(refused.value)
    assert "\n" not in said and "hex7-1ply is made for hex size=7 swap=false" in said and "swap=true" in said


def played_records(tmp_path: Path, path: Path) -> list[dict]:
    """The stored games of the tournament file ``path``, run to its end."""
    out = tmp_path / "out"
    proc = run_arena("run", path, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_two_copies_of_one_engine_score_half_the_points_over_a_suite(tmp_path):
    """Each of the 49 openings of Hex 7 is played in both seat orders, so neither copy gains
    from the first move's advantage: the score of copy a is 1/2 within its 95% interval
    (a test that fails in 1 run of 20 by chance; fixed seed, so it is the same every run)."""
    path = write_tournament(
        tmp_path,
        rng_engines(tmp_path),
        options="size = 7\nswap = false",
        rounds=49,
        seed=11,
        time_control="movetime_ms = 1000",
        extra='openings = "hex7-1ply"',
    )
    records = played_records(tmp_path, path)
    assert len(records) == 98
    first = {}
    for r in records:
        first.setdefault(r["moves"][0], set()).add(tuple(r["players"]))
    assert len(first) == 49 and all(seats == {("a", "b"), ("b", "a")} for seats in first.values())
    points = sum(r["scores"][r["players"].index("a")] for r in records)
    n = len(records)
    half_width = 1.96 * math.sqrt(0.25 / n)
    assert abs(points / n - 0.5) <= half_width, (points, n)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_two_copies_of_one_engine_score_half_the_points_over_a_balanced_suite(tmp_path):
    """Groups: the 16 balanced openings of groups5-balanced, three times each (each time its own
    seed), every one in both seat orders: the score of copy a is 1/2 within its 95% interval (a
    test that fails in 1 run of 20 by chance; fixed seed, so it is the same every run)."""
    _, openings, _ = balanced_suite_parts("groups5-balanced")
    books = {tuple(ln.partition("#")[0].split()) for ln in openings}
    path = write_tournament(
        tmp_path,
        rng_engines(tmp_path),
        game="groups",
        options="size = 5",
        rounds=3 * len(books),
        seed=11,
        time_control="movetime_ms = 1000",
        extra='openings = "groups5-balanced"',
    )
    records = played_records(tmp_path, path)
    assert len(records) == 6 * len(books)
    seats: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for r in records:
        assert r["opening_plies"] == 4
        seats.setdefault(tuple(r["moves"][:4]), []).append(tuple(r["players"]))
    assert set(seats) == books
    assert all(sorted(s) == [("a", "b")] * 3 + [("b", "a")] * 3 for s in seats.values())
    points = sum(r["scores"][r["players"].index("a")] for r in records)
    n = len(records)
    half_width = 1.96 * math.sqrt(0.25 / n)
    assert abs(points / n - 0.5) <= half_width, (points, n)


def suite_lines(name: str) -> list[tuple[str, ...]]:
    """A shipped suite's openings as book lines (a Posies line: its board's setup token first)."""
    _, openings, _ = balanced_suite_parts(name)
    return [tuple(ln.partition("#")[0].split()) for ln in openings]


def rng_field(count: int) -> str:
    here = f'cwd = "{ROOT}"'
    return "".join(engine_toml(n, "{python}", "-m", "engines.random_engine", extra=here) for n in "abc"[:count])


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_two_copies_of_one_engine_score_half_the_points_over_the_posies_suite(tmp_path):
    """Posies: the 16 positions of posies2-balanced, three times each (each time its own seed,
    which deals nothing else in variant 0), every one in both seat orders, each game on its
    line's board: every record says so, `arena verify` replays each from it, and the score of
    copy a is 1/2 within its 95% interval (a test that fails in 1 run of 20 by chance; fixed
    seed, so it is the same every run)."""
    books = set(suite_lines("posies2-balanced"))
    path = write_tournament(
        tmp_path,
        rng_field(2),
        game="posies",
        options="players = 2\nvariant = 0",
        rounds=3 * len(books),
        seed=11,
        time_control="movetime_ms = 1000",
        extra='openings = "posies2-balanced"',
    )
    records = played_records(tmp_path, path)
    assert len(records) == 6 * len(books)
    seats: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for r in records:
        assert r["opening_setup"] is True and r["opening_plies"] == 4
        seats.setdefault((r["setup"], *r["moves"][:4]), []).append(tuple(r["players"]))
    assert set(seats) == books
    assert all(sorted(s) == [("a", "b")] * 3 + [("b", "a")] * 3 for s in seats.values())
    verified = run_arena("verify", tmp_path / "out" / "games.jsonl")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert all(json.loads(line)["ok"] for line in verified.stdout.splitlines())
    # Scores are posies taken: a game counts 1 for its winner, 1/2 each when they tie.
    points = sum(0.5 if r["winner"] is None else float(r["players"][r["winner"]] == "a") for r in records)
    n = len(records)
    half_width = 1.96 * math.sqrt(0.25 / n)
    assert abs(points / n - 0.5) <= half_width, (points, n)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_every_seat_order_of_a_three_seat_table_plays_every_position_of_the_posies3_suite(tmp_path):
    """Three seats, hidden colours: each of posies3-balanced's 16 positions is played by the one
    table in its 6 seat orders, each game on its line's board with a deal of its own, and
    `arena verify` re-scores every game from its board and its deal."""
    books = set(suite_lines("posies3-balanced"))
    path = write_tournament(
        tmp_path,
        rng_field(3),
        game="posies",
        options="players = 3\nvariant = 2",
        rounds=len(books),
        seed=11,
        time_control="movetime_ms = 1000",
        extra='openings = "posies3-balanced"',
    )
    records = played_records(tmp_path, path)
    assert len(records) == 6 * len(books)
    seats: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for r in records:
        assert r["opening_setup"] is True and r["opening_plies"] == 4 and len(r["details"]["hidden"]) == 3
        seats.setdefault((r["setup"], *r["moves"][:4]), set()).add(tuple(r["players"]))
    assert set(seats) == books
    assert all(s == set(permutations("abc")) for s in seats.values())
    verified = run_arena("verify", tmp_path / "out" / "games.jsonl")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_the_judge_of_a_hidden_colour_position_knows_no_hidden_posy(monkeypatch):
    """The search judges what every seat sees: the board and the plies, no posy drawn from
    the bag (it deals them itself in each simulated game)."""
    judged = []

    def spy(state, seed, level):
        judged.append(state.clone())
        return 0.5

    monkeypatch.setattr(balanced, "judge", spy)
    game = make_game("posies", {"players": 3, "variant": 2})
    line = drawn_opening(game, 1, 4, 0)
    assert judge_opening(game, 1, line, 0) is not None
    [state] = judged
    assert state.hidden == [None, None, None] and state.setup_token() == line[0] and state.moves == list(line[1:])
    assert all(state.private_info(seat) == [] for seat in range(3))
