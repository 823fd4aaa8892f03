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

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import trueskill

from ..record import GameRecord, Termination, lost_before_start

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
    game that ended by a forfeit (not by the rules or an adjudication's result)."""
    if record.termination is None or not record.termination.is_forfeit:
        return set()
    places = record.places or []
    worst = max(places)
    return {seat for seat, place in enumerate(places) if place == worst}


def opponents(record: GameRecord, seat: int, offenders: set[int]) -> Sequence[int]:
    """The seats ``seat`` has a result against.  Two seats that both forfeited have
    none: the shared place would read as a draw between engines that did not play each
    other (usually two engines dropped by max_failures meeting)."""
    seats = len(record.places or [])
    if seat not in offenders:  # every other seat (most games): the same few tuples every time
        return _other_seats(seats, seat)
    return [other for other in range(seats) if other != seat and other not in offenders]


@functools.cache
def _other_seats(seats: int, seat: int) -> tuple[int, ...]:
    return tuple(other for other in range(seats) if other != seat)


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
    but not rated: TrueSkill would take their shared place for a draw.  A game an engine did
    not play (lost before its first move: it could not start, or was dropped) is tallied as
    its forfeit but not rated either: it measures neither engine.  ``can_draw``: the
    game's (``Game.can_draw``), TrueSkill's draw probability is 0 without.  ``history``, if
    given, gets (games rated so far, mu, sigma) per engine after each game it was in."""
    tally = StandingsTally(engines, players, can_draw=can_draw, history=history is not None)
    for record in sorted(records, key=_game_number):
        tally.add(record)
    if history is not None:
        history.update(tally.history)
    return tally.standings()


class StandingsTally:
    """:func:`standings` one game at a time, in ``id`` order: the live site adds the new
    games to the ratings of the ones before instead of rating every game at every refresh."""

    def __init__(self, engines: Sequence[str], players: int, *, can_draw: bool = True, history: bool = False) -> None:
        self.env = trueskill_env(can_draw)
        self.table = {name: Standing(name, places=[0] * players) for name in engines}
        self.ratings = {name: self.env.create_rating() for name in engines}
        self.history: dict[str, list[tuple[int, float, float]]] = {}
        self.keep_history = history
        self.count = 0
        self.last_id = -1  # games must come in id order (schedule order: the table is a pure function)

    def add(self, record: GameRecord) -> None:
        self.count += 1
        self.last_id = _game_number(record)
        (names, places), offenders = seats_of(record), forfeited(record)
        if len(offenders) < 2 and not lost_before_start(record):
            for name, rating in zip(names, rate(self.env, [self.ratings[n] for n in names], places)):
                self.ratings[name] = rating
                if self.keep_history:
                    self.history.setdefault(name, []).append((self.count, rating.mu, rating.sigma))
        for seat, name in enumerate(names):
            _tally(self.table[name], places[seat], [places[o] for o in opponents(record, seat, offenders)])

    def standings(self) -> list[Standing]:
        for name, rating in self.ratings.items():
            self.table[name].mu, self.table[name].sigma = rating.mu, rating.sigma
        return list(self.table.values())


def rate(
    env: trueskill.TrueSkill, ratings: Sequence[trueskill.Rating], places: Sequence[int]
) -> list[trueskill.Rating]:
    """TrueSkill's update of one game between single players at ``places`` (0 first).

    Two players: the update in closed form (Herbrich, Minka and Graepel 2007; the
    truncated Gaussian's v and w of one win or draw), with the environment's own Gaussian
    functions, so it equals the factor graph's ``env.rate``, which it replaces for speed:
    the library builds and runs a graph per game, a few hundred microseconds, and a
    10,000-game report rates every game at every refresh.  More players: ``env.rate``."""
    if len(ratings) != 2:
        return [r for (r,) in env.rate([(r,) for r in ratings], ranks=list(places))]
    flip = places[1] < places[0]  # the library orders the players by place
    first, second = (ratings[1], ratings[0]) if flip else (ratings[0], ratings[1])
    var1 = first.sigma**2 + env.tau**2
    var2 = second.sigma**2 + env.tau**2
    c = math.sqrt(2 * env.beta**2 + var1 + var2)
    t = (first.mu - second.mu) / c
    eps = _draw_margin(env) / c
    if places[0] == places[1]:
        v, w = env.v_draw(t, eps), _w_draw(env, t, eps)
    else:
        v = env.v_win(t, eps)
        w = v * (v + t - eps)
    if not 0 < w < 1:  # the library's own handling of a degenerate case (it raises)
        return [r for (r,) in env.rate([(r,) for r in ratings], ranks=list(places))]
    new1 = env.create_rating(first.mu + var1 / c * v, math.sqrt(var1 * (1 - var1 / c**2 * w)))
    new2 = env.create_rating(second.mu - var2 / c * v, math.sqrt(var2 * (1 - var2 / c**2 * w)))
    return [new2, new1] if flip else [new1, new2]


def _draw_margin(env: trueskill.TrueSkill) -> float:
    key = (env.draw_probability, env.beta)  # not id(env): a freed environment's id is reused by the next
    margin = _MARGINS.get(key)
    if margin is None:
        margin = _MARGINS[key] = trueskill.calc_draw_margin(env.draw_probability, 2, env)
    return margin


_MARGINS: dict[tuple[float, float], float] = {}


def _w_draw(env: trueskill.TrueSkill, t: float, eps: float) -> float:
    """The library's ``w_draw`` without its floating-point error (checked by the caller)."""
    a, b = eps - abs(t), -eps - abs(t)
    denom = env.cdf(a) - env.cdf(b)
    if not denom:
        return 0.0
    v = env.v_draw(abs(t), eps)
    return float(v**2 + (a * env.pdf(a) - b * env.pdf(b)) / denom)


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
    if len(others) == 1:  # two seats (most games): the same figures, without counting
        other = others[0]
        return (1.0, "wins") if other > place else (0.5, "draws") if other == place else (0.0, "losses")
    better = sum(1 for p in others if p < place)
    tied = sum(1 for p in others if p == place)
    points = (len(others) - better - tied) + 0.5 * tied
    return points, "losses" if better else "draws" if tied else "wins"


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th: a place as the tables head it (a game has at most a few seats)."""
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
    """Results of every ordered pair of engines that met, from each game's places: the games
    both played (one an engine lost before its first move, unplayed, measures neither)."""
    pairs: dict[tuple[str, str], HeadToHead] = {}
    for record in records:
        count_head_to_head(pairs, record)
    return pairs


def count_head_to_head(pairs: dict[tuple[str, str], HeadToHead], record: GameRecord) -> None:
    """Add one game's results to ``pairs`` (a running site's head to head, kept between refreshes)."""
    if lost_before_start(record):
        return
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


Z95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution


def wilson_interval(score: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval (E. B. Wilson, 1927) of a proportion ``score`` seen in ``n``
    trials: the proportions p with |score - p| <= z sqrt(p (1 - p) / n), that is

        (score + z^2 / 2n -+ z sqrt(score (1 - score) / n + z^2 / 4n^2)) / (1 + z^2 / n).

    Unlike score -+ z sqrt(score (1 - score) / n) it never leaves 0..1, and it is strictly
    inside whenever 0 < score < 1; it is not symmetric around ``score``."""
    shrink = z * z / n
    centre = (score + shrink / 2) / (1 + shrink)
    half = z / (1 + shrink) * math.sqrt(score * (1 - score) / n + shrink / (4 * n))
    return centre - half, centre + half


@dataclass(frozen=True)
class PairElo:
    """The Elo difference of an engine over one opponent from their own games, with its 95%
    interval (the Wilson interval of the score, draws counting half, mapped to Elo) and the
    likelihood of superiority.  Where one side took every point the observed score's Elo is
    infinite: one draw is added first (half a point to each side), and the estimate and the
    Wilson interval are those of that score, so both ends stay finite: Wilson on one added draw."""

    elo: float
    low: float
    high: float
    los: float
    virtual_draws: int  # 1 for a pair where one side took every point, else 0

    @property
    def margin(self) -> float:
        """Half the interval: it is symmetric on the Elo scale (the Wilson bounds' odds
        multiply to the squared odds of the score), so elo -+ margin are its ends."""
        return (self.high - self.low) / 2

    @property
    def label(self) -> str:
        return "Wilson, 1 virtual draw" if self.virtual_draws else "Wilson"


def pair_elo(wins: int, losses: int, draws: int) -> PairElo | None:
    """The head-to-head Elo of ``wins``, ``losses`` and ``draws`` (None: no games)."""
    games = wins + losses + draws
    if not games:
        return None
    points = wins + 0.5 * draws
    virtual = 1 if points in (0, games) else 0
    score = (points + 0.5 * virtual) / (games + virtual)
    low, high = wilson_interval(score, games + virtual)
    return PairElo(_elo(score), _elo(low), _elo(high), likelihood_of_superiority(wins, losses), virtual)


def pair_label(games: int, estimate: PairElo) -> str:
    """What a head-to-head Elo counts and how, wherever it is shown beside another Elo."""
    return f"head-to-head Elo ({games} games, {estimate.label})"


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """As cutechess reports it: the normal approximation from the decisive games."""
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses)))) if wins + losses else 0.5


def _elo(score: float) -> float:
    """The Elo difference of an expected score strictly between 0 and 1."""
    return -400 * math.log10(1 / score - 1)


SWEPT = "†"  # marks a head-to-head Elo that counts the virtual draw


def head_to_head_rows(
    pairs: dict[tuple[str, str], HeadToHead], order: Sequence[str]
) -> tuple[list[str], list[list[Any]]]:
    """One row per pair of engines, the better ranked one first (``order``: standings)."""
    headers = ["engine", "opponent", "games", "wins", "losses", "draws", "score %"]
    headers += ["head-to-head Elo", "± 95% (Wilson)", "LOS %"]
    rank = {name: i for i, name in enumerate(order)}
    rows = []
    for (a, b), pair in sorted(pairs.items(), key=lambda kv: (rank[kv[0][0]], rank[kv[0][1]])):
        if rank[a] > rank[b]:
            continue
        estimate = pair_elo(pair.wins, pair.losses, pair.draws)
        assert estimate is not None  # a pair is only listed once it has a game
        rows.append(
            [
                a,
                b,
                pair.games,
                pair.wins,
                pair.losses,
                pair.draws,
                round(100 * pair.points / pair.games, 1),
                f"{_shown(estimate.elo)}{SWEPT if estimate.virtual_draws else ''}",
                _shown(estimate.margin),
                round(100 * estimate.los, 1),
            ]
        )
    return headers, rows


HEAD_TO_HEAD_NOTE = (
    "head-to-head Elo: each pair from its own games; 95% interval: the Wilson score interval of the "
    "pair's score (draws count half), symmetric on the Elo scale; "
    f"{SWEPT}: one side took every point, so the Elo and its interval count one added draw (half a point each); "
    "LOS: likelihood of superiority."
)


def _shown(value: float) -> float:
    return round(value, 1) + 0.0  # no "-0.0"


def dropped_engines(records: Sequence[GameRecord]) -> dict[str, str]:
    """Engines dropped (max_failures), from their 'dropped' forfeits: the dropped seats
    share the last place of such a record."""
    dropped: dict[str, str] = {}
    for r in records:
        note_dropped(dropped, r)
    return dropped


def note_dropped(dropped: dict[str, str], r: GameRecord) -> None:
    """Add to ``dropped`` the engines this record says were dropped (games taken in order)."""
    if r.termination is Termination.DROPPED:
        names, places = r.players or [], r.places or []
        for seat, place in enumerate(places):
            if place == max(places) and names[seat] not in dropped:
                dropped[names[seat]] = f"dropped (max_failures); first forfeit in game {r.id}"
