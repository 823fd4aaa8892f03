"""Standings and head-to-head statistics: forfeits, Elo difference, its 95% Wilson interval
and LOS."""

import gc
import math

import numpy as np
import pytest
import trueskill

from arena.match import forfeit_before_start
from arena.record import GameRecord
from arena.results.ratings import (
    ENV,
    NO_DRAWS,
    HeadToHead,
    PairElo,
    count_head_to_head,
    game_outcome,
    head_to_head,
    head_to_head_rows,
    ordinal,
    pair_elo,
    rate,
    standings,
    wilson_interval,
)
from arena.rules import make_game


def elo_of(score: float) -> float:
    return -400 * math.log10(1 / score - 1)


def estimate(wins: int, losses: int, draws: int) -> PairElo:
    e = pair_elo(wins, losses, draws)
    assert e is not None
    return e


@pytest.mark.parametrize(
    "successes,trials,low,high",
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion: comparison
    # of seven methods", Statistics in Medicine 17, Table I: the score method (Wilson 1927).
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_the_wilson_interval_gives_the_published_values(successes, trials, low, high):
    got = wilson_interval(successes / trials, trials)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_head_to_head_elo_is_the_scores_elo_inside_its_wilson_interval():
    e = pair_elo(60, 40, 0)
    assert e is not None and e.elo == pytest.approx(elo_of(0.6))  # 70.4, as cutechess shows it
    z2 = 1.959964**2 / 100  # Wilson's bounds written out: (p + z²/2n -+ z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)
    half = math.sqrt(1.959964**2 * 0.24 / 100 + z2 * z2 / 4)
    assert e.low == pytest.approx(elo_of((0.6 + z2 / 2 - half) / (1 + z2)), abs=1e-3)
    assert e.high == pytest.approx(elo_of((0.6 + z2 / 2 + half) / (1 + z2)), abs=1e-3)
    assert e.los == pytest.approx(0.5 * (1 + math.erf(20 / math.sqrt(200))))  # 97.7%
    even = pair_elo(30, 30, 40)  # draws count half: a score of 0.5 over 100 games
    assert even is not None and even.elo == 0 and even.los == 0.5
    assert (even.low, even.high) == pytest.approx(tuple(map(elo_of, wilson_interval(0.5, 100))))
    assert estimate(40, 60, 0).elo == pytest.approx(-70.44, abs=0.01)
    assert pair_elo(0, 0, 0) is None


@pytest.mark.parametrize("wins,losses,draws", [(5, 1, 0), (19, 1, 0), (36, 1, 0), (1, 5, 3), (2, 0, 7), (50, 3, 0)])
def test_the_interval_is_finite_and_symmetric_on_the_elo_scale(wins, losses, draws):
    """The normal approximation runs past a score of 1 for 5-1 in 6 games, 19-1 in 20 and 36-1
    in 37 (an infinite margin); Wilson's never does.  Its bounds' odds multiply to the squared
    odds of the score, so on the Elo scale it is elo -+ margin."""
    e = pair_elo(wins, losses, draws)
    assert e is not None and not e.virtual_draws
    assert all(math.isfinite(v) for v in (e.elo, e.low, e.high)) and e.low < e.elo < e.high
    assert e.elo - e.low == pytest.approx(e.high - e.elo) == pytest.approx(e.margin)
    if (wins, losses) == (19, 1):
        assert round(e.elo, 1) == 511.5 and round(e.margin, 1) == 307.6


@pytest.mark.parametrize("wins,losses,draws", [(1, 0, 0), (6, 0, 0), (0, 20, 0), (0, 3, 0), (100, 0, 0)])
def test_a_clean_sweep_counts_one_virtual_draw_and_stays_finite(wins, losses, draws):
    e = pair_elo(wins, losses, draws)
    games = wins + losses + draws
    assert e is not None and e.virtual_draws == 1 and e.label == "Wilson, 1 virtual draw"
    score = (wins + 0.5 * draws + 0.5) / (games + 1)
    assert e.elo == pytest.approx(elo_of(score))
    assert (e.low, e.high) == pytest.approx(tuple(map(elo_of, wilson_interval(score, games + 1))))
    assert (e.elo > 0) == (wins > 0) and e.low < e.elo < e.high and math.isfinite(e.high - e.low)
    more = pair_elo(wins and wins + 1, losses and losses + 1, draws)  # one more win (or loss): further out
    assert more is not None and abs(more.elo) > abs(e.elo)


@pytest.mark.parametrize("wins,losses,draws", [(0, 0, 4), (0, 2, 3), (3, 0, 1), (0, 0, 1)])
def test_a_pair_without_a_win_on_one_side_but_with_draws_is_no_sweep(wins, losses, draws):
    """Draws give the side without a win points, so its score is strictly inside 0..1: the
    Elo is the score's own, with no virtual draw, and only draws give 0 Elo and an LOS of 50%."""
    e = estimate(wins, losses, draws)
    games = wins + losses + draws
    score = (wins + 0.5 * draws) / games
    assert e.virtual_draws == 0 and e.label == "Wilson"
    assert e.elo == pytest.approx(elo_of(score))
    assert (e.low, e.high) == pytest.approx(tuple(map(elo_of, wilson_interval(score, games))))
    assert e.los == (
        0.5 if wins == losses else pytest.approx(0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses)))))
    )


def test_a_pair_that_only_drew_shows_zero_elo_and_even_los():
    records = [
        GameRecord(game="hex", moves=[], players=seats, places=[0, 0], termination="normal")
        for seats in (["a", "b"], ["b", "a"], ["a", "b"])
    ]
    pairs = head_to_head(records)
    assert [(p.wins, p.losses, p.draws) for p in (pairs[("a", "b")], pairs[("b", "a")])] == [(0, 0, 3), (0, 0, 3)]
    _, rows = head_to_head_rows(pairs, ["a", "b"])
    assert rows == [["a", "b", 3, 0, 0, 3, 50.0, "0.0", round(estimate(0, 0, 3).margin, 1), 50.0]]


COVERAGE_GAMES = (6, 20, 100)
COVERAGE_ELO = (0, 100, 300)


def coverage(games: int, elo: float, draw_rate: float, rng: np.random.Generator, tests: int = 4000) -> float:
    """How often the head-to-head interval of ``games`` games holds the true Elo difference."""
    score = 1 / (1 + 10 ** (-elo / 400))
    wins_p = score - draw_rate / 2
    results = rng.multinomial(games, [wins_p, 1 - draw_rate - wins_p, draw_rate], size=tests)
    outcomes, counts = np.unique(results, axis=0, return_counts=True)
    held = 0
    for (wins, losses, draws), n in zip(outcomes, counts):
        e = pair_elo(int(wins), int(losses), int(draws))
        assert e is not None and math.isfinite(e.low) and math.isfinite(e.high)
        held += n * (e.low <= elo <= e.high)
    return held / tests


def test_the_head_to_head_interval_holds_the_true_elo_95_percent_of_the_time():
    """Matches drawn from a known Elo difference (4000 each, fixed seed): without draws (Hex)
    Wilson's coverage swings around 95% with the few scores a short match can give; with a
    quarter of the games drawn (Groups, Bases) it is higher, since a draw varies less than the
    win-or-loss the interval assumes."""
    rng = np.random.default_rng(2026)
    figures = {}
    for draw_rate in (0.0, 0.25):
        for games in COVERAGE_GAMES:
            for elo in COVERAGE_ELO:
                figures[draw_rate, games, elo] = coverage(games, elo, draw_rate, rng)
    for (draw_rate, games, elo), held in figures.items():  # shown with pytest -s
        print(f"coverage: draws {draw_rate:.2f}, {games:3d} games, Elo {elo:3d}: {100 * held:.1f}%")
    for (draw_rate, games, elo), held in figures.items():
        low, high = (0.93, 0.99) if draw_rate == 0 else (0.95, 0.999)
        assert low <= held <= high, (draw_rate, games, elo, held)
    assert np.mean([v for (d, _, _), v in figures.items() if d == 0]) == pytest.approx(0.95, abs=0.015)


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
    assert headers[7:] == ["head-to-head Elo", "± 95% (Wilson)", "LOS %"]
    assert rows[0][7] == "0.0" and rows[0][8] == round(estimate(1, 1, 1).margin, 1)
    assert (rows[1][7], rows[1][8]) == ("190.8†", 434.0)  # b won its one game with c: one virtual draw


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
        # the standings count the forfeits; head to head, like every rating, only games played
        # (it once counted this one as ok's win over d1)
        assert rows["ok"].wins == 1 and rows["ok"].points == 2 and ("ok", "d1") not in pairs
        assert rows["d1"].losses == 1 and rows["d1"].games == 1
    else:
        assert all(row.games == 0 for row in rows.values())  # nobody had a result: no result


def test_a_single_forfeit_is_a_rated_loss():
    """A forfeit in a game the engine played (announced: engine seeds given) is a rated loss;
    the same lost before its first move (it could not start) is a loss in the standings that
    TrueSkill does not rate (it once was rated)."""
    unplayed = forfeit_before_start(make_game("hex", {"size": 5}), 1, ["a", "b"], 0, "crash", "boom").model_copy(
        update={"id": 0}
    )
    record = unplayed.model_copy(update={"engine_seeds": [1, 2]})
    rows = {s.engine: s for s in standings(["a", "b"], [record], 2)}
    assert rows["a"].losses == 1 and rows["b"].wins == 1 and rows["b"].mu > rows["a"].mu
    rows = {s.engine: s for s in standings(["a", "b"], [unplayed], 2)}
    assert rows["a"].losses == 1 and rows["b"].wins == 1 and rows["b"].mu == rows["a"].mu == ENV.mu


def test_the_closed_form_two_player_update_is_the_factor_graphs():
    """TrueSkill's 1-v-1 update in closed form equals the library's factor graph (wins and
    draws, both draw settings, ratings far apart and close), and more players still go
    through the library."""
    import random

    from arena.results.ratings import NO_DRAWS, rate

    rng = random.Random(7)
    for env in (ENV, NO_DRAWS):
        for _ in range(400):
            a = env.create_rating(rng.uniform(-10, 60), rng.uniform(0.3, 9))
            b = env.create_rating(rng.uniform(-10, 60), rng.uniform(0.3, 9))
            places = rng.choice([[0, 1], [1, 0], [0, 0]] if env is ENV else [[0, 1], [1, 0]])
            want = [r for (r,) in env.rate([(a,), (b,)], ranks=places)]
            got = rate(env, [a, b], places)
            for w, g in zip(want, got, strict=True):
                assert abs(w.mu - g.mu) < 1e-9 and abs(w.sigma - g.sigma) < 1e-9
    three = [ENV.create_rating() for _ in range(3)]
    assert [r.mu for r in rate(ENV, three, [0, 1, 2])] == [
        r.mu for (r,) in ENV.rate([(r,) for r in three], ranks=[0, 1, 2])
    ]


def test_standings_counted_one_game_at_a_time_are_the_standings_of_all():
    from helpers import random_record

    from arena.results.ratings import StandingsTally

    names = ["a", "b", "c"]
    records = [
        random_record("hex", {"size": 3}, k, [names[k % 3], names[(k + 1) % 3]]).replace(id=k) for k in range(12)
    ]
    history: dict = {}
    whole = standings(names, records, 2, history, can_draw=False)
    tally = StandingsTally(names, 2, can_draw=False, history=True)
    for record in records:
        tally.add(record)
    assert tally.standings() == whole and tally.history == history


@pytest.mark.parametrize("place", range(4))
@pytest.mark.parametrize("others", [[0], [1], [2], [0, 1], [1, 1], [2, 3], [0, 0, 3], [3, 2, 1]])
def test_a_game_outcome_is_the_points_and_counter_its_places_give(place, others):
    better = [p for p in others if p < place]
    level = [p for p in others if p == place]
    points, outcome = game_outcome(place, others)
    assert points == len(others) - len(better) - len(level) + 0.5 * len(level)
    assert isinstance(points, float)  # as the tables and results.json print it
    assert outcome == ("losses" if better else "draws" if level else "wins")


def test_places_are_headed_as_ordinals():
    assert [ordinal(n) for n in range(1, 7)] == ["1st", "2nd", "3rd", "4th", "5th", "6th"]


def test_the_draws_w_is_the_librarys_where_the_library_can_compute_it():
    import trueskill

    from arena.results.ratings import _w_draw

    env = trueskill.TrueSkill()
    for t in (-3.0, -1.2, -0.3, 0.0, 0.3, 1.2, 3.0):
        for eps in (0.05, 0.2, 0.74, 1.5):
            assert _w_draw(env, t, eps) == pytest.approx(env.w_draw(t, eps), rel=1e-12, abs=1e-15), (t, eps)
    assert _w_draw(env, 40.0, 0.74) == 0.0  # past the floats: no w, and the caller hands the game to the library


def _library_update(env, ratings, places):
    return [r for (r,) in env.rate([(r,) for r in ratings], ranks=places)]


def test_the_closed_form_update_takes_each_environments_own_draw_margin():
    """Environments made one after another (a freed one's id is a later one's), of one draw
    probability and three betas: each update is the factor graph's of its own environment, whose
    draw margin grows with beta."""
    for beta in (10.0, 3.0, 5.0) * 3:
        env = trueskill.TrueSkill(beta=beta, draw_probability=0.2)
        a, b = env.create_rating(30, 4), env.create_rating(20, 6)
        for places in ([0, 0], [0, 1], [1, 0]):
            for want, got in zip(_library_update(env, [a, b], places), rate(env, [a, b], places), strict=True):
                assert (got.mu, got.sigma) == pytest.approx((want.mu, want.sigma), abs=1e-9), (beta, places)
        del env  # freed before the next is made
        gc.collect()


def test_a_two_player_game_is_rated_in_closed_form_without_building_the_factor_graph(monkeypatch):
    env = trueskill.TrueSkill(draw_probability=0.1)
    monkeypatch.setattr(env, "rate", lambda *args, **kwargs: pytest.fail("the factor graph was built"))
    a, b = env.create_rating(25, 8), env.create_rating(28, 3)
    assert [round(r.mu, 3) for r in rate(env, [a, b], [1, 0])] == [round(r.mu, 3) for r in rate(ENV, [a, b], [1, 0])]
    assert rate(env, [a, b], [0, 0])[0].mu > a.mu  # a drew with the stronger b


def test_updates_the_closed_form_cannot_take_are_the_librarys_own():
    """A draw where no draw is possible (NO_DRAWS: its w rounds past 1) is the factor graph's
    update, exactly, with the draw kept a draw; ratings 230 apart (w past 0 or 1) raise the
    library's own error; three players' places go to the library as given."""
    a, b = NO_DRAWS.create_rating(0.7, 0.5), NO_DRAWS.create_rating(0, 0.5)
    assert rate(NO_DRAWS, [a, b], [0, 0]) == _library_update(NO_DRAWS, [a, b], [0, 0]) != rate(NO_DRAWS, [a, b], [0, 1])
    for gap, places in ((229.6, [0, 0]), (227.5, [1, 0])):
        far = [ENV.create_rating(gap, 0.5), ENV.create_rating(0, 0.5)]
        with pytest.raises(FloatingPointError):
            rate(ENV, far, places)
    three = [ENV.create_rating(20, 5), ENV.create_rating(25, 6), ENV.create_rating(30, 7)]
    got = rate(ENV, three, [2, 0, 1])
    assert got == _library_update(ENV, three, [2, 0, 1]) and got[1].mu > three[1].mu and got[0].mu < three[0].mu


def test_standings_rate_with_draws_possible_unless_told_the_game_cannot_draw():
    """Rated without a game's word, a game is one that can end in a draw (TrueSkill's draw
    margin in the update), which moves a decisive result's ratings less."""
    record = GameRecord(
        id=0, game="hex", moves=[], players=["a", "b"], termination="normal", winner=0, places=[0, 1], scores=[1.0, 0.0]
    )
    mu = lambda rows: [row.mu for row in rows]  # noqa: E731
    told = {can: mu(standings(["a", "b"], [record], 2, can_draw=can)) for can in (True, False)}
    assert mu(standings(["a", "b"], [record], 2)) == told[True] != told[False]


def test_a_games_head_to_head_entries_name_both_engines_each_way():
    record = GameRecord(
        id=0, game="hex", moves=[], players=["a", "b"], termination="normal", winner=1, places=[1, 0], scores=[0.0, 1.0]
    )
    pairs: dict = {}
    count_head_to_head(pairs, record)
    assert pairs == {("a", "b"): HeadToHead("a", "b", losses=1), ("b", "a"): HeadToHead("b", "a", wins=1)}


def test_head_to_head_entries_add_up_over_games():
    """a loses twice to b and draws once: each entry holds every game, both ways."""
    lost = GameRecord(
        id=0, game="hex", moves=[], players=["a", "b"], termination="normal", winner=1, places=[1, 0], scores=[0.0, 1.0]
    )
    drawn = lost.replace(id=2, game="groups", winner=None, places=[0, 0], scores=[0.5, 0.5])
    pairs: dict = {}
    for record in (lost, lost.replace(id=1), drawn):
        count_head_to_head(pairs, record)
    assert pairs == {
        ("a", "b"): HeadToHead("a", "b", losses=2, draws=1),
        ("b", "a"): HeadToHead("b", "a", wins=2, draws=1),
    }


def test_a_double_forfeit_is_tallied_but_not_rated_and_games_are_rated_in_id_order():
    """Both seats forfeited: no rating moves (TrueSkill would read the shared place as a draw).
    Games given out of order are rated by id, so the later result weighs as the later one."""
    both = GameRecord(
        id=0, game="hex", moves=[], players=["a", "b"], termination="crash", places=[0, 0], scores=[0.0, 0.0]
    )
    rows = standings(["a", "b"], [both], 2)
    assert [(row.mu, row.sigma, row.games) for row in rows] == [(ENV.mu, ENV.sigma, 0)] * 2
    a_wins = GameRecord(
        id=0, game="hex", moves=[], players=["a", "b"], termination="normal", winner=0, places=[0, 1], scores=[1.0, 0.0]
    )
    b_wins = a_wins.replace(id=1, players=["b", "a"])
    in_order = [row.mu for row in standings(["a", "b"], [a_wins, b_wins], 2)]
    assert [row.mu for row in standings(["a", "b"], [b_wins, a_wins], 2)] == in_order
    assert in_order[1] > in_order[0]  # b won last


def test_a_standings_tally_told_nothing_rates_a_game_that_can_draw_and_keeps_no_history():
    from arena.results.ratings import StandingsTally

    record = GameRecord(
        id=0, game="hex", moves=[], players=["a", "b"], termination="normal", winner=0, places=[0, 1], scores=[1.0, 0.0]
    )
    tally = StandingsTally(["a", "b"], 2)
    tally.add(record)
    assert [row.mu for row in tally.standings()] == [
        row.mu for row in standings(["a", "b"], [record], 2, can_draw=True)
    ]
    assert tally.history == {}


def test_each_environments_draw_margin_is_its_own_when_none_is_cached_yet(monkeypatch):
    """With an empty cache the margin is worked out from the environment given, not the
    library's global one (whose beta is the default)."""
    from arena.results import ratings

    monkeypatch.setattr(ratings, "_MARGINS", {})
    env = trueskill.TrueSkill(beta=10.0, draw_probability=0.2)
    a, b = env.create_rating(30, 4), env.create_rating(20, 6)
    want = _library_update(env, [a, b], [0, 0])
    got = rate(env, [a, b], [0, 0])
    assert [x for r in got for x in (r.mu, r.sigma)] == pytest.approx(
        [x for r in want for x in (r.mu, r.sigma)], abs=1e-9
    )
