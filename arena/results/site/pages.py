"""The tables and facts each page of the site shows, computed from the stored games.

Every value here is plain data; the templates turn it into HTML with Jinja2's
autoescape, so an engine's name or reason is never pasted into markup by our code.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from ...record import FORFEITS, GameRecord
from ...rules.base import Options, format_option_value
from ..elo import EloFit
from ..export import History, Summary, standings_table
from ..fingerprint import StoredSettings
from ..ratings import HEAD_TO_HEAD_NOTE, StandingsTally, head_to_head_rows, seats_of
from ..stats import EngineStats, seat_name


def options_text(options: Options) -> str:
    return ", ".join(f"{k}={format_option_value(v)}" for k, v in options.items()) or "none"


Row = list[Any]  # a table's cells: text and numbers, which the templates escape


@dataclass(frozen=True)
class SummaryTables:
    """The standings, head to head and cross table of a :class:`Summary`, as the pages show them."""

    players: int
    headers: list[str]
    rows: list[Row]  # the terminal's standings rows (export.standings_table)
    order: list[str]  # the engines, ranked
    history: History  # TrueSkill after each game (the ratings plot)
    pair_headers: list[str]
    pair_rows: list[Row]
    pair_note: str
    cross: list[tuple[str, list[tuple[str, str]]]]  # engine, and its cells: (text, class)
    matrix: list[list[float | None]]  # % of the points each engine took from each


def summary_tables(s: Summary) -> SummaryTables:
    """Standings ranked by the Elo fit with the TrueSkill history, head to head, the cross
    table and score matrix; dropped engines are listed last, marked and without a rank, as
    in results.json and the terminal's tables (the same rows)."""
    headers, table = standings_table(s)
    order = [row[1] for row in table]
    pair_headers, pair_rows = head_to_head_rows(s.pairs, order)
    cross = []
    matrix: list[list[float | None]] = []
    for a in order:
        cells: list[tuple[str, str]] = []  # (text, class: win, draw, loss, self or none)
        scores: list[float | None] = []
        for b in order:
            pair = s.pairs.get((a, b))
            if a == b:
                cells.append(("—", "self"))
                scores.append(None)
            elif pair is None or not pair.games:
                cells.append(("", ""))
                scores.append(None)
            else:
                cells.append((f"{pair.points:g}/{pair.games}", outcome_class(pair.points, pair.games)))
                scores.append(100 * pair.points / pair.games)
        cross.append((a, cells))
        matrix.append(scores)
    return SummaryTables(
        s.players, headers, table, order, s.history, pair_headers, pair_rows, HEAD_TO_HEAD_NOTE, cross, matrix
    )


def standings_tally(
    engines: Sequence[str], records: Sequence[GameRecord], players: int, can_draw: bool
) -> StandingsTally:
    """The standings and TrueSkill history of ``records``, rated in ``id`` order."""
    tally = StandingsTally(engines, players, can_draw=can_draw, history=True)
    for record in sorted(records, key=lambda r: r.id or 0):
        tally.add(record)
    return tally


def outcome_class(points: float, games: int) -> str:
    """A cross-table cell's colour: the row engine scored more than half (win), half (draw)
    or less (loss) of the points against the column engine."""
    half = games / 2
    return "win" if points > half else "draw" if points == half else "loss"


@dataclass(frozen=True)
class EloTable:
    """The Bradley-Terry ratings as the pages show them, with the LOS matrix and the plot's points."""

    headers: list[str]
    rows: list[Row]
    plotted: list[tuple[str, float, float, float]]  # engine, Elo, low, high: the bounded ones
    anchor: str
    estimate: str
    method: str
    los_headers: list[str]
    los: list[Row]


def elo_table(fit: EloFit, dropped: Collection[str] = ()) -> EloTable:
    """The Bradley-Terry ratings, best first, with their intervals (blank where unbounded)."""
    pct = round(100 * fit.confidence)
    headers = ["engine", "Elo", f"{pct}% low", f"{pct}% high", "games", "score %", "note"]
    rows = []
    for r in fit.ratings:
        name = f"{r.engine} (dropped)" if r.engine in dropped else r.engine
        note = {
            "above": "unbounded above (lost no point to the rated engines)",
            "below": "unbounded below (took no point from the rated engines)",
            "between": "unbounded: it never lost to the ones below nor scored against the ones above",
            "unconnected": "no results linking it to the others",
        }.get(r.bound or "", "")
        rows.append(
            [
                name,
                _num(r.elo),
                _num(r.low),
                _num(r.high),
                r.games,
                "" if r.score is None else round(100 * r.score, 1),
                note,
            ]
        )
    plotted = [
        (r.engine, r.elo, r.low, r.high)
        for r in fit.ratings
        if r.elo is not None and r.low is not None and r.high is not None
    ]
    order = [r.engine for r in fit.ratings]
    los = [[a, *("" if v is None else round(100 * v, 1) for v in row)] for a, row in zip(order, fit.los_matrix(order))]
    return EloTable(
        headers, rows, plotted, fit.anchor, fit.method, fit.interval_method, ["LOS % (row over column)", *order], los
    )


@dataclass(frozen=True)
class StatsTable:
    """Per-engine statistics, and the forfeits charged to each engine (the faults)."""

    headers: list[str]
    rows: list[Row]
    fault_headers: list[str]
    fault_rows: list[Row]


def stats_table(game: str, stats: Mapping[str, EngineStats]) -> StatsTable:
    """Per-engine statistics, and the forfeits charged to each engine by termination (no
    rows where no game was forfeited: the page says so in a sentence)."""
    seats = max((len(s.seats) for s in stats.values()), default=0)
    seat_headers = [f"score % as {seat_name(game, k)}" for k in range(seats)]
    headers = [
        "engine",
        "games",
        "wins",
        "losses",
        "draws",
        "score %",
        *seat_headers,
        "swapped",
        "was swapped",
        "mean plies",
        "moves timed",
        "mean ms/move",
        "max ms/move",
        "mean depth",
        "nodes/s",
    ]
    rows = []
    for s in stats.values():
        by_seat = [s.seat_pct(k) for k in range(seats)]
        rows.append(
            [
                s.engine,
                s.games,
                s.wins,
                s.losses,
                s.draws,
                _pct(s.score),
                *by_seat,
                s.swapped,
                s.was_swapped,
                _num(s.mean_plies),
                s.moves_timed,
                _num(s.mean_move_ms),
                "" if s.max_move_ms is None else s.max_move_ms,
                _num(s.mean_depth),
                _num(s.nodes_per_second, 0),
            ]
        )
    codes = [c for c in FORFEITS if any(s.terminations.get(c) for s in stats.values())]
    faults = [[s.engine, *(s.terminations.get(c, 0) for c in codes), s.opponent_forfeits] for s in stats.values()]
    if not codes and not any(s.opponent_forfeits for s in stats.values()):
        faults = []
    return StatsTable(headers, rows, ["engine", *codes, "won by an opponent's forfeit"], faults)


def _num(value: float | None, digits: int = 1) -> float | str:
    return "" if value is None else round(value, digits) + 0.0


def _pct(value: float | None) -> float | str:
    return "" if value is None else round(100 * value, 1)


class MoveData(TypedDict):
    """A game page's moves, as its viewer reads them (JSON in the page)."""

    moves: list[str]
    times: list[float]  # ms per timed move
    opening: int  # plies from the opening book, untimed
    clock: list[float] | None  # the game clock's start and increment, ms (None: no clock)
    infos: list[str]  # each timed move's search figures as text (none if no engine reported any)


def move_data(record: GameRecord, time_control: Mapping[str, Any] | None) -> MoveData:
    """What the viewer builds its move list from, one row per ply (viewer.js): the record's
    moves and times as they are (ply counted from 0, as in the records and PROTOCOL.md
    section 5; opening-book plies are untimed, the times start after them), the game
    clock's start and increment (the mover's clock after each move is shown under one),
    and each timed move's search figures as text (none if no engine reported any)."""
    moves, times = record.moves, record.times_ms or []
    opening = record.opening_plies or 0
    shown = max(0, len(moves) - opening)  # the timed plies a row shows (a rejected last move's time is not)
    infos = [_info_text(info) for info in (record.move_info or [])[:shown]]
    base = (time_control or {}).get("base_ms")
    clock = [base, (time_control or {}).get("inc_ms") or 0] if base is not None else None
    return {
        "moves": moves,
        "times": times,
        "opening": opening,
        "clock": clock,
        "infos": infos if any(infos) else [],
    }


def _info_text(info: Any) -> str:
    if not isinstance(info, dict):
        return ""
    return ", ".join(f"{key} {info[key]}" for key in ("depth", "score", "nodes") if info.get(key) is not None)


@dataclass(frozen=True)
class ListedGame:
    """A game's row in the paged lists of games (``lists/K.html``)."""

    id: int
    round: int | None
    players: list[str]
    result: str
    termination: str
    plies: int
    reason: str


def listed_game(record: GameRecord) -> ListedGame:
    reason = record.reason if "reason" in record else ""
    return ListedGame(
        record.id or 0,
        record.round,
        list(record.players or []),
        result_text(record),
        str(record.termination),
        len(record.moves),
        reason or "",
    )


def result_text(record: GameRecord) -> str:
    names, places = seats_of(record)
    if record.winner is not None:
        return f"{names[record.winner]} wins"
    if len(set(places)) == 1:
        return "draw"
    return "places " + " ".join(str(p + 1) for p in places)


# -- the settings page: the tournament file as its author wrote it -------------

# The file's order, not the stored (alphabetical) one; keys not listed follow in that order.
SETTINGS_ORDER = ("name", "game", "options", "format", "candidates", "rounds", "seed", "workers", "time_control")
ENGINE_ORDER = ("name", "command", "protocol", "options", "init", "cwd", "env", "time_control")
NOT_WRITTEN = ("paths",)  # how the folder stores paths: arena's, not a setting of the file


@dataclass(frozen=True)
class SettingsPage:
    """The tournament file as the settings page shows it."""

    rows: list[tuple[str, list[str]]]  # each key of the tournament, and its lines
    engine_headers: list[str]
    engine_rows: list[list[list[str]]]  # each engine's keys, as lines


def settings_page(settings: StoredSettings) -> SettingsPage:
    """The stored settings as tables of text: the tournament's keys as (key, lines) rows,
    then one row per engine.  Unset keys (null, empty) are left out; booleans read yes/no,
    tables ``key = value``, lists as words."""
    rows = [
        (key, lines)
        for key in _ordered(settings, SETTINGS_ORDER)
        if key != "engines" and key not in NOT_WRITTEN and (lines := setting_lines(key, settings[key]))
    ]
    engines = [e for e in settings.get("engines") or [] if isinstance(e, dict)]
    shown = [{key: setting_lines(key, e[key]) for key in _ordered(e, ENGINE_ORDER)} for e in engines]
    keys = _ordered({k: 1 for e in shown for k in e}, ENGINE_ORDER)  # some only on some engines (sandbox)
    columns = [key for key in keys if any(e.get(key) for e in shown)]
    return SettingsPage(rows, columns, [[e.get(key, []) for key in columns] for e in shown])


def setting_lines(key: str, value: Any) -> list[str]:
    """One setting as lines of text: none when it is unset."""
    if value is None or value == [] or value == {}:
        return []
    if isinstance(value, dict):
        return [f"{k} = {setting_text(k, v)}" for k, v in value.items() if v is not None]
    if isinstance(value, list) and all(_is_pair(item) for item in value):
        return [f"{k} = {setting_text(k, v)}" for k, v in value]  # an engine's options and env, as stored
    return [setting_text(key, value)]


def setting_text(key: str, value: Any) -> str:
    """A value as a person reads it: yes/no, a command as typed, a list as words."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k} = {setting_text(k, v)}" for k, v in value.items() if v is not None)
    if isinstance(value, list):
        if key == "command":
            return command_text(value)
        return ", ".join(setting_text(key, v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # TOML's 10 for 10.0: the file may have said either
    return str(value)


def command_text(words: Sequence[Any]) -> str:
    """A command line as one would type it; ``{python}`` is left as the file writes it."""
    return " ".join(w if w == "{python}" else shlex.quote(str(w)) for w in words)


def _is_pair(item: Any) -> bool:
    return isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[0], str)


def _ordered(mapping: Mapping[str, object], first: Sequence[str]) -> list[str]:
    return [k for k in first if k in mapping] + [k for k in mapping if k not in first]
