"""The tables and facts each page of the site shows, computed from the stored games.

Every value here is plain data; the templates turn it into HTML with Jinja2's
autoescape, so an engine's name or reason is never pasted into markup by our code.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..ratings import head_to_head, head_to_head_rows, standings, table_rows
from ...rules import make_game
from ...rules.base import format_option_value


def options_text(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={format_option_value(v)}" for k, v in options.items()) or "none"


def summary_tables(game: str, options: dict[str, Any], engines: Sequence[str],
                   records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Standings with the rating history, head to head, the cross table and score matrix."""
    players = make_game(game, options).players
    history: dict[str, list[tuple[int, float, float]]] = {}
    rows = standings(engines, records, players, history)
    headers, table = table_rows(rows, players)
    order = [s.engine for s in rows]
    pairs = head_to_head(records)
    pair_headers, pair_rows = head_to_head_rows(pairs, order)
    cross = []
    matrix: list[list[float | None]] = []
    for a in order:
        cells, scores = [], []
        for b in order:
            pair = pairs.get((a, b))
            if a == b:
                cells.append("—")
                scores.append(None)
            elif pair is None or not pair.games:
                cells.append("")
                scores.append(None)
            else:
                cells.append(f"{pair.points:g}/{pair.games}")
                scores.append(100 * pair.points / pair.games)
        cross.append((a, cells))
        matrix.append(scores)
    return {"players": players, "headers": headers, "rows": table, "order": order,
            "history": history, "pair_headers": pair_headers, "pair_rows": pair_rows,
            "cross": cross, "matrix": matrix}


def engine_faults(engines: Sequence[str], records: Sequence[dict[str, Any]],
                  movers: dict[int, str]) -> tuple[list[str], list[list[Any]]]:
    """Per engine: games, moves, mean and longest move time, and each fault it was charged.
    ``movers[id]``: the seat digit of each timed ply of that game (:func:`movers_of`)."""
    codes = sorted({r["termination"] for r in records} - {"normal"})
    stats = {name: {"games": 0, "moves": 0, "ms": 0, "max_ms": 0, **dict.fromkeys(codes, 0)} for name in engines}
    for record in records:
        opening = record.get("opening_plies", 0)
        seats = movers.get(record["id"], "")
        for seat, name in enumerate(record["players"]):
            if name in stats:
                stats[name]["games"] += 1
        for ply, ms in enumerate(record.get("times_ms", []), opening):
            if ply < len(seats):
                row = stats[record["players"][int(seats[ply])]]
                row["moves"] += 1
                row["ms"] += ms
                row["max_ms"] = max(row["max_ms"], ms)
        if record["termination"] != "normal" and record.get("forfeit_seat") is not None:
            offender = record["players"][record["forfeit_seat"]]
            stats[offender][record["termination"]] += 1
    headers = ["engine", "games", "moves", "mean ms/move", "max ms", *codes]
    rows = [[name, s["games"], s["moves"], round(s["ms"] / s["moves"], 1) if s["moves"] else "",
             s["max_ms"], *(s[c] for c in codes)] for name, s in stats.items()]
    return headers, rows


def movers_of(replayed: dict[str, Any]) -> str:
    """The seat that made each ply, from the replay (Groups and HexGo do not simply
    alternate), plus the seat to move after the last ply: a refused move has a time too."""
    frames = replayed["frames"]
    return "".join(str(f["seat"]) for f in frames[1:]) + str(replayed["to_move"])


def move_rows(record: dict[str, Any], frames: list[dict[str, Any]],
              time_control: dict[str, Any] | None) -> list[dict[str, Any]]:
    """One row per ply: who moved, the move, its time and, under a game clock, the mover's
    clock after it (opening-book plies are untimed)."""
    opening = record.get("opening_plies", 0)
    times = record.get("times_ms", [])
    base = (time_control or {}).get("base_ms")
    inc = (time_control or {}).get("inc_ms") or 0
    clocks = [base] * len(record["players"]) if base is not None else None
    rows = []
    for ply, move in enumerate(record["moves"], 1):
        seat = frames[ply]["seat"]
        k = ply - 1 - opening
        ms = times[k] if 0 <= k < len(times) else None
        clock = None
        if clocks is not None and ms is not None:
            clocks[seat] += inc - ms
            clock = clocks[seat]
        rows.append({"ply": ply, "seat": seat, "engine": record["players"][seat], "move": move,
                     "ms": ms, "clock": clock, "book": k < 0})
    return rows


def result_text(record: dict[str, Any]) -> str:
    if record["winner"] is not None:
        return f"{record['players'][record['winner']]} wins"
    if len(set(record["places"])) == 1:
        return "draw"
    return "places " + " ".join(str(p + 1) for p in record["places"])
