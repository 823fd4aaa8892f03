"""Bradley–Terry ratings of a whole field on the Elo scale, as Ordo and BayesElo publish them.

The model: engine ``i`` beats engine ``j`` with probability ``1 / (1 + 10 ** ((Ej - Ei) / 400))``.
:func:`fit_elo` finds the Elo of every engine from all the games at once (not pair by pair),
so an engine's rating uses its results against everyone.  By default it is the maximum of the
likelihood times BayesElo's prior (Rémi Coulom's bayeselo, its ``prior`` command, default 2):
each engine brings ``prior / 2`` virtual draws, shared among the opponents it played in
proportion to its results against each, so two engines that only met each other have ``prior``
virtual draws between them.  The prior keeps every rating finite (a 20-0 is a large but finite
difference) and only links engines that played each other.  ``prior=0`` is the pure
maximum-likelihood fit, whose rating is unbounded for an engine that won or lost everything.

The games are counted first (:class:`Tally`, by distinct result, as they are read), and the
fit works on those counts with numpy and LAPACK, so a list of thousands of engines and a
million games fits in seconds.  :func:`fit_bayeselo` fits BayesElo's own model instead (White's
advantage and a draw parameter, as bayeselo's ``mm`` command prints it).

Conventions (each stated in :class:`EloFit` so a published table can say them too):

- **Results.**  Every game gives one result per pair of seats that have a result against
  each other (:func:`arena.results.ratings.opponents`): a better place is a win, an equal place
  a draw, counted as half a win and half a loss.  A three-player game is therefore three
  pairwise results, the ones its places imply.  A game an engine did not play (it could not
  start, or was dropped: :func:`arena.record.lost_before_start`) gives none: the standings
  show it as that engine's forfeit, and no rating counts it.
- **Anchor.**  Only differences are measured; by default the mean Elo of the rated engines is
  0 (Ordo's and BayesElo's default), or one named engine is fixed at a given value.
- **Intervals.**  95% by default, from the curvature of the log-likelihood (with the prior:
  the log-posterior) at its maximum (inverse observed information, the Wald interval; with
  the prior, the Laplace approximation of the posterior), widened by the results' dispersion when
  the games vary more than independent pairwise results would (the three results of one
  three-player game move together).  A draw counts as a coin flip, so the intervals are
  conservative (wider) when draws are frequent.  :func:`bootstrap_elo` resamples whole games
  with a recorded seed instead, which also accounts for draws.
- **Unconnected engines.**  With the prior, the rated group is the largest group of engines
  that games link (a chain of opponents); an engine outside it is ``"unconnected"``: no
  result measures it against the rated ones, and the prior does not invent one.
- **Unbounded ratings (``prior=0``).**  The maximum exists only where the results connect the engines both
  ways (each side of any split of the field took points from the other).  The largest such
  group is rated; an engine outside it has ``elo = None`` and ``bound`` says why: ``"above"``
  (it took points from the rated group and never lost any to it, so its Elo is unbounded
  above), ``"below"`` (the reverse) or ``"unconnected"`` (no chain of results links it to the
  rated group, e.g. it played no game).  A group of one engine measures no difference, so
  when no two engines took points from each other (a clean sweep of two engines, or a chain
  A > B > C without upsets) no engine is rated: one that took points and lost none is
  ``"above"``, one that took none ``"below"``, and one in the middle ``"between"``.
- **Order.**  :attr:`EloFit.ratings` is the ranking every table uses: by Elo (unbounded
  above first, then the rated engines, then unbounded below, then the unconnected), ties by
  the share of points, then by name.
- **LOS.**  The likelihood of superiority of ``a`` over ``b`` is
  ``Phi((Ea - Eb) / sd(Ea - Eb))`` with the fit's covariance (BayesElo's definition); ``None``
  where either rating is unbounded.
"""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from statistics import NormalDist
from typing import Any, TypedDict, cast

import numpy as np
from scipy.linalg.lapack import dpotrf, dpotri, dpotrs
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components
from scipy.special import erf
from threadpoolctl import ThreadpoolController

from ..record import GameRecord, lost_before_start
from ..rules.base import JsonValue
from .ratings import forfeited, opponents, seats_of

ELO_PER_NAT = 400 / math.log(10)  # Elo points per unit of the natural-log logistic scale
Z95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution
PRIOR = 2.0  # BayesElo's default prior: virtual draws per engine, shared among its opponents


@dataclass(frozen=True)
class PairResult:
    """One pairwise result of one game: ``score`` is what ``a`` took from ``b`` (1, 0.5, 0)."""

    game: int | None
    a: str
    b: str
    score: float


def pairwise_results(record: GameRecord) -> list[PairResult]:
    """The pairwise results a game's places imply, each unordered pair of seats once; none
    for a game an engine did not play (lost before its first move: it could not start, or was
    dropped), which measures no engine."""
    if lost_before_start(record):
        return []
    (names, places), offenders = seats_of(record), forfeited(record)
    out = []
    for seat, me in enumerate(names):
        for other in opponents(record, seat, offenders):
            if other <= seat:
                continue
            mine, theirs = places[seat], places[other]
            score = 1.0 if mine < theirs else 0.0 if mine > theirs else 0.5
            out.append(PairResult(record.id, me, names[other], score))
    return out


class RatingRow(TypedDict):
    """An engine's row of results.json's ``elo.ratings``."""

    engine: str
    elo: float | None
    low: float | None
    high: float | None
    stderr: float | None
    bound: str | None
    games: int
    points: float
    results: int


@dataclass
class EloRating:
    """One engine's fitted Elo; ``elo``, ``low``, ``high`` and ``stderr`` are None when the
    rating is unbounded (``bound`` says in which direction, see the module's doc)."""

    engine: str
    elo: float | None
    low: float | None
    high: float | None
    stderr: float | None
    games: int  # games with at least one pairwise result for this engine
    points: float  # pairwise points (a three-player win over two opponents is 2)
    results: int  # pairwise results (the denominator of points)
    bound: str | None = None  # None (rated), "above", "below", "between" or "unconnected"

    def row(self) -> RatingRow:
        """The rating as results.json writes it, rounded."""
        return {
            "engine": self.engine,
            "elo": _round(self.elo),
            "low": _round(self.low),
            "high": _round(self.high),
            "stderr": _round(self.stderr),
            "bound": self.bound,
            "games": self.games,
            "points": self.points,
            "results": self.results,
        }

    @property
    def score(self) -> float | None:
        """Share of pairwise points, 0..1 (None: no results)."""
        return self.points / self.results if self.results else None


class Covariance(Mapping[tuple[str, str], float]):
    """The fit's covariance of the rated engines' Elo (Elo^2), ``cov[a, b]``, kept as one
    matrix: a dict of every pair would hold millions of entries for a list of thousands."""

    def __init__(self, names: Sequence[str], matrix: np.ndarray) -> None:
        self.names = list(names)
        self.index = {name: k for k, name in enumerate(self.names)}
        self.matrix = matrix

    def __getitem__(self, key: tuple[str, str]) -> float:
        a, b = key
        return float(self.matrix[self.index[a], self.index[b]])

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return ((a, b) for a in self.names for b in self.names)

    def __len__(self) -> int:
        return len(self.names) ** 2

    def block(self, order: Sequence[str]) -> np.ndarray:
        """The rows and columns of ``order`` (rated engines), in that order."""
        where = [self.index[name] for name in order]
        return self.matrix[np.ix_(where, where)]


@dataclass
class EloFit:
    """The fit over the field: ratings best first, the anchor, and the LOS between engines."""

    ratings: list[EloRating]
    anchor: str  # e.g. "mean of rated engines = 0" or "engine 'x' = 0"
    confidence: float
    interval_method: str
    covariance: Covariance = field(default_factory=lambda: Covariance([], np.zeros((0, 0))))
    prior: float = PRIOR  # BayesElo's virtual draws per engine; 0: maximum likelihood
    model: str = "bradley_terry"  # or "bayeselo (advantage A, drawelo D, scale S)"

    @property
    def method(self) -> str:
        """How the ratings were estimated, for a table's note."""
        if self.model != "bradley_terry":
            parameters = self.model.partition("(")[2].rstrip(")")
            return f"BayesElo's model ({parameters}) with its prior of {self.prior:g} virtual draws per engine"
        if self.prior:
            return f"Bradley-Terry with BayesElo's prior of {self.prior:g} virtual draws per engine"
        return "Bradley-Terry maximum likelihood"

    def rating(self, engine: str) -> EloRating:
        return self._by_engine[engine]

    @cached_property
    def _by_engine(self) -> dict[str, EloRating]:
        return {r.engine: r for r in self.ratings}

    def los(self, a: str, b: str) -> float | None:
        """Likelihood that ``a`` is stronger than ``b`` (0..1); None if either is unbounded."""
        ra, rb = self.rating(a), self.rating(b)
        if ra.elo is None or rb.elo is None:
            return None
        if a == b:
            return 0.5
        c = self.covariance
        var = c[a, a] + c[b, b] - 2 * c[a, b]
        diff = ra.elo - rb.elo
        if var <= 0:
            return 0.5 if diff == 0 else float(diff > 0)
        return 0.5 * (1 + math.erf(diff / math.sqrt(2 * var)))

    def los_matrix(self, order: Sequence[str] | None = None) -> list[list[float | None]]:
        """``matrix[i][j]``: LOS of engine ``order[i]`` over ``order[j]`` (None on the diagonal)."""
        order = list(order or [r.engine for r in self.ratings])
        rated = [name for name in order if self.rating(name).elo is not None]
        elo = np.array([self.rating(name).elo for name in rated], dtype=float)
        cov = self.covariance.block(rated)
        var = np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2 * cov
        diff = elo[:, None] - elo[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            los = np.where(var > 0, 0.5 * (1 + erf(diff / np.sqrt(2 * var))), np.where(diff == 0, 0.5, diff > 0))
        where = {name: k for k, name in enumerate(rated)}
        rows = los.tolist()
        return [
            [None if a == b or a not in where or b not in where else rows[where[a]][where[b]] for b in order]
            for a in order
        ]

    def rows(self) -> list[RatingRow]:
        """Each engine's rating as results.json writes it, rounded."""
        return [r.row() for r in self.ratings]

    def as_dict(self) -> dict[str, JsonValue]:
        """JSON-ready: numbers as numbers, None (null) where a value is unbounded."""
        names = [r.engine for r in self.ratings]
        return {
            "model": self.model,
            "scale": "elo",
            "prior": self.prior,
            "anchor": self.anchor,
            "confidence": self.confidence,
            "interval_method": self.interval_method,
            "ratings": cast(list[JsonValue], self.rows()),  # JSON values all: mypy reads a TypedDict as objects
            "los": {"engines": names, "matrix": [[_round(v, 4) for v in row] for row in self.los_matrix(names)]},
        }


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits) + 0.0  # + 0.0: no "-0.0"


# -- the counts ---------------------------------------------------------------

_SCORE_CODE = {0.0: 0, 0.5: 1, 1.0: 2}  # a pairwise score as the two low bits of a result's code
_SCORES = np.array([0.0, 0.5, 1.0])
CHORD_BELOW = 0.2  # Newton's steps (nats) below which the last Cholesky factor is reused
_ENGINE_BITS = 20  # engine indices in a result's code: a million engines
_COMPACT_EVERY = 1 << 20  # single results buffered (8 bytes each) before they are counted


class Tally:
    """What the fit needs of many games, as counts: how many games gave each single pairwise
    result (a two-player game: its engines in seat order and what the first scored), and how
    many gave each set of several (a game of three or more players, whose results move
    together and must stay together for the intervals' dispersion).  Games are added one at a time, so a list streams
    its folders; the memory grows with the distinct results (about the pairs of engines that
    met, three scores each), not with the games."""

    def __init__(self, engines: Iterable[str] = ()) -> None:
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.games = 0  # games with at least one pairwise result
        self.several: dict[tuple[tuple[int, int, float], ...], int] = {}
        self._buffer = array("q")  # single results' codes not yet counted ...
        self._times = array("q")  # ... and how many games gave each
        self._codes = np.zeros(0, dtype=np.int64)  # distinct single results' codes ...
        self._counts = np.zeros(0, dtype=np.int64)  # ... and how many games gave each
        for name in engines:
            self.engine(name)

    def engine(self, name: str) -> int:
        """The index of engine ``name``, added to the field if new."""
        if name not in self.index:
            if len(self.names) >= 1 << _ENGINE_BITS:
                raise ValueError(f"a rating list of more than {1 << _ENGINE_BITS} engines is not supported")
            self.index[name] = len(self.names)
            self.names.append(name)
        return self.index[name]

    def add_record(self, record: GameRecord) -> None:
        """Count one game (nothing for a game an engine did not play)."""
        self.add_game(self.results_of(record))

    def results_of(self, record: GameRecord) -> list[tuple[int, int, float]]:
        """A game's pairwise results as ``(engine i, engine j, score of i)``, its engines added."""
        return [(self.engine(p.a), self.engine(p.b), p.score) for p in pairwise_results(record)]

    def add_game(self, results: Sequence[tuple[int, int, float]], times: int = 1) -> None:
        """One game's pairwise results as ``(engine i, engine j, score of i)`` (``times`` games
        with these results)."""
        if not results:
            return
        self.games += times
        if len(results) == 1:
            i, j, s = results[0]  # in seat order: the first seat has White in a PGN
            self._buffer.append(i << (_ENGINE_BITS + 2) | j << 2 | _SCORE_CODE[s])
            self._times.append(times)
            if len(self._buffer) >= _COMPACT_EVERY:
                self._compact()
            return
        key = _normalised(results)
        self.several[key] = self.several.get(key, 0) + times

    def add_tally(self, other: Tally, names: Sequence[str]) -> None:
        """Count every game of ``other`` too, its engine ``k`` being this tally's ``names[k]``
        (a folder's engines as a rating list labels them)."""
        index = np.array([self.engine(name) for name in names] or [0], dtype=np.int64)
        i, j, s, times = other.singles()
        codes = index[i] << (_ENGINE_BITS + 2) | index[j] << 2 | (2 * s).astype(np.int64)
        self._buffer.extend(codes.tolist())
        self._times.extend(times.tolist())
        self._compact()
        for results, count in other.several.items():
            key = _normalised([(int(index[p]), int(index[q]), score) for p, q, score in results])
            self.several[key] = self.several.get(key, 0) + count
        self.games += other.games

    def _compact(self) -> None:
        if not self._buffer:
            return
        codes = np.concatenate([self._codes, np.frombuffer(self._buffer, dtype=np.int64)])
        counts = np.concatenate([self._counts, np.frombuffer(self._times, dtype=np.int64)])
        self._codes, where = np.unique(codes, return_inverse=True)
        self._counts = np.bincount(where, weights=counts, minlength=len(self._codes)).astype(np.int64)
        self._buffer, self._times = array("q"), array("q")

    def singles(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every distinct single result: the engines in seat order, the first one's score, how
        many games."""
        self._compact()
        mask = (1 << _ENGINE_BITS) - 1
        i = self._codes >> (_ENGINE_BITS + 2)
        j = (self._codes >> 2) & mask
        return i, j, _SCORES[self._codes & 3], self._counts


def _normalised(results: Iterable[tuple[int, int, float]]) -> tuple[tuple[int, int, float], ...]:
    """A game's results each as ``i <= j`` (the score of ``i``), in order: one key per set."""
    return tuple(sorted((i, j, s) if i <= j else (j, i, 1 - s) for i, j, s in results))


@dataclass(frozen=True)
class _Pairs:
    """The results aggregated by pair of engines (``i <= j``): how many, and the points of ``i``."""

    i: np.ndarray
    j: np.ndarray
    count: np.ndarray
    points: np.ndarray

    @classmethod
    def of(cls, tally: Tally) -> _Pairs:
        n = max(len(tally.names), 1)
        first, second, score, sn = tally.singles()
        swap = first > second
        si, sj, ss = np.minimum(first, second), np.maximum(first, second), np.where(swap, 1 - score, score)
        several = [(i, j, s, c) for results, c in tally.several.items() for i, j, s in results]
        mi, mj, ms, mc = (np.array(column, dtype=float) for column in zip(*several)) if several else [np.zeros(0)] * 4
        keys = np.concatenate([si * n + sj, (mi * n + mj).astype(np.int64)])
        counts = np.concatenate([sn.astype(float), mc])
        points = np.concatenate([ss * sn, ms * mc])
        pairs, where = np.unique(keys, return_inverse=True)
        return cls(
            pairs // n,
            pairs % n,
            np.bincount(where, weights=counts, minlength=len(pairs)),
            np.bincount(where, weights=points, minlength=len(pairs)),
        )

    def per_engine(self, n: int, values: np.ndarray, mirrored: np.ndarray) -> np.ndarray:
        """``values`` summed over each engine's pairs as ``i``, plus ``mirrored`` as ``j``."""
        return np.bincount(self.i, weights=values, minlength=n) + np.bincount(self.j, weights=mirrored, minlength=n)

    def virtual_draws(self, n: int, prior: float) -> np.ndarray:
        """BayesElo's virtual draws of each pair: engine i gives pair (i, j) ``prior / 2 *
        n_ij / n_i`` draws (n: pairwise results), as bayeselo's ``CCondensedResults::AddPrior``."""
        played = self.per_engine(n, self.count, self.count)
        virtual: np.ndarray = prior / 2 * (self.count / played[self.i] + self.count / played[self.j])
        return virtual

    def with_prior(self, n: int, prior: float) -> _Pairs:
        """The pairs with the prior's virtual draws added, half a point each side."""
        if not prior:
            return self
        virtual = self.virtual_draws(n, prior)
        return _Pairs(self.i, self.j, self.count + virtual, self.points + virtual / 2)


# -- the fit ------------------------------------------------------------------


def fit_elo(
    records: Iterable[GameRecord],
    engines: Sequence[str] | None = None,
    *,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    confidence: float = 0.95,
    prior: float = PRIOR,
) -> EloFit:
    """Bradley–Terry Elo of every engine in ``records``: the maximum of the likelihood times
    BayesElo's prior of ``prior`` virtual draws per engine (0: maximum likelihood).

    ``engines`` lists the field (engines without games are reported ``unconnected``);
    ``anchor`` names an engine fixed at ``anchor_elo`` instead of a field mean of 0.
    Intervals come from the log-posterior's curvature (module doc)."""
    tally = Tally(engines or [])
    for record in records:
        tally.add_record(record)
    return fit_tally(tally, anchor=anchor, anchor_elo=anchor_elo, confidence=confidence, prior=prior)


def fit_tally(
    tally: Tally,
    *,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    confidence: float = 0.95,
    prior: float = PRIOR,
) -> EloFit:
    """:func:`fit_elo` of the games counted in ``tally`` (its engines are the field)."""
    prior = _checked_prior(prior)
    z = _z(confidence)
    n = len(tally.names)
    pairs = _Pairs.of(tally)
    rated, bounds = _groups(pairs, n, prior, tally.names)
    weights, text = _anchor(tally.names, rated, anchor, anchor_elo)
    x, cov = _fit_group(tally, pairs.with_prior(n, prior), rated)
    x, cov = _shifted(x, cov, weights, anchor_elo)
    sd = np.sqrt(np.maximum(np.diag(cov), 0.0))
    intervals = {i: (x[k] - z * sd[k], x[k] + z * sd[k], sd[k]) for k, i in enumerate(rated)}
    values = {i: x[k] for k, i in enumerate(rated)}
    covariance = Covariance([tally.names[i] for i in rated], cov)
    curvature = "log-posterior (Laplace)" if prior else "log-likelihood (Wald)"
    method = f"curvature of the {curvature}"
    return _assemble(tally, pairs, bounds, values, covariance, intervals, text, confidence, method, prior)


BAYESELO_ADVANTAGE = 32.8  # bayeselo's default White advantage (Elo), its "advantage" command
BAYESELO_DRAWELO = 97.3  # bayeselo's default draw parameter (Elo), its "drawelo" command


def fit_bayeselo(
    tally: Tally,
    *,
    advantage: float = BAYESELO_ADVANTAGE,
    drawelo: float = BAYESELO_DRAWELO,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    confidence: float = 0.95,
    prior: float = PRIOR,
) -> EloFit:
    """The ratings bayeselo's ``mm`` command prints, with its model (Rémi Coulom, "Bayesian
    Elo Rating", and bayeselo's CBradleyTerry): the engine in the first seat has White, and
    with ``f(x) = 1 / (1 + 10 ** (-x / 400))`` and ``d`` the difference of the Elo,

        P(White wins) = f(d + advantage - drawelo),  P(Black wins) = f(-d - advantage - drawelo),

    a draw the rest.  The same prior of virtual draws (half with each colour), and the ratings
    shown as bayeselo shows them: times its scale ``4x / (1 + x)^2``, ``x = 10 ** (-drawelo /
    400)``, the slope of the expected score of level engines, so that its Elo reads as the
    logistic Elo of the score.  Intervals from the curvature of the log-posterior, no
    dispersion.  Games of more than two players are refused (ValueError): the model has colours."""
    if tally.several:
        raise ValueError("BayesElo's model rates two-player games (White and Black) only")
    prior = _checked_prior(prior)
    z = _z(confidence)
    n = len(tally.names)
    pairs = _Pairs.of(tally)
    rated, bounds = _connected_group(pairs, n, tally.names)
    weights, text = _anchor(tally.names, rated, anchor, anchor_elo)
    x, cov = _bayeselo_group(tally, pairs, rated, prior, advantage / ELO_PER_NAT, drawelo / ELO_PER_NAT)
    shown = 4 * 10 ** (-drawelo / 400) / (1 + 10 ** (-drawelo / 400)) ** 2
    x, cov = _shifted(x * shown, cov * shown**2, weights, anchor_elo)
    sd = np.sqrt(np.maximum(np.diag(cov), 0.0))
    intervals = {i: (x[k] - z * sd[k], x[k] + z * sd[k], sd[k]) for k, i in enumerate(rated)}
    values = {i: x[k] for k, i in enumerate(rated)}
    covariance = Covariance([tally.names[i] for i in rated], cov)
    method = "curvature of the log-posterior (Laplace)"
    fit = _assemble(tally, pairs, bounds, values, covariance, intervals, text, confidence, method, prior)
    fit.model = f"bayeselo (advantage {advantage:g}, drawelo {drawelo:g}, scale {shown:.4f})"
    return fit


def _bayeselo_group(
    tally: Tally, pairs: _Pairs, group: list[int], prior: float, advantage: float, drawelo: float
) -> tuple[np.ndarray, np.ndarray]:
    """The maximum of bayeselo's log-posterior over ``group`` (nats) and its covariance (Elo^2)."""
    size, n = len(group), len(tally.names)
    if size < 2:
        return np.zeros(size), np.zeros((size, size))
    where = np.full(n, -1)
    where[group] = np.arange(size)
    white, black, score, games = tally.singles()
    # The prior's virtual draws of each pair, half with each engine White (none: dropped below).
    virtual = pairs.virtual_draws(n, prior)
    white = np.concatenate([white, pairs.i, pairs.j])
    black = np.concatenate([black, pairs.j, pairs.i])
    score = np.concatenate([score, np.full(2 * len(pairs.i), 0.5)])
    games = np.concatenate([games.astype(float), virtual / 2, virtual / 2])
    inside = (where[white] >= 0) & (where[black] >= 0) & (white != black) & (games > 0)
    w, b, s, g = where[white[inside]], where[black[inside]], score[inside], games[inside]
    wins, draws, losses = g * (s == 1.0), g * (s == 0.5), g * (s == 0.0)
    low, high = np.minimum(w, b), np.maximum(w, b)
    pair_of, index = np.unique(low * size + high, return_inverse=True)
    a_pairs, b_pairs = pair_of // size, pair_of % size

    def derivatives(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = theta[w] - theta[b]
        p_win = 1 / (1 + np.exp(-(d + advantage - drawelo)))
        p_loss = 1 / (1 + np.exp(d + advantage + drawelo))
        p_draw = 1 - p_win - p_loss
        g_win, g_loss = p_win * (1 - p_win), p_loss * (1 - p_loss)
        h = g_loss - g_win
        first = wins * (1 - p_win) - losses * (1 - p_loss) + draws * h / p_draw
        h_prime = -g_loss * (1 - 2 * p_loss) - g_win * (1 - 2 * p_win)
        second = -wins * g_win - losses * g_loss + draws * (h_prime / p_draw - h**2 / p_draw**2)
        grad = np.bincount(w, weights=first, minlength=size) - np.bincount(b, weights=first, minlength=size)
        return grad, np.bincount(index, weights=-second, minlength=len(pair_of))

    scores = np.where(s == 0.5, 0.5 * g, s * g)
    start = _start(w, b, g, scores, size)
    with _blas().limit(limits=1, user_api="blas"):
        theta, inverse = _maximum(derivatives, start, a_pairs, b_pairs)
    return theta * ELO_PER_NAT, inverse * ELO_PER_NAT**2


def bootstrap_elo(
    records: Iterable[GameRecord],
    engines: Sequence[str] | None = None,
    *,
    samples: int = 1000,
    seed: int = 0,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    confidence: float = 0.95,
    prior: float = PRIOR,
) -> EloFit:
    """:func:`fit_elo` with percentile intervals from ``samples`` resamples of whole games
    (drawn with ``random.Random(seed)``, so the same seed gives the same intervals).  An
    engine a resample leaves unbounded counts as -inf or +inf there, so an interval end may
    be None (unbounded); with the mean anchor, the mean is over the sample's finite ratings.
    The LOS uses the covariance of the samples in which every rating is finite."""
    prior = _checked_prior(prior)
    tally = Tally(engines or [])
    games = [g for g in map(tally.results_of, records) if g]
    # Games with the same results are one kind: a sample counts how many of each kind it drew.
    kinds: dict[tuple[tuple[int, int, float], ...], int] = {}
    kind_of = np.array([kinds.setdefault(tuple(g), len(kinds)) for g in games], dtype=np.int64)
    for game in games:
        tally.add_game(game)
    names, n = tally.names, len(tally.names)
    pairs = _Pairs.of(tally)
    rated, bounds = _groups(pairs, n, prior, names)
    weights, text = _anchor(names, rated, anchor, anchor_elo)
    fitted, _ = _fit_group(tally, pairs.with_prior(n, prior), rated)
    rng = random.Random(seed)
    draws: dict[int, list[float]] = {i: [] for i in rated}
    for _ in range(samples if rated else 0):
        sample = Tally(names)
        drawn = np.bincount(kind_of[rng.choices(range(len(games)), k=len(games))], minlength=len(kinds))
        for kind, times in zip(kinds, drawn.tolist()):
            if times:  # a kind the sample did not draw would still link its engines
                sample.add_game(kind, times)
        values = _sample_elo(sample, rated, prior)
        finite = {i: v for i, v in values.items() if math.isfinite(v)}
        if anchor is not None:
            ref = finite.get(names.index(anchor))
        else:
            ref = sum(finite.values()) / len(finite) if finite else None
        if ref is None:
            continue  # the anchor itself is unbounded in this sample: it places nobody
        for i in rated:
            draws[i].append(values[i] - ref + anchor_elo)
    centre = float(weights @ fitted) if rated else 0.0
    x = {i: float(fitted[k]) - centre + anchor_elo for k, i in enumerate(rated)}
    alpha = (1 - confidence) / 2
    intervals = {}
    for i in rated:
        ordered = sorted(v for v in draws[i] if not math.isnan(v))  # nan: a sample left it out
        bounded = [v for v in ordered if math.isfinite(v)]
        low, high = _quantile(ordered, alpha), _quantile(ordered, 1 - alpha)
        intervals[i] = (
            low if math.isfinite(low) else None,
            high if math.isfinite(high) else None,
            _sd(bounded) if len(bounded) > 1 else None,
        )
    covariance = Covariance([names[i] for i in rated], _sample_covariance(draws, rated))
    method = f"bootstrap over games, {samples} samples, seed {seed}"
    return _assemble(tally, pairs, bounds, x, covariance, intervals, text, confidence, method, prior)


def _anchor(names: list[str], rated: list[int], anchor: str | None, anchor_elo: float) -> tuple[np.ndarray, str]:
    """Weights w of the anchor over the rated engines (the ratings are placed so that
    w.x = anchor_elo) and its text."""
    if not rated:
        if anchor is not None:
            raise ValueError(f"anchor {anchor!r} is not a rated engine of this field")
        return np.zeros(0), NO_RATINGS
    if anchor is None:
        if anchor_elo:
            raise ValueError("anchor_elo needs an anchor engine (the field's mean is 0)")
        return np.full(len(rated), 1 / len(rated)), "mean of rated engines = 0"
    if anchor not in names or names.index(anchor) not in rated:
        raise ValueError(f"anchor {anchor!r} is not a rated engine of this field")
    return (np.array(rated) == names.index(anchor)).astype(float), f"engine {anchor!r} = {anchor_elo:g}"


def _shifted(x: np.ndarray, cov: np.ndarray, weights: np.ndarray, target: float) -> tuple[np.ndarray, np.ndarray]:
    """x' = x - (w.x) + target, and its covariance M Cov M^T with M = I - 1 w^T."""
    if not len(x):
        return x, cov
    cw = cov @ weights
    return x - weights @ x + target, cov - cw[:, None] - cw[None, :] + weights @ cw


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    return Z95 if confidence == 0.95 else NormalDist().inv_cdf(0.5 + confidence / 2)


NO_RATINGS = "none: no two engines took points from each other, so no rating is finite"


def _checked_prior(prior: float) -> float:
    if not (math.isfinite(prior) and prior >= 0):
        raise ValueError("prior must be a number of virtual draws, 0 or more")
    return float(prior)


# -- who is rated ---------------------------------------------------------------


def _groups(pairs: _Pairs, n: int, prior: float, names: Sequence[str]) -> tuple[list[int], dict[int, str]]:
    """The rated engines and the bound of each other one, with or without the prior."""
    return _connected_group(pairs, n, names) if prior else _measured_group(pairs, n, names)


def _graph(n: int, tails: np.ndarray, heads: np.ndarray) -> csr_matrix:
    return csr_matrix((np.ones(len(tails)), (tails, heads)), shape=(n, n))


def _best(
    labels: np.ndarray,
    candidates: np.ndarray,
    within: np.ndarray,
    names: Sequence[str],
    more: Callable[[int], int] | None = None,
) -> int:
    """The label of the largest group of ``candidates``, then the one with the most results
    inside, then by ``more`` (a function of a label, asked only of the groups still tied), then
    by its first name."""
    members: dict[int, list[int]] = {}
    for i in candidates.tolist():
        members.setdefault(int(labels[i]), []).append(i)
    size = {g: len(m) for g, m in members.items()}
    top = max((size[g], within[g]) for g in members)
    tied = [g for g in members if (size[g], within[g]) == top]
    return min(tied, key=lambda g: ((more(g) if more and len(tied) > 1 else 0), min(names[i] for i in members[g])))


def _connected_group(pairs: _Pairs, n: int, names: Sequence[str]) -> tuple[list[int], dict[int, str]]:
    """With the prior every engine linked to the others by games has a finite rating: the
    rated group is the largest group games connect (then the one with the most results
    inside, then by name); the others are ``unconnected``."""
    linked = np.zeros(n, dtype=bool)
    linked[pairs.i[pairs.i != pairs.j]] = linked[pairs.j[pairs.i != pairs.j]] = True
    if not linked.any():
        return [], {i: "unconnected" for i in range(n)}
    _, labels = connected_components(_graph(n, pairs.i, pairs.j), directed=False)
    within = np.bincount(labels[pairs.i], weights=pairs.count, minlength=n)
    best = _best(labels, np.flatnonzero(linked), within, names)
    rated = np.flatnonzero(labels == best).tolist()
    return rated, {i: "unconnected" for i in range(n) if labels[i] != best}


def _took(pairs: _Pairs, n: int) -> csr_matrix:
    """The graph of who took points from whom: an edge i -> j when i took points from j."""
    forward, backward = pairs.points > 0, pairs.points < pairs.count
    tails = np.concatenate([pairs.i[forward], pairs.j[backward]])
    heads = np.concatenate([pairs.j[forward], pairs.i[backward]])
    return _graph(n, tails, heads)


def _measured_group(pairs: _Pairs, n: int, names: Sequence[str]) -> tuple[list[int], dict[int, str]]:
    """:func:`_rated_group`, but a group of one engine is no rating (it would show a
    falsely certain 0 [0, 0], and which engine it is would be arbitrary): then every
    engine is placed by the direction of its results alone."""
    rated, bounds = _rated_group(pairs, n, names)
    if len(rated) != 1:
        return rated, bounds
    took = _took(pairs, n)
    takes, gives = np.diff(took.indptr) > 0, np.diff(took.tocsc().indptr) > 0

    def direction(i: int) -> str:
        if not takes[i] and not gives[i]:
            return "unconnected"
        return "above" if not gives[i] else "below" if not takes[i] else "between"

    return [], {i: direction(i) for i in range(n)}


def _reach(graph: csr_matrix, start: int) -> np.ndarray:
    """Whether each engine can be reached from ``start`` along the graph's edges (itself too)."""
    seen = np.zeros(graph.shape[0], dtype=bool)
    seen[breadth_first_order(graph, start, directed=True, return_predecessors=False)] = True
    return seen


def _rated_group(pairs: _Pairs, n: int, names: Sequence[str]) -> tuple[list[int], dict[int, str]]:
    """The engines whose ratings are finite (the largest group the results connect both
    ways: a strongly connected group of the graph of who took points from whom) and the bound
    of every other one."""
    played = pairs.per_engine(n, pairs.count, pairs.count)
    if not played.any():
        return [], {i: "unconnected" for i in range(n)}
    took = _took(pairs, n)
    gave = took.T.tocsr()
    _, labels = connected_components(took, directed=True, connection="strong")
    inside = labels[pairs.i] == labels[pairs.j]
    within = np.bincount(labels[pairs.i][inside], weights=pairs.count[inside], minlength=n)

    def balance(group: int) -> int:
        # The group in the middle of the others (A > B > C with no upsets rates B).
        first = int(np.flatnonzero(labels == group)[0])
        outside = labels != group
        return abs(int((_reach(gave, first) & outside).sum()) - int((_reach(took, first) & outside).sum()))

    best = _best(labels, np.flatnonzero(played), within, names, balance)
    rated = np.flatnonzero(labels == best).tolist()
    above, below = _reach(gave, rated[0]), _reach(took, rated[0])
    bounds = {i: "above" if above[i] else "below" if below[i] else "unconnected" for i in range(n) if labels[i] != best}
    return rated, bounds


# -- Newton's method and the curvature ------------------------------------------


@cache
def _blas() -> ThreadpoolController:
    return ThreadpoolController()


def _fit_group(tally: Tally, pairs: _Pairs, group: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_newton` on one BLAS thread: OpenBLAS's threads wait for each other spinning, and
    on cores that other work keeps busy that made a Cholesky 10-20 times slower than one thread."""
    with _blas().limit(limits=1, user_api="blas"):
        return _newton(tally, pairs, group)


def _newton(tally: Tally, pairs: _Pairs, group: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method on the Bradley-Terry log-likelihood (with the prior's draws in
    ``pairs``: the log-posterior) of ``group``, its first engine held at 0; returns the Elo of
    each engine of the group and their covariance (inverse observed information, widened by
    the dispersion) in Elo^2."""
    size = len(group)
    if size < 2:
        return np.zeros(size), np.zeros((size, size))
    where = np.full(len(tally.names), -1)
    where[group] = np.arange(size)
    # An engine's results against itself (one name in two seats) measure nothing.
    inside = (where[pairs.i] >= 0) & (where[pairs.j] >= 0) & (pairs.i != pairs.j)
    a, b = where[pairs.i[inside]], where[pairs.j[inside]]
    count, points = pairs.count[inside], pairs.points[inside]

    def derivatives(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _gradient(theta, a, b, count, points, size)

    theta, inverse = _maximum(derivatives, _start(a, b, count, points, size), a, b)
    scale = ELO_PER_NAT**2 * _dispersion(tally, where, theta, inverse)
    return theta * ELO_PER_NAT, inverse * scale


Derivatives = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]  # theta -> gradient, pairs' weights


def _start(a: np.ndarray, b: np.ndarray, count: np.ndarray, points: np.ndarray, size: int) -> np.ndarray:
    """Each engine's score as if against an average opponent, in nats, the first at 0: Newton
    from a level field takes several full steps (each an engines^3 factoring) only to spread it out."""
    won = np.bincount(a, weights=points, minlength=size) + np.bincount(b, weights=count - points, minlength=size)
    played = np.bincount(a, weights=count, minlength=size) + np.bincount(b, weights=count, minlength=size)
    theta: np.ndarray = np.log((won + 0.5) / (played - won + 0.5))
    theta -= theta[0]
    return theta


def _maximum(
    derivatives: Derivatives, theta: np.ndarray, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method from ``theta`` (nats, the first engine held fixed) on a log-likelihood
    whose ``derivatives(theta)`` are its gradient and the weight of each pair ``(a[k], b[k])``
    (each pair of engines once) in its curvature; returns the maximum and the inverse of the
    observed information there (zero for the fixed engine).  Each full step solves the
    information matrix (engines x engines, dense) by Cholesky."""
    size = len(theta)
    factor, largest = None, math.inf
    for _ in range(200):
        grad, w = derivatives(theta)
        if factor is None or largest > CHORD_BELOW:
            factor = _cholesky(_information(a, b, w, size)[1:, 1:])
        # Near the maximum the curvature barely moves: the last factor serves (a chord step,
        # each one gaining as many digits as the last full step's size has), which spares the
        # engines^3 factoring of the steps that only polish the last digits.
        step, _ = dpotrs(factor, grad[1:], lower=0)
        largest = float(np.abs(step).max())
        scale = 1.0
        while largest * scale > 2:  # keep steps sane on lopsided data
            scale /= 2
        theta[1:] += scale * step
        if largest < 1e-10:
            break
    _, w = derivatives(theta)
    inverse = np.zeros((size, size))
    inverse[1:, 1:] = _inverse(_information(a, b, w, size)[1:, 1:])
    return theta, inverse


def _cholesky(matrix: np.ndarray) -> np.ndarray:
    """LAPACK's Cholesky factor (upper) of a positive definite matrix, called directly: the
    checks of scipy.linalg's wrappers cost more than the solve on the small fields of a
    tournament's table."""
    factor: np.ndarray
    factor, info = dpotrf(matrix, lower=0, clean=0)
    if info:
        raise ZeroDivisionError("singular information matrix")
    return factor


def _inverse(matrix: np.ndarray) -> np.ndarray:
    upper = np.triu(dpotri(_cholesky(matrix), lower=0)[0])  # the inverse's upper triangle
    full: np.ndarray = upper + upper.T
    full[np.diag_indices(len(full))] -= np.diag(upper)
    return full


def _gradient(
    theta: np.ndarray, a: np.ndarray, b: np.ndarray, count: np.ndarray, points: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The log-likelihood's gradient, and each pair's weight in its curvature."""
    p = 1 / (1 + np.exp(theta[b] - theta[a]))
    g = points - count * p
    grad = np.bincount(a, weights=g, minlength=size) - np.bincount(b, weights=g, minlength=size)
    return grad, count * p * (1 - p)


def _information(a: np.ndarray, b: np.ndarray, w: np.ndarray, size: int) -> np.ndarray:
    """The observed information (minus the Hessian) from the pairs' weights; each pair of
    engines (a != b) comes once, so its two cells are set, not summed."""
    information = np.zeros((size, size))
    information[a, b] = information[b, a] = -w
    diagonal = np.bincount(a, weights=w, minlength=size) + np.bincount(b, weights=w, minlength=size)
    information[np.diag_indices(size)] = diagonal
    return information


def _dispersion(tally: Tally, where: np.ndarray, theta: np.ndarray, inverse: np.ndarray) -> float:
    """How much more the games' results vary than independent pairwise results would (at
    least 1): the quasi-likelihood dispersion, the observed information of the games over
    the model's, per free rating.  The pairwise results of one three-player game move
    together (beating both opponents is one event), so they carry less information than as
    many separate games; two-player games without draws give about 1.  Games with the same
    results give the same term, so each distinct result is summed once, times its games."""
    free = len(theta) - 1
    i, j, s, games = tally.singles()
    inside = (where[i] >= 0) & (where[j] >= 0)
    a, b = where[i[inside]], where[j[inside]]
    r = s[inside] - 1 / (1 + np.exp(theta[b] - theta[a]))
    # One result's score is r for a and -r for b: its quadratic form is r^2 (C_aa + C_bb - 2 C_ab).
    total = float(np.sum(games[inside] * r**2 * (inverse[a, a] + inverse[b, b] - 2 * inverse[a, b])))
    for results, times in tally.several.items():
        u: dict[int, float] = {}
        for p, q, score in results:
            if where[p] >= 0 and where[q] >= 0:
                ka, kb = int(where[p]), int(where[q])
                r1 = score - 1 / (1 + math.exp(theta[kb] - theta[ka]))
                u[ka] = u.get(ka, 0.0) + r1
                u[kb] = u.get(kb, 0.0) - r1
        keys = list(u)
        vector = np.array([u[k] for k in keys])
        total += times * float(vector @ inverse[np.ix_(keys, keys)] @ vector)
    return max(1.0, total / free)


def _sample_elo(sample: Tally, group: list[int], prior: float) -> dict[int, float]:
    """One bootstrap sample: Elo of each engine of ``group`` (any offset), +-inf for the
    ones the sample leaves unbounded, nan for the ones it cannot place at all."""
    n = len(sample.names)
    pairs = _Pairs.of(sample)
    rated, bounds = _connected_group(pairs, n, sample.names) if prior else _rated_group(pairs, n, sample.names)
    wanted = set(group)
    inside = [i for i in rated if i in wanted]
    x, _ = _fit_group(sample, pairs.with_prior(n, prior), inside)
    fitted = {i: float(x[k]) for k, i in enumerate(inside)}
    side = {"above": math.inf, "below": -math.inf}
    return {i: fitted[i] if i in fitted else side.get(bounds.get(i, ""), math.nan) for i in group}


def _sample_covariance(draws: dict[int, list[float]], group: list[int]) -> np.ndarray:
    """The covariance of the samples in which every rating of ``group`` is finite (zero
    with fewer than two)."""
    rows = [
        k
        for k in range(min((len(v) for v in draws.values()), default=0))
        if all(math.isfinite(draws[i][k]) for i in group)
    ]
    if len(rows) < 2:
        return np.zeros((len(group), len(group)))
    samples = np.array([[draws[i][k] for k in rows] for i in group])
    return np.atleast_2d(np.cov(samples))


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    pos = q * (len(values) - 1)
    low = math.floor(pos)
    high = min(low + 1, len(values) - 1)
    a, b = values[low], values[high]
    if not (math.isfinite(a) and math.isfinite(b)):
        return a if pos - low < 0.5 else b
    return a + (b - a) * (pos - low)


def _sd(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


_BOUND_ORDER = {"above": 0, None: 1, "between": 1, "below": 2, "unconnected": 3}


def prior_of(settings: Mapping[str, Any] | None) -> float:
    """The prior a tournament's settings ask for (its ``elo_prior`` key), else BayesElo's 2.
    It only changes what is shown, so it is free in the folder's fingerprint."""
    value = (settings or {}).get("elo_prior", PRIOR)
    usable = isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < math.inf
    return float(value) if usable else PRIOR  # a damaged folder's value: the default


def _assemble(
    tally: Tally,
    pairs: _Pairs,
    bounds: dict[int, str],
    x: dict[int, float],
    covariance: Covariance,
    intervals: dict[int, tuple[float | None, float | None, float | None]],
    anchor: str,
    confidence: float,
    method: str,
    prior: float,
) -> EloFit:
    """The ratings with their tallies, best first: unbounded above, rated, below, unconnected."""
    names, n = tally.names, len(tally.names)
    si, sj, _, sn = tally.singles()
    games = np.bincount(si, weights=sn, minlength=n) + np.bincount(sj[si != sj], weights=sn[si != sj], minlength=n)
    for game, times in tally.several.items():
        for k in {e for i, j, _ in game for e in (i, j)}:
            games[k] += times
    points = pairs.per_engine(n, pairs.points, pairs.count - pairs.points)
    results = pairs.per_engine(n, pairs.count, pairs.count)
    ratings = []
    for i, name in enumerate(names):
        tallied = int(games[i]), float(points[i]), int(results[i])
        if i in x:
            low, high, sd = (None if v is None else float(v) for v in intervals[i])
            ratings.append(EloRating(name, float(x[i]), low, high, sd, *tallied))
        else:
            ratings.append(EloRating(name, None, None, None, None, *tallied, bounds[i]))
    ratings.sort(key=rank_key)
    return EloFit(ratings, anchor, confidence, method, covariance, prior)


def rank_key(r: EloRating) -> tuple[int, float, float, str]:
    """The ranking: by Elo as shown (to 0.1; unbounded above first, unbounded below and
    unconnected last), ties by the share of points, then by name."""
    return (_BOUND_ORDER[r.bound], -round(r.elo or 0.0, 1), -(r.score or 0.0), r.engine)
