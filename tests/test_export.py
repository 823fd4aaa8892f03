"""Exports of a results folder: results.json (schema in docs/results.md), standings.md/csv at the
end of a run, and `arena results DIR --format ...` on finished and running tournaments."""

import csv
import hashlib
import io
import itertools
import json
import math
import re
import sqlite3
from importlib.metadata import PackageNotFoundError

import pytest
from click.testing import CliRunner
from helpers import (
    WIDE,
    ZOO,
    engine_toml,
    json_in_folder,
    random_game_record,
    random_record,
    run_arena,
    strict_json,
    write_tournament,
)
from tabulate import tabulate

from arena.cli import main
from arena.results import export
from arena.results.elo import fit_elo
from arena.results.export import arena_version, csv_cell, match_results, render, results_document, summarize
from arena.results.matchline import matches
from arena.results.store import GameStore, read_folder

ENGINES = (
    engine_toml("random", "{python}", "-m", "engines.random_engine")
    + engine_toml("pathfinder", "{python}", "-m", "engines.hex_pathfinder")
    + engine_toml("dud", "{python}", ZOO, "crash_start", extra="max_failures = 1")
)
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
FREE_KEYS = {"settings", "dropped", "terminations"}  # their keys are names and codes, not fields


# Session-wide: the slow tests run before the quick ones (tests/conftest.py), and both read it.
@pytest.fixture(scope="session")
def folder(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("export")
    out = tmp / "out"
    forfeits = "forfeit_failed_engines = true"  # the dud fails its start-up check: play on
    tournament = write_tournament(tmp, ENGINES, rounds=2, seed=5, extra=forfeits)
    proc = run_arena("run", tournament, "-q", "--out", out, env=WIDE)
    assert proc.returncode == 1, proc.stderr  # finished with the dud dropped
    return out, proc.stdout


def walk(value, path=""):
    """Every (path, key, value) of a JSON document."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield path, k, v
            yield from walk(v, f"{path}.{k}")
    elif isinstance(value, list):
        for v in value:
            yield from walk(v, path + "[]")


@pytest.mark.slow
def test_results_json_is_for_programs(folder):
    out, _ = folder
    doc = json.loads((out / "results.json").read_text())
    meta, records = read_folder(out)
    assert doc["schema_version"] == 1 and re.fullmatch(r"\d+\.\d+\.\d+.*", doc["arena_version"])
    assert doc["fingerprint"] == meta["fingerprint"] and doc["settings"] == json.loads(meta["settings"])
    assert doc["games"] == len(records) == 12
    for path, key, value in walk(doc):
        if not any(path.startswith(f".{k}") for k in FREE_KEYS) and path.split(".")[-1] not in FREE_KEYS:
            assert SNAKE.match(key), (path, key)
        assert not (isinstance(value, str) and value.lower() in ("inf", "+inf", "-inf", "nan")), (path, key)
    fit = fit_elo(records, ["random", "pathfinder", "dud"])
    for row in doc["elo"]["ratings"]:
        r = fit.rating(row["engine"])
        assert row["elo"] == (None if r.elo is None else round(r.elo, 1))
    # the dud never starts: dropped, listed last without a rank, and never counted as a draw
    standings = {row["engine"]: row for row in doc["standings"]}
    assert doc["standings"][-1]["engine"] == "dud" and standings["dud"]["rank"] is None
    assert standings["dud"]["dropped"] and not standings["random"]["dropped"]
    assert [row["rank"] for row in doc["standings"][:2]] == [1, 2]
    # it played none of its games (it never started): they are its forfeits in the standings,
    # and no rating counts them, so it has no Elo at all (it once had a finite one from them)
    assert standings["dud"]["losses"] == standings["dud"]["games"] == 8
    assert standings["dud"]["elo"] is None and standings["dud"]["elo_bound"] == "unconnected"
    assert doc["elo"]["prior"] == 2 and "log-posterior" in doc["elo"]["interval_method"]
    engines = {e["engine"]: e for e in doc["engines"]}
    # max_failures = 1, 2 workers: started once, and at most once more by a game of the other
    # worker that started before the drop (it finishes and counts)
    dud = engines["dud"]["terminations"]
    assert dud in ({"crash": 1, "dropped": 7}, {"crash": 2, "dropped": 6})
    assert engines["random"]["moves_timed"] > 0 and isinstance(engines["random"]["mean_move_ms"], float)
    assert [s["name"] for s in engines["random"]["seats"]] == ["red", "blue"]
    assert all(isinstance(p["los_pct"], float) for p in doc["head_to_head"])
    for where, text in json_in_folder(out):  # strict JSON everywhere: unbounded figures are null
        strict_json(text, where)


@pytest.mark.slow
def test_a_clean_sweep_is_finite_with_the_prior_and_unbounded_without(tmp_path):
    """4-0: BayesElo's 2 virtual draws make it 4-0 of 6 for the Elo, a finite difference of
    400 log10(5) (score 5/6) in the run's tables, results.json and the report; with
    elo_prior = 0 (maximum likelihood) no engine has a finite Elo (one engine alone measures
    nothing): the winner is +inf and the loser -inf."""
    engines = engine_toml("zed", "{python}", ZOO, "good") + engine_toml(
        "alpha", "{python}", ZOO, "resign", extra="handshake_ms = 300\nmax_failures = 0"
    )
    out = tmp_path / "out"
    proc = run_arena(
        "run", write_tournament(tmp_path, engines, rounds=2, options="size = 5\nswap = false"), "--out", out, env=WIDE
    )
    assert proc.returncode == 0, proc.stderr
    half = round(200 * math.log10(5), 1)  # 139.8 each side of the mean
    elo_rows = proc.stdout.split("Bradley-Terry Elo")[1].split("Head to head")[0]
    assert re.search(rf"^zed\s+{half}\s", elo_rows, re.M) and re.search(rf"^alpha\s+-{half}\s", elo_rows, re.M)
    assert re.search(r"^1\s+zed\s", proc.stdout, re.M), proc.stdout
    doc = json.loads((out / "results.json").read_text())
    assert [(r["engine"], r["elo"], r["bound"]) for r in doc["elo"]["ratings"]] == [
        ("zed", half, None),
        ("alpha", -half, None),
    ]
    # The pair's own Elo is finite: 4-0 counts one virtual draw, a score of 4.5 / 5.
    assert re.search(r"^zed\s+alpha\s+4\s+4\s+0\s+0\s+100\.0\s+381\.7†\s+407\.5\s+97\.7$", proc.stdout, re.M)
    (pair,) = doc["head_to_head"]
    assert (pair["elo_diff"], pair["elo_margin"], pair["elo_method"], pair["elo_virtual_draws"]) == (
        381.7,
        407.5,
        "wilson",
        1,
    )
    assert (pair["elo_low"], pair["elo_high"]) == (-25.8, 789.2)  # 381.7 -+ 407.5
    page = (out / "report" / "index.html").read_text()
    assert "BayesElo&#39;s prior of 2 virtual draws" in page and "log-posterior (Laplace)" in page
    assert f"report: {(out / 'report' / 'index.html').resolve()}" in proc.stdout

    result = CliRunner().invoke(main, ["results", str(out), "--elo-prior", "0"])
    assert result.exit_code == 0, result.output
    elo_rows = result.output.split("Bradley-Terry Elo")[1].split("Head to head")[0]
    assert re.search(r"^zed\s+\+inf\s+4\s+100\.0\s*$", elo_rows, re.M), elo_rows
    assert re.search(r"^alpha\s+-inf\s+4\s+0\.0\s*$", elo_rows, re.M), elo_rows
    assert "Bradley-Terry maximum likelihood" in result.output
    result = CliRunner().invoke(main, ["results", str(out), "--elo-prior", "0", "--format", "json"])
    doc = json.loads(result.output)
    assert doc["elo"]["anchor"].startswith("none") and doc["elo"]["prior"] == 0
    assert [(r["engine"], r["elo"], r["low"], r["high"], r["bound"]) for r in doc["elo"]["ratings"]] == [
        ("zed", None, None, None, "above"),
        ("alpha", None, None, None, "below"),
    ]
    result = CliRunner().invoke(main, ["report", str(out), "-o", str(tmp_path / "ml"), "--elo-prior", "0"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "ml" / "index.html").read_text()
    assert "unbounded above (lost no point to the rated engines)" in page
    assert "unbounded below (took no point from the rated engines)" in page
    assert "Bradley-Terry maximum likelihood" in page


def test_the_run_writes_standings_md_and_csv_and_prints_the_tables(folder):
    out, stdout = folder
    for title in ("Standings", "Bradley-Terry Elo", "Head to head", "Per-engine statistics"):
        assert title in stdout and f"## {title}" in (out / "standings.md").read_text()
    assert f"folder: {out.resolve()}" in stdout
    markdown = (out / "standings.md").read_text()
    for text in (stdout, markdown):  # each Elo says what it counts and how
        # the 8 games (of 12) the dud did not play count in no Elo
        assert "BT Elo (field)" in text and "Bradley-Terry Elo (field, 4 games)" in text
        assert "head-to-head Elo" in text and "± 95% (Wilson)" in text
        assert "head-to-head Elo: each pair from its own games; 95% interval: the Wilson score interval" in text
    assert re.search(
        r"^dud \(dropped\)\s+unrated\s", stdout.split("Bradley-Terry Elo")[1], re.M
    )  # marked, not ranked silently; its forfeits, games it did not play, give it no Elo
    rows = list(csv.DictReader(io.StringIO((out / "standings.csv").read_text())))
    doc = json.loads((out / "results.json").read_text())
    assert [r["engine"] for r in rows] == [s["engine"] for s in doc["standings"]]
    assert rows[-1]["rank"] == "" and rows[-1]["dropped"] == "true"
    assert rows[-1]["elo_bound"] == "unconnected"  # it played no game: no result links it to the others
    assert float(rows[0]["score_pct"]) == doc["standings"][0]["score_pct"]


def test_a_folder_with_nothing_to_summarise_or_options_that_make_no_game_is_refused_in_one_whole_line(tmp_path):
    from arena.results.export import summarize_folder
    from arena.results.store import StorageError

    empty, old = tmp_path / "empty", tmp_path / "old"
    for folder, records in ((empty, []), (old, [random_game_record(0, ["a", "b"]).replace(options={"size": 99})])):
        with GameStore(folder) as store:
            store.open({"game": "hex", "options": {"size": 3}})
            store.add_many(records)
        with sqlite3.connect(folder / "arena.db") as db:  # as an arena that stored no settings left it
            db.execute("DELETE FROM meta")
        db.close()
    with pytest.raises(StorageError) as nothing:
        summarize_folder(empty)
    assert str(nothing.value) == f"{empty}: the folder holds no games yet"
    with pytest.raises(StorageError) as no_game:
        summarize_folder(old)  # no settings: the game is its first record's
    assert str(no_game.value) == (
        f"{old}: the stored settings do not make a game "
        "(hex: option 'size': Input should be less than or equal to 26 (got 99))"
    )


def test_csv_cells_a_spreadsheet_would_run_as_formulas_are_text():
    # OWASP's CSV injection advice: a cell starting with = + - @ tab or CR gets a leading '.
    for text in ("-1+1", "+A1", "=HYPERLINK(1)", "@SUM(A1)", "\tx", "\rx"):
        assert csv_cell(text) == "'" + text
    assert [csv_cell(v) for v in (-13.4, -2, 0.0, None, "a-1", "x=1", "true")] == [
        -13.4,
        -2,
        0.0,
        "",
        "a-1",
        "x=1",
        "true",
    ]
    names = ["-1+1", "+A1", "=cmd", "plain"]
    pairs = [list(pair) for pair in itertools.permutations(names, 2)] * 2
    records = [random_game_record(k, pair, seed=k) for k, pair in enumerate(pairs)]
    s = summarize(records, names, tournament="t", game="hex", options=records[0].options, players=2)
    rows = list(csv.DictReader(io.StringIO(render(s, "csv"))))
    assert sorted(r["engine"] for r in rows) == ["'+A1", "'-1+1", "'=cmd", "plain"]
    assert any(float(r["elo"]) < 0 for r in rows if r["elo"]), rows  # our own negative numbers stay numbers
    assert not [(k, v) for r in rows for k, v in r.items() if k != "engine" and v.startswith("'")]


@pytest.mark.parametrize("fmt", ["table", "md", "csv", "json"])
def test_arena_results_prints_the_same_as_the_run_wrote(folder, fmt):
    out, _ = folder
    result = CliRunner().invoke(main, ["results", str(out), "--format", fmt])
    assert result.exit_code == 0, result.output
    if fmt == "json":
        assert json.loads(result.output) == json.loads((out / "results.json").read_text())
    elif fmt == "csv":
        assert result.output == (out / "standings.csv").read_text()
    elif fmt == "md":
        assert result.output == (out / "standings.md").read_text()
    else:
        assert "Standings" in result.output and "LOS>" in result.output and "dropped" in result.output


def snapshot(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_arena_results_reads_a_running_tournament_without_touching_it(folder, tmp_path):
    out, _ = folder
    copy = tmp_path / "copy"
    copy.mkdir()
    src = sqlite3.connect(out / "arena.db")
    dst = sqlite3.connect(copy / "arena.db")
    src.backup(dst)
    src.close()
    dst.close()
    with GameStore(copy) as store:  # a run holds the folder's lock and its database open
        store.open(json.loads(read_folder(out)[0]["settings"]))
        before = snapshot(copy)
        result = CliRunner().invoke(main, ["results", str(copy), "-f", "json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["games"] == 12
        assert snapshot(copy) == before
    assert not (copy / "results.json").exists()


def test_arena_results_on_a_folder_without_games_says_so(tmp_path):
    result = CliRunner().invoke(main, ["results", str(tmp_path)])
    assert result.exit_code == 2 and "no arena.db here" in result.output
    (tmp_path / "arena.db").write_bytes(b"not a database at all" * 100)
    result = CliRunner().invoke(main, ["results", str(tmp_path)])
    assert result.exit_code == 2 and "cannot read the games" in result.output


def test_a_folder_that_is_not_finished_says_so_and_the_table_states_the_anchor(folder, tmp_path):
    import shutil

    out, _ = folder
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    result = CliRunner().invoke(main, ["results", str(copy), "--wide"])
    assert result.exit_code == 0 and "not finished" not in result.output
    assert re.search(
        r"^Elo: Bradley-Terry with BayesElo's prior of 2 virtual draws per engine, anchor: .+; 95% intervals from ",
        result.output,
        re.M,
    )
    db = sqlite3.connect(copy / "arena.db")
    with db:
        db.execute("DELETE FROM games WHERE id = 4")
    db.close()
    result = CliRunner().invoke(main, ["results", str(copy)])
    assert result.exit_code == 0 and result.output.startswith("not finished: 11 of 12 scheduled games are stored")
    doc = json.loads(CliRunner().invoke(main, ["results", str(copy), "--format", "json"]).output)
    assert (doc["games"], doc["scheduled_games"], doc["finished"]) == (11, 12, False)


def test_a_drop_is_noted_at_its_first_forfeit_and_an_unfinished_run_says_how_far_it_got():
    from arena.match import forfeit_before_start
    from arena.record import Termination
    from arena.results.ratings import note_dropped
    from arena.rules import make_game

    game = make_game("hex", {"size": 3})

    def unplayed(game_id: int, seats: list[str], code: Termination):
        record = forfeit_before_start(game, 7, seats, seats.index("c"), code, "why")
        return record.model_copy(update={"id": game_id})

    dropped: dict[str, str] = {"b": "dropped earlier"}
    for record in (
        unplayed(3, ["a", "c"], Termination.CRASH),  # a forfeit, no drop
        unplayed(5, ["c", "a"], Termination.DROPPED),  # c's first forfeit as a dropped engine
        unplayed(6, ["a", "c"], Termination.DROPPED),
        unplayed(8, ["c", "b"], Termination.DROPPED),
    ):
        note_dropped(dropped, record)
    assert dropped == {"b": "dropped earlier", "c": "dropped (max_failures); first forfeit in game 5"}
    played = [random_game_record(k, ["a", "b"], seed=k) for k in range(3)]

    def status(scheduled: int | None) -> str | None:
        return summarize(
            played, ["a", "b"], tournament="t", game="hex", options={"size": 3}, players=2, scheduled=scheduled
        ).status_text()

    assert status(4) == (
        "not finished: 3 of 4 scheduled games are stored (a run still going, or one that stopped before its end)"
    )
    assert status(3) is None and status(None) is None  # finished, or a folder that does not say


def test_games_an_engine_did_not_play_are_forfeits_in_the_standings_and_in_no_rating():
    """Known truth: the field's ratings, head to head and rating curves with unplayed games
    (lost before their first move: a start-up failure, a drop) added are those of the played
    games alone, while the standings count them as the engine's forfeit losses."""
    from arena.match import forfeit_before_start
    from arena.record import Termination
    from arena.rules import make_game

    names = ["a", "b", "c"]
    played = [random_game_record(k, list(pair), seed=k) for k, pair in enumerate(itertools.permutations(names, 2))]
    game = make_game("hex", {"size": 3})
    why = {Termination.CRASH: "engine closed its output: exit code 1", Termination.DROPPED: "dropped (max_failures)"}
    unplayed = [
        forfeit_before_start(game, 7 + k, seats, seats.index("c"), code, why[code]).model_copy(
            update={"id": len(played) + k, "round": 3}
        )
        for k, (seats, code) in enumerate([(["a", "c"], Termination.CRASH), (["c", "b"], Termination.DROPPED)] * 3)
    ]

    def summary(records):
        return summarize(records, names, tournament="t", game="hex", options=game.options.model_dump(), players=2)

    alone, both = summary(played), summary(played + unplayed)
    assert both.elo.as_dict() == alone.elo.as_dict()  # Elo, intervals and LOS
    assert {k: vars(v) for k, v in both.pairs.items()} == {k: vars(v) for k, v in alone.pairs.items()}
    rows, rows_alone = ({s.engine: s for s in x.standings} for x in (both, alone))
    assert [(rows[n].mu, rows[n].sigma) for n in names] == [(rows_alone[n].mu, rows_alone[n].sigma) for n in names]
    assert rows["c"].games == rows_alone["c"].games + 6 and rows["c"].losses == rows_alone["c"].losses + 6
    assert rows["a"].wins == rows_alone["a"].wins + 3 and rows["b"].wins == rows_alone["b"].wins + 3
    assert results_document(both)["elo"]["label"] == f"Bradley-Terry Elo (field, {len(played)} games)"
    assert both.stats["c"].terminations == {"crash": 3, "dropped": 3}


def test_write_exports_replaces_results_json_standings_md_and_csv_whole(tmp_path):
    from arena.results.export import write_exports

    names = ["a", "b"]
    records = [random_game_record(k, names if k % 2 else names[::-1], seed=k) for k in range(4)]
    s = summarize(records, names, tournament="t", game="hex", options=records[0].options, players=2)
    (tmp_path / "standings.md").write_text("an older run's")
    write_exports(s, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json", "standings.csv", "standings.md"]
    assert (tmp_path / "results.json").read_text(encoding="utf-8") == render(s, "json")
    assert (tmp_path / "standings.md").read_text(encoding="utf-8") == render(s, "md")
    assert (tmp_path / "standings.csv").read_text(encoding="utf-8") == render(s, "csv")
    assert render(s, "md").startswith("# t\n\nhex, 4 games.") and render(s, "csv").startswith("rank,engine,")
    assert strict_json(render(s, "json"))["games"] == 4


def test_the_exports_are_utf8_whatever_the_locale(tmp_path):
    from helpers import ascii_locale

    from arena.results.export import write_exports

    names = ["Jürgen", "棋"]
    records = [random_game_record(k, names if k % 2 else names[::-1], seed=k) for k in range(2)]
    s = summarize(records, names, tournament="Türnier", game="hex", options=records[0].options, players=2)
    with ascii_locale():
        write_exports(s, tmp_path)
    for name, fmt in (("results.json", "json"), ("standings.md", "md"), ("standings.csv", "csv")):
        assert (tmp_path / name).read_bytes() == render(s, fmt).encode("utf-8"), name
    assert "Türnier" in render(s, "md") and "棋" in render(s, "csv") and "Jürgen" in render(s, "json")


def test_the_csv_header_names_each_place_of_a_three_seat_game_and_each_seats_score_by_its_name():
    three = [random_record("posies", {"players": 3}, k, ["a", "b", "c"]) for k in range(3)]
    s = summarize(three, ["a", "b", "c"], tournament="t", game="posies", options=three[0]["options"], players=3)
    assert render(s, "csv").splitlines()[0] == (
        "rank,engine,games,wins,losses,draws,place_1,place_2,place_3,score_pct,elo,elo_low,elo_high,elo_bound,"
        "mu,sigma,conservative,dropped,score_as_seat_0,score_as_seat_1,score_as_seat_2,swapped,was_swapped,"
        "mean_plies,mean_move_ms,max_move_ms,mean_depth,nodes_per_second,forfeits"
    )
    two = [random_record("hex", {"size": 4}, k, ["a", "b"]) for k in range(2)]
    s = summarize(two, ["a", "b"], tournament="t", game="hex", options=two[0]["options"], players=2)
    assert render(s, "csv").splitlines()[0] == (
        "rank,engine,games,wins,losses,draws,score_pct,elo,elo_low,elo_high,elo_bound,mu,sigma,conservative,"
        "dropped,score_as_red,score_as_blue,swapped,was_swapped,mean_plies,mean_move_ms,max_move_ms,mean_depth,"
        "nodes_per_second,forfeits"
    )


def test_the_csv_of_an_event_ends_with_its_score_each_tiebreak_by_a_column_name_and_the_round_reached():
    """A tiebreak's name becomes a column name with '_' for '-'; the event's columns follow
    the statistics, and an engine's cells are its event score, tiebreaks and round reached."""
    import dataclasses

    from arena.results.tiebreaks import EventStanding, EventSummary

    two = [random_record("hex", {"size": 4}, k, ["a", "b"]) for k in range(2)]
    s = summarize(two, ["a", "b"], tournament="t", game="hex", options=two[0]["options"], players=2)
    event = EventSummary(
        "knockout",
        ("buchholz-cut1", "sonneborn-berger", "wins"),
        [
            EventStanding("a", 1.5, {"buchholz-cut1": 2.0, "sonneborn-berger": 0.75, "wins": 1.0}, reached="winner"),
            EventStanding("b", 0.5, {"buchholz-cut1": 1.0, "sonneborn-berger": 0.25, "wins": 0.0}, reached="final"),
        ],
    )
    text = render(dataclasses.replace(s, event=event), "csv")
    assert text.splitlines()[0] == (
        "rank,engine,games,wins,losses,draws,score_pct,elo,elo_low,elo_high,elo_bound,mu,sigma,conservative,"
        "dropped,score_as_red,score_as_blue,swapped,was_swapped,mean_plies,mean_move_ms,max_move_ms,mean_depth,"
        "nodes_per_second,forfeits,event_score,tiebreak_buchholz_cut1,tiebreak_sonneborn_berger,tiebreak_wins,"
        "event_reached"
    )
    event_columns = ["event_score", "tiebreak_buchholz_cut1", "tiebreak_sonneborn_berger", "tiebreak_wins"]
    rows = {row["engine"]: row for row in csv.DictReader(io.StringIO(text))}
    assert {name: [row[k] for k in [*event_columns, "event_reached"]] for name, row in rows.items()} == {
        "a": ["1.5", "2.0", "0.75", "1.0", "winner"],
        "b": ["0.5", "1.0", "0.25", "0.0", "final"],
    }


def stored_folder(tmp_path, extra="", scheduled=None, won_by_a=0, rounds=4):
    """A results folder as a run of engines a and b (Hex 3x3, ``rounds`` rounds) leaves it, with its
    first ``won_by_a`` scheduled games stored, each won by a, and the meta ``scheduled`` text."""
    from arena.results.slots import settings_slots
    from arena.tournament.config import load_tournament
    from arena.tournament.settings import tournament_settings

    tmp_path.mkdir(exist_ok=True)
    engines = engine_toml("a", "{python}", "-m", "engines.random_engine") + engine_toml(
        "b", "{python}", "-m", "engines.random_engine"
    )
    settings = tournament_settings(
        load_tournament(write_tournament(tmp_path, engines, options="size = 3", rounds=rounds, extra=extra))
    )
    slots = settings_slots(settings, 2)[:won_by_a]
    out = tmp_path / "out"
    with GameStore(out) as store:
        store.open(settings)
        store.add_many(
            [
                random_game_record(
                    s.index, list(s.seats), winner=s.seats.index("a"), round_=s.round, stored_seed=s.seed
                )
                for s in slots
            ]
        )
        if scheduled is not None:
            store.set_meta("scheduled", scheduled)
    return out


def test_a_folders_sprt_section_counts_its_stored_pairs_and_a_folder_without_sprt_has_none(tmp_path):
    """One pair stored, a winning both games: one WW pair, its LLR the independent reference's
    (tests/sprt_reference.py), and the test still running with 2 of 8 scheduled games stored."""
    from arena.results.export import summarize_folder

    doc = results_document(summarize_folder(stored_folder(tmp_path, "[sprt]\nelo0 = 0\nelo1 = 10", "8", 2)))
    assert (doc["games"], doc["scheduled_games"], doc["finished"]) == (2, 8, False)
    assert doc["sprt"] == {
        "engine": "a", "opponent": "b", "model": "normalized", "elo0": 0.0, "elo1": 10.0,
        "alpha": 0.05, "beta": 0.05, "lower_bound": round(math.log(0.05 / 0.95), 4),
        "upper_bound": round(math.log(0.95 / 0.05), 4), "decision": "running", "pairs": 1, "games": 2,
        "llr": 0.0399, "score": 1.0, "pentanomial": {"LL": 0, "LD": 0, "WL+DD": 0, "WD": 0, "WW": 1},
        "elo": {"elo": None, "elo_low": None, "elo_high": None, "nelo": None, "nelo_error": None, "los": 1.0,
                "label": "SPRT Elo (1 pair, pentanomial)"},  # one pair has no spread to bound an Elo by
        "llr_history": [0.0399],
    }  # fmt: skip
    plain = summarize_folder(stored_folder(tmp_path / "plain", scheduled="8", won_by_a=2))
    assert plain.sprt is None and "sprt" not in results_document(plain)


def test_a_folders_damaged_sprt_settings_are_named_whole_with_the_way_out(tmp_path):
    from pydantic import ValidationError

    from arena.results.export import summarize_folder
    from arena.results.sprt import SprtSettings
    from arena.results.store import StorageError

    out = stored_folder(tmp_path, "[sprt]\nelo0 = 0\nelo1 = 10", "8", 2)
    with sqlite3.connect(out / "arena.db") as db:  # elo0 past elo1: no test a tournament file would make
        settings = json.loads(db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()[0])
        settings["sprt"]["elo0"] = 20.0
        db.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (json.dumps(settings),))
    db.close()
    with pytest.raises(ValidationError) as why:
        SprtSettings.model_validate(settings["sprt"])
    with pytest.raises(StorageError) as err:
        summarize_folder(out)
    assert str(err.value) == (
        f"{out}: the stored [sprt] settings are damaged ({why.value}); run the tournament again into a new folder"
    )


@pytest.mark.parametrize(
    "stored,scheduled,finished",
    [("0", 0, True), ("-1", None, None), ("true", None, None), ('"8"', None, None), ("2.5", None, None)],
)
def test_a_folders_scheduled_count_is_kept_when_it_is_a_count_and_else_not_known(tmp_path, stored, scheduled, finished):
    """A folder of no games whose schedule holds none is finished; a stored value that is no
    count (negative, true, text, a fraction) leaves the schedule not known."""
    from arena.results.export import summarize_folder

    doc = results_document(summarize_folder(stored_folder(tmp_path, scheduled=stored)))
    assert (doc["games"], doc["scheduled_games"], doc["finished"]) == (0, scheduled, finished)


def test_a_folders_damaged_scheduled_count_is_named_whole_with_the_way_out(tmp_path):
    from arena.results.export import summarize_folder
    from arena.results.store import StorageError

    out = stored_folder(tmp_path, scheduled="{8", won_by_a=2)  # not JSON: no arena wrote it
    with pytest.raises(StorageError) as err:
        summarize_folder(out)
    assert str(err.value) == (
        f"{out.resolve() / 'arena.db'}: its stored 'scheduled' is damaged; "
        "start a new folder with --out, or remove the folder to play the tournament again"
    )


def test_a_folders_elo_is_fitted_with_the_prior_its_tournament_file_asks_for_unless_one_is_given(tmp_path):
    """a won both stored games: without the prior a clean sweep rates nobody and bounds both
    (tests/test_elo.py), with BayesElo's 2 virtual draws both are rated."""
    from arena.results.export import summarize_folder

    out = stored_folder(tmp_path, "elo_prior = 0", "8", 2)
    plain = summarize_folder(out)
    assert plain.elo.prior == 0.0
    assert [(r.engine, r.bound, r.elo) for r in plain.elo.ratings] == [("a", "above", None), ("b", "below", None)]
    given = summarize_folder(out, elo_prior=2)
    assert given.elo.prior == 2.0 and [(r.engine, r.bound) for r in given.elo.ratings] == [("a", None), ("b", None)]
    assert [r.row() for r in given.elo.ratings] == [r.row() for r in fit_elo(given.records, ["a", "b"]).ratings]


def test_a_folder_older_than_stored_settings_is_named_by_its_first_games_tournament(tmp_path):
    from arena.results.export import read_for_summary

    out = tmp_path / "old"
    with GameStore(out) as store:
        store.open({"game": "hex", "options": {"size": 3}})
        record = random_game_record(0, ["a", "b"], winner=0).replace(tournament="spring cup")
        store.add_many([record])
    with sqlite3.connect(out / "arena.db") as db:  # as an arena that stored no settings left it
        db.execute("DELETE FROM meta")
    db.close()
    read = read_for_summary(out)
    assert (read.tournament, read.game, read.options, read.players) == ("spring cup", "hex", record.options, 2)
    assert record.options == {"size": 3, "swap": True}  # its game's options with their defaults
    assert read.summary().tournament == "spring cup"


def test_a_folder_whose_stored_settings_lost_their_name_and_holds_no_game_is_named_by_the_folder(tmp_path):
    from arena.results.export import read_for_summary

    out = stored_folder(tmp_path, scheduled="8")
    with sqlite3.connect(out / "arena.db") as db:  # a name no tournament file would leave out
        settings = json.loads(db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()[0])
        del settings["name"]
        db.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (json.dumps(settings),))
    db.close()
    read = read_for_summary(out)
    assert (read.tournament, read.records) == ("out", [])
    assert read.summary().tournament == "out"


def test_a_folders_summary_takes_the_movers_of_its_checked_games_in_turn_without_replaying_them(tmp_path):
    """A stored game's checked mark says the referee played its moves through the rules, so the
    summary's statistics take its seats in turn: a game marked so whose third move repeats its
    first (no replay would pass it) still times its first seat's two moves and the other's one."""
    from arena.results.export import summarize_folder
    from arena.results.slots import settings_slots

    out = stored_folder(tmp_path, scheduled="8")
    with sqlite3.connect(out / "arena.db") as db:
        settings = json.loads(db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()[0])
    db.close()
    slot = settings_slots(settings, 2)[0]
    first, second = slot.seats
    played = random_game_record(0, list(slot.seats), winner=0, round_=slot.round, stored_seed=slot.seed)
    forged = played.replace(moves=[played.moves[0], played.moves[1], played.moves[0]], times_ms=[5, 7, 9])
    with GameStore(out) as store:
        store.open(settings)
        store.add_many([forged])  # marked as checked, as the runner's games are
    summary = summarize_folder(out)
    assert [r.id for r in summary.records] == [0] and summary.refused == []
    timed = {name: (s.moves_timed, s.time_ms, s.max_move_ms) for name, s in summary.stats.items()}
    assert timed == {first: (2, 14, 9), second: (1, 7, 7)}


def two_engine_summary(winners: list[int], elo_prior: float = 2.0):
    """A Hex summary of a and b, seats alternating from a first, game k won by seat winners[k]."""
    records = [random_game_record(k, ["a", "b"] if k % 2 == 0 else ["b", "a"], winner=w) for k, w in enumerate(winners)]
    return summarize(
        records, ["a", "b"], tournament="t", game="hex", options=records[0].options, players=2, elo_prior=elo_prior
    )


def test_the_elo_table_of_a_maximum_likelihood_sweep_shows_each_unbounded_side_and_no_interval_or_los():
    """a wins both games (a as red, then as blue): with no prior neither Elo is finite, so the
    table says which side each is unbounded on, and has no interval and no LOS to show."""
    from arena.results.export import elo_table

    headers, rows = elo_table(two_engine_summary([0, 1], elo_prior=0))
    assert headers == ["engine", "elo", "95% low", "95% high", "results", "score %", "LOS>a", "LOS>b"]
    assert rows == [["a", "+inf", "", "", 2, 100.0, "", ""], ["b", "-inf", "", "", 2, 0.0, "", ""]]


def test_the_elo_tables_score_is_a_percentage_rounded_to_one_decimal():
    """Red wins all three, a red in two: a's 200/3 % shows as 66.7, b's 100/3 % as 33.3."""
    from arena.results.export import elo_table

    _, rows = elo_table(two_engine_summary([0, 0, 0]))
    assert [(row[0], row[4], row[5]) for row in rows] == [("a", 3, 66.7), ("b", 3, 33.3)]


def test_the_match_block_of_two_engines_is_headed_by_both_names_and_its_pairs():
    """Games 0 and 1 are one pair (the same round, the seats swapped): one block, a vs b."""
    from arena.results.export import match_blocks

    blocks = match_blocks(two_engine_summary([0, 0]))
    assert [block[0] for block in blocks] == ["Results of a vs b (1 pair):"]


def test_the_csv_row_of_a_three_seat_game_counts_each_engines_finishes_in_each_place():
    """place_k is how many games the engine finished k-th, as the records' places say."""
    three = [random_record("posies", {"players": 3}, k, ["a", "b", "c"][k:] + ["a", "b", "c"][:k]) for k in range(3)]
    s = summarize(three, ["a", "b", "c"], tournament="t", game="posies", options=three[0]["options"], players=3)
    expected = {name: [0, 0, 0] for name in "abc"}
    for record in three:
        for name, place in zip(record.players, record.places):
            expected[name][place] += 1
    rows = csv.DictReader(io.StringIO(render(s, "csv")))
    assert {row["engine"]: [int(row[f"place_{k}"]) for k in (1, 2, 3)] for row in rows} == expected
    assert sorted(map(sum, expected.values())) == [3, 3, 3]


def test_a_folders_summary_leaves_out_a_game_off_its_slot_or_of_other_options_each_under_its_own_id(tmp_path):
    """Game 0 stored with its seats swapped is not its slot's game; game 1 was played on another
    board than the tournament's: the summary counts games 2 and 3 and names 0 and 1 with why."""
    from arena.results.admit import Refused
    from arena.results.export import summarize_folder

    out = stored_folder(tmp_path, won_by_a=4)
    with sqlite3.connect(out / "arena.db") as db:
        db.execute("UPDATE games SET record = json_set(record, '$.players', json_array('b', 'a')) WHERE id = 0")
        db.execute("UPDATE games SET record = json_set(record, '$.options.size', 4) WHERE id = 1")
    db.close()
    summary = summarize_folder(out)
    assert [r.id for r in summary.records] == [2, 3]
    assert summary.refused == [
        Refused(0, "its seats are b, a; the schedule's game 0 seats a, b"),
        Refused(1, "it is a game of hex {'size': 4, 'swap': True}; the tournament plays hex {'size': 3, 'swap': True}"),
    ]


def stored_settings_refusal(tmp_path, new_settings_sql: str):
    """A stored folder whose settings became ``new_settings_sql`` (an SQL value over the old
    ``value``), and the one line a summary of it is refused with."""
    from arena.results.export import summarize_folder
    from arena.results.store import StorageError

    out = stored_folder(tmp_path, scheduled="8", won_by_a=2)
    with sqlite3.connect(out / "arena.db") as db:
        db.execute(f"UPDATE meta SET value = {new_settings_sql} WHERE key = 'settings'")
    db.close()
    with pytest.raises(StorageError) as err:
        summarize_folder(out)
    return out, str(err.value)


def test_a_folders_damaged_stored_settings_are_named_whole_with_the_way_out(tmp_path):
    out, refusal = stored_settings_refusal(tmp_path, "'{\"game\": '")  # not JSON: no arena wrote it
    assert refusal == (
        f"{out.resolve() / 'arena.db'}: its stored 'settings' is damaged; "
        "start a new folder with --out, or remove the folder to play the tournament again"
    )


def test_a_folders_stored_settings_whose_options_make_no_game_are_named_whole(tmp_path):
    """Its stored board of 99 is past Hex's largest (26): the settings make no tournament."""
    out, refusal = stored_settings_refusal(tmp_path, "json_set(value, '$.options.size', 99)")
    assert refusal == (
        f"{out}: the stored settings do not make a tournament "
        "(hex: option 'size': Input should be less than or equal to 26 (got 99))"
    )


def test_a_knockout_folders_games_are_checked_against_the_slots_its_stored_games_draw(tmp_path):
    """A knockout of a and b is one match, its games alternating the seats from the higher
    seed a first: game 0 stored on its slot is counted, game 1 stored with a first is refused."""
    from arena.results.admit import Refused
    from arena.results.events import stored_schedule
    from arena.results.export import summarize_folder

    out = stored_folder(tmp_path, 'format = "knockout"')
    with sqlite3.connect(out / "arena.db") as db:
        settings = json.loads(db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()[0])
    db.close()
    first, second = stored_schedule(settings, 2, [])[:2]
    assert (first.seats, second.seats) == (("a", "b"), ("b", "a"))
    games = [
        random_game_record(0, ["a", "b"], winner=0, round_=first.round, stored_seed=first.seed),
        random_game_record(1, ["a", "b"], winner=0, round_=second.round, stored_seed=second.seed),
    ]
    with GameStore(out) as store:
        store.open(settings)
        store.add_many(games)
    summary = summarize_folder(out)
    assert [r.id for r in summary.records] == [0]
    assert summary.refused == [Refused(1, "its seats are a, b; the schedule's game 1 seats b, a")]


def test_the_stats_tables_depth_shows_two_decimals_and_its_speed_whole_nodes_and_unreported_ones_are_empty():
    """a's 3 moves that reported a depth searched 7 plies in all: 7/3 shows as 2.33; its 10000
    nodes in 3 ms are 3333333.33 nodes/s, shown whole as 3333333.0; b reported neither: both empty."""
    import dataclasses

    from arena.results.export import stats_table
    from arena.results.stats import EngineStats, SeatStats

    a = EngineStats(
        "a", games=2, seats=[SeatStats(0, "a", 1, 1.0, 1), SeatStats(1, "a", 1, 0.0, 1)], swapped=1, plies=10,
        moves_timed=5, time_ms=10, max_move_ms=4, depth_sum=7.0, depth_moves=3, nodes=10000, nodes_ms=3,
    )  # fmt: skip
    b = EngineStats(
        "b", games=2, seats=[SeatStats(0, "b", 1, 0.0, 1), SeatStats(1, "b", 1, 1.0, 1)], was_swapped=1, plies=10,
        moves_timed=5, time_ms=5, max_move_ms=1, terminations={"time": 1},
    )  # fmt: skip
    s = dataclasses.replace(two_engine_summary([0, 1]), stats={"a": a, "b": b})
    headers, rows = stats_table(s)
    assert headers == [
        "engine", "score % as red", "score % as blue", "swapped", "was swapped", "mean plies", "mean ms/move",
        "max ms/move", "mean depth", "nodes/s", "forfeits",
    ]  # fmt: skip
    assert rows == [
        ["a", 100.0, 0.0, 1, 0, 5.0, 2.0, 4, 2.33, 3333333.0, "none"],
        ["b", 0.0, 100.0, 0, 1, 5.0, 1.0, 1, "", "", "time 1"],
    ]
    text = render(s, "md", tables=[("Per-engine statistics", stats_table)])
    assert text.split("## Per-engine statistics\n\n")[1] == (
        "| engine   | score % as red   | score % as blue   | swapped   | was swapped   | mean plies   "
        "| mean ms/move   | max ms/move   | mean depth   | nodes/s   | forfeits   |\n"
        "|----------|------------------|-------------------|-----------|---------------|--------------"
        "|----------------|---------------|--------------|-----------|------------|\n"
        "| a        | 100.0            | 0.0               | 1         | 0             | 5.0          "
        "| 2.0            | 4             | 2.33         | 3333333.0 | none       |\n"
        "| b        | 0.0              | 100.0             | 0         | 1             | 5.0          "
        "| 1.0            | 1             |              |           | time 1     |\n"
    )


def test_a_swiss_folders_games_on_the_slots_its_stored_games_draw_are_counted(tmp_path):
    """A Swiss event of a and b seats them at one table in its first round, each seat order
    once (a, the first listed, first): both games stored on those slots are counted."""
    from arena.results.events import stored_schedule
    from arena.results.export import summarize_folder

    out = stored_folder(tmp_path, 'format = "swiss"', rounds=1)
    with sqlite3.connect(out / "arena.db") as db:
        settings = json.loads(db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()[0])
    db.close()
    first, second = stored_schedule(settings, 2, [])[:2]
    assert (first.seats, second.seats) == (("a", "b"), ("b", "a"))
    with GameStore(out) as store:
        store.open(settings)
        store.add_many(
            [
                random_game_record(k, list(s.seats), winner=0, round_=s.round, stored_seed=s.seed)
                for k, s in enumerate((first, second))
            ]
        )
    summary = summarize_folder(out)
    assert ([r.id for r in summary.records], summary.refused) == ([0, 1], [])


def test_a_game_that_says_it_started_on_a_book_board_is_counted_only_when_the_tournament_plays_a_book(tmp_path):
    """Game 0 on its slot says its (empty) Hex board was an opening book's: counted in a
    folder whose stored settings name a book, refused with why in one whose settings name none."""
    from arena.results.admit import Refused
    from arena.results.export import summarize_folder
    from arena.rules import make_game

    board = make_game("hex", {"size": 3}).initial_state().setup_token()
    counted = {}
    for book in (True, False):
        out = stored_folder(tmp_path / str(book), scheduled="8", won_by_a=1)
        with sqlite3.connect(out / "arena.db") as db:
            if book:  # as a tournament file with openings stores them
                book_json = json.dumps({"moves_sha256": "0" * 64, "count": 1})
                db.execute(
                    "UPDATE meta SET value = json_set(value, '$.openings', json(?)) WHERE key = 'settings'",
                    (book_json,),
                )
            db.execute(
                "UPDATE games SET record = json_set(record, '$.setup', ?, '$.opening_setup', json('true')) WHERE id = 0",
                (board,),
            )
        db.close()
        summary = summarize_folder(out)
        counted[book] = ([r.id for r in summary.records], summary.refused)
    assert counted == {
        True: ([0], []),
        False: ([], [Refused(0, "it says it started on an opening book's board, but the tournament plays no book")]),
    }


def test_a_folder_with_no_game_counted_and_one_refused_renders_every_line_whole_as_text_and_markdown(tmp_path):
    """No game stored of 8: not finished, both engines unrated (TrueSkill's own 25 and 25/3),
    no head-to-head table (no pair played), the stats table after it still shown; the line of
    the refused game bold in Markdown and wrapped to the width in text, the Elo note under
    the Elo table in text and in the heading in Markdown."""
    import dataclasses

    from arena.results.admit import Refused
    from arena.results.export import summarize_folder

    s = summarize_folder(stored_folder(tmp_path, scheduled="8"))
    s = dataclasses.replace(s, refused=[Refused(5, "its seats are not its slot's")])
    elo_note = (
        "Elo: Bradley-Terry with BayesElo's prior of 2 virtual draws per engine, anchor: none: no two engines "
        "took points from each other, so no rating is finite; 95% intervals from the curvature of the "
        "log-posterior (Laplace); LOS in %. Ranked by Elo (ties: score, then name)."
    )
    status = "not finished: 0 of 8 scheduled games are stored (a run still going, or one that stopped before its end)"
    refused = (
        "not counted: game(s) 5, which are not the tournament's as played (game 5: its seats are not its "
        "slot's). Delete those rows from arena.db and run the tournament again to play them, or start a new "
        "folder; 'arena verify games.jsonl' shows each record's replay."
    )
    assert render(s, "table", width=60).split("\n") == [
        "not finished: 0 of 8 scheduled games are stored (a run still",
        "  going, or one that stopped before its end)",
        "",
        "not counted: game(s) 5, which are not the tournament's as",
        "  played (game 5: its seats are not its slot's). Delete",
        "  those rows from arena.db and run the tournament again to",
        "  play them, or start a new folder; 'arena verify",
        "  games.jsonl' shows each record's replay.",
        "",
        "Standings",
        "rank    engine    games    score %    BT Elo (field)",
        "------  --------  -------  ---------  ----------------",
        "1       a         0        0.0        unrated",
        "2       b         0        0.0        unrated",
        "",
        "Bradley-Terry Elo (field, 0 games)",
        "engine    elo      results    score %    LOS>a    LOS>b",
        "--------  -------  ---------  ---------  -------  -------",
        "a         unrated  0",
        "b         unrated  0",
        "Elo: Bradley-Terry with BayesElo's prior of 2 virtual draws",
        "  per engine, anchor: none: no two engines took points from",
        "  each other, so no rating is finite; 95% intervals from the",
        "  curvature of the log-posterior (Laplace); LOS in %. Ranked",
        "  by Elo (ties: score, then name).",
        "",
        "Per-engine statistics",
        "engine    swapped    was swapped    nodes/s    forfeits",
        "--------  ---------  -------------  ---------  ----------",
        "a         0          0                         none",
        "b         0          0                         none",
        "",
    ]
    assert render(s, "md").split("\n") == [
        "# t",
        "",
        f"hex, 0 games. {elo_note}",
        "",
        f"**{status}**",
        "",
        f"**{refused}**",
        "",
        "## Standings",
        "",
        "| rank   | engine   | games   | wins   | losses   | draws   | score %   | BT Elo (field)   | BT 95%   | mu   | sigma   | mu-3sigma   | status   |",
        "|--------|----------|---------|--------|----------|---------|-----------|------------------|----------|------|---------|-------------|----------|",
        "| 1      | a        | 0       | 0      | 0        | 0       | 0.0       | unrated          |          | 25.0 | 8.33    | 0.0         |          |",
        "| 2      | b        | 0       | 0      | 0        | 0       | 0.0       | unrated          |          | 25.0 | 8.33    | 0.0         |          |",
        "",
        "## Bradley-Terry Elo (field, 0 games)",
        "",
        "| engine   | elo     | 95% low   | 95% high   | results   | score %   | LOS>a   | LOS>b   |",
        "|----------|---------|-----------|------------|-----------|-----------|---------|---------|",
        "| a        | unrated |           |            | 0         |           |         |         |",
        "| b        | unrated |           |            | 0         |           |         |         |",
        "",
        "## Per-engine statistics",
        "",
        "| engine   | score % as red   | score % as blue   | swapped   | was swapped   | mean plies   | mean ms/move   | max ms/move   | mean depth   | nodes/s   | forfeits   |",
        "|----------|------------------|-------------------|-----------|---------------|--------------|----------------|---------------|--------------|-----------|------------|",
        "| a        |                  |                   | 0         | 0             |              |                |               |              |           | none       |",
        "| b        |                  |                   | 0         | 0             |              |                |               |              |           | none       |",
        "",
    ]


def test_an_engines_forfeits_too_wide_for_the_terminal_wrap_inside_their_column_of_the_stats_table(tmp_path):
    """b's three forfeit kinds (29 characters) in 30 columns: every other column dropped, the
    forfeits column wrapped to the 20 characters left (a table 9 too wide), its second line
    under the column, not at the line's start."""
    import dataclasses

    from arena.results.export import stats_table, summarize_folder

    s = summarize_folder(stored_folder(tmp_path, scheduled="8"))
    b = dataclasses.replace(s.stats["b"], terminations={"timeout": 1, "crash": 1, "illegal": 2})
    s = dataclasses.replace(s, stats={**s.stats, "b": b})
    assert render(s, "table", tables=[("Per-engine statistics", stats_table)], width=30).split("\n") == [
        "not finished: 0 of 8 scheduled",
        "  games are stored (a run",
        "  still going, or one that",
        "  stopped before its end)",
        "",
        "Per-engine statistics",
        "engine    forfeits",
        "--------  -------------------",
        "a         none",
        "b         crash 1, illegal 2,",
        "          timeout 1",
        "",
    ]


def test_the_sprt_block_and_the_head_to_head_note_are_laid_out_as_each_format_lays_out_a_section(tmp_path):
    """Markdown: the SPRT block under its own heading, a blank line between its lines, and a blank
    line before the head-to-head note. Text: the block's lines one under the other, wrapped to the
    width, and the note right under its table."""
    from arena.results.export import DROP_ORDER, head_to_head_table, summarize_folder
    from arena.results.fit import fit_table, wrap
    from arena.results.ratings import HEAD_TO_HEAD_NOTE
    from arena.results.sprt import sprt_lines

    s = summarize_folder(stored_folder(tmp_path, "[sprt]\nelo0 = 0\nelo1 = 10", "8", 2))
    assert s.sprt is not None
    lines = sprt_lines(s.sprt)
    assert max(map(len, lines)) > 60  # the text form has lines to wrap at 60 columns
    md = render(s, "md")
    assert md.endswith("\n\n## SPRT\n\n" + "\n\n".join(lines) + "\n")
    headers, rows = head_to_head_table(s)
    assert (
        rows
        and f"{tabulate(rows, headers=headers, tablefmt='github', disable_numparse=True)}\n\n{HEAD_TO_HEAD_NOTE}\n"
        in md
    )
    text = render(s, "table", width=60)
    sprt_block = wrap("\n".join(lines), 60)
    assert f"\n\n{sprt_block}\n\n" in text and max(map(len, sprt_block.splitlines())) <= 60
    head_to_head = fit_table(headers, rows, 60, DROP_ORDER[head_to_head_table], "simple")
    assert f"{head_to_head}\n{wrap(HEAD_TO_HEAD_NOTE, 60)}\n\n" in text


def test_an_events_standings_are_titled_and_laid_out_as_each_format_lays_out_a_section(tmp_path):
    """A Swiss event's standings follow the tables: a Markdown heading and a GitHub table, or a
    title line over a plain table."""
    from arena.results.events import stored_schedule
    from arena.results.export import event_table, summarize_folder
    from arena.results.fit import fit_table

    out = stored_folder(tmp_path, 'format = "swiss"', rounds=1)
    with sqlite3.connect(out / "arena.db") as db:
        settings = json.loads(db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()[0])
    db.close()
    first, _ = stored_schedule(settings, 2, [])[:2]
    with GameStore(out) as store:
        store.open(settings)
        store.add_many([random_game_record(0, list(first.seats), winner=0, round_=first.round, stored_seed=first.seed)])
    s = summarize_folder(out)
    assert s.event is not None and not s.event.finished
    headers, rows = event_table(s.event)
    md = render(s, "md")
    assert md.startswith(f"# {s.tournament}\n\n")  # what came before the event's part is kept
    expected_md = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
    assert f"\n\n## Swiss standings (so far)\n\n{expected_md}\n" in md
    text = render(s, "table", width=60)
    assert f"\n\nSwiss standings (so far)\n{fit_table(headers, rows, 60, (), 'simple')}\n\n" in text


def test_dropped_engines_and_the_match_lines_are_laid_out_as_each_format_lays_out_a_section(tmp_path):
    """Dropped engines: a Markdown list under its heading, or one wrapped line each; the match
    lines (a pair's Elo, LOS and score) close the text form only."""
    import dataclasses

    from arena.results.export import match_blocks, summarize_folder
    from arena.results.fit import wrap

    s = summarize_folder(stored_folder(tmp_path, scheduled="8", won_by_a=2))
    why = {"a": "crashed at start: cannot start 'a-engine': No such file or directory", "b": "left"}
    s = dataclasses.replace(s, dropped=why)
    md = render(s, "md")
    assert md.endswith(f"\n\n## Dropped\n\n- a: {why['a']}\n- b: left\n") and "Results of" not in md
    text = render(s, "table", width=60)
    dropped = wrap(f"dropped: a: {why['a']}\ndropped: b: left", 60)
    assert len(dropped.splitlines()) == 3  # the first reason wraps at 60 columns
    blocks = [wrap("\n".join(block), 60) for block in match_blocks(s)]
    assert blocks and blocks[0].startswith("Results of a vs b")
    assert text.endswith("\n\n" + "\n\n".join([dropped, *blocks]) + "\n")


def test_a_pairs_score_in_results_json_is_a_percentage_to_one_decimal():
    from arena.results.export import _pair_dict
    from arena.results.ratings import HeadToHead

    results = [(2, 1, 0), (1, 2, 0), (2, 0, 1), (1, 1, 1)]
    scores = [_pair_dict("a", "b", HeadToHead("a", "b", *wld))["score_pct"] for wld in results]
    assert scores == [66.7, 33.3, 83.3, 50.0] and all(type(x) is float for x in scores)


def test_the_standings_of_a_three_seat_game_count_each_engines_places_after_its_draws():
    """Three seats: a column per place (1st, 2nd, 3rd) between draws and score %, each engine's
    cells the games it finished in that place; two seats have none."""
    from arena.results.export import standings_table

    three = [random_record("posies", {"players": 3}, k, ["a", "b", "c"][k:] + ["a", "b", "c"][:k]) for k in range(3)]
    s = summarize(three, ["a", "b", "c"], tournament="t", game="posies", options=three[0]["options"], players=3)
    headers, rows = standings_table(s)
    assert headers[:10] == ["rank", "engine", "games", "wins", "losses", "draws", "1st", "2nd", "3rd", "score %"]
    expected = {name: [0, 0, 0] for name in "abc"}
    for record in three:
        for name, place in zip(record.players, record.places):
            expected[name][place] += 1
    assert {row[1]: row[6:9] for row in rows} == expected and all(len(row) == len(headers) for row in rows)
    two = [random_record("hex", {"size": 4}, k, ["a", "b"]) for k in range(2)]
    headers, rows = standings_table(
        summarize(two, ["a", "b"], tournament="t", game="hex", options=two[0]["options"], players=2)
    )
    assert headers[5:7] == ["draws", "score %"] and all(len(row) == len(headers) for row in rows)


def test_an_engines_score_from_a_seat_is_a_percentage_to_one_decimal_and_empty_without_a_result():
    from arena.results.stats import EngineStats, SeatStats

    st = EngineStats("a", seats=[SeatStats(0, "red", games=3, points=2.0, results=3), SeatStats(1, "blue", games=1)])
    assert [st.seat_pct(k) for k in range(3)] == [66.7, "", ""]


def test_a_figure_rounded_for_results_json_is_never_negative_zero_and_none_stays_none():
    from arena.results.export import _r

    assert [_r(x) for x in (None, -0.04, 0.04, -12.345, 2.0)] == [None, 0.0, 0.0, -12.3, 2.0]
    assert math.copysign(1, _r(-0.04)) == 1.0 and _r(-0.004, 2) == 0.0 and math.copysign(1, _r(-0.004, 2)) == 1.0


def test_the_standings_of_a_maximum_likelihood_sweep_show_each_unbounded_side_and_no_interval():
    """With no prior a's two wins leave both Elos unbounded: the standings say on which side,
    with no interval, as the Elo table does."""
    from arena.results.export import standings_table

    headers, rows = standings_table(two_engine_summary([0, 1], elo_prior=0))
    elo, interval = headers.index("BT Elo (field)"), headers.index("BT 95%")
    assert [(row[1], row[elo], row[interval]) for row in rows] == [("a", "+inf", ""), ("b", "-inf", "")]


def test_the_standings_score_is_a_percentage_rounded_to_one_decimal():
    """Red wins all three, a red in two: a's 200/3 % shows as 66.7, b's 100/3 % as 33.3."""
    from arena.results.export import standings_table

    headers, rows = standings_table(two_engine_summary([0, 0, 0]))
    score = headers.index("score %")
    assert sorted((row[1], row[score]) for row in rows) == [("a", 66.7), ("b", 33.3)]


def test_an_elo_interval_open_on_one_side_shows_that_side_as_infinite():
    from arena.results.export import _interval_text

    assert [_interval_text(None, 5.0, 1.0), _interval_text(-3.04, None, 1.0), _interval_text(None, None, 0.0)] == [
        "[-inf, 5.0]",
        "[-3.0, +inf]",
        "[-inf, +inf]",
    ]
    assert _interval_text(None, None, None) == ""


def test_the_head_to_head_rows_list_each_pair_once_the_better_ranked_first_its_score_to_one_decimal():
    from arena.results.ratings import HeadToHead, head_to_head_rows

    pairs = {("a", "b"): HeadToHead("a", "b", 1, 2, 0), ("b", "a"): HeadToHead("b", "a", 2, 1, 0)}
    _, rows = head_to_head_rows(pairs, ["b", "a"])
    assert [row[:7] for row in rows] == [["b", "a", 3, 2, 1, 0, 66.7]]


def test_results_json_names_each_match_lines_pair_and_keeps_the_events_standings(tmp_path):
    from arena.results.export import summarize_folder

    doc = results_document(two_engine_summary([0, 0, 0]))
    assert [(m["engine"], m["opponent"]) for m in doc["matches"]] == [("a", "b")]
    assert sorted((st["engine"], st["score_pct"]) for st in doc["standings"]) == [("a", 66.7), ("b", 33.3)]
    swiss = summarize_folder(stored_folder(tmp_path, 'format = "swiss"', rounds=1))
    assert swiss.event is not None and results_document(swiss)["event"] == swiss.event.as_dict()


def test_results_json_is_indented_by_two_and_keeps_non_ascii_text_as_it_is():
    from arena.results.export import results_json

    records = [random_game_record(k, ["a", "b"], winner=0) for k in range(2)]
    s = summarize(records, ["a", "b"], tournament="Türnier", game="hex", options=records[0].options, players=2)
    text = results_json(s)
    assert text.startswith('{\n  "') and text.endswith("\n}\n") and '"tournament": "Türnier"' in text
    assert json.loads(text) == results_document(s)


def test_a_table_figure_rounded_to_zero_is_never_negative_zero():
    from arena.results.export import elo_cell, number_cell

    assert [number_cell(-0.04), elo_cell(-0.04, None), elo_cell(None, None), number_cell(None, "-")] == [
        0.0,
        0.0,
        "unrated",
        "-",
    ]
    assert math.copysign(1, number_cell(-0.04)) == 1.0 and math.copysign(1, elo_cell(-0.04, None)) == 1.0


@pytest.mark.parametrize(
    "games",
    [
        [["c", "b"], ["b", "c"], ["c", "a"], ["a", "c"], ["b", "a"], ["a", "b"]],
        [["c", "b"], ["b", "c"], ["b", "a"], ["a", "b"], ["c", "a"], ["a", "c"]],
    ],
    ids=["met-by-standing", "b-a-met-before-c-a"],
)
def test_results_jsons_head_to_head_lists_each_pair_once_by_both_engines_standings(games):
    """c beats b and a, b beats a: the standings read c, b, a, and so do the pairs (by the
    first engine's place, then the second's), not by name nor in the order they were met."""
    winners = {frozenset("cb"): "c", frozenset("ca"): "c", frozenset("ba"): "b"}
    records = [
        random_game_record(k, seats, winner=seats.index(winners[frozenset(seats)])) for k, seats in enumerate(games)
    ]
    s = summarize(records, ["a", "b", "c"], tournament="t", game="hex", options=records[0].options, players=2)
    assert s.order == ["c", "b", "a"]
    pairs = [(p["engine"], p["opponent"]) for p in results_document(s)["head_to_head"]]
    assert pairs == [("c", "b"), ("c", "a"), ("b", "a")]


def _summary_with_settings(games, winners, engines, **settings):
    records = [random_game_record(k, seats, winner=seats.index(w)) for k, (seats, w) in enumerate(zip(games, winners))]
    stored = {"engines": [{"name": name} for name in engines], **settings}
    return summarize(
        records, engines, tournament="t", game="hex", options=records[0].options, players=2, settings=stored
    )


def test_a_two_engine_match_is_named_in_the_tournament_files_order_not_the_standings():
    """b wins both games, so the standings read b, a; the match is still 'a vs b', as the
    tournament file lists its engines, with a's figures."""
    s = _summary_with_settings([["a", "b"], ["b", "a"]], ["b", "b"], ["a", "b"])
    assert s.order == ["b", "a"]
    found = [(a, b, figures.units, figures.pentanomial, figures.elo < 0) for a, b, figures in match_results(s)]
    assert found == [("a", "b", 1, True, True)]


def test_a_gauntlet_has_a_match_for_each_candidate_against_each_other_engine():
    """The candidate a against b and c: two matches, none between b and c, which played each
    other too."""
    games = [["a", "b"], ["b", "a"], ["a", "c"], ["c", "a"], ["b", "c"], ["c", "b"]]
    s = _summary_with_settings(games, ["a", "a", "c", "a", "b", "b"], ["a", "b", "c"], candidates=["a"])
    assert [(a, b, figures.units) for a, b, figures in match_results(s)] == [("a", "b", 1), ("a", "c", 1)]
    assert matches(["b", "a", "c"], 2, ["a", "c"]) == [("a", "b"), ("c", "b")]


def test_a_folder_of_an_arena_never_installed_names_its_version_unknown(monkeypatch):
    def not_installed(name):
        raise PackageNotFoundError(name)

    monkeypatch.setattr(export, "version", not_installed)
    assert arena_version() == "unknown"


def test_a_summary_counts_its_games_in_id_order_and_replays_them_unless_told_they_are_legal():
    """Records given in any order are counted by id (game 0 first). Each is replayed for
    who made which move, unless the caller says the referee or the folder's admission already
    did: a record whose moves the rules refuse then has no timed moves to count."""
    first, second = random_game_record(0, ["a", "b"]), random_game_record(1, ["b", "a"], seed=1)
    s = summarize([second, first], ["a", "b"], tournament="t", game="hex", options=first.options, players=2)
    assert [r.id for r in s.records] == [0, 1]
    moves = list(first.moves)
    broken = first.replace(moves=[moves[0], moves[0], *moves[2:]])  # the second stone on the first

    def timed(**told):
        s = summarize([broken], ["a", "b"], tournament="t", game="hex", options=first.options, players=2, **told)
        return s.stats["a"].moves_timed

    assert (timed(), timed(replayed=True)) == (0, (len(moves) + 1) // 2)
