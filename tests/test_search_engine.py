"""The bundled search engine: legal full games at every level through real
subprocesses, the same move for the same seed, the clock mode's margin, the Hex
swap policy, and a tiny ladder that ranks random below hard."""

from __future__ import annotations

import json
import random
import sys

import pytest
from helpers import engine_toml, run_arena, write_tournament

from arena.engine.player import EngineSpec
from arena.engine.process import EngineProcess
from arena.match import TimeControl, play_game
from arena.rules import make_game
from engines.search.engine import LEVELS, PARTS, SearchEngine
from engines.search.mcts import rank_rewards
from protocol.sdk import Clock

# Real engine processes and searches at full budgets: seconds each, more on a loaded machine.
pytestmark = pytest.mark.timeout(180)

SEARCH = (sys.executable, "-m", "engines.search")
RANDOM = (sys.executable, "-m", "engines.random_engine")

# Small boards where the game has a size, short adjudication for Bases: full games in seconds.
SMALL = {
    "hex": {"size": 5},
    "hexgo": {"size": 3},
    "groups": {"size": 3},
    "bases": {"max_plies": 24},
    "posies": {"players": 2, "variant": 2},  # the hidden-piece variant: guessed hidden posies
}


def play(
    game_name: str,
    options: dict,
    seats: list[tuple[str, ...]],
    engine_options: list[dict],
    seed: int,
    tc: TimeControl = TimeControl(movetime_ms=5000),  # noqa: B008 (frozen: one shared value is safe)
) -> dict:
    game = make_game(game_name, options)
    procs = [
        EngineProcess(EngineSpec(f"e{i}", cmd, options=tuple(opts.items())))
        for i, (cmd, opts) in enumerate(zip(seats, engine_options))
    ]
    for p in procs:
        p.start()
    try:
        return play_game(game, procs, seed=seed, time_control=tc).record
    finally:
        for p in procs:
            p.quit()


def replay(record: dict) -> None:
    """Every move legal under the referee's rules, and the game over at the end."""
    game = make_game(record["game"], record["options"])
    state = game.initial_state(record["seed"]) if record["game"] == "posies" else game.initial_state()
    for move in record["moves"]:
        state.play(move)
    assert state.is_terminal()


@pytest.mark.slow
@pytest.mark.parametrize("level", ["easy", "medium", "hard", "time"])
@pytest.mark.parametrize("game_name", sorted(PARTS))
def test_every_level_plays_legal_full_games(game_name, level):
    tc = TimeControl(movetime_ms=150 if level == "time" else 5000)
    record = play(game_name, SMALL[game_name], [SEARCH, RANDOM], [{"level": level}, {}], seed=7, tc=tc)
    assert record["termination"] == "normal", record.get("reason")
    replay(record)
    if level == "time":
        # The clock mode aims inside the move time itself: typically so, and never past the
        # referee's margin (a loaded machine may delay an answer; the bench reports by how much).
        mine = sorted(record["times_ms"][0::2])
        assert mine[len(mine) // 2] < tc.movetime_ms and mine[-1] < tc.movetime_ms + tc.margin_ms, mine


@pytest.mark.slow
@pytest.mark.parametrize("game_name", sorted(PARTS))
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_same_seed_same_move(game_name, level):
    options = {**SMALL[game_name], "players": 3} if game_name == "posies" else SMALL[game_name]
    game = make_game(game_name, options)
    rng = random.Random(1)
    state = game.initial_state(3)
    while len(state.moves) < 4:  # a position a few moves in, not over yet
        state.play(state.random_move(rng))
        if state.is_terminal():
            state = game.initial_state(3)

    def move(seed: int) -> str:
        engine = SearchEngine()
        engine.on_option("level", level)
        engine.players, engine.rng = game.players, random.Random(seed)
        return engine.choose_move(state.clone(), Clock(0, None, None, None))

    first = move(99)
    assert move(99) == first
    assert first in state.legal_moves()


@pytest.mark.slow
def test_a_whole_game_replays_from_the_seed_through_subprocesses():
    records = [
        play("groups", {"size": 4}, [SEARCH, SEARCH], [{"level": "easy"}, {"level": "medium"}], seed=5)
        for _ in range(2)
    ]
    assert records[0]["moves"] == records[1]["moves"]
    other = play("groups", {"size": 4}, [SEARCH, SEARCH], [{"level": "easy"}, {"level": "medium"}], seed=6)
    assert other["moves"] != records[0]["moves"]


def hex_engine(policy: str) -> SearchEngine:
    engine = SearchEngine()
    engine.on_option("level", "easy")
    engine.on_option("swap_policy", policy)
    return engine


@pytest.mark.parametrize("first, swaps", [("e5", True), ("b3", True), ("a5", False), ("e1", False), ("i9", False)])
def test_hex_edge_policy_swaps_exactly_off_the_edges(first, swaps):
    state = make_game("hex", {"size": 9}).initial_state()
    state.play(first)
    move = hex_engine("edge").choose_move(state.clone(), Clock(1, None, None, None))
    assert (move == "swap") is swaps


def test_hex_edge_policy_opens_on_an_edge_and_never_policy_never_swaps():
    state = make_game("hex", {"size": 9}).initial_state()
    opening = hex_engine("edge").choose_move(state.clone(), Clock(0, None, None, None))
    state.play(opening)
    assert opening[0] in "ai" or opening[1:] in ("1", "9")
    state = make_game("hex", {"size": 9}).initial_state()
    state.play("e5")
    for seed in range(5):
        engine = hex_engine("never")
        engine.rng = random.Random(seed)
        assert engine.choose_move(state.clone(), Clock(1, None, None, None)) != "swap"


@pytest.mark.slow
def test_search_policy_may_swap_the_centre():
    state = make_game("hex", {"size": 5}).initial_state()
    state.play("c3")  # the centre of 5x5 wins for Red: swapping is right
    engine = SearchEngine()
    engine.on_option("level", "hard")
    engine.on_option("swap_policy", "search")
    assert engine.choose_move(state, Clock(1, None, None, None)) == "swap"


def test_a_misspelt_option_value_stops_the_engine_with_a_reason():
    with pytest.raises(SystemExit, match="hardest.*easy, medium, hard, time"):
        SearchEngine().on_option("level", "hardest")
    assert LEVELS == ("easy", "medium", "hard", "time")


def test_rank_rewards():
    assert rank_rewards([1.0, 0.0]) == [1.0, 0.0]
    assert rank_rewards([0.5, 0.5]) == [0.5, 0.5]
    assert rank_rewards([12, 30, 12]) == [0.25, 1.0, 0.25]  # points count only through their order


@pytest.mark.slow
def test_tiny_ladder_ranks_random_below_hard(tmp_path):
    engines = engine_toml("random", "{python}", "-m", "engines.random_engine") + engine_toml(
        "hard", "{python}", "-m", "engines.search", extra='options = { level = "hard" }'
    )
    path = write_tournament(
        tmp_path, engines, game="hex", options="size = 5", rounds=2, time_control="movetime_ms = 5000"
    )
    proc = run_arena("run", path, "--out", tmp_path / "out", "--quiet")
    assert proc.returncode == 0, proc.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [row["engine"] for row in results["standings"]] == ["hard", "random"]
    games = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert len(games) == 4
    assert all(g["players"][g["winner"]] == "hard" for g in games)
