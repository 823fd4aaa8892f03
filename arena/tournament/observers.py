"""Who watches a run: the live progress lines, the live report site, a benchmark's clock.

The runner tells every observer attached to a run (``run_tournament(observers=...)``)
what happens, in this order: :meth:`RunObserver.on_start` once, :meth:`~RunObserver.on_game`
for every game stored, then :meth:`~RunObserver.on_end` after the run wrote its results,
or :meth:`~RunObserver.on_stop` when it stopped before its end (Ctrl-C, SIGTERM, an error).
Between the start and the end, :meth:`~RunObserver.on_start_failure` and
:meth:`~RunObserver.on_drop` tell of an engine in trouble as it happens.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # names for the annotations only: importing this module loads none of them
    # The report site and the summary bring jinja2, numpy and scipy (the Elo fit): the commands
    # that only derive from QuietObserver (through tournament.commandline: `arena play`,
    # `arena check-engine`) would load them for nothing.  live_site imports them when called.
    from ..record import GameRecord
    from ..results.export import Summary
    from ..results.site.live import LiveSite
    from ..results.sprt import SprtTest
    from .config import Tournament


class RunObserver(Protocol):
    def on_start(self, total: int, stored: Sequence[GameRecord], sprt: SprtTest | None) -> None:
        """Before the first game: the schedule's size, the games already stored, the SPRT."""
        ...

    def on_game(self, record: GameRecord, finished: int, total: int) -> None:
        """A game was stored; ``finished`` of ``total`` are now."""
        ...

    def on_start_failure(self, engine: str, reason: str) -> None:
        """``engine`` could not start or answer in the start-up check before the first game,
        and forfeits were chosen (``forfeit_failed_engines``): the run goes on and its games
        record the fault (without that choice the run stops there instead)."""
        ...

    def on_drop(self, engine: str, why: str) -> None:
        """``engine`` was dropped (``max_failures``): its remaining games are lost unstarted."""
        ...

    def on_end(self, summary: Summary) -> None:
        """The run is over: its summary, of every stored game, as results.json and the terminal show it."""
        ...

    def on_stop(self) -> None:
        """The run stopped before its end; the games stored so far are kept."""
        ...


class QuietObserver:
    """A :class:`RunObserver` that hears nothing: an observer that needs only some of the events
    derives from it and defines those."""

    def on_start(self, total: int, stored: Sequence[GameRecord], sprt: SprtTest | None) -> None:
        pass

    def on_game(self, record: GameRecord, finished: int, total: int) -> None:
        pass

    def on_start_failure(self, engine: str, reason: str) -> None:
        pass

    def on_drop(self, engine: str, why: str) -> None:
        pass

    def on_end(self, summary: Summary) -> None:
        pass

    def on_stop(self) -> None:
        pass


def live_site(folder: Path, t: Tournament, interval: float | None = None) -> LiveSite:
    """The report site of a run of ``t``, kept fresh in ``folder`` while it plays (its pages
    refreshed every ``interval`` seconds, by default the live site's ``INTERVAL_S``)."""
    from ..results.site import SiteData
    from ..results.site.live import INTERVAL_S, LiveSite
    from .settings import tournament_settings

    data = SiteData(
        f"arena · {t.name}",
        t.data.game,
        t.game.options.model_dump(),
        [e.name for e in t.engines],
        [],
        tournament_settings(t),
    )
    return LiveSite(folder, data, INTERVAL_S if interval is None else interval)
