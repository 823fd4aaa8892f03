"""The end of a run: tables that fit the terminal, and the fastchess-style line of each match.

The line's figures are checked against fastchess's published formulas
(app/src/matchmaking/elo/elo_pentanomial.cpp and elo_wdl.cpp), worked out by hand for small
counts; the width through the real command at 80, 100 and 120 columns."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from helpers import ROOT, ZOO, arena_cmd, engine_toml, run_arena, write_tournament

from arena.record import GameRecord
from arena.results.fit import fit_table, wrap
from arena.results.matchline import match_block, match_counts, match_figures, match_line, match_note

# -- the figures -----------------------------------------------------------------


def test_pentanomial_figures_are_fastchesss():
    # 10 pairs LL 0, LD 2, WL+DD 4, WD 3, WW 1: score (0.5 + 2 + 2.25 + 1) / 10 = 0.575;
    # variance per pair (2 x 0.325^2 + 4 x 0.075^2 + 3 x 0.175^2 + 0.425^2) / 10 = 0.050625
    # = 0.225^2, so sqrt(var / pairs) = 0.225 / sqrt(10) = 0.0711512.
    f = match_figures([0, 2, 4, 3, 1])
    assert f is not None and f.pentanomial and not f.marked
    assert f.elo == pytest.approx(-400 * math.log10(1 / 0.575 - 1))  # 52.5
    assert round(f.elo, 1) == 52.5
    # +/-: half the Elo width of 0.575 -+ 1.96 x 0.0711512 = [0.43555, 0.71445]: (159.4 + 45.0) / 2
    assert round(f.elo_error, 1) == 102.2
    # nElo: 0.075 / sqrt(2 x 0.050625) x 800 / ln 10 = 0.075 / 0.318198 x 347.436
    assert round(f.nelo, 1) == 81.9 and round(f.nelo_error, 1) == 152.3
    # LOS: P(Z < 0.075 / 0.0711512) = Phi(1.05409)
    assert round(100 * f.los, 1) == 85.4
    assert f.draw_ratio == 0.4 and f.pairs_ratio == 2.0  # WL+DD 4 of 10; (WD + WW) / (LL + LD) = 4 / 2
    assert (
        match_line(f) == "Elo: 52.5 +/- 102.2, nElo: 81.9 +/- 152.3, LOS: 85.4 %, DrawRatio: 40.0 %, PairsRatio: 2.00"
    )
    assert match_note(f) is None


def test_trinomial_figures_are_fastchesss_without_a_pairs_ratio():
    # 12 games L 3, D 4, W 5: score 7/12; variance per game 23/144 = 0.159722 (sd 0.399652)
    f = match_figures([3, 4, 5])
    assert f is not None and not f.pentanomial and f.pairs_ratio is None and not f.marked
    assert round(f.elo, 1) == 58.5  # -400 log10(5/7) = 58.45
    assert round(f.nelo, 1) == 72.4  # (1/12) / 0.399652 x 347.436 = 72.45 (72.447)
    assert round(100 * f.los, 1) == 76.5  # Phi((1/12) / sqrt(0.159722 / 12)) = Phi(0.72232)
    assert round(100 * f.draw_ratio, 1) == 33.3
    assert match_line(f).endswith("DrawRatio: 33.3 %")


def test_a_clean_sweep_is_finite_with_a_bound_and_a_mark():
    # 10 pairs WW: one virtual drawn pair, half LL and half WW, makes it 10.5 of 11 pairs won:
    # score 21/22, an Elo of 400 log10(21) = 528.9; variance 0.043388, sqrt(var / 11) = 0.062804;
    # the interval's top passes a score of 1, so +/- is its finite side: 528.9 - Elo(0.831452)
    f = match_figures([0, 0, 0, 0, 10])
    assert f is not None and f.virtual and f.open_ends == 1
    assert f.elo == pytest.approx(400 * math.log10(21))
    assert round(f.elo_error, 1) == 251.6 and f.pairs_ratio == 21.0  # 10.5 / 0.5
    assert round(f.elo - f.elo_error, 1) == 277.2  # a lower bound: Elo(0.831450)
    line = match_line(f)
    assert line.startswith("Elo: 528.9† +/- 251.6, nElo: ") and "inf" not in line and "nan" not in line
    assert "virtual drawn pair" in (match_note(f) or "")


def test_results_json_holds_the_figures_rounded_as_the_line_is_read():
    # the figures of the two tests above, to two places (a percentage's too) and the ratio to four
    assert match_figures([0, 2, 4, 3, 1]).as_dict() == {  # type: ignore[union-attr]
        "units": "pairs",
        "count": 10,
        "elo": 52.51,
        "elo_error": 102.18,
        "nelo": 81.89,
        "nelo_error": 152.27,
        "los_pct": 85.41,
        "draw_ratio_pct": 40.0,
        "pairs_ratio": 2.0,
        "marked": False,
    }
    games = match_figures([3, 4, 5]).as_dict()  # type: ignore[union-attr]
    assert games["units"] == "games" and games["count"] == 12 and games["pairs_ratio"] is None
    assert (games["elo"], games["los_pct"], games["draw_ratio_pct"]) == (58.45, 76.49, 33.33)
    assert match_figures([0, 1, 0, 0, 1]).as_dict()["pairs_ratio"] == 1.0  # type: ignore[union-attr]
    assert match_figures([0, 0, 0, 0, 10]).as_dict()["marked"] is True  # type: ignore[union-attr]
    assert match_figures([0, 0, 0]) is None


def test_a_matchs_block_names_its_units_and_says_what_its_mark_means():
    def block(counts):
        return match_block("new", "old", match_figures(counts))  # type: ignore[arg-type]

    assert block([0, 2, 4, 3, 1])[0] == "Results of new vs old (10 pairs):"
    assert block([0, 1, 0, 0, 0])[0] == "Results of new vs old (1 pair):"
    assert block([3, 4, 5])[0] == "Results of new vs old (12 games, no complete pair):"
    assert block([0, 0, 1])[0] == "Results of new vs old (1 game, no complete pair):"
    assert block([0, 2, 4, 3, 1])[1:] == [match_line(match_figures([0, 2, 4, 3, 1]))]  # type: ignore[arg-type]
    assert block([0, 0, 4, 3, 2])[2] == "†: one virtual drawn pair (half lost, half won) is counted."
    assert block([0, 0, 2])[2] == (
        "†: one virtual drawn game (half lost, half won) is counted; "
        "the 95% interval reaches a score of 0 or 100%: +/- is its side that has an end."
    )
    assert block([1, 0, 1])[1:] == [  # +/-: 400 log10(2 x 2 + 1), the most two games can show
        "Elo: 0.0† +/- 279.6, nElo: 0.0 +/- 481.5, LOS: 50.0 %, DrawRatio: 0.0 %",
        "†: too few games for an interval: +/- is the most they can show.",
    ]
    # a lost pair: the interval's bottom passes a score of 0, so +/- runs from the Elo up
    assert block([1, 0, 0, 0, 0])[1] == (
        "Elo: -190.8† +/- 492.3, nElo: -141.8 +/- 340.5, LOS: 20.7 %, DrawRatio: 0.0 %, PairsRatio: 0.33"
    )
    # two pairs, one lost and one won: no virtual pair, the interval open at one end only
    assert block([0, 1, 0, 0, 1])[1:] == [
        "Elo: 88.7† +/- 460.5, nElo: 81.9 +/- 340.5, LOS: 68.1 %, DrawRatio: 0.0 %, PairsRatio: 1.00",
        "†: the 95% interval reaches a score of 0 or 100%: +/- is its side that has an end.",
    ]
    assert block([1, 0, 0, 0, 1])[2] == "†: too few pairs for an interval: +/- is the most they can show."


@pytest.mark.parametrize(
    "counts",
    [[0, 0, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 7, 0, 0], [0, 3, 0, 0, 0], [0, 0, 5, 3, 0], [0, 0, 0, 1, 9]]
    + [[0, 0, 1], [1, 0, 0], [0, 4, 0], [1, 0, 1], [0, 0, 0, 0, 1000]],
)
def test_every_figure_is_finite_and_a_degenerate_one_is_marked(counts):
    f = match_figures(counts)
    assert f is not None
    figures = [f.elo, f.elo_error, f.nelo, f.nelo_error, f.los, f.draw_ratio, f.pairs_ratio or 0]
    assert all(math.isfinite(x) for x in figures), f
    assert f.elo_error > 0 and f.nelo_error > 0
    assert f.marked and "†" in match_line(f) and match_note(f)


def test_the_counts_are_pairs_of_games_2k_and_2k_plus_1_else_games():
    def game(k, players, places):
        return GameRecord(game="hex", moves=[], id=k, players=players, places=places)

    records = [
        game(0, ["a", "b"], [0, 1]),  # a wins ...
        game(1, ["b", "a"], [1, 0]),  # ... and wins the return game: WW
        game(2, ["a", "b"], [0, 0]),  # a draw ...
        game(3, ["b", "a"], [0, 1]),  # ... and a loss: LD
        game(4, ["a", "b"], [1, 0]),  # its pair unfinished
        game(6, ["a", "c"], [0, 1]),  # another opponent
    ]
    assert match_counts(records, "a", "b") == [0, 1, 0, 0, 1]
    assert match_counts(records, "b", "a") == [1, 0, 0, 1, 0]
    assert match_counts(records[4:], "a", "b") == [1, 0, 0]  # no complete pair: L, D, W of the games
    # more of a kind: pairs 0-1, 2-3 and 4-5 (the third complete now), games 7 and 9 of pairs not complete
    more = records[:5] + [game(5, ["b", "a"], [0, 1]), game(7, ["b", "a"], [1, 0]), game(9, ["b", "a"], [1, 0])]
    more += [game(10, ["a", "b"], [0, 1]), game(11, ["b", "a"], [1, 0])]  # WW again
    assert match_counts(more, "a", "b") == [1, 1, 0, 0, 2]
    assert match_counts([r for r in more if r["id"] in (4, 7, 9)], "a", "b") == [1, 0, 2]  # L, W, W: no pair


def test_a_figure_between_minus_a_twentieth_and_zero_reads_0_0_not_minus_0_0():
    from arena.results.matchline import _fixed as line_fixed
    from arena.results.sprt import _fixed as sprt_fixed

    for fixed in (line_fixed, sprt_fixed):
        assert [fixed(v) for v in (-0.04, -0.0, 0.04, 0.05, -0.06, 12.25, 12.35)] == [
            "0.0",
            "0.0",
            "0.0",
            "0.1",
            "-0.1",
            "12.2",
            "12.3",
        ]


# -- the width --------------------------------------------------------------------


def test_a_table_drops_its_least_important_columns_first_and_wraps_its_notes():
    headers = ["engine", "empty", "games", "mu", "sigma", "elo"]
    rows = [["first-engine", "", 10, 25.0, 8.3, 12.5], ["second", "", 10, 25.0, 8.3, -12.5]]
    wide = fit_table(headers, rows, 200, ("sigma", "mu", "games"))
    assert all(h in wide for h in headers)
    narrow = fit_table(headers, rows, 30, ("sigma", "mu", "games"))
    assert narrow.splitlines()[0].split() == ["engine", "games", "elo"]  # empty, sigma, mu gone; it fits
    assert max(map(len, narrow.splitlines())) <= 30
    forfeits = [["first-engine", "crash 3, dropped 15, timeout 4, illegal 1"], ["second", "none"]]
    wrapped = fit_table(["engine", "forfeits"], forfeits, 40, ())  # nothing to drop: the last column wraps
    assert max(map(len, wrapped.splitlines())) <= 40 and "illegal 1" in wrapped and len(wrapped.splitlines()) > 4
    assert wrap("word " * 30, 40).splitlines()[1].startswith("  word")
    assert all(len(line) <= 40 for line in wrap("word " * 30, 40).splitlines())


def test_the_last_column_wraps_to_the_room_left_down_to_twelve_and_only_if_it_is_text():
    # 49 wide, its last column 30 (its longest cell): a width of W leaves it W - 19 columns.
    headers = ["engine", "games", "forfeits"]
    rows = [["first", 10, "crash 3, dropped 15, timeout 4"], ["second", 8, "none"]]
    whole = (
        "engine    games    forfeits\n"
        "--------  -------  ------------------------------\n"
        "first     10       crash 3, dropped 15, timeout 4\n"
        "second    8        none"
    )
    assert fit_table(headers, rows, 35, ()) == (  # 16 columns left; the last column wraps, not the games
        "engine    games    forfeits\n"
        "--------  -------  ----------------\n"
        "first     10       crash 3, dropped\n"
        "                   15, timeout 4\n"
        "second    8        none"
    )
    assert fit_table(headers, rows, 31, ()) == (  # 12 left: NARROWEST_WRAPPED_COLUMN, still wrapped
        "engine    games    forfeits\n"
        "--------  -------  -----------\n"
        "first     10       crash 3,\n"
        "                   dropped 15,\n"
        "                   timeout 4\n"
        "second    8        none"
    )
    assert fit_table(headers, rows, 30, ()) == whole  # 11 left: too narrow, the table is left wide
    # A header wider than every cell sets the column's width: the cells are not wrapped under it
    # (the room is counted from the header's 23 characters, so 21 are left at a width of 33).
    named = fit_table(
        ["engine", "the reasons of forfeits"], [["first", "crash 3, timeout 4"], ["second", "none"]], 33, ()
    )
    assert named == (
        "engine    the reasons of forfeits\n"
        "--------  -------------------------\n"
        "first     crash 3, timeout 4\n"
        "second    none"
    )


FORFEITS_HEADERS = ["engine", "games", "forfeits"]
FORFEITS_ROWS = [["first", "10", "crash 3, dropped 15, timeout 4"], ["second", "8", "none"]]


def test_a_table_as_wide_as_the_terminal_is_whole_and_one_column_narrower_drops_a_column():
    # simple: columns of 8, 7 and 30 with two spaces between, 49 wide
    simple = (
        "engine    games    forfeits\n"
        "--------  -------  ------------------------------\n"
        "first     10       crash 3, dropped 15, timeout 4\n"
        "second    8        none"
    )
    assert fit_table(FORFEITS_HEADERS, FORFEITS_ROWS, 49, ("games",)) == simple
    assert fit_table(FORFEITS_HEADERS, FORFEITS_ROWS, 48, ("games",)) == (
        "engine    forfeits\n"
        "--------  ------------------------------\n"
        "first     crash 3, dropped 15, timeout 4\n"
        "second    none"
    )


def test_a_table_fitted_in_the_github_style_keeps_it_whole_or_with_a_column_dropped():
    # github: the same columns between pipes, each padded by a space: 8 + 7 + 30 + 3 x 3 + 1 = 55 wide
    github = (
        "| engine   | games   | forfeits                       |\n"
        "|----------|---------|--------------------------------|\n"
        "| first    | 10      | crash 3, dropped 15, timeout 4 |\n"
        "| second   | 8       | none                           |"
    )
    assert fit_table(FORFEITS_HEADERS, FORFEITS_ROWS, 55, ("games",), "github") == github
    assert fit_table(FORFEITS_HEADERS, FORFEITS_ROWS, 54, ("games",), "github") == (
        "| engine   | forfeits                       |\n"
        "|----------|--------------------------------|\n"
        "| first    | crash 3, dropped 15, timeout 4 |\n"
        "| second   | none                           |"
    )


def test_a_table_of_only_empty_columns_too_wide_for_the_terminal_leaves_nothing_to_show():
    assert fit_table(["note"], [[""]], 30, ()) == "note\n------\n"  # it fits: kept, empty as it is
    assert fit_table(["note"], [[""]], 3, ()) == ""


def test_a_line_that_fits_is_kept_as_it_is_and_a_longer_one_wraps_only_between_words():
    # 21 characters (its tab counted as one, as len counts it) in 21 columns: untouched
    assert wrap("dud: stderr:\tsegfault\nok", 21) == "dud: stderr:\tsegfault\nok"
    # a path wider than the width is the one thing that cannot fit: it stays whole on its own line
    assert wrap("see /runs/league/out/games.jsonl for the record", 20) == (
        "see\n  /runs/league/out/games.jsonl\n  for the record"
    )
    # "the round-robin" is 15 wide in 14 columns: the word goes whole to the next line, not at its hyphen
    assert wrap("the round-robin of four engines", 14) == "the\n  round-robin\n  of four\n  engines"


@pytest.fixture(scope="module")
def gauntlet():
    """A tiny Hex 5 gauntlet's flags: new against two others, long engine names to make it wide."""
    engines = [f"name={n} cmd={{python}} -m engines.random_engine" for n in ("new-engine", "old-engine", "older")]
    args = ["--game", "hex", "-O", "size=5", "--each", "st=0.05", "--rounds", "2", "--gauntlet", "new-engine"]
    args += [item for e in engines for item in ("--engine", *e.split(" ", 1))]
    return args


def lines_too_long(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if len(line) > width]


@pytest.fixture
def short_tmp():
    """A folder with a short path: the closing output prints it whole (pytest's are long)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def played(gauntlet):
    """The gauntlet played once per worker into a folder with a short path (the closing output
    prints it whole; pytest's are long), and the closing output of that run at 80 columns. Each
    width's test runs the same command again: the finished folder is resumed with nothing left
    to play and the run prints its closing output as a run that played does (the same summary,
    "resumed from an earlier run" in its first line), without playing its games again."""
    short = Path(tempfile.mkdtemp(prefix="arena-", dir="/tmp"))
    run = run_arena("run", *gauntlet, "--out", short / "g", "-q", env={**os.environ, "COLUMNS": "80"})
    yield short / "g", run
    shutil.rmtree(short, ignore_errors=True)


def check_closing_output(text: str, width: int) -> None:
    assert lines_too_long(text, width) == [], text
    for title in ("Standings", "Head to head", "Per-engine statistics"):
        assert title in text
    # Each pair of the gauntlet ends with its fastchess-style line (wrapped only where it must)
    for opponent in ("old-engine", "older"):
        block = text.split(f"Results of new-engine vs {opponent} (2 pairs):\n")[1]
        figures = " ".join(block.split("\n")[:2])
        assert re.match(r"Elo: -?\d+\.\d†? \+/- \d+\.\d, nElo: -?\d+\.\d \+/- \d+\.\d, LOS: \d+\.\d %, ", figures)
        assert re.search(r"DrawRatio: \d+\.\d %,\s+PairsRatio: \d+\.\d\d", figures), block
    if width == 80:
        assert "mu-3sigma" not in text  # dropped first


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_closing_output_of_a_run_that_played_fits_80_columns(played):
    folder, run = played
    assert run.returncode == 0, run.stderr
    assert "8 games played" in run.stdout and "resumed" not in run.stdout  # 2 pairs against each of 2
    check_closing_output(run.stdout, 80)


@pytest.mark.parametrize("width", [80, 100, 120])
@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_closing_output_of_a_run_and_arena_results_fit_the_terminal(gauntlet, played, width):
    folder, first = played
    assert first.returncode == 0, first.stderr
    env = {**os.environ, "COLUMNS": str(width)}
    run = run_arena("run", *gauntlet, "--out", folder, "-q", env=env)  # -q: the closing output alone
    assert run.returncode == 0, run.stderr
    assert "0 games played, 8 resumed from an earlier run" in run.stdout
    check_closing_output(run.stdout, width)
    shown = run_arena("results", folder, env=env)
    assert shown.returncode == 0 and lines_too_long(shown.stdout, width) == [], shown.stdout
    assert "Results of new-engine vs older (2 pairs):" in shown.stdout
    wide = run_arena("results", folder, "--wide", env=env)
    for column in ("mu-3sigma", "sigma", "BT 95%", "LOS>older", "was swapped", "nodes/s", "max ms/move"):
        assert column in wide.stdout
    assert lines_too_long(wide.stdout, 120), "every column: wider than the terminal"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_without_a_terminal_or_columns_the_width_is_80(gauntlet, played):
    folder, first = played
    assert first.returncode == 0, first.stderr
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    run = run_arena("run", *gauntlet, "--out", folder, "-q", env=env)
    assert run.returncode == 0 and lines_too_long(run.stdout, 80) == [], run.stdout
    assert lines_too_long(run.stdout, 70), "the tables use the width they have"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_two_engine_run_ends_with_one_line_and_a_sweep_is_marked(tmp_path):
    """A good engine against one that loses every game on time: a clean sweep."""
    run = run_arena(
        "run", "--game", "hex", "-O", "size=5", "-O", "swap=false", "--each", "st=0.1", "--rounds", "3",
        "--engine", "name=good", f"cmd={{python}} {ZOO} good", "--engine", "name=late", f"cmd={{python}} {ZOO} late",
        "--out", tmp_path / "o", "-q", env={**os.environ, "COLUMNS": "100"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    block = run.stdout.split("Results of good vs late (3 pairs):\n")[1].splitlines()
    assert block[0].startswith("Elo: 338.0† +/- "), block  # 3.5 of 4 pairs: 400 log10(7)
    assert "PairsRatio: 7.00" in block[0] and "inf" not in block[0]
    assert block[1].startswith("†: one virtual drawn pair")
    assert run.stdout.count("Results of ") == 1
    (match,) = json.loads((tmp_path / "o" / "results.json").read_text())["matches"]  # the same, for scripts
    assert (match["engine"], match["opponent"], match["units"], match["count"]) == ("good", "late", "pairs", 3)
    assert (round(match["elo"], 1), match["pairs_ratio"], match["marked"]) == (338.0, 7.0, True)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_interrupted_runs_tables_fit_the_terminal(short_tmp):
    engines = "".join(engine_toml(name, "{python}", ZOO, "good+slow") for name in ("first-engine", "second-engine"))
    path = write_tournament(short_tmp, engines, rounds=20, time_control="movetime_ms = 200")
    out = short_tmp / "out"
    run = subprocess.Popen(
        arena_cmd("run", path, "--out", out, "-q"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, start_new_session=True,
        env={**os.environ, "COLUMNS": "80"},
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not (out / "games.jsonl").exists() or len((out / "games.jsonl").read_text().splitlines()) < 2:
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGINT)
    stdout, stderr = run.communicate(timeout=60)
    tables = stdout.split("interrupted; the games stored so far:\n")[1]
    assert "Standings" in tables and lines_too_long(tables, 80) == [], tables
    assert "Results of first-engine vs second-engine (" in tables  # the match line, as far as it got


def test_the_pairs_ratio_in_results_json_is_rounded_to_4_places():
    """Pairs won over pairs lost: (2 + 1) / (3 + 4) = 0.428571..., kept to 4 places."""
    assert match_figures([3, 4, 1, 2, 1]).as_dict()["pairs_ratio"] == 0.4286  # type: ignore[union-attr]


def test_an_interval_that_reaches_a_score_of_exactly_0_or_1_has_no_elo_end_there():
    """A score of 0 or 1 has no Elo (it is -inf or +inf): an interval ending exactly there
    takes the +/- from its other end, as one that passes it does, and one reaching both
    takes the most the units can show."""
    from arena.results.matchline import _elo_error

    third = 400 * math.log10(3)  # the Elo of a score of 3/4
    assert _elo_error(0.5, 0.0, 0.75, 10) == pytest.approx(third)
    assert _elo_error(0.5, 0.25, 1.0, 10) == pytest.approx(third)
    assert _elo_error(0.5, 0.0, 1.0, 4) == pytest.approx(400 * math.log10(9))
