"""Bradley–Terry Elo over the field: hand-computed values, the likelihood's score equations,
unbounded ratings, and coverage of the 95% intervals on results drawn from known Elo."""

import math
import random
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from arena.match import forfeit_before_start
from arena.record import GameRecord
from arena.results.elo import (
    ELO_PER_NAT,
    NO_RATINGS,
    Z95,
    Covariance,
    EloFit,
    EloRating,
    Tally,
    _quantile,
    bootstrap_elo,
    fit_bayeselo,
    fit_elo,
    fit_tally,
    pairwise_results,
)
from arena.rules import make_game
from arena_bench.known_elo import game, has_sweep, holds_truth, simulate


def test_two_engines_match_the_closed_form():
    # 3 wins of 4: p = 0.75, difference 400 log10(3) = 190.85, split around the mean anchor.
    records = [game(k, "a", "b", 1 if k < 3 else 0) for k in range(4)]
    fit = fit_elo(records, prior=0)
    a, b = fit.rating("a"), fit.rating("b")
    assert a.elo == pytest.approx(200 * math.log10(3)) and b.elo == pytest.approx(-a.elo)
    # Information of the difference: n p (1 - p) = 0.75 in natural units; half of it each side.
    sd_diff = ELO_PER_NAT / math.sqrt(0.75)
    assert a.stderr == pytest.approx(sd_diff / 2)
    assert a.low == pytest.approx(a.elo - 1.959964 * sd_diff / 2, abs=1e-3)
    assert fit.los("a", "b") == pytest.approx(0.5 * (1 + math.erf(a.elo * 2 / sd_diff / math.sqrt(2))))
    assert fit.anchor == "mean of rated engines = 0"
    pinned = fit_elo(records, anchor="b", anchor_elo=1500, prior=0)
    assert pinned.rating("b").elo == 1500 and pinned.rating("b").stderr == 0
    assert pinned.rating("a").elo == pytest.approx(1500 + 400 * math.log10(3))
    assert pinned.rating("a").stderr == pytest.approx(sd_diff)
    assert pinned.anchor == "engine 'b' = 1500"
    assert pinned.los("a", "b") == pytest.approx(fit.los("a", "b"))


def test_bayeselo_prior_adds_virtual_draws_between_two_engines():
    # 3-1 with BayesElo's default prior of 2 virtual draws is the maximum likelihood of 4-2.
    records = [game(k, "a", "b", 1 if k < 3 else 0) for k in range(4)]
    fit, plain = fit_elo(records), fit_elo(records + [game(4, "a", "b", 0.5), game(5, "b", "a", 0.5)], prior=0)
    assert fit.prior == 2 and fit.rating("a").elo == pytest.approx(200 * math.log10(2))
    assert fit.rating("a").elo == pytest.approx(plain.rating("a").elo)
    # Information of the difference: 6 results of p = 2/3, n p (1 - p) = 4/3.
    assert fit.rating("a").stderr == pytest.approx(ELO_PER_NAT / math.sqrt(4 / 3) / 2)
    assert fit.interval_method == "curvature of the log-posterior (Laplace)"
    assert fit.method == "Bradley-Terry with BayesElo's prior of 2 virtual draws per engine"
    assert fit_elo(records, prior=0).method == "Bradley-Terry maximum likelihood"
    assert fit.as_dict()["prior"] == 2
    with pytest.raises(ValueError, match="prior"):
        fit_elo(records, prior=-1)


def test_each_argument_a_fit_refuses_is_refused_with_its_reason_in_full():
    records = [game(0, "a", "b", 1), game(1, "b", "a", 1), game(2, "a", "b", 0.5)]
    for confidence in (0, 1, -0.5, 1.5):  # open at both ends: a 0% or 100% interval is no interval
        with pytest.raises(ValueError) as bad:
            fit_elo(records, confidence=confidence)
        assert str(bad.value) == "confidence must be between 0 and 1"
    assert fit_elo(records, confidence=0.5).confidence == 0.5
    for prior in (-1, -0.001, math.inf, math.nan):
        with pytest.raises(ValueError) as bad:
            fit_elo(records, prior=prior)
        assert str(bad.value) == "prior must be a number of virtual draws, 0 or more"
    with pytest.raises(ValueError) as bad:
        fit_elo(records, anchor_elo=1500)
    assert str(bad.value) == "anchor_elo needs an anchor engine (the field's mean is 0)"
    for anchor, field in (("c", records), ("a", [game(0, "a", "b", 1)])):  # no such engine; one not rated
        with pytest.raises(ValueError) as bad:
            fit_elo(field, anchor=anchor, prior=0)
        assert str(bad.value) == f"anchor {anchor!r} is not a rated engine of this field"
    three = Tally()
    three.add_game([(three.engine("a"), three.engine("b"), 1.0), (0, three.engine("c"), 1.0), (1, 2, 0.5)])
    with pytest.raises(ValueError) as bad:
        fit_bayeselo(three)
    assert str(bad.value) == "BayesElo's model rates two-player games (White and Black) only"
    sweep = fit_elo([game(0, "a", "b", 1)], prior=0)
    assert sweep.anchor == "none: no two engines took points from each other, so no rating is finite"
    assert sweep.interval_method == "curvature of the log-likelihood (Wald)"


def test_each_engine_shares_its_virtual_draws_among_its_opponents_as_bayeselo_does():
    # a-b 4 results, b-c 2: a has 4, b 6, c 2. Engine i gives pair (i, j) prior/2 * n_ij / n_i
    # draws: a-b 1 * (4/4 + 4/6) = 5/3, b-c 1 * (2/6 + 2/2) = 4/3. At the maximum every engine's
    # expected points over real and virtual results equal its real points plus half its draws.
    records = [game(0, "a", "b", 1), game(1, "a", "b", 1), game(2, "b", "a", 1), game(3, "a", "b", 0.5)]
    records += [game(4, "c", "b", 1), game(5, "b", "c", 0)]
    fit = fit_elo(records)
    elo = {r.engine: r.elo for r in fit.ratings}
    virtual = {("a", "b"): 5 / 3, ("b", "c"): 4 / 3}
    expected, actual = dict.fromkeys(elo, 0.0), {r.engine: r.points for r in fit.ratings}
    for pair in (p for r in records for p in pairwise_results(r)):
        e = 1 / (1 + 10 ** ((elo[pair.b] - elo[pair.a]) / 400))
        expected[pair.a] += e
        expected[pair.b] += 1 - e
    for (x, y), draws in virtual.items():
        e = 1 / (1 + 10 ** ((elo[y] - elo[x]) / 400))
        expected[x] += draws * e
        expected[y] += draws * (1 - e)
        actual[x] += draws / 2
        actual[y] += draws / 2
    for name in elo:
        assert expected[name] == pytest.approx(actual[name], abs=1e-6)


def test_draws_count_as_half():
    records = [game(0, "a", "b", 1), game(1, "a", "b", 0), game(2, "a", "b", 0.5), game(3, "b", "a", 0.5)]
    fit = fit_elo(records, prior=0)
    assert fit.rating("a").elo == pytest.approx(0, abs=1e-9) and fit.rating("a").points == 2
    # 1 win 3 draws: score 5/8, difference 400 log10(5/3).
    fit = fit_elo([game(0, "a", "b", 1)] + [game(k, "a", "b", 0.5) for k in (1, 2, 3)], prior=0)
    assert fit.rating("a").elo - fit.rating("b").elo == pytest.approx(400 * math.log10(5 / 3))


def test_the_fit_solves_the_score_equations_of_the_whole_field():
    # At the maximum every engine's expected points equal its actual points; a cycle of
    # uneven results has no pairwise shortcut, so this checks the joint fit.
    rng = random.Random(4)
    records = simulate({"a": 120, "b": 0, "c": -40, "d": -200}, 12, rng)
    fit = fit_elo(records, prior=0)
    elo = {r.engine: r.elo for r in fit.ratings}
    expected = dict.fromkeys(elo, 0.0)
    for pair in (p for r in records for p in pairwise_results(r)):
        e = 1 / (1 + 10 ** ((elo[pair.b] - elo[pair.a]) / 400))
        expected[pair.a] += e
        expected[pair.b] += 1 - e
    for r in fit.ratings:
        assert expected[r.engine] == pytest.approx(r.points, abs=1e-6)
    assert sum(elo.values()) == pytest.approx(0, abs=1e-6)
    assert [r.engine for r in fit.ratings] == sorted(elo, key=lambda n: -elo[n])


def test_a_cycle_is_level():
    records = []
    for a, b in (("a", "b"), ("b", "c"), ("c", "a")):
        records += [game(len(records), a, b, 1), game(len(records) + 1, a, b, 1), game(len(records) + 2, a, b, 0)]
    fit = fit_elo(records)
    for r in fit.ratings:
        assert r.elo == pytest.approx(0, abs=1e-9)
    assert fit.los("a", "b") == pytest.approx(0.5)


def test_three_player_games_give_the_pairwise_results_their_places_imply():
    record = GameRecord(game="posies", moves=[], id=7, players=["x", "y", "z"], places=[1, 0, 1], termination="normal")
    pairs = {(p.a, p.b): p.score for p in pairwise_results(record)}
    assert pairs == {("x", "y"): 0.0, ("x", "z"): 0.5, ("y", "z"): 1.0}
    # Two dropped engines meeting have no result against each other (as in the standings), and
    # since such a game is lost before its first move, no engine played it: it gives no result
    # at all (it once gave ok a win over each; the standings still count those as forfeits).
    dropped = forfeit_before_start(
        make_game("posies", {"players": 3}), 1, ["d1", "ok", "d2"], [0, 2], "dropped", "dropped"
    ).model_copy(update={"id": 0})
    assert {(p.a, p.b) for p in pairwise_results(dropped)} == set()
    played = dropped.model_copy(update={"engine_seeds": [1, 2, 3]})  # the same places in a game played
    assert {(p.a, p.b) for p in pairwise_results(played)} == {("d1", "ok"), ("ok", "d2")}
    fit = fit_elo([record] * 3 + [record.model_copy(update={"places": [0, 1, 2]})])
    assert fit.rating("y").games == 4 and fit.rating("y").results == 8


def test_unbounded_ratings_are_none_with_their_direction():
    records = [
        game(0, "a", "b", 1),
        game(1, "a", "b", 0),
        game(2, "top", "a", 1),
        game(3, "top", "b", 1),
        game(4, "b", "low", 1),
    ]
    fit = fit_elo(records, ["a", "b", "top", "low", "idle"], prior=0)
    # a and b are level (0 Elo); b, with 2 of 4 points to a's 1 of 3, ranks first.
    assert [(r.engine, r.bound) for r in fit.ratings] == [
        ("top", "above"),
        ("b", None),
        ("a", None),
        ("low", "below"),
        ("idle", "unconnected"),
    ]
    assert fit.rating("top").elo is None and fit.rating("top").low is None
    assert fit.los("top", "a") is None and fit.los("a", "b") == pytest.approx(0.5)
    data = fit.as_dict()
    assert data["ratings"][0]["elo"] is None and data["los"]["matrix"][0][1] is None
    assert data["los"]["engines"] == ["top", "b", "a", "low", "idle"]
    with pytest.raises(ValueError, match="not a rated engine"):
        fit_elo(records, anchor="top", prior=0)


@pytest.mark.parametrize("winner", ["a", "b"])
def test_a_clean_sweep_rates_nobody_and_bounds_both_engines(winner):
    """A group of one engine measures nothing: a 20-0 is not '0 [0, 0]' for one engine and
    infinite for the other (which one would depend on the names), it is +inf and -inf."""
    loser = "b" if winner == "a" else "a"
    records = [game(k, *((winner, loser) if k % 2 else (loser, winner)), 1 if k % 2 else 0) for k in range(20)]
    for fit in (fit_elo(records, prior=0), bootstrap_elo(records, samples=50, prior=0)):
        assert [(r.engine, r.bound, r.elo, r.low, r.high) for r in fit.ratings] == [
            (winner, "above", None, None, None),
            (loser, "below", None, None, None),
        ]
        assert fit.anchor.startswith("none") and fit.los(winner, loser) is None
    with pytest.raises(ValueError, match="not a rated engine"):
        fit_elo(records, anchor=winner, prior=0)


def test_a_chain_without_upsets_puts_the_middle_engine_between():
    records = [game(0, "top", "mid", 1), game(1, "mid", "low", 1), game(2, "top", "low", 1)]
    fit = fit_elo(records, ["low", "mid", "top", "idle"], prior=0)
    assert [(r.engine, r.bound) for r in fit.ratings] == [
        ("top", "above"),
        ("mid", "between"),
        ("low", "below"),
        ("idle", "unconnected"),
    ]
    assert all(r.elo is None and r.low is None for r in fit.ratings)


def test_with_the_prior_sweeps_and_chains_are_finite_and_ordered_by_score():
    sweep = [game(k, "a", "b", 1) for k in range(20)]
    chain = [game(0, "top", "mid", 1), game(1, "mid", "low", 1), game(2, "top", "low", 1)]
    upsetless = [game(k, x, y, 1) for k, (x, y) in enumerate(("ab", "bc", "ac", "cd", "bd", "ad", "de"))]
    for records, order in ((sweep, "ab"), (chain, ["top", "mid", "low"]), (upsetless, "abcde")):
        fit = fit_elo(records)
        assert [r.engine for r in fit.ratings] == list(order)
        assert all(r.bound is None and r.low < r.elo < r.high for r in fit.ratings)
        assert fit.anchor == "mean of rated engines = 0"
    # 20-0 and 2 virtual draws: 21 of 22 points, a difference of 400 log10(21).
    fit = fit_elo(sweep)
    assert fit.rating("a").elo - fit.rating("b").elo == pytest.approx(400 * math.log10(21))
    boot = bootstrap_elo(sweep, samples=50)
    assert boot.rating("a").elo == pytest.approx(fit.rating("a").elo) and boot.rating("a").low is not None


def test_the_prior_does_not_join_groups_that_never_met():
    records = [game(k, "a", "b", k % 3 != 0) for k in range(6)] + [game(k, "x", "y", 1) for k in range(6, 9)]
    fit = fit_elo(records, ["a", "b", "x", "y", "idle"])
    assert [(r.engine, r.bound) for r in fit.ratings] == [
        ("a", None),
        ("b", None),
        ("x", "unconnected"),
        ("idle", "unconnected"),
        ("y", "unconnected"),
    ]
    assert fit.rating("x").elo is None and fit.los("a", "x") is None


def test_los_matrix_is_complementary():
    fit = fit_elo(simulate({"a": 50, "b": 0, "c": -50}, 20, random.Random(1)))
    names = [r.engine for r in fit.ratings]
    m = fit.los_matrix(names)
    for i in range(3):
        assert m[i][i] is None
        for j in range(3):
            if i != j:
                assert m[i][j] + m[j][i] == pytest.approx(1)


@pytest.mark.slow
@pytest.mark.parametrize("draw_rate,prior", [(0.0, 2.0), (0.3, 2.0), (0.0, 0.0)])
def test_intervals_cover_the_true_elo_at_about_95_percent(draw_rate, prior):
    """With BayesElo's prior (the default) and without (maximum likelihood)."""
    truth = {"a": 150, "b": 60, "c": 0, "d": -70, "e": -140}
    mean = sum(truth.values()) / len(truth)
    rng = random.Random(2024 + int(draw_rate * 10))
    covered = total = 0
    for _ in range(400):
        fit = fit_elo(simulate(truth, 16, rng, draw_rate), prior=prior)
        for r in fit.ratings:
            total += 1
            covered += r.low <= truth[r.engine] - mean <= r.high
    rate = covered / total
    if draw_rate == 0:
        assert 0.935 <= rate <= 0.965, rate  # 2000 intervals: 95% +- 1.5 points
    else:
        assert 0.95 <= rate <= 0.995, rate  # draws as coin flips: conservative, as documented


def coverage(truth, per_pair, fields, seed, prior=2.0):
    """Share of 95% intervals holding the true Elo (relative to the field's mean), an
    unbounded rating holding nothing, and the share of fields with a clean sweep of a pair."""
    rng, covered, total, swept = random.Random(seed), 0, 0, 0
    for _ in range(fields):
        records = simulate(truth, per_pair, rng)
        swept += has_sweep(records)
        for r in fit_elo(records, prior=prior).ratings:
            total += 1
            covered += holds_truth(r, truth)
    return covered / total, swept / fields


@pytest.mark.slow
def test_with_the_prior_fields_with_clean_sweeps_and_chains_are_covered():
    """Fields where clean sweeps and chains without upsets are the rule (benchmarks/
    elo_coverage.py prints the figures docs/ratings.md quotes): with the prior every interval
    is finite and about 85-90% of them hold the truth (the prior pulls the ratings of very
    uneven engines together), where the maximum-likelihood fit leaves a third to a half of the
    engines unbounded and covers far less."""
    sweeps = {"s": 700, "p": 350, "e": 0, "r": -450}  # the Hex 9 field: 6 games a pair
    rate, swept = coverage(sweeps, 6, 150, 31)
    ml, _ = coverage(sweeps, 6, 150, 31, prior=0)
    assert swept > 0.95 and 0.78 <= rate <= 0.92 and ml < 0.5, (rate, swept, ml)
    chains = {"a": 300, "b": 0, "c": -300}  # 4 games a pair: most fields are a chain A > B > C
    rate, swept = coverage(chains, 4, 150, 32)
    ml, _ = coverage(chains, 4, 150, 32, prior=0)
    assert swept > 0.9 and 0.85 <= rate <= 0.97 and ml < 0.6, (rate, swept, ml)


@pytest.mark.slow  # seconds: two bootstraps of 300 samples
def test_bootstrap_intervals_are_reproducible_and_agree_with_the_curvature():
    records = simulate({"a": 100, "b": 0, "c": -100}, 60, random.Random(9))
    wald = fit_elo(records)
    boot = bootstrap_elo(records, samples=300, seed=5)
    again = bootstrap_elo(records, samples=300, seed=5)
    assert boot.as_dict() == again.as_dict()
    assert boot.interval_method == "bootstrap over games, 300 samples, seed 5"
    for r in wald.ratings:
        b = boot.rating(r.engine)
        assert b.elo == pytest.approx(r.elo)
        assert b.stderr == pytest.approx(r.stderr, rel=0.2)
        assert b.low == pytest.approx(r.low, abs=0.5 * r.stderr)
        assert b.high == pytest.approx(r.high, abs=0.5 * r.stderr)


def test_bootstrap_sees_that_draws_make_results_less_noisy():
    records = simulate({"a": 60, "b": 0}, 300, random.Random(3), draw_rate=0.6)
    wald, boot = fit_elo(records), bootstrap_elo(records, samples=300, seed=1)
    assert boot.rating("a").stderr < 0.85 * wald.rating("a").stderr


def test_bootstrap_with_a_named_anchor():
    records = simulate({"a": 100, "b": 0, "c": -100}, 40, random.Random(11))
    boot = bootstrap_elo(records, samples=200, seed=2, anchor="c", anchor_elo=1000)
    assert boot.rating("c").elo == 1000 and boot.rating("c").low == 1000 == boot.rating("c").high
    assert boot.rating("a").low < boot.rating("a").elo < boot.rating("a").high


@pytest.mark.slow
@pytest.mark.timeout(120)  # 10 s alone; three times that on a loaded machine
def test_bootstrap_intervals_cover_the_true_elo_with_draws():
    truth = {"a": 150, "b": 60, "c": 0, "d": -70, "e": -140}
    rng, covered, total = random.Random(77), 0, 0
    for k in range(50):
        fit = bootstrap_elo(simulate(truth, 16, rng, 0.3), samples=150, seed=k)
        for r in fit.ratings:
            total += 1
            covered += r.low <= truth[r.engine] <= r.high  # the truth's mean is 0, like the anchor
    assert 0.9 <= covered / total <= 0.985, covered / total  # 250 intervals around 95%


def test_a_field_without_upsets_rates_nobody_and_orders_the_middle_by_score():
    records = [
        game(0, "a", "b", 1),
        game(1, "b", "c", 1),
        game(2, "a", "c", 1),
        game(3, "c", "d", 1),
        game(4, "b", "d", 1),
        game(5, "a", "d", 1),
        game(6, "d", "e", 1),
    ]
    fit = fit_elo(records, prior=0)
    assert [(r.engine, r.bound) for r in fit.ratings] == [
        ("a", "above"),
        ("b", "between"),
        ("c", "between"),
        ("d", "between"),
        ("e", "below"),
    ]
    assert all(r.elo is None for r in fit.ratings)


@pytest.mark.slow  # seconds: 300 simulated three-player fields, each fitted
def test_three_player_intervals_cover_the_true_elo_at_about_95_percent():
    # Plackett-Luce games: each seat's performance is its strength plus Gumbel noise, so any
    # two seats' order is Bradley-Terry with the true Elo difference, but the three results of
    # one game are related; the intervals allow for that (the fit's dispersion).
    import itertools

    truth = {"a": 150, "b": 60, "c": 0, "d": -70, "e": -140}
    rng, covered, total = random.Random(5), 0, 0
    for _ in range(300):
        records = []
        for trio in list(itertools.combinations(truth, 3)) * 4:
            perf = [truth[n] / ELO_PER_NAT - math.log(-math.log(rng.random())) for n in trio]
            order = sorted(range(3), key=lambda k: -perf[k])
            records.append(
                GameRecord(
                    game="posies",
                    moves=[],
                    id=len(records),
                    players=list(trio),
                    places=[order.index(k) for k in range(3)],
                    termination="normal",
                )
            )
        for r in fit_elo(records).ratings:
            total += 1
            covered += r.low is not None and r.low <= truth[r.engine] <= r.high
    assert 0.935 <= covered / total <= 0.97, covered / total


def test_other_confidence_levels_use_the_normal_quantile():
    records = [game(k, "a", "b", 1 if k % 3 else 0) for k in range(30)]
    wide, usual = fit_elo(records, confidence=0.99), fit_elo(records)
    ratio = (wide.rating("a").high - wide.rating("a").low) / (usual.rating("a").high - usual.rating("a").low)
    assert ratio == pytest.approx(2.5758293 / 1.9599640, rel=1e-6)  # z(0.995) / z(0.975), from the tables


def test_the_covariance_holds_an_entry_for_each_pair_of_rated_engines():
    records = [
        GameRecord(game="hex", moves=[], players=[a, b], places=[0, 1], termination="normal", id=k)
        for k, (a, b) in enumerate([("x", "y"), ("y", "z"), ("z", "x"), ("y", "x")])
    ]
    covariance = fit_elo(records, ["x", "y", "z"]).covariance
    assert len(covariance) == 9 and len(list(covariance)) == 9
    assert len(fit_elo([], ["x"]).covariance) == 0


def _bayeselo_by_hand(games, advantage=32.8, drawelo=97.3, prior=2.0):
    """BayesElo's model for two engines a and b, straight from Coulom's formulas: White wins
    with f(d + advantage - drawelo), Black with f(-d - advantage - drawelo), f the logistic
    curve in Elo, d White's Elo minus Black's; and ``prior`` virtual draws between two
    engines that met only each other, half with each colour. ``games`` are (white, score of
    white, how many). Returns a's Elo over b as bayeselo shows it (times its scale) and its sd,
    from the maximum of the log-posterior and its curvature there (by finite differences)."""

    def f(x):
        return 1 / (1 + 10 ** (-x / 400))

    played = list(games) + [("a", 0.5, prior / 2), ("b", 0.5, prior / 2)]

    def log_posterior(d):
        total = 0.0
        for white, score, times in played:
            dw = d if white == "a" else -d
            win, loss = f(dw + advantage - drawelo), f(-dw - advantage - drawelo)
            total += times * math.log({1.0: win, 0.5: 1 - win - loss, 0.0: loss}[score])
        return total

    d = minimize_scalar(lambda x: -log_posterior(x), bounds=(-1000, 1000), method="bounded", options={"xatol": 1e-9}).x
    h = 0.5
    curvature = -(log_posterior(d + h) - 2 * log_posterior(d) + log_posterior(d - h)) / h**2
    x = 10 ** (-drawelo / 400)
    scale = 4 * x / (1 + x) ** 2
    return scale * d, scale / math.sqrt(curvature), scale


def _colour_tally(games, names=("a", "b")):
    """A tally of two-player games (white, score of white, how many) between a and b; the
    engine named first in a game's seats has White."""
    tally = Tally(names)
    for white, score, times in games:
        black = "b" if white == "a" else "a"
        tally.add_game([(tally.engine(white), tally.engine(black), score)], times)
    return tally


# a White: 3 wins, 2 draws, 1 loss; b White: 1 win, 1 draw, 2 losses.
COLOURED = [("a", 1.0, 3), ("a", 0.5, 2), ("a", 0.0, 1), ("b", 1.0, 1), ("b", 0.5, 1), ("b", 0.0, 2)]


def test_bayeselo_of_two_engines_is_the_maximum_of_its_log_posterior_computed_by_hand():
    diff, sd, scale = _bayeselo_by_hand(COLOURED)
    fit = fit_bayeselo(_colour_tally(COLOURED))
    a, b = fit.rating("a"), fit.rating("b")
    # The mean anchor splits the difference and its variance: each engine has half of each.
    assert a.elo == pytest.approx(diff / 2, rel=1e-6) and b.elo == pytest.approx(-diff / 2, rel=1e-6)
    assert a.stderr == pytest.approx(sd / 2, rel=1e-5) and b.stderr == pytest.approx(sd / 2, rel=1e-5)
    assert (a.low, a.high) == pytest.approx((a.elo - Z95 * a.stderr, a.elo + Z95 * a.stderr), rel=1e-9)
    assert fit.covariance["a", "b"] == pytest.approx(-((sd / 2) ** 2), rel=1e-5)
    assert fit.los("a", "b") == pytest.approx(0.5 * (1 + math.erf(diff / sd / math.sqrt(2))), rel=1e-5)
    assert fit.model == f"bayeselo (advantage 32.8, drawelo 97.3, scale {scale:.4f})"
    assert (fit.anchor, fit.interval_method) == (
        "mean of rated engines = 0",
        "curvature of the log-posterior (Laplace)",
    )


def test_bayeselo_with_a_named_anchor_places_the_other_engine_by_the_whole_difference():
    diff, sd, _ = _bayeselo_by_hand(COLOURED)
    fit = fit_bayeselo(_colour_tally(COLOURED), anchor="b", anchor_elo=1500)
    a, b = fit.rating("a"), fit.rating("b")
    assert (b.elo, b.low, b.high, b.stderr) == (1500, 1500, 1500, 0)
    assert a.elo - 1500 == pytest.approx(diff, rel=1e-6) and a.stderr == pytest.approx(sd, rel=1e-5)
    assert fit.anchor == "engine 'b' = 1500"


@pytest.mark.parametrize("white", ["a", "b"])
def test_bayeselo_without_the_prior_finds_the_maximum_when_one_engine_always_has_white(white):
    games = [(white, 1.0, 2), (white, 0.5, 1), (white, 0.0, 1)]
    diff, sd, _ = _bayeselo_by_hand(games, prior=0)
    fit = fit_bayeselo(_colour_tally(games), prior=0)
    assert fit.rating("a").elo - fit.rating("b").elo == pytest.approx(diff, rel=1e-6)
    assert fit.rating("a").stderr == pytest.approx(sd / 2, rel=1e-5)


def test_bayeselo_rates_the_largest_group_as_if_the_unconnected_engines_were_absent():
    # a, b, c linked by games; x and y only played each other: no result measures them against
    # a, b and c, so they are unconnected, and their games change nothing of the rated three.
    games = [("a", "b", 1.0), ("b", "a", 0.5), ("b", "c", 1.0), ("c", "b", 0.0), ("c", "a", 1.0), ("a", "c", 0.5)]
    alone, field = Tally(["a", "b", "c"]), Tally(["a", "x", "b", "y", "c"])
    for tally in (alone, field):
        for white, black, score in games:
            tally.add_game([(tally.engine(white), tally.engine(black), score)])
    field.add_game([(field.engine("x"), field.engine("y"), 1.0)], 3)
    field.add_game([(field.engine("y"), field.engine("x"), 0.5)], 2)
    fit, expected = fit_bayeselo(field), fit_bayeselo(alone)
    assert [(r.engine, r.bound) for r in fit.ratings][3:] == [("x", "unconnected"), ("y", "unconnected")]
    for r in expected.ratings:
        got = fit.rating(r.engine)
        assert (got.elo, got.stderr) == pytest.approx((r.elo, r.stderr), rel=1e-9), r.engine
    assert fit.rating("x").elo is None and fit.los("a", "x") is None


def test_bayeselo_ignores_an_engines_games_against_itself():
    # One name in both seats measures nothing (without the prior, whose shares count results).
    tally = _colour_tally(COLOURED)
    plain = fit_bayeselo(tally, prior=0)
    tally.add_game([(tally.engine("b"), tally.engine("b"), 1.0)], 5)
    fit = fit_bayeselo(tally, prior=0)
    for name in "ab":
        assert (fit.rating(name).elo, fit.rating(name).stderr) == pytest.approx(
            (plain.rating(name).elo, plain.rating(name).stderr), rel=1e-9
        )


def test_bayeselo_of_a_field_without_games_rates_nobody():
    fit = fit_bayeselo(Tally(["a", "b"]))
    assert [(r.engine, r.elo, r.bound) for r in fit.ratings] == [("a", None, "unconnected"), ("b", None, "unconnected")]
    assert fit.anchor == NO_RATINGS and len(fit.covariance) == 0


def _fixed_fit(elo_a, elo_b, covariance):
    """A fit of a and b with the given Elo and covariance matrix (Elo^2)."""
    ratings = [EloRating(name, elo, elo, elo, 0.0, 1, 0.5, 1) for name, elo in (("a", elo_a), ("b", elo_b))]
    return EloFit(ratings, "mean of rated engines = 0", 0.95, "given", Covariance(["a", "b"], np.array(covariance)))


def test_los_of_an_engine_over_itself_is_one_half():
    fit = fit_elo([game(k, "a", "b", 1 if k < 3 else 0) for k in range(4)])
    assert fit.los("a", "a") == 0.5 and fit.los("b", "b") == 0.5


def test_los_without_uncertainty_in_the_difference_is_certain_by_its_sign():
    zero = [[0.0, 0.0], [0.0, 0.0]]
    assert _fixed_fit(0.5, 0.0, zero).los("a", "b") == 1.0 and _fixed_fit(0.5, 0.0, zero).los("b", "a") == 0.0
    assert _fixed_fit(30.0, 0.0, zero).los("a", "b") == 1.0 and _fixed_fit(0.0, 30.0, zero).los("a", "b") == 0.0
    assert _fixed_fit(7.0, 7.0, zero).los("a", "b") == 0.5
    # A variance that only rounding left below zero is no uncertainty either.
    assert _fixed_fit(-2.0, 0.0, [[1e-18, 1e-18], [1e-18, 0.0]]).los("a", "b") == 0.0


def test_los_with_a_variance_under_one_elo_squared_still_follows_the_normal_curve():
    # var(a - b) = 0.25 + 0.25 = 0.5: LOS = Phi(0.5 / sqrt(0.5)) = (1 + erf(0.5)) / 2.
    fit = _fixed_fit(0.5, 0.0, [[0.25, 0.0], [0.0, 0.25]])
    assert fit.los("a", "b") == pytest.approx(0.5 * (1 + math.erf(0.5)), rel=1e-12)


def test_bayeselo_rates_an_engine_that_drew_every_game_as_white_below_by_whites_advantage():
    # Draws are likeliest where White's edge is nil (d + advantage = 0, the model being symmetric
    # there), so without the prior a is 32.8 below b, times the scale; the prior's draws, half with
    # each colour, pull the two together as the log-posterior computed by hand does.
    tally = _colour_tally([("a", 0.5, 4)])
    _, _, scale = _bayeselo_by_hand([])
    plain = fit_bayeselo(tally, prior=0)
    assert plain.rating("a").elo - plain.rating("b").elo == pytest.approx(-32.8 * scale, rel=1e-9)
    diff, _, _ = _bayeselo_by_hand([("a", 0.5, 4)])
    fit = fit_bayeselo(tally)
    assert fit.rating("a").elo - fit.rating("b").elo == pytest.approx(diff, rel=1e-6)
    assert -32.8 * scale < diff < 0


def reference_bootstrap(records, samples, seed, prior, confidence=0.95):
    """The documented bootstrap done by hand for fields the prior keeps finite: resample whole
    games with ``random.Random(seed).choices``, fit each sample with :func:`fit_elo`, put the
    mean of the engines it places among the ones the whole field rates at 0 (dropping the
    samples that place none of them), and take numpy's linear percentiles and the sample
    standard deviation."""
    engines = sorted({p for r in records for p in r.players})
    group = [r.engine for r in fit_elo(records, engines, prior=prior).ratings if r.bound is None]
    rng = random.Random(seed)
    draws = {e: [] for e in group}
    for _ in range(samples):
        sample = [records[k] for k in rng.choices(range(len(records)), k=len(records))]
        fit = fit_elo(sample, engines, prior=prior)
        values = {r.engine: math.nan if r.elo is None else r.elo for r in fit.ratings}
        finite = [values[e] for e in group if not math.isnan(values[e])]
        if not finite:
            continue
        for e in group:
            draws[e].append(values[e] - sum(finite) / len(finite))
    alpha = (1 - confidence) / 2
    out = {}
    for e, values in draws.items():
        kept = [v for v in values if not math.isnan(v)]
        low, high = np.quantile(kept, [alpha, 1 - alpha]) if kept else (None, None)
        sd = float(np.std(kept, ddof=1)) if len(kept) > 1 else None
        out[e] = (low, high, sd)
    return out, draws


def test_bootstrap_intervals_are_the_percentiles_of_refits_of_resampled_games():
    # Two games a pair: samples often hold a sweep, which the prior keeps finite.
    records = [game(k, x, y, k % 2) for k, (x, y) in enumerate(["ab", "ab", "bc", "bc", "ac", "ac"])]
    boot = bootstrap_elo(records, samples=40, seed=3, confidence=0.9)
    expected, _ = reference_bootstrap(records, 40, 3, 2.0, confidence=0.9)
    assert boot.confidence == 0.9 and boot.prior == 2.0 and boot.as_dict()["confidence"] == 0.9
    for name, (low, high, sd) in expected.items():
        r = boot.rating(name)
        assert (r.low, r.high, r.stderr) == pytest.approx((low, high, sd))


def test_bootstrap_skips_samples_that_place_none_of_the_rated_engines():
    # The rated pair a-b has more games than c-d: a sample with only c-d games places neither.
    records = [game(0, "a", "b", 1), game(1, "a", "b", 0), game(2, "c", "d", 1)]
    boot = bootstrap_elo(records, samples=80, seed=0)
    expected, draws = reference_bootstrap(records, 80, 0, 2.0)
    assert len(draws["a"]) < 80  # some samples were skipped
    assert [r.engine for r in boot.ratings if r.bound is None] == ["a", "b"]
    for name in "ab":
        r = boot.rating(name)
        assert (r.low, r.high, r.stderr) == pytest.approx(expected[name])


def test_bootstrap_with_one_or_two_samples_has_no_or_a_two_point_spread():
    records = [game(k, x, y, k % 2) for k, (x, y) in enumerate(["ab", "ab", "bc", "bc", "ac", "ac"])]
    one = bootstrap_elo(records, samples=1, seed=7)
    assert all(r.stderr is None and r.low == r.high for r in one.ratings)
    two = bootstrap_elo(records, samples=2, seed=7)
    expected, draws = reference_bootstrap(records, 2, 7, 2.0)
    for r in two.ratings:
        assert (r.low, r.high, r.stderr) == pytest.approx(expected[r.engine])
    # The LOS's covariance is the two samples' (np.cov), not zero.
    assert two.covariance["a", "b"] == pytest.approx(float(np.cov(draws["a"], draws["b"])[0, 1]))
    assert two.covariance["c", "c"] == pytest.approx(float(np.var(draws["c"], ddof=1)))


def test_bootstrap_without_the_prior_leaves_interval_ends_unbounded_where_samples_do():
    """Without the prior a sample in which an engine took no points (or lost none) leaves it
    at -inf (+inf); where that happens in more than 2.5% of the samples the interval's end is
    None.  ``x`` plays only two games, so some samples leave it out (nan: not counted)."""
    pairs = ["sm", "ms", "sm", "mw", "mw", "wm", "sw", "sw", "ws", "xm", "mx"]
    records = [game(k, x, y, 1) for k, (x, y) in enumerate(pairs)]
    boot = bootstrap_elo(records, samples=120, seed=1, prior=0)
    assert [r.bound for r in boot.ratings] == [None] * 4
    # w's two wins are both missing from a sample of 11 games with chance (9/11)^11, 11%.
    assert boot.rating("w").low is None
    # s's two losses likewise: its Elo is unbounded above in about 11% of the samples.
    assert boot.rating("s").high is None


def test_a_bootstrap_that_rates_nobody_still_names_its_default_samples_and_seed():
    records = [game(k, "a", "b", 1) for k in range(4)]
    fit = bootstrap_elo(records, prior=0)
    assert fit.interval_method == "bootstrap over games, 1000 samples, seed 0"
    assert [(r.engine, r.bound) for r in fit.ratings] == [("a", "above"), ("b", "below")]


def test_a_sample_that_misses_every_game_of_a_pair_does_not_link_that_pair():
    """Some samples draw none of the b-c games: c is then unplaced in them (nan, left out),
    and a and b are fitted from the a-b games alone, as a refit of those games places them."""
    records = [
        game(0, "a", "b", 1),
        game(1, "a", "b", 0),
        game(2, "b", "c", 1),
        game(3, "b", "c", 0),
        game(4, "a", "b", 1),
    ]
    boot = bootstrap_elo(records, samples=60, seed=0)
    expected, draws = reference_bootstrap(records, 60, 0, 2.0)
    assert any(math.isnan(v) for v in draws["c"])
    for r in boot.ratings:
        assert (r.low, r.high, r.stderr) == pytest.approx(expected[r.engine])


def test_the_bootstrap_quantile_interpolates_like_numpy_and_takes_the_nearer_end_past_infinity():
    values = [-3.0, 1.0, 2.5, 7.0, 40.0]
    for q in (0.0, 0.025, 0.3, 0.5, 0.8, 0.975, 1.0):
        assert _quantile(values, q) == pytest.approx(float(np.quantile(values, q)))
    assert _quantile([4.0, 9.0], 0.975) == pytest.approx(4 + 5 * 0.975)
    assert math.isnan(_quantile([], 0.5))
    # Between a finite value and an infinite one (position 0.3 or 0.6 of the way) the nearer
    # one is taken, halfway the upper: interpolating would give inf, or nan at inf * 0.
    inf = math.inf
    assert _quantile([0.0, inf], 0.3) == 0.0 and _quantile([0.0, inf], 0.6) == inf
    assert _quantile([0.0, inf, inf], 0.25) == inf  # position 0.5
    assert _quantile([-inf, 0.0, 5.0], 0.2) == -inf and _quantile([-inf, 0.0, 5.0], 0.3) == 0.0
    assert _quantile([-inf, -inf, 1.0, inf], 0.43) == -inf  # position 1.29
    assert _quantile([1.0, 2.0, inf], 0.5) == 2.0  # position 1: exactly the finite value


def test_without_the_prior_a_field_without_games_rates_nobody_and_calls_every_engine_unconnected():
    fit = fit_elo([], ["b", "a"], prior=0)
    assert [(r.engine, r.bound, r.elo, r.low, r.high) for r in fit.ratings] == [
        ("a", "unconnected", None, None, None),
        ("b", "unconnected", None, None, None),
    ]
    assert fit.anchor == NO_RATINGS


def test_without_the_prior_of_two_equal_groups_that_never_met_the_one_with_more_results_is_rated():
    """a-b drew 1-1 in two games, x-y 2-2 in four: both groups have two engines, so the one
    with more results inside is rated (level: 0 each), though 'a' comes first by name."""
    records = [game(0, "a", "b", 1), game(1, "a", "b", 0)]
    records += [game(k, "x", "y", k % 2) for k in range(2, 6)]
    fit = fit_elo(records, prior=0)
    assert [(r.engine, r.bound) for r in fit.ratings] == [
        ("x", None),
        ("y", None),
        ("a", "unconnected"),
        ("b", "unconnected"),
    ]
    assert (fit.rating("x").elo, fit.rating("y").elo) == pytest.approx((0.0, 0.0))


def test_without_the_prior_of_three_equal_tiers_without_upsets_between_them_the_middle_one_is_rated():
    """Three groups of two (each pair 1-1 inside): a-b took a point from m, m-n from x, and
    no group took any back.  The sizes and the results inside tie, so the middle tier is
    rated (as B of A > B > C), the top one is unbounded above and the bottom one below."""
    records = [game(k, p, q, k % 2) for k, (p, q) in enumerate(["ab", "ab", "mn", "mn", "xy", "xy"])]
    records += [game(6, "a", "m", 1), game(7, "m", "x", 1)]
    fit = fit_elo(records, prior=0)
    # Ties within a side by score: a 2 of 3 before b 1 of 2, m and n both 2 of 4 (by name),
    # y 1 of 2 before x 1 of 3.
    assert [(r.engine, r.bound) for r in fit.ratings] == [
        ("a", "above"),
        ("b", "above"),
        ("m", None),
        ("n", None),
        ("y", "below"),
        ("x", "below"),
    ]
    assert (fit.rating("m").elo, fit.rating("n").elo) == pytest.approx((0.0, 0.0))


def test_a_tally_added_to_another_counts_every_game_under_this_tallys_engine_names():
    # The folder's tally names its engines d, e, c, a; the list's a, b, c, d (e is new to it).
    # Each game below is added once by name to `expected`, and to `merged` or `folder`.
    a, b, c, d, e = range(5)  # the list's indices, e appended when the folder's tally is added
    merged, folder = Tally(["a", "b", "c", "d"]), Tally(["d", "e", "c", "a"])
    fd, fe, fc, fa = range(4)  # the folder's indices
    expected = Tally(["a", "b", "c", "d", "e"])
    games = [
        (merged, [(a, b, 1.0)], [(a, b, 1.0)], 2),
        (merged, [(c, a, 0.0)], [(c, a, 0.0)], 1),
        (merged, [(a, c, 1.0), (a, d, 1.0), (c, d, 1.0)], [(a, c, 1.0), (a, d, 1.0), (c, d, 1.0)], 3),  # a, c, d
        (merged, [(b, a, 1.0), (b, c, 1.0), (a, c, 0.5)], [(b, a, 1.0), (b, c, 1.0), (a, c, 0.5)], 1),  # b; a = c
        (folder, [(fc, fa, 0.0)], [(c, a, 0.0)], 1),
        (folder, [(fd, fc, 0.5)], [(d, c, 0.5)], 2),
        (folder, [(fe, fa, 1.0)], [(e, a, 1.0)], 1),
        (folder, [(fd, fc, 0.0), (fc, fa, 0.0), (fd, fa, 0.0)], [(d, c, 0.0), (c, a, 0.0), (d, a, 0.0)], 2),  # a, c, d
        (folder, [(fd, fa, 0.5), (fd, fc, 1.0), (fa, fc, 1.0)], [(d, a, 0.5), (d, c, 1.0), (a, c, 1.0)], 4),  # d = a; c
    ]
    for tally, results, by_name, times in games:
        tally.add_game(results, times)
        expected.add_game(by_name, times)
    merged.add_tally(folder, ["d", "e", "c", "a"])
    assert merged.names == ["a", "b", "c", "d", "e"] and merged.games == 2 + 1 + 3 + 1 + 1 + 2 + 1 + 2 + 4
    i, j, s, times = merged.singles()
    assert list(zip(i.tolist(), j.tolist(), s.tolist(), times.tolist())) == [
        (a, b, 1.0, 2),
        (c, a, 0.0, 2),
        (d, c, 0.5, 2),
        (e, a, 1.0, 1),
    ]
    assert merged.several == {
        ((a, c, 1.0), (a, d, 1.0), (c, d, 1.0)): 3 + 2,
        ((a, b, 0.0), (a, c, 0.5), (b, c, 1.0)): 1,
        ((a, c, 1.0), (a, d, 0.5), (c, d, 0.0)): 4,
    }
    assert merged.several == expected.several and merged.games == expected.games
    fit, by_name = fit_tally(merged), fit_tally(expected)
    assert [r.row() for r in fit.ratings] == [r.row() for r in by_name.ratings]
    for r in by_name.ratings:
        got = fit.rating(r.engine)
        assert (got.elo, got.stderr) == pytest.approx((r.elo, r.stderr), rel=1e-9), r.engine


def test_the_prior_a_folders_settings_ask_for_is_used_only_when_it_is_a_finite_number_not_below_zero():
    from arena.results.elo import PRIOR, prior_of

    assert PRIOR == 2.0
    usable = [({"elo_prior": 0}, 0.0), ({"elo_prior": 5}, 5.0), ({"elo_prior": 0.5}, 0.5)]
    damaged = [None, {}, {"elo_prior": None}, {"elo_prior": "3"}, {"elo_prior": True}, {"elo_prior": -1}]
    damaged += [{"elo_prior": math.inf}, {"elo_prior": math.nan}]
    assert [prior_of(s) for s, _ in usable] == [p for _, p in usable]
    assert [prior_of(s) for s in damaged] == [PRIOR] * len(damaged)
    assert all(type(prior_of(s)) is float for s, _ in usable)


def test_a_rating_rounded_to_zero_from_below_is_written_as_zero_not_minus_zero():
    """-0.04 Elo rounds to 0.0 in results.json, never "-0.0" (which reads as a sign)."""
    row = EloRating("e", elo=-0.04, low=-35.04, high=-0.01, stderr=0.0, games=2, points=1.0, results=2).row()
    assert (row["elo"], row["low"], row["high"], row["stderr"]) == (0.0, -35.0, 0.0, 0.0)
    assert [math.copysign(1, row[k]) for k in ("elo", "high")] == [1.0, 1.0]


def test_three_player_games_with_an_unrated_engine_rate_the_others_as_their_results_between_them():
    """x takes first place in every game and has no finite maximum-likelihood rating; a and
    b are rated, intervals and all, as from the same results of two-player games: the
    results with x leave the dispersion as they leave the fit."""
    orders = [[0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 2, 1], [0, 2, 1], [0, 1, 1]]
    three = [
        GameRecord(game="posies", options={"players": 3}, moves=[], id=k, players=["x", "a", "b"], places=places)
        for k, places in enumerate(orders)
    ]
    two = [game(k, "a", "b", result) for k, result in enumerate([1, 1, 1, 0, 0, 0.5])]
    rows = {r.engine: r for r in fit_elo(three, prior=0).ratings}
    assert rows["x"].bound == "above"
    for alone in fit_elo(two, prior=0).ratings:
        got = rows[alone.engine]
        assert (got.elo, got.low, got.high, got.stderr) == pytest.approx(
            (alone.elo, alone.low, alone.high, alone.stderr)
        )


def test_the_los_matrix_of_certain_and_equal_ratings_is_read_without_a_numpy_warning():
    """No variance in a difference (a hand-given fit) or a difference of zero (an engine with
    itself): the matrix holds 1, 0 and 0.5 there, and no RuntimeWarning reaches the user."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _fixed_fit(30.0, 0.0, [[0.0, 0.0], [0.0, 0.0]]).los_matrix() == [[None, 1.0], [0.0, None]]
        assert _fixed_fit(7.0, 7.0, [[0.0, 0.0], [0.0, 0.0]]).los_matrix() == [[None, 0.5], [0.5, None]]


def test_with_the_prior_two_equal_unlinked_groups_rate_the_one_with_the_first_name():
    """a-b and c-d played one game each and never met: with BayesElo's prior every linked
    engine is rated, but only one group can be, and neither is larger nor has more results."""
    fit = fit_elo([game(0, "c", "d", 1), game(1, "a", "b", 1)])
    assert {r.engine: r.bound for r in fit.ratings} == {"a": None, "b": None, "c": "unconnected", "d": "unconnected"}


def test_maximum_likelihood_rates_the_middle_group_when_two_tie_on_size_and_results():
    """Pairs a, b and x, y each drew twice; c, d drew once. a beat x and y beat c, so the
    results run a-pair > x-pair > c-pair. The a and x pairs tie on size and results; the x
    pair, with engines above and below it, is rated (A > B > C rates B), not the first by name."""
    draws = [game(0, "a", "b", 0.5), game(1, "a", "b", 0.5), game(2, "x", "y", 0.5), game(3, "x", "y", 0.5)]
    records = draws + [game(4, "c", "d", 0.5), game(5, "a", "x", 1), game(6, "y", "c", 1)]
    bounds = {r.engine: r.bound for r in fit_elo(records, prior=0).ratings}
    assert bounds == {"a": "above", "b": "above", "x": None, "y": None, "c": "below", "d": "below"}


def test_a_field_whose_only_games_are_self_games_rates_nobody():
    """An engine's games against itself (one name in two seats) link it to no one."""
    fit = fit_elo([game(0, "a", "a", 1), game(1, "a", "a", 0.5)], ["a", "b"])
    assert {r.engine: (r.elo, r.bound) for r in fit.ratings} == {"a": (None, "unconnected"), "b": (None, "unconnected")}


def test_the_los_matrix_takes_a_variance_under_one_and_a_certain_difference_under_one_elo():
    """Half an Elo apart with a variance of 0.25 Elo^2: LOS 0.5 (1 + erf(0.5 / sqrt(0.5)));
    with no variance, any positive difference is certain, however small."""
    los = 0.5 * (1 + math.erf(0.5 / math.sqrt(0.5)))
    assert _fixed_fit(0.5, 0.0, [[0.25, 0.0], [0.0, 0.0]]).los_matrix() == [[None, los], [1 - los, None]]
    assert _fixed_fit(0.5, 0.0, [[0.0, 0.0], [0.0, 0.0]]).los_matrix() == [[None, 1.0], [0.0, None]]


def test_with_the_prior_of_two_unlinked_groups_of_one_size_the_one_with_more_games_is_rated():
    """a-b met once, c-d three times: the groups are the same size, and c-d's games, not its
    one pair against a-b's one pair, make it the group rated."""
    records = [game(0, "a", "b", 1), game(1, "c", "d", 1), game(2, "c", "d", 0), game(3, "c", "d", 1)]
    bounds = {r.engine: r.bound for r in fit_elo(records).ratings}
    assert bounds == {"a": "unconnected", "b": "unconnected", "c": None, "d": None}


def test_each_pairwise_result_names_the_game_it_came_from():
    record = GameRecord(game="posies", moves=[], id=7, players=["x", "y", "z"], places=[1, 0, 1], termination="normal")
    assert [(p.game, p.a, p.b) for p in pairwise_results(record)] == [(7, "x", "y"), (7, "x", "z"), (7, "y", "z")]


def test_a_tally_takes_as_many_engines_as_a_results_code_can_hold_and_refuses_one_more(monkeypatch):
    """A result's code keeps each engine's index in _ENGINE_BITS bits, so the field stops at
    2**_ENGINE_BITS engines (a million); with 2 bits, four engines are taken and a fifth is refused."""
    import arena.results.elo as elo

    monkeypatch.setattr(elo, "_ENGINE_BITS", 2)
    tally = Tally()
    assert [tally.engine(name) for name in "abcd"] == [0, 1, 2, 3]
    assert tally.engine("a") == 0  # a known engine is found, not added
    with pytest.raises(ValueError) as err:
        tally.engine("e")
    assert str(err.value) == "a rating list of more than 4 engines is not supported"
    assert tally.names == list("abcd")
