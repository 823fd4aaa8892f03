"""``arena run --serve``: the server started beside the run, in its process, as an observer
of the run: it starts once the run's folder holds its store (``on_start``), prints its
link, and stops with the run."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ..record import GameRecord
from ..results.export import Summary
from ..results.sprt import SprtTest
from .server import LOOPBACK, Serving, prepare, start_beside


class ServeBeside:
    """A :class:`~arena.tournament.observers.RunObserver` that serves the run's folder."""

    def __init__(self, folder: Path, echo: Callable[[str], None], host: str = LOOPBACK, port: int = 0) -> None:
        self.folder, self.echo, self.host, self.port = folder, echo, host, port
        self.serving: Serving | None = None

    def on_start(self, total: int, stored: Sequence[GameRecord], sprt: SprtTest | None) -> None:
        self.serving = start_beside(prepare([self.folder], self.host, self.port))
        self.echo(f"watch the games at {self.serving.url} (the server stops with the run)")

    def on_game(self, record: GameRecord, finished: int, total: int) -> None:
        """The feed sees the store change."""

    def on_start_failure(self, engine: str, reason: str) -> None:
        """The games record it."""

    def on_drop(self, engine: str, why: str) -> None:
        """The games record it."""

    def on_end(self, summary: Summary) -> None:
        self.stop()

    def on_stop(self) -> None:
        self.stop()

    def stop(self) -> None:
        if self.serving is not None:
            self.serving.stop()
            self.serving = None
