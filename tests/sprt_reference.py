"""An independent, 40-digit computation of the normalized SPRT's constrained maximum
likelihood, to check arena/results/sprt.py against (tests/test_sprt.py).

It shares no code and no method with arena's solver: arena solves Van den Bergh's one-multiplier
equations in floating point; this profiles over the standard deviation sigma of the pair
score. With sigma fixed, the constraint (mu - 1/2) / sigma = t fixes the mean and the variance,
both linear in p, so the most likely p is an empirical-likelihood problem: the maximum of the
concave G(lambda) = sum_i phat_i ln(1 + lambda . b_i), b_i = (x_i - mu, (x_i - mu)^2 - sigma^2),
solved by damped Newton steps in Decimal arithmetic. A dense scan of sigma, then golden
sections around the best point, find the profile's maximum.
"""

from __future__ import annotations

import json
import sys
from decimal import Decimal, localcontext
from functools import cache
from pathlib import Path

DIGITS = 40
SCORES = [Decimal(i) / 4 for i in range(5)]
HALF = Decimal(1) / 2
SCAN = 32  # sigma values scanned before the golden sections
GOLDEN_STEPS = 64  # each narrows the bracket by 0.618: to 1e-13 of it, the value far closer still


def normalized_llr(counts: tuple[int, ...], elo0: float, elo1: float) -> float:
    """N * sum_i phat_i ln(p1_i / p0_i), fishtest's regularization (an empty count is 1e-3)."""
    with localcontext() as context:
        context.prec = DIGITS
        total = sum(_regular(counts))
        return float(total * (_max_loglik_at(counts, elo1) - _max_loglik_at(counts, elo0)))


def _regular(counts: tuple[int, ...]) -> list[Decimal]:
    return [Decimal(c) if c else Decimal("0.001") for c in counts]


@cache  # the same counts meet the same bound in many bound pairs
def _max_loglik_at(counts: tuple[int, ...], elo: float) -> Decimal:
    with localcontext() as context:
        context.prec = DIGITS
        regular = _regular(counts)
        phat = [c / sum(regular) for c in regular]
        t = Decimal(2).sqrt() * Decimal(repr(elo)) / (800 / Decimal(10).ln())
        return max_loglik(phat, t)


def max_loglik(phat: list[Decimal], t: Decimal) -> Decimal:
    """The maximum of sum_i phat_i ln p_i over the p with (mu - 1/2) / sigma = t."""
    if t == 0:
        return _mean_only(phat)
    top = HALF / (1 + t * t).sqrt()  # above it, the variance exceeds mu (1 - mu)
    grid = [top * (k + 1) / (SCAN + 1) for k in range(SCAN)]
    values = [_profile(phat, t, sigma) for sigma in grid]
    padded = [Decimal("-Infinity"), *values, Decimal("-Infinity")]
    peaks = [k for k in range(SCAN) if padded[k] <= values[k] >= padded[k + 2] and values[k].is_finite()]
    edges = [Decimal(0), *grid, top]
    # the profile may have more than one peak (a rare outcome pulls towards its own): climb each
    return max(_golden_maximum(lambda sigma: _profile(phat, t, sigma), edges[k], edges[k + 2]) for k in peaks)


def _mean_only(phat: list[Decimal]) -> Decimal:
    """t = 0: the mean is 1/2 and the variance free, one multiplier, found by bisection."""
    a = [x - HALF for x in SCORES]
    low, high = -1 / max(a), -1 / min(a)
    for _ in range(400):
        theta = (low + high) / 2
        slope = sum(p * ai / (1 + theta * ai) for p, ai in zip(phat, a))
        low, high = (theta, high) if slope > 0 else (low, theta)
    return sum(p * (p / (1 + theta * ai)).ln() for p, ai in zip(phat, a))


def _golden_maximum(f, low: Decimal, high: Decimal) -> Decimal:
    ratio = (Decimal(5).sqrt() - 1) / 2
    c, d = high - ratio * (high - low), low + ratio * (high - low)
    fc, fd = f(c), f(d)
    for _ in range(GOLDEN_STEPS):
        if fc >= fd:
            high, d, fd = d, c, fc
            c = high - ratio * (high - low)
            fc = f(c)
        else:
            low, c, fc = c, d, fd
            d = low + ratio * (high - low)
            fd = f(d)
    return max(fc, fd)


def _profile(phat: list[Decimal], t: Decimal, sigma: Decimal) -> Decimal:
    """The maximum log-likelihood with mean 1/2 + t sigma and variance sigma^2 (-inf when no
    distribution with every outcome possible has them)."""
    mu, var = HALF + t * sigma, sigma * sigma
    k = min(max(int(mu * 4), 0), 3)
    if not (mu - SCORES[k]) * (SCORES[k + 1] - mu) < var < mu * (1 - mu):
        return Decimal("-Infinity")
    b = [(x - mu, (x - mu) ** 2 - var) for x in SCORES]
    lam = (Decimal(0), Decimal(0))

    def dual(lam: tuple[Decimal, Decimal]) -> Decimal | None:
        d = [1 + lam[0] * b1 + lam[1] * b2 for b1, b2 in b]
        return sum(p * di.ln() for p, di in zip(phat, d)) if min(d) > 0 else None

    value = dual(lam)
    assert value is not None
    for _ in range(200):
        d = [1 + lam[0] * b1 + lam[1] * b2 for b1, b2 in b]
        w = [p / di for p, di in zip(phat, d)]
        g1 = sum(wi * b1 for wi, (b1, _) in zip(w, b))
        g2 = sum(wi * b2 for wi, (_, b2) in zip(w, b))
        h11 = sum(wi / di * b1 * b1 for wi, di, (b1, _) in zip(w, d, b))
        h12 = sum(wi / di * b1 * b2 for wi, di, (b1, b2) in zip(w, d, b))
        h22 = sum(wi / di * b2 * b2 for wi, di, (_, b2) in zip(w, d, b))
        det = h11 * h22 - h12 * h12  # of -Hessian, positive definite
        step = ((h22 * g1 - h12 * g2) / det, (h11 * g2 - h12 * g1) / det)
        if g1 * step[0] + g2 * step[1] < Decimal(10) ** (5 - DIGITS):  # Newton decrement: G within 1e-35
            break
        for halvings in range(60):
            candidate = (lam[0] + step[0] / 2**halvings, lam[1] + step[1] / 2**halvings)
            new = dual(candidate)
            if new is not None and new >= value:
                lam, value = candidate, new
                break
        else:
            break  # no step gains: G is at its maximum to the working precision
    return sum(p * p.ln() for p in phat) - value


# The scan of tests/test_sprt.py, computed once: 40 digits take minutes, so the suite reads these
# values and recomputes a sample of them live (`python tests/sprt_reference.py` writes the file).
TABLE = Path(__file__).parent / "data" / "sprt_empty_outcomes.json"


def write_table(vectors: list[tuple[int, ...]], bounds: list[tuple[float, float]]) -> None:
    rows = [
        {"counts": list(counts), "elo0": elo0, "elo1": elo1, "llr": normalized_llr(counts, elo0, elo1)}
        for counts in vectors
        for elo0, elo1 in bounds
    ]
    TABLE.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from test_sprt import BOUNDS_IN_THE_TESTS, EMPTY_BINS

    write_table([tuple(c) for c in EMPTY_BINS], BOUNDS_IN_THE_TESTS)
    print(f"wrote {TABLE}")
