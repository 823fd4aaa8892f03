"""Strict JSON for every file and output arena writes (results.json, games.jsonl, arena.db's
JSON columns, the report site's data, ``arena play``'s records, ``arena verify``'s verdicts,
``arena bench --json``).

Python's :func:`json.dumps` writes ``NaN``, ``Infinity`` and ``-Infinity`` by default, which
are not JSON (RFC 8259): ``jq``, JavaScript's ``JSON.parse`` and most other readers refuse the
whole file.  :func:`dumps` never writes them (it raises ValueError instead), and
:func:`finite` turns a computed figure that is not a finite number into ``null``, which the
docs/results.md's results.json schema reads as "unbounded, or no data".
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from typing import Any

from protocol import codec


def dumps(value: Any, **kwargs: Any) -> str:
    """:func:`json.dumps` that raises ValueError for NaN or an infinity rather than write it."""
    return json.dumps(value, allow_nan=False, **kwargs)


_COMPACT = json.JSONEncoder(allow_nan=False, separators=(",", ":"))


def compact(value: Any) -> str:
    """:func:`dumps` without spaces, by one encoder made once: for the many small documents of
    a report site (a row a game), where making an encoder a call costs more than the row."""
    return _COMPACT.encode(value)


def finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float, at any depth of its dicts, lists and tuples,
    replaced by None (tuples become lists, as JSON holds them)."""
    return _leaves(value, lambda v: None if isinstance(v, float) and not math.isfinite(v) else v)


def printable(value: Any) -> Any:
    """``value`` with every string, dict keys included, shown as engine text is shown
    (:func:`protocol.codec.sanitize`, untruncated): control characters, terminal escapes and
    bidi controls escaped as ``\\x1b`` or ``\\u202e`` text, printable text unchanged."""
    return _leaves(value, lambda v: codec.sanitize(v, sys.maxsize) if isinstance(v, str) else v)


def _leaves(value: Any, change: Callable[[Any], Any]) -> Any:
    if isinstance(value, dict):
        return {change(key): _leaves(item, change) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_leaves(item, change) for item in value]
    return change(value)
