"""``arena ratings DIR...``: one rating list over the games of many results folders.

The folders are real results folders (a real tournament file, its stored settings, SQLite
with every game of its schedule) whose games are drawn from known Elo with fixed seeds, so
the tests need no engine process; the command runs as a real process.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import os
import random
import re
import shutil
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers import engine_toml, run_arena, strict_json, write_tournament

from arena.cli import main
from arena.record import GameRecord
from arena.results.elo import fit_elo
from arena.results.export import results_json, summarize_folder
from arena.results.ratinglist import engine_fingerprint, rating_list, read_folder
from arena.results.slots import settings_slots
from arena.results.store import GameStore
from arena.rules import make_game
from arena.tournament.config import load_tournament
from arena.tournament.settings import tournament_settings

pytestmark = pytest.mark.timeout(120)


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def ratings(*args: object) -> Ran:
    """``arena ratings ARGS`` run in this process (the same command; a real process costs a
    second of start-up, which the few tests that check the process itself pay)."""
    result = CliRunner().invoke(main, ["ratings", *map(str, args)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Ran(result.exit_code, result.stdout, result.stderr)


RANDOM = ("{python}", "-m", "engines.random_engine")


def hex_game(slot, winner: int, size: int, tournament: str) -> GameRecord:
    """A Hex game of random moves that ``winner`` (a seat) wins, stored as the runner stores it."""
    game = make_game("hex", {"size": size})
    rng = random.Random(slot.index * 7919 + slot.seed % 1000)
    while True:
        state = game.initial_state()
        while not state.is_terminal():
            state.play(state.random_move(rng))
        if state.winner() == winner:
            break
    return GameRecord.model_validate(
        {
            "id": slot.index,
            "round": slot.round,
            "game": "hex",
            "options": game.options.model_dump(),
            "seed": slot.seed,
            "engine_seeds": [1, 2],
            "players": list(slot.seats),
            "moves": list(state.moves),
            "times_ms": [1 + k % 3 for k in range(len(state.moves))],
            "termination": "normal",
            "reason": state.end_reason(),
            "forfeit_seat": None,
            "winner": winner,
            "scores": [1.0, 0.0] if winner == 0 else [0.0, 1.0],
            "places": [0, 1] if winner == 0 else [1, 0],
            "tournament": tournament,
        }
    )


def results_folder(
    where: Path,
    elo: dict[str, float],
    *,
    rounds: int = 2,
    seed: int = 0,
    size: int = 3,
    extra: dict[str, str] | None = None,
    time_control: str = "movetime_ms = 500",
    toml: str = "",
) -> Path:
    """A results folder of a tournament between the engines of ``elo`` (name -> true Elo):
    every game of its schedule, each won as the Elo difference says (a fixed seed)."""
    where.mkdir(parents=True)
    blocks = "".join(engine_toml(name, *RANDOM, extra=(extra or {}).get(name, "")) for name in elo)
    path = write_tournament(
        where,
        blocks,
        name=where.name,
        options=f"size = {size}",
        rounds=rounds,
        seed=seed,
        time_control=time_control,
        extra=toml,
    )
    t = load_tournament(path)
    settings = tournament_settings(t)
    rng = random.Random(seed)
    out = where / "out"
    with GameStore(out) as store:
        store.open(settings)
        for slot in settings_slots(settings, 2):
            a, b = slot.seats
            p_first = 1 / (1 + 10 ** ((elo[b] - elo[a]) / 400))
            store.add(hex_game(slot, 0 if rng.random() < p_first else 1, size, where.name))
    return out


def keep_rounds(folder: Path, copy: Path, rounds: range) -> Path:
    """A copy of ``folder`` holding only the games of ``rounds`` (the others deleted)."""
    shutil.copytree(folder, copy)
    with closing(sqlite3.connect(copy / "arena.db")) as db, db:
        db.execute(f"DELETE FROM games WHERE round NOT IN ({', '.join(map(str, rounds))})")
    return copy


FIELD = {"strong": 300.0, "good": 100.0, "fair": 0.0, "weak": -1600.0}


def test_three_folders_rate_as_one_folder_of_the_same_games(tmp_path):
    whole = results_folder(tmp_path / "whole", FIELD, rounds=6, seed=3)
    parts = [keep_rounds(whole, tmp_path / f"part{k}", range(2 * k, 2 * k + 2)) for k in range(3)]
    one = summarize_folder(whole).elo
    pooled = rating_list([read_folder(p, str(p)) for p in parts]).fit
    assert len(one.ratings) == 4 and [r.engine for r in pooled.ratings] == [r.engine for r in one.ratings]
    # The prior is what keeps a clean sweep finite: the list uses it as the folder does.
    assert any(r.score in (0.0, 1.0) for r in one.ratings) and all(r.elo is not None for r in one.ratings)
    for a, b in zip(one.ratings, pooled.ratings):
        for key in ("elo", "low", "high", "stderr", "games", "points", "results"):
            assert getattr(b, key) == pytest.approx(getattr(a, key), rel=1e-9, abs=1e-9), (a.engine, key)
    order = [r.engine for r in one.ratings]
    for row_one, row_pooled in zip(one.los_matrix(order), pooled.los_matrix(order)):
        assert row_pooled == pytest.approx(row_one, abs=1e-9)
    # The command prints the same figures as the folder's results.json.
    shown = run_arena("ratings", *parts, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    listed = strict_json(shown.stdout, "arena ratings")
    folder = strict_json(results_json(summarize_folder(whole)), "results.json")
    for key in ("prior", "anchor", "confidence", "interval_method", "ratings", "los"):
        assert listed["elo"][key] == folder["elo"][key], key
    assert listed["games"] == folder["games"] == 72 and listed["game"] == "hex" and not listed["mixed"]
    assert all(e["folders"] == [str(p) for p in parts] for e in listed["engines"])
    assert [f["games"] for f in listed["folders"]] == [24, 24, 24]


def test_folders_of_different_fields_list_each_engines_folders(tmp_path):
    fields = [("ab", ["A", "B", "C"]), ("bd", ["B", "C", "D"]), ("ad", ["A", "D"])]
    folders = [
        results_folder(tmp_path / name, {e: FIELD[k] for e, k in zip(names, FIELD)}, seed=k)
        for k, (name, names) in enumerate(fields)
    ]
    records = [r for f in folders for r in summarize_folder(f).records]
    fit = fit_elo(records, ["A", "B", "C", "D"])
    shown = ratings(*folders, "--format", "csv")
    assert shown.returncode == 0, shown.stderr
    rows = {row["engine"]: row for row in csv.DictReader(io.StringIO(shown.stdout))}
    assert set(rows) == {"A", "B", "C", "D"}
    assert (
        rows["A"]["folders"] == f"{folders[0]}; {folders[2]}" and rows["D"]["folders"] == f"{folders[1]}; {folders[2]}"
    )
    for r in fit.ratings:
        assert float(rows[r.engine]["elo"]) == pytest.approx(r.elo, abs=0.05)
        assert int(rows[r.engine]["games"]) == r.games and int(rows[r.engine]["rank"]) == fit.ratings.index(r) + 1
        for other in fit.ratings:
            cell = rows[r.engine][f"los_over_{other.engine}"]
            assert (cell == "") == (other is r)
            if cell:
                assert float(cell) == pytest.approx(fit.los(r.engine, other.engine), abs=1e-4)
    # Markdown: a title, and tables whose every row has the header's columns.
    md = ratings(*folders, "--format", "md").stdout
    assert md.startswith("# Rating list\n")
    tables = md.split("\n## ")[1:]
    assert [t.splitlines()[0] for t in tables] == ["Rating list", "Likelihood of superiority", "Folders"]
    for table in tables:
        lines = table.strip().splitlines()[2:]
        assert set(lines[1].replace("|", "").strip()) <= {"-", ":", " "}
        assert len({line.count("|") for line in lines}) == 1 and len(lines) >= 3
    plain = ratings(*folders).stdout
    assert "Rating list" in plain and "LOS % (row over column)" in plain and "1, 3" in plain


def test_folders_are_counted_as_they_are_read_and_their_records_let_go(tmp_path):
    import gc

    from arena.results.ratinglist import read_folders

    def records_alive() -> int:
        gc.collect()
        return sum(isinstance(o, GameRecord) for o in gc.get_objects())

    whole = results_folder(tmp_path / "whole", FIELD, rounds=6, seed=3)
    parts = [keep_rounds(whole, tmp_path / f"part{k}", range(2 * k, 2 * k + 2)) for k in range(3)]
    before = records_alive()
    read = read_folders(parts)
    assert records_alive() == before  # no folder's records are kept, only their counts
    assert [f.games for f in read] == [f.tally.games for f in read] == [24, 24, 24]
    listed = rating_list(read)
    assert records_alive() == before and listed.games == 72
    one = summarize_folder(whole).elo
    assert [r.elo for r in listed.fit.ratings] == pytest.approx([r.elo for r in one.ratings], abs=1e-9)


def test_a_folder_streams_into_its_tally_never_held_as_a_list(tmp_path, monkeypatch):
    import gc

    from arena.results.elo import Tally

    folder = results_folder(tmp_path / "whole", FIELD, rounds=6, seed=3)
    alive: list[int] = []
    counting = Tally.add_record

    def add_record(self: Tally, record: GameRecord) -> None:
        gc.collect()
        alive.append(sum(isinstance(o, GameRecord) for o in gc.get_objects()))
        counting(self, record)

    monkeypatch.setattr(Tally, "add_record", add_record)
    # Every object alive before the read moves to gc's permanent generation, which neither
    # gc.collect() nor gc.get_objects() walks: each count sees only what the read made, in a
    # heap of thousands of objects rather than a test worker's millions (seconds each time).
    gc.collect()
    gc.freeze()
    try:
        read = read_folder(folder, "whole")
    finally:
        gc.unfreeze()
    assert read.games == len(alive) == 72
    # The record being counted and at most the one the reader has in hand: a read into a
    # list would hold all 72 when the first is counted.
    assert max(alive) <= 2, alive


def test_the_streamed_read_rates_as_reading_the_whole_folder_did(tmp_path):
    from arena.results.admit import read_counted
    from arena.results.elo import Tally, fit_tally, prior_of

    folder = results_folder(tmp_path / "whole", FIELD, rounds=6, seed=3)
    with closing(sqlite3.connect(folder / "arena.db")) as db, db:  # a result changed by hand: refused
        db.execute("DELETE FROM checked WHERE id = 5")
        flipped = "replace(replace(replace(record, '\"winner\":0', '@'), '\"winner\":1', '\"winner\":0'), '@', '\"winner\":1')"
        db.execute(f"UPDATE games SET record = {flipped} WHERE id = 5")
    whole = read_counted(folder)  # every counted record in a list, as the list read them before
    assert len(whole.counted) == 71 and [r.id for r in whole.refused] == [5]
    tally = Tally()
    for record in whole.counted:
        tally.add_record(record)
    before = fit_tally(tally, prior=prior_of(whole.settings))
    streamed = read_folder(folder, "whole")
    assert streamed.games == 71 and streamed.refused == whole.refused
    assert [a.tolist() for a in streamed.tally.singles()] == [a.tolist() for a in tally.singles()]
    after = rating_list([streamed]).fit
    assert [(r.engine, r.elo, r.low, r.high, r.games) for r in after.ratings] == [
        (r.engine, r.elo, r.low, r.high, r.games) for r in before.ratings
    ]


def test_verbose_says_how_long_reading_and_fitting_took_and_in_how_much_memory(tmp_path):
    folders = [results_folder(tmp_path / name, FIELD, seed=k) for k, name in enumerate(("a", "b"))]
    shown = ratings(*folders, "--verbose", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    strict_json(shown.stdout, "arena ratings --verbose")  # the list on stdout stays clean
    line = shown.stderr.strip()
    assert line.startswith("ratings: read 48 games of 2 folder(s) in ") and "fitted 4 engines in " in line
    assert line.endswith(" MB") and float(line.split("peak memory ")[1].split()[0]) > 10
    assert ratings(*folders).stderr == ""  # said only when asked


def test_model_bayeselo_rates_the_list_with_bayeselos_model(tmp_path):
    from arena.results.elo import Tally, fit_bayeselo

    folders = [results_folder(tmp_path / name, FIELD, seed=k) for k, name in enumerate(("a", "b"))]
    shown = ratings(*folders, "--model", "bayeselo", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    listed = strict_json(shown.stdout, "arena ratings --model bayeselo")
    assert listed["elo"]["model"].startswith("bayeselo (advantage 32.8, drawelo 97.3")
    tally = Tally()
    for f in folders:
        for r in summarize_folder(f).records:
            tally.add_record(r)  # the first seat has White, as in each stored game
    expected = {r.engine: r.elo for r in fit_bayeselo(tally).ratings}
    assert {e["engine"]: e["elo"] for e in listed["engines"]} == {k: round(v, 1) for k, v in expected.items()}
    default = strict_json(ratings(*folders, "--format", "json").stdout, "arena ratings")
    assert default["elo"]["model"] == "bradley_terry" and default["engines"] != listed["engines"]
    assert "BayesElo's model (advantage 32.8" in ratings(*folders, "--model", "bayeselo").stdout


def test_mixed_games_or_options_are_refused_unless_asked(tmp_path):
    small = results_folder(tmp_path / "small", {"A": 0, "B": 0}, size=3)
    large = results_folder(tmp_path / "large", {"A": 0, "B": 0}, size=4)
    refused = ratings(small, large)
    assert refused.returncode == 2 and refused.stdout == ""
    line = refused.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert f"option size: 3 in {small}, 4 in {large}" in line and "--allow-mixed" in line
    mixed = ratings(small, large, "--allow-mixed", "--format", "json")
    assert mixed.returncode == 0, mixed.stderr
    doc = strict_json(mixed.stdout)
    assert doc["mixed"] is True and doc["game"] is None and doc["games"] == 8
    assert [f["options"]["size"] for f in doc["folders"]] == [3, 4]


def test_the_mixed_line_names_each_game_and_option_that_differs_and_the_folders_of_each_value():
    import numpy as np

    from arena.results.elo import Tally
    from arena.results.ratinglist import mixed_line
    from arena.results.ratingtables import Folder

    def folder(path: str, game: str, **options: object) -> Folder:
        return Folder(path, "t", game, options, 0.0, 0, 0, Tally(), np.zeros(0, dtype=np.uint64), {})

    folders = [
        folder("a", "hex", size=5, swap=True),
        folder("b", "hex", size=5, swap=False),
        folder("c", "hexgo", size=7),
    ]
    assert mixed_line(folders) == (
        "the folders play different games or options (game: hex in a b, hexgo in c; option size: 5 in a b, 7 in c; "
        "option swap: true in a, false in b, (not set) in c); a rating list rates one game with one set of options: "
        "give folders of one, or --allow-mixed to rate them together anyway"
    )


def test_an_option_all_folders_share_is_not_named_as_differing():
    import numpy as np

    from arena.results.elo import Tally
    from arena.results.ratinglist import mixed_line
    from arena.results.ratingtables import Folder

    def folder(path: str, **options: object) -> Folder:
        return Folder(path, "t", "hex", options, 0.0, 0, 0, Tally(), np.zeros(0, dtype=np.uint64), {})

    # One game and one size: only the swap differs, so only the swap is named.
    assert mixed_line([folder("a", size=5, swap=True), folder("b", size=5, swap=False)]) == (
        "the folders play different games or options (option swap: true in a, false in b); a rating list rates "
        "one game with one set of options: give folders of one, or --allow-mixed to rate them together anyway"
    )


def test_each_name_with_other_settings_gets_one_line_naming_the_folders_the_changes_and_the_split_labels():
    import numpy as np

    from arena.results.elo import Tally
    from arena.results.ratinglist import RatingListError
    from arena.results.ratingtables import Folder

    def folder(path: str, engines: dict) -> Folder:
        return Folder(path, "t", "hex", {"size": 5}, 2.0, 0, 0, Tally(), np.zeros(0, dtype=np.uint64), engines)

    slow = {"name": "X", "command": ["x"], "options": {"Level": 1, "Hash": 16}}
    fast = {"name": "X", "command": ["x"], "options": {"Level": 2, "Hash": 32}}
    old = {"name": "Y", "command": ["y"]}
    folders = [
        folder("a", {"X": slow, "Y": None}),  # Y: a folder of an older arena kept no settings
        folder("b", {"X": None, "Y": old}),
        folder("c", {"X": fast, "Y": old}),
    ]
    with pytest.raises(RatingListError) as refused:
        rating_list(folders)
    x, faster, y = (str(engine_fingerprint(s))[:8] for s in (slow, fast, old))  # SHORT: 8 hex digits
    assert refused.value.lines == [
        "engine 'X' has other settings in other folders (a -> b: settings not stored (a folder of an older arena) "
        "-> not stored | a -> c: options.Hash: 16 -> 32; options.Level: 1 -> 2); one name is one engine in a "
        f"rating list: rename one, or --split-names to rate each setting as its own engine (X@{x}, X@unknown, "
        f"X@{faster})",
        "engine 'Y' has other settings in other folders (a -> b c: settings not stored (a folder of an older arena) "
        "-> stored); one name is one engine in a rating list: rename one, or --split-names to rate each setting as "
        f"its own engine (Y@unknown, Y@{y})",
    ]


def test_names_told_apart_say_how_each_setting_differs_from_the_first_and_a_mixed_list_says_so():
    import numpy as np

    from arena.results.elo import Tally
    from arena.results.ratingtables import Folder, notes, split_rows

    def folder(path: str, engines: dict, size: int = 5) -> Folder:
        tally = Tally(["X", "Y"])
        tally.add_game([(0, 1, 1.0)])
        tally.add_game([(1, 0, 1.0)])
        return Folder(path, "t", "hex", {"size": size}, 2.0, 2, 2, tally, np.zeros(0, dtype=np.uint64), engines)

    slow = {"name": "X", "command": ["x"], "options": {"Level": 1, "Hash": 16}}
    fast = {"name": "X", "command": ["x"], "options": {"Level": 2, "Hash": 32}}
    old = {"name": "Y", "command": ["y"]}
    folders = [
        folder("a", {"X": slow, "Y": None}),
        folder("b", {"X": None, "Y": old}),
        folder("c", {"X": fast, "Y": old}),
    ]
    rl = rating_list(folders, split_names=True)
    x, faster, y = (str(engine_fingerprint(s))[:8] for s in (slow, fast, old))
    older = "settings not stored in one of them (a folder of an older arena)"
    assert split_rows(rl) == (
        ["engine", "folders", "settings (against the first of its name)"],
        [
            [f"X@{x}", "a", "the first setting of this name"],
            ["X@unknown", "b", older],
            [f"X@{faster}", "c", "options.Hash: 16 -> 32; options.Level: 1 -> 2"],
            ["Y@unknown", "a", "the first setting of this name"],
            [f"Y@{y}", "b, c", older],
        ],
    )
    mixed = "These folders play different games or options, rated together as asked (--allow-mixed)."
    assert mixed not in notes(rl)
    same = {"X": slow, "Y": old}
    assert mixed in notes(rating_list([folder("a", same), folder("b", same, size=6)], allow_mixed=True))


def test_folders_given_twice_copied_or_of_other_priors_and_an_unknown_anchor_are_each_refused_in_one_whole_line():
    import numpy as np

    from arena.results.elo import Tally
    from arena.results.ratinglist import RatingListError
    from arena.results.ratingtables import Folder

    def folder(path: str, prior: float, prints: list[int]) -> Folder:
        tally = Tally(["A", "B"])
        tally.add_game([(0, 1, 1.0)])
        tally.add_game([(1, 0, 0.5)])
        engines = {"A": {"name": "A"}, "B": {"name": "B"}}
        return Folder(path, "t", "hex", {"size": 5}, prior, 2, 2, tally, np.array(prints, dtype=np.uint64), engines)

    a, copy, other = folder("a", 2.0, [1, 2, 3]), folder("copy", 2.0, [3, 2, 9]), folder("other", 0.0, [7])
    with pytest.raises(RatingListError) as refused:
        rating_list([a, copy, folder("./a", 2.0, [1, 2, 3]), other, folder("a/", 2.0, [1, 2, 3])])
    assert refused.value.lines == [
        "./a: given twice (as a too); its games would count twice",
        "a/: given twice (as a too); its games would count twice",  # each named against the first
        "a and copy hold 2 identical game(s) (one is a copy of the other?); give each tournament's folder once",
        "the folders' tournament files ask for different elo_prior (a: 2, copy: 2, ./a: 2, other: 0, a/: 2); give the one "
        "to rate them all with, e.g. --elo-prior 2",
    ]
    with pytest.raises(RatingListError) as unknown:
        rating_list([a, other], prior=1.5, anchor=("C", 10.0))
    assert unknown.value.lines == ["--anchor C: no engine of the list is named so (its engines: A, B)"]


def test_one_name_with_other_settings_is_refused_or_told_apart(tmp_path):
    first = results_folder(tmp_path / "first", {"A": 0, "B": 0}, extra={"B": 'env = { LEVEL = "<b>easy</b>" }'})
    second = results_folder(tmp_path / "second", {"A": 0, "B": 0}, extra={"B": 'env = { LEVEL = "hard\\u202e" }'})
    refused = ratings(first, second)
    assert refused.returncode == 2 and refused.stdout == ""
    line = refused.stderr.strip()
    assert "\n" not in line and "engine 'B'" in line and "'A'" not in line
    assert '"<b>easy</b>"' in line and '"hard\\u202e"' in line and str(first) in line and str(second) in line
    assert "\u202e" not in line  # a bidi control from the settings is shown escaped, as engine text is
    assert "--split-names" in line
    # Another clock is another engine too.
    slower = results_folder(tmp_path / "slower", {"A": 0, "B": 0}, time_control="movetime_ms = 900")
    clock = ratings(first, slower).stderr
    assert "time_control.movetime_ms: 500 -> 900" in clock and "engine 'A'" in clock
    apart = ratings(first, second, "--split-names", "--format", "json")
    assert apart.returncode == 0, apart.stderr
    doc = strict_json(apart.stdout)
    engines = {e["engine"]: e for e in doc["engines"]}
    split = sorted(label for label in engines if label.startswith("B@"))
    assert len(split) == 2 and "A" in engines and len(engines) == 3
    assert sorted(str(engines[s]["settings"]["env"]) for s in split) == sorted(
        [str([["LEVEL", "<b>easy</b>"]]), str([["LEVEL", "hard\\u202e"]])]
    )
    for label in split:
        assert label == "B@" + engines[label]["fingerprint"][:8]
        assert len(engines[label]["folders"]) == 1
    assert engines["A"]["folders"] == [str(first), str(second)]
    anchored = strict_json(ratings(first, second, "--split-names", "--anchor", f"{split[0]}=100", "-f", "json").stdout)
    assert next(e for e in anchored["engines"] if e["engine"] == split[0])["elo"] == 100.0


def test_anchors_move_the_list_and_keep_its_differences(tmp_path):
    folders = [results_folder(tmp_path / f"f{k}", FIELD, seed=10 + k) for k in range(2)]
    mean = strict_json(ratings(*folders, "-f", "json").stdout)
    fixed = strict_json(ratings(*folders, "--anchor", "fair=1500", "-f", "json").stdout)
    elo = {e["engine"]: e["elo"] for e in mean["engines"]}
    moved = {e["engine"]: e["elo"] for e in fixed["engines"]}
    assert moved["fair"] == 1500.0 and sum(elo.values()) == pytest.approx(0, abs=0.3)
    for name in FIELD:
        assert moved[name] - 1500 == pytest.approx(elo[name] - elo["fair"], abs=0.15)
    assert fixed["elo"]["anchor"] == "engine 'fair' = 1500"
    for bad, says in (
        ("nobody=0", "no engine of the list is named so"),
        ("fair", "give NAME=ELO"),
        ("fair=inf", "NAME=ELO"),
    ):
        out = ratings(*folders, "--anchor", bad)
        assert out.returncode == 2 and says in out.stderr and out.stderr.count("\n") == 1, out.stderr


def test_the_prior_is_the_folders_or_the_one_asked_for(tmp_path):
    two = results_folder(tmp_path / "two", FIELD, seed=1)
    zero = results_folder(tmp_path / "zero", FIELD, seed=2, toml="elo_prior = 0")
    refused = ratings(two, zero)
    assert refused.returncode == 2 and "different elo_prior" in refused.stderr and "--elo-prior" in refused.stderr
    doc = strict_json(ratings(two, zero, "--elo-prior", "0", "-f", "json").stdout)
    assert doc["elo"]["prior"] == 0
    # Maximum likelihood: an engine that lost every game has no finite rating, null in JSON.
    assert any(e["elo"] is None and e["bound"] == "below" for e in doc["engines"])


def test_folders_that_cannot_be_rated_get_one_line_each(tmp_path):
    good = results_folder(tmp_path / "good", {"A": 0, "B": 0})
    empty = tmp_path / "empty"
    t = load_tournament(write_tournament(tmp_path, engine_toml("A", *RANDOM) + engine_toml("B", *RANDOM)))
    with GameStore(empty) as store:
        store.open(tournament_settings(t))
    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    (corrupt / "arena.db").write_bytes(b"this is not a database" * 100)
    plain = tmp_path / "plain"
    plain.mkdir()
    out = run_arena("ratings", good, empty, corrupt, plain, tmp_path / "missing", good)
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 4, lines
    assert lines[0].startswith(f"arena: {empty}: the folder holds no games to rate")
    assert lines[1].startswith(f"arena: {corrupt / 'arena.db'}: cannot read the games")
    assert lines[2].startswith(f"arena: {plain}: no arena.db here")
    assert lines[3].startswith(f"arena: {tmp_path / 'missing'}: no such folder")
    twice = ratings(good, good)
    assert twice.returncode == 2 and "given twice" in twice.stderr
    copy = tmp_path / "copy"
    shutil.copytree(good, copy)
    copied = ratings(good, copy)
    assert copied.returncode == 2 and "identical game(s)" in copied.stderr


def test_the_list_goes_to_a_file(tmp_path):
    folder = results_folder(tmp_path / "f", {"A": 0, "B": 0})
    target = tmp_path / "list.json"
    out = ratings(folder, "-f", "json", "-o", target)
    assert out.returncode == 0 and out.stdout.strip() == f"ratings: {target}"
    assert strict_json(target.read_text())["kind"] == "rating_list"
    failed = ratings(folder, "-o", tmp_path / "no" / "such" / "dir" / "x.txt")
    assert failed.returncode == 2 and "cannot write the rating list" in failed.stderr


def artifacts(tmp_path: Path) -> Path:
    """Where screenshots go: $ARENA_ARTIFACTS when set (CI keeps them), else the test's folder."""
    folder = Path(os.environ.get("ARENA_ARTIFACTS") or tmp_path / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.slow
def test_the_html_list_opens_in_chromium_in_the_sites_style(browser, tmp_path):
    hostile = "<script>document.title='pwned'</script>"
    first = results_folder(tmp_path / "first", FIELD, seed=5, extra={"fair": f'env = {{ X = "{hostile}" }}'})
    second = results_folder(tmp_path / "second", FIELD, seed=6)
    page_file = tmp_path / "list.html"
    out = ratings(first, second, "--split-names", "-f", "html", "-o", page_file)
    assert out.returncode == 0, out.stderr
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(page_file.as_uri())
    page.screenshot(path=str(artifacts(tmp_path) / "rating-list.png"), full_page=True)
    assert page.title() == "arena · rating list"
    rows = page.locator("#ratings tbody tr")
    assert rows.count() == 5  # fair twice, told apart
    names = page.locator("#ratings tbody td.name").all_text_contents()
    assert sum(n.startswith("fair@") for n in names) == 2
    assert hostile in page.locator("#split").inner_text()  # shown as text, never run
    # The site's sortable tables: the Elo column sorts as numbers.
    headers = page.locator("#ratings thead th").all_text_contents()
    elo = headers.index("elo")
    page.locator("#ratings thead th").nth(elo).locator("button").click()
    shown = [float(v) for v in page.locator(f"#ratings tbody tr td:nth-child({elo + 1})").all_text_contents()]
    assert shown == sorted(shown)
    assert page.locator("#los tbody tr").count() == 5 and page.locator("#folders tbody tr").count() == 2
    # The site's stylesheet and palette: the header is drawn on the site's surface colour.
    background = page.evaluate("getComputedStyle(document.querySelector('header')).backgroundColor")
    assert background not in ("", "rgba(0, 0, 0, 0)")
    assert page.locator("figure img").count() == 1
    context.close()
    assert not errors, errors
    assert requests and all(url == page_file.as_uri() or url.startswith("data:") for url in requests), requests


def test_a_folders_games_it_does_not_count_are_left_out_and_named(tmp_path):
    folders = [results_folder(tmp_path / f"f{k}", {"A": 0, "B": 0}, seed=k) for k in range(2)]
    with closing(sqlite3.connect(folders[0] / "arena.db")) as db, db:
        (text,) = db.execute("SELECT record FROM games WHERE id = 1").fetchone()
        edited = (
            text.replace('"winner":0', '"winner":1')
            if '"winner":0' in text
            else text.replace('"winner":1', '"winner":0')
        )
        db.execute("UPDATE games SET record = ? WHERE id = 1", (edited,))  # a result changed by hand
    doc = strict_json(ratings(*folders, "-f", "json").stdout)
    assert doc["games"] == 7 and [f["games"] for f in doc["folders"]] == [3, 4]
    assert [n["id"] for n in doc["folders"][0]["not_counted"]] == [1] and doc["folders"][1]["not_counted"] == []
    plain = ratings(*folders).stdout
    assert f"not counted: 1 stored game(s) of {folders[0]}" in plain


@pytest.mark.slow
def test_a_folder_a_real_run_wrote_rates_as_its_own_table(tmp_path):
    engines = engine_toml("random", *RANDOM) + engine_toml("path", "{python}", "-m", "engines.hex_pathfinder")
    out = tmp_path / "out"
    played = run_arena("run", write_tournament(tmp_path, engines, options="size = 3", workers=1), "--out", out, "-q")
    assert played.returncode == 0, played.stderr
    listed = ratings(out, "-f", "json")
    assert listed.returncode == 0, listed.stderr
    doc, own = strict_json(listed.stdout), strict_json((out / "results.json").read_text())
    assert doc["elo"] == own["elo"] and doc["games"] == own["games"] == 2
    assert {e["engine"]: e["settings"]["command"][-1] for e in doc["engines"]} == {
        "random": "engines.random_engine",
        "path": "engines.hex_pathfinder",
    }


class _Tables(HTMLParser):
    """Each table of a page by its id: its caption, headers and rows as the page shows them."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, dict[str, Any]] = {}
        self.table: dict[str, Any] | None = None
        self.cell: list[str] | None = None
        self.row: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.table = self.tables.setdefault(dict(attrs)["id"] or "", {"caption": "", "headers": [], "rows": []})
        elif tag in ("th", "td", "caption"):
            self.cell = []
        elif tag == "tr":
            self.row = []

    def handle_endtag(self, tag: str) -> None:
        if self.table is None:
            return
        if tag == "caption" and self.cell is not None:
            self.table["caption"] = "".join(self.cell)
        elif tag in ("th", "td") and self.cell is not None:
            self.row.append("".join(self.cell))
        elif tag == "tr":
            self.table["headers" if not self.table["headers"] else "rows"].append(self.row)
            if len(self.table["headers"]) == 1 and isinstance(self.table["headers"][0], list):
                self.table["headers"] = self.table["headers"][0]
        elif tag == "table":
            self.table = None
        if tag in ("th", "td", "caption"):
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def test_the_html_list_shows_the_lists_tables_notes_and_plot(tmp_path):
    """The page ``ratings_page`` writes (in-process, no browser): every table of the list as
    ratingtables makes it, the notes but the header's, the header's facts and the Elo plot."""
    from arena.results.ratinglist import read_folders
    from arena.results.ratingtables import folder_rows, list_rows, los_rows, notes, split_rows
    from arena.results.site import asset_text, plots
    from arena.results.site.ratinglist import ratings_page

    hostile = "<b>bold</b>"
    first = results_folder(tmp_path / "first", FIELD, seed=5, extra={"fair": f'env = {{ X = "{hostile}" }}'})
    second = results_folder(tmp_path / "second", FIELD, seed=6)
    rl = rating_list(read_folders([first, second]), split_names=True)
    before = datetime.now(UTC).replace(microsecond=0)
    page = ratings_page(rl)
    after = datetime.now(UTC)
    assert "<title>arena · rating list" in page and "<h1>arena · rating list</h1>" in page
    meta = re.search(r'<p class="meta">(.*) · (\d+) folder\(s\) · (\d+) games · written (.*)</p>', page)
    assert meta is not None
    assert (meta[1], meta[2], meta[3]) == ("hex size=3, swap=true", "2", "48")
    assert before <= datetime.strptime(meta[4], "%Y-%m-%d %H:%M:%S UTC").replace(tzinfo=UTC) <= after
    assert asset_text("site.css") in page and asset_text("tables.js") in page  # pasted as they are
    shown = re.findall(r"<p>(.*?)</p>", page)
    assert shown == [html.escape(line, quote=True).replace("&#x27;", "&#39;") for line in notes(rl)[1:]]
    tables = _Tables()
    tables.feed(page)

    def text(rows: list[list[Any]]) -> list[list[str]]:
        return [[str(v) for v in row] for row in rows]

    for name, (headers, rows) in {
        "ratings": list_rows(rl),
        "los": los_rows(rl),
        "folders": folder_rows(rl),
        "split": split_rows(rl),
    }.items():
        assert tables.tables[name]["headers"] == headers and tables.tables[name]["rows"] == text(rows), name
    assert len(tables.tables["split"]["rows"]) == 2 and hostile in tables.tables["split"]["rows"][1][2]
    fit = rl.fit
    assert tables.tables["ratings"]["caption"] == (
        f"Bradley-Terry Elo (field, 48 games); anchor: {fit.anchor}; estimate: {fit.method}; "
        f"intervals: {fit.interval_method}"
    )
    assert tables.tables["los"]["caption"].startswith("Likelihood of superiority (%)")
    # The plot: every bounded engine's Elo and interval, as an image the page cannot run
    plotted = [(r.engine, r.elo, r.low, r.high) for r in fit.ratings if None not in (r.elo, r.low, r.high)]
    assert len(plotted) == 5
    (src,) = re.findall(r'<img src="data:image/svg\+xml;base64,([^"]*)"', page)
    assert base64.b64decode(src).decode() == plots.elo_plot(plotted)


def test_the_html_list_of_two_engines_has_their_plot_and_no_split_table(tmp_path):
    """Two engines with intervals are plotted; no engine told apart: no split table."""
    from arena.results.ratinglist import read_folders
    from arena.results.site.ratinglist import ratings_page

    folder = results_folder(tmp_path / "f", {"A": 0, "B": 0})
    rl = rating_list(read_folders([folder]))
    page = ratings_page(rl)
    bounded = [r for r in rl.fit.ratings if None not in (r.elo, r.low, r.high)]
    assert len(bounded) == 2 and "<figure>" in page and 'id="split"' not in page
    assert "1 folder(s) · 4 games" in page


def test_the_html_list_of_unbounded_engines_has_no_plot_and_says_when_in_utc(tmp_path, monkeypatch):
    """A clean sweep rated without a prior leaves every engine unbounded: nothing to plot.
    The time written is UTC whatever the machine's zone."""
    import time

    from arena.results.ratinglist import read_folders
    from arena.results.site.ratinglist import ratings_page

    folder = results_folder(tmp_path / "sweep", {"A": 3000.0, "B": 0.0, "C": -3000.0}, seed=1)
    rl = rating_list(read_folders([folder]), prior=0)
    assert [r.bound for r in rl.fit.ratings] == ["above", "between", "below"]
    monkeypatch.setenv("TZ", "Asia/Kathmandu")  # UTC+5:45
    time.tzset()
    try:
        before = datetime.now(UTC).replace(microsecond=0)
        page = ratings_page(rl)
        after = datetime.now(UTC)
    finally:
        monkeypatch.undo()
        time.tzset()
    assert "<figure>" not in page and "<img" not in page
    written = re.search(r"written (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC</p>", page)
    assert written is not None
    assert before <= datetime.strptime(written[1], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC) <= after


def test_the_lists_csv_header_and_json_layout_are_read_whole(tmp_path):
    folder = results_folder(tmp_path / "türnier" / "one", {"A": 0, "B": 0})
    csv_text = ratings(folder, "--format", "csv")
    assert csv_text.returncode == 0, csv_text.stderr
    header = csv_text.stdout.splitlines()[0].split(",")
    assert header[:14] == [
        "rank", "engine", "name", "elo", "elo_low", "elo_high", "elo_bound", "stderr", "games",
        "points", "results", "score_pct", "fingerprint", "folders",
    ]  # fmt: skip
    assert sorted(header[14:]) == ["los_over_A", "los_over_B"]
    json_text = ratings(folder, "--format", "json").stdout
    assert json_text.startswith('{\n  "') and json_text.endswith("}\n") and "türnier" in json_text


def test_the_html_list_draws_no_plot_of_a_single_engine_with_a_whole_interval(tmp_path):
    """A bootstrap can leave a rated engine without one end of its interval: with one engine
    left to plot there is nothing to compare it with, and the page has no plot (as the site's)."""
    from dataclasses import replace

    from arena.results.ratinglist import read_folders
    from arena.results.site.ratinglist import ratings_page

    rl = rating_list(read_folders([results_folder(tmp_path / "f", {"A": 0, "B": 0})]))
    assert all(None not in (r.elo, r.low, r.high) for r in rl.fit.ratings) and len(rl.fit.ratings) == 2
    rl.fit.ratings[1] = replace(rl.fit.ratings[1], high=None)
    page = ratings_page(rl)
    assert "<figure>" not in page and "<img" not in page


def hand_made_list(size_b: int = 5):
    """A list built by hand, its fit given rather than fitted, so every figure it publishes is
    known: folder a (hex size 5) where A beat B twice, folder b (hex ``size_b``) where B,
    with another option Level than in a, beat A once and C, listed, played no game.  B's two
    settings are told apart (B@1111aaaa in a, B@2222cccc in b).  The covariance is zero, so
    each rated engine's LOS over a lower one is 1 and over a higher one 0."""
    import numpy as np

    from arena.results.elo import Covariance, EloFit, EloRating, Tally
    from arena.results.ratingtables import Folder, ListedEngine, RatingList

    a_settings = {"command": ["a"]}
    b_first = {"command": ["b"], "options": {"Level": 1}}
    b_other = {"command": ["b"], "options": {"Level": 2}}
    c_settings = {"command": ["c"]}
    none = np.zeros(0, dtype=np.uint64)
    folders = [
        Folder("runs/a", "ta", "hex", {"size": 5}, 2.0, 2, 2, Tally(), none, {"A": a_settings, "B": b_first}),
        Folder(
            "runs/b",
            "tb",
            "hex",
            {"size": size_b},
            2.0,
            1,
            1,
            Tally(),
            none,
            {"A": a_settings, "B": b_other, "C": c_settings},
        ),
    ]
    engines = {
        "A": ListedEngine("A", "A", "aaaa0000", a_settings, [0, 1]),
        "B@1111aaaa": ListedEngine("B@1111aaaa", "B", "1111aaaa9999", b_first, [0]),
        "B@2222cccc": ListedEngine("B@2222cccc", "B", "2222cccc9999", b_other, [1]),
        "C": ListedEngine("C", "C", "cccc0000", c_settings, [1]),
    }
    ratings = [
        EloRating("A", 52.36, -10.04, 114.76, 31.64, games=3, points=2.0, results=3),
        EloRating("B@2222cccc", 10.0, -150.0, 170.0, 81.6, games=1, points=1.0, results=1),
        EloRating("B@1111aaaa", -62.36, -160.04, 35.26, 49.81, games=2, points=0.0, results=2),
        EloRating("C", None, None, None, None, games=0, points=0.0, results=0, bound="unconnected"),
    ]
    rated = ["A", "B@2222cccc", "B@1111aaaa"]
    fit = EloFit(
        ratings,
        "mean of rated engines = 0",
        0.95,
        "curvature of the log-posterior (Laplace)",
        Covariance(rated, np.zeros((3, 3))),
        prior=2.0,
    )
    labels = [{"A": "A", "B": "B@1111aaaa"}, {"A": "A", "B": "B@2222cccc", "C": "C"}]
    return RatingList(folders, engines, fit, size_b != 5, labels)


FIGURES = ("elo", "low", "high", "stderr", "bound", "games", "points", "results")
HAND_MADE_FIGURES = {  # each rating of hand_made_list as results.json writes it: rounded to 0.1
    "A": (52.4, -10.0, 114.8, 31.6, None, 3, 2.0, 3),
    "B@2222cccc": (10.0, -150.0, 170.0, 81.6, None, 1, 1.0, 1),
    "B@1111aaaa": (-62.4, -160.0, 35.3, 49.8, None, 2, 0.0, 2),
    "C": (None, None, None, None, "unconnected", 0, 0.0, 0),
}


def test_the_json_list_of_a_hand_made_list_is_its_whole_document():
    from arena.results.export import SCHEMA_VERSION, arena_version
    from arena.results.ratinglist import list_document

    rl = hand_made_list()
    doc = list_document(rl)
    elo = {
        "label": "Bradley-Terry Elo (field, 3 games)",
        "model": "bradley_terry",
        "scale": "elo",
        "prior": 2.0,
        "anchor": "mean of rated engines = 0",
        "confidence": 0.95,
        "interval_method": "curvature of the log-posterior (Laplace)",
        "ratings": [{"engine": label, **dict(zip(FIGURES, figures))} for label, figures in HAND_MADE_FIGURES.items()],
        "los": {
            "engines": ["A", "B@2222cccc", "B@1111aaaa", "C"],
            "matrix": [
                [None, 1.0, 1.0, None],
                [0.0, None, 1.0, None],
                [0.0, 0.0, None, None],
                [None, None, None, None],
            ],
        },
    }

    def engine(rank, label, name, fingerprint, settings, folders, score_pct):
        shown = dict(zip(FIGURES, HAND_MADE_FIGURES[label]))
        return {"rank": rank, "engine": label, **shown, "score_pct": score_pct, "name": name} | {
            "fingerprint": fingerprint,
            "settings": settings,
            "folders": folders,
        }

    assert doc == {
        "schema_version": SCHEMA_VERSION,
        "arena_version": arena_version(),
        "kind": "rating_list",
        "game": "hex",
        "options": {"size": 5},
        "mixed": False,
        "games": 3,
        "folders": [
            {"path": "runs/a", "tournament": "ta", "game": "hex", "options": {"size": 5}, "games": 2}
            | {"engines": ["A", "B@1111aaaa"], "not_counted": []},
            {"path": "runs/b", "tournament": "tb", "game": "hex", "options": {"size": 5}, "games": 1}
            | {"engines": ["A", "B@2222cccc", "C"], "not_counted": []},
        ],
        "elo": elo,
        "engines": [
            engine(1, "A", "A", "aaaa0000", {"command": ["a"]}, ["runs/a", "runs/b"], 66.7),  # 2 of 3
            engine(
                2, "B@2222cccc", "B", "2222cccc9999", {"command": ["b"], "options": {"Level": 2}}, ["runs/b"], 100.0
            ),
            engine(3, "B@1111aaaa", "B", "1111aaaa9999", {"command": ["b"], "options": {"Level": 1}}, ["runs/a"], 0.0),
            engine(4, "C", "C", "cccc0000", {"command": ["c"]}, ["runs/b"], None),  # no result: no score
        ],
    }


HAND_MADE_NOTES = [
    "Bradley-Terry Elo (field, 3 games) over 2 folder(s): hex size=5.",
    "Elo: Bradley-Terry with BayesElo's prior of 2 virtual draws per engine, anchor: mean of rated engines = 0; "
    "95% intervals from the curvature of the log-posterior (Laplace), as each folder's table; LOS from the fit's "
    "covariance. Ranked by Elo (ties: score, then name). games: games with a result; results: pairwise results; "
    "folders: the numbers in the folder table.",
]


def test_the_terminal_list_of_a_hand_made_list_is_its_notes_then_each_table_under_its_title():
    """Every cell as text, left-aligned as written (no number re-aligned or re-formatted)."""
    from arena.results.ratinglist import render

    assert render(hand_made_list(), "table").split("\n") == [
        *HAND_MADE_NOTES,
        "",
        "Rating list",
        "rank    engine      elo      95% low    95% high    games    results    score %    folders",
        "------  ----------  -------  ---------  ----------  -------  ---------  ---------  ---------",
        "1       A           52.4     -10.0      114.8       3        3          66.7       1, 2",
        "2       B@2222cccc  10.0     -150.0     170.0       1        1          100.0      2",
        "3       B@1111aaaa  -62.4    -160.0     35.3        2        2          0.0        1",
        "4       C           unrated                         0        0                     2",
        "",
        "Likelihood of superiority",
        "LOS % (row over column)    A    B@2222cccc    B@1111aaaa    C",
        "-------------------------  ---  ------------  ------------  ---",
        "A                               100.0         100.0",
        "B@2222cccc                 0.0                100.0",
        "B@1111aaaa                 0.0  0.0",
        "C",
        "",
        "Folders",
        "#    folder    tournament    game        games    not counted    engines",
        "---  --------  ------------  ----------  -------  -------------  ----------------",
        "1    runs/a    ta            hex size=5  2        0              A, B@1111aaaa",
        "2    runs/b    tb            hex size=5  1        0              A, B@2222cccc, C",
        "",
        "Engines told apart (one name, other settings)",
        "engine      folders    settings (against the first of its name)",
        "----------  ---------  ------------------------------------------",
        "B@1111aaaa  runs/a     the first setting of this name",
        "B@2222cccc  runs/b     options.Level: 1 -> 2",
        "",
    ]


def test_the_markdown_list_of_a_hand_made_list_is_a_titled_page_of_github_tables():
    from arena.results.ratinglist import render

    assert render(hand_made_list(), "md").split("\n") == [
        "# Rating list",
        "",
        HAND_MADE_NOTES[0],
        "",
        HAND_MADE_NOTES[1],
        "",
        "## Rating list",
        "",
        "| rank   | engine     | elo     | 95% low   | 95% high   | games   | results   | score %   | folders   |",
        "|--------|------------|---------|-----------|------------|---------|-----------|-----------|-----------|",
        "| 1      | A          | 52.4    | -10.0     | 114.8      | 3       | 3         | 66.7      | 1, 2      |",
        "| 2      | B@2222cccc | 10.0    | -150.0    | 170.0      | 1       | 1         | 100.0     | 2         |",
        "| 3      | B@1111aaaa | -62.4   | -160.0    | 35.3       | 2       | 2         | 0.0       | 1         |",
        "| 4      | C          | unrated |           |            | 0       | 0         |           | 2         |",
        "",
        "## Likelihood of superiority",
        "",
        "| LOS % (row over column)   | A   | B@2222cccc   | B@1111aaaa   | C   |",
        "|---------------------------|-----|--------------|--------------|-----|",
        "| A                         |     | 100.0        | 100.0        |     |",
        "| B@2222cccc                | 0.0 |              | 100.0        |     |",
        "| B@1111aaaa                | 0.0 | 0.0          |              |     |",
        "| C                         |     |              |              |     |",
        "",
        "## Folders",
        "",
        "| #   | folder   | tournament   | game       | games   | not counted   | engines          |",
        "|-----|----------|--------------|------------|---------|---------------|------------------|",
        "| 1   | runs/a   | ta           | hex size=5 | 2       | 0             | A, B@1111aaaa    |",
        "| 2   | runs/b   | tb           | hex size=5 | 1       | 0             | A, B@2222cccc, C |",
        "",
        "## Engines told apart (one name, other settings)",
        "",
        "| engine     | folders   | settings (against the first of its name)   |",
        "|------------|-----------|--------------------------------------------|",
        "| B@1111aaaa | runs/a    | the first setting of this name             |",
        "| B@2222cccc | runs/b    | options.Level: 1 -> 2                      |",
        "",
    ]


def test_the_csv_list_of_a_hand_made_list_is_one_unix_line_per_engine_with_its_los_over_each():
    from arena.results.ratinglist import render

    assert render(hand_made_list(), "csv") == (
        "rank,engine,name,elo,elo_low,elo_high,elo_bound,stderr,games,points,results,score_pct,fingerprint,folders,"
        "los_over_A,los_over_B@2222cccc,los_over_B@1111aaaa,los_over_C\n"
        "1,A,A,52.4,-10.0,114.8,,31.6,3,2.0,3,66.7,aaaa0000,runs/a; runs/b,,1.0,1.0,\n"
        "2,B@2222cccc,B,10.0,-150.0,170.0,,81.6,1,1.0,1,100.0,2222cccc9999,runs/b,0.0,,1.0,\n"
        "3,B@1111aaaa,B,-62.4,-160.0,35.3,,49.8,2,0.0,2,0.0,1111aaaa9999,runs/a,0.0,0.0,,\n"
        "4,C,C,,,,unconnected,,0,0.0,0,,cccc0000,runs/b,,,,\n"
    )


def test_a_mixed_hand_made_list_names_no_one_game_or_options_in_its_json_but_each_folders():
    from arena.results.ratinglist import list_document

    doc = list_document(hand_made_list(size_b=7))
    assert (doc["game"], doc["options"], doc["mixed"]) == (None, None, True)
    assert [(f["path"], f["game"], f["options"]) for f in doc["folders"]] == [
        ("runs/a", "hex", {"size": 5}),
        ("runs/b", "hex", {"size": 7}),
    ]


def test_the_html_list_is_the_sites_rating_list_page():
    from arena.results.ratinglist import render

    page = render(hand_made_list(), "html")
    assert page.startswith("<!DOCTYPE html>") and "<h1>arena · rating list</h1>" in page
    assert " · 2 folder(s) · 3 games · written " in page


def test_an_anchor_is_name_equals_elo_split_at_the_last_equals_sign():
    from arena.results.ratinglist import parse_anchor

    assert parse_anchor("random=0") == ("random", 0.0)
    assert parse_anchor("level=2=-150.5") == ("level=2", -150.5)  # a name may hold "="
    for bad in ("random", "random=", "=100", "random=strong", "random=inf", "random=nan"):
        with pytest.raises(ValueError) as err:
            parse_anchor(bad)
        assert str(err.value) == f"--anchor {bad}: give NAME=ELO, e.g. --anchor random=0"


def test_the_lists_table_shows_an_engine_unbounded_above_or_below_as_plus_or_minus_inf_without_an_interval():
    from dataclasses import replace

    from arena.results.ratingtables import list_rows

    rl = hand_made_list()
    ratings = rl.fit.ratings
    unbounded = {"elo": None, "low": None, "high": None, "stderr": None}
    ratings[0] = replace(ratings[0], **unbounded, bound="above")
    ratings[2] = replace(ratings[2], **unbounded, bound="below")
    _, rows = list_rows(rl)
    assert rows == [
        [1, "A", "+inf", "", "", 3, 3, 66.7, "1, 2"],
        [2, "B@2222cccc", 10.0, -150.0, 170.0, 1, 1, 100.0, "2"],
        [3, "B@1111aaaa", "-inf", "", "", 2, 2, 0.0, "1"],
        [4, "C", "unrated", "", "", 0, 0, "", "2"],
    ]


def test_the_lists_los_table_is_the_normal_curve_at_the_difference_over_its_deviation_in_percent_to_a_tenth():
    """Elo 30, 0 and -30, each with variance 450 and no covariance: a difference of 30 has
    a deviation of sqrt(900) = 30, so its LOS is Phi(1) = 84.13% (and 15.87% back), a
    difference of 60 Phi(2) = 97.72% (2.28% back), each shown to a tenth of a percent."""
    from dataclasses import replace

    import numpy as np

    from arena.results.elo import Covariance
    from arena.results.ratingtables import los_rows

    rl = hand_made_list()
    ratings = [replace(r, elo=elo) for r, elo in zip(rl.fit.ratings, [30.0, 0.0, -30.0, None])]
    rated = ["A", "B@2222cccc", "B@1111aaaa"]
    rl.fit = replace(rl.fit, ratings=ratings, covariance=Covariance(rated, np.diag([450.0, 450.0, 450.0])))
    headers, rows = los_rows(rl)
    assert headers == ["LOS % (row over column)", "A", "B@2222cccc", "B@1111aaaa", "C"]
    assert rows == [
        ["A", "", 84.1, 97.7, ""],
        ["B@2222cccc", 15.9, "", 84.1, ""],
        ["B@1111aaaa", 2.3, 15.9, "", ""],
        ["C", "", "", "", ""],
    ]


def test_a_folder_of_a_game_without_options_is_named_as_the_game_with_no_options():
    from arena.results.ratingtables import folder_rows

    rl = hand_made_list()
    rl.folders[0].options = {}
    assert rl.game_text == "hex no options; hex size=5"
    _, rows = folder_rows(rl)
    assert rows[0] == [1, "runs/a", "ta", "hex no options", 2, 0, "A, B@1111aaaa"]


def test_a_rating_list_errors_message_is_its_lines_one_a_line():
    from arena.results.ratinglist import RatingListError

    error = RatingListError(["a: not a results folder", "b: not a results folder"])
    assert str(error) == "a: not a results folder\nb: not a results folder"
    assert error.lines == ["a: not a results folder", "b: not a results folder"]


def test_a_path_that_is_a_file_is_refused_as_not_a_folder_in_one_whole_line(tmp_path):
    from arena.results.store import StorageError

    plain = tmp_path / "list.txt"
    plain.write_text("not a results folder")
    with pytest.raises(StorageError) as refused:
        read_folder(plain, "list.txt")
    assert str(refused.value) == "list.txt: not a folder; give the output folder of an arena run"


def test_an_engines_settings_are_its_entry_without_name_and_max_failures_with_its_clock_and_paths():
    """Its own time control before the tournament's, and the folder's way of writing paths
    (a folder made before it was stored kept absolute paths)."""
    from arena.results.ratinglist import engine_settings

    tournament = {"time_control": {"movetime_ms": 500}, "paths": "relative"}
    own_clock = {"name": "A", "command": ["a"], "max_failures": 3, "time_control": {"movetime_ms": 900}}
    assert engine_settings(tournament, own_clock) == {
        "command": ["a"],
        "time_control": {"movetime_ms": 900},
        "paths": "relative",
    }
    older = {"time_control": {"movetime_ms": 500}}
    assert engine_settings(older, {"name": "B", "command": ["b"], "options": {"Level": 2}}) == {
        "command": ["b"],
        "options": {"Level": 2},
        "time_control": {"movetime_ms": 500},
        "paths": "absolute",
    }


def _edit_folder(folder: Path, *statements: str) -> None:
    with closing(sqlite3.connect(folder / "arena.db")) as db, db:
        for statement in statements:
            db.execute(statement)


def test_a_folder_is_named_by_its_settings_else_its_games_tournament_else_its_folders_name(tmp_path):
    import json

    renamed = results_folder(tmp_path / "renamed", {"A": 0, "B": 0}, rounds=1)
    with closing(sqlite3.connect(renamed / "arena.db")) as db, db:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()
        settings = json.loads(text) | {"name": "the league"}  # the name is free: the same tournament
        db.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (json.dumps(settings),))
    assert read_folder(renamed, "renamed").tournament == "the league"
    older = results_folder(tmp_path / "older", {"A": 0, "B": 0}, rounds=1)
    _edit_folder(older, "DELETE FROM meta WHERE key = 'settings'")  # an arena before stored settings
    assert read_folder(older, "older").tournament == "older"  # the games' tournament
    _edit_folder(older, 'UPDATE games SET record = replace(record, \'"tournament":"older"\', \'"tournament":null\')')
    assert read_folder(older, "older").tournament == "out"  # nothing else names it: its folder


def test_a_folder_without_stored_settings_is_its_games_game_and_engines_with_no_settings(tmp_path):
    import numpy as np

    from arena.results.admit import read_counted
    from arena.results.ratinglist import fingerprint

    older = results_folder(tmp_path / "older", {"A": 0, "B": 0}, rounds=1)
    _edit_folder(older, "DELETE FROM meta WHERE key = 'settings'")
    read = read_folder(older, "runs/older")
    records = read_counted(older).counted
    assert len(records) == 2
    assert (read.path, read.tournament, read.game, read.options, read.prior, read.games, read.played) == (
        "runs/older",
        "older",
        "hex",
        {"size": 3, "swap": True},  # as its games were played
        2.0,  # BayesElo's prior: no tournament file asked for another
        2,
        2,
    )
    assert read.engines == {"A": None, "B": None} and read.refused == []
    assert read.fingerprints.dtype == np.uint64
    assert read.fingerprints.tolist() == [fingerprint(r) for r in records]


def test_a_folder_with_no_games_or_only_games_it_does_not_count_is_refused_in_one_whole_line(tmp_path):
    from arena.results.store import StorageError

    empty = results_folder(tmp_path / "empty", {"A": 0, "B": 0}, rounds=1)
    _edit_folder(empty, "DELETE FROM games", "DELETE FROM checked")
    with pytest.raises(StorageError) as nothing:
        read_folder(empty, "runs/empty")
    assert str(nothing.value) == "runs/empty: the folder holds no games to rate; leave it out of the list"
    edited = results_folder(tmp_path / "edited", {"A": 0, "B": 0}, rounds=1)
    flipped = (
        "replace(replace(replace(record, '\"winner\":0', '@'), '\"winner\":1', '\"winner\":0'), '@', '\"winner\":1')"
    )
    _edit_folder(edited, "DELETE FROM checked", f"UPDATE games SET record = {flipped}")  # every result changed by hand
    with pytest.raises(StorageError) as refused:
        read_folder(edited, "runs/edited")
    assert str(refused.value) == (
        "runs/edited: the folder holds no games to rate (2 stored game(s) are not counted: "
        "'arena results runs/edited'); leave it out of the list"
    )


def _listed_folder(path: str, *, size: int = 5, prints: tuple[int, ...] = (), players: int = 2) -> Any:
    """A folder by hand: A beat B and drew B (with C too in a game of three when ``players``
    is 3); engines A, B and C (C listed, with no game when two play)."""
    import numpy as np

    from arena.results.elo import Tally
    from arena.results.ratingtables import Folder

    tally = Tally(["A", "B", "C"])
    tally.add_game([(0, 1, 1.0)])
    tally.add_game([(1, 0, 0.5)])
    if players == 3:
        tally.add_game([(0, 1, 1.0), (0, 2, 1.0), (1, 2, 1.0)])
    engines = {name: {"command": [name.lower()]} for name in ("A", "B", "C")}
    return Folder(path, "t", "hex", {"size": size}, 2.0, 2, 2, tally, np.array(prints, dtype=np.uint64), engines)


def test_folders_of_other_options_are_refused_unless_mixing_is_asked_for():
    from arena.results.ratinglist import RatingListError, mixed_line

    folders = [_listed_folder("a"), _listed_folder("b", size=6)]
    with pytest.raises(RatingListError) as refused:
        rating_list(folders)
    assert refused.value.lines == [mixed_line(folders)]
    assert rating_list(folders, allow_mixed=True).mixed


def test_an_anchor_or_a_model_the_fit_cannot_use_is_refused_naming_the_option_and_why():
    from arena.results.ratinglist import RatingListError

    with pytest.raises(RatingListError) as unrated:  # C is listed but played no game
        rating_list([_listed_folder("a")], anchor=("C", 10.0))
    assert unrated.value.lines == ["--anchor C=10: anchor 'C' is not a rated engine of this field"]
    with pytest.raises(RatingListError) as three:
        rating_list([_listed_folder("a", players=3)], model="bayeselo")
    assert three.value.lines == ["--model bayeselo: BayesElo's model rates two-player games (White and Black) only"]


def test_a_folder_sharing_games_with_two_earlier_folders_is_named_with_each_for_the_games_it_shares():
    """Each shared game is named once, against the first folder that holds it."""
    from arena.results.ratinglist import RatingListError

    folders = [
        _listed_folder("a", prints=(1, 2)),
        _listed_folder("b", prints=(3,)),
        _listed_folder("c", prints=(1, 2, 3, 4)),
    ]
    with pytest.raises(RatingListError) as refused:
        rating_list(folders)
    assert refused.value.lines == [
        "a and c hold 2 identical game(s) (one is a copy of the other?); give each tournament's folder once",
        "b and c hold 1 identical game(s) (one is a copy of the other?); give each tournament's folder once",
    ]
