"""Sequential probability ratio test on game pairs, as fishtest and fastchess run it.

Two engines play *pairs*: the same opening and seed twice, seats swapped.  A pair
has five outcomes for the first engine (LL, LD, WL+DD, WD, WW: pair scores 0, 1/2,
1, 3/2, 2), the pentanomial model.  After every pair the generalized log-likelihood
ratio (GSPRT) of H1 against H0 is

    LLR = N * sum_i  phat_i * log(p1_i / p0_i)

where ``phat`` are the observed frequencies of the five outcomes and ``p0`` / ``p1``
the maximum-likelihood distributions that satisfy H0 / H1 (M. Van den Bergh,
"Comments on Normalized Elo" and "Support for the MLE of a multinomial", used by
fishtest's ``LLRcalc.py`` and fastchess's ``sprt.cpp``):

* ``logistic``: the expected pair score (scaled to 0..1) is ``L(elo)``, with
  ``L(x) = 1 / (1 + 10^(-x/400))``; the MLE with a fixed mean ``s`` is
  ``p_i = phat_i / (1 + theta (a_i - s))`` with theta the root of
  ``sum_i phat_i (a_i - s) / (1 + theta (a_i - s)) = 0`` (Proposition 1.1).
* ``normalized``: the t-value ``(mu - 1/2) / sigma`` of the pair score is
  ``sqrt(2) * nelo / (800 / ln 10)``; the MLE is found by the fixed-point iteration
  of section 4.1 of "Comments on Normalized Elo", or, where that does not reach the
  constraint, as the likeliest of the stationary points the same equations have.

Both solve ``sum_i phat_i a_i / (1 + theta a_i) = 0`` for theta: a rarely seen outcome
keeps its share only within about its frequency of a pole, so theta is found as its
distance from the nearer pole (:func:`_secular`), which keeps runs of millions of pairs
with an empty outcome exact.

Empty outcome counts are replaced by 1e-3 (fishtest's ``regularize``).  The test
accepts H1 when ``LLR >= log((1 - beta) / alpha)`` and H0 when
``LLR <= log(beta / (1 - alpha))`` (Wald's bounds).

Every function takes counts of shape ``(..., 5)``: one test or, vectorised, many
simulated tests at once (tests/test_sprt.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..record import GameRecord, lost_before_start
from ..rules.base import JsonValue
from .fingerprint import StoredSettings

PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # pair score / 2 of LL, LD, WL+DD, WD, WW
OUTCOMES = ("LL", "LD", "WL+DD", "WD", "WW")
NELO_PER_T = 800 / math.log(10)  # normalized Elo per unit of t-value per game (fishtest's nelo_divided_by_nt)
Z95 = 1.959963984540054  # two-sided 95% normal quantile
REGULARIZE = 1e-3
NO_DECISION = "no decision"  # the test stopped at a pair an engine did not play


MAX_BOUND = 1000.0  # |elo0| and |elo1| below this, in either model


class SprtSettings(BaseModel):
    """The ``[sprt]`` table of a tournament file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    elo0: float
    elo1: float
    alpha: float = Field(0.05, gt=0, lt=1)
    beta: float = Field(0.05, gt=0, lt=1)
    model: Literal["logistic", "normalized"] = "normalized"

    @model_validator(mode="after")
    def _sensible(self) -> SprtSettings:
        if self.elo0 >= self.elo1:
            raise ValueError("elo0 must be less than elo1 (H0: Elo = elo0, H1: Elo = elo1)")
        if self.alpha + self.beta >= 1:
            raise ValueError("alpha + beta must be less than 1")
        # Also refuses NaN and the infinities, whose LLR is NaN. Beyond (-1000, 1000) the
        # logistic model's scores round to 0 or 1 and the normalized model's t-values leave
        # almost no deviation to search; no engine test needs such bounds.
        if not -MAX_BOUND < self.elo0 < self.elo1 < MAX_BOUND:
            raise ValueError(f"{self.model} elo0 and elo1 must lie within ({-MAX_BOUND:g}, {MAX_BOUND:g})")
        return self

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)


# -- the statistics -----------------------------------------------------------


def logistic_score(elo: float | np.ndarray) -> float | np.ndarray:
    return 1 / (1 + 10 ** (-np.asarray(elo, dtype=float) / 400))


def frequencies(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs played and the regularized outcome frequencies, shape (...) and (..., 5)."""
    counts = np.asarray(counts, dtype=float)
    regular = np.where(counts == 0, REGULARIZE, counts)
    total = regular.sum(axis=-1)
    return total, regular / total[..., None]


def mean_var(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mu = (p * PAIR_SCORES).sum(axis=-1)
    return mu, (p * (PAIR_SCORES - mu[..., None]) ** 2).sum(axis=-1)


def _secular(phat: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The distribution p_i = phat_i / (1 + theta a_i) with sum_i p_i a_i = 0 (one per row of
    ``a``): theta is the root of f(theta) = sum_i phat_i a_i / (1 + theta a_i), which falls
    from +inf to -inf between the poles -1/max a and -1/min a. NaN where ``a`` does not
    straddle zero (no such p).

    An outcome seldom seen (a regularized empty bin: phat of 1e-3 / pairs) keeps its share only
    at a theta within about phat of a pole, closer than theta itself can be resolved. So the
    root is found as its distance delta from the nearer pole, where 1 + theta a_i = c_i + delta a_i
    with c_i = 1 - a_i / a_pole exact (0 at the pole), by Newton steps on
    h(delta) = delta f = sum_{pole} phat_i + delta sum_{others} phat_i a_i / (c_i + delta a_i),
    smooth down to delta = 0, kept inside a shrinking bracket."""
    with np.errstate(invalid="ignore", divide="ignore"):
        straddles = (a.max(axis=-1) > 0) & (a.min(axis=-1) < 0)
        lo, hi = -1 / a.max(axis=-1), -1 / a.min(axis=-1)
        middle = (lo + hi) / 2
        nearer_high = (phat * a / (1 + middle[..., None] * a)).sum(axis=-1) > 0
        a = np.where(nearer_high[..., None], -a, a)  # theta -> -theta mirrors the high pole to the low one
        c = 1 - a / a.max(axis=-1, keepdims=True)
        pole = c == 0
        pole_mass = np.where(pole, phat, 0.0).sum(axis=-1)
        weight = np.where(pole, 0.0, phat * a)  # the other outcomes' terms, over c_i + delta a_i
        c_off, a_off = np.where(pole, 1.0, c), np.where(pole, 0.0, a)
        bracket_lo, bracket_hi = np.zeros(lo.shape), (hi - lo) / 2
        delta = np.zeros(lo.shape)
        for _ in range(100):
            d = c_off + delta[..., None] * a_off
            h = pole_mass + delta * (weight / d).sum(axis=-1)
            step = -h / (weight * c_off / (d * d)).sum(axis=-1)
            done = ~straddles | (np.abs(step) <= 1e-14 * delta) | (h == 0)
            if done.all():
                break
            bracket_lo = np.where(h > 0, delta, bracket_lo)
            bracket_hi = np.where(h < 0, delta, bracket_hi)
            newton = delta + step
            inside = (newton > bracket_lo) & (newton < bracket_hi)
            delta = np.where(done, delta, np.where(inside, newton, (bracket_lo + bracket_hi) / 2))
        p = phat / (c + delta[..., None] * a)
    return np.where(straddles[..., None], p, np.nan)


def mle_with_mean(phat: np.ndarray, s: np.ndarray | float) -> np.ndarray:
    """The outcome distribution with expected pair score ``s`` most likely to give ``phat``."""
    a = PAIR_SCORES - np.asarray(s, dtype=float)[..., None]
    return _secular(phat, np.broadcast_to(a, phat.shape))


FIXED_POINT_T = 0.35  # |t| (nElo about 86) up to which the fixed point is trusted; see mle_with_t


def mle_with_t(phat: np.ndarray, t: float, ref: float = 0.5) -> np.ndarray:
    """The outcome distribution with t-value (mu - ref) / sigma = t most likely to give ``phat``.

    Van den Bergh's fixed point first (fast, and fishtest's own), for |t| up to FIXED_POINT_T;
    a row where it ends off the constraint is solved by :func:`_stationary_mle_with_t`, which
    holds for every t. Beyond FIXED_POINT_T every row is: there the likelihood on the constraint
    can have two peaks and the fixed point may settle on the lower one ([0, 230, 470, 340, 250]
    at t = -0.88 loses 35 of LLR; it has no root at all past about 0.94). In thousands of random
    vectors, with and without empty outcomes, it found the higher peak for every |t| below 0.57."""
    if abs(t) > FIXED_POINT_T:
        return _each_row(phat, lambda row: _stationary_mle_with_t(row, t, ref))
    p = np.full(phat.shape, 1 / len(PAIR_SCORES))
    with np.errstate(invalid="ignore", divide="ignore"):
        for _ in range(100):
            mu, var = mean_var(p)
            sigma = np.sqrt(var)[..., None]
            new = _secular(phat, _t_direction(t, ref, mu[..., None], sigma))
            converged = np.abs(new - p).max() < 1e-12
            p = new
            if converged:
                break
        mu, var = mean_var(p)
        off = ~(np.isfinite(p).all(axis=-1) & (np.abs(mu - ref - t * np.sqrt(var)) < 1e-9))
    return _each_row(phat, lambda row: _stationary_mle_with_t(row, t, ref), p, off)


def _each_row(
    phat: np.ndarray, solve: Callable[[np.ndarray], np.ndarray], p: np.ndarray | None = None, rows: Any = True
) -> np.ndarray:
    """``p`` with ``solve(phat[row])`` in each of ``rows`` (a mask over phat's rows; all by default)."""
    p = np.array(np.empty(phat.shape) if p is None else p)
    rows = np.broadcast_to(rows, phat.shape[:-1])
    for row in zip(*np.nonzero(rows)) if p.ndim > 1 else ([()] if rows else []):
        p[row] = solve(phat[row])
    return p


def _t_direction(t: float, ref: float, mu: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """a_i of the t-value constraint linearised at mean ``mu`` and deviation ``sigma``: the
    gradient of mu - ref - t sigma, shifted so that sum_i p_i a_i = 0 is the constraint."""
    return np.asarray(PAIR_SCORES - ref - t * sigma * (1 + ((mu - PAIR_SCORES) / sigma) ** 2) / 2)


STATIONARY_GRID = 512  # deviations scanned for the stationary points of the likelihood
EDGE_STEPS = 52  # points crowded towards each edge of the feasible deviations, down to 2^-52 of a grid step


def _stationary_mle_with_t(phat: np.ndarray, t: float, ref: float) -> np.ndarray:
    """The same MLE for one row, from every stationary point of the likelihood on the constraint.

    Each is a deviation sigma (mean ref + t sigma) where the distribution of
    :func:`_secular` for the constraint linearised there has exactly that mean (and then,
    by sum_i p_i a_i = 0, that deviation): a root of g(sigma) = mean - ref - t sigma. The
    roots are bracketed on a grid of every feasible sigma and bisected; the likeliest wins.
    The maximum is one of them: every outcome has phat > 0, so it lies inside the simplex."""
    if t == 0:
        return mle_with_mean(phat, ref)
    sigmas = _feasible_grid(phat, t, ref)
    gaps = _stationary_gap(phat, t, ref, sigmas)
    starts = np.flatnonzero((gaps[:-1] * gaps[1:] <= 0) & np.isfinite(gaps[:-1] * gaps[1:]))
    low, high = sigmas[starts], sigmas[starts + 1]
    rising = gaps[starts] < 0
    for _ in range(60):
        middle = (low + high) / 2
        below = (_stationary_gap(phat, t, ref, middle) < 0) == rising
        low, high = np.where(below, middle, low), np.where(below, high, middle)
    roots = (low + high) / 2
    candidates = _secular(
        np.broadcast_to(phat, (len(roots), len(phat))), _t_direction(t, ref, ref + t * roots[:, None], roots[:, None])
    )
    return np.asarray(candidates[int(np.argmax((phat * np.log(candidates)).sum(axis=-1)))])


def _feasible_grid(phat: np.ndarray, t: float, ref: float) -> np.ndarray:
    """Deviations from 0 to the largest possible (sigma^2 = mu (1 - mu) with mu = ref + t sigma,
    all on the two extremes), evenly spaced, and crowded towards each edge of the range where the
    linearised constraint has a distribution: the likeliest one may lie there, within a hair of
    the edge, when an outcome was never seen."""
    top = (t * (1 - 2 * ref) + math.sqrt((t * (1 - 2 * ref)) ** 2 + 4 * (1 + t * t) * ref * (1 - ref))) / (
        2 * (1 + t * t)
    )
    sigmas = top * np.arange(STATIONARY_GRID + 2) / (STATIONARY_GRID + 1)
    inside = np.isfinite(_stationary_gap(phat, t, ref, sigmas))
    inside[[0, -1]] = False  # sigma = 0 and sigma = top: degenerate distributions
    crowded = [sigmas]
    for edge in np.flatnonzero(inside[:-1] != inside[1:]):
        out, into = (edge, edge + 1) if inside[edge + 1] else (edge + 1, edge)
        outside, feasible = np.full(1, sigmas[out]), np.full(1, sigmas[into])
        for _ in range(60):  # the edge itself, by bisection
            middle = (outside + feasible) / 2
            ok = np.isfinite(_stationary_gap(phat, t, ref, middle))
            outside, feasible = np.where(ok, outside, middle), np.where(ok, middle, feasible)
        crowded.append(outside + (sigmas[into] - outside) * 0.5 ** np.arange(1, EDGE_STEPS + 1))
    return np.unique(np.concatenate(crowded))


def _stationary_gap(phat: np.ndarray, t: float, ref: float, sigmas: np.ndarray) -> np.ndarray:
    """g(sigma) for each of ``sigmas``; NaN where the linearised constraint has no distribution."""
    mu = ref + t * sigmas[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):  # sigma = 0: NaN, as outside
        p = _secular(np.broadcast_to(phat, (len(sigmas), len(phat))), _t_direction(t, ref, mu, sigmas[:, None]))
    return np.asarray(p @ PAIR_SCORES - mu[:, 0])


def hypotheses(settings: SprtSettings) -> tuple[float, float]:
    """H0's and H1's value of the constrained statistic (mean score, or t-value per pair)."""
    if settings.model == "logistic":
        return float(logistic_score(settings.elo0)), float(logistic_score(settings.elo1))
    return (math.sqrt(2) * settings.elo0 / NELO_PER_T, math.sqrt(2) * settings.elo1 / NELO_PER_T)


def llr(counts: Any, settings: SprtSettings) -> np.ndarray:
    """The GSPRT log-likelihood ratio of H1 against H0 for pentanomial ``counts``."""
    total, phat = frequencies(counts)
    h0, h1 = hypotheses(settings)
    if settings.model == "logistic":
        p0, p1 = mle_with_mean(phat, h0), mle_with_mean(phat, h1)
    else:
        p0, p1 = mle_with_t(phat, h0), mle_with_t(phat, h1)
    return np.asarray(total * (phat * (np.log(p1) - np.log(p0))).sum(axis=-1))


@dataclass(frozen=True)
class EloEstimate:
    """Elo of the first engine over the second, with a 95% interval, from pair results.
    A score of 0 or 1 has an infinite Elo, kept as None in JSON."""

    elo: float
    elo_low: float
    elo_high: float
    nelo: float | None
    nelo_error: float | None  # half-width of nelo's 95% interval
    los: float  # likelihood of superiority: P(true score > 1/2)

    def as_dict(self) -> dict[str, float | None]:
        return {k: _rounded(v) for k, v in self.__dict__.items()}


def elo_estimate(counts: Iterable[int]) -> EloEstimate | None:
    """As fastchess computes it: the mean score and its variance per unit (pair or
    game), the interval ``score +- 1.96 sqrt(var / units)`` mapped through the logistic
    curve.  ``counts`` are five pair outcomes (LL .. WW) or three game results (L, D, W),
    fishtest's two conventions."""
    counts = np.asarray(list(counts), dtype=float)
    units = counts.sum()
    if units == 0:
        return None
    scores = np.linspace(0, 1, len(counts))
    mu = float(counts @ scores / units)
    var = float(counts @ (scores - mu) ** 2 / units)
    if var == 0:  # every unit alike: nothing to normalise by, the score is all there is
        elo = _elo(mu)
        return EloEstimate(elo, elo, elo, None, None, 1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5)
    se = math.sqrt(var / units)
    sd = math.sqrt(2 * var) if len(counts) == 5 else math.sqrt(var)  # per game
    los = 0.5 * (1 + math.erf((mu - 0.5) / (math.sqrt(2) * se)))
    return EloEstimate(
        _elo(mu),
        _elo(mu - Z95 * se),
        _elo(mu + Z95 * se),
        (mu - 0.5) / sd * NELO_PER_T,
        Z95 * se / sd * NELO_PER_T,
        los,
    )


def _elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


@dataclass(frozen=True)
class SprtElo:
    """The pair Elo an SPRT block shows: :class:`EloEstimate` rounded to 4 digits, an
    infinite figure as None (a score of 0 or 1), and what it counts."""

    elo: float | None
    elo_low: float | None
    elo_high: float | None
    nelo: float | None
    nelo_error: float | None
    los: float
    label: str

    @classmethod
    def of(cls, estimate: EloEstimate, pairs: int) -> SprtElo:
        e = estimate
        return cls(
            _rounded(e.elo),
            _rounded(e.elo_low),
            _rounded(e.elo_high),
            _rounded(e.nelo),
            _rounded(e.nelo_error),
            round(e.los, 4),
            sprt_elo_label(pairs),
        )


def _rounded(value: float | None) -> float | None:
    """A figure of results.json: 4 digits, None where it is infinite (or there is none)."""
    return round(value, 4) if value is not None and math.isfinite(value) else None


@dataclass(frozen=True)
class SprtSummary:
    """A test as it stands: its settings, decision, counts, LLR and pair Elo, which the
    terminal, the exports and the report site show; :meth:`as_dict` is results.json's
    ``sprt`` section (schema in docs/results.md)."""

    engine: str
    opponent: str
    model: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    lower_bound: float
    upper_bound: float
    decision: str  # "H1", "H0", "inconclusive", NO_DECISION or "running"
    unplayed: str | None  # with NO_DECISION: which engine did not play which game, and why
    pairs: int
    llr: float
    score: float  # the mean pair score, 0..1
    pentanomial: tuple[int, ...]  # pairs of each outcome, in OUTCOMES' order
    elo: SprtElo | None  # None before the first pair
    llr_history: tuple[float, ...]  # the LLR after each counted pair

    @property
    def games(self) -> int:
        return 2 * self.pairs

    def as_dict(self) -> dict[str, JsonValue]:
        """results.json's ``sprt`` section: its keys in the order the schema gives them."""
        return {
            "engine": self.engine,
            "opponent": self.opponent,
            "model": self.model,
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
            "decision": self.decision,
            **({"unplayed": self.unplayed} if self.unplayed else {}),
            "pairs": self.pairs,
            "games": self.games,
            "llr": self.llr,
            "score": self.score,
            "pentanomial": dict(zip(OUTCOMES, self.pentanomial)),
            "elo": None if self.elo is None else asdict(self.elo),
            "llr_history": list(self.llr_history),
        }


# -- a test over the pairs of a schedule --------------------------------------


def pair_outcome(first: GameRecord, second: GameRecord, engine: str) -> int:
    """The pentanomial bin of ``engine`` in the two games of a pair: its pair score in
    half points (0 LL, 1 LD, 2 WL or DD, 3 WD, 4 WW) is the bin's number."""
    return _half_points(first, engine) + _half_points(second, engine)


def _half_points(record: GameRecord, engine: str) -> int:
    """2 for a win, 1 for a draw, 0 for a loss, from the places (forfeits included)."""
    seat = (record.players or []).index(engine)
    places = record.places or []
    mine, theirs = places[seat], places[1 - seat]
    return 2 if mine < theirs else 1 if mine == theirs else 0


@dataclass
class SprtTest:
    """The test over pairs in schedule order: pair k counts only once pairs 0..k-1 are
    complete, so the decision and the pair count it is taken at do not depend on which
    worker finished first, nor on a kill and resume in between.  A pair with a game an
    engine did not play (it could not start, or was dropped: :func:`lost_before_start`)
    ends the test with :data:`NO_DECISION`: a forfeit win there would say nothing of the
    engines' strength, while crashes, time losses and illegal moves in games played count.

    ``pair_of`` maps a game index to its pair number (the schedule's two games of a
    pair are consecutive: 2k and 2k + 1)."""

    settings: SprtSettings
    engine: str  # the engine whose Elo is tested (the first in the file)
    opponent: str
    max_pairs: int
    counts: list[int] = field(default_factory=lambda: [0] * 5)
    pairs: int = 0  # complete pairs counted, in schedule order
    llr: float = 0.0
    history: list[float] = field(default_factory=list)  # LLR after each counted pair
    decision: str | None = None  # "H1", "H0", after max_pairs "inconclusive", or NO_DECISION
    unplayed: str | None = None  # with NO_DECISION: which engine did not play which game, and why
    _waiting: dict[int, GameRecord] = field(default_factory=dict)

    def add(self, record: GameRecord) -> bool:
        """Count one finished game; True once the test is decided."""
        if self.decision is None:
            self._waiting[record["id"]] = record
            while self.decision is None and {2 * self.pairs, 2 * self.pairs + 1} <= self._waiting.keys():
                first = self._waiting.pop(2 * self.pairs)
                second = self._waiting.pop(2 * self.pairs + 1)
                lost = [r for r in (first, second) if lost_before_start(r)]
                if lost:  # a pair an engine did not play tells nothing of its strength
                    self._stop_unplayed(lost[0])
                else:
                    self._count(pair_outcome(first, second, self.engine))
        return self.decision is not None

    def _stop_unplayed(self, record: GameRecord) -> None:
        """End the test without a decision at a game an engine did not play."""
        seat = record.get("forfeit_seat") or 0
        name = record["players"][seat]
        why = str(record.get("reason") or "").removeprefix(f"{name} (seat {seat}): ")
        self.unplayed = f"{name} did not play game {record['id']} ({record['termination']}: {why})"
        self.decision = NO_DECISION

    def _count(self, outcome: int) -> None:
        self.counts[outcome] += 1
        self.pairs += 1
        self.llr = float(llr(self.counts, self.settings))
        self.history.append(round(self.llr, 4))
        if self.llr >= self.settings.upper:
            self.decision = "H1"
        elif self.llr <= self.settings.lower:
            self.decision = "H0"
        elif self.pairs >= self.max_pairs:
            self.decision = "inconclusive"

    @property
    def games_needed(self) -> int:
        """Games of the schedule the test can still use: all up to its decision."""
        return 2 * (self.pairs if self.decision else self.max_pairs)

    def summary(self) -> SprtSummary:
        """The test as it stands: what results.json's ``sprt`` section and every SPRT block show."""
        s = self.settings
        estimate = elo_estimate(self.counts)
        return SprtSummary(
            engine=self.engine,
            opponent=self.opponent,
            model=s.model,
            elo0=s.elo0,
            elo1=s.elo1,
            alpha=s.alpha,
            beta=s.beta,
            lower_bound=round(s.lower, 4),
            upper_bound=round(s.upper, 4),
            decision=self.decision or "running",
            unplayed=self.unplayed,
            pairs=self.pairs,
            llr=round(self.llr, 4),
            score=round(float(mean_var(np.asarray(self.counts) / max(self.pairs, 1))[0]), 6),
            pentanomial=tuple(self.counts),
            elo=None if estimate is None else SprtElo.of(estimate, self.pairs),
            llr_history=tuple(self.history),
        )

    def status_text(self) -> str:
        """The live line's test (after it: the pairs, and the outcome once decided)."""
        s = self.settings
        return f"{llr_text(self.llr, s.lower, s.upper)} [{s.elo0:g}, {s.elo1:g}] {s.model}"

    @property
    def outcome(self) -> str | None:
        """The decision in words (None while the test runs), as every SPRT block says it."""
        return None if self.decision is None else outcome_text(self.decision, self.engine)


# -- the words every place shows (the live line, the tables, the report site) ------------


def llr_text(llr: float, lower: float, upper: float) -> str:
    return f"LLR {llr:.2f} ({lower:.2f}, {upper:.2f})"


def outcome_text(decision: str, engine: str) -> str:
    """``new passes`` (H1), ``new fails`` (H0), ``inconclusive`` (rounds reached), ``no decision``
    (an engine did not play a pair's game), ``running``."""
    return {"H1": f"{engine} passes", "H0": f"{engine} fails"}.get(decision, decision)


def sprt_elo_label(pairs: int) -> str:
    return f"SPRT Elo ({pairs} {'pair' if pairs == 1 else 'pairs'}, pentanomial)"


def sprt_lines(summary: SprtSummary) -> list[str]:
    """The test's block: the terminal's and ``arena results``' lines and the report site's."""
    elo0, elo1, engine = summary.elo0, summary.elo1, summary.engine
    why = {
        "H1": f"H1 accepted: Elo {elo1:g} rather than {elo0:g}",
        "H0": f"H0 accepted: Elo {elo0:g} rather than {elo1:g}",
        "inconclusive": "no decision within the maximum number of pairs: rounds",
        "running": "not decided yet; run the same command to continue",
        NO_DECISION: f"{summary.unplayed}; only games both engines played decide",
    }[summary.decision]
    counts = ", ".join(str(n) for n in summary.pentanomial)
    lines = [
        f"SPRT {engine} vs {summary.opponent} ({summary.model} [{elo0:g}, {elo1:g}], alpha "
        f"{summary.alpha:g}, beta {summary.beta:g}): {outcome_text(summary.decision, engine)} ({why})",
        f"{llr_text(summary.llr, summary.lower_bound, summary.upper_bound)} after {summary.pairs} pairs; "
        f"Ptnml(LL LD WL+DD WD WW): [{counts}]",
    ]
    if e := summary.elo:
        # An infinite figure: all three at a score of 0 or 1, else an end of the interval
        # (LL and WW only: a score of 1/2 whose interval reaches past 0 and 1 at once).
        sweep = {0.0: "-inf", 1.0: "+inf"}.get(summary.score)
        ends = ("-inf", "-inf", "+inf")  # the Elo itself is infinite only in a sweep
        show = [(sweep or end) if v is None else _fixed(v) for v, end in zip((e.elo, e.elo_low, e.elo_high), ends)]
        nelo = "n/a" if e.nelo is None or e.nelo_error is None else f"{_fixed(e.nelo)} +/- {_fixed(e.nelo_error)}"
        lines.append(
            f"{e.label}: {show[0]} [{show[1]}, {show[2]}] (95%), "
            f"nElo {nelo}, LOS {100 * e.los:.1f}%, score {100 * summary.score:.1f}%"
        )
    return lines


def _fixed(value: float) -> str:
    return f"{round(value, 1) + 0.0:.1f}"  # no "-0.0"


def sprt_from_settings(settings: StoredSettings | None, records: Iterable[GameRecord] = ()) -> SprtTest | None:
    """The SPRT of a results folder's stored settings (None without ``[sprt]``), with
    ``records`` counted: what ``arena results`` and ``arena report`` show of a folder,
    finished or still running, the same as the run itself.  Raises ValueError when the
    stored section does not make a test."""
    if not settings or not settings.get("sprt"):
        return None
    first, second = (e["name"] for e in settings["engines"][:2])
    test = SprtTest(SprtSettings.model_validate(settings["sprt"]), first, second, max_pairs=settings["rounds"])
    for record in sorted(records, key=lambda r: r["id"]):
        test.add(record)
    return test
