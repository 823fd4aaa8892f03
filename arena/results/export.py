"""What a results folder publishes: standings, Bradley–Terry Elo, head to head and per-engine
statistics, as ``results.json`` (for programs), ``standings.md`` and ``standings.csv`` (to
paste), and the tables ``arena results`` prints.

:func:`summarize` computes everything from the stored records once; the writers only format
it, so every export shows the same numbers.  ``results.json``'s schema is in docs/results.md
("results.json"): snake_case keys, numbers as numbers, ``null`` where a value is unbounded or
there is no data.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, TypedDict

from tabulate import tabulate

from ..record import GameRecord, lost_before_start
from ..rules import OptionError, make_game
from ..rules.base import Options
from . import strictjson
from .admit import FolderGames, Refused, read_counted, refused_line
from .elo import PRIOR, EloFit, RatingRow, fit_elo, prior_of
from .events import EVENTS
from .fingerprint import StoredSettings
from .fit import fit_table, wrap
from .matchline import MatchFigures, match_block, match_counts, match_figures, matches
from .ratings import (
    HEAD_TO_HEAD_NOTE,
    HeadToHead,
    Standing,
    dropped_engines,
    head_to_head,
    head_to_head_rows,
    ordinal,
    pair_elo,
    pair_label,
    standings,
)
from .sprt import SprtSummary, sprt_from_settings, sprt_lines
from .stats import EngineStats, engine_stats, seat_name, swap_move
from .store import StorageError, collector_paused, decode_meta
from .tiebreaks import EventSummary, bracket_rounds, event_summary, round_names

SCHEMA_VERSION = 1
FORMATS = ("table", "md", "csv", "json")


def arena_version() -> str:
    try:
        return version("arena")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


# TrueSkill's (games rated so far, mu, sigma) of each engine after each game it was in.
History = dict[str, list[tuple[int, float, float]]]


@dataclass
class Summary:
    """Everything published about one tournament, computed from its records once: the
    terminal's tables, results.json, standings.md / .csv and the report site all show it."""

    tournament: str
    game: str
    options: Options
    players: int
    records: list[GameRecord]
    standings: list[Standing]  # ranked engines first, then the dropped ones
    elo: EloFit
    pairs: dict[tuple[str, str], HeadToHead]
    stats: dict[str, EngineStats]
    dropped: dict[str, str]  # engine -> why
    history: History = field(default_factory=dict)
    settings: StoredSettings | None = None
    fingerprint: str | None = None
    not_recorded: list[str] = field(default_factory=list)  # games a run could not record, and why
    scheduled: int | None = None  # games the tournament's schedule holds (None: not known)
    refused: list[Refused] = field(default_factory=list)  # stored games not counted (arena/results/admit.py)
    sprt: SprtSummary | None = None  # the tournament's SPRT, if it has one
    event: EventSummary | None = None  # a knockout's or Swiss event's standings and bracket, or chosen tiebreaks

    @property
    def order(self) -> list[str]:
        return [s.engine for s in self.standings]

    @property
    def terminations(self) -> dict[str, int]:
        """Games by termination code, in order of first appearance."""
        return dict(Counter(str(r.termination) for r in self.records))

    @property
    def finished(self) -> bool | None:
        """Every scheduled game stored, or the SPRT decided (None: the schedule is not known)."""
        if self.sprt is not None and self.sprt.decision != "running":
            return True
        if self.event is not None and self.event.format in EVENTS:
            return self.event.finished  # its games are drawn wave by wave
        return None if self.scheduled is None else len(self.records) >= self.scheduled

    def status_text(self) -> str | None:
        """A line for a tournament that is not finished, else None."""
        if self.finished is not False:
            return None
        return (
            f"not finished: {len(self.records)} of {self.scheduled} scheduled games are stored "
            f"(a run still going, or one that stopped before its end)"
        )


def summarize(
    records: Sequence[GameRecord],
    engines: Sequence[str],
    *,
    tournament: str,
    game: str,
    options: Options,
    players: int,
    settings: StoredSettings | None = None,
    fingerprint: str | None = None,
    dropped: Mapping[str, str] | None = None,
    not_recorded: Sequence[str] = (),
    scheduled: int | None = None,
    elo_prior: float = PRIOR,
    replayed: bool = False,
    sprt: SprtSummary | None = None,
) -> Summary:
    """Rate and tally ``records``; ``dropped`` adds to the engines the records show dropped.
    ``elo_prior``: BayesElo's virtual draws per engine of the Elo fit (0: maximum likelihood).
    ``replayed``: the records are known to be legal (the referee played them, or a folder's
    admission replayed them), so the statistics need not replay them again (StatsTally)."""
    records = sorted(records, key=lambda r: r.id or 0)  # a stored record always has its id
    engines = list(engines) + [n for r in records for n in r.players or [] if n not in engines]
    engines = list(dict.fromkeys(engines))
    out = {**dropped_engines(records), **(dropped or {})}
    fit = fit_elo(records, engines, prior=elo_prior)
    history: History = {}
    rows = standings(engines, records, players, history, can_draw=make_game(game, options).can_draw)
    return Summary(
        tournament=tournament,
        game=game,
        options=dict(options),
        players=players,
        records=list(records),
        standings=ranked_standings(rows, fit, out),
        elo=fit,
        pairs=head_to_head(records),
        stats=engine_stats(records, engines, replayed=replayed),
        dropped=out,
        history=history,
        settings=settings,
        fingerprint=fingerprint,
        not_recorded=list(not_recorded),
        scheduled=scheduled,
        sprt=sprt,
        event=event_summary(records, engines, settings, players),
    )


def ranked_standings(rows: Sequence[Standing], fit: EloFit, dropped: Collection[str]) -> list[Standing]:
    """The standings in the fit's order (the Bradley–Terry Elo, ties by score, then name:
    arena.results.elo.rank_key), the ``dropped`` engines last."""
    place = {r.engine: k for k, r in enumerate(fit.ratings)}
    ordered = sorted(rows, key=lambda s: place[s.engine])
    return [s for s in ordered if s.engine not in dropped] + [s for s in ordered if s.engine in dropped]


# -- results.json -------------------------------------------------------------


def results_document(s: Summary) -> dict[str, Any]:
    """The results.json object (schema in docs/results.md)."""
    elo = {r["engine"]: r for r in s.elo.rows()}
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "arena_version": arena_version(),
        "tournament": s.tournament,
        "game": s.game,
        "options": s.options,
        "players": s.players,
        "fingerprint": s.fingerprint,
        "settings": s.settings,
        "games": len(s.records),
        "scheduled_games": s.scheduled,
        "finished": s.finished,
        "terminations": s.terminations,
        "standings": [
            _standing_dict(rank, st, s.dropped, s.players, elo[st.engine])
            for rank, st in _ranked(s.standings, s.dropped)
        ],
        "elo": {"label": field_elo_label(s.records), **s.elo.as_dict()},
        "head_to_head": [_pair_dict(a, b, s.pairs[a, b]) for a, b in _pair_order(s)],
        "matches": [{"engine": a, "opponent": b, **f.as_dict()} for a, b, f in match_results(s)],
        "engines": [s.stats[name].as_dict() for name in s.order],
        "dropped": dict(s.dropped),
        "not_recorded": list(s.not_recorded),
        "not_counted": [r.as_dict() for r in s.refused],
    }
    if s.sprt is not None:
        doc["sprt"] = s.sprt.as_dict()
    if s.event is not None:
        doc["event"] = s.event.as_dict()
    return doc


def results_json(s: Summary) -> str:
    """results.json's text: strict JSON (a figure that is not finite is null) with the text of
    the tournament file and the records shown as engine text is (control and bidi characters
    escaped), so printing it cannot move a terminal's cursor or reverse a line."""
    document = strictjson.printable(strictjson.finite(results_document(s)))
    return strictjson.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _ranked(standings: Sequence[Standing], dropped: Collection[str]) -> list[tuple[int | None, Standing]]:
    """Each engine with its rank (None: dropped, not ranked)."""
    rank = 0
    out: list[tuple[int | None, Standing]] = []
    for st in standings:
        if st.engine in dropped:
            out.append((None, st))
        else:
            rank += 1
            out.append((rank, st))
    return out


class _Counts(TypedDict):
    rank: int | None
    engine: str
    games: int
    wins: int
    losses: int
    draws: int


class _Figures(TypedDict):
    score_pct: float
    elo: float | None
    elo_low: float | None
    elo_high: float | None
    elo_bound: str | None
    mu: float
    sigma: float
    conservative: float
    dropped: bool


class StandingRow(_Counts, _Figures):
    """An engine's row of results.json's ``standings`` (schema in docs/results.md): its
    counts, its places in a game of more than two players, then its figures."""


class _PlacedRow(StandingRow):
    places: list[int]  # between the counts and the figures


def _standing_dict(
    rank: int | None, st: Standing, dropped: Mapping[str, str], players: int, elo: RatingRow
) -> StandingRow:
    counts: _Counts = {
        "rank": rank,
        "engine": st.engine,
        "games": st.games,
        "wins": st.wins,
        "losses": st.losses,
        "draws": st.draws,
    }
    figures: _Figures = {
        "score_pct": round(st.score_pct, 1),
        "elo": elo["elo"],
        "elo_low": elo["low"],
        "elo_high": elo["high"],
        "elo_bound": elo["bound"],
        "mu": round(st.mu, 2),
        "sigma": round(st.sigma, 2),
        "conservative": round(st.conservative, 2),
        "dropped": st.engine in dropped,
    }
    if players > 2:
        placed: _PlacedRow = {**counts, "places": list(st.places or []), **figures}
        return placed
    return {**counts, **figures}


def _pair_order(s: Summary) -> list[tuple[str, str]]:
    """Each pair once, the better ranked engine first."""
    rank = {name: i for i, name in enumerate(s.order)}
    return sorted(((a, b) for a, b in s.pairs if rank[a] < rank[b]), key=lambda p: (rank[p[0]], rank[p[1]]))


class PairRow(TypedDict):
    """A pair's row of results.json's ``head_to_head`` (schema in docs/results.md)."""

    engine: str
    opponent: str
    games: int
    wins: int
    losses: int
    draws: int
    score_pct: float
    elo_diff: float | None
    elo_margin: float | None
    elo_low: float | None
    elo_high: float | None
    elo_method: str
    elo_label: str
    elo_virtual_draws: int
    los_pct: float


def _pair_dict(a: str, b: str, pair: HeadToHead) -> PairRow:
    estimate = pair_elo(pair.wins, pair.losses, pair.draws)
    assert estimate is not None  # a pair is only listed once it has a game
    return {
        "engine": a,
        "opponent": b,
        "games": pair.games,
        "wins": pair.wins,
        "losses": pair.losses,
        "draws": pair.draws,
        "score_pct": round(100 * pair.points / pair.games, 1),
        "elo_diff": _r(estimate.elo),
        "elo_margin": _r(estimate.margin),
        "elo_low": _r(estimate.low),
        "elo_high": _r(estimate.high),
        "elo_method": "wilson",
        "elo_label": pair_label(pair.games, estimate),
        "elo_virtual_draws": estimate.virtual_draws,
        "los_pct": round(100 * estimate.los, 1),
    }


def field_elo_label(records: Iterable[GameRecord]) -> str:
    """What the Bradley-Terry Elo counts, wherever it is shown beside another Elo: the games
    played (not those an engine lost before its first move, which no rating counts)."""
    return games_elo_label(sum(1 for r in records if not lost_before_start(r)))


def games_elo_label(games: int) -> str:
    """:func:`field_elo_label` of ``games`` games played, counted beforehand."""
    return f"Bradley-Terry Elo (field, {games} games)"


def _r(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits) + 0.0


# -- tables -------------------------------------------------------------------


def standings_table(s: Summary) -> tuple[list[str], list[list[Any]]]:
    """One row per engine: the standings with the Bradley–Terry Elo and its interval."""
    return standings_rows(s.standings, s.players, s.dropped, s.elo)


def standings_rows(
    ranked: Sequence[Standing], players: int, dropped: Collection[str], fit: EloFit
) -> tuple[list[str], list[list[Any]]]:
    """Headers and rows of the standings (``ranked``: :func:`ranked_standings`), ranked by the
    Elo, with TrueSkill's columns beside it; ``dropped`` engines marked, without a rank."""
    pct = round(100 * fit.confidence)
    headers = ["rank", "engine", "games", "wins", "losses", "draws"]
    if players > 2:
        headers += [ordinal(i + 1) for i in range(players)]
    headers += ["score %", "BT Elo (field)", f"BT {pct}%", "mu", "sigma", "mu-3sigma", "status"]
    rows = []
    for rank, st in _ranked(ranked, dropped):
        r = fit.rating(st.engine)
        row: list[Any] = ["-" if rank is None else rank, st.engine, st.games, st.wins, st.losses, st.draws]
        if players > 2:
            row += list(st.places or [])
        row += [
            round(st.score_pct, 1),
            elo_cell(r.elo, r.bound),
            _interval_text(r.low, r.high, r.elo),
            round(st.mu, 2),
            round(st.sigma, 2),
            round(st.conservative, 2),
            "dropped" if rank is None else "",
        ]
        rows.append(row)
    return headers, rows


def elo_table(s: Summary) -> tuple[list[str], list[list[Any]]]:
    """The Bradley–Terry ratings with the LOS of each engine over each other (%)."""
    order = [r.engine for r in s.elo.ratings]
    headers = ["engine", "elo", "95% low", "95% high", "results", "score %"] + [f"LOS>{n}" for n in order]
    matrix = s.elo.los_matrix(order)
    rows = []
    for r, los in zip(s.elo.ratings, matrix):
        shown = f"{r.engine} (dropped)" if r.engine in s.dropped else r.engine
        rows.append(
            [
                shown,
                elo_cell(r.elo, r.bound),
                number_cell(r.low),
                number_cell(r.high),
                r.results,
                "" if r.score is None else round(100 * r.score, 1),
            ]
            + ["" if v is None else round(100 * v, 1) for v in los]
        )
    return headers, rows


def head_to_head_table(s: Summary) -> tuple[list[str], list[list[Any]]]:
    return head_to_head_rows(s.pairs, s.order)


def stats_table(s: Summary) -> tuple[list[str], list[list[Any]]]:
    """Per engine: score by seat, swaps, game length, time per move, depth, speed, forfeits."""
    seats = [seat_name(s.game, k) for k in range(s.players)]
    swapping = swap_move(s.game) is not None
    headers = (
        ["engine"]
        + [f"score % as {n}" for n in seats]
        + (["swapped", "was swapped"] if swapping else [])
        + ["mean plies", "mean ms/move", "max ms/move", "mean depth", "nodes/s", "forfeits"]
    )
    rows = []
    for name in s.order:
        st = s.stats[name]
        row: list[Any] = [name, *(st.seat_pct(k) for k in range(s.players))]
        if swapping:
            row += [st.swapped, st.was_swapped]
        row += [
            number_cell(st.mean_plies),
            number_cell(st.mean_move_ms),
            number_cell(st.max_move_ms),
            number_cell(st.mean_depth, "", 2),
            number_cell(st.nodes_per_second, "", 0),
            ", ".join(f"{code} {n}" for code, n in sorted(st.terminations.items())) or "none",
        ]
        rows.append(row)
    return headers, rows


def number_cell(value: float | None, empty: str = "", digits: int = 1) -> Any:
    """A figure as the tables show it: rounded (never -0.0), ``empty`` when there is none."""
    return empty if value is None else round(value, digits) + 0


def elo_cell(elo: float | None, bound: str | None) -> Any:
    """An Elo as the tables show it: rounded, or the side it is unbounded on, or unrated."""
    if elo is not None:
        return round(elo, 1) + 0.0
    return {"above": "+inf", "below": "-inf"}.get(bound or "", "unrated")


def _interval_text(low: float | None, high: float | None, elo: float | None) -> str:
    if elo is None:
        return ""
    return f"[{number_cell(low, '-inf')}, {number_cell(high, '+inf')}]"


TABLES = (
    ("Standings", standings_table),
    ("Bradley-Terry Elo", elo_table),
    ("Head to head (each pair: its own games)", head_to_head_table),
    ("Per-engine statistics", stats_table),
)


STANDINGS = TABLES[:1]  # the standings alone (with the SPRT block and the dropped engines)

# Each table's columns in the order a narrow terminal drops them, least important first
# (fnmatch patterns; arena/results/fit.py): the engine, its rank, score, Elo and forfeits stay.
DROP_ORDER: dict[Any, tuple[str, ...]] = {
    standings_table: ("mu-3sigma", "sigma", "mu", "draws", "losses", "wins", "games", "[0-9]*", "BT *%", "score %"),
    elo_table: ("results", "score %", "LOS>*"),
    head_to_head_table: ("score %", "draws", "losses", "wins", "LOS %", "games"),
    stats_table: (
        "was swapped",
        "swapped",
        "mean depth",
        "nodes/s",
        "max ms/move",
        "mean plies",
        "score % as *",
        "mean ms/move",
    ),
}


def render(s: Summary, fmt: str, tables: Sequence[tuple[str, Any]] = TABLES, width: int | None = None) -> str:
    """The tables as ``table`` (plain text), ``md`` (Markdown), ``csv`` (the standings row per
    engine, all columns of the four tables joined) or ``json`` (results.json); ``tables``:
    which of the four text tables (e.g. :data:`STANDINGS`).  ``width``: the plain text's
    columns, which the tables and lines are fitted to (None: every column, lines unwrapped)."""
    if fmt == "json":
        return results_json(s)
    if fmt == "csv":
        return _csv(s)
    style = {"table": "simple", "md": "github"}[fmt]
    fit = width if fmt == "table" else None
    parts = []
    elo_note = (
        f"Elo: {s.elo.method}, anchor: {s.elo.anchor}; {round(100 * s.elo.confidence)}% intervals from "
        f"the {s.elo.interval_method}; LOS in %. Ranked by Elo (ties: score, then name)."
    )
    if fmt == "md":
        parts.append(
            f"# {s.tournament}\n\n{s.game}, {len(s.records)} games. {elo_note}"
            + (f"\n\n**{s.status_text()}**" if s.status_text() else "")
        )
    elif status := s.status_text():
        parts.append(wrap(status, fit))
    if s.refused:
        line = refused_line(s.refused)
        parts.append(f"**{line}**" if fmt == "md" else wrap(line, fit))
    for title, table in tables:
        headers, rows = table(s)
        if not rows:
            continue
        if fit is None:
            text = tabulate(rows, headers=headers, tablefmt=style, disable_numparse=True)
        else:
            text = fit_table(headers, rows, fit, DROP_ORDER.get(table, ()), style)
        if table is elo_table:
            title = field_elo_label(s.records)
        if fmt == "table" and table is elo_table:
            text += "\n" + wrap(elo_note, fit)
        if table is head_to_head_table:
            text += ("\n\n" if fmt == "md" else "\n") + wrap(HEAD_TO_HEAD_NOTE, fit)
        parts.append(f"## {title}\n\n{text}" if fmt == "md" else f"{title}\n{text}")
    if s.event is not None:
        parts += _event_parts(s.event, fmt, style, fit)
    if s.sprt is not None:
        lines = sprt_lines(s.sprt)
        parts.append("## SPRT\n\n" + "\n\n".join(lines) if fmt == "md" else wrap("\n".join(lines), fit))
    if s.dropped:
        if fmt == "md":
            parts.append("## Dropped\n\n" + "\n".join(f"- {name}: {why}" for name, why in s.dropped.items()))
        else:
            parts.append(wrap("\n".join(f"dropped: {name}: {why}" for name, why in s.dropped.items()), fit))
    if fmt == "table":
        parts += [wrap("\n".join(block), fit) for block in match_blocks(s)]
    return "\n\n".join(parts) + "\n"


def event_table(event: EventSummary) -> tuple[list[str], list[list[Any]]]:
    """The event's standings: rank, engine, score, the chosen tiebreaks (and a knockout's
    round each engine reached, a Swiss event's byes)."""
    headers = ["rank", "engine", "score", *event.tiebreaks]
    knockout = event.format == "knockout"
    headers.append("reached" if knockout else "byes")
    rows = [
        [
            k + 1,
            st.engine,
            number_cell(st.score, digits=2),
            *(number_cell(st.tiebreaks[t], digits=2) for t in event.tiebreaks),
            st.reached if knockout else st.byes,
        ]
        for k, st in enumerate(event.standings)
    ]
    return headers, rows


def _event_parts(event: EventSummary, fmt: str, style: str, fit: int | None) -> list[str]:
    """The event's standings table and a knockout's bracket, titled as ``fmt`` titles."""
    headers, rows = event_table(event)
    text = (
        fit_table(headers, rows, fit, (), style)
        if fit is not None
        else tabulate(rows, headers=headers, tablefmt=style, disable_numparse=True)
    )
    title = f"{event.format.capitalize()} standings" + ("" if event.finished else " (so far)")
    if event.stopped is not None:
        text += "\n\n" + wrap(event.stopped, fit)
    parts = [f"## {title}\n\n{text}" if fmt == "md" else f"{title}\n{text}"]
    if event.bracket:
        lines = bracket_lines(event)
        parts.append(
            "## Bracket\n\n" + "\n".join(f"- {line}" for line in lines)
            if fmt == "md"
            else wrap("Bracket\n" + "\n".join(lines), fit)
        )
    return parts


def bracket_lines(event: EventSummary) -> list[str]:
    """Each knockout match as one line, round by round: the engines, their points, how it
    was decided."""
    names = round_names(bracket_rounds(event.bracket))
    lines = []
    for k, bracket_round in enumerate(event.bracket):
        for m in bracket_round:
            if m.low is None:
                lines.append(f"{names[k]}: {m.high} (bye)")
                continue
            score = f"{_points(m.points.get(m.high))}-{_points(m.points.get(m.low))}" if m.games else "to play"
            how = f", {m.winner} through on {m.decided_by}" if m.winner else ""
            lines.append(f"{names[k]}: {m.high} {score} {m.low}{how}")
    if event.winner is not None:
        lines.append(f"winner: {event.winner}")
    return lines


def _points(value: float | None) -> str:
    return "0" if value is None else f"{value:g}"


def match_blocks(s: Summary) -> list[list[str]]:
    """The fastchess-style line of each match the tournament ends with (arena/results/matchline.py)."""
    return [match_block(a, b, figures) for a, b, figures in match_results(s)]


def match_results(s: Summary) -> list[tuple[str, str, MatchFigures]]:
    """Each match's engines and figures: two engines, or each pair of a gauntlet."""
    engines = [e["name"] for e in s.settings["engines"]] if s.settings else s.order
    candidates = (s.settings or {}).get("candidates") or ()
    found = [(a, b, match_figures(match_counts(s.records, a, b))) for a, b in matches(engines, s.players, candidates)]
    return [(a, b, figures) for a, b, figures in found if figures is not None]


# The per-engine statistics a CSV row carries as they are (forfeits follow, as a count).
_STAT_COLUMNS = (
    "swapped",
    "was_swapped",
    "mean_plies",
    "mean_move_ms",
    "max_move_ms",
    "mean_depth",
    "nodes_per_second",
)


def _csv(s: Summary) -> str:
    """One row per engine: standings, Elo, and statistics columns (numbers unformatted)."""
    doc = results_document(s)
    stats = {e["engine"]: e for e in doc["engines"]}
    headers = ["rank", "engine", "games", "wins", "losses", "draws"]
    if s.players > 2:
        headers += [f"place_{k + 1}" for k in range(s.players)]
    headers += ["score_pct", "elo", "elo_low", "elo_high", "elo_bound", "mu", "sigma", "conservative", "dropped"]
    headers += [f"score_as_{seat_name(s.game, k).replace(' ', '_')}" for k in range(s.players)]
    headers += [*_STAT_COLUMNS, "forfeits"]
    event = {st.engine: st for st in s.event.standings} if s.event is not None else {}
    if s.event is not None:
        headers += ["event_score", *(f"tiebreak_{t.replace('-', '_')}" for t in s.event.tiebreaks), "event_reached"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(headers)
    for row in doc["standings"]:
        st = stats[row["engine"]]
        seats = {seat["seat"]: seat["score"] for seat in st["seats"]}
        values = [row["rank"], row["engine"], row["games"], row["wins"], row["losses"], row["draws"]]
        values += row.get("places", [])
        values += [
            row[k] for k in ("score_pct", "elo", "elo_low", "elo_high", "elo_bound", "mu", "sigma", "conservative")
        ]
        values += ["true" if row["dropped"] else "false"]
        values += [seats.get(k) for k in range(s.players)]
        values += [st[k] for k in _STAT_COLUMNS]
        values += [sum(st["terminations"].values())]
        if s.event is not None:
            ev = event[row["engine"]]
            values += [ev.score, *(ev.tiebreaks[t] for t in s.event.tiebreaks), ev.reached]
        writer.writerow([csv_cell(v) for v in values])
    return buffer.getvalue()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet may run as a formula


def csv_cell(value: Any) -> Any:
    """A CSV cell: None empty, numbers as they are, and text a spreadsheet would read as a
    formula (an engine named ``-1+1`` or ``+A1``) prefixed with ``'`` so it stays text, as
    OWASP's "CSV Injection" page recommends."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_exports(s: Summary, folder: Path) -> None:
    """results.json, standings.md and standings.csv in ``folder`` (each replaced whole)."""
    for name, fmt in (("results.json", "json"), ("standings.md", "md"), ("standings.csv", "csv")):
        tmp = folder / f".{name}.tmp"
        tmp.write_text(render(s, fmt), encoding="utf-8")
        tmp.replace(folder / name)


def summarize_folder(folder: Path, elo_prior: float | None = None) -> Summary:
    """The summary of a finished or running tournament's folder, read without touching it;
    ``elo_prior`` overrides the tournament file's ``elo_prior`` (BayesElo's virtual draws)."""
    with collector_paused():  # the records and the tallies of them, all kept to the end
        return read_for_summary(folder).summary(elo_prior)


@dataclass
class FolderRead:
    """A results folder's games as its tables count them, and what its summary is named and
    played by: read first, summarised after (:meth:`summary`), so a reader that needs only
    the records (the report's replays) may start on them in between."""

    folder: Path
    found: FolderGames
    tournament: str
    game: str
    options: Options
    players: int

    @property
    def records(self) -> list[GameRecord]:
        return self.found.counted  # in id order, as the store reads them

    @property
    def engines(self) -> list[str]:
        """The tournament file's engines (none for a folder older than its stored settings)."""
        settings = self.found.settings
        return [e["name"] for e in settings["engines"]] if settings else []

    def summary(self, elo_prior: float | None = None) -> Summary:
        """:func:`summarize_folder`'s summary of what was read; ``elo_prior`` as there.
        Raises StorageError for a stored value the figures cannot be made from."""
        meta, settings, records, folder = self.found.meta, self.found.settings, self.records, self.folder
        summary = summarize(
            records,
            self.engines,
            tournament=self.tournament,
            game=self.game,
            options=self.options,
            players=self.players,
            settings=settings,
            fingerprint=meta.get("fingerprint"),
            dropped=decode_meta(folder, "dropped", meta.get("dropped"), {}),
            scheduled=_count_or_none(decode_meta(folder, "scheduled", meta.get("scheduled"))),
            elo_prior=prior_of(settings) if elo_prior is None else elo_prior,
            replayed=True,  # admitted: each has its checked mark or agreed with a replay just now
            sprt=folder_sprt(folder, settings, records),
        )
        summary.refused = self.found.refused
        return summary


def read_for_summary(folder: Path) -> FolderRead:
    """A results folder read for its summary (see FolderRead); raises StorageError when it
    holds nothing to summarise or its settings do not make a game."""
    found = read_counted(folder)
    settings, records = found.settings, found.counted
    if settings is None and not records:
        raise StorageError(f"{folder}: the folder holds no games yet")
    game_name = settings["game"] if settings else records[0].game
    options = settings["options"] if settings else records[0].options
    try:
        players = make_game(game_name, options).players
    except OptionError as exc:
        raise StorageError(f"{folder}: the stored settings do not make a game ({exc})") from None
    name = (settings or {}).get("name") or (records[0].tournament if records else None) or folder.name
    return FolderRead(folder, found, name, game_name, options, players)


def _count_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def folder_sprt(folder: Path, settings: StoredSettings | None, records: Sequence[GameRecord]) -> SprtSummary | None:
    """The ``sprt`` section of a folder's results, from its stored settings and games."""
    try:
        test = sprt_from_settings(settings, records)
    except (ValueError, KeyError, TypeError) as exc:
        raise StorageError(
            f"{folder}: the stored [sprt] settings are damaged ({exc}); run the tournament again into a new folder"
        ) from None
    return None if test is None else test.summary()
