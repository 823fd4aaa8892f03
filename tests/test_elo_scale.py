"""The vectorised Bradley–Terry fit of large rating lists: the same ratings, intervals and
covariance as the fit before it (benchmarks/elo_before.py, a hand-written elimination) on random
fields of every kind that fit knew, and its counts streamed game by game."""

import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest

from arena.record import GameRecord
from arena.results.elo import Tally, bootstrap_elo, fit_bayeselo, fit_elo, fit_tally

ROOT = Path(__file__).resolve().parent.parent


def _before():
    spec = importlib.util.spec_from_file_location("elo_before", ROOT / "benchmarks" / "elo_before.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["elo_before"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


BEFORE = _before()


def random_field(seed: int, engines: int, games: int, draws: float, trios: float) -> list[GameRecord]:
    """Games between random engines of random strength: two-player games with ``draws`` of
    them drawn, and a share ``trios`` of three-player games (ties for a place included)."""
    rng = random.Random(seed)
    names = [f"e{k}" for k in range(engines)]
    strength = {n: rng.gauss(0, 150) for n in names}
    records = []
    for k in range(games):
        seats = rng.sample(names, 3 if rng.random() < trios else 2)
        perf = [strength[n] + rng.gauss(0, 200) for n in seats]
        if len(seats) == 2 and rng.random() < draws:
            places = [0, 0]
        else:
            places = [sorted(perf, reverse=True).index(p) for p in perf]
            if len(seats) == 3 and rng.random() < 0.2:
                places = [min(p, 1) for p in places]  # two share the second place
        game = "posies" if len(seats) == 3 else "hex"
        records.append(GameRecord(game=game, moves=[], id=k, players=seats, places=places, termination="normal"))
    return records


FIELDS = [
    # seed, engines, games, draw share, three-player share
    (1, 6, 60, 0.0, 0.0),
    (2, 12, 300, 0.3, 0.0),
    (3, 8, 120, 0.1, 0.3),
    (4, 30, 900, 0.2, 0.1),
    (5, 10, 25, 0.0, 0.0),  # sparse: sweeps, and engines outside the rated group without the prior
    (6, 5, 12, 0.0, 0.0),
]


def assert_same(new, old) -> None:
    assert new.anchor == old.anchor and new.interval_method == old.interval_method
    assert [r.engine for r in new.ratings] == [r.engine for r in old.ratings]
    for a, b in zip(new.ratings, old.ratings):
        assert (a.bound, a.games, a.points, a.results) == (b.bound, b.games, b.points, b.results)
        for value, expected in ((a.elo, b.elo), (a.low, b.low), (a.high, b.high), (a.stderr, b.stderr)):
            assert (value is None) == (expected is None)
            if value is not None:
                assert value == pytest.approx(expected, abs=1e-6)
    assert set(new.covariance) == set(old.covariance)
    for key, value in old.covariance.items():
        assert new.covariance[key] == pytest.approx(value, abs=1e-6)
    for row_new, row_old in zip(new.los_matrix(), old.los_matrix()):
        assert row_new == pytest.approx(row_old, abs=1e-9)


@pytest.mark.parametrize("prior", [2.0, 0.0, 5.0])
@pytest.mark.parametrize("field", FIELDS, ids=[f"seed{f[0]}" for f in FIELDS])
def test_the_fit_equals_the_fit_before_it(field, prior):
    records = random_field(*field)
    assert_same(fit_elo(records, prior=prior), BEFORE.fit_elo(records, prior=prior))


def test_a_named_anchor_and_other_confidence_equal_the_fit_before_it():
    records = random_field(2, 12, 300, 0.3, 0.0)
    kwargs = {"anchor": "e3", "anchor_elo": 1500.0, "confidence": 0.8}
    assert_same(fit_elo(records, **kwargs), BEFORE.fit_elo(records, **kwargs))


def test_engines_without_games_are_unconnected_as_before():
    records = random_field(1, 6, 60, 0.0, 0.0)
    field = ["idle", *sorted({p for r in records for p in r.players or []})]
    for prior in (0.0, 2.0):
        assert_same(fit_elo(records, field, prior=prior), BEFORE.fit_elo(records, field, prior=prior))


@pytest.mark.parametrize("prior", [2.0, 0.0])
def test_the_bootstrap_equals_the_bootstrap_before_it(prior):
    # The same seed draws the same samples, so the percentile intervals are the same.
    records = random_field(3, 8, 120, 0.1, 0.3)
    assert_same(
        bootstrap_elo(records, samples=60, seed=4, prior=prior),
        BEFORE.bootstrap_elo(records, samples=60, seed=4, prior=prior),
    )


def test_a_tally_counts_each_distinct_result_once_and_keeps_the_fit():
    records = random_field(4, 30, 900, 0.2, 0.1)
    tally = Tally()
    for r in records:
        tally.add_record(r)
    i, j, scores, games = tally.singles()
    assert len(i) < 900 and int(games.sum()) + sum(tally.several.values()) == tally.games == 900
    assert (i > j).any() and (i < j).any()  # in seat order: the first seat has White
    assert set(scores.tolist()) <= {0.0, 0.5, 1.0}
    assert_same(fit_tally(tally), fit_elo(records))


def test_a_tally_merges_what_it_buffered_in_several_batches(monkeypatch):
    import arena.results.elo as elo

    records = random_field(2, 12, 300, 0.3, 0.0)
    monkeypatch.setattr(elo, "_COMPACT_EVERY", 7)  # many merges of the buffer into the counts
    tally = Tally()
    for r in records:
        tally.add_record(r)
    assert tally.games == 300 and int(tally.singles()[3].sum()) == 300
    assert_same(fit_tally(tally), BEFORE.fit_elo(records))


def test_ratings_agree_with_ordo_on_the_same_games():
    # tests/data/ordo_fixture.json: 20 engines, 2,000 games with draws, and the ratings Ordo
    # printed for them (benchmarks/versus_ordo.py --fixture, from Ordo built from its source):
    # no prior, a draw half a point, the mean at 0, the logistic Elo scale. Ordo prints one
    # decimal, so that is the agreement.
    fixture = json.loads((ROOT / "tests" / "data" / "ordo_fixture.json").read_text())
    tally = Tally(fixture["names"])
    for a, b, score in fixture["games"]:
        tally.add_game([(a, b, score)])
    fit = fit_tally(tally, prior=0.0)
    assert len(fit.ratings) == len(fixture["ordo_ratings"]) == 20
    assert any(score == 0.5 for _, _, score in fixture["games"])
    for r in fit.ratings:
        assert r.elo == pytest.approx(fixture["ordo_ratings"][r.engine], abs=0.05 + 1e-9), r.engine


def test_the_bayeselo_model_agrees_with_bayeselos_mm_on_the_same_games():
    # The same fixture's games through bayeselo (readpgn, elo, mm, ratings: its default White
    # advantage 32.8, draw Elo 97.3, prior 2, the mean at 0). It prints whole Elo, so arena's
    # fit of the same model is within half a point of each.
    fixture = json.loads((ROOT / "tests" / "data" / "ordo_fixture.json").read_text())
    tally = Tally(fixture["names"])
    for a, b, score in fixture["games"]:
        tally.add_game([(a, b, score)])
    fit = fit_bayeselo(tally)
    assert fit.model.startswith("bayeselo (advantage 32.8, drawelo 97.3, scale 0.")
    for r in fit.ratings:
        assert r.elo == pytest.approx(fixture["bayeselo_ratings"][r.engine], abs=0.5 + 1e-9), r.engine
        assert r.low < r.elo < r.high
    # Its Bradley-Terry fit is another model: not within a point of bayeselo's everywhere.
    other = fit_tally(tally)
    assert max(abs(r.elo - fixture["bayeselo_ratings"][r.engine]) for r in other.ratings) > 2
    # Colours matter: the same games with the seats swapped give other ratings.
    swapped = Tally(fixture["names"])
    for a, b, score in fixture["games"]:
        swapped.add_game([(b, a, 1 - score)])
    assert fit_tally(swapped).rating("e0").elo == pytest.approx(other.rating("e0").elo, abs=1e-9)
    assert abs(fit_bayeselo(swapped).rating("e0").elo - fit.rating("e0").elo) > 0.5


def test_the_bayeselo_model_refuses_games_of_more_than_two_players():
    tally = Tally(["a", "b", "c"])
    tally.add_game([(0, 1, 1.0), (0, 2, 1.0), (1, 2, 0.5)])
    with pytest.raises(ValueError, match="two-player games"):
        fit_bayeselo(tally)
