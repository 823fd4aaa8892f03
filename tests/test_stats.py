"""Per-engine statistics: results by seat, swaps, terminations, game length, time per move,
reported depth and speed, over records the rules produced and over a real tournament."""

import json
import random

import pytest
from helpers import engine_toml, run_arena, write_tournament
from hypothesis import given
from hypothesis import strategies as st

from arena.match import forfeit_before_start
from arena.record import GameRecord
from arena.results.ratings import standings
from arena.results.stats import EngineStats, SeatStats, engine_stats, seat_name
from arena.results.store import read_folder
from arena.rules import make_game


def played(game_name, options, names, moves=(), *, seed=0, rng_seed=1, times=None, info=None, gid=0):
    """A finished record: ``moves`` first, then random legal moves to the end."""
    game = make_game(game_name, options)
    state = game.initial_state(seed)
    for move in moves:
        state.play(move)
    rng = random.Random(rng_seed)
    while not state.is_terminal():
        state.play(state.random_move(rng))
    plies = len(state.moves)
    return GameRecord(
        id=gid,
        game=game_name,
        options=game.options.model_dump(),
        seed=seed,
        setup=state.setup_token(),
        players=list(names),
        moves=list(state.moves),
        times_ms=times if times is not None else [10 * (k + 1) for k in range(plies)],
        move_info=info,
        termination="normal",
        forfeit_seat=None,
        winner=state.winner(),
        scores=state.scores(),
        places=state.places(),
    )


def test_hex_results_by_colour_swaps_and_time_per_move():
    r1 = played("hex", {"size": 4}, ["a", "b"], ["b2", "swap"], gid=0)
    r2 = played("hex", {"size": 4}, ["b", "a"], ["c3"], rng_seed=5, gid=1)
    stats = engine_stats([r1, r2], ["a", "b"])
    a, b = stats["a"], stats["b"]
    assert a.games == b.games == 2 and a.wins + b.wins == 2 and a.draws == 0
    assert (a.swapped, a.was_swapped, b.swapped, b.was_swapped) == (0, 1, 1, 0)
    assert [s.name for s in a.seats] == ["red", "blue"] and [s.games for s in a.seats] == [1, 1]
    a_red = r1["places"][0] == 0
    assert a.seats[0].points == float(a_red) and a.seats[0].score == float(a_red)
    # In Hex seats alternate: seat 0 made the even plies, each timed 10 * (ply + 1) ms.
    a_times = [10 * (k + 1) for k in range(len(r1["moves"])) if k % 2 == 0]
    a_times += [10 * (k + 1) for k in range(len(r2["moves"])) if k % 2 == 1]
    assert a.moves_timed == len(a_times) and a.max_move_ms == max(a_times)
    assert a.mean_move_ms == pytest.approx(sum(a_times) / len(a_times))
    assert a.mean_plies == pytest.approx((len(r1["moves"]) + len(r2["moves"])) / 2)
    assert a.mean_depth is None and a.nodes_per_second is None


def test_hexgo_swap_changes_who_moves_and_times_follow_the_rules():
    # After a HexGo swap seat 0 moves again (PROTOCOL.md section 6): a replay, not alternation.
    record = played("hexgo", {"size": 3}, ["p", "q"], ["b2", "swap"], rng_seed=3)
    game = make_game("hexgo", {"size": 3})
    state, movers = game.initial_state(0), []
    for move in record["moves"]:
        movers.append(state.current_player())
        state.play(move)
    assert movers[:3] == [0, 1, 0]
    stats = engine_stats([record])
    assert stats["q"].swapped == 1 and stats["p"].was_swapped == 1
    assert stats["p"].moves_timed == movers.count(0) and stats["q"].moves_timed == movers.count(1)
    assert [s.name for s in stats["p"].seats] == ["seat 0", "seat 1"]


def test_reported_depth_and_nodes_give_mean_depth_and_speed():
    record = played(
        "hex",
        {"size": 3},
        ["a", "b"],
        ["a1", "b1", "a2", "b2", "a3"],
        times=[100, 50, 300, 50, 0],
        info=[
            {"depth": 4, "nodes": 1000, "score": 0.5},
            None,
            {"depth": 6, "nodes": 5000},
            {"score": -1},
            {"nodes": 7},
        ],
    )
    a = engine_stats([record])["a"]
    assert a.mean_depth == 5 and a.depth_moves == 2
    assert a.nodes_per_second == pytest.approx(6007 * 1000 / 400)  # the 0 ms move adds no time
    assert a.as_dict()["nodes_per_second"] == round(6007 * 1000 / 400)


def test_forfeits_are_counted_for_the_offender_and_three_seat_results_pairwise():
    posies = make_game("posies", {"players": 3})
    dropped = forfeit_before_start(posies, 2, ["x", "y", "z"], [0, 2], "dropped", "gone").model_copy(update={"id": 0})
    crash = forfeit_before_start(make_game("hex", {"size": 4}), 0, ["x", "y"], 1, "crash", "boom").model_copy(
        update={"id": 1}
    )
    stats = engine_stats([dropped, crash])
    x, y, z = stats["x"], stats["y"], stats["z"]
    assert x.terminations == {"dropped": 1} and z.terminations == {"dropped": 1}
    assert y.terminations == {"crash": 1} and y.opponent_forfeits == 1 and x.opponent_forfeits == 1
    assert y.wins == 1 and y.losses == 1 and y.points == 2 and y.results == 3
    assert x.games == 2 and x.results == 2 and x.points == 1  # no result between x and z
    assert x.mean_move_ms is None and x.as_dict()["max_move_ms"] is None


def test_a_record_the_rules_cannot_replay_keeps_its_results():
    record = played("hex", {"size": 3}, ["a", "b"])
    record = record.model_copy(update={"moves": ["zz9"] + record["moves"]})
    stats = engine_stats([record])
    assert stats["a"].games == 1 and stats["a"].moves_timed == 0


@pytest.mark.slow
def test_statistics_of_a_real_tournament_add_up(tmp_path):
    engines = engine_toml("r1", "{python}", "-m", "engines.random_engine") + engine_toml(
        "r2", "{python}", "-m", "engines.random_engine"
    )
    out = tmp_path / "out"
    proc = run_arena("run", write_tournament(tmp_path, engines, rounds=2, seed=3), "-q", "--out", out)
    assert proc.returncode == 0, proc.stderr
    _, records = read_folder(out)
    stats = engine_stats(records, ["r1", "r2"])
    table = {s.engine: s for s in standings(["r1", "r2"], records, 2)}
    for name, s in stats.items():
        assert (s.games, s.wins, s.losses, s.draws) == (
            table[name].games,
            table[name].wins,
            table[name].losses,
            table[name].draws,
        )
        assert s.moves_timed > 0 and s.max_move_ms >= s.mean_move_ms >= 0
        assert sum(seat.games for seat in s.seats) == s.games == 4
    assert sum(s.moves_timed for s in stats.values()) == sum(len(r["moves"]) for r in records)


@given(
    seats=st.integers(1, 4),
    start=st.integers(0, 3),
    moves=st.integers(0, 30),
    swap_at=st.integers(-1, 30),
    data=st.data(),
)
def test_a_seats_times_are_the_times_of_its_moves_in_turn_or_not(seats, start, moves, swap_at, data):
    """Seats in turn take each seat's times as a slice; any other order (a swap that
    changes who moves, as HexGo's) as the moves it made: both give each seat its times in
    order, seats in order, as picking the times mover by mover does."""
    from arena.results.stats import _times_by_seat

    start %= seats
    movers = [(start + k) % seats for k in range(moves)]
    if 0 <= swap_at < moves:  # from here on, another order
        movers[swap_at:] = [(m + 1) % seats for m in movers[swap_at:]][::-1]
    times = data.draw(st.lists(st.integers(0, 1000), min_size=moves, max_size=moves))
    expected = [(seat, [t for t, m in zip(times, movers) if m == seat]) for seat in sorted(set(movers))]
    assert _times_by_seat(times, movers, seats) == expected


def test_the_movers_of_a_record_are_the_seats_in_turn_with_the_swap_and_none_for_a_bad_record():
    from helpers import random_game_record

    from arena.results.stats import movers_of

    record = random_game_record(0, ["a", "b"], size=3, seed=2)
    assert movers_of(record) == [k % 2 for k in range(len(record.moves))]
    swapped = GameRecord(
        game="hex",
        options={"size": 3},
        moves=["a1", "swap", "b2"],
        players=["a", "b"],
        places=[0, 1],
        termination="timeout",
    )
    assert movers_of(swapped) == [0, 1, 0, 1]  # the seat to move after the last: a rejected move's time
    assert movers_of(record.model_copy(update={"moves": ["a1", "a1"]})) is None  # not legal: no replay


def test_an_engines_figures_in_json_are_rounded_each_to_its_own_places_as_floats():
    """Scores to 4 places, depth to 2, nodes per second to a whole float (12346.0, not the int
    12346): results.json's figures keep one type whatever their value."""
    row = EngineStats(
        "e",
        games=3,
        points=2.0,
        results=3,
        seats=[SeatStats(0, "first", games=3, points=2.0, results=3)],
        plies=31,
        moves_timed=3,
        time_ms=100,
        depth_sum=22.0,
        depth_moves=3,
        nodes=12345678,
        nodes_ms=999.97,
    )
    figures = row.as_dict()
    assert figures["score"] == 0.6667 and figures["seats"] == [
        {"seat": 0, "name": "first", "games": 3, "points": 2.0, "score": 0.6667}
    ]
    assert (figures["mean_plies"], figures["mean_move_ms"], figures["mean_depth"]) == (10.3, 33.3, 7.33)
    assert json.dumps([figures["mean_depth"], figures["nodes_per_second"]]) == "[7.33, 12346048.0]"


def _hex_record(moves, **fields):
    base = {"game": "hex", "options": {"size": 3, "swap": True}, "players": ["a", "b"], "moves": moves}
    return GameRecord.model_validate({**base, **fields})


def test_both_engines_of_a_double_forfeit_have_it_counted_and_no_result():
    """Two engines that both forfeited share the last place: each has the forfeit among its
    terminations, and neither a game with a result."""
    both = _hex_record([], termination="crash", places=[0, 0], scores=[0.0, 0.0])
    table = engine_stats([both, both.replace(players=["b", "a"])])
    assert [(row.terminations, row.games, row.results) for row in table.values()] == [({"crash": 2}, 0, 0)] * 2


def test_each_swap_is_counted_even_when_the_game_ends_on_it():
    """b swapped a's first stone in both games, the second ending at the swap (a timed out):
    two swaps for b, a swapped twice."""
    whole = _hex_record(["b2", "swap", "a1", "c1", "a3", "c3", "a2"], termination="normal", winner=1, places=[1, 0])
    at_swap = _hex_record(["b2", "swap"], termination="timeout", forfeit_seat=0, winner=1, places=[1, 0])
    table = engine_stats([whole, at_swap])
    assert (table["b"].swapped, table["a"].was_swapped, table["a"].swapped, table["b"].was_swapped) == (2, 2, 0, 0)


def test_a_records_times_count_only_for_the_moves_after_its_book_and_the_one_it_lost_on():
    """Two book moves, two timed ones and the move a timed out on: three times count (a's
    10 and 30, b's 20); a fourth, more than the record's moves, is not counted. A record that
    claims more book moves than it has counts no time and still gives its statistics."""
    moves = ["a1", "b1", "a2", "b2"]
    over = dict(termination="timeout", forfeit_seat=0, winner=1, places=[1, 0], opening_plies=2)
    table = engine_stats([_hex_record(moves, options={"size": 3, "swap": False}, times_ms=[10, 20, 30, 40], **over)])
    assert [(row.moves_timed, row.time_ms) for row in table.values()] == [(2, 40), (1, 20)]
    short = dict(over, opening_plies=6, move_info=[{"depth": 3}])
    table = engine_stats([_hex_record(moves, options={"size": 3, "swap": False}, times_ms=[10], **short)])
    assert [(row.moves_timed, row.depth_moves, row.games) for row in table.values()] == [(0, 0, 1), (0, 0, 1)]


def test_a_seat_of_a_game_arena_does_not_know_is_named_by_its_number():
    assert (seat_name("hex", 0), seat_name("no such game", 0), seat_name("hex", 2)) == ("red", "seat 0", "seat 2")


def test_records_of_two_board_sizes_in_one_table_are_each_replayed_on_their_own_board():
    """A 3x3 game, then a 4x4 one whose moves (d4) the 3x3 board has not: each engine's
    moves are timed in both."""
    small = _hex_record(["a1", "b1"], options={"size": 3, "swap": False}, times_ms=[5, 5, 5], termination="timeout")
    large = _hex_record(["d4", "a1"], options={"size": 4, "swap": False}, times_ms=[5, 5, 5], termination="timeout")
    over = dict(forfeit_seat=0, winner=1, places=[1, 0])
    table = engine_stats([small.replace(**over), large.replace(**over)])
    assert [(name, row.moves_timed) for name, row in table.items()] == [("a", 4), ("b", 2)]


def test_a_stats_tally_told_nothing_replays_each_record_for_its_movers():
    """Not told the moves are legal, the tally replays them: a record whose second stone
    lands on the first has no movers, so none of its times count."""
    from arena.results.stats import StatsTally

    moves = ["a1", "a1", "b2"]
    record = _hex_record(moves, options={"size": 3, "swap": False}, times_ms=[5, 5, 5], termination="normal")
    tally = StatsTally()
    tally.add(record.replace(winner=1, places=[1, 0]))
    assert [(name, row.moves_timed) for name, row in tally.rows.items()] == [("a", 0), ("b", 0)]
