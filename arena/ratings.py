"""TrueSkill ratings and the standings table.

Ratings are applied in schedule order (game index), never in the order workers
finished, so a tournament's table is a pure function of its games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import trueskill

ENV = trueskill.TrueSkill(draw_probability=0.1)


@dataclass
class Standing:
    engine: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    points: float = 0.0             # 1 per opponent beaten, 0.5 per opponent tied
    opponents: int = 0              # opponents faced, summed over games
    places: list[int] | None = None  # count of 1st, 2nd, ... finishes
    mu: float = ENV.mu
    sigma: float = ENV.sigma

    @property
    def score_pct(self) -> float:
        return 100.0 * self.points / self.opponents if self.opponents else 0.0

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma


def standings(engines: Sequence[str], records: Iterable[dict[str, Any]], players: int) -> list[Standing]:
    """Tally and rate ``records`` (sorted here by ``id``); best first by mu - 3 sigma."""
    table = {name: Standing(name, places=[0] * players) for name in engines}
    ratings = {name: ENV.create_rating() for name in engines}
    for record in sorted(records, key=lambda r: r["id"]):
        names, places = record["players"], record["places"]
        groups = [(ratings[n],) for n in names]
        for name, (rating,) in zip(names, ENV.rate(groups, ranks=places)):
            ratings[name] = rating
        for name, place in zip(names, places):
            _tally(table[name], place, places)
    for name, rating in ratings.items():
        table[name].mu, table[name].sigma = rating.mu, rating.sigma
    return sorted(table.values(), key=lambda s: (-s.conservative, s.engine))


def _tally(row: Standing, place: int, places: Sequence[int]) -> None:
    row.games += 1
    row.places[place] += 1
    better = sum(1 for p in places if p < place)
    tied = sum(1 for p in places if p == place) - 1
    row.opponents += len(places) - 1
    row.points += (len(places) - 1 - better - tied) + 0.5 * tied
    if better == 0 and tied == 0:
        row.wins += 1
    elif better == 0:
        row.draws += 1
    else:
        row.losses += 1


def table_rows(rows: Sequence[Standing], players: int) -> tuple[list[str], list[list[Any]]]:
    """Headers and rows for tabulate and results.json."""
    headers = ["rank", "engine", "games", "wins", "losses", "draws", "score %", "mu", "sigma", "mu-3sigma"]
    if players > 2:
        headers[6:6] = [_ordinal(i + 1) for i in range(players)]
    out = []
    for rank, s in enumerate(rows, 1):
        row: list[Any] = [rank, s.engine, s.games, s.wins, s.losses, s.draws]
        if players > 2:
            row += list(s.places or [])
        row += [round(s.score_pct, 1), round(s.mu, 2), round(s.sigma, 2), round(s.conservative, 2)]
        out.append(row)
    return headers, out


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")
