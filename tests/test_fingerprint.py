"""A results folder holds one tournament: any change of its settings is refused, listing
what changed; only raising rounds (or not-game settings such as workers) resumes it."""

import json
import sqlite3

import pytest
from click.testing import CliRunner
from helpers import engine_toml, write_tournament

from arena.cli import main
from arena.results.fingerprint import changes, fingerprint

ENGINES = engine_toml("r1", "{python}", "-m", "engines.random_engine") + engine_toml(
    "r2", "{python}", "-m", "engines.random_engine"
)


def run(path, out):
    return CliRunner().invoke(main, ["run", str(path), "--out", str(out), "-q"])


def games(out):
    return sqlite3.connect(out / "arena.db").execute("SELECT count(*) FROM games").fetchone()[0]


@pytest.fixture
def played(tmp_path):
    """A finished 1-round Hex 3x3 tournament (2 games) and a way to rewrite its file."""
    path = write_tournament(tmp_path, ENGINES, options="size = 3", workers=1)
    out = tmp_path / "out"
    first = run(path, out)
    assert first.exit_code == 0, first.output
    assert games(out) == 2

    def rewrite(old, new):
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))

    return path, out, rewrite


@pytest.mark.slow
@pytest.mark.parametrize(
    "old,new,changed",
    [
        ('"engines.random_engine"]\n', '"engines.random_engine", "--x"]\n', "engines.r1.command"),
        ("movetime_ms = 2000", "movetime_ms = 1500", "time_control.movetime_ms: 2000 -> 1500"),
        ("seed = 0", "seed = 1", "seed: 0 -> 1"),
        ("size = 3", "size = 3\nswap = false", "options.swap: true -> false"),
        ('name = "r2"\n', 'name = "r2"\noptions = { depth = 2 }\n', "engines.r2.options"),
        ('name = "r2"\n', 'name = "r2"\ncwd = "sub"\n', "engines.r2.cwd"),
        (
            "rounds = 1",
            'rounds = 1\n[[engines]]\nname = "r3"\ncommand = ["{python}", "-m", "engines.random_engine"]\n',
            "engines.r3: (not set)",
        ),
    ],
)
def test_a_changed_setting_is_refused_listing_it(played, tmp_path, old, new, changed):
    path, out, rewrite = played
    (tmp_path / "sub").mkdir()
    rewrite(old, new)
    if "[[engines]]" in new:  # an engine block goes after the others, not in the header
        text = path.read_text().replace(new, old)
        path.write_text(text + new.split("\n", 1)[1])
    result = run(path, out)
    assert result.exit_code == 2, result.output
    assert changed in result.output and str(out.resolve()) in result.output
    assert "--out" in result.output and "Traceback" not in result.output
    assert games(out) == 2


@pytest.mark.slow
def test_raising_rounds_or_workers_resumes_and_lowering_rounds_is_refused(played):
    path, out, rewrite = played
    rewrite("workers = 1", "workers = 2")
    rewrite("rounds = 1", "rounds = 2")
    result = run(path, out)
    assert result.exit_code == 0, result.output
    assert games(out) == 4 and "2 resumed" in result.output
    rewrite("rounds = 2", "rounds = 1")
    result = run(path, out)
    assert result.exit_code == 2 and "rounds: 2 -> 1 (may only be raised" in result.output


@pytest.mark.slow
def test_the_book_counts_by_its_content_not_its_path(tmp_path):
    (tmp_path / "a.txt").write_text("b2\n")
    (tmp_path / "b.txt").write_text("b2\n")
    path = write_tournament(tmp_path, ENGINES, options="size = 3", workers=1, extra='openings = "a.txt"')
    out = tmp_path / "out"
    assert run(path, out).exit_code == 0
    path.write_text(path.read_text().replace('"a.txt"', '"b.txt"'))
    assert run(path, out).exit_code == 0  # same moves, another file: same tournament
    (tmp_path / "b.txt").write_text("a1\n")
    result = run(path, out)
    assert result.exit_code == 2 and "openings.moves_sha256" in result.output


@pytest.mark.slow
def test_a_folder_made_before_settings_were_stored_still_resumes(played):
    path, out, rewrite = played
    from arena.tournament.config import load_tournament
    from arena.tournament.settings import legacy_fingerprint

    db = sqlite3.connect(out / "arena.db")
    with db:
        db.execute("DELETE FROM meta WHERE key = 'settings'")
        db.execute("UPDATE meta SET value = ? WHERE key = 'fingerprint'", (legacy_fingerprint(load_tournament(path)),))
    db.close()
    rewrite("rounds = 1", "rounds = 2")
    assert run(path, out).exit_code == 0 and games(out) == 4
    settings = json.loads(
        sqlite3.connect(out / "arena.db").execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()[0]
    )
    assert settings["rounds"] == 2 and settings["engines"][0]["name"] == "r1"


def test_changes_and_fingerprint_ignore_only_growth():
    old = {"rounds": 2, "seed": 1, "engines": {"a": {"command": ["x"]}}}
    assert fingerprint(old) == fingerprint({**old, "rounds": 9})
    assert changes(old, {**old, "rounds": 9}) == []
    sprt = {"elo0": 0, "elo1": 5}
    assert changes(old, {**old, "sprt": sprt}) == ['sprt: (not set) -> {"elo0": 0, "elo1": 5}']
    assert changes({**old, "sprt": sprt}, {**old, "sprt": {**sprt, "elo1": 10}}) == ["sprt.elo1: 5 -> 10"]
    assert changes({**old, "sprt": sprt}, {**old, "rounds": 9, "sprt": sprt}) == []  # more pairs for the test
    assert changes(old, {"rounds": 2, "seed": 1, "engines": {}}) == ['engines.a: {"command": ["x"]} -> (removed)']


@pytest.mark.slow
def test_listing_the_engines_in_another_order_is_another_schedule_and_refused(played):
    """Game ids pair engines by their place in the file: a reordered file must not resume."""
    path, out, _ = played
    text = path.read_text()
    head, first, second = text.split("[[engines]]")
    path.write_text(head + "[[engines]]" + second.rstrip("\n") + "\n" + "[[engines]]" + first)
    result = run(path, out)
    assert result.exit_code == 2, result.output
    assert 'engine_order: ["r1", "r2"] -> ["r2", "r1"]' in result.output
    assert games(out) == 2


def test_a_changed_value_is_shown_as_written_whole_up_to_120_characters_and_cut_past_them():
    """Each side of a change is its JSON with its own letters (no \\u escapes), whole at 120
    characters (a string of 118 and its quotes) and cut to 117 and '...' at 121."""
    old = {"seed": 1, "name_of_opening": "Ω-" + "a" * 116, "book": "b" * 119}
    new = {"seed": 1, "name_of_opening": "é", "book": "c"}
    assert changes(old, new) == [
        f'book: "{"b" * 116}... -> "c"',
        f'name_of_opening: "Ω-{"a" * 116}" -> "é"',
    ]


def test_lowering_the_rounds_is_the_one_change_listed_with_the_games_the_folder_holds():
    old = {"rounds": 4, "seed": 1, "engines": {"a": {"command": ["x"]}}}
    assert changes(old, {**old, "rounds": 2}) == [
        "rounds: 4 -> 2 (may only be raised: the folder holds the games of 4)"
    ]


def test_a_tournaments_settings_are_the_file_as_validated_with_each_engine_as_started(tmp_path, monkeypatch):
    """The whole settings a folder stores, as JSON data: every engine with its command as
    written (a program on PATH as found, a relative one normalised), its folder relative to
    the file, its limits; sandbox, restart and verify_score only when set; a clock's moves
    and nodes only when set; the rules of [adjudication] that are set; the book as its
    moves' digest with its random plies. Without ``portable``, every path is resolved."""
    import shutil
    import sys

    from arena.results.fingerprint import digest
    from arena.tournament import config
    from arena.tournament.config import load_tournament
    from arena.tournament.settings import tournament_settings

    monkeypatch.setattr(config, "sandbox_problem", lambda: None)  # what is stored, wherever a sandbox runs
    (tmp_path / "engdir" / "bin").mkdir(parents=True)
    program = tmp_path / "engdir" / "bin" / "eng.sh"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    (tmp_path / "book.txt").write_text("a1\nb2 c3\n")
    engines = (
        engine_toml(
            "a",
            "{python}",
            "-m",
            "engines.random_engine",
            extra='cwd = "./engdir/"\nsandbox = true\nrestart = "always"\noptions = { depth = 3 }\n'
            'env = { LEVEL = "x" }\ntime_control = { base_ms = 1000, moves = 40 }',
        )
        + engine_toml("b", "sh", "-c", "true", extra='protocol = "gtp"\nverify_score = true\nmemory_mb = 64')
        + engine_toml("c", "./bin/eng.sh", "--go", extra='cwd = "engdir"\nverify_score = false\nrestart = "auto"')
    )
    extra = '[openings]\nfile = "book.txt"\nrandom_plies = 2\n[adjudication]\nmax_plies = 30\n'
    path = write_tournament(
        tmp_path, engines, options="size = 5", seed=5, workers=1, time_control="base_ms = 2000", extra=extra
    )
    t = load_tournament(path)
    plain = {"cpu_seconds": None, "handshake_ms": None, "init": [], "max_failures": 3, "memory_mb": None}
    a = {
        **plain,
        "name": "a",
        "command": ["{python}", "-m", "engines.random_engine"],
        "cwd": "engdir",
        "options": [["depth", "3"]],
        "env": [["LEVEL", "x"]],
        "protocol": "arena",
        "sandbox": True,
        "restart": "always",
        "time_control": {"movetime_ms": None, "base_ms": 1000, "inc_ms": 0, "margin_ms": 100, "moves": 40},
    }
    sh = shutil.which("sh")
    b = {**plain, "name": "b", "command": [sh, "-c", "true"], "cwd": ".", "options": [], "env": []}
    b.update(protocol="gtp", verify_score=True, memory_mb=64, time_control=None)
    c = {**plain, "name": "c", "command": ["bin/eng.sh", "--go"], "cwd": "engdir", "options": [], "env": []}
    c.update(protocol="arena", time_control=None)
    expected = {
        "name": "t",
        "out": None,
        "game": "hex",
        "options": {"size": 5, "swap": True},
        "rounds": 1,
        "seed": 5,
        "workers": 1,
        "affinity": False,
        "idle_engines": 4,
        "forfeit_failed_engines": False,
        "time_control": {"movetime_ms": None, "base_ms": 2000, "inc_ms": 0, "margin_ms": 100},
        "openings": {"moves_sha256": digest([["a1"], ["b2", "c3"]]), "count": 2, "random_plies": 2},
        "format": "round-robin",
        "candidates": [],
        "sprt": None,
        "adjudication": {"max_plies": 30},
        "engines": [a, b, c],
        "cluster": None,
        "elo_prior": 2.0,
        "paths": "relative",
    }
    settings = tournament_settings(t)
    assert settings == expected
    assert json.loads(json.dumps(settings)) == settings  # JSON data, as the folder reads it back
    engdir = str(tmp_path.resolve() / "engdir")
    absolute = {key: value for key, value in expected.items() if key != "paths"}
    absolute["engines"] = [
        {**a, "command": [sys.executable, "-m", "engines.random_engine"], "cwd": engdir},
        {**b, "cwd": str(tmp_path.resolve())},
        {**c, "command": [f"{engdir}/bin/eng.sh", "--go"], "cwd": engdir},
    ]
    assert tournament_settings(t, portable=False) == absolute


def test_a_plain_tournament_stores_no_openings_no_adjudication_and_only_the_clock_keys_it_sets(tmp_path):
    from arena.tournament.config import load_tournament
    from arena.tournament.settings import tournament_settings

    path = write_tournament(
        tmp_path, ENGINES, options="size = 3", workers=1, time_control="movetime_ms = 500\nnodes = 900"
    )
    settings = tournament_settings(load_tournament(path))
    assert settings["openings"] is None and "adjudication" not in settings
    assert settings["time_control"] == {
        "movetime_ms": 500,
        "base_ms": None,
        "inc_ms": 0,
        "margin_ms": 100,
        "nodes": 900,
    }
    engine = {
        "cwd": ".",
        "options": [],
        "env": [],
        "protocol": "arena",
        "time_control": None,
        "init": [],
        "max_failures": 3,
    }
    engine.update(cpu_seconds=None, handshake_ms=None, memory_mb=None)
    command = ["{python}", "-m", "engines.random_engine"]
    assert settings["engines"] == [
        {**engine, "name": "r1", "command": command},
        {**engine, "name": "r2", "command": command},
    ]


def test_settings_a_mapping_replaced_by_a_value_or_an_engine_without_a_name_are_compared_whole():
    """A changed kind of value (a table become a string) is one change of the whole value, and
    an engine stored without a name (damaged settings) is still compared, listed as None."""
    old = {"seed": 1, "book": {"file": "a.txt"}, "engines": [{"name": "a"}, {"command": ["y"]}]}
    new = {"seed": 1, "book": "plain", "engines": [{"name": "a"}]}
    assert changes(old, new) == [
        'book: {"file": "a.txt"} -> "plain"',
        'engine_order: ["a", null] -> ["a"]',
        'engines.None: {"command": ["y"]} -> (removed)',
    ]
    assert changes(new, old) == [
        'book: "plain" -> {"file": "a.txt"}',
        'engine_order: ["a"] -> ["a", null]',
        'engines.None: (not set) -> {"command": ["y"]}',
    ]


def test_the_seeds_files_path_is_free_and_the_order_it_gives_is_not():
    """An event's seeds are stored as the file's path and the order read from it: the path
    may move (its order is what counts), another order is another tournament."""
    old = {"rounds": 2, "seed": 1, "seeds": {"file": "/a/seeds.txt", "order": ["x", "y"]}}
    moved = {**old, "seeds": {"file": "/b/seeds.txt", "order": ["x", "y"]}}
    assert fingerprint(old) == fingerprint(moved)
    assert changes(old, moved) == []
    reordered = {**old, "seeds": {"file": "/a/seeds.txt", "order": ["y", "x"]}}
    assert fingerprint(old) != fingerprint(reordered)
    assert changes(old, reordered) == ['seeds.order: ["x", "y"] -> ["y", "x"]']
    assert changes({"rounds": 2, "seed": 1}, old) == ['seeds: (not set) -> {"order": ["x", "y"]}']


def test_a_digest_is_the_sha256_of_the_canonical_json_that_folders_already_store():
    """Folders store this digest of their settings (and of a book's moves): keys sorted, no
    spaces, so the same settings written in another order or by another arena give the same
    digest, and changing the form would make every stored folder refuse its resume."""
    import hashlib

    from arena.results.fingerprint import digest

    value = {"b": [1, {"d": 2, "c": "é"}], "a": "x"}
    canonical = '{"a":"x","b":[1,{"c":"\\u00e9","d":2}]}'
    assert digest(value) == hashlib.sha256(canonical.encode()).hexdigest()
    assert fingerprint({"seed": 1}) == hashlib.sha256(b'{"seed":1}').hexdigest()
