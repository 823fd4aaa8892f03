"""Event standings: each engine's score and the tiebreaks the tournament file chooses, and a
knockout's bracket; the ``event`` of a folder's ``Summary`` (export.py), which every output shows.

The score counts a game won 1 and drawn 1/2.  In a Swiss event a round is one encounter
however many seat orders its table played: its points are the games' points shared out
(a round won twice is 1, split 1/2), and a bye is a round won, against no opponent.  The
tiebreaks (docs/events.md gives each formula), over encounters *e* of engine *i* with
opponent *o(e)* scoring *p(e)* of the encounter's weight *w(e)*, and final scores *S*:

- ``buchholz``: the sum of w(e)·S(o(e)), the strength of the opposition;
- ``buchholz-cut1``: the same without the least of its rounds' terms (FIDE's Cut-1);
- ``sonneborn-berger``: the sum of w(e)·p(e)·S(o(e)), the opponents' scores weighted by the
  points taken from them;
- ``direct-encounter``: the points taken from the engines level with it on score;
- ``wins``: the games won.

A bye adds to the score and to no tiebreak (it has no opponent).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

from ..record import GameRecord
from ..rules.base import JsonValue
from .events import EventPlan, Match, game_points, plan_event, settings_event

TIEBREAKS = ("buchholz", "buchholz-cut1", "sonneborn-berger", "direct-encounter", "wins")


@dataclass(frozen=True)
class Encounter:
    """Engine against one opponent in one round: the points it took of ``weight`` at stake."""

    engine: str
    opponent: str
    round: int
    points: float  # 0..weight
    weight: float = 1.0


@dataclass
class EventStanding:
    engine: str
    score: float
    tiebreaks: dict[str, float] = field(default_factory=dict)
    byes: int = 0
    reached: str | None = None  # knockout: "winner", "final", "semi-final", "round 1", ...

    def as_dict(self) -> dict[str, JsonValue]:
        return {
            "engine": self.engine,
            "score": self.score,
            "tiebreaks": dict(self.tiebreaks),
            "byes": self.byes,
            "reached": self.reached,
        }


@dataclass
class EventSummary:
    """A folder's event: its format, the tiebreaks shown, the standings by score then
    tiebreak (a knockout's by how far each engine went), and a knockout's bracket."""

    format: str
    tiebreaks: tuple[str, ...]
    standings: list[EventStanding]
    bracket: list[list[Match]] = field(default_factory=list)
    winner: str | None = None
    finished: bool = True
    stopped: str | None = None  # why a Swiss event ended before its rounds (none could be paired)

    def as_dict(self) -> dict[str, JsonValue]:
        return {
            "format": self.format,
            "tiebreaks": list(self.tiebreaks),
            "finished": self.finished,
            "winner": self.winner,
            "stopped": self.stopped,
            "standings": [s.as_dict() for s in self.standings],
            "bracket": [[m.as_dict() for m in matches] for matches in self.bracket],
        }


def encounters(records: Sequence[GameRecord], per_table_round: bool) -> list[Encounter]:
    """Each game's encounters, one per engine and opponent, a game's weight shared among
    its opponents (a game of three seats is worth 1 too); with ``per_table_round`` (a
    Swiss event) a table's games of one round share the weight of one encounter."""
    seat_orders: dict[tuple[int, frozenset[str]], int] = defaultdict(int)
    for r in records:
        seat_orders[(r.round or 0, frozenset(r.players or ()))] += 1
    out: list[Encounter] = []
    for r in records:
        names = r.players or []
        points = game_points(r)
        share = 1.0 / seat_orders[(r.round or 0, frozenset(names))] if per_table_round else 1.0
        share /= max(len(names) - 1, 1)
        for a, b in permutations(names, 2):
            if a not in points or b not in points:
                continue
            head = _head_to_head(r, a, b)
            out.append(Encounter(a, b, r.round or 0, share * head, share))
    return out


def _head_to_head(record: GameRecord, a: str, b: str) -> float:
    """``a``'s points against ``b`` in one game: 1 placed ahead, 1/2 level."""
    names, places = record.players or [], record.places or []
    pa, pb = places[names.index(a)], places[names.index(b)]
    return 1.0 if pa < pb else 0.5 if pa == pb else 0.0


def scores(games: Sequence[Encounter], engines: Sequence[str], byes: Mapping[str, int]) -> dict[str, float]:
    """Each engine's score: its encounters' points and its byes."""
    total = {name: float(byes.get(name, 0)) for name in engines}
    for e in games:
        total[e.engine] = total.get(e.engine, 0.0) + e.points
    return total


def buchholz(games: Sequence[Encounter], score: Mapping[str, float], engine: str, cut: int = 0) -> float:
    """The opponents' scores, an encounter's by its weight, less the ``cut`` least of the
    rounds' terms (FIDE's Cut-1 for ``cut = 1``)."""
    terms: dict[tuple[int, str], float] = defaultdict(float)
    for e in games:
        if e.engine == engine:
            terms[(e.round, e.opponent)] += e.weight * score[e.opponent]
    kept = sorted(terms.values())[cut:]
    return sum(kept)


def sonneborn_berger(games: Sequence[Encounter], score: Mapping[str, float], engine: str) -> float:
    """The opponents' scores, each weighted by the points taken from it."""
    return sum(e.points * score[e.opponent] for e in games if e.engine == engine)


def direct_encounter(games: Sequence[Encounter], score: Mapping[str, float], engine: str) -> float:
    """The points taken from the engines level with ``engine`` on score."""
    return sum(e.points for e in games if e.engine == engine and score[e.opponent] == score[engine])


def games_won(records: Sequence[GameRecord]) -> dict[str, int]:
    """Each engine's games won (ahead of every opponent)."""
    won: dict[str, int] = defaultdict(int)
    for r in records:
        for name, points in game_points(r).items():
            won[name] += points == 1.0
    return won


def tiebreak_values(
    games: Sequence[Encounter], score: Mapping[str, float], engine: str, chosen: Sequence[str], won: Mapping[str, int]
) -> dict[str, float]:
    """The ``chosen`` tiebreaks of ``engine`` (names of :data:`TIEBREAKS`); ``won``: each
    engine's games won."""
    values = {
        "buchholz": lambda: buchholz(games, score, engine),
        "buchholz-cut1": lambda: buchholz(games, score, engine, cut=1),
        "sonneborn-berger": lambda: sonneborn_berger(games, score, engine),
        "direct-encounter": lambda: direct_encounter(games, score, engine),
        "wins": lambda: float(won.get(engine, 0)),
    }
    return {name: values[name]() for name in chosen}


def event_summary(
    records: Sequence[GameRecord], engines: Sequence[str], settings: Mapping[str, Any] | None, players: int
) -> EventSummary | None:
    """The event of a folder's settings and ``records`` (its counted games), or None for a
    round-robin or gauntlet that chose no tiebreaks."""
    if settings is None:
        return None
    chosen = tuple(settings.get("tiebreaks") or ())
    try:
        event = settings_event(settings, players)
    except (KeyError, TypeError, ValueError):
        return None
    if event is None and not chosen:
        return None
    plan = plan_event(event, {r.id or 0: r for r in records}) if event is not None else None
    byes: dict[str, int] = defaultdict(int)
    for _, name in plan.byes if plan is not None else ():
        byes[name] += 1
    games = encounters(records, per_table_round=event is not None and event.format == "swiss")
    names = list(event.seeded) if event is not None else list(engines)
    score = scores(games, names, byes)
    won = games_won(records)
    rows = [EventStanding(n, score[n], tiebreak_values(games, score, n, chosen, won), byes.get(n, 0)) for n in names]
    if plan is not None and event is not None and event.format == "knockout":
        return _knockout_summary(plan, rows, chosen)
    seed_rank = {n: k for k, n in enumerate(names)}
    rows.sort(key=lambda s: (-s.score, *(-s.tiebreaks[t] for t in chosen), seed_rank[s.engine]))
    fmt = event.format if event is not None else str(settings.get("format", "round-robin"))
    if plan is None:
        return EventSummary(fmt, chosen, rows)
    return EventSummary(fmt, chosen, rows, finished=plan.finished, stopped=plan.stopped)


def _knockout_summary(plan: EventPlan, rows: list[EventStanding], chosen: tuple[str, ...]) -> EventSummary:
    """The standings of a knockout: the winner, then the engines by the round they went out
    in (the later first), then by seed."""
    rounds = round_names(bracket_rounds(plan.bracket))
    went_out: dict[str, int] = {}
    for k, matches in enumerate(plan.bracket):
        for m in matches:
            for name in (m.high, m.low):
                if name is not None and m.winner is not None and name != m.winner:
                    went_out[name] = k
    last = len(plan.bracket)
    seed_rank = {n: k for k, n in enumerate(plan.event.seeded)}
    for row in rows:
        out = went_out.get(row.engine)
        if out is not None:
            row.reached = rounds[out]
        elif plan.winner == row.engine:
            row.reached = "winner"
        else:
            row.reached = "playing"
    rows.sort(
        key=lambda s: (-(last + 1 if s.reached == "winner" else went_out.get(s.engine, last)), seed_rank[s.engine])
    )
    return EventSummary("knockout", chosen, rows, plan.bracket, plan.winner, plan.finished)


def bracket_rounds(bracket: Sequence[Sequence[Match]]) -> int:
    """The rounds a knockout's bracket has in all, from its first round (its lines are a power of
    two), however many of them are drawn yet: a round is named by its place in the whole bracket."""
    return len(bracket[0]).bit_length() if bracket else 0


def round_names(count: int) -> list[str]:
    """A bracket's rounds named as they are called: ..., quarter-final, semi-final, final."""
    named = ["final", "semi-final", "quarter-final"]
    return [named[count - 1 - k] if count - 1 - k < len(named) else f"round {k + 1}" for k in range(count)]
