"""A worker process's life: the engines it keeps, the games it plays, how it stops.

Each worker process keeps its own engine processes alive between games (like
fastchess) and restarts one only after it faulted.  :class:`Worker` is the very code
a local pool's worker processes and a Dask worker (cluster.py) run; the process
initialisers here set up a local worker process (die with the coordinator, let go of
the folder's lock, adopt orphans, kill every engine on SIGTERM).
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.util import Finalize
from pathlib import Path

from protocol import codec

from ..adjudication import Adjudication
from ..engine import Conversation, open_engine, proctree
from ..engine.declared import Checked
from ..engine.player import EngineFault, EngineSpec
from ..engine.preflight import preflight
from ..engine.retiring import Retiring
from ..engine.trace import SeatTrace, Transcript, end_trace, trace_path
from ..engine.transport import QUIT_GRACE, PipeSettings
from ..engine.waiting import CoreShare
from ..match import GameResult, TimeControl, forfeit_before_start, play_game
from ..record import GameRecord, Termination
from ..rules import Game, make_game
from ..rules.base import Options
from .livegames import LiveChannel, LiveWriter, folder_channel
from .pool import ask_coordinator, planned_keep, report_progress
from .schedule import ScheduledGame

log = logging.getLogger("arena.runner")

STDERR_LOGGED = 8192  # of a faulted engine's stderr tail, into arena.log (which has its own cap)


@dataclass(frozen=True)
class WorkerConfig:
    """Everything a worker needs, picklable."""

    tournament: str
    game: str
    options: Options
    engines: dict[str, EngineSpec]
    time_control: TimeControl
    time_controls: dict[str, TimeControl] = field(default_factory=dict)  # engines with their own clock
    adjudication: Adjudication | None = None  # the rules that may end a game early (arena/adjudication.py)
    run_tag: str = ""  # proctree.RUN_TAG of this run
    max_failures: dict[str, int] = field(default_factory=dict)  # per engine, 0 = never drop
    coordinator: int = 0  # pid the workers must die with
    affinity: bool = False  # one core per worker and its engines
    spin: bool = True  # some CPU has no game: spin for quick engines
    # Some CPU has no game and CPUs can be pinned: quick engines are moved onto their
    # worker's core instead of being spun for (CoreShare).
    share_core: bool = False
    trace_dir: str = ""  # --trace: one transcript per game here
    stderr_home: str = ""  # where faulted engines' stderr is kept
    idle_engines: int | None = None  # engines kept running beside a game's own (None: every one)
    live_dir: str = ""  # the games in progress are shown here while someone watches (livegames.py)
    live_topic: str = ""  # on a cluster: the Dask event topic its workers send their games on instead


@dataclass(frozen=True)
class WorkerError:
    """A game arena itself failed to play (a bug, not an engine's fault): not recorded; the
    traceback is in arena.log."""

    game: int  # its id
    error: str  # the exception's type and message, sanitized and cut to one short line


_worker: Worker | None = None  # this process's worker (a local pool's)
_checked_run_tag = ""  # in the start-up check's process: the run whose engines it starts


class Worker:
    """The engines of one worker and the games it plays with them, one at a time."""

    def __init__(self, config: WorkerConfig, dropped: Sequence[int] = ()) -> None:
        self.config = config
        self.game: Game = make_game(config.game, config.options)
        self.engines: dict[str, Conversation] = {}
        self.names = list(config.engines)
        self.dropped = dropped  # shared with the coordinator: 1 = engine dropped (max_failures)
        self.stopping = False  # SIGTERM came: kill the engines, no grace, no waiting
        self.retiring = Retiring()  # engines told to quit, not yet gone: they count in the bound
        self.unswept = False  # engines were retired since the last sweep for what they left (kill_adopted)
        cpus = proctree.usable_cpus()
        self.share = CoreShare(cpus) if config.share_core and len(cpus) > 1 else None
        self.pipe = PipeSettings(config.run_tag, config.spin, self.share, config.stderr_home)
        # Where its games are shown while someone watches (a cluster's worker is given its own channel).
        self.live: LiveChannel | None = folder_channel(Path(config.live_dir)) if config.live_dir else None

    def engine(self, name: str, trace: SeatTrace | None = None, players: int = 1) -> Conversation:
        """A running engine for ``name`` (``trace``: its transcript, from its start-up
        on if it starts now), one of a game of ``players``; raises EngineFault if it cannot start."""
        proc = self.engines.pop(name, None)  # put back last: the dict runs from least to most recently used
        if proc is None or not proc.alive:
            if proc is not None:
                proc.kill()
            self._await_room(players)
            proc = open_engine(
                self.config.engines[name],
                pipe=self.pipe,
                game=self.config.game,
                board=self.game,
            )
            self.engines[name] = proc
            proc.trace = trace
            report_progress(proc.start_limit)  # the start-up is the next step the watchdog times
            proc.start()
        self.engines[name] = proc
        proc.trace = trace
        return proc

    def _await_room(self, players: int) -> None:
        """Before an engine starts: wait until those still quitting leave room for it within
        the bound (``idle_engines`` beside a game of ``players``), so that the engines alive,
        the quitting ones counted, never exceed it; then sweep what the gone ones left."""
        bound = self.config.idle_engines
        if bound is not None:
            if self.retiring:
                report_progress(QUIT_GRACE)  # the watchdog times the wait: a grace at most
            self.retiring.wait_fewer(max(0, bound + players - 1 - len(self.engines)))
        if self.unswept:
            self._kill_adopted()

    def make_room(self, keep: Sequence[str]) -> None:
        """Quit the least recently used engines but ``keep`` (the next game's), those the pool
        did not plan to keep first, until at most ``idle_engines`` others run: a worker's engines
        are then those of one game plus the bound, not every engine of the tournament (a MoHex
        holds most of a gigabyte)."""
        bound = self.config.idle_engines
        if bound is None:
            return
        idle = [name for name in self.engines if name not in keep]
        planned = planned_keep()
        if planned is not None:  # the pool's plan knows which are needed soonest: the others go first
            idle.sort(key=lambda name: name in planned)
        for name in idle[: max(0, len(idle) - bound)]:
            self.retire(name)

    def let_go_unplanned(self, playing: Sequence[str]) -> None:
        """Quit now every idle engine the pool's plan does not keep (the plan's next game
        would quit it), so that it exits while ``playing``'s game is played rather than while
        the next game waits to start one."""
        planned = planned_keep()
        if planned is None or self.config.idle_engines is None:
            return
        for name in [name for name in self.engines if name not in playing and name not in planned]:
            self.retire(name)

    def play(self, scheduled: ScheduledGame) -> GameRecord | WorkerError:
        """The record of one game, or the internal error that stopped it; never raises (a
        bug must not stop the tournament)."""
        try:
            return self._play(scheduled)
        except Exception as exc:
            log.exception("game %d: internal error; the game is not recorded", scheduled.index)
            for name in scheduled.seats:
                self.discard(name)
            return WorkerError(scheduled.index, codec.sanitize(f"{type(exc).__name__}: {exc}", 300))

    def _play(self, scheduled: ScheduledGame) -> GameRecord:
        dropped = [seat for seat, name in enumerate(scheduled.seats) if self._is_dropped(name)]
        if dropped:
            limits = sorted({self.config.max_failures.get(scheduled.seats[s], 0) for s in dropped})
            reason = (
                f"dropped from the tournament after {' / '.join(map(str, limits))} consecutive "
                f"failures (max_failures); not started"
            )
            return self._finish(
                forfeit_before_start(
                    self.game, scheduled.seed, scheduled.seats, dropped, Termination.DROPPED, reason, scheduled.setup
                ),
                scheduled,
            )
        self.make_room(scheduled.seats)  # before this game's engines start, so the count never exceeds the bound
        transcript = self._transcript(scheduled)
        live = self._live(scheduled)
        try:
            procs: list[Conversation] = []
            for seat, name in enumerate(scheduled.seats):
                try:
                    seat_trace = transcript.seat(seat, name) if transcript is not None else None
                    procs.append(self.engine(name, seat_trace, len(scheduled.seats)))
                except EngineFault as exc:
                    self.discard(name)
                    return self._finish(
                        forfeit_before_start(
                            self.game, scheduled.seed, scheduled.seats, seat, exc.code, exc.reason, scheduled.setup
                        ),
                        scheduled,
                    )
            self.let_go_unplanned(scheduled.seats)
            clocks = [self.config.time_controls.get(name, self.config.time_control) for name in scheduled.seats]
            result: GameResult = play_game(
                self.game,
                procs,
                seed=scheduled.seed,
                time_control=clocks,
                names=scheduled.seats,
                opening=scheduled.opening,
                setup=scheduled.setup,
                progress=report_progress,  # each move, as it is played, to the coordinator's watchdog
                watcher=live,
                adjudication=self.config.adjudication,
            )
            for seat in result.faulted_seats:
                self.discard(scheduled.seats[seat])
            for proc in procs:
                if proc.spec.restart:  # restart = "always": no state carries to the next game
                    self.retire(proc.spec.name)
            return self._finish(result.record, scheduled)
        finally:
            if self.share is not None:
                self.share.vacate()  # the next game's CPU is chosen afresh, as the load then is
            if transcript is not None:
                end_trace(transcript, [p for p in self.engines.values() if p.trace is not None])
            if live is not None:
                live.end()

    def _live(self, scheduled: ScheduledGame) -> LiveWriter | None:
        if self.live is None:
            return None
        return self.live.writer(scheduled.index, scheduled.round, scheduled.seats)

    def _transcript(self, scheduled: ScheduledGame) -> Transcript | None:
        if not self.config.trace_dir:
            return None
        title = (
            f"{self.config.tournament} game {scheduled.index}: {self.config.game} "
            f"{' '.join(self.game.option_tokens())}; "
            + ", ".join(f"seat {s} {n}" for s, n in enumerate(scheduled.seats))
        )
        return Transcript(trace_path(Path(self.config.trace_dir), scheduled.index), title)

    def _is_dropped(self, name: str) -> bool:
        """Dropped by the drop rule.  Before it starts an engine, a worker asks the
        coordinator, which answers once it has counted every game result that reached it:
        the shared flag alone could be a game late (the next game is dispatched while the
        last one is being stored), and a game would start the engine after its drop."""
        if self.dropped and self.dropped[self.names.index(name)]:
            return True
        running = name in self.engines and self.engines[name].alive
        return not running and not ask_coordinator(name, default=True)

    def _finish(self, record: GameRecord, scheduled: ScheduledGame) -> GameRecord:
        if record.termination is not None and record.termination.is_adjudication:
            log.info("game %d: %s: %s", scheduled.index, record.termination, record.reason)  # the rules at work
        elif record.termination is not Termination.NORMAL:
            log.warning("game %d: %s", scheduled.index, record.reason)
        return record.model_copy(
            update={"id": scheduled.index, "round": scheduled.round, "tournament": self.config.tournament}
        )

    def retire(self, name: str) -> None:
        """Stop a healthy engine: quit, a grace period, then kill, in the background
        (:class:`~arena.engine.retiring.Retiring`); it counts in the bound until it is gone."""
        proc = self.engines.pop(name, None)
        if proc is not None:
            self.retiring.retire(proc)
            self.unswept = True

    def discard(self, name: str) -> None:
        """Kill an engine that faulted (no grace: it broke the contract) and keep its
        last stderr output in the log; the next game starts a fresh process."""
        proc = self.engines.pop(name, None)
        if proc is None:
            return
        proc.kill()
        proc.trace = None
        self._kill_adopted()
        tail = proc.stderr_text()[-STDERR_LOGGED:]
        if tail:
            log.warning("%s: last %d characters of stderr:\n%s", name, len(tail), tail)

    def _kill_adopted(self) -> None:
        """Processes an engine left behind that the process group and the tag missed
        (re-parented to this worker, a subreaper): killed when a faulted engine is killed,
        before an engine starts after others quit, and at the end."""
        running = {p.proc.pid for p in self.engines.values() if p.proc is not None}
        proctree.kill_adopted(running | self.retiring.pids())
        self.unswept = False

    def shutdown(self) -> None:
        if self.stopping:
            self.kill_now()
            return
        for name in list(self.engines):
            self.retire(name)
        self.retiring.wait_fewer(0)  # every engine quits at once; each is waited for within its grace
        self._kill_adopted()

    def kill_now(self) -> None:
        """Kill every engine and what it started without waiting on any process object
        and without logging: after a signal the interrupted code may hold their locks
        (subprocess's wait lock, a log queue's).  The kernel reaps them once this worker exits."""
        for proc in list(self.engines.values()):
            if proc.child is not None:
                proc.child.kill_unwaited()
        self.retiring.kill_unwaited()
        proctree.kill_adopted(set(), quiet=True)


def init_worker(config: WorkerConfig, dropped: Sequence[int], lock_fd: int | None) -> None:
    global _worker
    init_engine_host(lock_fd)
    _worker = Worker(config, dropped)
    Finalize(_worker, _worker.shutdown, exitpriority=10)
    signal.signal(signal.SIGTERM, _terminate_worker)  # terminate(): kill our engines first
    if config.coordinator and os.getppid() != config.coordinator:
        _terminate_worker(signal.SIGTERM, None)  # it died before the signal was armed


def _terminate_worker(signum: int, frame: object) -> None:
    """SIGTERM (the pool's terminate(), or the coordinator died): kill the engines and
    whatever they started, then exit at once.  Nothing here waits on a process object or
    a lock (the interrupted code may hold subprocess's wait lock or a log queue's), and no
    exception is raised: one raised from a handler can land in a __del__ or a garbage
    collector callback that swallows it, and the worker would live on with SIGTERM ignored."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # one stop is enough
    if _worker is not None:
        _worker.stopping = True
        _worker.kill_now()
    else:  # the start-up check: everything its engines started carries the run's tag
        if _checked_run_tag:
            proctree.kill_tagged(_checked_run_tag, proctree.RUN_TAG, quiet=True)
        proctree.kill_adopted(set(), quiet=True)
    os._exit(128 + signum)


def init_preflight_host(lock_fd: int | None, run_tag: str, coordinator: int) -> None:
    """The start-up check's process: like a worker, it dies with the coordinator and takes
    every process its engines started with it (they all carry the run's tag)."""
    global _checked_run_tag
    init_engine_host(lock_fd)
    _checked_run_tag = run_tag
    signal.signal(signal.SIGTERM, _terminate_worker)
    if os.getppid() != coordinator:
        _terminate_worker(signal.SIGTERM, None)  # it died before the signal was armed


def init_engine_host(lock_fd: int | None) -> None:
    """What every process of the pool that starts engines sets first."""
    # Die with the coordinator even when it is killed with -9 and cannot clean up (before
    # anything else: until a handler is set, SIGTERM simply ends the process).
    proctree.set_parent_death_signal(signal.SIGTERM)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C
    if lock_fd is not None:
        # Let go of the inherited lock on the output folder (pointing the descriptor at
        # /dev/null keeps its number valid), so that a dead coordinator frees it at once.
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, lock_fd)
        os.close(null)
    proctree.become_subreaper()  # an engine's orphaned descendants come to us (kill_adopted)


def preflight_in_worker(task: tuple[tuple[EngineSpec, ...], str, Options, str, int | None]) -> list[Checked]:
    specs, game, options, run_tag, at_once = task
    try:
        return preflight(specs, make_game(game, options), run_tag, at_once)
    finally:
        proctree.kill_adopted(set())  # whatever the engines left behind


def play_in_worker(scheduled: ScheduledGame) -> GameRecord | WorkerError:
    assert _worker is not None
    return _worker.play(scheduled)
