"""Standings and head-to-head statistics: forfeits, Elo difference, 95% margin and LOS, as
cutechess reports them."""

import math

import pytest

from arena.match import forfeit_before_start
from arena.record import GameRecord
from arena.results.ratings import ENV, elo_estimate, head_to_head, head_to_head_rows, standings
from arena.rules import make_game


def test_elo_difference_margin_and_los_match_the_usual_formulas():
    elo, margin, los = elo_estimate(60, 40, 0)
    assert elo == pytest.approx(-400 * math.log10(1 / 0.6 - 1))  # 70.4
    assert margin == pytest.approx(70.57, abs=0.01)  # score 0.6 +- 1.96 * 0.049
    assert los == pytest.approx(0.5 * (1 + math.erf(20 / math.sqrt(200))))  # 97.7%
    elo, margin, los = elo_estimate(30, 30, 40)
    assert elo == 0 and los == 0.5 and margin == pytest.approx(53.16, abs=0.01)
    assert elo_estimate(40, 60, 0)[0] == pytest.approx(-70.44, abs=0.01)


def test_a_clean_sweep_has_no_finite_elo_and_no_games_no_estimate():
    assert elo_estimate(10, 0, 0)[:2] == (None, None)
    assert elo_estimate(0, 0, 0) == (None, None, 0.5)


def test_head_to_head_counts_places_pairwise_including_three_seat_games():
    records = [
        GameRecord(game="hex", moves=[], players=["a", "b"], places=[0, 1], termination="normal"),
        GameRecord(game="hex", moves=[], players=["b", "a"], places=[0, 0], termination="normal"),
        GameRecord(game="hex", moves=[], players=["a", "b", "c"], places=[1, 0, 1], termination="normal"),
    ]
    pairs = head_to_head(records)
    ab, ba, ac = pairs[("a", "b")], pairs[("b", "a")], pairs[("a", "c")]
    assert (ab.wins, ab.losses, ab.draws) == (1, 1, 1) and (ba.wins, ba.losses, ba.draws) == (1, 1, 1)
    assert (ac.wins, ac.losses, ac.draws) == (0, 0, 1) and pairs[("b", "c")].wins == 1
    headers, rows = head_to_head_rows(pairs, ["b", "a", "c"])
    assert [(r[0], r[1]) for r in rows] == [("b", "a"), ("b", "c"), ("a", "c")]
    assert headers[7:] == ["elo diff", "± 95%", "LOS %"]
    assert rows[0][7] == 0.0 and (rows[1][7], rows[1][8]) == ("+inf", "")  # b won its one game with c


@pytest.mark.parametrize("players,dropped", [(2, [0, 1]), (3, [0, 2]), (3, [0, 1, 2])])
def test_seats_that_all_forfeited_have_no_result_between_them(players, dropped):
    # Engines dropped by max_failures that meet: forfeit_before_start puts them on one place.
    names = ["d1", "ok", "d2"][:players] if players == 3 else ["d1", "d2"]
    game = make_game("posies", {"players": players}) if players == 3 else make_game("hex", {"size": 5})
    record = forfeit_before_start(game, 1, names, dropped, "dropped", "dropped").model_copy(update={"id": 0})
    assert len({record["places"][s] for s in dropped}) == 1
    rows = {s.engine: s for s in standings(names, [record], players)}
    pairs = head_to_head([record])
    assert ("d1", "d2") not in pairs and ("d2", "d1") not in pairs
    for name in ("d1", "d2"):
        assert rows[name].draws == 0 and rows[name].points == 0
        assert (rows[name].mu, rows[name].sigma) == (ENV.mu, ENV.sigma)  # not rated
    if "ok" in names and 1 not in dropped:
        assert rows["ok"].wins == 1 and rows["ok"].points == 2 and pairs[("ok", "d1")].wins == 1
        assert rows["d1"].losses == 1 and rows["d1"].games == 1
    else:
        assert all(row.games == 0 for row in rows.values())  # nobody had a result: no result


def test_a_single_forfeit_is_a_rated_loss():
    record = forfeit_before_start(make_game("hex", {"size": 5}), 1, ["a", "b"], 0, "crash", "boom").model_copy(
        update={"id": 0}
    )
    rows = {s.engine: s for s in standings(["a", "b"], [record], 2)}
    assert rows["a"].losses == 1 and rows["b"].wins == 1 and rows["b"].mu > rows["a"].mu
