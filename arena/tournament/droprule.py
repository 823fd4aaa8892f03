"""The drop rule: an engine that fails ``max_failures`` times in a row is dropped.

The coordinator counts every finished game, in the order games finish
(:class:`FailureTracker`), and drops an engine at its ``max_failures``-th failure in a row.
Whenever a worker is about to start an engine it asks :meth:`FailureTracker.may_start`,
which answers once the coordinator has counted every result that reached it: an engine
starts unless it is dropped.  Its games in play on other workers are not held against it
(they may all end well), so ``workers = N`` plays N games at once whatever the field; the
price is that up to ``workers - 1`` games may start it between the failures that reach the
limit and the drop, and those games finish and count like any other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..record import GameRecord, Termination
from ..results.ratings import dropped_engines

DropGate = Callable[[str], bool]
"""``may_start(engine)``: whether the drop rule lets a worker start the engine now."""


class FailureTracker:
    """Consecutive failures per engine, in the order games finish, and the drop rule:
    an engine with ``max_failures`` (> 0) failures in a row is dropped.  A game the
    engine played through without any fault of its own resets its count.  Faults that
    count are the engine's failures to run or talk (:attr:`Termination.is_failure`); its
    time losses, illegal moves and resignations are results: they neither count nor reset."""

    def __init__(self, max_failures: dict[str, int]) -> None:
        self.max_failures = max_failures
        self.streak = dict.fromkeys(max_failures, 0)
        self.dropped: dict[str, str] = {}

    def update(self, record: GameRecord) -> list[str]:
        """Count one finished game; return the engines it gets dropped."""
        newly = []
        termination = record.termination
        for seat, name in enumerate(record.players or []):
            if termination is Termination.DROPPED or name in self.dropped:
                continue
            if record.forfeit_seat == seat:
                if termination is not None and termination.is_failure:
                    self.streak[name] += 1
            elif record.engine_seeds:  # the game was announced: this engine ran fine
                self.streak[name] = 0
            limit = self.max_failures[name]
            if limit and self.streak[name] >= limit:
                self.dropped[name] = (
                    f"{limit} consecutive failures, the last in game {record.id}: {termination}: {record.reason}"
                )
                newly.append(name)
        return newly

    @classmethod
    def resumed(cls, max_failures: dict[str, int], stored: Sequence[GameRecord]) -> FailureTracker:
        """The tracker as the stored games leave it (counted in game order), so a resumed
        run neither starts an engine an earlier run dropped nor forgets its failures."""
        tracker = cls(max_failures)
        for record in stored:
            tracker.update(record)
        for name, why in dropped_engines(stored).items():
            tracker.dropped.setdefault(name, why)
        return tracker

    def may_start(self, name: str) -> bool:
        """Whether a worker may start ``name`` now: yes unless it is dropped."""
        return name not in self.dropped
