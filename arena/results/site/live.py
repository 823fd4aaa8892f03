"""Keeping a run's report site fresh while its games finish.

The run hands every stored game to :meth:`LiveSite.add` (a game is stored before any page
is written of it); the site is rewritten at most every ``interval`` seconds (and never
more often than four times the last rewrite took), in a thread of its own, so that the
coordinator goes on storing games while the pages are written, and once more, complete,
by :meth:`LiveSite.finish`.  A refresh counts the games that finished since the last one
and writes the list and viewer page they are on; the pages of the others stay as they are
(SiteWriter).  While a run goes on, the pages reload themselves every few seconds.  A page
that cannot be written is logged, never fatal: the games are in the database, and
``arena report`` rewrites the site from it.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from ...record import GameRecord
from ..export import Summary
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
        self._refresh: threading.Thread | None = None  # the refresh being written, if any
        self.refresh_cpu_s = 0.0  # CPU the refresh threads spent

    def on_start(self, total: int, stored: Sequence[GameRecord], sprt: SprtTest | None) -> None:
        """The run starts from the games its folder holds."""
        self.data.records = list(stored)

    def add(self, record: GameRecord, finished: int, total: int) -> None:
        self.data.records.append(record)
        self.data.progress = (finished, total)
        if time.monotonic() >= self._due and not self.refreshing():
            # The thread writes what is known now; the games stored meanwhile are the next
            # refresh's.  One writer at a time: the SiteWriter's tallies are not shared.
            snapshot = dataclasses.replace(self.data, records=list(self.data.records))
            self._written = True
            self._refresh = threading.Thread(target=self._timed_write, args=(snapshot,), name="arena-site", daemon=True)
            self._refresh.start()

    def refreshing(self) -> bool:
        return self._refresh is not None and self._refresh.is_alive()

    def wait(self) -> None:
        """Until the refresh under way, if any, is written."""
        if self._refresh is not None:
            self._refresh.join()
            self._refresh = None

    def finish(self, summary: Summary) -> None:
        """The final site: the summary the run ends with, of every stored game."""
        self.wait()
        self.data.records = summary.records
        self.data.summary = summary
        self.data.progress = None
        self.writer.parallel = True  # the workers are gone
        self._write(self.data)

    def stopped(self) -> None:
        """The run stopped before its end (Ctrl-C, an error): if the pages said it was
        running, rewrite them as they stand, without the reload."""
        self.wait()
        if self._written:
            self.data.progress = None
            self._write(self.data)

    on_game = add
    on_end = finish
    on_stop = stopped

    def on_start_failure(self, engine: str, reason: str) -> None:
        """The games record it; the pages show them."""

    def on_drop(self, engine: str, why: str) -> None:
        """The games record it; the pages show them."""

    def _timed_write(self, data: SiteData) -> None:
        started, cpu = time.monotonic(), time.thread_time()
        self._write(data)
        self._due = time.monotonic() + max(self.interval, 4 * (time.monotonic() - started))
        self.refresh_cpu_s += time.thread_time() - cpu  # what `arena bench` counts as the site's

    def _write(self, data: SiteData) -> None:
        self._written = True
        try:
            self.writer.write(data)
        except Exception:  # a page is never worth a tournament
            log.exception("could not write the report site in %s; 'arena report' rewrites it", self.writer.folder)
