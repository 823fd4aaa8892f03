"""Knockout and Swiss events: each round's games as a pure function of the settings and the
games stored of the rounds before it.

A static format (round-robin, gauntlet) knows its whole schedule at once (slots.py); an
event knows it wave by wave.  A *wave* is a set of games that can be played at once: a
Swiss round, the first games of a knockout round, or the tie-break pair of its matches still
level.  The next wave exists only once every game of the waves before it is stored, and it
is drawn from those games alone, so a run killed mid-event and resumed pairs the same way
and replays nothing: game ids are numbered wave after wave, and the ids of a wave never
depend on when its games finished.

**Knockout.** The engines in seed order (the file's, or a rating list's) fill a bracket of
the next power of two in the standard seeding (1 meets the last seed, and 1 and 2 can only
meet in the final); seeds past the field are byes, so the top seeds skip the first round.
A match is ``rounds`` rounds, each both seat orders; a match level after them plays
tie-break pairs, one a wave, until a pair is decided or ``tiebreak_pairs`` were played,
and then the higher seed goes through.

**Swiss.** ``rounds`` rounds of the Dutch system's rule (FIDE Handbook C.04.3): engines
ranked by score, then seed; within a score group the top half meets the bottom half in
order (1 vs n/2+1, 2 vs n/2+2, ...), transposing the bottom half where two have met; an
engine that cannot be paired in its group floats down to the next one.  The absolute
criteria of C.04.1 hold: no two engines meet twice and no engine has two byes; an odd field
gives the bye (a win) to the lowest-ranked engine that has not had one.  A table plays
every seat order (``both_seats``), or one game whose first seat goes to the engine that has
had it less, so an engine's seat counts never differ by more than one: that rule comes
before the score groups (two engines that both had the first seat once more than the second
meet only where no other pairing is left).  An event has at most :func:`most_rounds`
rounds, as many as a field can always be paired for.  Games of three
seats (Posies) sit at tables of three, filled in rank order with engines that have not met
(Monrad's rule), every seat order played.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import permutations
from typing import Any

from ..record import GameRecord, derive_seed
from ..rules.base import JsonValue
from .ratings import forfeited, game_outcome, opponents, seats_of
from .slots import Slot, settings_slots

EVENTS = ("knockout", "swiss")
TIEBREAK_PAIRS = 3  # a knockout match's tie-break pairs at most, before the higher seed goes through
PERMUTATIONS_TRIED = 40_320  # 8!: the transpositions of a score group's bottom half tried at most


class NoPairing(Exception):
    """Every way to seat a Swiss round repeats a pairing (past the rounds most_rounds allows)."""


def most_rounds(engines: int, players: int) -> int:
    """The Swiss rounds a field can always be seated for without two engines meeting twice.

    Of the N engines seated in a round (the field less its byes, a multiple of the ``k``
    seats), each has met at most (k - 1)·r of them after r rounds; while each can still
    meet (1 - 1/k)·N of them, the Hajnal–Szemerédi theorem (1970; for k = 2 Dirac's, for
    k = 3 Corrádi and Hajnal's) seats them all at tables of k who have not met.  So
    r + 1 rounds for every r up to (N/k - 1)/(k - 1): n/2 rounds at two seats ((n - 1)/2
    for an odd field), and for three seats 1 round for 6 to 8 engines, 2 for 9 to 14."""
    seated = players * (engines // players)
    return (seated // players - 1) // (players - 1) + 1


@dataclass(frozen=True)
class Event:
    """What an event's games are a function of (besides the stored games)."""

    format: str  # "knockout" or "swiss"
    seeded: tuple[str, ...]  # the engines, best seed first
    players: int  # seats of the game
    rounds: int  # knockout: rounds of a match; swiss: rounds of the event
    seed: int  # the tournament's master seed
    both_seats: bool = True  # swiss: every seat order of a table, or one game
    tiebreak_pairs: int = TIEBREAK_PAIRS


@dataclass
class Match:
    """One knockout match: ``high`` is the better seed; ``low`` None is a bye."""

    high: str
    low: str | None
    points: dict[str, float] = field(default_factory=dict)
    games: int = 0
    tiebreak_pairs: int = 0
    winner: str | None = None
    decided_by: str = ""  # "games", "tie-break games", "higher seed" or "bye"

    def as_dict(self) -> dict[str, JsonValue]:
        return {
            "high": self.high,
            "low": self.low,
            "points": dict(self.points),
            "games": self.games,
            "tiebreak_pairs": self.tiebreak_pairs,
            "winner": self.winner,
            "decided_by": self.decided_by or None,
        }


@dataclass
class EventPlan:
    """An event as far as its stored games take it."""

    event: Event
    slots: list[Slot] = field(default_factory=list)  # every game drawn so far, by id
    finished: bool = False  # no wave is left to draw and every drawn game is stored
    byes: list[tuple[int, str]] = field(default_factory=list)  # (round, engine): a Swiss bye, worth a win
    bracket: list[list[Match]] = field(default_factory=list)  # knockout: the matches of each round
    stopped: str | None = None  # why a Swiss event ended before its rounds

    @property
    def winner(self) -> str | None:
        if not self.finished or not self.bracket:
            return None
        return self.bracket[-1][0].winner

    def expected_games(self) -> int:
        """The games the event will have (without tie-break games not yet drawn), for a
        progress bar: what is drawn, or the whole event as if nothing were level."""
        if self.finished:
            return len(self.slots)
        e = self.event
        seat_orders = len(list(permutations(range(e.players)))) if e.both_seats else 1
        if e.format == "swiss":
            full = e.rounds * (len(e.seeded) // e.players) * seat_orders
        else:
            full = (len(e.seeded) - 1) * e.rounds * 2
        return max(full, len(self.slots))


def game_points(record: GameRecord) -> dict[str, float]:
    """Each engine's points of one game, a win 1 and a draw 1/2 (in a game of three seats,
    the share of the opponents it finished ahead of); an engine with no result (both seats
    forfeited) has none."""
    names, places = seats_of(record)
    offenders = forfeited(record)
    points: dict[str, float] = {}
    for seat, name in enumerate(names):
        others = [places[o] for o in opponents(record, seat, offenders)]
        if others:
            points[name] = game_outcome(places[seat], others)[0] / len(others)
    return points


def plan_event(event: Event, stored: Mapping[int, GameRecord]) -> EventPlan:
    """The event drawn wave by wave from ``stored`` (game id -> record), as far as it goes."""
    if event.format == "knockout":
        return _Knockout(event, stored).plan()
    return _Swiss(event, stored).plan()


def settings_event(settings: Mapping[str, Any], players: int) -> Event | None:
    """The event of a folder's stored settings (arena/tournament/settings.py), or None for a
    static format; raises KeyError, TypeError or ValueError for settings that are not a
    tournament's."""
    if settings.get("format") not in EVENTS:
        return None
    names = [engine["name"] for engine in settings["engines"]]
    seeded = settings.get("seeds", {}).get("order") if isinstance(settings.get("seeds"), dict) else None
    return Event(
        settings["format"],
        tuple(seeded or names),
        players,
        int(settings["rounds"]),
        int(settings["seed"]),
        bool(settings.get("both_seats", True)),
        int(settings.get("tiebreak_pairs", TIEBREAK_PAIRS)),
    )


def stored_schedule(settings: Mapping[str, Any], players: int, records: Sequence[GameRecord]) -> list[Slot]:
    """The slots of a folder: a static format's whole schedule, or an event's as far as
    its stored ``records`` take it."""
    event = settings_event(settings, players)
    if event is None:
        return settings_slots(settings, players)
    return plan_event(event, {r.id or 0: r for r in records}).slots


class _Waves:
    """Numbering the games of each wave, and reading back the stored ones."""

    def __init__(self, event: Event, stored: Mapping[int, GameRecord]) -> None:
        self.event = event
        self.stored = stored
        self.out = EventPlan(event)

    def add(self, rnd: int, table_no: int, seats: Sequence[tuple[str, ...]], seed: int) -> list[int]:
        """Slots for ``seats`` (one game each) sharing ``seed``; their ids."""
        ids = []
        for order in seats:
            index = len(self.out.slots)
            self.out.slots.append(Slot(index, rnd, table_no, order, seed))
            ids.append(index)
        return ids

    def complete(self, ids: Sequence[int]) -> bool:
        return all(i in self.stored for i in ids)

    def points(self, ids: Sequence[int]) -> dict[str, float]:
        total: dict[str, float] = {}
        for i in ids:
            for name, p in game_points(self.stored[i]).items():
                total[name] = total.get(name, 0.0) + p
        return total


class _Knockout(_Waves):
    def plan(self) -> EventPlan:
        e = self.event
        field_ = list(bracket_order(list(e.seeded)))
        rank = {name: k for k, name in enumerate(e.seeded)}
        rnd = 0
        while len(field_) > 1:
            matches = [Match(*_by_seed(field_[k], field_[k + 1], rank)) for k in range(0, len(field_), 2)]
            self.out.bracket.append(matches)
            if not self._play_round(rnd, matches):
                return self.out
            field_ = [m.winner for m in matches]
            rnd += 1
        self.out.finished = True
        return self.out

    def _play_round(self, rnd: int, matches: list[Match]) -> bool:
        """Draw the round's waves while the stored games decide them; False when a wave is
        not all stored yet."""
        e = self.event
        live: list[tuple[int, Match, list[int]]] = []
        for table_no, m in enumerate(matches):
            if m.low is None:
                m.winner, m.decided_by = m.high, "bye"
                continue
            ids: list[int] = []
            for k in range(e.rounds):
                seed = derive_seed(e.seed, "knockout", rnd, "match", table_no, "round", k)
                ids += self.add(rnd, table_no, _both_ways(m), seed)
            live.append((table_no, m, ids))
        while live:
            if not self.complete([i for _, _, ids in live for i in ids]):
                return False
            still: list[tuple[int, Match, list[int]]] = []
            for table_no, m, ids in live:
                if not self._settle(m, ids):
                    seed = derive_seed(e.seed, "knockout", rnd, "match", table_no, "tiebreak", m.tiebreak_pairs)
                    m.tiebreak_pairs += 1
                    still.append((table_no, m, ids + self.add(rnd, table_no, _both_ways(m), seed)))
            live = still
        return True

    def _settle(self, m: Match, ids: list[int]) -> bool:
        """Decide ``m`` from its games if they decide it (or it has played all its tie-break
        pairs); False when it needs another tie-break pair."""
        assert m.low is not None
        points = self.points(ids)
        m.points = {m.high: points.get(m.high, 0.0), m.low: points.get(m.low, 0.0)}
        m.games = len(ids)
        if m.points[m.high] != m.points[m.low]:
            m.winner = max(m.points, key=lambda n: m.points[n])
            m.decided_by = "tie-break games" if m.tiebreak_pairs else "games"
            return True
        if m.tiebreak_pairs >= self.event.tiebreak_pairs:
            m.winner, m.decided_by = m.high, "higher seed"
            return True
        return False


def _both_ways(m: Match) -> list[tuple[str, ...]]:
    assert m.low is not None  # a bye plays no games
    return [(m.high, m.low), (m.low, m.high)]


def bracket_order(seeded: list[str]) -> list[str | None]:
    """The bracket's lines: the standard seeding of the next power of two (1 v 8, 4 v 5,
    2 v 7, 3 v 6 for eight), None where a seed past the field (a bye) would be."""
    order = [1]
    while len(order) < len(seeded):
        size = 2 * len(order)
        order = [s for k in order for s in (k, size + 1 - k)]
    return [seeded[k - 1] if k <= len(seeded) else None for k in order]


def _by_seed(a: str | None, b: str | None, rank: Mapping[str, int]) -> tuple[str, str | None]:
    """A match's engines, the better seed first (a bye's other line is None)."""
    if a is None or (b is not None and rank[b] < rank[a]):
        a, b = b, a
    assert a is not None  # two byes never meet: seeds past the field are fewer than half the lines
    return a, b


class _Swiss(_Waves):
    def plan(self) -> EventPlan:
        e = self.event
        score = {name: 0.0 for name in e.seeded}
        met: set[frozenset[str]] = set()
        first_seats = {name: 0 for name in e.seeded}  # first seats minus second seats
        for rnd in range(e.rounds):
            ranked = sorted(e.seeded, key=lambda n: (-score[n], e.seeded.index(n)))
            had_bye = {name for _, name in self.out.byes}
            try:
                tables, byes = pair_round(ranked, score, e.players, met, had_bye, first_seats)
            except NoPairing as exc:  # tables of three, past what most_rounds promises
                self.out.stopped = f"the event ended after round {rnd}: {exc}"
                break
            ids: list[int] = []
            for table_no, table in enumerate(tables):
                seed = derive_seed(e.seed, "swiss", rnd, "table", table_no)
                ids += self.add(rnd, table_no, self._seat_orders(table, first_seats, rnd), seed)
                met.update(frozenset(pair) for pair in permutations(table, 2))
            self.out.byes += [(rnd, name) for name in byes]
            if not self.complete(ids):
                return self.out
            for name, p in self.points(ids).items():
                score[name] += p / (len(ids) // len(tables)) if tables else 0.0
            for name in byes:
                score[name] += 1.0
        self.out.finished = True
        return self.out

    def _seat_orders(self, table: tuple[str, ...], first_seats: dict[str, int], rnd: int) -> list[tuple[str, ...]]:
        if self.event.both_seats or len(table) != 2:
            return [tuple(p) for p in permutations(table)]
        a, b = table  # a is the better ranked: it takes the first seat on even rounds if the counts are level
        if first_seats[a] > first_seats[b] or (first_seats[a] == first_seats[b] and rnd % 2):
            a, b = b, a
        first_seats[a] += 1
        first_seats[b] -= 1
        return [(a, b)]


def pair_round(
    ranked: Sequence[str],
    score: Mapping[str, float],
    players: int,
    met: set[frozenset[str]],
    had_bye: set[str],
    first_seats: Mapping[str, int],
) -> tuple[list[tuple[str, ...]], list[str]]:
    """One Swiss round: its tables in rank order and its byes.  The seat rule (two engines
    that both had the first seat once more than the second would make one of them two up)
    is dropped only when no pairing keeps it; no rematch and one bye each are never."""
    for keep_seats in (True, False):
        allowed = partial(_may_sit, met=met, first_seats=first_seats if keep_seats and players == 2 else None)
        for byes in _bye_choices(ranked, len(ranked) % players, had_bye):
            rest = [n for n in ranked if n not in byes]
            tables = _pair_dutch(rest, score, allowed) if players == 2 else None
            if tables is None:  # any tables at all, the best-ranked first
                tables = _fill_tables(rest, players, allowed)
            if tables is not None:
                return tables, list(byes)
    raise NoPairing(f"no pairing of {len(ranked)} engines is left without a rematch")


MaySit = Callable[[Sequence[str]], bool]  # may these engines sit at one table


def _may_sit(table: Sequence[str], met: set[frozenset[str]], first_seats: Mapping[str, int] | None) -> bool:
    """No two engines of ``table`` have met; with ``first_seats``, two engines that both had
    the first seat once more (or less) than the second do not meet either."""
    if any(frozenset(pair) in met for pair in permutations(table, 2)):
        return False
    return first_seats is None or not first_seats[table[0]] == first_seats[table[1]] != 0


def _bye_choices(ranked: Sequence[str], count: int, had_bye: set[str]) -> Iterator[tuple[str, ...]]:
    """The byes to try, the lowest-ranked engines without one first."""
    if count == 0:
        yield ()
        return
    free = [n for n in reversed(ranked) if n not in had_bye]
    for k, name in enumerate(free):
        for more in _bye_choices([n for n in ranked if n in free[k + 1 :]], count - 1, had_bye):
            yield (name, *more)


def _pair_dutch(order: Sequence[str], score: Mapping[str, float], allowed: MaySit) -> list[tuple[str, ...]] | None:
    """Pairs for ``order`` (ranked), score group by score group: the top half against the
    bottom half, the bottom half transposed where a pair is not allowed, the odd one out
    floating down; a group that cannot be paired joins the next.  None: no pairing."""
    if len(order) < 2:
        return [] if not order else None
    size = _group_size(order, score)
    while size <= len(order):
        group, below = list(order[:size]), list(order[size:])
        half = len(group) // 2
        top, bottom = group[:half], group[half:]
        for arranged in _limited(permutations(bottom)):
            pairs = list(zip(top, arranged))
            if not all(allowed(p) for p in pairs):
                continue
            floaters = list(arranged[half:])  # the odd one out, ranked first below
            rest = _pair_dutch(floaters + below, score, allowed)
            if rest is not None:
                return [tuple(p) for p in pairs] + rest
        if size == len(order):
            return None
        size += _group_size(order[size:], score)  # the next score group joins
    return None


def _group_size(order: Sequence[str], score: Mapping[str, float]) -> int:
    """The engines of the top score group, with the next group when it is one engine alone
    (a group pairs at least two)."""
    size = sum(1 for n in order if score[n] == score[order[0]])
    if size == 1 and len(order) > 1:
        size += sum(1 for n in order[1:] if score[n] == score[order[1]])
    return size


def _limited(arrangements: Iterator[tuple[str, ...]]) -> Iterator[tuple[str, ...]]:
    for k, arranged in enumerate(arrangements):
        if k >= PERMUTATIONS_TRIED:
            return
        yield arranged


def _fill_tables(order: Sequence[str], players: int, allowed: MaySit) -> list[tuple[str, ...]] | None:
    """Tables of ``players`` in rank order: the best-ranked engine left with the next ones
    it has not met, backtracking where the rest cannot sit."""
    if not order:
        return []
    head, rest = order[0], list(order[1:])
    for others in _combinations_in_order(rest, players - 1):
        table = (head, *others)
        if allowed(table):
            tail = _fill_tables([n for n in rest if n not in others], players, allowed)
            if tail is not None:
                return [table, *tail]
    return None


def _combinations_in_order(items: Sequence[str], k: int) -> Iterator[tuple[str, ...]]:
    if k == 0:
        yield ()
        return
    for i, item in enumerate(items):
        for more in _combinations_in_order(items[i + 1 :], k - 1):
            yield (item, *more)
