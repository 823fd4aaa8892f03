"""`arena ladder`: each level rated against random, the next level and (Hex) MoHex, through
real engine processes and real tournament folders, with tiny budgets on a tiny board; a
small GTP engine that takes MoHex's settings stands in for MoHex."""

import os
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, run_arena

from arena.cli import main
from arena.results.elo import fit_elo
from arena.results.store import read_folder

FAKE_GTP = ROOT / "tests" / "engines" / "gtp_hex_engine.py"


def fake_mohex(tmp_path: Path) -> Path:
    path = tmp_path / "mohex"
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_GTP}" --seed 4 --mohex-params "$@"\n')
    os.chmod(path, 0o755)
    return path


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_the_hex_ladder_rates_each_level_against_random_the_next_level_and_mohex(tmp_path):
    out = tmp_path / "ladder"
    args = ["ladder", "--game", "hex", "-n", "2", "-O", "size=4", "-o", out, "--mohex", fake_mohex(tmp_path)]
    args += ["--mohex-budget", "7", "--iterations", "easy=3", "--iterations", "medium=6", "--iterations", "hard=12"]
    proc = run_arena(*args)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    expected = [("easy", "random"), ("medium", "random"), ("hard", "random"), ("medium", "easy"), ("hard", "medium")]
    expected += [(level, "mohex-7") for level in ("easy", "medium", "hard")]
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{a}-vs-{b}" for a, b in expected)
    for level, opponent in expected:
        _, records = read_folder(out / f"{level}-vs-{opponent}")
        assert len(records) == 2 and {r.players[0] for r in records} == {level, opponent}  # both seat orders
        assert all(r.options == {"size": 4, "swap": True} for r in records)
        rating = next(r for r in fit_elo(records, anchor=opponent).ratings if r.engine == level)
        wins = sum(r.players[r.winner] == level for r in records)
        figures = re.escape(f"{rating.elo:+.0f}") + r"\s+" + re.escape(f"[{rating.low:+.0f}, {rating.high:+.0f}]")
        row = rf"{level}\s+{opponent}\s+2\s+{wins}-{2 - wins}-0\s+\S+\s+{figures}"
        assert re.search(row, text), (row, text)
    for title in ("Against random", "Against the next level down", "Against MoHex (playouts a move)"):
        assert title in text
    # The move-time table: every level moved, none stopped by the clock at tiny budgets.
    for level in ("easy", "medium", "hard"):
        assert re.search(rf"^{level}\s+[1-9]\d*\s+\d+\s+0$", text, re.M), text
    # The same command again resumes: nothing is played twice.
    again = run_arena(*args)
    assert again.returncode == 0 and all(len(read_folder(out / f"{a}-vs-{b}")[1]) == 2 for a, b in expected)


@pytest.mark.parametrize(
    "args,message",
    [
        (["--game", "chess"], "--game 'chess': the ladders are bases, groups, hex, hexgo, posies"),
        (["--game", "groups", "--mohex", "/bin/true"], "--mohex: MoHex plays Hex only"),
        (["--game", "hex", "--mohex", "/nonexistent/mohex"], "--mohex /nonexistent/mohex: not an executable file"),
        (["--game", "hex", "--iterations", "expert=5"], "--iterations 'expert=5': write LEVEL=N"),
    ],
)
def test_bad_ladder_arguments_are_one_line_errors(args, message, tmp_path):
    # Refused while the arguments are read, before any engine starts: in process, where the
    # output is stdout and stderr together (the ladder's own test runs it as a process).
    result = CliRunner().invoke(main, ["ladder", *args, "-o", str(tmp_path / "out")])
    assert result.exit_code == 2 and result.output.startswith(f"arena: {message}"), result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_each_game_gives_its_ladder_settings_and_a_game_without_them_has_no_ladder(monkeypatch):
    from arena.ladder import ladders
    from arena.rules import GAMES, GAMES_VARIABLE, make_game, register_game

    monkeypatch.setenv(GAMES_VARIABLE, os.environ.get(GAMES_VARIABLE, ""))  # restored afterwards
    register_game("line", "tests.games.line:LineGame")  # a game whose rules give no ladder options
    try:
        known = {name: (ladder.options, ladder.movetime_ms, ladder.mohex) for name, ladder in ladders().items()}
    finally:
        GAMES.pop("line")
    assert known == {
        "hex": ({"size": 9, "swap": True}, 10_000, True),
        "groups": ({"size": 5}, 10_000, False),
        "bases": ({"layout": "standard", "max_plies": 300, "repetition": 3}, 10_000, False),
        "hexgo": ({"size": 5}, 10_000, False),
        "posies": ({"players": 2, "variant": 0}, 10_000, False),
    }
    for name, (options, _, _) in known.items():
        make_game(name, options, strict=True)  # options the game's rules accept as they are
