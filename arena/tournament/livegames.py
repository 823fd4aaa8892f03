"""The games in progress, for whoever watches them (``arena serve``): a file per game.

A run's workers cannot reach a web server, and a server started later by another process
cannot reach the run; both can reach the results folder.  So while someone watches, the
worker that plays a game keeps ``live/<id>.json`` in the folder up to date: the whole game
so far (its set-up, moves, times, clocks and each seat's last ``info`` line), rewritten
whole after every move under a temporary name and renamed, and removed when the game ends.
Whether someone watches is a file too: a server with a viewer connected touches
``live/watching`` every second (:func:`touch_watching`); a worker looks at its time at
most every :data:`CHECK_S`.  With nobody watching no file is written and nothing reaches the
coordinator: a move costs the worker one clock read.  A file that cannot be written (a full
disk, a cluster's worker on another machine) costs the viewers the game, never the game.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

from protocol import codec

from ..engine.player import Reply
from ..rules import State

log = logging.getLogger("arena.runner")

LIVE = "live"  # the folder's sub-folder of games in progress
WATCHING = "watching"  # its file whose time says a viewer is connected
FRESH_S = 3.0  # a mark older than this: the viewers left (or their server died)
CHECK_S = 0.5  # how often a worker looks at the mark
SAID_KEEP = 200  # characters of an engine's info line shown


class LiveGame(TypedDict):
    """``live/<id>.json``: a game in progress as a watcher is shown it (the deal stays with the server)."""

    id: int
    round: int
    game: str
    options: dict[str, object]
    setup: str | None
    seed: int
    deal: int
    players: list[str]
    opening: int  # the first moves were a book's, untimed
    moves: list[str]
    times_ms: list[int]
    clocks_ms: list[int] | None  # every seat's time left after the last move
    to_move: int | None  # the seat thinking now; None once the game is over
    said: list[str]  # each seat's last info line
    at: float  # when it was written (Unix time): the clock of ``to_move`` runs from it


def live_folder(folder: Path) -> Path:
    return folder / LIVE


def touch_watching(live: Path) -> None:
    """Tell the run that someone watches (again, every second while they do)."""
    live.mkdir(parents=True, exist_ok=True)
    (live / WATCHING).touch()


class WatchMark:
    """Whether someone watches the games of ``live`` now, looked at every CHECK_S at most."""

    def __init__(self, live: Path) -> None:
        self.mark = live / WATCHING
        self.due = 0.0
        self.watched = False

    def __call__(self) -> bool:
        now = time.monotonic()
        if now >= self.due:
            self.due = now + CHECK_S
            try:
                self.watched = time.time() - self.mark.stat().st_mtime < FRESH_S
            except OSError:
                self.watched = False
        return self.watched


class LiveWriter:
    """A :class:`~arena.match.Watcher` of one game: its file, kept while someone watches."""

    def __init__(self, live: Path, watched: WatchMark, game_id: int, round_: int, players: Sequence[str]) -> None:
        self.path = live / f"{game_id}.json"
        self.watched = watched
        self.header = {"id": game_id, "round": round_, "players": list(players)}
        self.body: dict[str, object] = {}
        self.times: list[int] = []
        self.said = [""] * len(players)
        self.opening = 0
        self.clocks: list[int] | None = None
        self.written = False
        self.broken = False

    def begin(self, state: State, seed: int, deal: int) -> None:
        game = state.game
        self.opening = len(state.moves)
        self.body = {"game": game.name, "options": game.options.model_dump(), "setup": state.setup_token()}
        self.body |= {"seed": seed, "deal": deal}
        self._show(state)

    def moved(self, state: State, seat: int, reply: Reply, clocks_ms: Sequence[int] | None) -> None:
        self.times.append(round(reply.elapsed * 1000))
        if reply.said is not None:
            self.said[seat] = codec.sanitize(reply.said, SAID_KEEP)
        self.clocks = None if clocks_ms is None else [max(c, 0) for c in clocks_ms]
        self._show(state)

    def _show(self, state: State) -> None:
        if self.broken or not self.watched():
            return
        over = state.is_terminal()
        document = {
            **self.header,
            **self.body,
            "opening": self.opening,
            "moves": list(state.moves),
            "times_ms": self.times,
            "clocks_ms": self.clocks,
            "to_move": None if over else state.current_player(),
            "said": self.said,
            "at": time.time(),
        }
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        try:
            tmp.write_text(json.dumps(document, separators=(",", ":")), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:
            self.broken = True  # the viewers lose this game; the game goes on
            log.warning("cannot show game %s live (%s)", self.header["id"], exc)
            return
        self.written = True

    def end(self) -> None:
        """The game is over (stored, forfeited or failed): its file goes."""
        if self.written:
            try:
                self.path.unlink(missing_ok=True)
            except OSError:
                pass


def clear_live(live: Path) -> None:
    """Forget the games in progress a run left (a killed worker's, a stopped run's): at a
    run's start and end, when none of its games is being played."""
    for path in read_live_games(live).values():
        try:
            path[1].unlink(missing_ok=True)
        except OSError:
            pass


def read_live_games(live: Path) -> dict[int, tuple[float, Path]]:
    """The game files of ``live`` now: each game's id, its file's time and path."""
    found: dict[int, tuple[float, Path]] = {}
    try:
        entries = list(os.scandir(live))
    except OSError:
        return found
    for entry in entries:
        stem, dot, ext = entry.name.partition(".")
        if ext == "json" and dot and stem.isdigit():
            try:
                found[int(stem)] = (entry.stat().st_mtime, Path(entry.path))
            except OSError:
                continue  # it ended between the listing and the look
    return found
