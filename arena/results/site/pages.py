"""The tables and facts each page of the site shows, computed from the stored games.

Every value here is plain data; the templates turn it into HTML with Jinja2's
autoescape, so an engine's name or reason is never pasted into markup by our code.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Sequence
from typing import Any

from ...record import FORFEITS, GameRecord
from ...rules import make_game
from ...rules.base import format_option_value
from ..elo import EloFit
from ..export import ranked_standings, standings_rows
from ..ratings import HEAD_TO_HEAD_NOTE, StandingsTally, head_to_head, head_to_head_rows, seats_of
from ..stats import EngineStats, seat_name


def options_text(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={format_option_value(v)}" for k, v in options.items()) or "none"


def summary_tables(
    game: str,
    options: dict[str, Any],
    engines: Sequence[str],
    records: Sequence[GameRecord],
    fit: EloFit,
    dropped: Collection[str] = (),
    tally: StandingsTally | None = None,
) -> dict[str, Any]:
    """Standings ranked by ``fit``'s Elo with the TrueSkill history, head to head, the cross
    table and score matrix; ``dropped`` engines are listed last, marked and without a rank, as
    in results.json.  ``tally``: the standings of ``records`` already counted (the live site
    keeps one from refresh to refresh)."""
    rules = make_game(game, options)
    players = rules.players
    if tally is None:
        tally = standings_tally(engines, records, players, rules.can_draw)
    rows, history = tally.standings(), tally.history
    headers, table = standings_rows(ranked_standings(rows, fit, dropped), players, dropped, fit)
    order = [row[1] for row in table]
    pairs = head_to_head(records)
    pair_headers, pair_rows = head_to_head_rows(pairs, order)
    cross = []
    matrix: list[list[float | None]] = []
    for a in order:
        cells: list[tuple[str, str]] = []  # (text, class: win, draw, loss, self or none)
        scores: list[float | None] = []
        for b in order:
            pair = pairs.get((a, b))
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
    return {
        "players": players,
        "headers": headers,
        "rows": table,
        "order": order,
        "history": history,
        "pair_headers": pair_headers,
        "pair_rows": pair_rows,
        "pair_note": HEAD_TO_HEAD_NOTE,
        "cross": cross,
        "matrix": matrix,
    }


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


def elo_table(fit: EloFit, dropped: Collection[str] = ()) -> dict[str, Any]:
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
    return {
        "headers": headers,
        "rows": rows,
        "plotted": plotted,
        "anchor": fit.anchor,
        "estimate": fit.method,
        "method": fit.interval_method,
        "los_headers": ["LOS % (row over column)", *order],
        "los": los,
    }


def stats_table(game: str, stats: dict[str, EngineStats]) -> dict[str, Any]:
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
    return {
        "headers": headers,
        "rows": rows,
        "fault_headers": ["engine", *codes, "won by an opponent's forfeit"],
        "fault_rows": faults,
    }


def _num(value: float | None, digits: int = 1) -> float | str:
    return "" if value is None else round(value, digits) + 0.0


def _pct(value: float | None) -> float | str:
    return "" if value is None else round(100 * value, 1)


def move_data(record: GameRecord, time_control: dict[str, Any] | None) -> dict[str, Any]:
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


def settings_page(settings: dict[str, Any]) -> dict[str, Any]:
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
    return {
        "rows": rows,
        "engine_headers": columns,
        "engine_rows": [[e.get(key, []) for key in columns] for e in shown],
    }


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


def _ordered(mapping: dict[str, Any], first: Sequence[str]) -> list[str]:
    return [k for k in first if k in mapping] + [k for k in mapping if k not in first]
