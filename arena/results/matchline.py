"""The one line a match between two engines ends with, as fastchess prints it:

    Elo: 12.3 +/- 8.1, nElo: 17.0 +/- 11.2, LOS: 99.8 %, DrawRatio: 41.0 %, PairsRatio: 1.19

From the pentanomial counts of the pairs (LL, LD, WL+DD, WD, WW: both games of an opening,
seats swapped) when the two engines completed a pair, else from the games' losses, draws and
wins (no PairsRatio then).  The figures are fastchess's (app/src/matchmaking/elo/), derived
again here: with scores ``s_i`` spread evenly over 0..1 (pair score / 2, or game score),

* ``score = sum c_i s_i / n`` and ``var = sum c_i (s_i - score)^2 / n`` per unit (pair or game);
* ``Elo = L(score)`` with ``L(x) = -400 log10(1/x - 1)``, and ``+/-`` half the Elo width of
  ``score -+ 1.96 sqrt(var / n)``;
* ``nElo = (score - 1/2) / sd * 800 / ln 10``, ``sd = sqrt(2 var)`` for pairs (per game),
  ``sqrt(var)`` for games, ``+/-`` of the same interval;
* ``LOS = P(true score > 1/2)`` under the normal approximation;
* ``DrawRatio``: drawn pairs (WL+DD) of the pairs, or draws of the games;
* ``PairsRatio = (WW + WD) / (LD + LL)``: pairs won over pairs lost.

fastchess prints ``inf`` or ``nan`` where these leave the real line (a clean sweep, every pair
alike, no pair lost, an interval past a score of 0 or 1); arena keeps every figure finite and
marks the line with ``†`` instead, as the head-to-head table marks a sweep:

* where every unit fell in one bin (a sweep among them) or no pair was lost, one virtual
  drawn unit is counted, half a loss and half a win (one point of two), so the score, its
  spread and the PairsRatio are finite;
* where the interval passes a score of 0 or 1, its Elo has no end on that side: the
  ``+/-`` is the distance to the finite end, so ``Elo - error`` (or ``+ error``) is a bound;
  where it passes both (a handful of games), ``+/-`` is the largest Elo ``n`` units can show
  with the virtual unit, ``400 log10(2n + 1)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..record import GameRecord
from .sprt import pair_outcome

Z95 = 1.959963984540054  # fastchess's CI95ZSCORE
NELO_PER_T = 800 / math.log(10)  # normalized Elo per unit of t-value per game
MARK = "†"
LOST = slice(0, 2)  # LL, LD: pairs lost
WON = slice(3, 5)  # WD, WW: pairs won


@dataclass(frozen=True)
class MatchFigures:
    """The line's figures for the first engine; ``units``: pairs (pentanomial) or games."""

    units: int
    pentanomial: bool
    elo: float
    elo_error: float
    nelo: float
    nelo_error: float
    los: float  # 0..1
    draw_ratio: float  # 0..1
    pairs_ratio: float | None  # None for games (no pairs)
    virtual: bool  # one virtual drawn unit counted
    open_ends: int  # ends of the interval past a score of 0 or 1 (its Elo has no end there)

    @property
    def marked(self) -> bool:
        return self.virtual or self.open_ends > 0

    def as_dict(self) -> dict[str, object]:
        return {
            "units": "pairs" if self.pentanomial else "games",
            "count": self.units,
            "elo": round(self.elo, 2),
            "elo_error": round(self.elo_error, 2),
            "nelo": round(self.nelo, 2),
            "nelo_error": round(self.nelo_error, 2),
            "los_pct": round(100 * self.los, 2),
            "draw_ratio_pct": round(100 * self.draw_ratio, 2),
            "pairs_ratio": None if self.pairs_ratio is None else round(self.pairs_ratio, 4),
            "marked": self.marked,
        }


def match_figures(counts: Sequence[int]) -> MatchFigures | None:
    """The figures of five pair counts (LL, LD, WL+DD, WD, WW) or three game counts (L, D, W),
    for the engine that won the W's; None without a unit."""
    observed = [float(c) for c in counts]
    units = sum(counts)
    if units == 0:
        return None
    pentanomial = len(counts) == 5
    one_bin = sum(1 for c in counts if c) == 1
    virtual = one_bin or (pentanomial and sum(observed[LOST]) == 0)
    used = list(observed)
    if virtual:  # one drawn unit: half at each end
        used[0] += 0.5
        used[-1] += 0.5
    n = sum(used)
    score = sum(c * s for c, s in zip(used, _scores(len(used)))) / n
    var = _spread(used)
    se = math.sqrt(var / n)
    sd = math.sqrt(2 * var) if pentanomial else math.sqrt(var)
    low, high = score - Z95 * se, score + Z95 * se
    middle = len(counts) // 2
    return MatchFigures(
        units,
        pentanomial,
        _elo(score),
        _elo_error(score, low, high, units),
        (score - 0.5) / sd * NELO_PER_T,
        Z95 * se / sd * NELO_PER_T,
        0.5 * (1 + math.erf((score - 0.5) / math.sqrt(2 * var / n))),
        observed[middle] / units,
        sum(used[WON]) / sum(used[LOST]) if pentanomial else None,
        virtual,
        (low <= 0) + (high >= 1),
    )


def _elo_error(score: float, low: float, high: float, units: int) -> float:
    """fastchess's ``+/-``: half the Elo width of the score's interval ``low``..``high``; where
    an end passes a score of 0 or 1 (no Elo), the distance to the other end; where both do
    (a handful of games), the largest Elo ``units`` can show with the virtual unit."""
    if high >= 1 and low <= 0:
        return 400 * math.log10(2 * units + 1)
    if high >= 1:
        return _elo(score) - _elo(low)
    if low <= 0:
        return _elo(high) - _elo(score)
    return (_elo(high) - _elo(low)) / 2


def _scores(bins: int) -> list[float]:
    return [k / (bins - 1) for k in range(bins)]


def _spread(counts: Sequence[float]) -> float:
    """The variance of the unit score (0 for every unit alike)."""
    n = sum(counts)
    scores = _scores(len(counts))
    mean = sum(c * s for c, s in zip(counts, scores)) / n
    return sum(c * (s - mean) ** 2 for c, s in zip(counts, scores)) / n


def _elo(score: float) -> float:
    return -400 * math.log10(1 / score - 1)


def match_line(f: MatchFigures) -> str:
    """``Elo: 12.3 +/- 8.1, nElo: ..., LOS: 99.8 %, DrawRatio: 41.0 %, PairsRatio: 1.19``."""
    mark = MARK if f.marked else ""
    parts = [
        f"Elo: {_fixed(f.elo)}{mark} +/- {_fixed(f.elo_error)}",
        f"nElo: {_fixed(f.nelo)} +/- {_fixed(f.nelo_error)}",
        f"LOS: {100 * f.los:.1f} %",
        f"DrawRatio: {100 * f.draw_ratio:.1f} %",
    ]
    if f.pairs_ratio is not None:
        parts.append(f"PairsRatio: {f.pairs_ratio:.2f}")
    return ", ".join(parts)


def match_note(f: MatchFigures) -> str | None:
    """What the line's mark means for these figures (None: not marked)."""
    why = []
    if f.virtual:
        why.append(f"one virtual drawn {'pair' if f.pentanomial else 'game'} (half lost, half won) is counted")
    if f.open_ends == 1:
        why.append("the 95% interval reaches a score of 0 or 100%: +/- is its side that has an end")
    elif f.open_ends == 2:
        why.append(f"too few {'pairs' if f.pentanomial else 'games'} for an interval: +/- is the most they can show")
    return f"{MARK}: " + "; ".join(why) + "." if why else None


def _fixed(value: float) -> str:
    return f"{round(value, 1) + 0.0:.1f}"  # no "-0.0"


# -- the matches of a tournament ------------------------------------------------


def matches(engines: Sequence[str], players: int, candidates: Sequence[str] = ()) -> list[tuple[str, str]]:
    """The pairs a run ends with a line for: two engines (an SPRT's among them), or each
    candidate of a gauntlet with each other engine; none for a larger round-robin (its
    tables say it) or a game of more than two players."""
    if players != 2:
        return []
    if len(engines) == 2:
        return [(engines[0], engines[1])]
    return [(c, other) for c in candidates for other in engines if other not in candidates]


def match_counts(records: Iterable[GameRecord], engine: str, opponent: str) -> list[int]:
    """``engine``'s pentanomial counts over its complete pairs with ``opponent`` (games 2k and
    2k + 1, seats swapped), or without one, its losses, draws and wins of their games."""
    games = {r["id"]: r for r in records if set(r["players"]) == {engine, opponent}}
    pentanomial = [0] * 5
    for number in sorted({k // 2 for k in games}):
        if 2 * number in games and 2 * number + 1 in games:
            pentanomial[pair_outcome(games[2 * number], games[2 * number + 1], engine)] += 1
    if sum(pentanomial):
        return pentanomial
    trinomial = [0] * 3
    for record in games.values():
        trinomial[pair_outcome(record, record, engine) // 2] += 1
    return trinomial


def match_block(engine: str, opponent: str, figures: MatchFigures) -> list[str]:
    """``Results of A vs B (N pairs):``, the line, and what its mark means if it has one."""
    units = f"{figures.units} pair{'s' if figures.units != 1 else ''}"
    if not figures.pentanomial:
        units = f"{figures.units} game{'s' if figures.units != 1 else ''}, no complete pair"
    note = match_note(figures)
    return [f"Results of {engine} vs {opponent} ({units}):", match_line(figures), *([note] if note else [])]
