"""`arena run`, `arena play` and `arena verify` end to end through the real CLI."""

import json
import sqlite3
import subprocess
import sys

import pytest
from click.testing import CliRunner
from helpers import ROOT, WIDE, ZOO, arena_cmd, engine_toml, write_tournament
from helpers import run_arena as arena

from arena.cli import main
from arena.record import GameRecord
from arena.results.ratings import standings
from arena.tournament.config import load_tournament
from arena.tournament.schedule import round_robin

ENGINES = (
    engine_toml("random", "{python}", "-m", "engines.random_engine")
    + engine_toml("pathfinder", "{python}", "-m", "engines.hex_pathfinder")
    + engine_toml("random2", "{python}", "-m", "engines.random_engine")
)


def hex5(tmp_path, rounds=3):
    return write_tournament(tmp_path, ENGINES, name="hex5", rounds=rounds, seed=9)


def write_text(tmp_path, text):
    path = tmp_path / "t.toml"
    path.write_text(text)
    return path


@pytest.mark.slow
def test_two_worker_tournament_stores_verifies_and_rates(tmp_path):
    out = tmp_path / "out"
    proc = arena("run", hex5(tmp_path), "--workers", 2, "--out", out, env=WIDE)  # every column shown
    assert proc.returncode == 0, proc.stderr
    expected_games = 3 * 2 * 3  # pairings x seat orders x rounds
    db = sqlite3.connect(out / "arena.db")
    rows = db.execute("SELECT id, record FROM games ORDER BY id").fetchall()
    assert [r[0] for r in rows] == list(range(expected_games))
    records = [GameRecord.model_validate_json(r[1]) for r in rows]
    # every pairing plays the same number of games in each seat order
    orders = {}
    for rec in records:
        orders[tuple(rec["players"])] = orders.get(tuple(rec["players"]), 0) + 1
    assert set(orders.values()) == {3} and len(orders) == 6
    # the JSON Lines mirror holds the same games, and every record re-verifies as it is
    lines = (out / "games.jsonl").read_text().splitlines()
    assert sorted(json.loads(ln)["id"] for ln in lines) == list(range(expected_games))
    verdicts = arena("verify", out / "games.jsonl")
    assert verdicts.returncode == 0, verdicts.stdout + verdicts.stderr
    for verdict, rec in zip(map(json.loads, verdicts.stdout.splitlines()), map(json.loads, lines)):
        assert verdict["ok"] and verdict["over"] and verdict["winner"] == rec["winner"]
    # table: printed and in results.json, matching a recomputation from the stored games
    results = json.loads((out / "results.json").read_text())
    table = results["standings"]
    assert [row["engine"] for row in table][0] == "pathfinder"
    assert sum(row["games"] for row in table) == 2 * expected_games
    assert sum(row["wins"] for row in table) == expected_games
    # TrueSkill without draws (Hex has none), beside the Elo that ranks the table
    recomputed = standings(["random", "pathfinder", "random2"], records, 2, can_draw=False)
    assert {s.engine: round(s.mu, 2) for s in recomputed} == {row["engine"]: row["mu"] for row in table}
    assert [row["engine"] for row in table] == [r["engine"] for r in results["elo"]["ratings"]]
    for header in ("rank", "engine", "games", "wins", "losses", "draws", "score %", "mu", "sigma", "mu-3sigma"):
        assert header in proc.stdout
    assert "pathfinder" in proc.stdout.split("mu-3sigma")[1].splitlines()[2]
    # head to head: every pair once, the better ranked first, adding up to the standings
    pairs = results["head_to_head"]
    assert len(pairs) == 3 and all(p["games"] == 6 for p in pairs)
    assert sum(p["wins"] + p["losses"] for p in pairs) == expected_games
    assert "LOS %" in proc.stdout
    assert (out / "arena.log").exists()


@pytest.mark.slow
@pytest.mark.timeout(120)  # 15 s on a quiet machine: two whole runs and a resume
def test_rerun_resumes_without_replaying_or_duplicating(tmp_path):
    out = tmp_path / "out"
    path = hex5(tmp_path, rounds=1)
    assert arena("run", path, "--out", out, "-q").returncode == 0
    # raise the rounds: only the new games are played
    hex5(tmp_path, rounds=2)
    proc = arena("run", path, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "6 games played, 6 resumed" in proc.stdout
    ids = [json.loads(ln)["id"] for ln in (out / "games.jsonl").read_text().splitlines()]
    assert sorted(ids) == list(range(12))


def test_ratings_do_not_depend_on_finishing_order():
    schedule = round_robin(["a", "b", "c"], 2, 2, 1)
    records = [
        GameRecord(
            game="hex",
            moves=[],
            id=g.index,
            players=list(g.seats),
            places=[0, 1] if g.index % 3 else [1, 0],
            termination="normal",
        )
        for g in schedule
    ]
    forward = standings(["a", "b", "c"], records, 2)
    backward = standings(["a", "b", "c"], list(reversed(records)), 2)
    assert [(s.engine, s.mu, s.sigma) for s in forward] == [(s.engine, s.mu, s.sigma) for s in backward]


def test_schedule_plays_every_seat_order_equally_with_shared_seeds():
    games = round_robin(["a", "b", "c", "d"], 3, 2, 7)
    assert len(games) == 4 * 6 * 2
    seats = {}
    for g in games:
        for seat, name in enumerate(g.seats):
            seats[(name, seat)] = seats.get((name, seat), 0) + 1
    assert len(set(seats.values())) == 1
    by_table = {}
    for g in games:
        by_table.setdefault((g.round, frozenset(g.seats)), set()).add(g.seed)
    assert all(len(s) == 1 for s in by_table.values())


@pytest.mark.parametrize(
    "text,message",
    [
        ("name = 'x'\ngame = 'hex'\n[[engines]]\nname='a'\ncommand=['true']\n", "engines"),
        (
            "name = 'x'\ngame = 'chess'\n[[engines]]\nname='a'\ncommand=['true']\n[[engines]]\nname='b'\ncommand=['true']\n",
            "unknown game 'chess'",
        ),
        ("name = 'x'\ngame = 'hex'\nrounds = 'many'\n", "rounds"),
        ("name = 'x'\ngame = 'hex'\ncolour = 1\n", "unknown key 'colour'"),
        (
            "name = 'x'\ngame = 'hex'\n[options]\nsize = 99\n"
            + "[[engines]]\nname='a'\ncommand=['true']\n[[engines]]\nname='b'\ncommand=['true']\n",
            "less than or equal to 26",
        ),
        ("name = 'x\ngame = 'hex'\n", "not valid TOML"),
        (
            "name = 'x'\ngame = 'hex'\n[[engines]]\nname='a'\ncommand=['./nope']\n[[engines]]\nname='b'\ncommand=['true']\n",
            "does not exist",
        ),
        (
            "name = 'x'\ngame = 'hex'\n[[engines]]\nname='a'\ncommand=['no-such-engine-xyz']\n[[engines]]\nname='b'\ncommand=['true']\n",
            "not on PATH",
        ),
        ("name = '../escape'\ngame = 'hex'\n", "name"),
    ],
)
def test_bad_tournament_files_give_one_clear_message(tmp_path, text, message):
    path = write_text(tmp_path, text)
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert message in result.output and str(path) in result.output
    assert "Traceback" not in result.output


def test_missing_tournament_file(tmp_path):
    result = CliRunner().invoke(main, ["run", str(tmp_path / "nope.toml")])
    assert result.exit_code == 2 and "no such tournament file" in result.output


@pytest.mark.slow
def test_play_prints_board_result_and_writes_a_verifiable_record(tmp_path):
    record = tmp_path / "game.json"
    py = sys.executable
    proc = arena(
        "play",
        "--game",
        "hex",
        "--option",
        "size=6",
        "--seed",
        "3",
        "--record",
        record,
        f"{py} -m engines.hex_pathfinder",
        f"{py} -m engines.random_engine",
    )
    assert proc.returncode == 0, proc.stderr
    assert "  1 " in proc.stdout and "wins" in proc.stdout
    rec = json.loads(record.read_text())
    assert rec["options"] == {"size": 6, "swap": True}
    check = arena("verify", "-", input=record.read_text())
    assert check.returncode == 0 and json.loads(check.stdout)["winner"] == rec["winner"]


def test_play_rejects_bad_options_and_seat_counts():
    result = CliRunner().invoke(main, ["play", "--game", "hex", "-O", "size=1", "a", "b"])
    assert result.exit_code == 2 and "size" in result.output
    result = CliRunner().invoke(main, ["play", "--game", "hex", "a"])
    assert result.exit_code == 2 and "2 seats" in result.output


def test_verify_contract():
    lines = "\n".join(
        [
            json.dumps({"game": "hex", "options": {"size": 9, "swap": True}, "moves": ["e5", "swap", "c3"]}),
            json.dumps(
                {"game": "hex", "options": {"size": 3}, "moves": ["a1", "b1", "a2", "b2", "a3", "c3"], "extra": 1}
            ),
            json.dumps({"game": "hex", "options": {"size": 3}, "moves": ["a1", "a1"]}),
        ]
    )
    result = CliRunner().invoke(main, ["verify", "-"], input=lines)
    assert result.exit_code == 1
    out = [json.loads(ln) for ln in result.output.splitlines()]
    assert out[0] == {
        "id": None,
        "line": 1,
        "ok": True,
        "error": None,
        "over": False,
        "termination": None,
        "winner": None,
        "scores": None,
        "places": None,
        "plies": 3,
        "mismatches": [],
    }
    assert out[1]["ok"] is False and out[1]["error"]["ply"] == 5 and "over" in out[1]["error"]["reason"]
    assert out[1]["over"] and out[1]["winner"] == 0 and out[1]["scores"] == [1.0, 0.0] and out[1]["plies"] == 5
    assert out[2]["error"] == {"ply": 1, "move": "a1", "reason": "a1 is already occupied"}


@pytest.mark.parametrize(
    "line,message",
    [
        ("{not json", "line 1: not valid JSON"),
        ('{"moves": []}', 'missing "game"'),
        ('{"game": "hex", "moves": "e5"}', '"moves" must be a list'),
        ('{"game": "hex", "options": {"size": 0}, "moves": []}', "size"),
        ('{"game": "nope", "moves": []}', "unknown game"),
    ],
)
def test_verify_gives_an_unusable_record_its_own_verdict_naming_the_line(line, message):
    good = json.dumps({"game": "hex", "options": {"size": 3}, "moves": ["a1"], "id": 5})
    result = CliRunner().invoke(main, ["verify", "-"], input=line + "\n" + good + "\n")
    assert result.exit_code == 1
    bad, ok = map(json.loads, result.output.splitlines())
    assert not bad["ok"] and message in bad["error"]["reason"] and "line 1" in bad["error"]["reason"]
    assert ok["ok"] and ok["id"] == 5 and ok["line"] == 2


@pytest.mark.slow
def test_a_reader_that_goes_away_does_not_stop_the_tournament(tmp_path):
    """`arena run ... | head -1`: progress stops, the games go on and are all stored."""
    out = tmp_path / "out"
    proc = subprocess.Popen(
        arena_cmd("run", hex5(tmp_path, rounds=2), "--out", out),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=300) == 0, proc.stderr.read()
    assert len((out / "games.jsonl").read_text().splitlines()) == 12
    assert (out / "results.json").exists()


@pytest.mark.slow
def test_play_tells_two_engines_with_the_same_name_apart(tmp_path):
    record = tmp_path / "game.json"
    engine = f"{sys.executable} -m engines.random_engine"
    proc = arena("play", "--game", "hex", "-O", "size=4", "--record", record, engine, engine)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(record.read_text())["players"] == ["random-0", "random-1"]
    assert "random-0 vs random-1: random-" in proc.stdout


def test_the_schedules_seeds_come_from_the_tournaments_seed():
    seeds = [[g.seed for g in round_robin(["a", "b", "c"], 2, 2, master)] for master in (1, 2)]
    assert seeds[0] != seeds[1] and seeds[0] == [g.seed for g in round_robin(["a", "b", "c"], 2, 2, 1)]


def test_an_events_drawn_tables_keep_their_slots_and_take_the_openings_in_turn():
    from arena.results.slots import Slot
    from arena.rules import make_game
    from arena.tournament.openings import OpeningPlan
    from arena.tournament.schedule import ScheduledGame, event_games

    drawn = [Slot(4, 1, 0, ("a", "b"), 11), Slot(5, 1, 0, ("b", "a"), 11), Slot(6, 1, 1, ("c", "d"), 12)]
    drawn.append(Slot(7, 2, 0, ("e", "f"), 13))
    book = OpeningPlan((("a1",), ("b2",), ("c3",)))
    assert event_games(drawn, book) == [
        ScheduledGame(4, 1, ("a", "b"), 11, ("a1",)), ScheduledGame(5, 1, ("b", "a"), 11, ("a1",)),
        ScheduledGame(6, 1, ("c", "d"), 12, ("b2",)), ScheduledGame(7, 2, ("e", "f"), 13, ("c3",)),
    ]  # fmt: skip
    plies = OpeningPlan(random_plies=3, game=make_game("hex", {"size": 5}))
    assert [g.opening for g in event_games(drawn, plies)] == [plies.start(0, 0, 1, s.seed).moves for s in drawn]


def test_an_engines_options_are_sent_as_text_with_booleans_as_true_and_false(tmp_path):
    options = "options = { ponder = false, hash = true, threads = 2 }"
    engines = engine_toml("a", "{python}", ZOO, extra=options) + engine_toml("b", "{python}", ZOO)
    t = load_tournament(write_tournament(tmp_path, engines))
    assert t.engines[0].options == (("ponder", "false"), ("hash", "true"), ("threads", "2"))


def test_play_refuses_a_mistyped_option_before_anything_else():
    result = CliRunner().invoke(main, ["play", "--game", "hex", "-O", "swap=1", "a", "b"])
    assert (result.exit_code, result.output) == (
        2,
        "arena: hex: option 'swap': Input should be a valid boolean (got 1)\n",
    )


def test_play_with_the_old_per_seat_protocol_flag_says_the_new_form_and_checks_the_engines():
    result = CliRunner().invoke(main, ["play", "--game", "hex", "--protocol", "gtp", "a", "b"])
    assert (result.exit_code, result.output) == (
        2,
        "arena: --protocol, engine commands without --engine: now --engine cmd=a proto=gtp --engine cmd=b proto=gtp; "
        "the old form still works\n"
        "arena: command line: engine 'seat0': command 'a' is not on PATH; give a path or install it\n",
    )


def test_the_file_seed_draws_each_tables_game_seed_so_another_seed_is_another_schedule(tmp_path):
    from arena.tournament.config import build_schedule

    def schedule(seed):
        return build_schedule(load_tournament(write_tournament(tmp_path, ENGINES, rounds=2, seed=seed)))

    seven = schedule(7)
    assert seven == round_robin(["random", "pathfinder", "random2"], 2, 2, 7)
    assert [g.seed for g in schedule(8)] != [g.seed for g in seven]
    assert [(g.index, g.seats) for g in schedule(8)] == [(g.index, g.seats) for g in seven]


def test_a_folders_settings_hold_each_command_as_written_but_a_program_found_on_path(tmp_path):
    """The settings are the project's, not the machine's: {python} stays {python}, a relative
    program is kept as written (tidied), and a folder relative to the file (``.`` when
    none is given); a program found on PATH is kept as found, since another program of that
    name would be another engine."""
    import shutil

    from arena.tournament.settings import tournament_settings

    (tmp_path / "sub" / "bin").mkdir(parents=True)
    program = tmp_path / "sub" / "bin" / "eng"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    engines = (
        engine_toml("py", "{python}", "-m", "engines.random_engine")
        + engine_toml("found", "true")
        + engine_toml("local", "./bin/../bin/eng", "--fast", extra='cwd = "sub/"')
    )
    settings = tournament_settings(load_tournament(write_tournament(tmp_path, engines)))
    assert [(e["name"], e["command"], e["cwd"]) for e in settings["engines"]] == [
        ("py", ["{python}", "-m", "engines.random_engine"], "."),
        ("found", [shutil.which("true")], "."),
        ("local", ["bin/eng", "--fast"], "sub"),
    ]


# -- a bad tournament file's refusals, read in process: each one whole line naming the file
def engine(name, extra=""):
    return engine_toml(name, "{python}", "-m", "engines.random_engine", extra=extra)


def file_refusal(tmp_path, engines, **fields):
    """The one line a tournament file that cannot be loaded is refused with, and its path."""
    from arena.tournament.config import ConfigError

    path = write_tournament(tmp_path, engines, **fields)
    with pytest.raises(ConfigError) as err:
        load_tournament(path)
    return str(err.value), path


def test_repeated_engine_names_are_each_named_once_in_order():
    from arena.tournament.config import EngineEntry, unique_names

    entries = [EngineEntry(name=n, command=["x"]) for n in ("b", "a", "b", "c", "a")]
    with pytest.raises(ValueError) as err:
        unique_names(entries)
    assert str(err.value) == "engine names must be unique; repeated: a, b"


def test_a_files_unknown_game_option_is_named_under_options_and_game(tmp_path):
    message, path = file_refusal(tmp_path, engine("a") + engine("b"), options="sizee = 3")
    assert message == (
        f"{path}: [options] / game: hex: unknown option 'sizee' (did you mean 'size'? allowed: size, swap)"
    )


def test_a_file_with_fewer_engines_than_the_games_seats_says_how_many_it_lists(tmp_path):
    message, path = file_refusal(tmp_path, engine("a") + engine("b"), game="posies", options="players = 3")
    assert message == f"{path}: engines: posies with these options needs at least 3 engines, the file lists 2"


def test_gtp_engines_in_a_game_gtp_does_not_drive_are_all_named_with_the_games_it_drives(tmp_path):
    gtp = 'protocol = "gtp"'
    engines = engine("g", gtp) + engine("h", gtp) + engine("r")
    message, path = file_refusal(tmp_path, engines, game="groups")
    assert message == f"{path}: engines: g, h speak GTP, which arena drives for hex only; this tournament is groups"


def test_a_gtp_engine_in_hex_is_taken_as_gtp(tmp_path):
    engines = engine("g", 'protocol = "gtp"') + engine("r")
    t = load_tournament(write_tournament(tmp_path, engines))
    assert [(e.name, e.protocol) for e in t.engines] == [("g", "gtp"), ("r", "arena")]


def test_engines_with_and_without_a_game_clock_are_refused_naming_both_sides(tmp_path):
    engines = (
        engine("a", "[engines.time_control]\nbase_ms = 1000")
        + engine("b", "[engines.time_control]\nbase_ms = 2000")
        + engine("c", "[engines.time_control]\nmovetime_ms = 100")
        + engine("d")
    )
    message, path = file_refusal(tmp_path, engines)
    assert message == (
        f"{path}: time_control: a, b play with a game clock (base_ms) but c, [time_control] without; "
        "give every engine a clock or none"
    )


def test_a_gauntlet_of_three_seats_needs_two_engines_that_are_not_candidates(tmp_path):
    three = engine("a") + engine("b") + engine("c")
    posies = {"game": "posies", "options": "players = 3"}
    message, path = file_refusal(tmp_path, three, **posies, extra='format = "gauntlet"\ncandidates = ["a", "b"]')
    assert message == (
        f"{path}: candidates: a gauntlet table has one candidate and 2 other engine(s); "
        "list more engines that are not candidates"
    )
    ok = load_tournament(write_tournament(tmp_path, three, **posies, extra='format = "gauntlet"\ncandidates = ["a"]'))
    assert (ok.data.format, ok.data.candidates) == ("gauntlet", ["a"])


def test_a_two_seat_gauntlet_whose_engines_are_all_candidates_is_refused(tmp_path):
    message, path = file_refusal(
        tmp_path, engine("a") + engine("b"), extra='format = "gauntlet"\ncandidates = ["a", "b"]'
    )
    assert message == (
        f"{path}: candidates: a gauntlet table has one candidate and 1 other engine(s); "
        "list more engines that are not candidates"
    )


def test_a_knockout_of_a_three_seat_game_is_refused_naming_the_file(tmp_path):
    engines = engine("a") + engine("b") + engine("c")
    message, path = file_refusal(tmp_path, engines, game="posies", options="players = 3", extra='format = "knockout"')
    assert message == (
        f"{path}: format: a knockout is played between two engines a match, and posies with these options "
        "seats 3; play a swiss or a round-robin"
    )


def test_a_missing_rating_list_or_book_is_named_under_seeds_or_openings(tmp_path):
    base = tmp_path.resolve()
    two = engine("a") + engine("b")
    message, path = file_refusal(tmp_path, two, extra='format = "knockout"\nseeds = "missing.json"')
    assert message == f"{path}: seeds: no such rating list {base / 'missing.json'}"
    message, path = file_refusal(tmp_path, two, extra='openings = "missing.txt"')
    assert message == (
        f"{path}: openings: cannot read the openings file '{base / 'missing.txt'}' (No such file or directory); "
        "the path is relative to the tournament file"
    )


def test_an_engine_folder_that_is_not_there_is_named_whole(tmp_path):
    message, path = file_refusal(tmp_path, engine("a") + engine("b", "cwd = 'nowhere'"))
    assert message == f"{path}: engine 'b': cwd '{tmp_path.resolve() / 'nowhere'}' is not a folder"


def test_an_option_name_of_two_words_is_refused_naming_the_engine(tmp_path):
    message, path = file_refusal(tmp_path, engine("a") + engine("b", "options = { 'my style' = 1 }"))
    assert message == (
        f"{path}: engine 'b': options: option name 'my style' must be one word of printable ASCII characters "
        "(no spaces); protocol options are one word = one line"
    )


def test_a_sandboxed_engine_where_no_sandbox_can_be_made_is_refused_and_the_others_are_not(tmp_path, monkeypatch):
    from arena.tournament import config

    monkeypatch.setattr(config, "sandbox_problem", lambda: "bubblewrap (bwrap) is not installed")
    message, path = file_refusal(tmp_path, engine("a", "sandbox = true") + engine("b"))
    assert message == f"{path}: engine 'a': sandbox = true, but bubblewrap (bwrap) is not installed"
    t = load_tournament(write_tournament(tmp_path, engine("a") + engine("b")))
    assert [e.sandbox for e in t.engines] == [None, None]


def test_an_engines_spec_holds_every_setting_of_its_entry(tmp_path, monkeypatch):
    from arena.engine.player import EngineSpec, Sandbox
    from arena.tournament import config
    from arena.tournament.config import EngineEntry, engine_spec

    monkeypatch.setattr(config, "sandbox_problem", lambda: None)  # a sandbox can be made
    (tmp_path / "sub").mkdir()
    gtp = EngineEntry(
        name="g",
        command=["{python}", "gtp.py", "{python}"],
        cwd="sub",
        memory_mb=512,
        cpu_seconds=30,
        handshake_ms=5000,
        protocol="gtp",
        init=["boardsize 5", "komi 0"],
        env={"A": "1", "B": "2"},
        verify_score=True,
        sandbox=True,
        restart="always",
    )
    assert engine_spec("here", tmp_path, gtp) == EngineSpec(
        "g",
        (sys.executable, "gtp.py", sys.executable),
        str(tmp_path / "sub"),
        (),
        512,
        30,
        5000,
        "gtp",
        ("boardsize 5", "komi 0"),
        (("A", "1"), ("B", "2")),
        True,
        Sandbox(),
        True,
    )
    plain = EngineEntry(name="p", command=["{python}"], options={"depth": 3, "fast": True, "style": "wide"})
    assert engine_spec("here", tmp_path, plain) == EngineSpec(
        "p", (sys.executable,), str(tmp_path), (("depth", "3"), ("fast", "true"), ("style", "wide"))
    )


def test_a_tournament_built_without_a_given_list_reads_no_list_its_engines_do_not_use(tmp_path):
    import tomllib

    from arena.tournament.config import build_tournament

    path = write_tournament(tmp_path, engine("a") + engine("b"))
    raw = tomllib.loads(path.read_text())
    t = build_tournament(raw, path, tmp_path / "no-such-list.toml")
    assert [e.name for e in t.engines] == ["a", "b"]
