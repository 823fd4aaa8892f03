"""The live feed of one results folder: its games in progress and its standings, as
Server-Sent Events to every page that watches.

While at least one page is connected, one poller per folder marks the folder watched
(``live/watching``, which tells the run's workers to write their games: livegames.py) and
looks at the game files every :data:`POLL_S`.  It reads each file from where it stopped and
replays only the moves it gained (boards.Replay, the referee's frames as the report's game
pages draw them), so a look costs the new moves, however long the games.  A page that comes
is sent each game whole (``game``); then every page gets each look's new moves of a game
(``moves``: the moves, their frames and times, the clocks and the engines' last ``info``
lines), the same text for all.  A game whose file went is over (``over``), and the standings,
rendered by the report site's own table, are sent again once the store changed.  With no
page connected the poller stops, the mark goes stale and the run writes nothing.  Every text
an engine wrote travels as JSON strings that the page sets with ``textContent``; the
standings are autoescaped HTML.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TypedDict

import anyio.to_thread

from ..results import strictjson
from ..results.export import summarize_folder
from ..results.site import boards, pages, template_environment
from ..tournament.livegames import (
    MARK_S,
    LiveHead,
    LiveMove,
    LiveReader,
    live_folder,
    read_live_games,
    touch_watching,
)

log = logging.getLogger("arena.serve")

POLL_S = 0.2  # how often the game files are looked at while someone watches
KEEPALIVE_S = 15.0  # a comment line this often, so proxies and browsers keep the stream open
BACKLOG = 256  # looks a slow page may fall behind by, and events a page that reconnects may have missed
# The standings are read from the whole store: at most this often, and never more often than
# four times their last reading took, so a run of quick games is not slowed by its watchers.
STANDINGS_S = 2.0

STANDINGS = """{% from "macros.html" import table %}{{ table("Standings, ranked by the Bradley-Terry Elo",
tables.headers, tables.rows, (1,), "standings") }}"""


def event(kind: str, value: Any, ident: str = "") -> str:
    """One Server-Sent Event: strict JSON on one ``data`` line (JSON escapes every newline),
    with its ``id`` if given (what the browser sends back as ``Last-Event-ID`` on reconnecting)."""
    head = f"id: {ident}\n" if ident else ""
    return f"{head}event: {kind}\ndata: {strictjson.dumps(value, separators=(',', ':'))}\n\n"


Frames = list[boards.ShortFrame | boards.Frame]


class GameNow(TypedDict):
    """What a move may change, sent with every ``game`` and ``moves`` event."""

    colours: list[str]  # the seats' colours as the game names them now
    clocks: list[int] | None
    to_move: int | None
    said: list[str]  # each seat's last info line
    age_ms: int  # how long the clock of to_move has run
    played_at: float  # when the worker wrote the last move (Unix time): its delay to the page


# A ``moves`` event's own keys: ``from`` is how many moves a page must hold to add these.
_Moves = TypedDict("_Moves", {"id": int, "from": int, "moves": list[str], "frames": Frames, "times": list[int]})


class GameMoves(_Moves, GameNow):
    """A ``moves`` event: the moves a game's file gained since the last look."""


class GameWhole(GameNow):
    """A ``game`` event: the game so far, what a page that just came draws."""

    id: int
    round: int
    players: list[str]
    board: str
    cells: int
    frames: Frames
    moves: list[str]
    opening: int
    times: list[int]


class LiveGame:
    """One game in progress as the feed follows it: its file read as it grows, each move
    replayed once (boards.Replay), and what a page is sent of it: the whole game when it
    connects (:meth:`whole`), then each look's new moves (:meth:`news`)."""

    def __init__(self, reader: LiveReader, head: LiveHead) -> None:
        self.reader, self.head = reader, head
        self.replay = boards.Replay(head["game"], head["options"], head["players"], head["seed"])
        # The deal stays here: only the replay sees it.
        self.replay.start(head["setup"], head["deal"], head.get("opening_setup"))
        self.frames: Frames = [self.replay.first]
        for move in head["opening"]:
            self.frames.append(self.replay.play(move))
        self.moves: list[str] = list(head["opening"])
        self.times: list[int] = []
        self.said = [""] * len(head["players"])
        self.last: LiveMove | None = None
        self.taken = 0  # the reader's moves replayed so far
        self._end_if_over()

    def news(self) -> GameMoves | None:
        """The moves the file gained since the last look, as a ``moves`` event's value (None:
        none): ``from`` is how many moves a page must hold already to add them."""
        new = self.reader.moves[self.taken :]
        if not new:
            return None
        self.taken = len(self.reader.moves)
        known = len(self.moves)
        frames = [self.replay.play(move["move"]) for move in new]
        self.frames += frames
        for move in new:
            self.moves.append(move["move"])
            self.times.append(move["ms"])
            if move["said"] is not None:
                self.said[move["seat"]] = move["said"]
        self.last = new[-1]
        self._end_if_over()
        return {
            "id": self.head["id"],
            "from": known,
            "moves": [move["move"] for move in new],
            "frames": self.frames[known + 1 :],
            "times": [move["ms"] for move in new],
            **self._now(),
        }

    def whole(self) -> GameWhole:
        """The game so far, as a ``game`` event's value: what a page that just came draws."""
        head = self.head
        return {
            "id": head["id"],
            "round": head["round"],
            "players": head["players"],
            "board": self.replay.board,
            "cells": len(self.replay.before),
            "frames": self.frames,
            "moves": self.moves,
            "opening": len(head["opening"]),
            "times": self.times,
            **self._now(),
        }

    def _now(self) -> GameNow:
        """What a move may change: the clocks, the seat to move, the info lines, the seats'
        colours (as the game names them now)."""
        last = self.last
        at = last["at"] if last else self.head["at"]
        return {
            "colours": self.replay.state.seat_colours(),
            "clocks": last["clocks"] if last else None,
            "to_move": last["to_move"] if last else self.head["to_move"],
            "said": self.said,
            "age_ms": max(0, round((time.time() - at) * 1000)),  # the clock of to_move ran that long
            "played_at": at,  # when the worker wrote it (Unix time): a move's delay to the page
        }

    def _end_if_over(self) -> None:
        """The game's last frame shows what its end reveals, once the rules ended it."""
        if self.replay.over:
            self.frames[-1] = boards.last_frame(self.frames[-1], self.replay.ending())


class LiveFeed:
    """The games in progress of ``folder`` and its standings, for every page connected.

    Every event has an id, ``EPOCH.N``: a page that reconnects (its browser sends the last id it
    had) is sent what it missed, if the feed still holds it (the last :data:`BACKLOG` events),
    else everything afresh, as a page that just came."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.live = live_folder(folder)
        self.pages: set[asyncio.Queue[str]] = set()
        self.games: dict[int, LiveGame] = {}  # each game in progress, as far as it was read
        self.seen: dict[int, float] = {}  # each game's file time when it was last read
        self.geometry: dict[str, boards.Geometry] = {}  # each board drawn so far, by key
        self.standings: dict[str, str] | None = None  # the last standings sent
        self.store_mark: tuple[int, ...] | None = None
        self.standings_due = 0.0
        self.poller: asyncio.Task[None] | None = None
        self.env = template_environment()
        self.epoch = secrets.token_hex(4)  # another server's ids (a restart's) never match
        self.count = 0  # events sent
        self.sent: deque[tuple[int, str]] = deque(maxlen=BACKLOG)  # the last ones, for a page that reconnects
        self.held: list[str] = []  # this look's, not yet delivered

    @property
    def watchers(self) -> int:
        return len(self.pages)

    async def stream(self, last_id: str | None = None) -> AsyncIterator[str]:
        """One page's events, from what is known now on, until the page goes; ``last_id``:
        the last event it had (a reconnection)."""
        queue: asyncio.Queue[str] = asyncio.Queue(BACKLOG)
        missed = self.missed(last_id)
        for text in self.afresh() if missed is None else missed:
            queue.put_nowait(text)
        self.pages.add(queue)
        if self.poller is None or self.poller.done():
            self.poller = asyncio.create_task(self._poll())
        try:
            while queue in self.pages or not queue.empty():
                try:
                    yield await asyncio.wait_for(queue.get(), KEEPALIVE_S)
                except TimeoutError:
                    yield ": still here\n\n"
        finally:
            self.pages.discard(queue)

    def missed(self, last_id: str | None) -> list[str] | None:
        """The events after ``last_id``, or None if the feed no longer holds them all."""
        epoch, _, number = (last_id or "").partition(".")
        if epoch != self.epoch or not (number.isascii() and number.isdigit()):
            return None
        after = int(number)
        if after > self.count or (after < self.count and (not self.sent or self.sent[0][0] > after + 1)):
            return None
        return [text for n, text in self.sent if n > after]

    def afresh(self) -> list[str]:
        """Everything a page that just came needs: which games are on (a page that reconnects
        drops the others), the standings, each game whole."""
        ident = f"{self.epoch}.{self.count}"  # no new event: a reconnection after these misses nothing
        texts = [event("games", {"ids": list(self.games)}, ident)]
        if self.standings is not None:
            texts.append(event("standings", self.standings, ident))
        texts += [event("game", game.whole(), ident) for game in self.games.values()]
        return texts

    def _send(self, kind: str, value: Any) -> None:
        """An event for every page, held until the look is over (:meth:`_deliver`)."""
        self.count += 1
        text = event(kind, value, f"{self.epoch}.{self.count}")
        self.sent.append((self.count, text))
        self.held.append(text)

    def _deliver(self) -> None:
        """A look's events to every page as one piece: a look of a quick run has a game that
        ended, one that began, news; one write a page instead of one an event."""
        if not self.held:
            return
        text, self.held = "".join(self.held), []
        for queue in list(self.pages):
            try:
                queue.put_nowait(text)
            except asyncio.QueueFull:  # a page that does not read: its stream ends, and the browser
                self.pages.discard(queue)  # reconnects and is sent what it missed, or everything

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
            self._send("over", {"id": game_id})
        for game_id in [g for g in self.seen if g not in files]:
            del self.seen[game_id]
        for game_id, (mtime, path) in files.items():
            if self.seen.get(game_id) != mtime:
                self.seen[game_id] = mtime
                self._follow(game_id, path)
        self._deliver()
        mark = self._store_mark()
        if mark != self.store_mark and time.monotonic() >= self.standings_due:
            self.store_mark = mark
            started = time.monotonic()
            standings = await anyio.to_thread.run_sync(self.render_standings)
            self.standings_due = time.monotonic() + max(STANDINGS_S, 4 * (time.monotonic() - started))
            if standings is not None:
                self.standings = {"html": standings}
                self._send("standings", self.standings)
                self._deliver()

    def _follow(self, game_id: int, path: Path) -> None:
        """What a game's file gained, sent: its new moves, or the whole game if it is new
        (or its file was made again)."""
        known = self.games.get(game_id)
        reader = known.reader if known is not None else LiveReader(path)
        try:
            if not reader.update() or reader.head is None:
                return
            if known is None or reader.head is not known.head:
                game = self.games[game_id] = LiveGame(reader, reader.head)
                game.news()
                self._draws(game.replay)
                self._send("game", game.whole())
            elif (news := known.news()) is not None:
                self._send("moves", news)
        except FileNotFoundError:
            return  # it ended as it was read
        except Exception as exc:  # a damaged file, an older arena's: not shown
            self.games.pop(game_id, None)
            log.warning("cannot show the live game %s (%s)", path.name, exc)

    def _draws(self, replay: boards.Replay) -> None:
        """Its board's geometry, asked by the page (``geometry/KEY``), made once per board."""
        if replay.board not in self.geometry:
            self.geometry[replay.board] = boards.board_geometry(replay.game)

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

    def render_standings(self) -> str | None:
        """The folder's standings as the report's table, or None before it holds a game."""
        try:
            summary = summarize_folder(self.folder)
        except Exception:  # no game yet, or a store being created: the next change tells
            return None
        tables = pages.summary_tables(summary)
        return self.env.from_string(STANDINGS).render(tables=tables)
