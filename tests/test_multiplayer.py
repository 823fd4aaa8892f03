"""Three-seat games and hidden information through real engine subprocesses."""

import json
import re
import sys
from pathlib import Path

import pytest
from helpers import WIDE, run_arena

from arena.engine.player import EngineSpec
from arena.engine.process import EngineProcess
from arena.match import TimeControl, play_game
from arena.record import starting_state
from arena.rules import make_game

ROOT = Path(__file__).resolve().parent.parent
SPY = str(Path(__file__).resolve().parent / "engines" / "spy_engine.py")
FORFEIT = str(Path(__file__).resolve().parent / "engines" / "forfeit_engine.py")


def play(game, specs: list[EngineSpec], seed: int) -> dict:
    """The record of one game between these engines, each in its own process."""
    procs = [EngineProcess(spec) for spec in specs]
    for p in procs:
        p.start()
    try:
        return play_game(game, procs, seed=seed, time_control=TimeControl(movetime_ms=2000)).record
    finally:
        for p in procs:
            p.quit()


@pytest.mark.slow
def test_hidden_posy_reaches_only_its_owner_and_is_revealed_at_the_end(tmp_path):
    game = make_game("posies", {"players": 3, "variant": 2})
    transcripts = [tmp_path / f"seat{s}.txt" for s in range(3)]
    rec = play(
        game,
        [EngineSpec(f"spy{s}", (sys.executable, SPY, str(t)), cwd=str(ROOT)) for s, t in enumerate(transcripts)],
        seed=77,
    )
    assert rec["termination"] == "normal", rec["reason"]
    referee, _ = starting_state(game, 77, deal=rec["deal"])
    for seat, path in enumerate(transcripts):
        text = path.read_text()
        private = re.findall(r"^private (.*)$", text, re.M)
        assert private == referee.private_info(seat)  # its own colour, once
        before_end = text.split("gameover")[0]
        assert before_end.count("hidden") == 1  # no other seat's piece, ever
        assert f"newgame posies {seat} 3 " in text
    # the record shows the hidden posies only because the game is over
    assert [f"hidden {c}" for c in rec["details"]["hidden"]] == [referee.private_info(s)[0] for s in range(3)]
    assert len(rec["places"]) == 3 and min(rec["places"]) == 0


@pytest.mark.slow
def test_three_player_tournament_ranks_full_tables(tmp_path):
    out = tmp_path / "out"
    proc = run_arena("run", "tournaments/posies3.toml", "--out", out, env=WIDE)  # every place column shown
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(ln) for ln in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 6 and {len(r["players"]) for r in records} == {3}
    seats = {}
    for r in records:
        assert r["termination"] == "normal", r["reason"]
        for seat, name in enumerate(r["players"]):
            seats[(name, seat)] = seats.get((name, seat), 0) + 1
    assert set(seats.values()) == {2}  # every engine in every seat equally often
    assert len({r["setup"] for r in records}) == 1  # one setup, played in every seat order
    assert len({r["deal"] for r in records}) == 6  # ... with its hidden posies dealt per game
    hidden_by_seat_order = {tuple(r["details"]["hidden"]) for r in records}
    assert len(hidden_by_seat_order) > 1
    results = json.loads((out / "results.json").read_text())
    for row in results["standings"]:
        assert sum(row["places"]) == row["games"] == 6
    assert "1st" in proc.stdout and "3rd" in proc.stdout
    verify = run_arena("verify", out / "games.jsonl")
    assert verify.returncode == 0
    for verdict, r in zip(map(json.loads, verify.stdout.splitlines()), records):
        assert verdict["scores"] == r["scores"]


@pytest.mark.slow
def test_a_mid_game_forfeit_by_the_leader_places_it_last_alone():
    """Seed 1 with these names: seat 0 leads on points when it plays an illegal move at its
    4th turn; it takes last place alone, the others are placed by their scores so far."""
    game = make_game("posies", {"players": 3, "variant": 0})
    commands = [
        (sys.executable, FORFEIT, "4"),
        (sys.executable, "-m", "engines.random_engine"),
        (sys.executable, "-m", "engines.random_engine"),
    ]
    rec = play(game, [EngineSpec(name, command, cwd=str(ROOT)) for name, command in zip("abc", commands)], seed=1)
    assert (rec["termination"], rec["forfeit_seat"]) == ("illegal", 0), rec["reason"]
    replay, _ = starting_state(game, 1, rec["players"])
    for move in rec["moves"]:
        replay.play(move)
    assert not replay.is_terminal() and rec["scores"] == replay.scores()
    leader, second, third = rec["scores"]
    assert leader > second > third  # the forfeit came from the leader, mid-game
    assert rec["places"] == [2, 0, 1] and rec["winner"] == 1
