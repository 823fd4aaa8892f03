"""The SPRT's statistics, tested as statistics: published reference values, the formulas
checked by an independent computation, and error rates of many simulated tests."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from pydantic import ValidationError

from arena.record import GameRecord
from arena.results.sprt import (
    NELO_PER_T,
    NO_DECISION,
    PAIR_SCORES,
    Z95,
    EloEstimate,
    SprtSettings,
    SprtTest,
    elo_estimate,
    llr,
    logistic_score,
    mean_var,
    mle_with_mean,
    mle_with_t,
    pair_outcome,
    sprt_lines,
)

# fastchess's output for pentanomial counts [LL, LD, WL+DD, WD, WW] under its default
# model (normalized, elo0 = 0, elo1 = 10, alpha = beta = 0.05), as published in the
# dev log of the eschec engine (KSaiAkshit/eschec, docs/dev_log.md, two versions):
# "Ptnml(0-2): [...]", "LLR: x", "Elo: e +/- d, nElo: n +/- m", "LOS: l %".
FASTCHESS = [
    # counts,              LLR,   Elo,    +/-,   nElo,   +/-,    LOS %
    ([1, 11, 47, 25, 16], 1.71, 77.71, 33.03, 117.50, 48.15, 100.00),
    ([1, 24, 42, 25, 8], 0.60, 26.11, 31.23, 40.51, 48.15, 95.04),
    ([2, 23, 32, 35, 8], 0.92, 41.89, 33.28, 61.39, 48.15, 99.38),
    ([0, 0, 3, 40, 7], 1.45, 209.91, 30.05, 603.02, 68.10, 100.00),
    ([0, 2, 8, 10, 0], 0.35, 70.44, 53.06, 148.15, 107.67, 99.65),
    ([2, 8, 22, 14, 4], 0.38, 34.86, 45.90, 52.38, 68.10, 93.42),
    ([0, 1, 99, 0, 0], -0.37, -1.74, 3.39, -24.69, 48.15, 15.74),
]
FASTCHESS_DEFAULT = SprtSettings(elo0=0, elo1=10, model="normalized")


@pytest.mark.parametrize("counts, ref_llr, ref_elo, ref_err, ref_nelo, ref_nerr, ref_los", FASTCHESS)
def test_matches_fastchess_published_output(counts, ref_llr, ref_elo, ref_err, ref_nelo, ref_nerr, ref_los):
    assert float(llr(counts, FASTCHESS_DEFAULT)) == pytest.approx(ref_llr, abs=0.006)
    e = elo_estimate(counts)
    assert e.elo == pytest.approx(ref_elo, abs=0.006)
    assert (e.elo_high - e.elo_low) / 2 == pytest.approx(ref_err, abs=0.006)
    assert e.nelo == pytest.approx(ref_nelo, abs=0.006)
    assert e.nelo_error == pytest.approx(ref_nerr, abs=0.006)
    assert 100 * e.los == pytest.approx(ref_los, abs=0.006)


def _llr_by_hand(counts: list[int], elo0: float, elo1: float) -> float:
    """The logistic GSPRT straight from Proposition 1.1 of Van den Bergh's "Support for the
    MLE of a multinomial" (fishtest's LLRcalc.MLE_expected), scalar, by plain bisection:
    p_i = phat_i / (1 + x (a_i - s)), x the root of sum phat_i (a_i - s) / (1 + x (a_i - s))."""
    counts = [c if c else 1e-3 for c in counts]  # fishtest's regularize
    n = sum(counts)
    phat = [c / n for c in counts]
    a = [0, 0.25, 0.5, 0.75, 1]

    def mle(s: float) -> list[float]:
        lo, hi = -1 / (1 - s) + 1e-15, 1 / s - 1e-15
        for _ in range(200):
            x = (lo + hi) / 2
            f = sum(p * (ai - s) / (1 + x * (ai - s)) for p, ai in zip(phat, a))
            lo, hi = (x, hi) if f > 0 else (lo, x)
        return [p / (1 + x * (ai - s)) for p, ai in zip(phat, a)]

    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    p0, p1 = mle(s0), mle(s1)
    return n * sum(p * math.log(q1 / q0) for p, q0, q1 in zip(phat, p0, p1))


@pytest.mark.parametrize("counts", [[3, 10, 20, 12, 5], [0, 4, 30, 2, 0], [100, 0, 0, 0, 1], [7, 1, 0, 0, 9]])
@pytest.mark.parametrize("elo0, elo1", [(0, 5), (-3, 3), (10, 40)])
def test_logistic_llr_matches_the_formula_computed_by_hand(counts, elo0, elo1):
    settings = SprtSettings(elo0=elo0, elo1=elo1, model="logistic")
    assert float(llr(counts, settings)) == pytest.approx(_llr_by_hand(counts, elo0, elo1), rel=1e-8, abs=1e-9)


def test_logistic_llr_is_close_to_the_brownian_approximation_for_small_elo_gaps():
    # Van den Bergh, "GSPRT approximation" (fishtest LLRcalc.LLR_alt2):
    # LLR ~ N (s1 - s0) (2 s - s0 - s1) / (2 var).
    counts = [400, 2100, 4200, 2300, 500]
    settings = SprtSettings(elo0=0, elo1=2, model="logistic")
    s, var = mean_var(np.asarray(counts) / sum(counts))
    s0, s1 = logistic_score(0), logistic_score(2)
    approx = sum(counts) * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)
    assert float(llr(counts, settings)) == pytest.approx(approx, rel=0.01)


def test_the_mles_satisfy_their_constraints():
    phat = np.array([0.1, 0.2, 0.35, 0.25, 0.1])
    for s in (0.3, 0.5, 0.61):
        p = mle_with_mean(phat, s)
        assert p.sum() == pytest.approx(1) and (p @ PAIR_SCORES) == pytest.approx(s, abs=1e-12)
    for t in (-0.2, 0.0, 0.15):
        mu, var = mean_var(mle_with_t(phat, t))
        assert (mu - 0.5) / math.sqrt(var) == pytest.approx(t, abs=1e-9)


# -- error rates of simulated tests -------------------------------------------

BASE = np.array([0.05, 0.2, 0.5, 0.2, 0.05])  # a drawish pair distribution, tilted to each truth


def _truth(settings: SprtSettings, elo: float) -> np.ndarray:
    """A pentanomial distribution whose Elo is exactly ``elo`` in the test's model."""
    if settings.model == "logistic":
        return mle_with_mean(BASE, logistic_score(elo))
    return mle_with_t(BASE, math.sqrt(2) * elo / NELO_PER_T)


CHUNK = 8  # pairs drawn ahead per LLR call: one call for many pairs, few pairs drawn past a decision


def _simulate(tests: list[SprtSettings], truth: np.ndarray, runs: int, seed: int) -> np.ndarray:
    """``runs`` tests at once, each a walk of the library's LLR over its pentanomial counts pair
    by pair; per settings, +1 where H1 was accepted, -1 for H0 (shape: settings x runs).

    Settings of one model and one pair of hypotheses have the same LLR walk and differ only in
    their bounds, so one batch of walks serves them all: a walk goes on until every settings has
    its decision, the first of its own bounds the walk crossed. The pairs are drawn ``CHUNK``
    at a time and the LLR taken after each of them in one call; those drawn after a walk's
    decision are thrown away, as a test stops there."""
    rng = np.random.default_rng(seed)
    counts = np.zeros((runs, 5))
    decided = np.zeros((len(tests), runs), dtype=int)
    while (active := np.flatnonzero((decided == 0).any(axis=0))).size:
        outcomes = rng.choice(5, size=(active.size, CHUNK), p=truth)
        walk = counts[active, None, :] + np.eye(5)[outcomes].cumsum(axis=1)  # the counts after each pair
        value = llr(walk, tests[0])  # the same for every settings (see above)
        for row, settings in enumerate(tests):
            up, down = value >= settings.upper, value <= settings.lower
            first = (up | down).argmax(axis=1)
            newly = (up | down).any(axis=1) & (decided[row, active] == 0)
            decided[row, active[newly]] = np.where(up[newly, first[newly]], 1, -1)
        counts[active] = walk[:, -1]
    return decided


# The tolerance is 3.5 binomial standard errors of ``runs`` tests: a correct SPRT misses it with
# probability 5e-4 per rate (0.4% for the 8 rates below). 2000 logistic tests give a tolerance
# of +-0.011 to +-0.031 around the rates 0.02 to 0.95, 800 normalized ones (each costs more:
# the normalized MLE is iterated) +-0.027 to +-0.050 around 0.1 to 0.95, so a rate taken from
# the other bound (alpha and beta swapped: 0.02 for 0.2, 0.05 for 0.2) is 3 tolerances out or more.
ERROR_RATE_CASES = [
    # model, elo0, elo1, runs, (alpha, beta) of the settings judged on the same walks
    ("logistic", 0, 20, 2000, [(0.05, 0.05), (0.02, 0.2)]),
    ("normalized", 0, 25, 800, [(0.1, 0.1), (0.2, 0.05)]),
]


@pytest.mark.slow
@pytest.mark.timeout(120)  # a few seconds of CPU; more on a busy machine
@pytest.mark.parametrize("model, elo0, elo1, runs, rates", ERROR_RATE_CASES)
@pytest.mark.parametrize("at", ["elo0", "elo1"])
def test_error_rates_of_simulated_tests(model, elo0, elo1, runs, rates, at):
    """At elo0 the share of tests accepting H1 is alpha, at elo1 it is 1 - beta, for alpha =
    beta and alpha != beta (where a swap of the two would move each rate far outside its
    tolerance). Wald's bounds make the true rates a little smaller (the LLR overshoots them),
    so the tolerance allows nothing for the overshoot."""
    tests = [SprtSettings(elo0=elo0, elo1=elo1, model=model, alpha=a, beta=b) for a, b in rates]
    decided = _simulate(tests, _truth(tests[0], getattr(tests[0], at)), runs, seed=2026)
    for settings, decisions in zip(tests, decided):
        target = settings.alpha if at == "elo0" else 1 - settings.beta
        accepted_h1 = float(np.mean(decisions == 1))
        tolerance = 3.5 * math.sqrt(target * (1 - target) / runs)
        assert abs(accepted_h1 - target) <= tolerance, (settings, accepted_h1, target, tolerance)


# -- pairs in schedule order --------------------------------------------------


def _game(index: int, players: list[str], places: list[int]) -> GameRecord:
    return GameRecord(game="hex", moves=[], id=index, players=players, places=places)


def test_pair_outcome_counts_half_points_of_the_engine():
    win, loss, draw = [0, 1], [1, 0], [0, 0]
    assert pair_outcome(_game(0, ["a", "b"], win), _game(1, ["b", "a"], loss), "a") == 4  # WW
    assert pair_outcome(_game(0, ["a", "b"], win), _game(1, ["b", "a"], win), "a") == 2  # WL
    assert pair_outcome(_game(0, ["a", "b"], draw), _game(1, ["b", "a"], draw), "a") == 2  # DD
    assert pair_outcome(_game(0, ["a", "b"], loss), _game(1, ["b", "a"], draw), "a") == 1  # LD
    assert pair_outcome(_game(0, ["a", "b"], loss), _game(1, ["b", "a"], win), "a") == 0  # LL


def _records(pairs: int, seed: int) -> list[GameRecord]:
    """Games of a stronger 'a' against 'b', two per pair with seats swapped."""
    rng = random.Random(seed)
    games = []
    for k in range(pairs):
        for j, seats in enumerate((["a", "b"], ["b", "a"])):
            a_wins = rng.random() < 0.7
            places = [0, 1] if (seats[0] == "a") == a_wins else [1, 0]
            games.append(_game(2 * k + j, seats, places))
    return games


def _run(records: list[GameRecord], settings: SprtSettings) -> SprtTest:
    test = SprtTest(settings, "a", "b", max_pairs=10_000)
    for record in records:
        if test.add(record):
            break
    return test


def test_decision_does_not_depend_on_the_order_games_finish():
    settings = SprtSettings(elo0=0, elo1=50, model="logistic")
    records = _records(400, seed=7)
    in_order = _run(records, settings)
    assert in_order.decision == "H1" and 0 < in_order.pairs < 400
    for seed in range(5):
        shuffled = records[:]
        # Workers finish out of order, but only a few games apart.
        for i in range(len(shuffled) - 1):
            if random.Random(seed * 1000 + i).random() < 0.5:
                shuffled[i], shuffled[i + 1] = shuffled[i + 1], shuffled[i]
        again = _run(shuffled, settings)
        assert (again.decision, again.pairs, again.counts, again.llr) == (
            in_order.decision,
            in_order.pairs,
            in_order.counts,
            in_order.llr,
        )


def test_a_missing_game_holds_the_count_at_its_pair():
    settings = SprtSettings(elo0=0, elo1=50, model="logistic")
    records = _records(50, seed=1)
    test = SprtTest(settings, "a", "b", max_pairs=10_000)
    for record in records:
        if record["id"] != 7:
            test.add(record)
    assert test.pairs == 3 and test.decision is None


def test_max_pairs_ends_inconclusive():
    settings = SprtSettings(elo0=-5, elo1=5, model="logistic")
    test = SprtTest(settings, "a", "b", max_pairs=10)
    for i in range(20):
        test.add(_game(i, ["a", "b"] if i % 2 == 0 else ["b", "a"], [0, 0]))
    assert test.decision == "inconclusive" and test.pairs == 10
    summary = test.summary().as_dict()
    assert summary["pentanomial"] == {"LL": 0, "LD": 0, "WL+DD": 10, "WD": 0, "WW": 0}
    assert summary["lower_bound"] == pytest.approx(math.log(0.05 / 0.95), abs=1e-4)
    assert summary["upper_bound"] == pytest.approx(math.log(0.95 / 0.05), abs=1e-4)


def _forfeit(index: int, players: list[str], loser: int, code: str, reason: str, played: bool) -> GameRecord:
    """A game ``players[loser]`` lost by ``code``: ``played`` it after the game was announced
    (engine seeds given), or lost before its first move (no engine seeds: it did not start,
    or was dropped), as the referee writes them."""
    places = [1, 0] if loser == 0 else [0, 1]
    return _game(index, players, places).replace(
        termination=code,
        reason=f"{players[loser]} (seat {loser}): {reason}",
        forfeit_seat=loser,
        engine_seeds=[11, 12] if played else [],
    )


@pytest.mark.parametrize(
    "code, reason",
    [
        ("crash", "engine closed its output: exit code 1; last stderr line: 'No module named engines.randm_engine'"),
        ("handshake", "no arenaok within 10 s of 'arena 1'"),
        ("dropped", "dropped from the tournament after 3 consecutive failures (max_failures); not started"),
    ],
)
def test_a_pair_an_engine_did_not_play_ends_the_test_with_no_decision(code, reason):
    """Before the unplayed pair the test counts as usual; at it the test stops, names the
    engine, the game and why, and takes no decision, however lopsided the forfeits would be."""
    test = SprtTest(SprtSettings(elo0=0, elo1=10), "new", "old", max_pairs=1000)
    for i in range(4):  # two even pairs, played
        assert not test.add(_game(i, ["new", "old"] if i % 2 == 0 else ["old", "new"], [0, 0]))
    assert test.add(_forfeit(4, ["new", "old"], 1, code, reason, played=False)) is False  # the pair's other game
    assert test.add(_game(5, ["old", "new"], [1, 0]))
    assert (test.decision, test.pairs, test.counts) == (NO_DECISION, 2, [0, 0, 2, 0, 0])
    assert test.unplayed == f"old did not play game 4 ({code}: {reason})"
    assert test.games_needed == 4  # the run stops scheduling the test's games
    summary = test.summary().as_dict()
    assert summary["decision"] == "no decision" and summary["unplayed"] == test.unplayed
    first = sprt_lines(test.summary())[0]
    assert f"0.05): no decision ({test.unplayed}; only games both engines played decide)" in first
    for later in range(6, 400):  # forfeits after it change nothing
        test.add(_forfeit(later, ["new", "old"] if later % 2 == 0 else ["old", "new"], 1, code, reason, False))
    assert (test.decision, test.pairs) == (NO_DECISION, 2)


def test_crashes_time_losses_and_illegal_moves_in_games_played_count_as_results():
    """The same forfeits with the game announced (engine seeds given): the engine played
    them, so they are losses and the test decides on them, as fishtest's does."""
    test = SprtTest(SprtSettings(elo0=0, elo1=10), "new", "old", max_pairs=1000)
    codes = ["crash", "timeout", "illegal", "protocol", "handshake"]
    for i in range(400):
        players = ["new", "old"] if i % 2 == 0 else ["old", "new"]
        if test.add(_forfeit(i, players, players.index("old"), codes[i % len(codes)], "it failed", played=True)):
            break
    assert test.decision == "H1" and test.unplayed is None and test.counts[4] == test.pairs


def test_a_forfeit_without_engine_seeds_but_a_normal_end_is_not_taken_for_unplayed():
    """Records written before engine seeds were recorded, or partial ones: only a forfeit
    with an empty seed list is a game an engine did not play."""
    test = SprtTest(SprtSettings(elo0=0, elo1=10), "new", "old", max_pairs=1000)
    test.add(_game(0, ["new", "old"], [0, 1]).replace(termination="normal", engine_seeds=[]))
    test.add(_forfeit(1, ["old", "new"], 0, "crash", "it exited", played=True).replace(engine_seeds=None))
    assert (test.decision, test.pairs, test.counts) == (None, 1, [0, 0, 0, 0, 1])


@pytest.mark.parametrize("alpha, beta", [(0.01, 0.2), (0.2, 0.01), (0.05, 0.05)])
@pytest.mark.parametrize("winner, decision", [(None, "H0"), ("a", "H1")])
def test_unequal_error_rates_set_each_bound_from_its_own_rate(alpha, beta, winner, decision):
    """H0 is accepted at log(beta / (1 - alpha)), H1 at log((1 - beta) / alpha) (Wald): the
    pair at which identical pairs (all draws, or all wins) first cross the bound is found from
    llr() pair by pair, and the test stops there and not one pair earlier or later."""
    settings = SprtSettings(elo0=0, elo1=40, model="logistic", alpha=alpha, beta=beta)
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    outcome = 2 if winner is None else 4  # WL+DD or WW
    crossed = next(
        n for n in range(1, 1000) if (value := float(llr(np.eye(5)[outcome] * n, settings))) <= lower or value >= upper
    )
    test = SprtTest(settings, "a", "b", max_pairs=10_000)
    for i in range(2000):
        players = ["a", "b"] if i % 2 == 0 else ["b", "a"]
        places = [0, 0] if winner is None else [players.index("a"), players.index("b")]
        if test.add(_game(i, players, places)):
            break
    assert (test.decision, test.pairs) == (decision, crossed)
    summary = test.summary().as_dict()
    assert (summary["lower_bound"], summary["upper_bound"]) == pytest.approx((lower, upper), abs=1e-4)


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"elo0": 5, "elo1": 0}, "elo0 must be less than elo1"),
        ({"elo0": 0, "elo1": 5, "alpha": 0}, "greater than 0"),
        ({"elo0": 0, "elo1": 5, "alpha": 0.6, "beta": 0.5}, r"alpha \+ beta"),
        ({"elo0": 0, "elo1": 5, "model": "bayesian"}, "logistic"),
    ],
)
def test_settings_are_checked(bad, message):
    with pytest.raises(ValidationError, match=message):
        SprtSettings(**bad)


# cutechess-cli's output for W - L - D (MidnightChessEngine's changelog.md, three runs):
# "Score of ...: W - L - D [...]", "Elo difference: e +/- d".
CUTECHESS = [((449, 276, 275), 60.7, 18.5), ((382, 320, 298), 21.6, 18.1), ((372, 322, 306), 17.4, 17.9)]


@pytest.mark.parametrize("wld, ref_elo, ref_err", CUTECHESS)
def test_game_elo_matches_cutechess_published_output(wld, ref_elo, ref_err):
    wins, losses, draws = wld
    e = elo_estimate([losses, draws, wins])  # fishtest's order for games: L, D, W
    assert e.elo == pytest.approx(ref_elo, abs=0.06)
    assert (e.elo_high - e.elo_low) / 2 == pytest.approx(ref_err, abs=0.11)  # cutechess rounds its margin


def test_elo_of_a_clean_sweep_is_infinite_and_kept_out_of_json():
    e = elo_estimate([0, 0, 0, 0, 12])
    assert e.elo == math.inf and e.nelo is None and e.los == 1.0
    assert e.as_dict()["elo"] is None


# -- the normalized model for wide bounds ---------------------------------------------------


def constrained_loglik(phat: np.ndarray, p: np.ndarray) -> float:
    return float((phat * np.log(p)).sum())


@pytest.mark.parametrize(
    "counts,elo0,elo1,expected",
    [
        # the constrained maximum likelihood, where the fixed point alone gave +7.80 (accept H1)
        ([100, 200, 300, 250, 150], 0, 300, -435.794),
        # where the fixed point alone gave NaN, a value that never crosses a bound
        ([1, 0, 1, 0, 0], 0, 240, -1.932),
    ],
)
def test_normalized_llr_for_wide_bounds_is_the_constrained_mle(counts, elo0, elo1, expected):
    value = float(llr(counts, SprtSettings(elo0=elo0, elo1=elo1, model="normalized")))
    assert value == pytest.approx(expected, abs=1e-3)


# fishtest's standard bounds on a run with no WW pair: fishtest and fastchess give -9.4661
# (LLRcalc.LLR_normalized, sprt.cpp); and a long run with no WW pair, whose constrained maximum
# (a 40-digit computation, tests/sprt_reference.py) is -570,559.
PUBLISHED_EMPTY_BIN = [
    ((688, 84, 1116, 60, 0), -1.75, 0.25, -9.4661, 5e-5),
    ((6691092, 1596280, 18289826, 2169148, 0), 0, 10, -570559, 0.5),
]


@pytest.mark.parametrize("counts, elo0, elo1, expected, tolerance", PUBLISHED_EMPTY_BIN)
def test_normalized_llr_with_an_empty_outcome_matches_the_published_values(counts, elo0, elo1, expected, tolerance):
    assert float(llr(counts, SprtSettings(elo0=elo0, elo1=elo1, model="normalized"))) == pytest.approx(
        expected, abs=tolerance
    )


# Every bounds pair the tests use, in either model, taken as normalized bounds.
BOUNDS_IN_THE_TESTS = [(0, 10), (-1.75, 0.25), (0, 25), (0, 300), (0, 240), (-999, 999), (998, 999)]
BOUNDS_IN_THE_TESTS += [(0, 5), (-3, 3), (10, 40), (0, 20), (0, 50), (-5, 5), (0, 40)]
EMPTY_BINS = [counts for counts, *_ in PUBLISHED_EMPTY_BIN] + [
    (0, 30, 120, 40, 10),  # one empty outcome, at each place in turn
    (3, 0, 8, 4, 2),
    (12, 30, 0, 25, 9),
    (60, 250, 900, 5, 0),
    (0, 5, 20, 7, 0),  # two empty outcomes
    (40, 0, 900, 0, 35),
]


@pytest.mark.slow
def test_normalized_llr_with_empty_outcomes_is_the_constrained_maximum():
    """Over vectors with one or two empty outcomes (few pairs and millions) and every bounds pair
    of the tests: the LLR is finite and equals the difference of the two constrained maxima
    computed independently at 40 digits (tests/sprt_reference.py, its table written by
    ``python tests/sprt_reference.py``), to 1e-9 of a pair's log-likelihood."""
    from sprt_reference import TABLE

    rows = json.loads(TABLE.read_text())
    scanned = {(tuple(row["counts"]), row["elo0"], row["elo1"]) for row in rows}
    assert scanned == {
        (tuple(c), e0, e1) for c in EMPTY_BINS for e0, e1 in BOUNDS_IN_THE_TESTS
    }  # the table is this scan's
    for row in rows:
        counts, elo0, elo1 = row["counts"], row["elo0"], row["elo1"]
        value = float(llr(counts, SprtSettings(elo0=elo0, elo1=elo1, model="normalized")))
        assert math.isfinite(value)
        assert value == pytest.approx(row["llr"], abs=1e-9 * sum(counts) + 1e-6), (counts, elo0, elo1)


def test_normalized_llr_at_the_widest_bounds_with_empty_outcomes_is_the_constrained_maximum():
    """The quick form of the check above: the table's rows at bounds -999 and 999 (t past 3 either
    way, far past the fixed point's range, so every maximum is the stationary points' search over
    nearly all the feasible deviations), one per vector with empty outcomes, to the same tolerance."""
    from sprt_reference import TABLE

    rows = [row for row in json.loads(TABLE.read_text()) if (row["elo0"], row["elo1"]) == (-999, 999)]
    assert len(rows) == len(EMPTY_BINS)
    for row in rows:
        value = float(llr(row["counts"], SprtSettings(elo0=-999, elo1=999, model="normalized")))
        assert value == pytest.approx(row["llr"], abs=1e-9 * sum(row["counts"]) + 1e-6), row["counts"]


@pytest.mark.slow
@pytest.mark.parametrize("index", [0, 31, 77, 111])  # the first and last rows, and two between
def test_the_reference_table_is_what_the_40_digit_computation_gives(index):
    from sprt_reference import TABLE, normalized_llr

    row = json.loads(TABLE.read_text())[index]
    assert normalized_llr(tuple(row["counts"]), row["elo0"], row["elo1"]) == pytest.approx(row["llr"], abs=1e-9)


@pytest.mark.slow
def test_normalized_llr_takes_the_higher_of_two_peaks():
    """At nElo -216.4 (t = -0.88) the likelihood on H0's constraint has two peaks for these
    counts, and Van den Bergh's fixed point settles on the lower one (an LLR 35 too low); the
    LLR is the one of the higher peak, as the 40-digit computation finds."""
    from sprt_reference import normalized_llr

    counts = (0, 230, 470, 340, 250)
    value = float(llr(counts, SprtSettings(elo0=-216.4, elo1=0, model="normalized")))
    assert value == pytest.approx(normalized_llr(counts, -216.4, 0), abs=1e-6)


@pytest.mark.slow
def test_normalized_mle_holds_its_constraint_for_every_t():
    """Random outcome frequencies and t-values from -3 to 3 (normalized Elo of about +-740):
    the distribution meets (mu - 1/2) / sigma = t, and the fit moves smoothly with t."""
    rng = np.random.default_rng(11)
    for _ in range(8):
        counts = rng.integers(0, 60, size=5)
        counts[rng.integers(0, 5)] = 0  # empty cells are the hard case (regularized)
        total = np.where(counts == 0, 1e-3, counts).sum()
        phat = np.where(counts == 0, 1e-3, counts) / total
        t = float(rng.uniform(-3, 3))
        p = mle_with_t(phat, t)
        mu, var = mean_var(p)
        assert np.isfinite(p).all() and p.sum() == pytest.approx(1, abs=1e-9)
        assert mu - 0.5 == pytest.approx(t * math.sqrt(var), abs=1e-8)
        q = mle_with_t(phat, t * 1.001)  # a neighbouring constraint fits about as well
        assert constrained_loglik(phat, q) == pytest.approx(constrained_loglik(phat, p), abs=1e-2)


@pytest.mark.slow  # seconds: ten profile solves against the reference fixed point
def test_the_profile_solver_agrees_with_the_fixed_point_where_both_hold():
    from arena.results.sprt import _stationary_mle_with_t

    rng = np.random.default_rng(5)
    for _ in range(10):
        phat = rng.dirichlet(np.ones(5))
        t = float(rng.uniform(-0.8, 0.8))
        assert _stationary_mle_with_t(phat, t, 0.5) == pytest.approx(mle_with_t(phat, t), abs=1e-6)


# -- the words: one block for the terminal, `arena results` and the report site -------------------


def _decided(decision: str) -> SprtTest:
    """A test of 'new' against 'old' that ends in ``decision`` (or is still running)."""
    bounds = (-5, 5) if decision == "inconclusive" else (0, 50)  # even pairs: neither bound within 10 pairs
    settings = SprtSettings(elo0=bounds[0], elo1=bounds[1], model="logistic")
    test = SprtTest(settings, "new", "old", max_pairs=10 if decision == "inconclusive" else 10_000)
    win = {"H1": [0, 1], "H0": [1, 0]}.get(decision, [0, 0])  # the first seat's result for new
    for i in range(6 if decision == "running" else 200):
        seats = ["new", "old"] if i % 2 == 0 else ["old", "new"]
        places = win if seats[0] == "new" else win[::-1]
        if test.add(_game(i, seats, places)):
            break
    assert (test.decision or "running") == decision
    return test


@pytest.mark.parametrize(
    "decision, outcome",
    [("H1", "new passes"), ("H0", "new fails"), ("inconclusive", "inconclusive"), ("running", "running")],
)
def test_the_sprt_block_says_the_outcome_in_words_as_the_live_line_does(decision, outcome):
    test = _decided(decision)
    summary = test.summary().as_dict()
    first, second, *elo = sprt_lines(test.summary())
    s = test.settings
    assert first.startswith(f"SPRT new vs old (logistic [{s.elo0:g}, {s.elo1:g}], alpha 0.05, beta 0.05): {outcome} (")
    assert second == (
        f"LLR {test.llr:.2f} ({s.lower:.2f}, {s.upper:.2f}) after {test.pairs} pairs; "
        f"Ptnml(LL LD WL+DD WD WW): [{', '.join(map(str, test.counts))}]"
    )
    assert elo[0].startswith(f"SPRT Elo ({test.pairs} pairs, pentanomial): ")
    assert summary["elo"]["label"] == f"SPRT Elo ({test.pairs} pairs, pentanomial)"
    text = "\n".join([first, second, *elo])
    for python in ("None", "False", "True", "decision H", "elo_high", "{", "'", "-0.0"):
        assert python not in text, (python, text)
    # The live line reads the same: the LLR and its bounds, then the outcome once decided.
    assert test.status_text().startswith(second.split(" after")[0])
    assert test.outcome == (None if decision == "running" else outcome)


def test_the_sprt_blocks_lines_read_whole_for_each_outcome_a_sweep_and_a_mixed_run():
    assert sprt_lines(_decided("H1").summary()) == [
        "SPRT new vs old (logistic [0, 50], alpha 0.05, beta 0.05): new passes (H1 accepted: Elo 50 rather than 0)",
        "LLR 3.07 (-2.94, 2.94) after 23 pairs; Ptnml(LL LD WL+DD WD WW): [0, 0, 0, 0, 23]",
        "SPRT Elo (23 pairs, pentanomial): +inf [+inf, +inf] (95%), nElo n/a, LOS 100.0%, score 100.0%",
    ]
    assert sprt_lines(_decided("H0").summary())[::2] == [
        "SPRT new vs old (logistic [0, 50], alpha 0.05, beta 0.05): new fails (H0 accepted: Elo 0 rather than 50)",
        "SPRT Elo (20 pairs, pentanomial): -inf [-inf, -inf] (95%), nElo n/a, LOS 0.0%, score 0.0%",
    ]
    assert sprt_lines(_decided("inconclusive").summary())[0].endswith(
        ": inconclusive (no decision within the maximum number of pairs: rounds)"
    )
    assert sprt_lines(_decided("running").summary())[0].endswith(
        ": running (not decided yet; run the same command to continue)"
    )
    # 8 pairs, LL 2, WL+DD 3, WW 3: a score of 9 / 16, Elo -400 log10(7 / 9) = 43.7
    test = _mixed_run()
    assert sprt_lines(test.summary())[1:] == [
        "LLR 0.10 (-2.94, 2.94) after 8 pairs; Ptnml(LL LD WL+DD WD WW): [2, 0, 3, 0, 3]",
        "SPRT Elo (8 pairs, pentanomial): 43.7 [-153.8, 279.1] (95%), nElo 39.3 +/- 170.2, LOS 67.5%, score 56.2%",
    ]


def _mixed_run() -> SprtTest:
    """8 pairs of 'new' against 'old': won both, one each, lost both, in turn (LL 2, WL+DD 3, WW 3)."""
    test = SprtTest(SprtSettings(elo0=0, elo1=50, model="logistic"), "new", "old", max_pairs=1000)
    pairs = [([0, 1], [0, 1]), ([0, 1], [1, 0]), ([1, 0], [1, 0])]  # new wins both, one each, loses both
    games = [pairs[k % 3][j] for k in range(8) for j in range(2)]
    for i, result in enumerate(games):
        seats = ["new", "old"] if i % 2 == 0 else ["old", "new"]
        test.add(_game(i, seats, result if seats[0] == "new" else result[::-1]))
    return test


def test_an_sprts_results_json_section_is_read_whole():
    # bounds ln(0.95 / 0.05) = 2.9444; score 9 / 16; Elo -400 log10(7 / 9) = 43.6578
    assert _mixed_run().summary().as_dict() == {
        "engine": "new",
        "opponent": "old",
        "model": "logistic",
        "elo0": 0.0,
        "elo1": 50.0,
        "alpha": 0.05,
        "beta": 0.05,
        "lower_bound": -2.9444,
        "upper_bound": 2.9444,
        "decision": "running",
        "pairs": 8,
        "games": 16,
        "llr": 0.0985,
        "score": 0.5625,
        "pentanomial": {"LL": 2, "LD": 0, "WL+DD": 3, "WD": 0, "WW": 3},
        "elo": {
            "elo": 43.6578,
            "elo_low": -153.833,
            "elo_high": 279.1311,
            "nelo": 39.3393,
            "nelo_error": 170.2403,
            "los": 0.6747,
            "label": "SPRT Elo (8 pairs, pentanomial)",
        },
        "llr_history": [0.1338, 0.2669, -0.0464, 0.1378, 0.1556, -0.0927, 0.1007, 0.0985],
    }


def test_an_even_score_whose_interval_reaches_past_both_ends_shows_minus_and_plus_infinity():
    # A pair lost twice, then a pair won twice: score 1/2, Elo 0, variance 1/4 per pair, so the
    # interval 1/2 +- 1.96 sqrt(1/8) leaves 0..1 at both ends; nElo's margin 1.96 * 800 / ln 10 / 2.
    test = SprtTest(SprtSettings(elo0=0, elo1=50, model="logistic"), "new", "old", max_pairs=1000)
    for i, (seats, places) in enumerate(
        [(["new", "old"], [1, 0]), (["old", "new"], [0, 1]), (["new", "old"], [0, 1]), (["old", "new"], [1, 0])]
    ):
        test.add(_game(i, seats, places))
    assert test.counts == [1, 0, 0, 0, 1]
    assert sprt_lines(test.summary())[2] == (
        "SPRT Elo (2 pairs, pentanomial): 0.0 [-inf, +inf] (95%), nElo 0.0 +/- 340.5, LOS 50.0%, score 50.0%"
    )


def test_an_estimate_needs_one_pair_and_one_pair_alike_gives_its_score_with_no_interval():
    assert elo_estimate([0, 0, 0, 0, 0]) is None
    inf = math.inf
    assert elo_estimate([0, 0, 0, 0, 1]) == EloEstimate(inf, inf, inf, None, None, 1.0)
    assert elo_estimate([3, 0, 0, 0, 0]) == EloEstimate(-inf, -inf, -inf, None, None, 0.0)
    # Every pair WL or DD: a score of exactly 1/2 is Elo 0, and superior with likelihood 1/2.
    assert elo_estimate([0, 0, 3, 0, 0]) == EloEstimate(0.0, 0.0, 0.0, None, None, 0.5)


def test_game_results_normalise_by_the_deviation_of_one_game():
    # L, D, W = 1, 2, 3: mean 2/3, variance per game (1 (2/3)^2 + 2 (1/6)^2 + 3 (1/3)^2) / 6 = 5/36;
    # nElo = (2/3 - 1/2) / sqrt(5/36) * 800 / ln 10, its margin 1.96 sqrt(var / 6) / sqrt(var) * 800 / ln 10.
    e = elo_estimate([1, 2, 3])
    assert e.nelo == pytest.approx(1 / math.sqrt(5) * NELO_PER_T)
    assert e.nelo_error == pytest.approx(Z95 / math.sqrt(6) * NELO_PER_T)
    se = math.sqrt(5 / 36 / 6)
    expected = {
        "elo": 400 * math.log10(2),
        "elo_low": -400 * math.log10(1 / (2 / 3 - Z95 * se) - 1),
        "elo_high": -400 * math.log10(1 / (2 / 3 + Z95 * se) - 1),
        "nelo": NELO_PER_T / math.sqrt(5),
        "nelo_error": Z95 / math.sqrt(6) * NELO_PER_T,
        "los": 0.5 * (1 + math.erf((2 / 3 - 1 / 2) / (math.sqrt(2) * se))),
    }
    assert e.as_dict() == {k: round(v, 4) for k, v in expected.items()}


def test_a_test_before_its_first_pair_shows_no_elo():
    test = SprtTest(SprtSettings(elo0=0, elo1=50, model="logistic"), "new", "old", max_pairs=1000)
    assert test.summary().elo is None and test.summary().as_dict()["elo"] is None
    assert sprt_lines(test.summary())[1:] == [
        "LLR 0.00 (-2.94, 2.94) after 0 pairs; Ptnml(LL LD WL+DD WD WW): [0, 0, 0, 0, 0]"
    ]


def _played(outcomes: list[int]) -> SprtTest:
    """A test of 'new' against 'old' after pairs of the given pentanomial outcomes (0 LL .. 4 WW)."""
    test = SprtTest(SprtSettings(elo0=0, elo1=50, model="logistic"), "new", "old", max_pairs=1000)
    halves = {0: (0, 0), 1: (0, 1), 2: (2, 0), 3: (2, 1), 4: (2, 2)}  # new's half points in each game
    places = {0: [1, 0], 1: [0, 0], 2: [0, 1]}  # new's places, new in the first seat
    for k, outcome in enumerate(outcomes):
        first, second = halves[outcome]
        test.add(_game(2 * k, ["new", "old"], places[first]))
        test.add(_game(2 * k + 1, ["old", "new"], places[second][::-1]))
    assert test.counts == [outcomes.count(k) for k in range(5)]
    return test


def test_the_score_is_the_mean_pair_score_to_six_digits():
    assert _played([3]).summary().score == 0.75  # one pair WD: 3 of 4 half points
    assert _played([1, 0, 0]).summary().score == 0.083333  # LD, LL, LL: 1 of 12 half points


def test_a_pair_the_first_seat_did_not_play_names_that_engine():
    test = SprtTest(SprtSettings(elo0=0, elo1=10), "new", "old", max_pairs=1000)
    test.add(_forfeit(0, ["new", "old"], 0, "crash", "engine closed its output: exit code 1", played=False))
    test.add(_game(1, ["old", "new"], [0, 1]))
    assert test.decision == NO_DECISION
    assert test.unplayed == "new did not play game 0 (crash: engine closed its output: exit code 1)"


def test_mean_var_gives_each_rows_mean_and_variance_of_the_pair_score():
    rows = np.array([[0.1, 0.2, 0.4, 0.2, 0.1], [0.0, 0.0, 0.5, 0.0, 0.5]])
    mu, var = mean_var(rows)
    # Pair scores 0, 1/4, 1/2, 3/4, 1: the first row is symmetric about 1/2; the second is
    # 1/2 or 1, evenly: mean 3/4, variance 1/16.
    assert mu.tolist() == pytest.approx([0.5, 0.75])
    assert var.tolist() == pytest.approx([2 * 0.1 * 0.25 + 2 * 0.2 * 0.0625, 0.0625])


def test_frequencies_and_the_llr_of_many_tests_at_once_are_those_of_each_test_alone():
    from arena.results.sprt import frequencies

    counts = np.array([[1, 2, 3, 4, 5], [0, 1, 0, 1, 0], [3, 20, 41, 30, 6]])
    total, phat = frequencies(counts)
    # Empty outcomes count 1e-3 of a pair (fishtest's regularize); each row is its own test.
    assert total.tolist() == pytest.approx([15, 2.003, 100])
    assert phat[1].tolist() == pytest.approx([0.001 / 2.003, 1 / 2.003, 0.001 / 2.003, 1 / 2.003, 0.001 / 2.003])
    assert phat[0].tolist() == pytest.approx([1 / 15, 2 / 15, 3 / 15, 4 / 15, 5 / 15])
    for model in ("logistic", "normalized"):
        settings = SprtSettings(elo0=-10, elo1=20, model=model)
        together = llr(counts, settings)
        assert together.shape == (3,)
        assert together.tolist() == pytest.approx([float(llr(row, settings)) for row in counts], rel=1e-9)


def test_the_normalized_mle_of_a_batch_is_each_rows_own():
    t = 0.2
    counts = np.array([[1.0, 2, 3, 4, 5], [0, 10, 30, 12, 2], [3, 20, 41, 30, 6]])
    regular = np.where(counts == 0, 1e-3, counts)
    phat = regular / regular.sum(axis=-1, keepdims=True)
    together = mle_with_t(phat, t)
    assert together.shape == (3, 5)
    for row, p in zip(phat, together):
        assert p.tolist() == pytest.approx(mle_with_t(row, t).tolist(), rel=1e-9)
        mu, var = mean_var(p)
        assert float(mu) - 0.5 == pytest.approx(t * math.sqrt(float(var)), abs=1e-9)


@pytest.mark.parametrize("s", [0.0, 1.0, -0.2, 1.5])
def test_a_mean_score_no_distribution_has_gives_nan_and_no_numpy_warning(s):
    import warnings

    phat = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a user's terminal shows no RuntimeWarning
        p = mle_with_mean(phat, s)
    # A mean of 0 or 1 needs every pair LL or WW; beyond them none at all: no such p.
    assert np.isnan(p).all()


def test_the_fixed_points_answer_stands_where_it_holds_the_constraint(monkeypatch):
    import arena.results.sprt as sprt

    calls: list[object] = []
    profile = sprt._stationary_mle_with_t
    monkeypatch.setattr(sprt, "_stationary_mle_with_t", lambda *args: calls.append(args) or profile(*args))
    phat = np.array([[0.05, 0.2, 0.45, 0.2, 0.1], [0.1, 0.25, 0.3, 0.25, 0.1]])
    for t in (0.1, -0.3):
        for p in (mle_with_t(phat, t), mle_with_t(phat[0], t)[None]):
            mu, var = mean_var(p)
            assert (mu - 0.5).tolist() == pytest.approx((t * np.sqrt(var)).tolist(), abs=1e-9)
    # |t| up to 0.35: Van den Bergh's fixed point holds the constraint, so the slow profile
    # solve of every stationary point (seconds over a simulation's rows) never runs.
    assert calls == []


def _theta_mle_to_40_digits(phat: list[float], s: float) -> list[float]:
    """p_i = phat_i / (1 + theta a_i), a_i = score_i - s, with sum_i p_i a_i = 0: theta by
    bisection between the poles -1/max a and -1/min a, in 60-digit decimals."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 60
        ph = [Decimal(x) for x in phat]
        a = [Decimal(float(x)) - Decimal(s) for x in PAIR_SCORES]
        lo, hi = -1 / max(a), -1 / min(a)
        for _ in range(400):  # f falls from +inf to -inf between the poles
            mid = (lo + hi) / 2
            if sum(p * x / (1 + mid * x) for p, x in zip(ph, a)) > 0:
                lo = mid
            else:
                hi = mid
        return [float(p / (1 + lo * x)) for p, x in zip(ph, a)]


@pytest.mark.parametrize(
    "counts, elo",
    [
        ([0, 3, 10**6, 4, 0], 0.5),  # empty outcomes at both ends of a million pairs
        ([0, 0, 10**7, 0, 9], -3.0),
        ([5, 40, 90, 60, 0], 35.0),
        ([0, 1, 2, 0, 0], -300.0),
        ([7, 0, 10**8, 0, 0], 1.0),
        ([1, 2, 3, 4, 5], 20.0),
        ([188, 125, 136, 179, 115], -35.0),  # the root near the middle of the poles
    ],
)
def test_the_logistic_mle_matches_theta_found_to_40_digits_even_for_empty_outcomes(counts, elo):
    c = np.array(counts, dtype=float)
    regular = np.where(c == 0, 1e-3, c)
    phat = regular / regular.sum()
    s = 1 / (1 + 10 ** (-elo / 400))
    expected = _theta_mle_to_40_digits(phat.tolist(), s)
    got = mle_with_mean(phat, s)
    assert got.tolist() == pytest.approx(expected, rel=1e-11)
    # Also as one row of a batch beside a row whose scale differs by orders of magnitude.
    other = np.array([0.2, 0.2, 0.2, 0.2, 0.2])
    both = mle_with_mean(np.stack([phat, other]), s)
    assert both[0].tolist() == pytest.approx(expected, rel=1e-11)
    assert both[1].tolist() == pytest.approx(_theta_mle_to_40_digits(other.tolist(), s), rel=1e-11)


@pytest.mark.parametrize(
    "counts", [[50000000, 198000000, 89000000, 0, 0], [194, 2, 0, 125, 97], [169, 0, 96, 188, 121]]
)
def test_the_normalized_mle_holds_its_constraint_at_the_fixed_points_widest_t(counts):
    c = np.array(counts, dtype=float)
    regular = np.where(c == 0, 1e-3, c)
    phat = regular / regular.sum()
    for t in (-0.35, 0.2):
        p = mle_with_t(phat, t)
        mu, var = mean_var(p)
        assert float(p.sum()) == pytest.approx(1, abs=1e-12)
        assert float(mu) - 0.5 == pytest.approx(t * math.sqrt(float(var)), abs=1e-10)


def test_the_sprt_elo_label_counts_one_pair_and_more_pairs_in_words():
    from arena.results.sprt import sprt_elo_label

    assert [sprt_elo_label(n) for n in (1, 2, 23)] == [
        "SPRT Elo (1 pair, pentanomial)",
        "SPRT Elo (2 pairs, pentanomial)",
        "SPRT Elo (23 pairs, pentanomial)",
    ]
