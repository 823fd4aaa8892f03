"""The live feed of one results folder: its games in progress and its standings, as
Server-Sent Events to every page that watches.

While at least one page is connected, one poller per folder marks the folder watched
(``live/watching``, which tells the run's workers to write their games: livegames.py),
looks at the game files every :data:`POLL_S`, and sends each game whose file changed to
every page: its board's frames replayed by the referee (boards.replay, as the report's
game pages), moves, times, clocks and the engines' last ``info`` lines.  A game whose file
went is over: the pages are told, and the standings, rendered by the report site's own
table, are sent again once the store changed.  With no page connected the poller stops, the
mark goes stale and the run writes nothing.  Every text an engine wrote travels as JSON
strings that the page sets with ``textContent``; the standings are autoescaped HTML.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio.to_thread

from ..record import GameRecord
from ..results import strictjson
from ..results.export import summarize_folder
from ..results.site import boards, pages, template_environment
from ..rules import make_game
from ..tournament.livegames import LiveHead, LiveMove, LiveReader, live_folder, read_live_games, touch_watching

log = logging.getLogger("arena.serve")

POLL_S = 0.2  # how often the game files are looked at while someone watches
MARK_S = 1.0  # how often the watching mark is renewed (livegames.FRESH_S is its lifetime)
KEEPALIVE_S = 15.0  # a comment line this often, so proxies and browsers keep the stream open
BACKLOG = 256  # events a slow page may fall behind by before it is sent the games afresh
# The standings are read from the whole store: at most this often, and never more often than
# four times their last reading took, so a run of quick games is not slowed by its watchers.
STANDINGS_S = 2.0

STANDINGS = """{% from "macros.html" import table %}{{ table("Standings, ranked by the Bradley-Terry Elo",
tables.headers, tables.rows, (1,), "standings") }}"""


def event(kind: str, value: Any) -> str:
    """One Server-Sent Event: strict JSON on one ``data`` line (JSON escapes every newline)."""
    return f"event: {kind}\ndata: {strictjson.dumps(value, separators=(',', ':'))}\n\n"


class LiveFeed:
    """The games in progress of ``folder`` and its standings, for every page connected."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.live = live_folder(folder)
        self.pages: set[asyncio.Queue[str]] = set()
        self.games: dict[int, str] = {}  # each game in progress: its last event
        self.seen: dict[int, float] = {}  # each game's file time when it was last read
        self.readers: dict[int, LiveReader] = {}  # each game's file, as far as it was read
        self.geometry: dict[str, boards.Geometry] = {}  # each board drawn so far, by key
        self.standings = ""  # the last standings event
        self.store_mark: tuple[int, ...] | None = None
        self.standings_due = 0.0
        self.poller: asyncio.Task[None] | None = None
        self.env = template_environment()

    @property
    def watchers(self) -> int:
        return len(self.pages)

    async def stream(self) -> AsyncIterator[str]:
        """One page's events, from what is known now on, until the page goes."""
        queue: asyncio.Queue[str] = asyncio.Queue(BACKLOG)
        for text in [self.standings, *self.games.values()]:
            if text:
                queue.put_nowait(text)
        self.pages.add(queue)
        if self.poller is None or self.poller.done():
            self.poller = asyncio.create_task(self._poll())
        try:
            while True:
                try:
                    yield await asyncio.wait_for(queue.get(), KEEPALIVE_S)
                except TimeoutError:
                    yield ": still here\n\n"
        finally:
            self.pages.discard(queue)

    def _send(self, text: str) -> None:
        for queue in list(self.pages):
            try:
                queue.put_nowait(text)
            except asyncio.QueueFull:  # a page that does not read: it reconnects and starts afresh
                self.pages.discard(queue)

    async def _poll(self) -> None:
        marked = 0.0
        try:
            while self.pages:
                now = time.monotonic()
                if now - marked >= MARK_S:
                    marked = now
                    await anyio.to_thread.run_sync(touch_watching, self.live)
                await self._look()
                await asyncio.sleep(POLL_S)
        except Exception:  # a broken folder is never worth the server: the pages stop updating
            log.exception("the live feed of %s stopped", self.folder)

    async def _look(self) -> None:
        files = read_live_games(self.live)
        for game_id in [g for g in self.games if g not in files]:
            del self.games[game_id]
            self._send(event("over", {"id": game_id}))
        for game_id in [g for g in self.readers if g not in files]:
            del self.readers[game_id]
            self.seen.pop(game_id, None)
        for game_id, (mtime, path) in files.items():
            if self.seen.get(game_id) == mtime:
                continue
            self.seen[game_id] = mtime
            reader = self.readers.setdefault(game_id, LiveReader(path))
            shown = self._game_event(reader)
            if shown is not None:
                self.games[game_id] = shown
                self._send(shown)
        mark = self._store_mark()
        if mark != self.store_mark and time.monotonic() >= self.standings_due:
            self.store_mark = mark
            started = time.monotonic()
            standings = await anyio.to_thread.run_sync(self.render_standings)
            self.standings_due = time.monotonic() + max(STANDINGS_S, 4 * (time.monotonic() - started))
            if standings is not None:
                self.standings = event("standings", {"html": standings})
                self._send(self.standings)

    def _store_mark(self) -> tuple[int, ...]:
        """Changes whenever a game is stored: the database's and its write-ahead log's size and time."""
        mark: list[int] = []
        for name in ("arena.db", "arena.db-wal"):
            try:
                found = (self.folder / name).stat()
                mark += [found.st_size, found.st_mtime_ns]
            except OSError:
                mark += [0, 0]
        return tuple(mark)

    def _game_event(self, reader: LiveReader) -> str | None:
        try:
            if not reader.update() or reader.head is None:
                return None
            return event("game", self.shown_game(reader.head, reader.moves))
        except FileNotFoundError:
            return None  # it ended as it was read
        except Exception as exc:  # a damaged file, an older arena's: not shown
            log.warning("cannot show the live game %s (%s)", reader.path.name, exc)
            return None

    def shown_game(self, head: LiveHead, moves: list[LiveMove]) -> dict[str, Any]:
        """A live game as a page draws it: the referee's frames (without the deal, which
        only the replay sees), the board's key, the moves, and the clocks as they stand now."""
        record = GameRecord(
            game=head["game"],
            options=dict(head["options"]),
            setup=head["setup"],
            seed=head["seed"],
            deal=head["deal"],
            players=head["players"],
            moves=[*head["opening"], *(m["move"] for m in moves)],
            termination=None,  # not over yet
        )
        replayed = boards.replay(record)
        if replayed.board not in self.geometry:
            self.geometry[replayed.board] = boards.board_geometry(make_game(head["game"], head["options"]))
        said = [""] * len(head["players"])
        for move in moves:
            if move["said"] is not None:
                said[move["seat"]] = move["said"]
        last = moves[-1] if moves else None
        at = last["at"] if last else head["at"]
        return {
            "id": head["id"],
            "round": head["round"],
            "players": head["players"],
            "colours": replayed.colours,
            "board": replayed.board,
            "cells": replayed.cells,
            "frames": replayed.frames,
            "moves": record.moves,
            "opening": len(head["opening"]),
            "times": [m["ms"] for m in moves],
            "clocks": last["clocks"] if last else None,
            "to_move": last["to_move"] if last else head["to_move"],
            "said": said,
            "age_ms": max(0, round((time.time() - at) * 1000)),  # the clock of to_move ran that long
            "played_at": at,  # when the worker wrote it (Unix time): a move's delay to the page
        }

    def render_standings(self) -> str | None:
        """The folder's standings as the report's table, or None before it holds a game."""
        try:
            summary = summarize_folder(self.folder)
        except Exception:  # no game yet, or a store being created: the next change tells
            return None
        tables = pages.summary_tables(summary)
        return self.env.from_string(STANDINGS).render(tables=tables)
