"""Head-to-head statistics: Elo difference, 95% margin and LOS, as cutechess reports them."""

import math

import pytest

from arena.ratings import elo_estimate, head_to_head, head_to_head_rows


def test_elo_difference_margin_and_los_match_the_usual_formulas():
    elo, margin, los = elo_estimate(60, 40, 0)
    assert elo == pytest.approx(-400 * math.log10(1 / 0.6 - 1))            # 70.4
    assert margin == pytest.approx(70.57, abs=0.01)                          # score 0.6 +- 1.96 * 0.049
    assert los == pytest.approx(0.5 * (1 + math.erf(20 / math.sqrt(200))))  # 97.7%
    elo, margin, los = elo_estimate(30, 30, 40)
    assert elo == 0 and los == 0.5 and margin == pytest.approx(53.16, abs=0.01)
    assert elo_estimate(40, 60, 0)[0] == pytest.approx(-70.44, abs=0.01)


def test_a_clean_sweep_has_no_finite_elo_and_no_games_no_estimate():
    assert elo_estimate(10, 0, 0)[:2] == (None, None)
    assert elo_estimate(0, 0, 0) == (None, None, 0.5)


def test_head_to_head_counts_places_pairwise_including_three_seat_games():
    records = [
        {"players": ["a", "b"], "places": [0, 1]},
        {"players": ["b", "a"], "places": [0, 0]},
        {"players": ["a", "b", "c"], "places": [1, 0, 1]},
    ]
    pairs = head_to_head(records)
    ab, ba, ac = pairs[("a", "b")], pairs[("b", "a")], pairs[("a", "c")]
    assert (ab.wins, ab.losses, ab.draws) == (1, 1, 1) and (ba.wins, ba.losses, ba.draws) == (1, 1, 1)
    assert (ac.wins, ac.losses, ac.draws) == (0, 0, 1) and pairs[("b", "c")].wins == 1
    headers, rows = head_to_head_rows(pairs, ["b", "a", "c"])
    assert [(r[0], r[1]) for r in rows] == [("b", "a"), ("b", "c"), ("a", "c")]
    assert headers[7:] == ["elo diff", "± 95%", "LOS %"]
    assert rows[0][7] == 0.0 and rows[1][7] == "inf"
