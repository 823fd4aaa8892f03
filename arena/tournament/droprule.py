"""The drop rule: an engine that fails ``max_failures`` times in a row is dropped.

The coordinator counts every finished game (:class:`FailureTracker`) and decides,
whenever a worker is about to start an engine (or the cluster to submit a game),
whether it may: :meth:`FailureTracker.may_start` answers with a :class:`StartDecision`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum

from ..record import GameRecord, Termination
from ..results.export import dropped_engines
from .schedule import ScheduledGame


class StartDecision(Enum):
    """May a worker start an engine now?"""

    START = "start"  # yes
    WAIT = "wait"  # not yet: games in play could still reach its limit; ask again after the next result
    REFUSE = "refuse"  # never: the engine is dropped


DropGate = Callable[[str, Sequence[ScheduledGame]], StartDecision]
"""``may_start(engine, games in play)``: the drop rule's answer for one engine."""


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

    def may_start(self, name: str, running: Sequence[ScheduledGame]) -> StartDecision:
        """Whether a worker may start ``name`` for a game, given the other games in
        play: each of those could still fail, so the engine starts only while even all of
        them failing would leave it below its limit; otherwise the worker waits for them.
        So an engine never starts after reaching its limit, whatever the workers."""
        if name in self.dropped:
            return StartDecision.REFUSE
        limit = self.max_failures.get(name, 0)
        if not limit:  # never dropped: no need to count its games in play (a cluster has thousands)
            return StartDecision.START
        in_play = sum(name in game.seats for game in running)
        return StartDecision.START if self.streak[name] + in_play < limit else StartDecision.WAIT
