"""Keeping a run's report site fresh while its games finish.

The run hands every stored game to :meth:`LiveSite.add`; the site is rewritten at
most every ``interval`` seconds (and never more often than four times the last
rewrite took, so a big tournament does not spend its coordinator on pages), and once
more, complete, by :meth:`LiveSite.finish`.  While a run goes on, the pages reload
themselves every few seconds.  A page that cannot be written is logged, never fatal:
the games are in the database, and ``arena report`` rewrites the site from it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...record import GameRecord
from ..sprt import SprtTest
from . import SiteData, SiteWriter

log = logging.getLogger("arena.site")

INTERVAL_S = 5.0


class LiveSite:
    """The site of a run as its games finish: an observer of the run (``on_start``,
    ``on_game``, ``on_end``, ``on_stop``) that the command line attaches to it.  ``data``
    says what is known of the tournament; the games come from the run."""

    def __init__(self, folder: Path, data: SiteData, interval: float = INTERVAL_S) -> None:
        self.writer = SiteWriter(folder, parallel=False)  # never fork beside the run's workers
        self.data = data
        self.interval = interval
        self._due = time.monotonic() + interval
        self._written = False

    def on_start(self, total: int, stored: Sequence[GameRecord], sprt: SprtTest | None) -> None:
        """The run starts from the games its folder holds."""
        self.data.records = list(stored)

    def add(self, record: GameRecord, finished: int, total: int) -> None:
        self.data.records.append(record)
        self.data.progress = (finished, total)
        if time.monotonic() >= self._due:
            started = time.monotonic()
            self._write()
            spent = time.monotonic() - started
            self._due = time.monotonic() + max(self.interval, 4 * spent)

    def finish(self, records: list[GameRecord], results: dict[str, Any]) -> None:
        """The final site: every stored game and the results the run wrote."""
        self.data.records = records
        self.data.results = results
        self.data.progress = None
        self.writer.parallel = True  # the workers are gone
        self._write()

    def stopped(self) -> None:
        """The run stopped before its end (Ctrl-C, an error): if the pages said it was
        running, rewrite them as they stand, without the reload."""
        if self._written:
            self.data.progress = None
            self._write()

    on_game = add
    on_end = finish
    on_stop = stopped

    def on_start_failure(self, engine: str, reason: str) -> None:
        """The games record it; the pages show them."""

    def on_drop(self, engine: str, why: str) -> None:
        """The games record it; the pages show them."""

    def _write(self) -> None:
        self._written = True
        try:
            self.writer.write(self.data)
        except Exception:  # a page is never worth a tournament
            log.exception("could not write the report site in %s; 'arena report' rewrites it", self.writer.folder)
