"""An engine is sent only options it declared, with fitting values, and one that declares
its games ('id games') is not entered for another: both refused before the first game."""

from __future__ import annotations

import re
import sys

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.helpers import ROOT, engine_toml, run_arena, write_tournament

PY = sys.executable
DECLARING = """\
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "arena":
        print("id name declaring\\nid games hex,groups\\n"
              "option name depth type int default 3 min 1 max 9\\noption name book type bool default false\\n"
              "arenaok 1", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        print("resign", flush=True)
    elif word == "quit":
        break
"""


def tournament(tmp_path, options: str, game: str = "hex", game_options: str = "size = 4"):
    script = tmp_path / "declaring.py"
    script.write_text(DECLARING)
    engines = engine_toml("declaring", "{python}", str(script), extra=options) + engine_toml(
        "random", "{python}", "-m", "engines.random_engine", extra=f'cwd = "{ROOT}"'
    )
    return write_tournament(tmp_path, engines, game=game, options=game_options)


def arena(*args: object, process: bool) -> tuple[int, str, str]:
    """`arena ARGS`' exit status, output and errors: in a process of its own, or in this one
    through click's runner where the refusal, not the process, is what a case checks (the
    engines are real processes either way; each command keeps a case in its own process)."""
    if process:
        done = run_arena(*args)
        return done.returncode, done.stdout, done.stderr
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.slow
def test_declared_options_with_fitting_values_are_accepted(tmp_path):
    result = run_arena("run", tournament(tmp_path, "options = { depth = 9, book = true }"), "--out", tmp_path / "o")
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
def test_undeclared_or_unfitting_options_are_refused_before_the_first_game(tmp_path):
    cases = [
        (
            "options = { dpeth = 3 }",
            "engine 'declaring': option 'dpeth' is not one the engine declared "
            "(it declares depth (int 1..9, default 3), book (bool, default false))",
        ),
        ("options = { depth = 10 }", "option 'depth' = '10': out of its range 1..9; the engine declares depth"),
        ('options = { depth = "deep" }', "option 'depth' = 'deep': an int takes ASCII digits"),
        ('options = { book = "yes" }', "option 'book' = 'yes': a bool takes true or false"),
    ]
    for k, (options, message) in enumerate(cases):
        out = tmp_path / re.sub(r"\W", "", options)
        code, _, stderr = arena("run", tournament(tmp_path, options), "--out", out, process=k == 0)
        assert code == 2 and message in stderr, (options, stderr)
        assert not (out / "games.jsonl").exists() or not (out / "games.jsonl").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["options = { depth = 3 }", "max_failures = 1", ""])
def test_an_engine_that_declares_its_games_is_refused_for_another(tmp_path, entry):
    """With options or without, it is started once before the first game and the run is
    refused: no game is lost to it, and the folder holds nothing to mix up."""
    out = tmp_path / "o"
    tournament_file = tournament(tmp_path, entry, game="bases", game_options="")
    code, stdout, stderr = arena("run", tournament_file, "--out", out, process=entry == "")
    assert code == 2, stdout
    assert re.search(
        r"t\.toml: engine 'declaring': declares that it plays hex, groups \('id games'\), not bases\. "
        r"Fix the engine's entry \(or the engine\)\.",
        stderr,
    ), stderr
    assert "Traceback" not in stderr
    assert not (out / "games.jsonl").exists() or not (out / "games.jsonl").read_text()


@pytest.mark.slow
def test_a_refused_entry_once_fixed_runs_in_the_same_folder(tmp_path):
    """The refusal says to fix the entry: the folder it left holds no games, so the fixed
    file's settings take it over instead of being refused as a change."""
    out = tmp_path / "o"
    refused = run_arena("run", tournament(tmp_path, "options = { dpeth = 3 }"), "--out", out)
    assert refused.returncode == 2 and "option 'dpeth'" in refused.stderr
    fixed = run_arena("run", tournament(tmp_path, "options = { depth = 3 }"), "--out", out, "-q")
    assert fixed.returncode == 0, fixed.stderr
    assert len((out / "games.jsonl").read_text().splitlines()) == 2


@pytest.mark.slow
def test_a_cluster_refuses_an_engine_that_declares_another_game_before_any_game(tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "o"
    result = run_arena(
        "run",
        tournament(tmp_path, "", game="bases", game_options=""),
        "--out",
        out,
        "--cluster",
        "local:1",
        timeout=120,
    )
    assert result.returncode == 2, result.stdout
    assert (
        "engine 'declaring': refused: it declares that it plays hex, groups ('id games'), not bases. "
        "Fix the engine's entry (or the engine)."
    ) in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not (out / "games.jsonl").exists() or not (out / "games.jsonl").read_text()


def test_play_refuses_an_engine_that_declares_another_game(tmp_path):
    script = tmp_path / "declaring.py"
    script.write_text(DECLARING)
    result = run_arena("play", "-g", "bases", f"{PY} {script}", f"{PY} -m engines.random_engine")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert (
        "engine 0 (" in result.stderr and "declares that it plays hex, groups ('id games'), not bases" in result.stderr
    )


@pytest.mark.slow
def test_play_refuses_an_undeclared_engine_option(tmp_path):
    script = tmp_path / "declaring.py"
    script.write_text(DECLARING)
    result = run_arena(
        "play", "-g", "hex", "-O", "size=4", "-E", "0:ponder=true", f"{PY} {script}", f"{PY} -m engines.random_engine"
    )
    assert result.returncode == 2
    assert "option 'ponder' is not one the engine declared (it declares depth" in result.stderr


@pytest.mark.slow
def test_no_increment_key_without_an_increment(tmp_path):
    seen = tmp_path / "seen.txt"
    spy = f"{PY} {ROOT / 'tests' / 'engines' / 'spy_engine.py'} {seen}"
    result = run_arena("play", "-g", "hex", "-O", "size=4", "--base", "5000", spy, f"{PY} -m engines.random_engine")
    assert result.returncode == 0, result.stderr
    gos = [line for line in seen.read_text().splitlines() if line.startswith("go ")]
    assert gos and all(re.fullmatch(r"go time \d+,\d+", g) for g in gos), gos[:3]


@pytest.mark.slow
@pytest.mark.parametrize(
    "declaration,problem",
    [
        ("option name d type int default \u00b9 min 0 max 5", "not a number in ASCII digits"),
        ("option name d type bool default maybe", "a bool's default is true or false"),
        ("option name d type int default 1\\noption name d type string default x", "declared twice"),
    ],
)
def test_a_malformed_option_declaration_is_a_fault_of_the_engine(tmp_path, declaration, problem):
    script = tmp_path / "decl.py"
    script.write_text(DECLARING.replace("option name depth type int default 3 min 1 max 9", declaration))
    engines = (f"{PY} {script}", f"{PY} -m engines.random_engine")
    code, _, stderr = arena("play", "-g", "hex", "-O", "size=4", *engines, process=problem == "declared twice")
    assert code == 2 and "Traceback" not in stderr
    assert "option 'd'" in stderr and problem in stderr, stderr
