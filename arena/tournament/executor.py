"""What plays a run's games: one interface for the local worker pool and the Dask cluster.

The runner hands an executor the games still to play and stores what comes back; how
and where they are played (local.py: arena's own worker processes; cluster.py: Dask
tasks) is the executor's business.  A :class:`Venue` opens an executor for one run
(``arena run --cluster``); without one the run plays on local worker processes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol, runtime_checkable

from ..record import GameRecord
from .droprule import DropGate
from .pool import Lost
from .schedule import ScheduledGame
from .worker import WorkerConfig, WorkerError

# What an executor yields for a game: its record, the internal error that stopped it, or
# Lost (its worker died or hung), the same from local worker processes as from a cluster.
Outcome = GameRecord | WorkerError | Lost[ScheduledGame]


class GameExecutor(Protocol):
    def imap_unordered(self, games: Iterable[ScheduledGame]) -> Iterator[Outcome]:
        """Each game's record (or :class:`Lost`) in the order the games finish."""
        ...

    def drop(self, name: str) -> None:
        """Games started from now on forfeit ``name`` without starting it (max_failures)."""
        ...

    def cancel_queued(self) -> None:
        """Start no more games; those already running still finish and are yielded."""
        ...

    def close(self) -> None:
        """The run is over: quit the engines and let the workers go."""
        ...

    def terminate(self) -> None:
        """Stop at once (Ctrl-C, SIGTERM, an error): the workers kill their engines."""
        ...


@runtime_checkable
class BatchingExecutor(Protocol):
    """An executor whose games arrive in batches (a cluster task's), which the runner then
    stores in one commit."""

    def imap_batches(self, games: Iterable[ScheduledGame]) -> Iterator[Sequence[Outcome]]:
        """As :meth:`GameExecutor.imap_unordered`, the outcomes that arrive together in one list."""
        ...


class Venue(Protocol):
    """Where a run's games are played, when not on local worker processes."""

    def open(self, config: WorkerConfig, may_start: DropGate) -> GameExecutor:
        """The executor of one run; ``may_start`` is the drop rule's gate for engines."""
        ...
