"""`arena run` without a tournament file (fastchess-style flags) and the engine list.

The flags make the data of a tournament file, validated by the file's own code; the run
writes that file into its folder, and the file (or a copy elsewhere) plays the same games.
An engine list's entries are taken by `use = "NAME"` and `--engine conf=NAME`, and the
folder's settings hold the resolved entry, so an edited list refuses the resume.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, run_arena
from helpers import ascii_locale as ascii_encoding

from arena.cli import main
from arena.match import TimeControl
from arena.results.fingerprint import fingerprint
from arena.tournament.commandline import FlagError, RunFlags, flag_tournament
from arena.tournament.config import ConfigError, load_tournament
from arena.tournament.settings import tournament_settings

RANDOM = "{python} -m engines.random_engine"
GTP = f"{sys.executable} {ROOT / 'tests' / 'engines' / 'gtp_hex_engine.py'}"


def games_of(folder: Path) -> list[tuple]:
    """Each stored game by id: its seats, moves, result and seeds."""
    records = [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]
    return sorted(
        (
            r["id"],
            r["round"],
            tuple(r["players"]),
            tuple(r["moves"]),
            r["winner"],
            r["reason"],
            tuple(r["engine_seeds"]),
        )
        for r in records
    )


def stored_fingerprint(folder: Path) -> str:
    with closing(sqlite3.connect(folder / "arena.db")) as db:
        return db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()[0]


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_run_from_flags_and_a_run_of_its_written_file_play_the_same_games(tmp_path):
    flags = [
        "run", "--game", "hex", "-O", "size=3", "-O", "swap=true",
        "--engine", "name=first", f"cmd={RANDOM}",
        "--engine", f"cmd={RANDOM}", "name=second", "env.UNUSED=1",
        "--each", "st=0.5", "timemargin=200",
        "--rounds", "2", "--concurrency", "2", "--seed", "7", "--out", "out/first-vs-second", "--quiet",
        "--idle-engines", "1",
    ]  # fmt: skip
    played = run_arena(*flags, cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    folder = tmp_path / "out" / "first-vs-second"
    written = folder / "tournament.toml"
    text = written.read_text()
    assert "movetime_ms = 500" in text and "margin_ms = 200" in text and 'UNUSED = "1"' in text
    assert "workers = 2" in text and "idle_engines = 1" in text  # what the run used, as the file's
    assert "# arena run --game hex" in text  # the command line it came from

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(written, elsewhere / "copy.toml")
    again = run_arena("run", elsewhere / "copy.toml", "--out", elsewhere / "out", "--quiet", cwd=elsewhere)
    assert again.returncode == 0, again.stderr
    assert len(games_of(folder)) == 4
    assert games_of(elsewhere / "out") == games_of(folder)
    assert stored_fingerprint(elsewhere / "out") == stored_fingerprint(folder)

    resumed = run_arena(*flags, cwd=tmp_path)  # the same command line resumes: nothing is played again
    assert resumed.returncode == 0, resumed.stderr
    assert "0 games played, 4 resumed" in resumed.stdout
    changed = run_arena(*[f.replace("st=0.5", "st=0.6") for f in flags], cwd=tmp_path)
    assert changed.returncode == 2
    assert "time_control.movetime_ms: 500 -> 600" in changed.stderr
    assert written.read_text() == text  # a refused run leaves the folder's file as it was


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_the_written_file_names_its_folder_so_it_resumes_it_from_any_working_directory(tmp_path):
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    flags = [
        "run", "--game", "hex", "-O", "size=5", "--engine", "name=one", f"cmd={RANDOM}",
        "--engine", "name=two", f"cmd={RANDOM}", "--each", "st=0.2", "--seed", "3",
        "--out", "results/one-vs-two", "--quiet",
    ]  # fmt: skip
    played = run_arena(*flags, cwd=here)
    assert played.returncode == 0, played.stderr
    folder = here / "results" / "one-vs-two"
    written = folder / "tournament.toml"
    text = written.read_text()
    assert '\nout = "."\n' in text.split("[")[0]  # a top-level key: the folder the file is in
    first_games = games_of(folder)
    assert len(first_games) == 2

    # The folder's own file, run from another working directory, resumes it: raising rounds
    # plays only the new games, into the folder, and nothing lands in ./out there.
    assert "rounds" not in text
    written.write_text(text.replace('out = "."', 'out = "."\nrounds = 2'))
    resumed = run_arena("run", Path("..") / "here" / "results" / "one-vs-two" / "tournament.toml", "-q", cwd=there)
    assert resumed.returncode == 0, resumed.stderr
    assert len(games_of(folder)) == 4 and games_of(folder)[:2] == first_games
    assert not (there / "out").exists()
    resumed_again = run_arena("run", written, "-q", cwd=tmp_path)  # a third folder, an absolute path
    assert resumed_again.returncode == 0, resumed_again.stderr
    assert len(games_of(folder)) == 4 and not (tmp_path / "out").exists()

    # A copy elsewhere without `out` plays the same games into out/<name> of where it runs;
    # with `out` changed, into the folder it names, relative to the copy.
    copy = there / "copy.toml"
    copy.write_text(written.read_text().replace('out = "."\n', ""))
    fresh = run_arena("run", "copy.toml", "-q", cwd=there)
    assert fresh.returncode == 0, fresh.stderr
    assert games_of(there / "out" / "one-vs-two") == games_of(folder)
    (there / "sub").mkdir()
    moved = there / "sub" / "moved.toml"
    moved.write_text(written.read_text().replace('out = "."', 'out = "../elsewhere"'))
    into = run_arena("run", moved, "-q", cwd=here)
    assert into.returncode == 0, into.stderr
    assert games_of(there / "elsewhere") == games_of(folder)
    assert stored_fingerprint(there / "elsewhere") == stored_fingerprint(folder)

    # `out` is not a setting of the folder: the moved copy resumes the first folder with --out,
    # which still wins over the file's `out`.
    over = run_arena("run", moved, "--out", folder, "-q", cwd=there)
    assert over.returncode == 0, over.stderr
    assert len(games_of(folder)) == 4 and "changed" not in over.stderr


def build(tmp_path: Path, **fields) -> tuple:
    """The tournament the flags give (nothing played), with its folder."""
    flags = RunFlags(**{"game": "hex", "options": ("size=5",), **fields})
    return flag_tournament(flags, tmp_path, None)


def reloaded(t) -> dict:
    """The settings of the tournament file the run would write, read back as a file."""
    from arena.tournament.commandline import tournament_text

    path = t.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(tournament_text(t, "arena run ..."))
    return tournament_settings(load_tournament(path))


def test_every_flag_lands_on_the_file_key_it_means_and_the_file_reads_back_the_same(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("a1 b2 c3\nb1 c2 d3\n")
    t, out = build(
        tmp_path,
        engines=[
            ["name=new", f"cmd={RANDOM}", "option.depth=3", "tc=1:30+1.5", "memory_mb=512"],
            [
                "name=old",
                f"cmd={GTP}",
                "args=--seed 3",
                "proto=gtp",
                "init=param_game allow_swap 1",
                "st=2",
                "verify_score=true",
            ],
        ],
        each=["tc=10+0.1", "timemargin=50", "env.OMP_NUM_THREADS=1"],
        rounds=30,
        workers=2,
        seed=9,
        sprt=["elo0=0", "elo1=5", "alpha=0.1", "beta=0.05", "model=logistic"],
        openings=["file=book.txt", "order=random", "plies=2", "random_plies=1"],
        out=tmp_path / "out" / "new-vs-old",
    )
    assert out == tmp_path / "out" / "new-vs-old" and t.name == "new-vs-old"
    data = t.data
    assert (data.rounds, data.workers, data.seed) == (30, 2, 9)
    assert data.time_control.base_ms == 10_000 and data.time_control.inc_ms == 100 and data.time_control.margin_ms == 50
    new, old = data.engines
    assert new.time_control is not None and (new.time_control.base_ms, new.time_control.inc_ms) == (90_000, 1500)
    assert new.time_control.margin_ms == 50  # --each's items come first, the engine's own on top
    assert old.time_control is not None and old.time_control.movetime_ms == 2000
    assert (old.time_control.base_ms, old.time_control.margin_ms) == (10_000, 50)  # --each's clock, and st=
    assert new.options == {"depth": 3} and new.memory_mb == 512 and new.env == {"OMP_NUM_THREADS": "1"}
    assert old.command[-2:] == ["--seed", "3"] and old.protocol == "gtp" and old.init == ["param_game allow_swap 1"]
    assert old.verify_score is True and new.verify_score is False
    assert new.cwd == str(tmp_path)  # the folder the command ran in, written absolute
    assert data.sprt is not None and (data.sprt.alpha, data.sprt.model) == (0.1, "logistic")
    assert [len(o) for o in t.openings] == [2, 2]  # plies=2: fastchess's cut of each book line
    assert data.openings_entry.random_plies == 1 and data.openings_entry.file == str(book)
    assert reloaded(t) == tournament_settings(t)
    assert fingerprint(reloaded(t)) == fingerprint(tournament_settings(t))


def test_openings_file_names_a_shipped_suite_by_its_short_name(tmp_path):
    """--openings file=posies2-balanced is the suite, as openings = "posies2-balanced" in a file;
    the written file keeps the short name, and reads back the same."""
    engines = [["name=a", f"cmd={RANDOM}"], ["name=b", f"cmd={RANDOM}"]]
    t, _ = build(tmp_path, game="posies", options=("players=2",), engines=engines, openings=["file=posies2-balanced"])
    assert t.data.openings_entry.file == "posies2-balanced"
    assert len(t.openings) == 16 and all(len(line) == 5 for line in t.openings)  # a board and 4 plies
    assert reloaded(t) == tournament_settings(t)


def test_openings_name_is_a_shipped_suite_as_file_is(tmp_path):
    """--openings name=hex7-1ply is the suite file=hex7-1ply names, and writes the same file."""
    engines = [["name=a", f"cmd={RANDOM}"], ["name=b", f"cmd={RANDOM}"]]
    hex7 = {"options": ("size=7", "swap=false"), "engines": engines}
    by_name, _ = build(tmp_path, openings=["name=hex7-1ply"], **hex7)
    by_file, _ = build(tmp_path, openings=["file=hex7-1ply"], **hex7)
    assert by_name.data.openings_entry.file == "hex7-1ply" and len(by_name.openings) == 49
    assert tournament_settings(by_name) == tournament_settings(by_file)


def test_cutechess_clock_items_moves_per_period_nodes_and_restart(tmp_path):
    """tc=40/60+0.5 is 40 moves in 60 s plus 0.5 s a move, the period repeating; an engine's
    own tc= is a whole clock (no period carried from --each); nodes= a budget; restart=on."""
    t, _ = build(
        tmp_path,
        engines=[["name=a", f"cmd={RANDOM}", "restart=on", "nodes=500"], ["name=b", f"cmd={RANDOM}", "tc=1:30"]],
        each=["tc=40/60+0.5"],
    )
    clock = t.data.time_control
    assert (clock.moves, clock.base_ms, clock.inc_ms, clock.nodes) == (40, 60_000, 500, None)
    a, b = t.data.engines
    assert a.restart == "always" and b.restart == "auto"
    assert a.time_control is not None and (a.time_control.moves, a.time_control.nodes) == (40, 500)
    assert b.time_control is not None and (b.time_control.moves, b.time_control.base_ms) == (None, 90_000)
    assert [s.restart for s in t.engines] == [True, False]
    assert t.time_controls["a"] == TimeControl(None, 60_000, 500, 100, 40, 500)
    assert reloaded(t) == tournament_settings(t)
    (tmp_path / "plain").mkdir()
    plain, _ = build(
        tmp_path / "plain", engines=[["name=a", f"cmd={RANDOM}"], ["name=b", f"cmd={RANDOM}"]], each=["tc=60+0.5"]
    )
    stored = json.dumps(tournament_settings(plain))
    assert '"moves"' not in stored and '"nodes"' not in stored and '"restart"' not in stored  # older folders resume


def test_the_tournament_is_named_after_the_folder_out_names(tmp_path, monkeypatch):
    """--out's last part names the tournament; a part that is not a tournament name (a space,
    over 64 characters) leaves it to the engines' names, and names too long for one to the game."""
    monkeypatch.chdir(tmp_path)
    two = [["name=new", f"cmd={RANDOM}"], ["name=old", f"cmd={RANDOM}"]]
    t, out = build(tmp_path, engines=two, out=tmp_path / "runs" / "nightly")
    assert (t.name, out) == ("nightly", tmp_path / "runs" / "nightly")
    for unfit in ("two words", "x" * 65):
        assert build(tmp_path, engines=two, out=tmp_path / unfit)[0].name == "new-vs-old"
    t, out = build(tmp_path, engines=two)
    assert (t.name, out) == ("new-vs-old", Path("out") / "new-vs-old")
    long = [["name=" + "n" * 40, f"cmd={RANDOM}"], ["name=" + "o" * 40, f"cmd={RANDOM}"]]
    assert build(tmp_path, engines=long, out=tmp_path / "two words")[0].name == "hex-run"


def test_a_relative_command_is_found_in_the_folder_the_command_ran_in(tmp_path, monkeypatch):
    bot = tmp_path / "bot"
    bot.write_text("#!/bin/sh\n")
    bot.chmod(0o755)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the engines' folder is the one given, not the process's
    t, _ = build(tmp_path, engines=[["cmd=./bot --threads 1"], ["cmd=./bot", "name=old"]], out=tmp_path / "o")
    assert [spec.command for spec in t.engines] == [(str(bot), "--threads", "1"), (str(bot),)]
    assert [e.name for e in t.engines] == ["bot", "old"]
    assert reloaded(t) == tournament_settings(t)


def test_a_gauntlet_and_default_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    t, out = build(
        tmp_path,
        engines=[["cmd=" + RANDOM], ["cmd=" + RANDOM, "name=b"], ["cmd=" + RANDOM, "name=c"]],
        gauntlet=["random_engine"],
    )
    assert [e.name for e in t.engines] == ["random_engine", "b", "c"]  # fastchess: the program's name
    assert t.data.format == "gauntlet" and t.data.candidates == ["random_engine"]
    assert out == Path("out") / "hex-3-engines"
    assert reloaded(t) == tournament_settings(t)


def check(result, *parts):
    """Exit 2 and one line naming the flag and the item, no traceback."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: "), result.output
    for part in parts:
        assert part in lines[0], lines[0]


TWO = ["--engine", "name=a", "cmd=true", "--engine", "name=b", "cmd=true"]


@pytest.mark.parametrize(
    "args,parts",
    [
        (["--engine", "name=c", "foo=1"], ["--engine c item 'foo=1'", "unknown key 'foo'", "option.NAME"]),
        (["--engine", "name=c", "cmd=true", "memory_mb=lots"], ["--engine c item 'memory_mb=lots'", "valid integer"]),
        (["--engine", "cmd"], ["--engine item 'cmd'", "KEY=VALUE"]),
        (["--each", "tc=0/60"], ["--each item 'tc=0/60'", "moves per period must be over 0", "tc=40/60"]),
        (["--each", "nodes=-5"], ["--each item 'nodes=-5'", "node budget", "nodes=5000"]),
        (["--each", "tc=fast"], ["--each item 'tc=fast'", "tc=[MOVES/]SECONDS[+INCREMENT]"]),
        (["--each", "st=0"], ["--each item 'st=0'", "over 0"]),
        (["--each", "name=x"], ["--each item 'name=x'", "its own name"]),
        (["--engine", "name=c", "cmd='unclosed"], ["--engine c item", "cannot split"]),
        (["--engine", "name=c", "cmd=true", "proto=uci"], ["--engine c item 'proto=uci'", "'arena' or 'gtp'"]),
        (["--engine", "name=c", "cmd=true", "init=x"], ["--engine c:", "'init' is for protocol"]),
        (["--engine", "name=a", "cmd=true"], ["--engine", "unique; repeated: a"]),
        (["--sprt", "elo0=5", "elo1=0"], ["--sprt", "elo0 must be less than elo1"]),
        (["--sprt", "elo0=x", "elo1=5"], ["--sprt item 'elo0=x'", "valid number"]),
        (["--sprt", "h0=1"], ["--sprt item 'h0=1'", "unknown key 'h0'", "elo0"]),
        (["--openings", "file=missing.txt"], ["--openings", "cannot read the openings file"]),
        (["--openings", "plies=0"], ["--openings item 'plies=0'", "greater than or equal to 1"]),
        (["--openings", "name=hex9-2ply"], ["--openings item 'name=hex9-2ply'", "no opening suite", "file=PATH"]),
        (["--openings", "name=hex9-1ply", "file=b.txt"], ["--openings", "name= or a book's file=, not both"]),
        (["-O", "sizee=3"], ["-O / --game", "unknown option 'sizee'"]),
        (["-O", "size"], ["-O item 'size'", "KEY=VALUE"]),
        (["--rounds", "0"], ["--rounds", "greater than or equal to 1"]),
        (["--seed", str(2**70)], ["key 'seed': a 71-bit number"]),
        (["--engine", "name=c", "cmd=true", "max_failures=99999999999999999999"], ["engines.2.max_failures", "67-bit"]),
        (["--gauntlet", "nobody"], ["candidates: nobody not among the engines"]),
        (["--engine", "conf=nope"], ["--engine #3 (conf=nope)", "needs an engine list", "engines.toml"]),
        # an unknown item's key or name gets the known one it most likely misspells
        (["--engine", "name=c", "nmae=d"], ["--engine c item 'nmae=d'", "(did you mean 'name'?)", "option.NAME"]),
        (["--engine", "name=c", "options.depth=3"], ["unknown key 'options.depth' (did you mean 'option.depth'?)"]),
        (["--each", "tcc=10"], ["--each item 'tcc=10'", "unknown key 'tcc' (did you mean 'tc'?)"]),
        (["--sprt", "elo0=0", "eloo1=5"], ["--sprt item 'eloo1=5'", "(did you mean 'elo1'?)"]),
        (["--openings", "fiel=b.txt"], ["--openings item 'fiel=b.txt'", "(did you mean 'file'?)"]),
        (["-O", "sizee=3"], ["unknown option 'sizee' (did you mean 'size'? allowed: size, swap)"]),
        (
            ["--engine", "name=alpha", "cmd=true", "--gauntlet", "alpah"],
            ["candidates: alpah not among the engines (a, b, alpha); did you mean 'alpha'?"],
        ),
    ],
)
def test_a_bad_item_is_one_line_naming_the_flag_and_the_item(tmp_path, monkeypatch, args, parts):
    monkeypatch.chdir(tmp_path)
    check(CliRunner().invoke(main, ["run", "--game", "hex", *TWO, *args]), *parts)


def test_an_unknown_key_of_a_file_or_an_engine_list_gets_the_key_it_misspells(tmp_path):
    path = tournament(
        tmp_path,
        '[[engines]]\nuse = "rnd"\ncomand = ["x"]\n',
        '[[engines]]\nuse = "rnd"\nname = "b"\n',
        "[sprt]\nelo = 0\nelo1 = 5\n",
    )
    path.write_text(
        path.read_text().replace("[options]", "rouns = 2\ncolour = 1\n[options]").replace("movetime_ms", "movetme_ms")
    )
    (tmp_path / "engines.toml").write_text(LIST)
    result = CliRunner().invoke(main, ["run", str(path)])
    check(
        result,
        "unknown key 'rouns'; check the spelling (did you mean 'rounds'?)",
        "unknown key 'time_control.movetme_ms'; check the spelling (did you mean 'movetime_ms'?)",
        "unknown key 'engines.0.comand'; check the spelling (did you mean 'command'?)",
        "unknown key 'sprt.elo'; check the spelling (did you mean 'elo0'?)",  # the one missing, not elo1
        "unknown key 'colour'; check the spelling (known keys: name, out, game, options, rounds,",  # nothing close
    )
    (tmp_path / "engines.toml").write_text(LIST.replace("options = { x = 1 }", "handshake = 5"))
    listed = CliRunner().invoke(
        main, ["run", str(tournament(tmp_path, '[[engines]]\nuse = "rnd"\n', '[[engines]]\nuse = "othr"\n'))]
    )
    check(listed, "engines.toml: unknown key 'engines.0.handshake'; check the spelling (did you mean 'handshake_ms'?)")
    (tmp_path / "engines.toml").write_text(LIST)
    named = CliRunner().invoke(
        main, ["run", str(tournament(tmp_path, '[[engines]]\nuse = "rnd"\n', '[[engines]]\nuse = "othr"\n'))]
    )
    check(named, "engines.1: use = 'othr' is not in", "(did you mean 'other'? it lists rnd, other)")


@pytest.mark.parametrize(
    "args,said",
    [
        (["run", "--roundz", "3"], "No such option '--roundz'. Did you mean '--rounds'?"),  # not also '--out'
        (["run", "--game", "hex", "--engin", "cmd=true"], "No such option '--engin'. Did you mean '--engine'?"),
        (["export", "sgf", "--outt", "x", "y"], "No such option '--outt'. Did you mean '--out'?"),
        (["rn"], "No such command 'rn'. Did you mean 'run'?"),
    ],
)
def test_an_unknown_flag_or_command_gets_the_one_it_misspells(args, said):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip().splitlines()[-1] == f"Error: {said}"


def test_flags_without_a_game_or_beside_a_file_are_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    check(CliRunner().invoke(main, ["run", *TWO]), "--engine without a tournament file needs --game")
    check(CliRunner().invoke(main, ["run"]), "give a TOURNAMENT_FILE, or the tournament as flags")
    check(CliRunner().invoke(main, ["run", "t.toml", "--rounds", "3"]), "t.toml and --rounds", "not both")
    check(CliRunner().invoke(main, ["run", "--game", "hex", "--engine", "cmd=true"]), "two or more engines")


# -- the engine list -----------------------------------------------------------------------

LIST = """\
[[engines]]
name = "rnd"
command = ["{python}", "-m", "engines.random_engine"]
env = { A = "1" }
options = { x = 1 }

[[engines]]
name = "other"
command = ["{python}", "-m", "engines.random_engine"]
"""


def tournament(folder: Path, *entries: str, name: str = "t") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\ngame = "hex"\n[options]\nsize = 3\n[time_control]\nmovetime_ms = 500\n' + "".join(entries)
    )
    return path


def test_use_takes_the_listed_entry_with_its_own_name_and_overrides(tmp_path):
    (tmp_path / "engines.toml").write_text(LIST)
    path = tournament(
        tmp_path,
        '[[engines]]\nuse = "rnd"\n',
        '[[engines]]\nuse = "rnd"\nname = "rnd2"\nenv = { B = "2" }\noptions = { x = 2 }\nmax_failures = 0\n',
    )
    t = load_tournament(path)
    first, second = t.data.engines
    assert first.name == "rnd" and first.env == {"A": "1"} and first.options == {"x": 1}
    assert second.name == "rnd2" and second.env == {"A": "1", "B": "2"} and second.options == {"x": 2}
    assert second.max_failures == 0 and second.command == first.command
    inline = tournament(tmp_path, *_inline(LIST.split("\n\n")[0], ""), name="inline")
    # the resolved entry is what the folder holds: the same as writing the entry in the file
    assert tournament_settings(load_tournament(inline))["engines"][0] == tournament_settings(t)["engines"][0]


def test_a_partial_time_control_override_keeps_the_listed_clocks_other_keys(tmp_path):
    """An entry's time_control merges into the listed one key by key: overriding the move
    time keeps the listed margin and increment, which the whole table's replacement would
    reset to their defaults (100 ms, 0)."""
    listed = LIST.replace(
        "options = { x = 1 }",
        "options = { x = 1 }\ntime_control = { movetime_ms = 2000, inc_ms = 50, margin_ms = 300 }",
    )
    (tmp_path / "engines.toml").write_text(listed)
    path = tournament(
        tmp_path, '[[engines]]\nuse = "rnd"\ntime_control = { movetime_ms = 250 }\n', '[[engines]]\nuse = "other"\n'
    )
    t = load_tournament(path)
    own = t.data.engines[0].time_control
    assert own is not None and (own.movetime_ms, own.base_ms, own.inc_ms, own.margin_ms) == (250, None, 50, 300)
    assert t.time_controls["rnd"] == TimeControl(250, None, 50, 300) and "other" not in t.time_controls


def _inline(entry: str, extra: str) -> list[str]:
    return [entry + "\n" + extra, '\n[[engines]]\nname = "z"\ncommand = ["{python}", "-m", "engines.random_engine"]\n']


def test_a_list_elsewhere_keeps_its_engines_folders(tmp_path):
    lists = tmp_path / "lists"
    (lists / "bots").mkdir(parents=True)
    (lists / "engines.toml").write_text(LIST.replace('env = { A = "1" }', 'cwd = "bots"'))
    (tmp_path / "tournaments").mkdir()
    path = tournament(tmp_path / "tournaments", '[[engines]]\nuse = "rnd"\n', '[[engines]]\nuse = "other"\n')
    t = load_tournament(path, lists / "engines.toml")
    assert [Path(spec.cwd).resolve() for spec in t.engines] == [(lists / "bots").resolve(), lists.resolve()]
    assert [e.cwd for e in t.data.engines] == ["../lists/bots", "../lists"]  # relative to the tournament file


@pytest.mark.parametrize(
    "entries,list_text,parts",
    [
        (
            ['[[engines]]\nuse = "nope"\n', '[[engines]]\nuse = "rnd"\n'],
            LIST,
            ["engines.0: use = 'nope' is not in", "it lists rnd, other"],
        ),
        (
            ['[[engines]]\nuse = "rnd"\n', '[[engines]]\nuse = "rnd"\n'],
            LIST,
            ["engines.1: 'rnd' from", "used twice under the name 'rnd'", "engines.0 too"],
        ),
        (
            ['[[engines]]\nuse = "rnd"\n', '[[engines]]\nuse = "other"\n'],
            LIST + "junk\n",
            ["engines.toml: not valid TOML"],
        ),
        (
            ['[[engines]]\nuse = "rnd"\n', '[[engines]]\nuse = "other"\n'],
            LIST + "cpu = 5\n",
            ["engines.toml: unknown key 'engines.1.cpu'"],
        ),
        (
            ['[[engines]]\nuse = "rnd"\n', '[[engines]]\nuse = "other"\n'],
            None,
            ["engines.0: use = 'rnd' needs an engine list", "--engines FILE"],
        ),
        (["[[engines]]\nuse = 5\n", '[[engines]]\nuse = "other"\n'], LIST, ["engines.0: use = 5 is not in"]),
    ],
)
def test_a_bad_use_or_list_is_one_line_naming_it(tmp_path, entries, list_text, parts):
    if list_text is not None:
        (tmp_path / "engines.toml").write_text(list_text)
    path = tournament(tmp_path, *entries)
    check(CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "o")]), *parts)


def test_conf_takes_the_listed_entry_on_the_command_line(tmp_path):
    (tmp_path / "engines.toml").write_text(LIST)
    t, _ = build(tmp_path, engines=[["conf=rnd"], ["conf=rnd", "name=again", "option.x=5"]], each=["st=0.5"])
    first, second = t.data.engines
    assert (first.name, first.options, first.cwd) == (
        "rnd",
        {"x": 1},
        str(tmp_path),
    )  # absolute: the file goes anywhere
    assert (second.name, second.options, second.env) == ("again", {"x": 5}, {"A": "1"})
    assert reloaded(t) == tournament_settings(t)  # the written file holds the entries, not the names
    assert "use" not in t.path.read_text()


def test_an_engine_list_named_on_the_command_line(tmp_path):
    lists = tmp_path / "lists"
    (lists / "bots").mkdir(parents=True)
    (lists / "mine.toml").write_text(LIST.replace('env = { A = "1" }', 'cwd = "bots"'))
    t, _ = flag_tournament(
        RunFlags("hex", engines=[["conf=rnd"], ["conf=other"]], out=tmp_path / "o"), tmp_path, Path("lists/mine.toml")
    )
    assert [e.cwd for e in t.data.engines] == [str(lists / "bots"), str(lists)]
    with pytest.raises(ConfigError, match="no such engine list"):
        flag_tournament(RunFlags("hex", engines=[["conf=rnd"], ["conf=other"]]), tmp_path, Path("missing.toml"))


def test_an_edited_list_is_a_changed_setting(tmp_path):
    listed = tmp_path / "engines.toml"
    listed.write_text(LIST)
    path = tournament(tmp_path, '[[engines]]\nuse = "rnd"\n', '[[engines]]\nuse = "other"\n')
    before = fingerprint(tournament_settings(load_tournament(path)))
    listed.write_text(LIST.replace('A = "1"', 'A = "2"'))
    assert fingerprint(tournament_settings(load_tournament(path))) != before
    with pytest.raises(ConfigError, match="used twice"):
        load_tournament(tournament(tmp_path, '[[engines]]\nuse = "rnd"\n', '[[engines]]\nuse = "rnd"\n', name="u"))


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_resume_after_editing_the_list_is_refused(tmp_path):
    listed = tmp_path / "engines.toml"
    listed.write_text(LIST.replace("options = { x = 1 }\n", ""))
    path = tournament(tmp_path, '[[engines]]\nuse = "rnd"\n', '[[engines]]\nuse = "other"\n')
    first = run_arena("run", path, "--out", tmp_path / "o", "--quiet", "--workers", "2", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    listed.write_text(listed.read_text().replace('A = "1"', 'A = "2"'))
    again = run_arena("run", path, "--out", tmp_path / "o", "--quiet", cwd=tmp_path)
    assert again.returncode == 2
    assert 'engines.rnd.env: [["A", "1"]] -> [["A", "2"]]' in again.stderr


def test_a_default_name_is_the_programs_made_a_valid_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    odd = tmp_path / "Weird Engine!v2.sh"
    odd.write_text("#!/bin/sh\n")
    odd.chmod(0o755)
    long = tmp_path / ("x" * 70)
    long.write_text("#!/bin/sh\n")
    long.chmod(0o755)
    engines = [["cmd=" + shlex.quote(str(odd))], [f"cmd={long}"], ["cmd={python} -m engines.search.engine"]]
    engines.append(["cmd={python} -m engines."])  # a module name that ends in a dot: no name in it
    t, _ = build(tmp_path, engines=engines)
    assert [e.name for e in t.engines] == ["Weird_Engine_v2", "x" * 64, "engine", "engine4"]


@pytest.mark.parametrize("key,hint", [("nmae", " (did you mean 'name'?)"), ("qqqqqq", "")])
def test_an_unknown_item_key_names_the_keys_and_the_one_it_misspells_if_any(tmp_path, key, hint):
    with pytest.raises(FlagError) as err:
        build(tmp_path, engines=[["cmd=true", f"{key}=1"], ["cmd=true"]])
    assert str(err.value) == (
        f"--engine #1 item '{key}=1': unknown key '{key}'{hint}; the keys are name, cmd, args, proto, dir, init, "
        "conf, tc, st, timemargin, nodes, restart, memory_mb, cpu_seconds, handshake_ms, max_failures, verify_score, "
        "sandbox, option.NAME, env.NAME"
    )


@pytest.mark.parametrize("where", ["engine", "each"])
@pytest.mark.parametrize(
    "item,problem",
    [
        ("st=0.0001", "Input should be greater than 0 (got 0)"),
        ("timemargin=-5", "Input should be greater than or equal to 0 (got -5)"),
    ],
)
def test_a_clock_item_the_files_check_refuses_is_named_by_its_flag(tmp_path, where, item, problem):
    engines = [["cmd=true", "name=a", *([item] if where == "engine" else [])], ["cmd=true", "name=b"]]
    with pytest.raises(ConfigError) as err:
        build(tmp_path, engines=engines, each=[item] if where == "each" else [])
    flag = "--engine a" if where == "engine" else "--each"
    assert str(err.value) == f"command line: {flag} item '{item}': {problem}"


@pytest.mark.parametrize(
    "items,message",
    [
        (["elo0=abc", "elo1=5"], "--sprt item 'elo0=abc': Input should be a valid number, unable to parse string as a number (got 'abc')"),
        (["elo0=0", "elo1=5", "model=5"], "--sprt item 'model=5': Input should be 'logistic' or 'normalized' (got '5')"),
    ],
)  # fmt: skip
def test_an_sprt_item_the_files_check_refuses_is_quoted_as_given(tmp_path, items, message):
    with pytest.raises(ConfigError) as err:
        build(tmp_path, engines=[["cmd=true", "name=a"], ["cmd=true", "name=b"]], sprt=items)
    assert str(err.value) == f"command line: {message}"


# -- --adjudicate ----------------------------------------------------------------------------

TWO_NAMED = [["name=a", f"cmd={RANDOM}"], ["name=b", f"cmd={RANDOM}"]]


def test_adjudicate_flags_make_the_files_adjudication_table_and_it_reads_back_the_same(tmp_path):
    """Each --adjudicate is one rule: resign's and draw's items typed as a file types them (an
    integer, a decimal, true), maxplies=N (or max_plies=N) and decided (or hex-decided)."""
    from arena.adjudication import Adjudication, DrawRule, ResignRule

    t, _ = build(
        tmp_path,
        engines=TWO_NAMED,
        adjudicate=[["resign", "movecount=3", "score=600", "twosided=true"], ["maxplies=30"], ["hex-decided"]],
    )
    assert t.raw["adjudication"] == {
        "resign": {"movecount": 3, "score": 600, "twosided": True},
        "max_plies": 30,
        "decided": True,
    }
    assert t.data.adjudication == Adjudication(
        max_plies=30, decided=True, resign=ResignRule(movecount=3, score=600, twosided=True)
    )
    assert reloaded(t) == tournament_settings(t)
    (tmp_path / "go").mkdir()
    hexgo, _ = build(
        tmp_path / "go",
        game="hexgo",
        options=(),
        engines=TWO_NAMED,
        adjudicate=[["draw", "movenumber=4", "movecount=2", "score=10.5"], ["max_plies=200"]],
    )
    assert hexgo.raw["adjudication"] == {"draw": {"movenumber": 4, "movecount": 2, "score": 10.5}, "max_plies": 200}
    assert hexgo.data.adjudication == Adjudication(max_plies=200, draw=DrawRule(movenumber=4, movecount=2, score=10.5))
    assert reloaded(hexgo) == tournament_settings(hexgo)
    (tmp_path / "decided").mkdir()
    decided, _ = build(tmp_path / "decided", engines=TWO_NAMED, adjudicate=[["decided"]])
    assert decided.raw["adjudication"] == {"decided": True}


def test_adjudicate_score_items_are_numbers_only_when_finite(tmp_path):
    """score=1e3 is the number 1000.0; score=inf is text, which the file's check refuses."""
    (tmp_path / "a").mkdir()
    t, _ = build(
        tmp_path / "a", game="hexgo", options=(), engines=TWO_NAMED, adjudicate=[["draw", "movecount=2", "score=1e3"]]
    )
    assert t.raw["adjudication"] == {"draw": {"movecount": 2, "score": 1000.0}}
    with pytest.raises(ConfigError) as err:
        build(tmp_path, game="hexgo", options=(), engines=TWO_NAMED, adjudicate=[["draw", "movecount=2", "score=inf"]])
    assert (
        str(err.value) == "command line: --adjudicate draw item 'score=inf': Input should be a valid number (got 'inf')"
    )


RULES = "resign, draw, decided, hex-decided, maxplies=N (e.g. --adjudicate resign movecount=3 score=600)"


@pytest.mark.parametrize(
    "game,rules,message",
    [
        ("hex", [["resign", "movecount=3", "score=-5"]], "command line: --adjudicate resign item 'score=-5': Input should be greater than 0 (got -5)"),
        ("hex", [["resign", "movecount=3", "score=lots"]], "command line: --adjudicate resign item 'score=lots': Input should be a valid number (got 'lots')"),
        ("hex", [["resign", "movecount=3"]], "command line: --adjudicate resign: Field required"),
        ("hexgo", [["draw", "movecount=0", "score=5"]], "command line: --adjudicate draw item 'movecount=0': Input should be greater than or equal to 1 (got 0)"),
        ("hexgo", [["draw", "movecount=2.0", "score=5"]], "command line: --adjudicate draw item 'movecount=2.0': Input should be a valid integer (got 2.0)"),
        ("hex", [["draw", "movecount=2", "score=5"]], "command line: --adjudicate draw: a hex game cannot be drawn; remove draw"),
        ("hex", [["maxplies=0"]], "command line: --adjudicate item 'maxplies=0': Input should be greater than or equal to 1 (got 0)"),
        ("hex", [["max_plies=x"]], "command line: --adjudicate item 'max_plies=x': Input should be a valid integer (got 'x')"),
    ],
)  # fmt: skip
def test_an_adjudicate_value_the_files_check_refuses_is_named_by_its_rule_and_item(tmp_path, game, rules, message):
    options = ("size=5",) if game == "hex" else ()
    with pytest.raises(ConfigError) as err:
        build(tmp_path, game=game, options=options, engines=TWO_NAMED, adjudicate=rules)
    assert str(err.value) == message


@pytest.mark.parametrize(
    "rules,message",
    [
        ([["surrender"]], f"--adjudicate 'surrender': give one rule an --adjudicate: {RULES}"),
        ([[]], f"--adjudicate '': give one rule an --adjudicate: {RULES}"),
        ([["decided", "x=1"]], f"--adjudicate 'decided x=1': give one rule an --adjudicate: {RULES}"),
        ([["hex-decided", "x=1"]], f"--adjudicate 'hex-decided x=1': give one rule an --adjudicate: {RULES}"),
        ([["maxplies=9", "x=1"]], f"--adjudicate 'maxplies=9 x=1': give one rule an --adjudicate: {RULES}"),
        ([["maxply=9"]], f"--adjudicate 'maxply=9': give one rule an --adjudicate: {RULES}"),
        ([["draw", "moves=3"]], "--adjudicate draw item 'moves=3': unknown key 'moves'; the keys are movenumber, movecount, score"),
        ([["resign", "twosides=true"]], "--adjudicate resign item 'twosides=true': unknown key 'twosides' (did you mean 'twosided'?); the keys are movecount, score, twosided"),
        ([["resign", "score"]], "--adjudicate resign item 'score': write KEY=VALUE on one line, e.g. cmd=./new"),
    ],
)  # fmt: skip
def test_an_adjudicate_flag_that_is_no_rule_is_one_line_naming_it(tmp_path, rules, message):
    with pytest.raises(FlagError) as err:
        build(tmp_path, engines=TWO_NAMED, adjudicate=rules)
    assert str(err.value) == message


def test_a_bad_adjudicate_flag_on_the_command_line_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        main, ["run", "--game", "hex", *TWO, "--adjudicate", "resign", "movecount=3", "score=x"]
    )
    assert result.exit_code == 2 and result.output == (
        "arena: command line: --adjudicate resign item 'score=x': Input should be a valid number (got 'x')\n"
    )


def test_the_tournament_file_is_written_when_the_run_starts_and_a_failed_write_is_one_line(tmp_path):
    from arena.tournament.commandline import TournamentFileWriter

    path = tmp_path / "tournament.toml"
    writer = TournamentFileWriter(path, 'name = "é"\n')
    assert not path.exists()  # nothing before the folder took the settings
    writer.on_start(4, [], None)
    assert path.read_bytes() == 'name = "é"\n'.encode()
    missing = tmp_path / "gone" / "tournament.toml"
    with pytest.raises(ConfigError) as err:
        TournamentFileWriter(missing, "x").on_start(4, [], None)
    assert str(err.value) == f"{missing}: cannot write the tournament file (No such file or directory)"


# -- --format, --tiebreaks, --seeds ----------------------------------------------------------

FOUR = [[f"name={n}", f"cmd={RANDOM}"] for n in "abcd"]


def test_format_tiebreaks_and_seeds_land_on_the_files_keys_with_the_rating_list_made_absolute(tmp_path):
    (tmp_path / "lists").mkdir()
    (tmp_path / "lists" / "ratings.json").write_text(json.dumps({"d": 2100, "b": 2000, "zz": 1990, "a": 1500}))
    t, _ = build(
        tmp_path,
        options=("size=4",),
        engines=FOUR,
        format="knockout",
        tiebreaks=["buchholz,,wins", "sonneborn-berger"],
        seeds=Path("lists/../lists/ratings.json"),
    )
    assert (t.raw["format"], t.raw["tiebreaks"]) == ("knockout", ["buchholz", "wins", "sonneborn-berger"])
    assert t.raw["seeds"] == str(tmp_path.resolve() / "lists" / "ratings.json")
    assert t.data.format == "knockout" and t.data.tiebreaks == ["buchholz", "wins", "sonneborn-berger"]
    assert t.seeded == ("d", "b", "a", "c")  # rated ones by rating, then the flags' order
    assert reloaded(t) == tournament_settings(t)
    plain, _ = build(tmp_path, options=("size=4",), engines=FOUR)
    assert not {"format", "tiebreaks", "seeds"} & set(plain.raw) and plain.seeded == ("a", "b", "c", "d")


def test_format_gauntlet_beside_gauntlet_is_the_same_gauntlet_and_another_format_is_refused(tmp_path):
    t, _ = build(tmp_path, options=("size=4",), engines=FOUR, format="gauntlet", gauntlet=["a,,b"])
    assert (t.raw["format"], t.raw["candidates"]) == ("gauntlet", ["a", "b"])
    with pytest.raises(FlagError) as err:
        build(tmp_path, options=("size=4",), engines=FOUR, format="round-robin", gauntlet=["a"])
    assert str(err.value) == "--format round-robin and --gauntlet: a gauntlet is its own format; give one of them"
    t, _ = build(tmp_path, options=("size=4",), engines=FOUR, format="round-robin")
    assert t.raw["format"] == "round-robin" and t.data.format == "round-robin"


@pytest.mark.parametrize(
    "fields,message",
    [
        ({"format": "knockoutt"}, "command line: --format: Input should be 'round-robin', 'gauntlet', 'knockout' or 'swiss' (got 'knockoutt')"),
        ({"format": "swiss", "tiebreaks": ["nope"]}, "command line: --tiebreaks: Input should be 'buchholz', 'buchholz-cut1', 'sonneborn-berger', 'direct-encounter' or 'wins' (got 'nope')"),
        ({"format": "knockout", "seeds": Path("missing.json")}, "command line: --seeds: no such rating list {tmp}/missing.json"),
    ],
)  # fmt: skip
def test_a_bad_format_tiebreak_or_rating_list_is_named_by_its_flag(tmp_path, fields, message):
    with pytest.raises(ConfigError) as err:
        build(tmp_path, options=("size=4",), engines=FOUR, **fields)
    assert str(err.value) == message.format(tmp=tmp_path.resolve())


@pytest.fixture
def ascii_locale():
    """A process whose locale encoding is ASCII (LANG=C on an old system): files arena reads and
    writes are UTF-8 whatever the locale says."""
    with ascii_encoding():
        yield


def test_a_rating_list_naming_players_in_other_scripts_seeds_the_event_under_any_locale(tmp_path, ascii_locale):
    ratings = {"d": 2100, "Zoë": 2050, "b": 2000, "a": 1500}
    (tmp_path / "ratings.json").write_text(json.dumps(ratings, ensure_ascii=False), encoding="utf-8")
    t, _ = build(tmp_path, options=("size=4",), engines=FOUR, format="knockout", seeds=Path("ratings.json"))
    assert t.seeded == ("d", "b", "a", "c")


def test_the_tournament_file_is_written_as_utf8_under_any_locale(tmp_path, ascii_locale):
    from arena.tournament.commandline import TournamentFileWriter

    path = tmp_path / "tournament.toml"
    TournamentFileWriter(path, "# arena run --engine cmd=./é\n").on_start(4, [], None)
    assert path.read_bytes() == "# arena run --engine cmd=./é\n".encode()


def test_the_flags_tournament_is_the_file_tournament_toml_in_its_folder(tmp_path):
    t, out = build(tmp_path, engines=TWO_NAMED, out=tmp_path / "runs" / "x")
    assert (t.path, t.folder) == (tmp_path / "runs" / "x" / "tournament.toml", tmp_path / "runs" / "x")


def test_listed_engines_without_names_name_the_tournament_by_their_listed_names(tmp_path):
    (tmp_path / "engines.toml").write_text(LIST)
    t, out = build(tmp_path, engines=[["conf=rnd"], ["conf=other"]])
    assert (t.name, out) == ("rnd-vs-other", Path("out") / "rnd-vs-other")


def test_an_out_folder_name_of_exactly_64_characters_names_the_tournament(tmp_path):
    t, _ = build(tmp_path, engines=TWO_NAMED, out=tmp_path / ("x" * 64))
    assert t.name == "x" * 64


def test_each_gives_every_engine_its_arguments_folder_and_restart(tmp_path):
    (tmp_path / "bots").mkdir()
    t, _ = build(tmp_path, engines=TWO_NAMED, each=["args=--seed 3", "dir=bots", "restart=always"])
    assert [(e.command[-2:], e.cwd, e.restart) for e in t.data.engines] == [
        (["--seed", "3"], str(tmp_path / "bots"), "always")
    ] * 2


def test_an_engines_own_items_dir_restart_and_limits_are_typed_as_a_file_types_them(tmp_path):
    (tmp_path / "bots").mkdir()
    t, _ = build(
        tmp_path,
        engines=[
            [
                "name=a",
                f"cmd={RANDOM}",
                "dir=bots",
                "restart=off",
                "cpu_seconds=5",
                "handshake_ms=2000",
                "sandbox=false",
            ],
            ["name=b", f"cmd={RANDOM}", "restart=auto"],
        ],
    )
    a, b = t.data.engines
    assert (a.cwd, a.restart, a.cpu_seconds, a.handshake_ms, a.sandbox) == (
        str(tmp_path / "bots"),
        "auto",
        5,
        2000,
        False,
    )
    assert (b.cwd, b.restart) == (str(tmp_path), "auto")


def test_an_empty_name_item_leaves_the_engine_its_programs_name(tmp_path):
    bot = tmp_path / "bot"
    bot.write_text("#!/bin/sh\n")
    bot.chmod(0o755)
    t, _ = build(tmp_path, engines=[["name=", "cmd=./bot"], ["name=b", "cmd=./bot"]])
    assert [e.name for e in t.data.engines] == ["bot", "b"]


@pytest.mark.parametrize(
    "fields,message",
    [
        ({"each": ["cmd='x"]}, "--each item \"cmd='x\": cannot split the command (No closing quotation)"),
        ({"engines": [["name=a", "dir=x"], ["name=b", "cmd=true"]]}, "--engine a: give cmd=COMMAND (or conf=NAME, an entry of the engine list)"),
        ({"engines": [["conf=rnd", "args=x"], ["name=b", "cmd=true"]]}, "--engine #1 (conf=rnd): args= adds to cmd=; give cmd= too"),
        ({"engines": [["name=a", "cmd="], ["name=b", "cmd=true"]]}, "--engine a item 'cmd=': an empty command"),
        ({"engines": [["name=a", "cmd=true", "nodes=0"], ["name=b", "cmd=true"]]}, "--engine a item 'nodes=0': nodes is a node budget a move, a whole number over 0 (nodes=5000)"),
        ({"engines": [["name=a", "cmd=true", "nodes=²"], ["name=b", "cmd=true"]]}, "--engine a item 'nodes=²': nodes is a node budget a move, a whole number over 0 (nodes=5000)"),
        ({"engines": [["name=a", "cmd=true", "tc=0+1"], ["name=b", "cmd=true"]]}, "--engine a item 'tc=0+1': the clock's base must be over 0 seconds"),
        ({"engines": [["name=a", "cmd=true", "st=inf"], ["name=b", "cmd=true"]]}, "--engine a item 'st=inf': st is the seconds a move, a number over 0 (st=0.5)"),
        ({"engines": [["name=a", "cmd=true", "st=nan"], ["name=b", "cmd=true"]]}, "--engine a item 'st=nan': st is the seconds a move, a number over 0 (st=0.5)"),
        ({"openings": ["name=hex9-1ply", "file=x"]}, "--openings: give a shipped suite's name= or a book's file=, not both"),
        ({"openings": ["name=nope"]}, "--openings item 'name=nope': no opening suite of that name ships with arena (`arena openings list` names them; a book of your own is file=PATH)"),
    ],
)  # fmt: skip
def test_a_flag_item_refused_before_the_files_check_is_one_whole_line(tmp_path, fields, message):
    (tmp_path / "engines.toml").write_text(LIST)
    with pytest.raises(FlagError) as err:
        build(tmp_path, **{"engines": TWO_NAMED, **fields})
    assert str(err.value) == message


@pytest.mark.parametrize(
    "fields,message",
    [
        ({"each": ["memory_mb=lots"]}, "--each item 'memory_mb=lots': Input should be a valid integer (got 'lots'); --each item 'memory_mb=lots': Input should be a valid integer (got 'lots')"),
        ({"openings": ["order=5"]}, "--openings item 'order=5': Input should be 'sequential' or 'random' (got '5')"),
        ({"openings": ["file=missing.txt"]}, "--openings: cannot read the openings file '{tmp}/missing.txt' (No such file or directory); the path is relative to the tournament file"),
    ],
)  # fmt: skip
def test_a_flag_item_the_files_check_refuses_is_one_whole_line_naming_it(tmp_path, fields, message):
    with pytest.raises(ConfigError) as err:
        build(tmp_path, **{"engines": TWO_NAMED, **fields})
    assert str(err.value) == "command line: " + message.format(tmp=tmp_path)


def test_the_smallest_clocks_and_budgets_the_items_take(tmp_path):
    """nodes=1, one move per period (tc=1/60) and a base of a millisecond are all over 0."""
    t, _ = build(
        tmp_path,
        engines=[["name=a", f"cmd={RANDOM}", "nodes=1"], ["name=b", f"cmd={RANDOM}", "tc=1/0.001"]],
        each=["tc=10"],
    )
    a, b = t.data.engines
    assert a.time_control is not None and (a.time_control.nodes, a.time_control.base_ms) == (1, 10_000)
    assert b.time_control is not None and (b.time_control.moves, b.time_control.base_ms) == (1, 1)


def test_the_written_tournament_file_starts_with_what_it_is_and_the_command_line(tmp_path):
    from arena.tournament.commandline import tournament_text

    t, _ = build(tmp_path, engines=TWO_NAMED)
    head = tournament_text(t, "arena run --game hex ...").split("\n\n")[0]
    assert head.splitlines() == [
        "# Written by arena run from this command line; 'arena run FILE' plays the same games",
        "# (the same settings: 'out' names this folder, so it resumes it from any working directory;",
        "# a copy elsewhere, its 'out' removed or changed, plays them into a new folder).",
        "# arena run --game hex ...",
    ]


@pytest.mark.parametrize(
    "entries,message",
    [
        (['[[engines]]\nuse = "zzzz"\n', '[[engines]]\nuse = "rnd"\n'], "engines.0: use = 'zzzz' is not in {list} (it lists rnd, other)"),
        (['[[engines]]\nuse = "' + "r" * 100 + '"\n', '[[engines]]\nuse = "rnd"\n'], "engines.0: use = '" + "r" * 79 + "…' is not in {list} (it lists rnd, other)"),
        (['[[engines]]\nuse = "rnd"\noptions = 5\n', '[[engines]]\nuse = "other"\n'], "key 'engines.0.options': Input should be a valid dictionary (got 5)"),
        (['[[engines]]\nuse = "other"\noptions = 5\n', '[[engines]]\nuse = "rnd"\n'], "key 'engines.0.options': Input should be a valid dictionary (got 5)"),
    ],
)  # fmt: skip
def test_a_use_the_list_cannot_give_or_an_override_of_the_wrong_kind_is_one_whole_line(tmp_path, entries, message):
    (tmp_path / "engines.toml").write_text(LIST)
    path = tournament(tmp_path, *entries)
    with pytest.raises(ConfigError) as err:
        load_tournament(path)
    assert str(err.value) == f"{path}: " + message.format(list=tmp_path / "engines.toml")


@pytest.mark.parametrize(
    "rule,message",
    [
        (["resign", "movecount=3", "score=1=2"], "--adjudicate resign item 'score=1=2': Input should be a valid number (got '1=2')"),
        (["maxplies=3=4"], "--adjudicate item 'maxplies=3=4': Input should be a valid integer (got '3=4')"),
    ],
)  # fmt: skip
def test_an_adjudicate_value_holding_an_equals_sign_is_all_value(tmp_path, rule, message):
    """An item splits at its first '=': the rest, '=' and all, is the value the file's check reads."""
    with pytest.raises(ConfigError) as err:
        build(tmp_path, engines=TWO_NAMED, adjudicate=[rule])
    assert str(err.value) == f"command line: {message}"


def test_an_empty_engine_list_is_named_as_a_list_not_a_tournament(tmp_path):
    """An engine list needs one entry; a tournament's rule of two engines is not the list's."""
    from arena.tournament.config import load_engine_list

    path = tmp_path / "engines.toml"
    path.write_text("engines = []\n")
    with pytest.raises(ConfigError) as err:
        load_engine_list(path)
    assert (
        str(err.value)
        == f"{path}: an engine list needs at least one engine ([[engines]] blocks); engines.toml has none"
    )


PAIR = (("name=a", "cmd=true"), ("name=b", "cmd=true"))


def refusal(tmp_path: Path, **fields) -> str:
    """The one line a flag tournament that cannot be built is refused with."""
    with pytest.raises((FlagError, ConfigError)) as err:
        build(tmp_path, **{"engines": PAIR, **fields})
    return str(err.value)


def test_idle_engines_and_forfeit_flags_land_on_their_keys_and_a_refusal_names_the_hyphenated_flag(tmp_path):
    t, _ = build(tmp_path, engines=PAIR, idle_engines=7, forfeit_failed_engines=True)
    assert (t.data.idle_engines, t.data.forfeit_failed_engines) == (7, True)
    assert refusal(tmp_path, idle_engines=-1) == (
        "command line: --idle-engines: Input should be greater than or equal to 0 (got -1)"
    )
    assert refusal(tmp_path, forfeit_failed_engines="x") == (
        "command line: --forfeit-failed-engines: Input should be a valid boolean (got 'x')"
    )


def test_a_refused_game_option_fewer_than_two_engines_and_repeated_names_are_whole_lines_naming_the_flag(tmp_path):
    assert refusal(tmp_path, options=("sizee=3",)) == (
        "command line: -O / --game: hex: unknown option 'sizee' (did you mean 'size'? allowed: size, swap)"
    )
    assert refusal(tmp_path, engines=PAIR[:1]) == (
        "--engine: give two or more engines, e.g. --engine cmd=./new --engine cmd=./old"
    )
    assert refusal(tmp_path, engines=(PAIR[0], PAIR[0])) == (
        "command line: --engine: engine names must be unique; repeated: a"
    )


def test_an_sprt_refusal_names_the_flag_or_the_item_whose_value_itself_holds_an_equals_sign(tmp_path):
    assert refusal(tmp_path, sprt=("elo0=5", "elo1=0")) == (
        "command line: --sprt: elo0 must be less than elo1 (H0: Elo = elo0, H1: Elo = elo1)"
    )
    assert refusal(tmp_path, sprt=("elo0=x=y", "elo1=5")) == (
        "command line: --sprt item 'elo0=x=y': Input should be a valid number, "
        "unable to parse string as a number (got 'x=y')"
    )


def test_gauntlet_candidates_given_comma_separated_are_each_a_candidate(tmp_path):
    engines = (*PAIR, ("name=c", "cmd=true"))
    t, _ = build(tmp_path, engines=engines, gauntlet=("a,b",))
    assert (t.data.format, t.data.candidates) == ("gauntlet", ["a", "b"])


def test_the_flags_data_names_its_own_folder_as_out(tmp_path):
    t, _ = build(tmp_path, engines=PAIR)
    assert t.raw["out"] == "."


def test_an_each_item_without_a_value_or_naming_a_conf_is_refused_naming_each(tmp_path):
    assert refusal(tmp_path, each=("tc",)) == "--each item 'tc': write KEY=VALUE on one line, e.g. cmd=./new"
    assert refusal(tmp_path, each=("conf=x",)) == (
        "--each item 'conf=x': every engine has its own conf; give it with --engine"
    )


def test_an_engines_unsplittable_command_or_args_and_a_bad_clock_are_refused_quoting_the_item(tmp_path):
    def one(*items: str) -> str:
        return refusal(tmp_path, engines=(("name=a", *items), PAIR[1]))

    assert one('cmd="x') == "--engine a item 'cmd=\"x': cannot split the command (No closing quotation)"
    assert one("cmd=x", 'args="x') == "--engine a item 'args=\"x': cannot split the command (No closing quotation)"
    assert one("cmd=x", "tc=abc") == (
        "--engine a item 'tc=abc': write tc=[MOVES/]SECONDS[+INCREMENT], e.g. tc=10+0.1, tc=1:30+1 or tc=40/60"
    )


def test_an_engines_dir_is_taken_from_the_folder_arena_ran_in_and_normalised(tmp_path):
    (tmp_path / "d").mkdir()
    t, _ = build(tmp_path, engines=(("name=a", "cmd=true", "dir=sub/../d"), PAIR[1]))
    assert t.data.engines[0].cwd == str(tmp_path / "d")


def test_an_item_value_may_hold_equals_signs_and_the_letter_x(tmp_path):
    t, _ = build(tmp_path, engines=(("name=X", "cmd=true", "env.Q=a=b"), PAIR[1]))
    assert (t.data.engines[0].name, t.data.engines[0].env) == ("X", {"Q": "a=b"})


def test_a_prefixed_key_with_no_name_after_its_dot_is_an_unknown_key(tmp_path):
    assert refusal(tmp_path, engines=(("name=a", "cmd=true", "option.=1"), PAIR[1])) == (
        "--engine a item 'option.=1': unknown key 'option.'; the keys are name, cmd, args, proto, dir, init, conf, "
        "tc, st, timemargin, nodes, restart, memory_mb, cpu_seconds, handshake_ms, max_failures, verify_score, "
        "sandbox, option.NAME, env.NAME"
    )


def test_an_item_across_lines_or_without_a_value_gets_its_flags_own_example(tmp_path):
    assert refusal(tmp_path, engines=(("name=a\nb", "cmd=true"), PAIR[1])) == (
        "--engine item 'name=a\\nb': write KEY=VALUE on one line, e.g. cmd=./new"
    )
    assert refusal(tmp_path, options=("size",)) == "-O item 'size': write KEY=VALUE on one line, e.g. -O size=11"


def test_a_tournament_file_and_its_engine_list_in_utf8_are_read_under_any_locale(tmp_path, ascii_locale):
    """Both files are UTF-8 (TOML's encoding), whatever the locale: a comment or a value
    in another script reads as written."""
    engine = 'command = ["{python}", "-m", "engines.random_engine"]\n'
    (tmp_path / "engines.toml").write_text(
        f'# Zoë\'s engines\n[[engines]]\nname = "rnd"\n{engine}env = {{ PLAYER = "Zoë" }}\n', encoding="utf-8"
    )
    path = tmp_path / "t.toml"
    path.write_text(
        '# Björn against Zoë\nname = "x"\ngame = "hex"\n[[engines]]\nuse = "rnd"\n'
        f'[[engines]]\nname = "b"\n{engine}env = {{ PLAYER = "Björn" }}\n',
        encoding="utf-8",
    )
    t = load_tournament(path)
    assert [(e.name, e.env) for e in t.engines] == [("rnd", (("PLAYER", "Zoë"),)), ("b", (("PLAYER", "Björn"),))]


def test_an_engine_list_named_for_a_file_is_read_even_when_no_entry_uses_it(tmp_path):
    """--engines FILE names a list the user means: a missing one is said at once, not
    ignored because this file's engines happen to be written out in full."""
    engine = 'command = ["{python}", "-m", "engines.random_engine"]\n'
    path = tmp_path / "t.toml"
    path.write_text(f'name = "x"\ngame = "hex"\n[[engines]]\nname = "a"\n{engine}[[engines]]\nname = "b"\n{engine}')
    assert [e.name for e in load_tournament(path).engines] == ["a", "b"]  # no list beside it: none needed
    missing = tmp_path / "lists" / "mine.toml"
    with pytest.raises(ConfigError) as err:
        load_tournament(path, missing)
    assert str(err.value) == f"{missing}: no such engine list"


def test_too_few_engines_for_the_games_seats_on_the_command_line_says_how_many_there_are(tmp_path):
    assert refusal(tmp_path, game="posies", options=("players=3",)) == (
        "command line: engines: posies with these options needs at least 3 engines, there are 2"
    )


def test_a_game_option_over_64_bits_on_the_command_line_is_refused_naming_the_command_line(tmp_path):
    # 10**20 - 1 needs 67 bits
    assert refusal(tmp_path, options=("size=99999999999999999999",)) == (
        "command line: key 'options.size': a 67-bit number; no key takes one over 64 bits "
        "(at most 18446744073709551615)"
    )
