"""`arena play` through the real CLI: seeds, clocks, seat rotation, records, GTP seats."""

from __future__ import annotations

import json
import os
import re
import shlex
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
    for flags, message in cases:  # refused while the command line is read: in process
        result = CliRunner().invoke(main, ["play", "-g", "hex", *flags, RANDOM, RANDOM])
        assert result.exit_code == 2 and message in result.stderr, (flags, result.stderr)
        assert "Traceback" not in result.stderr
    # One as a real process: the exit code and stderr of `arena play` itself.
    proc = run_arena("play", "-g", "groups", "-p", "gtp", RANDOM, RANDOM)
    assert proc.returncode == 2 and "hex only" in proc.stderr


@pytest.mark.parametrize(
    "option,message", [("size=5.0", "option 'size'"), ("swap=1", "option 'swap'"), ("size=five", "option 'size'")]
)
def test_play_types_game_options_as_a_tournament_file_does(option, message):
    """Refused while the command line is read, so in process (test_bad_seat_flags_are_refused_clearly
    sees a refusal's exit code from a real `arena play` process)."""
    result = CliRunner().invoke(main, ["play", "-g", "hex", "-O", option, RANDOM, RANDOM])
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.stderr


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


@pytest.mark.slow
def test_play_takes_the_engine_items_of_arena_run(tmp_path):
    record, seen = tmp_path / "games.jsonl", tmp_path / "seen.txt"
    proc = run_arena(
        "play", "-g", "hex", "-O", "size=4", "--games", "2", "--seed", "5",
        "--engine", f"cmd={SPY} {seen}", "name=spy",
        "--engine", f"cmd={RANDOM}", "name=rnd",
        "--each", "tc=5+0.1", "--record", record,
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    records = [json.loads(line) for line in record.read_text().splitlines()]
    assert [r["players"] for r in records] == [["spy", "rnd"], ["rnd", "spy"]]
    gos = [line for line in seen.read_text().splitlines() if line.startswith("go ")]
    assert gos and all(re.fullmatch(r"go time \d+,\d+ inc 100,100", g) for g in gos), gos[:3]


@pytest.mark.slow
def test_the_old_flags_still_play_with_one_line_naming_the_new_form_which_plays_the_same_game():
    old = run_arena(
        "play", "-g", "hex", "-O", "size=4", "--seed", "9", "--movetime", "200", "--name", "a", "--name", "b",
        "-p", "arena", RANDOM, RANDOM,
    )  # fmt: skip
    assert old.returncode == 0, old.stderr
    [line] = old.stderr.splitlines()
    said = re.fullmatch(
        r"arena: --movetime, --protocol, --name, engine commands without --engine: now (.*); the old form still works",
        line,
    )
    assert said is not None, line
    assert said[1].endswith(" --each st=0.2") and "name=a" in said[1] and "proto=arena" in said[1]
    new = run_arena("play", "-g", "hex", "-O", "size=4", "--seed", "9", *shlex.split(said[1]))
    assert new.returncode == 0 and new.stderr == "", new.stderr
    played = [json.loads(run.stdout.splitlines()[-1]) for run in (old, new)]
    assert played[0]["players"] == played[1]["players"] == ["a", "b"]
    assert played[0]["moves"] == played[1]["moves"]


# An engine that declares an option, writes each setoption it gets to argv[1] and resigns.
DEPTH_ENGINE = """\
import sys
seen = open(sys.argv[1], "a")
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "arena":
        print("id name depth\\noption name depth type int default 3 min 1 max 9\\narenaok 1", flush=True)
    elif word == "setoption":
        seen.write(line)
        seen.flush()
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        print("resign", flush=True)
    elif word == "quit":
        break
"""


@pytest.mark.slow
@pytest.mark.parametrize("form", ["items", "old flags"])
def test_an_engine_option_reaches_the_engine_in_either_form(tmp_path, form):
    script, seen = tmp_path / "depth.py", tmp_path / "seen.txt"
    script.write_text(DEPTH_ENGINE)
    command = f"{PY} {script} {seen}"
    if form == "items":
        engines = ["--engine", f"cmd={command}", "option.depth=7", "--engine", f"cmd={RANDOM}"]
    else:
        engines = ["-E", "0:depth=7", command, RANDOM]
    result = run_arena("play", "-g", "hex", "-O", "size=4", "--seed", "1", *engines)
    assert result.returncode == 0, result.stderr
    assert seen.read_text() == "setoption depth 7\n"
    assert "depth vs random: random wins (resign: depth (seat 0): resigned)" in result.stdout


def test_a_bad_engine_item_is_refused_by_play_in_run_s_words():
    items = ["--engine", "cmd=false", "depthh=3", "--engine", "cmd=false"]
    play = CliRunner().invoke(main, ["play", "-g", "hex", *items])
    run = CliRunner().invoke(main, ["run", "--game", "hex", *items])
    assert play.exit_code == run.exit_code == 2
    assert play.stderr == run.stderr and "unknown key 'depthh'" in play.stderr, play.stderr


@pytest.mark.parametrize(
    "args,message",
    [
        (["false", "false", "--engine", "cmd=false", "--engine", "cmd=false"], "not both"),
        (["--engine", "cmd=false"], "hex with these options has 2 seats; give 2 engines"),
        (["--engine", "cmd=false", "tc=5", "--engine", "cmd=false"], "one clock; give tc= or st= with --each"),
        (["--each", "st=0.1"], "give an --engine cmd=... per seat"),
        (["--engine", "cmd=false", "--engine", "cmd=false", "--each", "st=0"], "st is the seconds a move"),
    ],
)
def test_play_refuses_what_its_items_cannot_mean_in_one_line(args, message):
    result = CliRunner().invoke(main, ["play", "-g", "hex", *args])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr, result.stderr


def test_a_name_item_names_its_seat_and_a_seat_without_one_keeps_the_engines_own(tmp_path):
    from arena.tournament.playsetup import PlayFlags, play_setup

    setup = play_setup(PlayFlags("hex", (), [["cmd=false"], ["cmd=false", "name=beta"]], ["st=0.1"]), tmp_path)
    assert setup.names == [None, "beta"]  # None: the engine's own id name is shown
    assert [spec.name for spec in setup.specs] == ["seat0", "beta"]


def test_the_old_seat_flags_become_each_seats_items_and_the_clock_as_each_items():
    from arena.rules import make_game
    from arena.tournament.playsetup import PlayFlags, SeatFlags, from_seat_flags, seat_items

    old = SeatFlags(
        commands=["a b", "c"], movetime_ms=250, protocols=["gtp", "arena"], names=["x", "y"],
        engine_options=["1:depth=3", "1:k=a=b"], inits=["0:boardsize 5", "0:  "],
    )  # fmt: skip
    assert seat_items(make_game("hex", {}), old) == (
        [["cmd=a b", "proto=gtp", "name=x", "init=boardsize 5"], ["cmd=c", "proto=arena", "name=y", "option.depth=3",
         "option.k=a=b"]],
        ["st=0.25"],
    )  # fmt: skip
    flags, note = from_seat_flags(
        PlayFlags("hex", ["size=4"], each=["nodes=9"]),
        SeatFlags(["a", "c"], base_ms=60500, inc_ms=100, protocols=["arena"]),
    )
    assert flags == PlayFlags(
        "hex", ["size=4"], [["cmd=a", "proto=arena"], ["cmd=c", "proto=arena"]], ["tc=60.5+0.1", "nodes=9"]
    )
    assert note == (
        "--base, --inc, --protocol, engine commands without --engine: now --engine cmd=a proto=arena "
        "--engine cmd=c proto=arena --each tc=60.5+0.1; the old form still works"
    )
    flags, note = from_seat_flags(PlayFlags("hex"), SeatFlags(["a", "c"]))  # a second a move, as before
    assert flags == PlayFlags("hex", (), [["cmd=a"], ["cmd=c"]], ["st=1"])
    assert note == "engine commands without --engine: now --engine cmd=a --engine cmd=c; the old form still works"


@pytest.mark.parametrize(
    "old,message",
    [
        (
            {"protocols": ["arena"] * 3},
            "--protocol: give it once per seat (2 times, in seat order) or once for all seats; got 3",
        ),
        ({"names": ["x"]}, "--name: give it once per seat (2 times, in seat order); got 1"),
        ({"names": ["x", "a b"]}, "--name 'a b': engine names use letters, digits and _ . + - only"),
        (
            {"protocols": ["gtp"], "engine_options": ["0:depth=3"]},
            "--engine-option 0:...: seat 0 speaks GTP; send settings with --init 0:COMMAND",
        ),
        ({"inits": ["1:boardsize 5"]}, "--init 1:...: seat 1 speaks protocol v1; use --engine-option 1:NAME=VALUE"),
        ({"engine_options": ["2:depth=3"]}, "--engine-option '2:depth=3': start with the seat number (0 to 1) and ':'"),
        ({"engine_options": ["x:depth=3"]}, "--engine-option 'x:depth=3': start with the seat number (0 to 1) and ':'"),
        ({"engine_options": ["0depth=3"]}, "--engine-option '0depth=3': start with the seat number (0 to 1) and ':'"),
        ({"inits": ["0:a\nb"], "protocols": ["gtp"]}, "--init '0:a\\nb': one line only"),
        (
            {"engine_options": ["0:depth"]},
            "--engine-option '0:depth': write SEAT:NAME=VALUE, e.g. --engine-option 0:depth=3",
        ),
        ({"engine_options": ["0:=3"]}, "--engine-option '0:=3': write SEAT:NAME=VALUE, e.g. --engine-option 0:depth=3"),
        ({"engine_options": ["0:de pth=3"]}, "--engine-option '0:de pth=3': write SEAT:NAME=VALUE"),
    ],
)
def test_old_seat_flags_that_cannot_mean_a_seat_are_refused_in_their_words(old, message):
    from arena.rules import make_game
    from arena.tournament.commandline import FlagError
    from arena.tournament.playsetup import SeatFlags, seat_items

    with pytest.raises(FlagError) as err:
        seat_items(make_game("hex", {}), SeatFlags(["a", "c"], **old))
    assert str(err.value).startswith(message), err.value
    # an option's value may hold ':' and '=': only the first of each splits the item
    assert seat_items(make_game("hex", {}), SeatFlags(["a", "c"], engine_options=["1:a=b:c=d"]))[0][1] == [
        "cmd=c", "option.a=b:c=d",
    ]  # fmt: skip


def test_plays_setup_is_the_game_the_engines_their_names_the_clock_and_the_commands(tmp_path):
    from arena.match import TimeControl
    from arena.tournament.playsetup import PlayFlags, play_setup

    engines = [["cmd=true", "name=alpha", "option.depth=3"], ["cmd=false"]]
    setup = play_setup(PlayFlags("hex", ["size=4"], engines, ["st=0.25"]), tmp_path)
    assert (setup.game.name, setup.game.options.size) == ("hex", 4)
    assert [(s.name, s.options, s.cwd) for s in setup.specs] == [
        ("alpha", (("depth", "3"),), str(tmp_path)), ("seat1", (), str(tmp_path)),
    ]  # fmt: skip
    assert setup.names == ["alpha", None] and setup.time_control == TimeControl(movetime_ms=250)
    assert [os.path.basename(c) for c in setup.commands] == ["true", "false"]


@pytest.mark.parametrize(
    "old,each,note",
    [
        ({"movetime_ms": 250}, ["st=0.25"], "--movetime, engine commands without --engine: now --engine cmd=a --engine cmd=c --each st=0.25; the old form still works"),
        ({"base_ms": 60000}, ["tc=60"], "--base, engine commands without --engine: now --engine cmd=a --engine cmd=c --each tc=60; the old form still works"),
        ({"inc_ms": 500}, ["st=1"], "--inc, engine commands without --engine: now --engine cmd=a --engine cmd=c --each st=1; the old form still works"),
        (
            {"movetime_ms": 250, "base_ms": 60000, "names": ["x", "y"], "engine_options": ["1:cmd=go depth=3"]},
            ["st=0.25", "tc=60"],
            "--movetime, --base, --name, --engine-option, engine commands without --engine: now --engine cmd=a name=x --engine cmd=c name=y 'option.cmd=go depth=3' --each st=0.25 tc=60; the old form still works",
        ),
        ({"protocols": ["gtp"], "inits": ["0:MAX 3"]}, ["st=1"], "--protocol, --init, engine commands without --engine: now --engine cmd=a proto=gtp 'init=MAX 3' --engine cmd=c proto=gtp; the old form still works"),
    ],
)  # fmt: skip
def test_each_old_flag_given_is_named_in_the_note_with_the_clock_it_now_is(old, each, note):
    from arena.tournament.playsetup import PlayFlags, SeatFlags, from_seat_flags

    flags, said = from_seat_flags(PlayFlags("hex"), SeatFlags(["a", "c"], **old))
    assert (flags.each, said) == (each, note)


@pytest.mark.parametrize(
    "game,old,message",
    [
        ("hexgo", {"protocols": ["gtp"]}, "--protocol gtp: arena drives GTP engines for hex only, not hexgo"),
        ("hex", {"names": ["x" * 100 + " ", "y"]}, "--name '" + "x" * 79 + "…': engine names use letters, digits and _ . + - only"),
    ],
)  # fmt: skip
def test_an_old_seat_flag_a_game_or_name_cannot_take_is_one_whole_line(game, old, message):
    from arena.rules import make_game
    from arena.tournament.commandline import FlagError
    from arena.tournament.playsetup import SeatFlags, seat_items

    with pytest.raises(FlagError) as err:
        seat_items(make_game(game, {}), SeatFlags(["a", "c"], **old))
    assert str(err.value) == message
    assert seat_items(make_game("hexgo", {}), SeatFlags(["a", "c"], protocols=["arena"]))[0] == [
        ["cmd=a", "proto=arena"], ["cmd=c", "proto=arena"],
    ]  # fmt: skip


def test_a_listed_engine_in_play_keeps_its_listed_name_and_a_bad_name_item_is_refused(tmp_path):
    from arena.tournament.config import ConfigError
    from arena.tournament.playsetup import PlayFlags, play_setup

    (tmp_path / "engines.toml").write_text('[[engines]]\nname = "rnd"\ncommand = ["false"]\n')
    setup = play_setup(PlayFlags("hex", (), [["conf=rnd"], ["cmd=false"]], ["st=0.1"]), tmp_path)
    assert [spec.name for spec in setup.specs] == ["rnd", "seat1"] and setup.names == [None, None]
    with pytest.raises(ConfigError) as err:
        play_setup(PlayFlags("hex", (), [["cmd=false", "name=a=b"], ["cmd=false"]], ["st=0.1"]), tmp_path)
    assert str(err.value) == (
        "command line: --engine a=b item 'name=a=b': engine names use letters, digits and _ . + - only (got 'a=b')"
    )
