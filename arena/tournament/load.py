"""Time losses the machine may have caused: the load average over the cores when they happen.

An engine's clock assumes a core to think on.  When the machine runs more processes than it
has cores (another job, more workers than cores), an engine gets a share of one and may lose
on time through no fault of its own.  The loss stands (the rules cannot know why a move came
late), but the run says so once, on stderr and in arena.log, with the numbers, and its
summary counts these time losses apart: ``timeouts 3 (2 under load 4.5 on 2 cores)``.

The load is the machine's one-minute load average (``os.getloadavg``), sampled as each time
loss arrives: it covers the minute the game was lost in.  A run on a cluster is not watched:
its games are played on other machines.  The source is injectable, so a test simulates load
without depending on the machine's.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from ..record import GameRecord, Termination

log = logging.getLogger("arena.load")

LoadSource = Callable[[], float]


def load_average() -> float:
    """The machine's one-minute load average: processes running or waiting for a core."""
    return os.getloadavg()[0]


def machine_cores() -> int:
    """The cores the load average is shared among: the machine's, as the load is the machine's."""
    return os.cpu_count() or 1


@dataclass
class LoadWatch:
    """Counts a run's time losses, and those lost while the load average exceeded the cores."""

    warn: Callable[[str], None] = lambda text: None  # the user's line (stderr, or above the live lines)
    source: LoadSource = load_average
    cores: int = field(default_factory=machine_cores)
    timeouts: int = 0
    highest: float = 0.0  # the highest load sampled
    loaded: dict[int, float] = field(default_factory=dict)  # game id -> the load when it was lost on time

    def note(self, record: GameRecord) -> None:
        """Count ``record`` if it was lost on time, sampling the load; the first such loss
        under load is said once."""
        if record.termination is not Termination.TIMEOUT:
            return
        self.timeouts += 1
        load = self.source()
        self.highest = max(self.highest, load)
        if load <= self.cores:
            return
        self.loaded[record.id or 0] = load
        if len(self.loaded) == 1:
            text = (
                f"arena: game {record.id} was lost on time while the machine was loaded (load average "
                f"{load:.1f} on {_cores(self.cores)}): engines get less CPU than their clocks assume. "
                f"The loss stands; fewer --workers or a quieter machine avoid it"
            )
            log.warning("%s", text.removeprefix("arena: "))
            self.warn(text)

    def summary_text(self) -> str | None:
        """``timeouts 3 in this run (2 under load 4.5 on 2 cores)...`` (None: no time loss in this run)."""
        if not self.timeouts:
            return None
        head = f"timeouts {self.timeouts} in this run"
        if not self.loaded:
            return f"{head} (none under load: load average at most {self.highest:.1f} on {_cores(self.cores)})"
        return f"{head} ({len(self.loaded)} under load {self.highest:.1f} on {_cores(self.cores)}); the losses stand"


def _cores(n: int) -> str:
    return f"{n} core{'s' if n != 1 else ''}"
