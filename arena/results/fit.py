"""Text that fits the terminal: the closing output of ``arena run`` and ``arena results``.

A table too wide for the terminal drops its least important columns first, one at a time,
until it fits (fastchess's summary shows its columns by the same rule: what a tester looks at
stays); columns with nothing in them go before any other.  Notes and long lines are wrapped to
the width.  ``arena results --wide``, results.json, standings.md, standings.csv and the report
site keep every column.  A path longer than the terminal is the one thing that cannot fit.
"""

from __future__ import annotations

import fnmatch
import shutil
import textwrap
from collections.abc import Sequence
from typing import Any

from tabulate import tabulate

DEFAULT_WIDTH = 80  # when stdout is not a terminal and COLUMNS does not say
NARROWEST_WRAPPED_COLUMN = 12  # a last column wrapped narrower than this reads worse than a wide line


def output_width() -> int:
    """The terminal's columns: ``COLUMNS`` if set, else stdout's terminal, else 80."""
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def widest(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def fit_table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], width: int, drop_order: Sequence[str], style: str = "simple"
) -> str:
    """The table in ``width`` columns if it can be: empty columns dropped first, then the
    columns ``drop_order`` names (fnmatch patterns, least important first; the columns one
    pattern matches go from the right), then the last column wrapped if it is text."""
    keep = list(range(len(headers)))
    text = _table(headers, rows, keep, style)
    for column in _droppable(headers, rows, drop_order):
        if widest(text) <= width:
            return text
        keep.remove(column)
        text = _table(headers, rows, keep, style)
    if widest(text) > width and keep:
        text = _wrap_last(headers, rows, keep, style, width - widest(text)) or text
    return text


def _droppable(headers: Sequence[str], rows: Sequence[Sequence[Any]], drop_order: Sequence[str]) -> list[int]:
    empty = [k for k in range(len(headers)) if all(row[k] in ("", None) for row in rows)]
    named = [
        k for pattern in drop_order for k in reversed(range(len(headers))) if fnmatch.fnmatchcase(headers[k], pattern)
    ]
    return list(dict.fromkeys(empty + named))


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], keep: Sequence[int], style: str, **kw: Any) -> str:
    return str(
        tabulate(
            [[row[k] for k in keep] for row in rows],
            headers=[headers[k] for k in keep],
            tablefmt=style,
            disable_numparse=True,
            **kw,
        )
    )


def _wrap_last(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], keep: Sequence[int], style: str, excess: int
) -> str | None:
    """The table with its last column wrapped ``excess`` characters narrower (None: too narrow)."""
    last = keep[-1]
    current = max(len(str(headers[last])), *(len(str(row[last])) for row in rows))
    room = current + excess
    if room < NARROWEST_WRAPPED_COLUMN or not all(isinstance(row[last], str) for row in rows):
        return None
    return _table(headers, rows, keep, style, maxcolwidths=[None] * (len(keep) - 1) + [room])


def wrap(text: str, width: int | None) -> str:
    """Each line of ``text`` wrapped to ``width`` (None: as it is), the rest of a wrapped line
    indented by two spaces so it reads as one."""
    if width is None:
        return text
    return "\n".join(
        line
        if len(line) <= width
        else textwrap.fill(line, width, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)
        for line in text.split("\n")
    )
