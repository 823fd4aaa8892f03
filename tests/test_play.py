"""`arena play` through the real CLI: seeds, clocks, seat rotation, records, GTP seats."""

from __future__ import annotations

import json
import re
import sys

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.helpers import ROOT, run_arena

PY = sys.executable
RANDOM = f"{PY} -m engines.random_engine"
SPY = f"{PY} {ROOT / 'tests' / 'engines' / 'spy_engine.py'}"
GTP = f"{PY} {ROOT / 'tests' / 'engines' / 'gtp_hex_engine.py'}"


def seed_of(stdout: str) -> int:
    return int(re.search(r"^seed: (\d+) \(replay with --seed \1\)$", stdout, re.M).group(1))


@pytest.mark.slow
def test_a_fresh_seed_by_default_printed_recorded_and_replayable(tmp_path):
    record = tmp_path / "games.jsonl"
    first = run_arena("play", "-g", "hex", "-O", "size=4", "--record", record, RANDOM, RANDOM)
    second = run_arena("play", "-g", "hex", "-O", "size=4", "--record", record, RANDOM, RANDOM)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    seeds = [seed_of(first.stdout), seed_of(second.stdout)]
    assert seeds[0] != seeds[1]
    records = [json.loads(line) for line in record.read_text().splitlines()]  # --record appends
    assert [r["seed"] for r in records] == seeds
    again = run_arena("play", "-g", "hex", "-O", "size=4", "--seed", seeds[0], RANDOM, RANDOM)
    assert json.loads(again.stdout.splitlines()[-1])["moves"] == records[0]["moves"]


@pytest.mark.slow
def test_games_rotate_the_seats_and_clock_and_names_reach_the_engines(tmp_path):
    record, seen = tmp_path / "games.jsonl", tmp_path / "seen.txt"
    proc = run_arena(
        "play",
        "-g",
        "hex",
        "-O",
        "size=4",
        "--games",
        "3",
        "--base",
        "5000",
        "--inc",
        "100",
        "--name",
        "spy",
        "--name",
        "rnd",
        "--record",
        record,
        f"{SPY} {seen}",
        RANDOM,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in record.read_text().splitlines()]
    assert [r["players"] for r in records] == [["spy", "rnd"], ["rnd", "spy"], ["spy", "rnd"]]
    assert records[0]["seed"] == records[1]["seed"] != records[2]["seed"]  # one setup per round
    gos = [line for line in seen.read_text().splitlines() if line.startswith("go ")]
    assert gos and all(re.fullmatch(r"go time \d+,\d+ inc 100,100", g) for g in gos), gos[:3]
    assert "points: spy " in proc.stdout and "3 game(s) appended" in proc.stdout


@pytest.mark.slow
def test_a_gtp_seat_with_init_commands(tmp_path):
    record = tmp_path / "g.jsonl"
    proc = run_arena(
        "play",
        "-g",
        "hex",
        "-O",
        "size=5",
        "-p",
        "arena",
        "-p",
        "gtp",
        "--seed",
        "4",
        "--init",
        "1:param_game allow_swap 1",
        "--record",
        record,
        RANDOM,
        f"{GTP} --swap",
    )
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(record.read_text())
    assert rec["players"] == ["random", "gtp-hex-test"] and rec["moves"][1] == "swap"
    assert rec["termination"] == "normal"


@pytest.mark.slow
def test_bad_seat_flags_are_refused_clearly():
    cases = [
        (["-p", "gtp", "-p", "gtp", "-p", "gtp"], "--protocol: give it once per seat"),
        (["--name", "x"], "--name: give it once per seat"),
        (["-E", "depth=3"], "start with the seat number"),
        (["-E", "0:depth"], "write SEAT:NAME=VALUE"),
        (["-p", "gtp", "-E", "0:depth=3"], "seat 0 speaks GTP"),
        (["--init", "1:quit"], "seat 1 speaks protocol v1"),
    ]
    for flags, message in cases:
        proc = run_arena("play", "-g", "hex", *flags, RANDOM, RANDOM)
        assert proc.returncode == 2 and message in proc.stderr, (flags, proc.stderr)
    proc = run_arena("play", "-g", "groups", "-p", "gtp", RANDOM, RANDOM)
    assert proc.returncode == 2 and "hex only" in proc.stderr


@pytest.mark.parametrize(
    "option,message", [("size=5.0", "option 'size'"), ("swap=1", "option 'swap'"), ("size=five", "option 'size'")]
)
def test_play_types_game_options_as_a_tournament_file_does(option, message):
    result = run_arena("play", "-g", "hex", "-O", option, RANDOM, RANDOM)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "name,shown,problem",
    [
        ("a b", "'a b'", "use letters, digits and _ . + - only"),
        ("x\u202ey", "'x\\u202ey'", "use letters, digits and _ . + - only"),
        ("", "''", "use letters, digits and _ . + - only"),
        ("n" * 65, "'" + "n" * 65 + "'", "are at most 64 characters"),
    ],
)
def test_play_names_follow_the_tournament_files_rule(name, shown, problem):
    # Refused before any engine starts: one line naming the name, exit 2, no traceback.
    result = CliRunner().invoke(main, ["play", "-g", "hex", "--name", name, "--name", "+A1", "false", "false"])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr == f"arena: --name {shown}: engine names {problem}\n"
