"""What arena checks of a GTP program before and after its games: the board it is asked for
at the tournament's start-up check (a size it refuses stops the run with exit 2), its own
score of each finished game with ``verify_score``, and the board ``arena check-engine -O``
plays.  All through the small GTP engine of tests/engines, as a real subprocess."""

from __future__ import annotations

import json
import sqlite3
import sys

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.engine import EngineSpec, GtpEngine, open_engine
from arena.engine.player import EngineFault
from arena.match import TimeControl, play_game
from arena.record import GameRecord
from arena.results.verify import verify_record
from arena.rules import make_game
from arena.tournament.config import ConfigError, load_tournament
from arena.tournament.settings import tournament_settings
from tests.helpers import ROOT, engine_toml, run_arena, write_tournament

GTP = str(ROOT / "tests" / "engines" / "gtp_hex_engine.py")
PY = sys.executable
RANDOM = engine_toml("random", "{python}", "-m", "engines.random_engine", extra=f'cwd = "{ROOT}"')


def gtp_toml(name: str, *args: str, extra: str = "") -> str:
    return engine_toml(name, "{python}", GTP, *args, extra='protocol = "gtp"\n' + extra)


def gtp_spec(*args: str, verify_score: bool = False) -> EngineSpec:
    return EngineSpec("gtp", (PY, GTP, *args), protocol="gtp", verify_score=verify_score)


def random_spec() -> EngineSpec:
    return EngineSpec("random", (PY, "-m", "engines.random_engine"), cwd=str(ROOT))


def play(specs, *, size=4, swap=True, seed=1):
    engines = [open_engine(s) for s in specs]
    try:
        for e in engines:
            e.start()
        return play_game(
            make_game("hex", {"size": size, "swap": swap}),
            engines,
            seed=seed,
            time_control=TimeControl(movetime_ms=2000),
        )
    finally:
        for e in engines:
            e.kill()


# -- the board, at the start-up check ---------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_a_board_the_gtp_engine_refuses_stops_the_run_before_any_game(tmp_path):
    engines = gtp_toml("small-board", "--max-size", "5") + RANDOM
    out = tmp_path / "out"
    result = run_arena("run", write_tournament(tmp_path, engines, options="size = 6"), "--out", out)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert (
        "engine 'small-board': it answered 'boardsize 6' with "
        "'? board size 6 is above this program's limit of 5': it does not play hex size=6"
    ) in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not (out / "games.jsonl").exists() or not (out / "games.jsonl").read_text()


def test_the_board_is_asked_at_start_up_only_when_the_engine_is_started_for_a_game():
    engine = GtpEngine(gtp_spec("--max-size", "5"), board=make_game("hex", {"size": 6}))
    with pytest.raises(EngineFault, match=r"refused: it answered 'boardsize 6' with '\? board size 6"):
        engine.start()
    engine.kill()
    fits = GtpEngine(gtp_spec("--max-size", "5"), board=make_game("hex", {"size": 5}))
    fits.start()
    fits.quit()


# -- verify_score ------------------------------------------------------------------------


@pytest.mark.parametrize("gtp_seat, swap_args", [(0, ()), (1, ("--swap",))])
def test_verify_score_agrees_on_a_game_played_in_step(gtp_seat, swap_args):
    specs = [gtp_spec(*swap_args, verify_score=True), random_spec()]
    if gtp_seat:
        specs.reverse()
    result = play(specs)
    record = result.record
    assert record["termination"] == "normal" and "faults" not in record, record.get("faults")
    assert result.faulted_seats == []
    if swap_args:
        assert record["moves"][1] == "swap"  # the colours were exchanged: B+/W+ follow them


@pytest.mark.parametrize("gtp_seat", [0, 1])
def test_a_score_that_disagrees_is_a_protocol_fault_and_the_referees_result_stands(gtp_seat):
    specs = [gtp_spec("--fault", "wrong_score", "--swap", verify_score=True), random_spec()]
    if gtp_seat:
        specs.reverse()
    result = play(specs, seed=3)
    record = result.record
    winner = record["winner"]
    assert record["termination"] == "normal" and record["forfeit_seat"] is None
    (fault,) = record["faults"]
    # The record's seat 0 is GTP black unless a swap exchanged the colours.
    swapped = "swap" in record["moves"]
    right = "B+" if (winner == 0) != swapped else "W+"
    wrong = "W+" if right == "B+" else "B+"
    assert fault.startswith(f"gtp (seat {gtp_seat}): protocol: 'final_score' answered '= {wrong}'"), fault
    assert f"the referee's result is {right} (" in fault, fault
    assert result.faulted_seats == [gtp_seat]  # its board cannot be trusted: started afresh
    verdict = verify_record(GameRecord.model_validate(record.to_json()))
    assert verdict["ok"], verdict  # the record is still one the rules accept


def test_verify_score_needs_final_score():
    engine = GtpEngine(gtp_spec("--fault", "no_final_score", verify_score=True))
    with pytest.raises(EngineFault, match="verify_score = true, but it does not list the GTP command final_score"):
        engine.start()
    engine.kill()


def test_verify_score_in_a_tournament_file(tmp_path):
    def load(engines: str):
        return load_tournament(write_tournament(tmp_path, engines + RANDOM))

    with pytest.raises(ConfigError, match="'verify_score' is for protocol = \"gtp\" engines"):
        load(engine_toml("v1", "{python}", "-m", "x", extra="verify_score = true"))
    asked = load(gtp_toml("g", extra="verify_score = true"))
    assert asked.engines[0].verify_score is True
    assert tournament_settings(asked)["engines"][0]["verify_score"] is True
    # Unset, it is not in the settings at all: folders made before the key still resume.
    assert "verify_score" not in tournament_settings(load(gtp_toml("g")))["engines"][0]


@pytest.mark.slow
def test_a_tournament_records_the_disagreement_and_keeps_every_game(tmp_path):
    engines = gtp_toml("liar", "--fault", "wrong_score", extra="verify_score = true") + RANDOM
    out = tmp_path / "out"
    path = write_tournament(tmp_path, engines, options="size = 4", rounds=2)
    result = run_arena("run", path, "--out", out, "-q")
    assert result.returncode == 0, result.stderr
    records = [json.loads(r[0]) for r in sqlite3.connect(out / "arena.db").execute("SELECT record FROM games")]
    assert len(records) == 4
    for r in records:
        assert r["termination"] == "normal"
        assert len(r["faults"]) == 1 and "'final_score' answered" in r["faults"][0]
    assert run_arena("verify", out / "games.jsonl").returncode == 0
    assert "liar (seat" in (out / "arena.log").read_text()


# -- check-engine -O -----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_check_engine_plays_the_board_it_is_given_and_says_so():
    small = run_arena("check-engine", "-p", "gtp", "-O", "size=6", PY, GTP, "--max-size", "5")
    assert small.returncode == 1
    assert "timed and whole games on hex size=6 swap=true" in small.stdout
    assert (
        "FAIL  move within movetime (hex size=6 swap=true): protocol: 'boardsize 6' answered "
        "'? board size 6 is above this program's limit of 5'"
    ) in small.stdout, small.stdout
    assert "PASS  hex: after a swap" in small.stdout  # the position checks keep their own board
    fits = run_arena("check-engine", "-p", "gtp", "-O", "size=5", "-O", "swap=false", PY, GTP, "--max-size", "5")
    assert fits.returncode == 0, fits.stdout
    assert "PASS  several games in one process (hex size=5 swap=false)" in fits.stdout


def test_check_engine_refuses_options_the_game_does_not_take():
    """Refused while the command line is read, so in process (the conformance tests run
    check-engine as a real process)."""
    bad = CliRunner().invoke(main, ["check-engine", "-p", "gtp", "-O", "size=99", PY, GTP])
    assert bad.exit_code == 2 and bad.stderr.startswith("arena: -O: hex: option 'size'"), bad.stderr
    unnamed = CliRunner().invoke(main, ["check-engine", "-O", "size=7", PY, "-m", "engines.random_engine"])
    assert unnamed.exit_code == 2 and "name the game it is for with --game" in unnamed.stderr


def test_a_cluster_workers_handshake_refuses_the_board_too():
    """A Dask worker's handshake (the cluster's start-up check) starts the engines as a
    game would, so a refused board comes back as a refusal, which stops the run."""
    from arena.tournament.cluster import _RunState
    from arena.tournament.worker import WorkerConfig

    specs = {"small": EngineSpec("small", (PY, GTP, "--max-size", "5"), protocol="gtp"), "random": random_spec()}
    config = WorkerConfig("t", "hex", {"size": 6}, specs, TimeControl(movetime_ms=500), run_tag="board-check")
    state = _RunState(config)
    try:
        problems = state.handshake()
    finally:
        state.shutdown()
    assert list(problems) == ["small"] and list(state.refused) == ["small"]
    assert "it answered 'boardsize 6' with '? board size 6 is above" in state.refused["small"]
