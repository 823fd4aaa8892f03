"""The GTP bridge: a GTP Hex engine that follows Benzene's conventions plays protocol-v1
engines, swap on and off, in both seat orders, with faults, through real subprocesses."""

from __future__ import annotations

import json
import sqlite3
import sys

import pytest

from arena.engine import EngineSpec, GtpEngine, open_engine
from arena.engine.gtp import from_gtp, gtp_colour, to_gtp
from arena.engine.player import EngineFault
from arena.match import TimeControl, play_game
from arena.rules import make_game
from arena.tournament.config import ConfigError, load_tournament
from tests.helpers import ROOT, engine_toml, run_arena, write_tournament

GTP = str(ROOT / "tests" / "engines" / "gtp_hex_engine.py")
PY = sys.executable


def gtp_spec(*args: str, name: str = "gtp", init: tuple[str, ...] = (), handshake_ms: int | None = None) -> EngineSpec:
    return EngineSpec(name, (PY, GTP, *args), protocol="gtp", init=init, handshake_ms=handshake_ms)


def mirror_table(size: int) -> dict[str, str]:
    """Each cell's name in GTP after a swap, as the Hex game's rules give it."""
    return dict(make_game("hex", {"size": size}).translation().after_swap)


HEX5 = make_game("hex", {"size": 5}).translation()


def random_spec(name: str = "random") -> EngineSpec:
    return EngineSpec(name, (PY, "-m", "engines.random_engine"), cwd=str(ROOT))


def swapper_spec() -> EngineSpec:
    """Protocol v1, always swaps: the GTP engine must be told."""
    return EngineSpec("swapper", (PY, "-m", "tests.engines.swapper_engine"), cwd=str(ROOT))


def play(specs, *, size=5, swap=True, seed=1, movetime=2000):
    engines = [open_engine(s) for s in specs]
    try:
        for e in engines:
            e.start()
        return play_game(
            make_game("hex", {"size": size, "swap": swap}),
            engines,
            seed=seed,
            time_control=TimeControl(movetime_ms=movetime),
        ).record
    finally:
        for e in engines:
            e.quit()


def arena_view(logged: dict) -> dict[str, str]:
    """The GTP engine's final board in arena's convention: after swap-pieces, mirrored
    with the colours exchanged (docs/gtp.md)."""
    swapped = "swap-pieces" in logged["moves"]
    mirror = mirror_table(logged["size"])
    colour = {"black": "red", "white": "blue"}
    if swapped:
        colour = {"black": "blue", "white": "red"}
    return {(mirror[c] if swapped else c): colour[s] for c, s in logged["stones"].items()}


def arena_board(record: dict, plies: int) -> dict[str, str]:
    """Cells -> colour after the first ``plies`` moves of an arena record."""
    stones: dict[str, str] = {}
    mirror = mirror_table(record["options"]["size"])
    for ply, move in enumerate(record["moves"][:plies]):
        if move == "swap":
            (cell,) = stones
            stones = {mirror[cell]: "blue"}
        else:
            stones[move] = "red" if ply % 2 == 0 else "blue"
    return stones


# -- the mapping, on the off-diagonal example of docs/gtp.md ---------------------------


def test_mirror_and_colours_after_swap():
    assert mirror_table(5)["e2"] == "b5" and mirror_table(5)["b5"] == "e2" and mirror_table(5)["c3"] == "c3"
    assert to_gtp(0, "e2", False, HEX5) == ("black", "e2")
    assert to_gtp(1, "swap", False, HEX5) == ("white", "swap-pieces")
    # Red (seat 0) plays c4 after the swap: the GTP program, whose board still has the
    # black stone on e2, hears white's mirrored move.
    assert to_gtp(2, "c4", True, HEX5) == ("white", "d3")
    assert to_gtp(3, "a1", True, HEX5) == ("black", "a1")
    assert gtp_colour(0, False) == "black" and gtp_colour(1, True) == "black"
    assert from_gtp("swap-pieces", False, HEX5) == "swap" and from_gtp("SWAP", False, HEX5) == "swap"
    assert from_gtp("D3", True, HEX5) == "c4" and from_gtp("e5", False, HEX5) == "e5"
    assert from_gtp("zz¹", True, HEX5) == "zz¹"  # left for the referee to reject


# -- games against protocol-v1 engines ---------------------------------------------------


@pytest.mark.parametrize("swap", [True, False])
@pytest.mark.parametrize("gtp_seat", [0, 1])
@pytest.mark.slow
def test_full_games_translate_both_ways(tmp_path, swap, gtp_seat):
    log = tmp_path / "gtp.jsonl"
    # Seat 1 swaps: the GTP engine when it is seat 1, the protocol-v1 swapper otherwise.
    specs = [random_spec(), gtp_spec("--swap", "--log", str(log), "--seed", "7")]
    if gtp_seat == 0:
        specs = [specs[1], swapper_spec()]
    record = play(specs, swap=swap)
    assert record["termination"] == "normal", record["reason"]
    (logged,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert logged["allow_swap"] is swap
    if swap:
        assert record["moves"][1] == "swap"  # one side swapped: the GTP engine, or was told
        assert logged["moves"][1] == "swap-pieces"
    else:
        assert "swap" not in record["moves"]
    # The engine saw every move up to its last: its board is arena's, mirrored after a swap.
    assert arena_view(logged) == arena_board(record, len(logged["moves"]))


def test_gtp_engines_play_each_other(tmp_path):
    record = play([gtp_spec("--seed", "3", name="a"), gtp_spec("--swap", name="b")], size=6)
    assert record["termination"] == "normal" and record["moves"][1] == "swap"


@pytest.mark.slow
def test_clock_commands_where_offered(tmp_path):
    game = make_game("hex", {"size": 4, "swap": False})
    for style, expected in (
        ("standard", ["time_settings 60 0 0", "time_left black 60 0"]),
        ("benzene", ["time_left black 60"]),
        ("none", []),
    ):
        log = tmp_path / f"{style}.jsonl"
        engines = [open_engine(gtp_spec("--time", style, "--log", str(log))), open_engine(random_spec())]
        for e in engines:
            e.start()
        play_game(game, engines, seed=2, time_control=TimeControl(base_ms=60_000, inc_ms=0))
        for e in engines:
            e.quit()
        logged = json.loads(log.read_text().splitlines()[0])
        assert logged["clock"][: len(expected)] == expected, style


def test_moves_per_period_are_canadian_byo_yomi_with_the_moves_to_go(tmp_path):
    log = tmp_path / "g.jsonl"
    engines = [open_engine(gtp_spec("--time", "standard", "--log", str(log))), open_engine(random_spec())]
    for e in engines:
        e.start()
    play_game(
        make_game("hex", {"size": 4, "swap": False}), engines, seed=2, time_control=TimeControl(base_ms=60_000, moves=3)
    )
    for e in engines:
        e.quit()
    clock = json.loads(log.read_text().splitlines()[0])["clock"]
    assert clock[:2] == ["time_settings 0 60 3", "time_left black 60 3"]
    assert [line.split()[-1] for line in clock[1:5]] == ["3", "2", "1", "3"]


def test_movetime_is_a_one_stone_byo_yomi(tmp_path):
    log = tmp_path / "g.jsonl"
    play([gtp_spec("--time", "standard", "--log", str(log)), random_spec()], movetime=3000)
    assert json.loads(log.read_text())["clock"] == ["time_settings 0 3 1"]


# -- faults -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fault, at, code, words",
    [
        ("error_genmove", 2, "protocol", "'genmove black' answered '? cannot generate a move'"),
        ("reject_play", 2, "protocol", "rejected the legal move 'play black"),
        ("crash", 1, "crash", "out of cheese"),
        ("garbage", 1, "protocol", "not a GTP response: 'bestmove e5'"),
        ("illegal", 2, "illegal", "occupied"),
        ("pass", 1, "illegal", "'pass'"),
        ("resign", 1, "resign", "resigned"),
        ("double", 1, "protocol", "sent when no answer was asked for"),
        ("vt_move", 1, "illegal", "\\x0b'"),  # not deleted as if it were a blank
    ],
)
@pytest.mark.slow
def test_faults_cost_the_gtp_engine_the_game(fault, at, code, words):
    # The GTP engine is seat 0 (black), except for reject_play: as seat 1 the plays it is
    # sent are black's.
    gtp_seat = 1 if fault == "reject_play" else 0
    specs = [gtp_spec("--fault", fault, "--at", str(at)), random_spec()]
    if gtp_seat:
        specs.reverse()
    record = play(specs, swap=False)
    assert record["termination"] == code and record["forfeit_seat"] == gtp_seat
    assert words in record["reason"], record["reason"]


@pytest.mark.slow
def test_hang_is_a_timeout():
    record = play([gtp_spec("--fault", "hang"), random_spec()], movetime=300)
    assert record["termination"] == "timeout" and "no move within 400 ms" in record["reason"]


def test_start_up_faults():
    with pytest.raises(EngineFault, match="does not list the GTP command.*genmove"):
        GtpEngine(gtp_spec("--fault", "no_genmove")).start()
    engine = GtpEngine(gtp_spec(init=("param_mohex max_games 1000",)))
    with pytest.raises(EngineFault) as info:
        engine.start()
    engine.kill()
    assert info.value.code == "handshake"
    assert (
        "init command 'param_mohex max_games 1000' was answered '? unknown command: param_mohex'" in info.value.reason
    )
    ok = GtpEngine(gtp_spec(init=("param_game allow_swap 1",)))
    ok.start()
    assert ok.identity == {"name": "gtp-hex-test", "version": "1.0"}
    ok.quit()


@pytest.mark.slow
def test_a_program_that_is_not_gtp_fails_the_handshake():
    engine = GtpEngine(
        EngineSpec("v1", (PY, "-m", "engines.random_engine"), cwd=str(ROOT), protocol="gtp", handshake_ms=1000)
    )
    with pytest.raises(EngineFault) as info:
        engine.start()
    engine.kill()
    assert info.value.code in ("handshake", "protocol")


# -- tournaments ------------------------------------------------------------------------


def gtp_toml(name: str, *args: str, extra: str = "") -> str:
    return engine_toml(name, "{python}", GTP, *args, extra='protocol = "gtp"\n' + extra)


@pytest.mark.slow
@pytest.mark.parametrize("swap", ["true", "false"])
def test_tournament_with_gtp_and_protocol_v1_engines(tmp_path, swap):
    engines = (
        gtp_toml("gtp-swapper", "--swap")
        + gtp_toml("gtp-crasher", "--fault", "crash", "--at", "2", extra="max_failures = 0")
        + engine_toml("swapper", "{python}", "-m", "tests.engines.swapper_engine", extra=f'cwd = "{ROOT}"')
    )
    path = write_tournament(tmp_path, engines, options=f"size = 5\nswap = {swap}", rounds=2)
    out = tmp_path / "out"
    result = run_arena("run", path, "--out", out, "-q")
    assert result.returncode == 0, result.stderr
    rows = sqlite3.connect(out / "arena.db").execute("SELECT record FROM games").fetchall()
    records = [json.loads(r[0]) for r in rows]
    assert len(records) == 12  # 3 pairs x 2 seat orders x 2 rounds
    for r in records:
        crasher = "gtp-crasher" in r["players"]
        if crasher:
            assert r["termination"] == "crash" and r["players"][r["forfeit_seat"]] == "gtp-crasher"
            assert "out of cheese" in r["reason"]
        else:
            assert r["termination"] == "normal"
        if swap == "false":
            assert "swap" not in r["moves"]
        elif r["players"][1] in ("gtp-swapper", "swapper"):
            assert r["moves"][1] == "swap"
    verdicts = run_arena("verify", out / "games.jsonl")
    assert verdicts.returncode == 0, verdicts.stdout


def test_tournament_file_checks(tmp_path):
    def load(engines: str, game: str = "hex", options: str = "size = 5") -> str:
        with pytest.raises(ConfigError) as info:
            load_tournament(
                write_tournament(
                    tmp_path, engines + engine_toml("r", "{python}", "-m", "x"), game=game, options=options
                )
            )
        return str(info.value)

    assert "speak GTP, which arena drives for hex only" in load(gtp_toml("g"), game="groups", options="size = 5")
    assert "takes no 'options'" in load(gtp_toml("g", extra="options = { depth = 3 }"))
    assert "one GTP command on one line" in load(gtp_toml("g", extra='init = ["a\\nquit"]'))
    assert "'init' is for protocol" in load(engine_toml("v", "{python}", "-m", "x", extra='init = ["x"]'))
    ok = load_tournament(
        write_tournament(
            tmp_path,
            gtp_toml("g", extra='init = ["param_game allow_swap 1"]') + engine_toml("r", "{python}", "-m", "x"),
        )
    )
    assert ok.engines[0].protocol == "gtp" and ok.engines[0].init == ("param_game allow_swap 1",)


@pytest.mark.slow
def test_a_gtp_init_command_answered_with_an_error_refuses_the_run_before_any_game(tmp_path):
    engines = gtp_toml("mohex-ish", extra='init = ["param_mohex max_games 1000"]') + engine_toml(
        "random", "{python}", "-m", "engines.random_engine", extra=f'cwd = "{ROOT}"'
    )
    out = tmp_path / "out"
    result = run_arena("run", write_tournament(tmp_path, engines, options="size = 5"), "--out", out)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert (
        "engine 'mohex-ish': its init command 'param_mohex max_games 1000' was answered "
        "'? unknown command: param_mohex'"
    ) in result.stderr, result.stderr
    assert not (out / "games.jsonl").exists() or not (out / "games.jsonl").read_text()
