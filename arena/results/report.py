"""The HTML report of a tournament: standings, cross and head-to-head tables, how games
ended, dropped engines and games that could not be recorded.

Everything that came from a tournament file or an engine (names, reasons) is
untrusted text: it goes through :func:`html.escape` and nothing else, and the
page has no scripts, so a hostile engine name cannot run code in a browser.
"""

from __future__ import annotations

import html
from typing import Any, Sequence

from .ratings import HeadToHead, head_to_head
from ..rules.base import format_option_value

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
table { border-collapse: collapse; margin: 1rem 0 2rem; }
th, td { border: 1px solid #ccc; padding: .3rem .6rem; text-align: right; }
th { background: #f3f3f3; } td.name, th.name { text-align: left; }
caption { text-align: left; font-weight: bold; padding-bottom: .4rem; }
"""


def render_report(title: str, summary: dict[str, Any], headers: Sequence[str],
                  rows: Sequence[Sequence[Any]], records: Sequence[dict[str, Any]]) -> str:
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        f"<p>{e(summary['game'])} · options {e(_options(summary['options']))} · "
        f"{summary['games']} games</p>",
        _table("Standings", headers, rows, name_column=1),
        _cross_table(records),
        _head_to_head(summary["head_to_head"]),
        _table("Terminations", ["termination", "games"],
               sorted(summary["terminations"].items()), name_column=0),
        _dropped(summary["dropped"]),
        _faults(records),
        _not_recorded(summary["not_recorded"]),
        "</body></html>",
    ]
    return "\n".join(p for p in parts if p)


def _options(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={format_option_value(v)}" for k, v in options.items()) or "none"


def _table(caption: str, headers: Sequence[str], rows: Sequence[Sequence[Any]], name_column: int) -> str:
    e = html.escape
    head = "".join(f'<th{_cls(i, name_column)}>{e(str(h))}</th>' for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f"<td{_cls(i, name_column)}>{e(str(v))}</td>" for i, v in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f"<table><caption>{e(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _cls(i: int, name_column: int) -> str:
    return ' class="name"' if i == name_column else ""


def _cross_table(records: Sequence[dict[str, Any]]) -> str:
    """Points each engine (row) took from each opponent (column), over all their games."""
    names = sorted({n for r in records for n in r["players"]})
    pairs = head_to_head(records)
    rows = [[a] + ["—" if a == b else _points(pairs.get((a, b))) for b in names] for a in names]
    return _table("Cross table (points / games against the column)", ["engine", *names], rows, name_column=0)


def _head_to_head(rows: Sequence[dict[str, Any]]) -> str:
    if not rows:
        return ""
    return _table("Head to head (Elo difference with its 95% margin; LOS: likelihood of superiority)",
                  list(rows[0]), [list(r.values()) for r in rows], name_column=0)


def _points(pair: HeadToHead | None) -> str:
    return f"{pair.points:g}/{pair.games}" if pair else "0/0"


def _faults(records: Sequence[dict[str, Any]]) -> str:
    faults = [r for r in records if r["termination"] not in ("normal",)]
    if not faults:
        return ""
    rows = [[r["id"], " vs ".join(r["players"]), r["termination"], r["reason"]] for r in faults[:200]]
    return _table("Games not ended by the rules", ["game", "players", "termination", "reason"], rows, name_column=3)


def _dropped(dropped: dict[str, str]) -> str:
    if not dropped:
        return ""
    return _table("Dropped engines (max_failures): their remaining games were lost without starting them",
                  ["engine", "why"], sorted(dropped.items()), name_column=0)


def _not_recorded(errors: Sequence[str]) -> str:
    if not errors:
        return ""
    return _table("Games not recorded (internal errors and lost workers; see arena.log)", ["what happened"],
                  [[e] for e in errors], name_column=0)
