"""The game executor of a local run: arena's worker pool (pool.py) running Workers.

The drop rule is shared with the workers: a flag per engine they read before a game,
and the coordinator's answer (``may_start``) before they start an engine.  A worker that
keeps only some engines (``idle_engines``) is handed games of the engines it runs where it
can (the pool's affinity), so a large field does not restart engines for every game.  A watchdog
kills a worker that does not report a move within the move's limit and a grace
(``MOVE_GRACE``: the workers report each move as it is played), or whose game outlasts
the longest it can take (the backstop).
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Iterable, Iterator

from ..engine import proctree
from ..engine.conversation import HANDSHAKE_TIMEOUT
from ..match import longest_game_s
from ..rules import make_game
from .droprule import DropGate
from .executor import Outcome
from .pool import WorkerPool
from .schedule import ScheduledGame
from .worker import WorkerConfig, init_worker, play_in_worker

log = logging.getLogger("arena.runner")

WATCHDOG_GRACE = 30.0  # seconds past a game's longest possible duration before its worker counts as hung
# Seconds past a step's own limit (a move's, an engine's start-up) before a worker that has
# not reported counts as hung: a busy machine's scheduling delays, never an engine's time.
MOVE_GRACE: float | None = 3.0


class LocalGames:
    """A :class:`~arena.tournament.executor.GameExecutor` on local worker processes."""

    def __init__(self, config: WorkerConfig, size: int, lock_fd: int | None, may_start: DropGate) -> None:
        if config.affinity and not proctree.can_pin():
            log.warning("affinity = true needs CPU affinity (Linux); this system has none, so workers are not pinned")
        self.names = list(config.engines)
        self.dropped = multiprocessing.get_context("fork").RawArray("b", len(self.names))
        limit = watchdog_limit(config)
        self.pool = WorkerPool(
            size,
            play_in_worker,
            init_worker,
            (config, self.dropped, lock_fd),
            cores=proctree.usable_cpus() if config.affinity and proctree.can_pin() else (),
            answer=may_start,  # asked before a worker starts an engine
            time_limit=lambda game: limit,
            step_grace=MOVE_GRACE,
            uses=lambda game: game.seats,
            spare=idle_bound(config),
        )

    def imap_unordered(self, games: Iterable[ScheduledGame]) -> Iterator[Outcome]:
        return self.pool.imap_unordered(games)

    def drop(self, name: str) -> None:
        self.dropped[self.names.index(name)] = 1

    def cancel_queued(self) -> None:
        self.pool.cancel_queued()

    def close(self) -> None:
        self.pool.close()

    def terminate(self) -> None:
        self.pool.terminate()


def idle_bound(config: WorkerConfig) -> int | None:
    """How many engines a worker keeps beside a game's own, when that bound can make it quit
    one (None: it keeps every engine it meets, so whichever game it plays next starts none
    anew and the schedule's order is kept)."""
    bound = config.idle_engines
    if bound is None or len(config.engines) <= make_game(config.game, config.options).players + bound:
        return None
    return bound


def watchdog_limit(config: WorkerConfig) -> float | None:
    """How long a worker may take for any game: the longest game the slowest-starting
    engines can play, plus a grace (kills, sweeps and a busy machine)."""
    game = make_game(config.game, config.options)
    slowest = sorted(
        config.engines.values(), key=lambda s: (s.protocol == "gtp", s.handshake_ms or HANDSHAKE_TIMEOUT * 1000)
    )
    clocks = {config.time_control, *config.time_controls.values()}  # the loosest clock bounds every seat
    longest = max((longest_game_s(game, tc, slowest[-game.players :]) for tc in clocks), key=lambda s: s or 0)
    return None if longest is None else longest + WATCHDOG_GRACE
