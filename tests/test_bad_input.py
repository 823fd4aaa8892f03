"""Bad input: one paragraph naming the place and the fix, exit code 2, no traceback."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

ONE = "[[engines]]\nname = 'a'\ncommand = ['true']\n"
TWO = ONE + "[[engines]]\nname = 'b'\ncommand = ['true']\n"


def check(result, *parts):
    """Exit 2 and one line 'arena: ...' last (verify may print verdicts for good lines first)."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    message = result.output.strip().splitlines()[-1]
    assert message.startswith("arena: ") and result.output.count("arena: ") == 1
    for part in parts:
        assert part in message, message


@pytest.mark.parametrize(
    "text,parts",
    [
        ("name = 'x\ngame = 'hex'\n", ["not valid TOML", "line 1", "Fix the syntax"]),
        ("name = 'x'\ngame = 'hex'\nround = 2\n" + TWO, ["unknown key 'round'", "check the spelling"]),
        ("name = 'x'\ngame = 'hex'\n" + TWO + "memory = 5\n", ["unknown key 'engines.1.memory'"]),
        ("name = 'x'\ngame = 'hex'\n[time_control]\nmovetime = 5\n" + TWO, ["unknown key 'time_control.movetime'"]),
        ("name = 'x'\ngame = 'hex'\nrounds = 'many'\n" + TWO, ["key 'rounds'", "valid integer", "'many'"]),
        (
            "name = 'x'\ngame = 'hex'\n" + TWO.replace("['true']\n[[", "'true'\n[["),
            ["key 'engines.0.command'", "valid list"],
        ),
        (
            "name = 'x'\ngame = 'hex'\n" + TWO + "max_failures = -1\n",
            ["key 'engines.1.max_failures'", "greater than or equal to 0"],
        ),
        (
            "name = 'x'\ngame = 'hex'\n[time_control]\nmargin_ms = 5\n" + TWO,
            ["time_control", "set movetime_ms and/or base_ms"],
        ),
        ("game = 'hex'\n" + TWO, ["missing key 'name'", "add it"]),
        ("name = 'x'\nout = ''\ngame = 'hex'\n" + TWO, ["key 'out'", "at least 1 character"]),
        ("name = 'x'\nout = \"a\\nb\"\ngame = 'hex'\n" + TWO, ["key 'out'", "a folder's path on one line"]),
        (
            "name = 'x'\ngame = 'hex'\n" + ONE,
            ["a tournament needs at least two engines ([[engines]] blocks); t.toml has one"],
        ),
        ("name = 'x'\ngame = 'hex'\nengines = []\n", ["a tournament needs at least two engines", "t.toml has none"]),
        ("name = 'x'\ngame = 'chess'\n" + TWO, ["unknown game 'chess'", "known: bases, groups, hex"]),
        (
            "name = 'x'\ngame = 'hex'\n[options]\ncolour = 'red'\n" + TWO,
            ["unknown option 'colour'", "allowed: size, swap"],
        ),
        ("name = 'x'\ngame = 'hex'\n[options]\nsize = 'big'\n" + TWO, ["size"]),
        ("name = '..'\ngame = 'hex'\n" + TWO, ["key 'name'", "not starting with '.'"]),
        ("name = 'a/b'\ngame = 'hex'\n" + TWO, ["key 'name'", "letters, digits"]),
        (
            "name = 'x'\ngame = 'hex'\n" + TWO.replace("['true']\n[[", "['./missing-engine']\n[["),
            ["engine 'a'", "does not exist"],
        ),
        ("name = 'x'\ngame = 'hex'\n" + TWO.replace("['true']\n[[", "['no-such-engine-xyz']\n[["), ["not on PATH"]),
        (
            "name = 'x'\ngame = 'hex'\n" + TWO.replace("['true']\n[[", "['./engine.sh']\n[["),
            ["is not executable", "chmod +x"],
        ),
        (
            "name = 'x'\ngame = 'hex'\n" + TWO.replace("['true']\n[[", "['/tmp']\n[["),
            ["engine 'a'", "'/tmp' is a directory, not a program"],
        ),
        ("name = 'x'\ngame = 'hex'\n" + TWO + "cwd = 'nowhere'\n", ["engine 'b'", "is not a folder"]),
        (
            "name = 'x'\ngame = 'hex'\nopenings = 'nope.txt'\n" + TWO,
            ["cannot read the openings file", "relative to the tournament file"],
        ),
    ],
)
def test_bad_tournament_files(tmp_path, text, parts):
    (tmp_path / "engine.sh").write_text("#!/bin/sh\n")  # not executable
    path = tmp_path / "t.toml"
    path.write_text(text)
    check(CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "o")]), str(path), *parts)


def test_a_tournament_file_that_is_not_text(tmp_path):
    path = tmp_path / "t.toml"
    path.write_bytes(b"name = '\xff'\n")
    check(CliRunner().invoke(main, ["run", str(path)]), str(path), "cannot read the file")


def test_an_output_folder_that_cannot_be_made(tmp_path):
    (tmp_path / "file").write_text("")
    path = tmp_path / "t.toml"
    path.write_text("name = 'x'\ngame = 'hex'\n" + TWO)
    check(
        CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "file" / "sub")]),
        "cannot write the results",
        "choose another with --out",
    )


@pytest.mark.parametrize(
    "data,parts",
    [
        (b"{not json\n", ["line 1: not valid JSON"]),
        (b'{"game": "hex", "moves": []}\n[1, 2]\n', ["line 2: a record must be a JSON object"]),
        (b'\n\n{"moves": []}\n', ['line 3: missing "game"']),
        (b'{"game": "hex", "moves": [1]}\n', ['"moves" must be a list of move strings']),
        (b'{"game": "hex", "moves": [], "options": {"colour": 1}}\n', ["unknown option 'colour'"]),
        (b'{"game": "go", "moves": []}\n', ["unknown game 'go'"]),
        (b'{"game": "hex", "moves": [], "seed": -1}\n', ["'seed'", "greater than or equal to 0"]),
        (b'{"game": "hex", "moves": [], "seed": 1, "setup": "x"}\n', ["'setup' does not match"]),
        (b'{"game": "hex", "moves": []}\n\xff\xfe\n', ["line 2: not UTF-8 text"]),
    ],
)
def test_malformed_records_for_verify(data, parts):
    # each bad record gets its own verdict naming the line; the file goes on
    result = CliRunner().invoke(main, ["verify", "-"], input=data)
    assert result.exit_code == 1 and "Traceback" not in result.output
    bad = [
        v for v in map(json.loads, result.output.splitlines()) if v["error"] and "line" in v["error"].get("reason", "")
    ]
    assert len(bad) == 1 and bad[0]["ok"] is False
    for part in ["<stdin>", *parts]:
        assert part in bad[0]["error"]["reason"], bad[0]


@pytest.mark.slow
def test_arena_writes_only_inside_its_output_folder(tmp_path):
    """Whatever the tournament file says, arena's own files go to out/<name>/ only."""
    zoo = Path(__file__).resolve().parent / "engines" / "zoo_engine.py"
    (tmp_path / "book.txt").write_text("c3\n")
    (tmp_path / "bots").mkdir()
    (tmp_path / "t.toml").write_text(f"""
name = "confined"
game = "hex"
openings = "book.txt"
[options]
size = 5
swap = false
[[engines]]
name = "a"
command = ["{{python}}", "{zoo}", "good"]
cwd = "bots"
[[engines]]
name = "b"
command = ["{{python}}", "{zoo}", "good"]
""")
    before = {p for p in tmp_path.rglob("*")}
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    result = subprocess.run(
        [sys.executable, "-m", "arena", "run", "t.toml", "-q"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    created = {p.relative_to(tmp_path) for p in tmp_path.rglob("*")} - {p.relative_to(tmp_path) for p in before}
    assert created and all(p.parts[:2] == ("out", "confined") or p == Path("out") for p in created)


@pytest.mark.parametrize(
    "body,message",
    [
        ("openings = 5\n" + TWO, "key 'openings': Input should be a valid string (got 5); key 'openings': Input should be a valid dictionary or instance of OpeningsEntry (got 5)"),
        ("[openings]\nfiel = 'x'\n" + TWO, "unknown key 'openings.fiel'; check the spelling (did you mean 'file'?)"),
        ("[openings]\nfile = 5\n" + TWO, "key 'openings.file': Input should be a valid string (got 5)"),
        (TWO.replace("['true']\n[[", "[]\n[[", 1), "key 'engines.0.command': List should have at least 1 item after validation, not 0 (got [])"),
        (TWO + "[engines.time_control]\nmovetme_ms = 5\n", "unknown key 'engines.1.time_control.movetme_ms'; check the spelling (did you mean 'movetime_ms'?)"),
        ("[time_control]\nmargin_ms = 5\n" + TWO, "key 'time_control': set movetime_ms and/or base_ms (got {'margin_ms': 5})"),
        ("seed = " + "7" * 5000 + "\n", "cannot read the file: Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits; numbers have at most 4300 digits and arrays nest a few levels"),
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", "cannot read the file: values nested too deep; numbers have at most 4300 digits and arrays nest a few levels"),
    ],
)  # fmt: skip
def test_a_bad_tournament_file_is_one_whole_line_naming_the_key(tmp_path, body, message):
    from arena.tournament.config import ConfigError, load_tournament

    path = tmp_path / "t.toml"
    path.write_text("name = 't'\ngame = 'hex'\n" + body)
    with pytest.raises(ConfigError) as err:
        load_tournament(path)
    assert str(err.value) == f"{path}: {message}"


def test_a_huge_number_in_a_tournament_file_is_refused_naming_the_file_and_the_key(tmp_path):
    """A 0x number of 65 bits is read by TOML but taken by no key (seeds are 64-bit): the one
    line names the file it is in, as every refusal of a file does."""
    path = tmp_path / "t.toml"
    path.write_text("name = 't'\ngame = 'hex'\nseed = 0x1_0000_0000_0000_0000\n" + TWO)
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "o")])
    check(result)
    assert result.output.strip().splitlines()[-1] == (
        f"arena: {path}: key 'seed': a 65-bit number; no key takes one over 64 bits (at most 18446744073709551615)"
    )
