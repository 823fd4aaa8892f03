"""Round robins drawn from known Elo: the truth the rating fits are measured against, by the
interval-coverage benchmark (benchmarks/elo_coverage.py) and by the Elo tests."""

from __future__ import annotations

import random

from arena.record import GameRecord, Termination
from arena.results.elo import EloRating


def game(k: int, a: str, b: str, result: float) -> GameRecord:
    """A two-seat record: result 1 (a wins), 0 (b wins) or 0.5 (same place: a draw)."""
    places = [0, 1] if result == 1 else [1, 0] if result == 0 else [0, 0]
    return GameRecord(game="hex", moves=[], id=k, players=[a, b], places=places, termination=Termination.NORMAL)


def simulate(truth: dict[str, float], per_pair: int, rng: random.Random, draw_rate: float = 0.0) -> list[GameRecord]:
    """A round robin of ``per_pair`` games per pair with outcomes drawn from Elo ``truth``.
    With draws, a draw replaces a decisive result in proportion so the expected score stays
    the Bradley–Terry one (the score model the fit assumes)."""
    names = list(truth)
    records: list[GameRecord] = []
    for x, a in enumerate(names):
        for b in names[x + 1 :]:
            p = 1 / (1 + 10 ** ((truth[b] - truth[a]) / 400))
            draw = draw_rate * 2 * min(p, 1 - p)
            for _ in range(per_pair):
                u = rng.random()
                result = 0.5 if u < draw else 1 if u < draw + p - draw / 2 else 0
                records.append(game(len(records), a, b, result))
    return records


def holds_truth(rating: EloRating, truth: dict[str, float]) -> bool:
    """Whether the rating's 95% interval holds the engine's true Elo, taken relative to the
    field's mean as the fit anchors it; an unbounded rating holds nothing."""
    true_elo = truth[rating.engine] - sum(truth.values()) / len(truth)
    return rating.low is not None and rating.high is not None and rating.low <= true_elo <= rating.high


def has_sweep(records: list[GameRecord]) -> bool:
    """Whether some pair is a clean sweep: its first engine won every game or none (a draw is
    no win, so a pair whose games were all drawn counts too)."""
    points: dict[tuple[str, ...], list[int]] = {}
    for r in records:
        cell = points.setdefault(tuple(r.players or ()), [0, 0])
        cell[0] += 1
        cell[1] += (r.places or [0, 0])[0] < (r.places or [0, 0])[1]
    return any(won in (0, games) for games, won in points.values())
