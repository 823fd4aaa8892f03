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
  of section 4.1 of "Comments on Normalized Elo".

Empty outcome counts are replaced by 1e-3 (fishtest's ``regularize``).  The test
accepts H1 when ``LLR >= log((1 - beta) / alpha)`` and H0 when
``LLR <= log(beta / (1 - alpha))`` (Wald's bounds).

Every function takes counts of shape ``(..., 5)``: one test or, vectorised, many
simulated tests at once (tests/test_sprt.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..record import GameRecord, lost_before_start

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
        # logistic model's scores round to 0 or 1 and the normalized solver's profile grid has
        # no feasible point; no engine test needs such bounds.
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
    """The root theta of sum_i phat_i a_i / (1 + theta a_i) = 0 (one per row of ``a``).

    The sum falls strictly with theta on (-1/max a, -1/min a), where 1 + theta a_i > 0
    for every i, so a Newton step kept inside a shrinking bracket converges."""
    lo = -1 / a.max(axis=-1)
    hi = -1 / a.min(axis=-1)
    theta = np.zeros(lo.shape)
    for _ in range(100):
        d = 1 + theta[..., None] * a
        f = (phat * a / d).sum(axis=-1)
        newton = f / (phat * a * a / (d * d)).sum(axis=-1)  # -f / f'
        converged = np.abs(newton) <= 1e-13 * np.maximum(1, np.abs(theta))
        if converged.all():
            break
        lo = np.where(f > 0, theta, lo)
        hi = np.where(f < 0, theta, hi)
        step = theta + newton
        step = np.where((step > lo) & (step < hi), step, (lo + hi) / 2)
        theta = np.where(converged, theta, step)
    return theta


def mle_with_mean(phat: np.ndarray, s: np.ndarray | float) -> np.ndarray:
    """The outcome distribution with expected pair score ``s`` most likely to give ``phat``."""
    a = PAIR_SCORES - np.asarray(s, dtype=float)[..., None]
    a = np.broadcast_to(a, phat.shape)
    theta = _secular(phat, a)
    return phat / (1 + theta[..., None] * a)


def mle_with_t(phat: np.ndarray, t: float, ref: float = 0.5) -> np.ndarray:
    """The outcome distribution with t-value (mu - ref) / sigma = t most likely to give ``phat``.

    Van den Bergh's fixed point first (fast, and fishtest's own); a row where it ends off the
    constraint (it has no root for large t: about 0.94 from its uniform start) is solved by
    :func:`_profile_mle_with_t`, which holds for every t."""
    p = np.full(phat.shape, 1 / len(PAIR_SCORES))
    with np.errstate(invalid="ignore", divide="ignore"):
        for _ in range(100):
            mu, var = mean_var(p)
            sigma = np.sqrt(var)[..., None]
            a = PAIR_SCORES - ref - t * sigma * (1 + ((mu[..., None] - PAIR_SCORES) / sigma) ** 2) / 2
            theta = _secular(phat, a)
            new = phat / (1 + theta[..., None] * a)
            converged = np.abs(new - p).max() < 1e-12
            p = new
            if converged:
                break
        mu, var = mean_var(p)
        off = ~(np.isfinite(p).all(axis=-1) & (np.abs(mu - ref - t * np.sqrt(var)) < 1e-9))
    if off.any():
        p = np.array(p)
        for row in zip(*np.nonzero(off)) if p.ndim > 1 else [()]:
            p[row] = _profile_mle_with_t(phat[row], t, ref)
    return p


PROFILE_GRID = 400  # mean scores tried at first; then rounds of finer grids around the best
PROFILE_ROUNDS = 6  # each narrows the best mean's bracket 25-fold: to about 1e-10 in all


def _profile_mle_with_t(phat: np.ndarray, t: float, ref: float) -> np.ndarray:
    """The same MLE for one row, by profiling over the mean score s: with s fixed, the
    constraint (s - ref) = t * sigma fixes the variance v(s) = ((s - ref) / t)^2, and both
    the mean and the variance are linear in p, so the MLE given s is an empirical-likelihood
    problem (:func:`_mle_with_moments`, concave in its two multipliers). The best s is found
    on a grid of the feasible means, then on finer grids around the best point."""
    if t == 0:
        return mle_with_mean(phat, ref)
    low, high = (ref, 1.0) if t > 0 else (0.0, ref)
    means = np.linspace(low, high, PROFILE_GRID + 2)[1:-1]
    for _ in range(PROFILE_ROUNDS):
        variances = ((means - ref) / t) ** 2
        feasible = _moments_feasible(means, variances)
        values, ps = _mle_with_moments(phat, means[feasible], variances[feasible])
        best = int(np.argmax(values))
        kept = means[feasible]
        below, above = kept[max(best - 1, 0)], kept[min(best + 1, len(kept) - 1)]
        means = np.linspace(below, above, 51)
    return ps[best]


def _moments_feasible(s: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Whether some distribution with every outcome likely (the interior of the simplex)
    has mean ``s`` and variance ``v``: above the variance of the two outcomes around s, below
    that of the two extremes."""
    k = np.clip(np.floor(s * (len(PAIR_SCORES) - 1)).astype(int), 0, len(PAIR_SCORES) - 2)
    least = (s - PAIR_SCORES[k]) * (PAIR_SCORES[k + 1] - s)
    return (v > least + 1e-12) & (v < s * (1 - s) - 1e-12)


def _mle_with_moments(phat: np.ndarray, s: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each mean s[g] and variance v[g]: the log-likelihood sum_i phat_i log p_i of the
    most likely p with that mean and variance, and that p. It is
    p_i = phat_i / (1 + lambda . b_i) with b_i = (x_i - s, (x_i - s)^2 - v), lambda the maximum
    of the concave G(lambda) = sum_i phat_i log(1 + lambda . b_i) (Owen's empirical likelihood),
    found by Newton steps halved until they stay in G's domain and do not lower it."""
    d = PAIR_SCORES - s[:, None]
    b = np.stack([d, d * d - v[:, None]], axis=-1)  # (grid, 5, 2)
    lam = np.zeros((len(s), 2))

    def concave(lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        denominator = 1 + np.einsum("gik,gk->gi", b, lam)
        inside = (denominator > 0).all(axis=-1)
        logs = np.log(np.where(denominator > 0, denominator, 1.0))
        return np.where(inside, (phat * logs).sum(axis=-1), np.inf), denominator

    value, denominator = concave(lam)
    for _ in range(60):
        w = phat / denominator
        gradient = np.einsum("gi,gik->gk", w, b)
        if np.abs(gradient).max() < 1e-13:
            break
        hessian = -np.einsum("gi,gik,gil->gkl", w / denominator, b, b)
        step = -np.linalg.solve(hessian, gradient[..., None])[..., 0]  # negative definite: 5 outcomes
        scale = np.ones(len(s))
        for _ in range(60):
            candidate = lam + scale[:, None] * step
            new, new_denominator = concave(candidate)
            worse = ~((new >= value - 1e-15) & np.isfinite(new))
            if not worse.any():
                break
            scale = np.where(worse, scale / 2, scale)
        keep = ~worse
        lam = np.where(keep[:, None], candidate, lam)
        value = np.where(keep, new, value)
        denominator = np.where(keep[:, None], new_denominator, denominator)
    p = phat / denominator
    solved = np.abs(p.sum(axis=-1) - 1) < 1e-9  # the sum is 1 only at G's maximum
    entropy = (phat * np.log(phat)).sum()
    return np.where(solved, entropy - value, -np.inf), p


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
    return total * (phat * (np.log(p1) - np.log(p0))).sum(axis=-1)


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
        return {k: round(v, 4) if v is not None and math.isfinite(v) else None for k, v in self.__dict__.items()}


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


# -- a test over the pairs of a schedule --------------------------------------

# A game's record, read by its JSON keys (id, players, places): a GameRecord, or its JSON.
Result = GameRecord | dict[str, Any]


def pair_outcome(first: Result, second: Result, engine: str) -> int:
    """The pentanomial bin of ``engine`` in the two games of a pair: its pair score in
    half points (0 LL, 1 LD, 2 WL or DD, 3 WD, 4 WW) is the bin's number."""
    return _half_points(first, engine) + _half_points(second, engine)


def _half_points(record: Result, engine: str) -> int:
    """2 for a win, 1 for a draw, 0 for a loss, from the places (forfeits included)."""
    seat = record["players"].index(engine)
    mine, theirs = record["places"][seat], record["places"][1 - seat]
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
    _waiting: dict[int, Result] = field(default_factory=dict)

    def add(self, record: Result) -> bool:
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

    def _stop_unplayed(self, record: Result) -> None:
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

    def summary(self) -> dict[str, Any]:
        """The ``sprt`` section of results.json."""
        s = self.settings
        estimate = elo_estimate(self.counts)
        return {
            "engine": self.engine,
            "opponent": self.opponent,
            "model": s.model,
            "elo0": s.elo0,
            "elo1": s.elo1,
            "alpha": s.alpha,
            "beta": s.beta,
            "lower_bound": round(s.lower, 4),
            "upper_bound": round(s.upper, 4),
            "decision": self.decision or "running",
            **({"unplayed": self.unplayed} if self.unplayed else {}),
            "pairs": self.pairs,
            "games": 2 * self.pairs,
            "llr": round(self.llr, 4),
            "score": round(float(mean_var(np.asarray(self.counts) / max(self.pairs, 1))[0]), 6),
            "pentanomial": dict(zip(OUTCOMES, self.counts)),
            "elo": {**estimate.as_dict(), "label": sprt_elo_label(self.pairs)} if estimate else None,
            "llr_history": self.history,
        }

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
    return f"SPRT Elo ({pairs} pairs, pentanomial)"


def sprt_lines(summary: dict[str, Any]) -> list[str]:
    """The test's block, from its results.json section: the terminal's and ``arena results``'
    lines and the report site's."""
    elo0, elo1, engine = summary["elo0"], summary["elo1"], summary["engine"]
    why = {
        "H1": f"H1 accepted: Elo {elo1:g} rather than {elo0:g}",
        "H0": f"H0 accepted: Elo {elo0:g} rather than {elo1:g}",
        "inconclusive": "no decision within the maximum number of pairs: rounds",
        "running": "not decided yet; run the same command to continue",
        NO_DECISION: f"{summary.get('unplayed')}; only games both engines played decide",
    }[summary["decision"]]
    counts = ", ".join(str(n) for n in summary["pentanomial"].values())
    lines = [
        f"SPRT {engine} vs {summary['opponent']} ({summary['model']} [{elo0:g}, {elo1:g}], alpha "
        f"{summary['alpha']:g}, beta {summary['beta']:g}): {outcome_text(summary['decision'], engine)} ({why})",
        f"{llr_text(summary['llr'], summary['lower_bound'], summary['upper_bound'])} after {summary['pairs']} pairs; "
        f"Ptnml(LL LD WL+DD WD WW): [{counts}]",
    ]
    if summary["elo"]:
        e = summary["elo"]
        infinite = "+inf" if summary["score"] > 0.5 else "-inf"
        show = {k: infinite if e[k] is None else _fixed(e[k]) for k in ("elo", "elo_low", "elo_high")}
        nelo = "n/a" if e["nelo"] is None else f"{_fixed(e['nelo'])} +/- {_fixed(e['nelo_error'])}"
        lines.append(
            f"{sprt_elo_label(summary['pairs'])}: {show['elo']} [{show['elo_low']}, {show['elo_high']}] (95%), "
            f"nElo {nelo}, LOS {100 * e['los']:.1f}%, score {100 * summary['score']:.1f}%"
        )
    return lines


def _fixed(value: float) -> str:
    return f"{round(value, 1) + 0.0:.1f}"  # no "-0.0"


def sprt_from_settings(settings: dict[str, Any] | None, records: Iterable[Result] = ()) -> SprtTest | None:
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
