"""The Bradley–Terry fit as arena did it before large rating lists, kept to check today's against.

This is ``arena/results/elo.py``'s fit as it was when it solved the information matrix by a
hand-written elimination over Python lists (its cost grew with the cube of the field and it
held every game's results): ``benchmarks/rating_list_fit.py`` runs it side by side with
today's fit where it finishes, and tests/test_elo_scale.py checks on random fields that both
give the same ratings, intervals and covariance (to 1e-6 Elo).  Only its imports changed: what
both fits share (a game's pairwise results, a rating and its results.json row, the ranking, the prior) comes from there.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

from arena.record import GameRecord
from arena.results.elo import EloRating, PairResult, pairwise_results, rank_key

ELO_PER_NAT = 400 / math.log(10)  # Elo points per unit of the natural-log logistic scale
Z95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution
PRIOR = 2.0  # BayesElo's default prior: virtual draws per engine, shared among its opponents


@dataclass
class EloFit:
    """The fit over the field: ratings best first, the anchor, and the LOS between engines."""

    ratings: list[EloRating]
    anchor: str  # e.g. "mean of rated engines = 0" or "engine 'x' = 0"
    confidence: float
    interval_method: str
    covariance: dict[tuple[str, str], float] = field(default_factory=dict)  # Elo^2, rated engines
    prior: float = PRIOR  # BayesElo's virtual draws per engine; 0: maximum likelihood

    @property
    def method(self) -> str:
        """How the ratings were estimated, for a table's note."""
        if self.prior:
            return f"Bradley-Terry with BayesElo's prior of {self.prior:g} virtual draws per engine"
        return "Bradley-Terry maximum likelihood"

    def rating(self, engine: str) -> EloRating:
        return next(r for r in self.ratings if r.engine == engine)

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
        return [[None if a == b else self.los(a, b) for b in order] for a in order]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: numbers as numbers, None (null) where a value is unbounded."""
        names = [r.engine for r in self.ratings]
        return {
            "model": "bradley_terry",
            "scale": "elo",
            "prior": self.prior,
            "anchor": self.anchor,
            "confidence": self.confidence,
            "interval_method": self.interval_method,
            "ratings": [r.row() for r in self.ratings],
            "los": {"engines": names, "matrix": [[_round(v, 4) for v in row] for row in self.los_matrix(names)]},
        }


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits) + 0.0  # + 0.0: no "-0.0"


# -- the fit ------------------------------------------------------------------


class _Data:
    """Pairwise results by game as engine indices ``(i, j, score of i)``, and aggregated by
    pair of engines (i < j) as ``[results, points of i]``."""

    def __init__(
        self, names: Sequence[str], games: Sequence[Sequence[tuple[int, int, float]]], prior: float = 0.0
    ) -> None:
        self.names = list(names)
        self.games = list(games)
        self.prior = prior
        self.pairs: dict[tuple[int, int], list[float]] = {}
        for game in self.games:
            for i, j, s in game:
                if i > j:
                    i, j, s = j, i, 1 - s
                cell = self.pairs.setdefault((i, j), [0, 0.0])
                cell[0] += 1
                cell[1] += s

    @classmethod
    def of(cls, records: Iterable[GameRecord], engines: Sequence[str] | None, prior: float) -> _Data:
        games = [g for g in (pairwise_results(r) for r in records) if g]
        names = _field(engines, games)
        index = {n: i for i, n in enumerate(names)}
        return cls(names, [[(index[p.a], index[p.b], p.score) for p in g] for g in games], prior)

    def resampled(self, games: Sequence[Sequence[tuple[int, int, float]]]) -> _Data:
        return _Data(self.names, games, self.prior)

    def fitted_pairs(self) -> dict[tuple[int, int], tuple[float, float]]:
        """``(results, points of i)`` by pair, with BayesElo's virtual draws added: engine i
        gives pair (i, j) ``prior / 2 * n_ij / n_i`` draws (n: pairwise results), as bayeselo's
        ``CCondensedResults::AddPrior`` does, half a point each side."""
        if not self.prior:
            return {pair: (c, s) for pair, (c, s) in self.pairs.items()}
        played = [0.0] * len(self.names)
        for (i, j), (c, _) in self.pairs.items():
            played[i] += c
            played[j] += c
        out = {}
        for (i, j), (c, s) in self.pairs.items():
            virtual = self.prior / 2 * (c / played[i] + c / played[j])
            out[i, j] = (c + virtual, s + virtual / 2)
        return out


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
    data = _Data.of(records, engines, _checked_prior(prior))
    rated, bounds = _groups(data)
    x, cov = _fit_group(data, rated) if rated else ({}, {})
    weights, text = _anchor(data.names, rated, anchor, anchor_elo)
    x, cov = _shifted(x, cov, weights, anchor_elo)
    z = _z(confidence)
    intervals = {}
    for i in rated:
        sd = math.sqrt(max(cov[i, i], 0.0))
        intervals[i] = (x[i] - z * sd, x[i] + z * sd, sd)
    curvature = "log-posterior (Laplace)" if data.prior else "log-likelihood (Wald)"
    return _assemble(data, rated, bounds, x, cov, intervals, text, confidence, f"curvature of the {curvature}")


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
    data = _Data.of(records, engines, _checked_prior(prior))
    rated, bounds = _groups(data)
    x, _ = _fit_group(data, rated) if rated else ({}, {})
    weights, text = _anchor(data.names, rated, anchor, anchor_elo)
    rng = random.Random(seed)
    draws: dict[int, list[float]] = {i: [] for i in rated}
    for _ in range(samples if rated else 0):
        sample = data.resampled(rng.choices(data.games, k=len(data.games)))
        values = _sample_elo(sample, rated)
        finite = {i: v for i, v in values.items() if math.isfinite(v)}
        if anchor is not None:
            ref = finite.get(data.names.index(anchor))
        else:
            ref = sum(finite.values()) / len(finite) if finite else None
        if ref is None:
            continue  # the anchor itself is unbounded in this sample: it places nobody
        for i in rated:
            draws[i].append(values[i] - ref + anchor_elo)
    centre = sum(w * x[i] for i, w in weights.items())
    x = {i: v - centre + anchor_elo for i, v in x.items()}
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
    return _assemble(
        data,
        rated,
        bounds,
        x,
        _sample_covariance(draws, rated),
        intervals,
        text,
        confidence,
        f"bootstrap over games, {samples} samples, seed {seed}",
    )


def _anchor(names: list[str], rated: list[int], anchor: str | None, anchor_elo: float) -> tuple[dict[int, float], str]:
    """Weights w of the anchor (the ratings are placed so that w.x = anchor_elo) and its text."""
    if not rated:
        if anchor is not None:
            raise ValueError(f"anchor {anchor!r} is not a rated engine of this field")
        return {}, NO_RATINGS
    if anchor is None:
        if anchor_elo:
            raise ValueError("anchor_elo needs an anchor engine (the field's mean is 0)")
        return {i: 1 / len(rated) for i in rated}, "mean of rated engines = 0"
    if anchor not in names or names.index(anchor) not in rated:
        raise ValueError(f"anchor {anchor!r} is not a rated engine of this field")
    a = names.index(anchor)
    return {i: float(i == a) for i in rated}, f"engine {anchor!r} = {anchor_elo:g}"


def _shifted(
    x: dict[int, float], cov: dict[tuple[int, int], float], weights: dict[int, float], target: float
) -> tuple[dict[int, float], dict[tuple[int, int], float]]:
    """x' = x - (w.x) + target, and its covariance M Cov M^T with M = I - 1 w^T."""
    centre = sum(w * x[i] for i, w in weights.items())
    cw = {i: sum(cov[i, k] * w for k, w in weights.items()) for i in x}
    wcw = sum(w * cw[i] for i, w in weights.items())
    moved = {(i, j): cov[i, j] - cw[i] - cw[j] + wcw for i in x for j in x}
    return {i: v - centre + target for i, v in x.items()}, moved


def _field(engines: Sequence[str] | None, games: Sequence[Sequence[PairResult]]) -> list[str]:
    seen = list(engines or [])
    for game in games:
        for p in game:
            for name in (p.a, p.b):
                if name not in seen:
                    seen.append(name)
    return seen


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    return Z95 if confidence == 0.95 else NormalDist().inv_cdf(0.5 + confidence / 2)


NO_RATINGS = "none: no two engines took points from each other, so no rating is finite"


def _checked_prior(prior: float) -> float:
    if not (math.isfinite(prior) and prior >= 0):
        raise ValueError("prior must be a number of virtual draws, 0 or more")
    return float(prior)


def _groups(data: _Data) -> tuple[list[int], dict[int, str]]:
    """The rated engines and the bound of each other one, with or without the prior."""
    return _connected_group(data) if data.prior else _measured_group(data)


def _connected_group(data: _Data) -> tuple[list[int], dict[int, str]]:
    """With the prior every engine linked to the others by games has a finite rating: the
    rated group is the largest group games connect (then the one with the most results
    inside, then by name); the others are ``unconnected``."""
    n = len(data.names)
    linked: list[set[int]] = [set() for _ in range(n)]
    for i, j in data.pairs:
        linked[i].add(j)
        linked[j].add(i)
    groups: list[list[int]] = []
    for i in range(n):
        if linked[i] and not any(i in g for g in groups):
            groups.append(sorted(_reach(linked, i)))
    if not groups:
        return [], {i: "unconnected" for i in range(n)}
    within = [sum(c for (i, j), (c, _) in data.pairs.items() if i in g) for g in groups]
    best = groups[
        min(range(len(groups)), key=lambda k: (-len(groups[k]), -within[k], min(data.names[i] for i in groups[k])))
    ]
    return best, {i: "unconnected" for i in range(n) if i not in best}


def _measured_group(data: _Data) -> tuple[list[int], dict[int, str]]:
    """:func:`_rated_group`, but a group of one engine is no rating (it would show a
    falsely certain 0 [0, 0], and which engine it is would be arbitrary): then every
    engine is placed by the direction of its results alone."""
    rated, bounds = _rated_group(data)
    if len(rated) != 1:
        return rated, bounds
    took, gave, _ = _links(data)

    def direction(i: int) -> str:
        if not took[i] and not gave[i]:
            return "unconnected"
        return "above" if not gave[i] else "below" if not took[i] else "between"

    return [], {i: direction(i) for i in range(len(data.names))}


def _links(data: _Data) -> tuple[list[set[int]], list[set[int]], list[int]]:
    """took[i]: the engines i took points from; gave[i]: the engines that took points from
    i; played[i]: i's pairwise results."""
    n = len(data.names)
    took: list[set[int]] = [set() for _ in range(n)]
    gave: list[set[int]] = [set() for _ in range(n)]
    played = [0] * n
    for (i, j), (count, points) in data.pairs.items():
        played[i] += int(count)  # a count of results, kept beside the points as a float
        played[j] += int(count)
        if points > 0:
            took[i].add(j)
            gave[j].add(i)
        if points < count:
            took[j].add(i)
            gave[i].add(j)
    return took, gave, played


def _rated_group(data: _Data) -> tuple[list[int], dict[int, str]]:
    """The engines whose ratings are finite (the largest group the results connect both
    ways) and the bound of every other one."""
    n = len(data.names)
    took, _, played = _links(data)
    down = [_reach(took, i) for i in range(n)]  # engines i took points from, transitively
    groups: list[list[int]] = []
    for i in range(n):
        if played[i] and not any(i in g for g in groups):
            groups.append(sorted(k for k in down[i] if i in down[k]))
    if not groups:
        return [], {i: "unconnected" for i in range(n)}
    within = [sum(c for (i, j), (c, _) in data.pairs.items() if i in g and j in g) for g in groups]
    balance = [
        abs(sum(1 for k in range(n) if g[0] in down[k] and k not in g) - sum(1 for k in down[g[0]] if k not in g))
        for g in groups
    ]
    # The largest group, the best measured one, then the one in the middle of the others
    # (A > B > C with no upsets rates B), then by name.
    best = groups[
        min(
            range(len(groups)),
            key=lambda k: (-len(groups[k]), -within[k], balance[k], min(data.names[i] for i in groups[k])),
        )
    ]
    anchor = best[0]
    bounds = {}
    for i in range(n):
        if i in best:
            continue
        if anchor in down[i]:
            bounds[i] = "above"
        elif i in down[anchor]:
            bounds[i] = "below"
        else:
            bounds[i] = "unconnected"
    return best, bounds


def _reach(edges: list[set[int]], start: int) -> set[int]:
    seen, todo = {start}, [start]
    while todo:
        for k in edges[todo.pop()]:
            if k not in seen:
                seen.add(k)
                todo.append(k)
    return seen


def _fit_group(data: _Data, group: list[int]) -> tuple[dict[int, float], dict[tuple[int, int], float]]:
    """Newton's method on the log-likelihood of ``group`` (the first engine held at 0);
    returns Elo by engine and the covariance (inverse observed information) in Elo^2."""
    where = {g: k for k, g in enumerate(group)}
    fitted = data.fitted_pairs().items()
    pairs = [(where[i], where[j], c, s) for (i, j), (c, s) in fitted if i in where and j in where]
    size = len(group)
    theta = [0.0] * size
    for _ in range(100):
        grad, hess = _derivatives(theta, pairs, size)
        step = solve_linear([row[1:] for row in hess[1:]], [-g for g in grad[1:]])
        scale = 1.0
        while max(abs(v) for v in step or [0]) * scale > 2:  # keep steps sane on lopsided data
            scale /= 2
        for k, v in enumerate(step, 1):
            theta[k] += scale * v
        if max((abs(v) for v in step), default=0) < 1e-10:
            break
    _, hess = _derivatives(theta, pairs, size)
    inverse = inverse_matrix([[-v for v in row[1:]] for row in hess[1:]])
    scale = ELO_PER_NAT**2 * dispersion(data, where, theta, inverse)
    x = {g: theta[where[g]] * ELO_PER_NAT for g in group}
    cov = {}
    for a in group:
        for b in group:
            ka, kb = where[a], where[b]
            cov[a, b] = inverse[ka - 1][kb - 1] * scale if ka and kb else 0.0
    return x, cov


def dispersion(data: _Data, where: dict[int, int], theta: list[float], inverse: list[list[float]]) -> float:
    """How much more the games' results vary than independent pairwise results would (at
    least 1): the quasi-likelihood dispersion, the observed information of the games over
    the model's, per free rating.  The pairwise results of one three-player game move
    together (beating both opponents is one event), so they carry less information than as
    many separate games; two-player games without draws give about 1."""
    free = len(where) - 1
    if free < 1:
        return 1.0
    total = 0.0
    for game in data.games:
        # The score of the engines in this game (engine 0 is held fixed, so it has none):
        # only they add to the sum, term by term in the order of the full quadratic form,
        # so a field of many engines costs no more per game than a field of two.
        u: dict[int, float] = {}
        for i, j, s in game:
            if i in where and j in where:
                a, b = where[i], where[j]
                r = s - 1 / (1 + math.exp(theta[b] - theta[a]))
                u[a] = u.get(a, 0.0) + r
                u[b] = u.get(b, 0.0) - r
        inside = sorted(k - 1 for k, value in u.items() if k and value)
        total += sum(u[p + 1] * inverse[p][q] * u[q + 1] for p in inside for q in inside)
    return max(1.0, total / free)


def _derivatives(
    theta: list[float], pairs: Sequence[tuple[int, int, float, float]], size: int
) -> tuple[list[float], list[list[float]]]:
    grad = [0.0] * size
    hess = [[0.0] * size for _ in range(size)]
    for i, j, count, points in pairs:
        p = 1 / (1 + math.exp(theta[j] - theta[i]))
        g = points - count * p
        w = count * p * (1 - p)
        grad[i] += g
        grad[j] -= g
        hess[i][i] -= w
        hess[j][j] -= w
        hess[i][j] += w
        hess[j][i] += w
    return grad, hess


def _sample_elo(data: _Data, group: list[int]) -> dict[int, float]:
    """One bootstrap sample: Elo of each engine of ``group`` (any offset), +-inf for the
    ones the sample leaves unbounded, nan for the ones it cannot place at all."""
    rated, bounds = _connected_group(data) if data.prior else _rated_group(data)
    inside = [i for i in rated if i in group]
    x, _ = _fit_group(data, inside) if inside else ({}, {})
    side = {"above": math.inf, "below": -math.inf}
    return {i: x[i] if i in x else side.get(bounds.get(i, ""), math.nan) for i in group}


def _sample_covariance(draws: dict[int, list[float]], group: list[int]) -> dict[tuple[int, int], float]:
    rows = [
        k
        for k in range(min((len(v) for v in draws.values()), default=0))
        if all(math.isfinite(draws[i][k]) for i in group)
    ]
    cov = {}
    for a in group:
        for b in group:
            if len(rows) < 2:
                cov[a, b] = 0.0
                continue
            ma = sum(draws[a][k] for k in rows) / len(rows)
            mb = sum(draws[b][k] for k in rows) / len(rows)
            cov[a, b] = sum((draws[a][k] - ma) * (draws[b][k] - mb) for k in rows) / (len(rows) - 1)
    return cov


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


def _assemble(
    data: _Data,
    rated: list[int],
    bounds: dict[int, str],
    x: dict[int, float],
    cov: dict[tuple[int, int], float],
    intervals: Mapping[int, tuple[float | None, float | None, float | None]],
    anchor: str,
    confidence: float,
    method: str,
) -> EloFit:
    """The ratings with their tallies, best first: unbounded above, rated, below, unconnected."""
    names = data.names
    games, points, results = [0] * len(names), [0.0] * len(names), [0] * len(names)
    for game in data.games:
        for k in {i for pair in game for i in pair[:2]}:
            games[k] += 1
        for i, j, s in game:
            points[i] += s
            points[j] += 1 - s
            results[i] += 1
            results[j] += 1
    ratings = []
    for i, name in enumerate(names):
        if i in rated:
            low, high, sd = intervals[i]
            ratings.append(EloRating(name, x[i], low, high, sd, games[i], points[i], results[i]))
        else:
            ratings.append(EloRating(name, None, None, None, None, games[i], points[i], results[i], bounds[i]))
    ratings.sort(key=rank_key)
    named = {(names[i], names[j]): v for (i, j), v in cov.items()}
    return EloFit(ratings, anchor, confidence, method, named, data.prior)


_BOUND_ORDER = {"above": 0, None: 1, "between": 1, "below": 2, "unconnected": 3}


def solve_linear(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the fields are small: tens of engines)."""
    return _solve_all(matrix, [vector])[0]


def _solve_all(matrix: list[list[float]], vectors: list[list[float]]) -> list[list[float]]:
    """:func:`solve_linear` for several right-hand sides with one elimination: each solution is
    the one :func:`solve_linear` gives (the same pivots and the same operations on its column),
    at the cost of one elimination rather than one per vector."""
    n, k = len(matrix), len(vectors)
    a = [row[:] + [v[i] for v in vectors] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-300:
            raise ZeroDivisionError("singular information matrix")
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            if f:
                row, top = a[r], a[col]
                for c in range(col, n + k):
                    row[c] -= f * top[c]
    solutions = []
    for m in range(k):
        out = [0.0] * n
        for r in range(n - 1, -1, -1):
            out[r] = (a[r][n + m] - sum(a[r][c] * out[c] for c in range(r + 1, n))) / a[r][r]
        solutions.append(out)
    return solutions


def inverse_matrix(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a small regular matrix, all its columns from one elimination."""
    n = len(matrix)
    columns = _solve_all(matrix, [[float(r == c) for r in range(n)] for c in range(n)])
    return [[columns[c][r] for c in range(n)] for r in range(n)]
