"""TrueSkill ratings and the standings' tallies.

Ratings are applied in schedule order (game index), never in the order workers
finished, so a tournament's table is a pure function of its games.  TrueSkill is shown
beside the Bradley–Terry Elo, which ranks the standings (arena.results.elo: it does not
depend on the order of the games, and for two engines it always agrees with the score).

TrueSkill's ``draw_probability`` is its prior chance that two equal players draw.  It is 0
for a game whose rules rule draws out (``Game.can_draw``, e.g. Hex), else
:data:`DRAW_PROBABILITY`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import trueskill

from ..record import GameRecord, Termination

# TrueSkill's own default, kept for the games that can draw: their draws come from move limits,
# repetitions and equal counts, whose rate depends on the engines more than on the rules.
DRAW_PROBABILITY = 0.1
ENV = trueskill.TrueSkill(draw_probability=DRAW_PROBABILITY)
NO_DRAWS = trueskill.TrueSkill(draw_probability=0.0)


def trueskill_env(can_draw: bool) -> trueskill.TrueSkill:
    """The TrueSkill environment of a game that can (or cannot) end in a draw."""
    return ENV if can_draw else NO_DRAWS


@dataclass
class Standing:
    engine: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    points: float = 0.0  # 1 per opponent beaten, 0.5 per opponent tied
    opponents: int = 0  # opponents faced, summed over games
    places: list[int] | None = None  # count of 1st, 2nd, ... finishes
    mu: float = ENV.mu
    sigma: float = ENV.sigma

    @property
    def score_pct(self) -> float:
        return 100.0 * self.points / self.opponents if self.opponents else 0.0

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma


def forfeited(record: GameRecord) -> set[int]:
    """Seats that lost the game by forfeit.  A forfeit puts the offenders alone at the
    bottom (arena.record.forfeit_result), so they are the seats at the worst place of a
    game that did not end normally."""
    if record.termination is Termination.NORMAL:
        return set()
    places = record.places or []
    worst = max(places)
    return {seat for seat, place in enumerate(places) if place == worst}


def opponents(record: GameRecord, seat: int, offenders: set[int]) -> list[int]:
    """The seats ``seat`` has a result against.  Two seats that both forfeited have
    none: the shared place would read as a draw between engines that did not play each
    other (usually two engines dropped by max_failures meeting)."""
    both_out = seat in offenders
    seats = len(record.places or [])
    return [other for other in range(seats) if other != seat and not (both_out and other in offenders)]


def seats_of(record: GameRecord) -> tuple[list[str], list[int]]:
    """The engine in each seat and the place it took (a stored record has both)."""
    return record.players or [], record.places or []


def standings(
    engines: Sequence[str],
    records: Iterable[GameRecord],
    players: int,
    history: dict[str, list[tuple[int, float, float]]] | None = None,
    *,
    can_draw: bool = True,
) -> list[Standing]:
    """Tally and rate ``records`` (sorted here by ``id``), in the order of ``engines`` (the
    standings are ranked by the Bradley–Terry Elo: arena.results.export.ranked_standings).
    A game several seats forfeited is tallied (without results between the offenders)
    but not rated: TrueSkill would take their shared place for a draw.  ``can_draw``: the
    game's (``Game.can_draw``), TrueSkill's draw probability is 0 without.  ``history``, if
    given, gets (games rated so far, mu, sigma) per engine after each game it was in."""
    env = trueskill_env(can_draw)
    table = {name: Standing(name, places=[0] * players) for name in engines}
    ratings = {name: env.create_rating() for name in engines}
    for count, record in enumerate(sorted(records, key=_game_number), 1):
        (names, places), offenders = seats_of(record), forfeited(record)
        if len(offenders) < 2:
            groups = [(ratings[n],) for n in names]
            for name, (rating,) in zip(names, env.rate(groups, ranks=places)):
                ratings[name] = rating
                if history is not None:
                    history.setdefault(name, []).append((count, rating.mu, rating.sigma))
        for seat, name in enumerate(names):
            _tally(table[name], places[seat], [places[o] for o in opponents(record, seat, offenders)])
    for name, rating in ratings.items():
        table[name].mu, table[name].sigma = rating.mu, rating.sigma
    return list(table.values())


def _game_number(record: GameRecord) -> int:
    return record.id or 0  # a stored record always has its id


def _tally(row: Standing, place: int, others: Sequence[int]) -> None:
    """Count one game for an engine at ``place`` against opponents at places ``others``
    (none: no result, nothing counted)."""
    if not others:
        return
    points, outcome = game_outcome(place, others)
    row.games += 1
    if row.places is not None:
        row.places[place] += 1
    row.opponents += len(others)
    row.points += points
    setattr(row, outcome, getattr(row, outcome) + 1)


def game_outcome(place: int, others: Sequence[int]) -> tuple[float, str]:
    """Points (1 per opponent placed below, 0.5 per opponent level) and the counter the game
    adds to: ``"wins"`` (ahead of all), ``"draws"`` (level with the best of the others) or
    ``"losses"``, for one engine at ``place`` against opponents at places ``others``."""
    better = sum(1 for p in others if p < place)
    tied = sum(1 for p in others if p == place)
    points = (len(others) - better - tied) + 0.5 * tied
    return points, "losses" if better else "draws" if tied else "wins"


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


@dataclass
class HeadToHead:
    """One engine's results against one opponent (a tie on places counts as a draw)."""

    engine: str
    opponent: str
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws


def head_to_head(records: Iterable[GameRecord]) -> dict[tuple[str, str], HeadToHead]:
    """Results of every ordered pair of engines that met, from each game's places."""
    pairs: dict[tuple[str, str], HeadToHead] = {}
    for record in records:
        (names, places), offenders = seats_of(record), forfeited(record)
        for seat, me in enumerate(names):
            mine = places[seat]
            for other in opponents(record, seat, offenders):
                theirs = places[other]
                pair = pairs.setdefault((me, names[other]), HeadToHead(me, names[other]))
                if mine < theirs:
                    pair.wins += 1
                elif mine > theirs:
                    pair.losses += 1
                else:
                    pair.draws += 1
    return pairs


def elo_estimate(wins: int, losses: int, draws: int) -> tuple[float | None, float | None, float]:
    """Elo difference, its 95% margin and the likelihood of superiority, as cutechess
    reports them; the difference is None when one side scored everything (unbounded)."""
    games = wins + losses + draws
    los = 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses)))) if wins + losses else 0.5
    if not games:
        return None, None, los
    score = (wins + 0.5 * draws) / games
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    spread = 1.959964 * math.sqrt(variance / games)
    low, high = _elo(score - spread), _elo(score + spread)
    margin = (high - low) / 2 if low is not None and high is not None else None
    return _elo(score), margin, los


def _elo(score: float) -> float | None:
    return None if not 0 < score < 1 else -400 * math.log10(1 / score - 1)


def head_to_head_rows(
    pairs: dict[tuple[str, str], HeadToHead], order: Sequence[str]
) -> tuple[list[str], list[list[Any]]]:
    """One row per pair of engines, the better ranked one first (``order``: standings)."""
    headers = ["engine", "opponent", "games", "wins", "losses", "draws", "score %", "elo diff", "± 95%", "LOS %"]
    rank = {name: i for i, name in enumerate(order)}
    rows = []
    for (a, b), pair in sorted(pairs.items(), key=lambda kv: (rank[kv[0][0]], rank[kv[0][1]])):
        if rank[a] > rank[b]:
            continue
        elo, margin, los = elo_estimate(pair.wins, pair.losses, pair.draws)
        shown_elo: float | str
        shown_margin: float | str
        if elo is None:  # one side took every point: the difference is unbounded, so is its margin
            shown_elo, shown_margin = ("+inf" if pair.points else "-inf"), ""
        else:
            shown_elo, shown_margin = _shown(elo), _shown(margin)
        rows.append(
            [
                a,
                b,
                pair.games,
                pair.wins,
                pair.losses,
                pair.draws,
                round(100 * pair.points / pair.games, 1),
                shown_elo,
                shown_margin,
                round(100 * los, 1),
            ]
        )
    return headers, rows


def _shown(value: float | None) -> float | str:
    return "inf" if value is None else round(value, 1) + 0.0  # no "-0.0"; None: an unbounded margin
