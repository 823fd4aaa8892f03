"""Round robins drawn from known Elo: the truth the rating fits are measured against, by the
interval-coverage benchmark (benchmarks/elo_coverage.py) and by the Elo tests."""

from __future__ import annotations

import random

from arena.record import GameRecord, Termination


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
