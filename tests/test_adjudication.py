"""Adjudication (arena/adjudication.py, docs/adjudication.md): the ply limit, the resign and
draw adjudications by the engines' scores, played with real engine processes
(tests/engines/score_engine.py reports a fixed score) and checked by ``arena verify``'s own
re-derivation; their settings from a file and from the command line, refused where a game
cannot have them, and kept in the folder's settings."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

import pytest
from helpers import ROOT, engine_toml, write_tournament
from helpers import run_arena as arena

from arena.adjudication import Adjudication, Adjudicator, DrawRule, ResignRule
from arena.engine import EngineSpec, open_engine
from arena.match import TimeControl, play_game
from arena.record import GameRecord, Termination, replay_start
from arena.results.ratings import ENV, standings
from arena.results.sgf import hex_game_sgf
from arena.results.verify import parse_record, verify_record
from arena.rules import make_game
from arena.tournament.config import ConfigError, load_tournament

PY = sys.executable
SCORER = str(ROOT / "tests" / "engines" / "score_engine.py")
CLOCK = TimeControl(movetime_ms=5000)


def scorer(name: str, score: str, start: int = 1) -> EngineSpec:
    return EngineSpec(name, (PY, SCORER, score, str(start)), cwd=str(ROOT))


def random_engine(name: str) -> EngineSpec:
    return EngineSpec(name, (PY, "-m", "engines.random_engine"), cwd=str(ROOT))


def play(game: str, options: dict, specs: Sequence[EngineSpec], rules: Adjudication, seed: int = 1) -> GameRecord:
    engines = [open_engine(s) for s in specs]
    try:
        for e in engines:
            e.start()
        result = play_game(make_game(game, options), engines, seed=seed, time_control=CLOCK, adjudication=rules)
        assert result.faulted_seats == []  # an adjudicated loser's process is sound: kept
        return result.record
    finally:
        for e in engines:
            e.quit()


def verified(record: GameRecord) -> GameRecord:
    """The record, once ``arena verify`` derives the same result from its moves."""
    verdict = verify_record(record)
    assert verdict["ok"], verdict
    return record


# -- the ply limit ------------------------------------------------------------------------


def test_the_ply_limit_draws_a_game_without_a_count_of_its_own():
    record = verified(
        play("bases", {}, [random_engine("a"), random_engine("b")], Adjudication(max_plies=12)),
    )
    assert record.termination is Termination.MAX_PLIES
    assert len(record.moves) == 12
    assert (record.scores, record.places, record.winner) == ([0.5, 0.5], [0, 0], None)
    assert record.reason == "ply limit 12 reached: a draw"


@pytest.mark.parametrize(("game", "options", "seats"), [("hexgo", {"size": 3}, 2), ("posies", {"players": 3}, 3)])
def test_the_ply_limit_scores_a_game_by_its_own_count(game, options, seats):
    """HexGo's territory and Posies' points as they stand, as the game counts them."""
    names = [chr(ord("a") + k) for k in range(seats)]
    record = verified(play(game, options, [random_engine(n) for n in names], Adjudication(max_plies=9), seed=4))
    assert record.termination is Termination.MAX_PLIES
    assert len(record.moves) == 9
    state = replay_start(make_game(game, options), record.seed, record.setup, record.deal)
    for move in record.moves:
        state.play(move)
    assert not state.is_terminal()
    assert record.scores == [float(s) for s in state.scores()]
    assert record.reason == "ply limit 9 reached: scored by the game's count as it stands"


def test_a_ply_limit_past_the_games_end_changes_nothing():
    record = verified(
        play("hex", {"size": 3, "swap": False}, [random_engine("a"), random_engine("b")], Adjudication(max_plies=50))
    )
    assert record.termination is Termination.NORMAL


# -- resign -------------------------------------------------------------------------------


def test_a_seat_whose_score_says_it_lost_for_movecount_moves_loses():
    rules = Adjudication(resign=ResignRule(movecount=3, score=600))
    record = verified(
        play("hex", {"size": 7, "swap": False}, [scorer("hopeless", "-700"), scorer("sure", "700")], rules)
    )
    assert record.termination is Termination.ADJUDICATED_RESIGN
    assert len(record.moves) == 5  # seat 0's third move is ply 4
    assert (record.winner, record.forfeit_seat, record.places) == (1, 0, [1, 0])
    assert record.reason == "hopeless (seat 0): adjudicated: its score was at most -600 on its last 3 moves"


def test_a_move_without_a_score_breaks_the_run():
    """Scores from the loser's 3rd move on: adjudicated at its 5th (plies 4, 6, 8 were its 3rd-5th)."""
    rules = Adjudication(resign=ResignRule(movecount=3, score=600))
    record = verified(play("hex", {"size": 7, "swap": False}, [scorer("late", "-900", 3), scorer("b", "0")], rules))
    assert record.termination is Termination.ADJUDICATED_RESIGN
    assert len(record.moves) == 9


def test_twosided_needs_the_winners_score_too():
    """The opponent says nothing of its chances: no adjudication, the game is played out."""
    rules = Adjudication(resign=ResignRule(movecount=2, score=600, twosided=True))
    record = verified(play("hex", {"size": 4, "swap": False}, [scorer("a", "-700"), scorer("b", "none")], rules))
    assert record.termination is Termination.NORMAL
    sure = play("hex", {"size": 7, "swap": False}, [scorer("a", "700"), scorer("b", "-700")], rules)
    assert (verified(sure).termination, sure.winner, len(sure.moves)) == (Termination.ADJUDICATED_RESIGN, 0, 4)


def test_a_score_short_of_the_threshold_is_no_loss():
    rules = Adjudication(resign=ResignRule(movecount=1, score=600))
    record = verified(play("hex", {"size": 4, "swap": False}, [scorer("a", "-599.5"), scorer("b", "0")], rules))
    assert record.termination is Termination.NORMAL


# -- draw ---------------------------------------------------------------------------------


def test_scores_near_even_for_movecount_moves_after_movenumber_draw_the_game():
    rules = Adjudication(draw=DrawRule(movenumber=3, movecount=2, score=10))
    record = verified(play("bases", {}, [scorer("a", "-4.5"), scorer("b", "10")], rules))
    assert record.termination is Termination.ADJUDICATED_DRAW
    assert len(record.moves) == 6  # each seat's third move
    assert (record.scores, record.winner, record.forfeit_seat) == ([0.5, 0.5], None, None)


def test_one_score_off_even_keeps_the_game_going():
    rules = Adjudication(draw=DrawRule(movenumber=0, movecount=2, score=10), max_plies=20)
    record = verified(play("bases", {}, [scorer("a", "0"), scorer("b", "11")], rules))
    assert record.termination is Termination.MAX_PLIES  # the draw rule never fired


def test_the_watch_counts_each_seats_own_moves():
    """The rule on its own: seat 1's moves, not the game's plies, make its run."""
    judge = Adjudicator(Adjudication(resign=ResignRule(movecount=2, score=1)), 2)
    state = make_game("hex", {"size": 5, "swap": False}).initial_state()
    endings = []
    for move, seat, score in [("a1", 0, 0), ("b1", 1, -2), ("c1", 0, 0), ("d1", 1, 5), ("e1", 0, 0), ("a2", 1, -2)]:
        state.play(move)
        endings.append(judge.after_move(state, seat, {"score": score}))
    assert endings == [None] * 6
    state.play("b2")
    assert judge.after_move(state, 0, {"score": 0}) is None
    state.play("c2")
    ending = judge.after_move(state, 1, {"score": -1.0})
    assert ending is not None and ending.loser == 1


# -- settings -----------------------------------------------------------------------------


def tournament(tmp_path: Path, game: str, options: str, adjudication: str) -> Path:
    engines = engine_toml("a", "{python}", "-m", "engines.random_engine", extra=f'cwd = "{ROOT}"')
    engines += engine_toml("b", "{python}", "-m", "engines.random_engine", extra=f'cwd = "{ROOT}"')
    engines += engine_toml("c", "{python}", "-m", "engines.random_engine", extra=f'cwd = "{ROOT}"')
    return write_tournament(tmp_path, engines, game=game, options=options, extra=adjudication)


@pytest.mark.parametrize(
    ("game", "options", "table", "said"),
    [
        (
            "hex",
            "size = 5",
            "[adjudication.draw]\nmovecount = 3\nscore = 10",
            "[adjudication] draw: a hex game cannot be drawn; remove draw",
        ),
        (
            "posies",
            "players = 3",
            "[adjudication.resign]\nmovecount = 3\nscore = 10",
            "[adjudication] resign: the resign adjudication gives the game to the one opponent",
        ),
        (
            "bases",
            "",
            "[adjudication]\ndecided = true",
            "[adjudication] decided: bases cannot tell a decided position; remove decided",
        ),
        ("hex", "size = 5", "[adjudication.resign]\nmovecont = 3\nscore = 10", "movecont"),
        ("hex", "size = 5", "[adjudication]\nmax_plies = 0", "max_plies"),
        ("hex", "size = 5", "[adjudication.resign]\nmovecount = 3\nscore = -5", "score"),
    ],
)
def test_a_setting_a_game_cannot_have_is_one_line_naming_it(tmp_path, game, options, table, said):
    path = tournament(tmp_path, game, options, table)
    with pytest.raises(ConfigError) as caught:
        load_tournament(path)
    message = str(caught.value)
    assert said in message and str(path) in message and "\n" not in message


@pytest.mark.slow
def test_a_file_and_the_command_line_say_the_same_rules(tmp_path):
    table = "[adjudication]\nmax_plies = 30\ndecided = true\n[adjudication.resign]\nmovecount = 3\nscore = 600\ntwosided = true\n"
    loaded = load_tournament(tournament(tmp_path, "hex", "size = 5", table))
    rules = Adjudication(max_plies=30, decided=True, resign=ResignRule(movecount=3, score=600, twosided=True))
    assert loaded.data.adjudication == rules
    out = tmp_path / "flags"
    proc = arena(
        "run", "--game", "hex", "-O", "size=3", "-O", "swap=false", "--rounds", "1",
        "--engine", "name=a", "cmd=python -m engines.random_engine",
        "--engine", "name=b", "cmd=python -m engines.random_engine",
        "--each", "st=2",
        "--adjudicate", "resign", "movecount=3", "score=600", "twosided=true",
        "--adjudicate", "maxplies=30",
        "--adjudicate", "hex-decided",
        "--out", out, "--quiet",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert load_tournament(out / "tournament.toml").data.adjudication == rules


@pytest.mark.slow
def test_a_bad_adjudicate_flag_is_one_line(tmp_path):
    base = ["run", "--game", "hex", "--engine", "cmd=python -m engines.random_engine"] * 1
    base += ["--engine", "cmd=python -m engines.random_engine", "--out", tmp_path / "x"]
    for items, said in [
        (["resign", "movecount=3", "score=lots"], "--adjudicate resign item 'score=lots'"),
        (["surrender"], "--adjudicate 'surrender': give one rule an --adjudicate: resign, draw"),
        (["draw", "moves=3"], "--adjudicate draw item 'moves=3'"),
    ]:
        proc = arena(*base, "--adjudicate", *items)
        assert proc.returncode == 2, proc.stderr
        line = proc.stderr.strip()
        assert said in line and "Traceback" not in line and len(line.splitlines()) == 1, line


def test_sgf_gives_a_decided_win_and_a_drawn_ply_limit_as_results():
    decided = GameRecord(
        game="hex", options={"size": 5, "swap": False}, players=["r", "b"], moves=["c2", "e5", "b4"],
        termination=Termination.DECIDED, winner=0, scores=[1.0, 0.0], places=[0, 1],
    )  # fmt: skip
    assert "RE[B+]" in hex_game_sgf(decided)
    drawn = decided.replace(termination="max-plies", winner=None, scores=[0.5, 0.5], places=[0, 0])
    assert "RE[0]" in hex_game_sgf(drawn)


def games_of(folder: Path) -> list[dict]:
    with closing(sqlite3.connect(folder / "arena.db")) as db:
        return [json.loads(row[0]) for row in db.execute("SELECT record FROM games ORDER BY id")]


@pytest.mark.slow
@pytest.mark.timeout(180)  # six runs of the command line, on a shared machine
def test_a_run_stores_resign_adjudications_counts_them_and_keeps_its_settings(tmp_path):
    """Through the runner's worker path and a real folder: the termination is stored, counted
    by ``arena results`` and passes ``arena verify``; another threshold is another tournament,
    and a folder made without [adjudication] still resumes without it."""
    engines = engine_toml("hopeless", "{python}", SCORER, "-800", extra=f'cwd = "{ROOT}"')
    engines += engine_toml("sure", "{python}", SCORER, "800", extra=f'cwd = "{ROOT}"')
    table = "[adjudication.resign]\nmovecount = 2\nscore = 600\n"
    path = write_tournament(tmp_path, engines, options="size = 7\nswap = false", rounds=2, extra=table)
    out = tmp_path / "out"
    proc = arena("run", path, "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    records = games_of(out)
    assert [r["termination"] for r in records] == ["adjudicated-resign"] * 4
    logged = [line for line in (out / "arena.log").read_text().splitlines() if "adjudicated" in line]
    assert len(logged) == 4 and all(" INFO game " in line for line in logged), logged  # no warning: the rules at work
    assert {r["players"][r["winner"]] for r in records} == {"sure"}
    results = arena("results", out)
    assert results.returncode == 0 and "adjudicated-resign 4" in results.stdout, results.stdout
    assert json.loads((out / "results.json").read_text())["terminations"] == {"adjudicated-resign": 4}
    assert "adjudicated-resign" in (out / "report" / "games" / "0.html").read_text()
    sgf = hex_game_sgf(parse_record(records[0]))
    assert f"RE[{'W' if records[0]['winner'] == 1 else 'B'}+R]" in sgf and "C[adjudicated-resign: " in sgf
    verify = arena("verify", out / "games.jsonl")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    path.write_text(path.read_text().replace("score = 600", "score = 500"))
    refused = arena("run", path, "--out", out, "--quiet")
    assert refused.returncode == 2 and "adjudication.resign.score: 600.0 -> 500.0" in refused.stderr, refused.stderr
    plain = tmp_path / "plain"
    path.write_text(path.read_text().replace(table.replace("600", "500"), ""))
    assert arena("run", path, "--out", plain, "--quiet").returncode == 0
    with closing(sqlite3.connect(plain / "arena.db")) as db:
        stored = json.loads(db.execute("SELECT value FROM meta WHERE key='settings'").fetchone()[0])
    assert "adjudication" not in stored  # as a folder made before the table stored it
    again = arena("run", path, "--out", plain, "--quiet")
    assert again.returncode == 0, again.stderr


def test_verify_rederives_an_adjudicated_result_and_names_a_changed_one():
    drawn = GameRecord(
        game="hex", options={"size": 5, "swap": False}, moves=["c2", "e5"],
        termination=Termination.ADJUDICATED_DRAW, scores=[0.5, 0.5], places=[0, 0],
    )  # fmt: skip
    assert verify_record(drawn)["ok"]
    changed = verify_record(drawn.replace(winner=0, scores=[1.0, 0.0], places=[0, 1]))
    assert [m["field"] for m in changed["mismatches"]] == ["winner", "scores", "places"]
    ended = "a1 b1 a2 b2 a3 b3 a4 b4 a5".split()  # Red's a-column: the rules ended it
    over = verify_record(drawn.replace(moves=ended, termination="max-plies"))
    assert over["mismatches"][0]["reason"] == "the recorded moves end the game by the rules"


def test_an_adjudicated_draw_is_a_draw_in_the_standings_and_an_adjudicated_resignation_a_loss():
    """Not two offenders sharing a place (a forfeit's reading): each counts as played and rated."""
    draw = GameRecord(
        game="bases", players=["a", "b"], moves=[], termination=Termination.ADJUDICATED_DRAW,
        scores=[0.5, 0.5], places=[0, 0], id=0,
    )  # fmt: skip
    lost = draw.replace(
        termination="adjudicated-resign", forfeit_seat=0, winner=1, scores=[0.0, 1.0], places=[1, 0], id=1
    )
    a, b = standings(["a", "b"], [draw, lost], 2)
    assert (a.games, a.draws, a.losses, b.wins, a.points, b.points) == (2, 1, 1, 1, 0.5, 1.5)
    assert a.sigma < ENV.sigma  # rated: TrueSkill moved
