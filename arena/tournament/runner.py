"""Running a tournament: parallel workers play games, the coordinator stores them.

Each worker process keeps its own engine processes alive between games (like
fastchess) and restarts one only after it faulted.  The coordinator is the
single writer of the database; ratings are computed from the stored games in
schedule order, so the table does not depend on which worker finished first.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.util import Finalize
from pathlib import Path
from typing import Any

import multiprocessing_logging

from protocol import codec

from ..engine import Conversation, open_engine, proctree
from ..engine.declared import preflight
from ..engine.process import HANDSHAKE_TIMEOUT, EngineFault, EngineSpec
from ..engine.trace import Transcript, end_trace, trace_path
from ..match import GameResult, TimeControl, forfeit_before_start, longest_game_s, play_game
from ..record import GameRecord, Termination
from ..results.export import (
    Summary,
    dropped_engines,
    render,
    results_document,
    standings_table,
    summarize,
    write_exports,
)
from ..results.fingerprint import fingerprint, legacy_fingerprint, tournament_settings
from ..results.site.live import LiveSite
from ..results.store import GameStore
from ..rules import Game, make_game
from .config import ConfigError, Tournament
from .pool import WAIT, Lost, WorkerPool, ask_coordinator
from .schedule import ScheduledGame, build_schedule
from .sprt import SprtTest, sprt_from_settings

log = logging.getLogger("arena.runner")


@dataclass(frozen=True)
class WorkerConfig:
    """Everything a worker needs, picklable."""

    tournament: str
    game: str
    options: dict[str, Any]
    engines: dict[str, EngineSpec]
    time_control: TimeControl
    time_controls: dict[str, TimeControl] = field(default_factory=dict)  # engines with their own clock
    run_tag: str = ""  # proctree.RUN_TAG of this run
    max_failures: dict[str, int] = field(default_factory=dict)  # per engine, 0 = never drop
    coordinator: int = 0  # pid the workers must die with
    affinity: bool = False  # one core per worker and its engines
    spin: bool = True  # some CPU has no game: spin for quick engines
    trace_dir: str = ""  # --trace: one transcript per game here
    stderr_home: str = ""  # where faulted engines' stderr is kept


# -- worker side --------------------------------------------------------------

_worker: _Worker | None = None
_checked_run_tag = ""  # in the start-up check's process: the run whose engines it starts


class _Worker:
    def __init__(self, config: WorkerConfig, dropped: Sequence[int] = ()) -> None:
        self.config = config
        self.game: Game = make_game(config.game, config.options)
        self.engines: dict[str, Conversation] = {}
        self.names = list(config.engines)
        self.dropped = dropped  # shared with the coordinator: 1 = engine dropped (max_failures)
        self.stopping = False  # SIGTERM came: kill the engines, no grace, no waiting

    def engine(self, name: str, trace: Any = None) -> Conversation:
        """A running engine for ``name`` (``trace``: its transcript, from its start-up
        on if it starts now); raises EngineFault if it cannot start."""
        proc = self.engines.get(name)
        if proc is None or not proc.alive:
            if proc is not None:
                proc.kill()
            proc = open_engine(
                self.config.engines[name],
                run_tag=self.config.run_tag,
                spin=self.config.spin,
                game=self.config.game,
                stderr_home=self.config.stderr_home,
            )
            self.engines[name] = proc
            proc.trace = trace
            proc.start()
        proc.trace = trace
        return proc

    def play(self, scheduled: ScheduledGame) -> GameRecord | dict[str, Any]:
        """The record of one game, or the internal error (a dict) that stopped it; never
        raises (a bug must not stop the tournament)."""
        try:
            return self._play(scheduled)
        except Exception as exc:
            log.exception("game %d: internal error; the game is not recorded", scheduled.index)
            for name in scheduled.seats:
                self.discard(name)
            return {"id": scheduled.index, "internal_error": codec.sanitize(f"{type(exc).__name__}: {exc}", 300)}

    def _play(self, scheduled: ScheduledGame) -> GameRecord:
        dropped = [seat for seat, name in enumerate(scheduled.seats) if self._is_dropped(name)]
        if dropped:
            limits = sorted({self.config.max_failures.get(scheduled.seats[s], 0) for s in dropped})
            reason = (
                f"dropped from the tournament after {' / '.join(map(str, limits))} consecutive "
                f"failures (max_failures); not started"
            )
            return self._finish(
                forfeit_before_start(self.game, scheduled.seed, scheduled.seats, dropped, "dropped", reason), scheduled
            )
        transcript = self._transcript(scheduled)
        try:
            procs: list[Conversation] = []
            for seat, name in enumerate(scheduled.seats):
                try:
                    procs.append(self.engine(name, transcript and transcript.seat(seat, name)))
                except EngineFault as exc:
                    self.discard(name)
                    return self._finish(
                        forfeit_before_start(self.game, scheduled.seed, scheduled.seats, seat, exc.code, exc.reason),
                        scheduled,
                    )
            clocks = [self.config.time_controls.get(name, self.config.time_control) for name in scheduled.seats]
            result: GameResult = play_game(
                self.game,
                procs,
                seed=scheduled.seed,
                time_control=clocks,
                names=scheduled.seats,
                opening=scheduled.opening,
            )
            for seat in result.faulted_seats:
                self.discard(scheduled.seats[seat])
            return self._finish(result.record, scheduled)
        finally:
            if transcript is not None:
                end_trace(transcript, [p for p in self.engines.values() if p.trace is not None])

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
        last one is being stored), and an engine would start once more than max_failures."""
        if self.dropped and self.dropped[self.names.index(name)]:
            return True
        running = name in self.engines and self.engines[name].alive
        return not running and not ask_coordinator(name, default=True)

    def _finish(self, record: GameRecord, scheduled: ScheduledGame) -> GameRecord:
        if record.termination is not Termination.NORMAL:
            log.warning("game %d: %s", scheduled.index, record.reason)
        return record.model_copy(
            update={"id": scheduled.index, "round": scheduled.round, "tournament": self.config.tournament}
        )

    def retire(self, name: str) -> None:
        """Stop a healthy engine: quit, a grace period, then kill."""
        proc = self.engines.pop(name, None)
        if proc is not None:
            proc.quit()
            self._kill_adopted()

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
        (re-parented to this worker, a subreaper): killed whenever an engine stops."""
        proctree.kill_adopted({p.proc.pid for p in self.engines.values() if p.proc is not None})

    def shutdown(self) -> None:
        if self.stopping:
            self.kill_now()
            return
        for name in list(self.engines):
            self.retire(name)

    def kill_now(self) -> None:
        """Kill every engine and what it started without waiting on any process object
        and without logging: after a signal the interrupted code may hold their locks
        (subprocess's wait lock, a log queue's).  The kernel reaps them once this worker exits."""
        for proc in list(self.engines.values()):
            proc.transport.kill_unwaited()
        proctree.kill_adopted(set(), quiet=True)


def _init_worker(config: WorkerConfig, dropped: Sequence[int], lock_fd: int | None) -> None:
    global _worker
    _init_engine_host(lock_fd)
    _worker = _Worker(config, dropped)
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


def _init_preflight_host(lock_fd: int | None, run_tag: str, coordinator: int) -> None:
    """The start-up check's process: like a worker, it dies with the coordinator and takes
    every process its engines started with it (they all carry the run's tag)."""
    global _checked_run_tag
    _init_engine_host(lock_fd)
    _checked_run_tag = run_tag
    signal.signal(signal.SIGTERM, _terminate_worker)
    if os.getppid() != coordinator:
        _terminate_worker(signal.SIGTERM, None)  # it died before the signal was armed


def _init_engine_host(lock_fd: int | None) -> None:
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


def _preflight_in_worker(task: tuple[tuple[EngineSpec, ...], str, str]) -> list[str | None]:
    specs, game, run_tag = task
    try:
        return preflight(specs, game, run_tag)
    finally:
        proctree.kill_adopted(set())  # whatever the engines left behind


def _play_in_worker(scheduled: ScheduledGame) -> GameRecord | dict[str, Any]:
    assert _worker is not None
    return _worker.play(scheduled)


# -- coordinator side ---------------------------------------------------------


@dataclass
class RunSummary:
    played: int
    resumed: int
    headers: list[str]
    rows: list[list[Any]]
    table: str
    out: Path
    dropped: dict[str, str] = field(default_factory=dict)  # engine -> why (max_failures)
    errors: list[str] = field(default_factory=list)  # games not recorded: arena's own failures
    sprt: dict[str, Any] | None = None  # results.json's "sprt" section


class FailureTracker:
    """Consecutive failures per engine, in the order games finish, and the drop rule:
    an engine with ``max_failures`` (> 0) failures in a row is dropped.  A game the
    engine played through without any fault of its own resets its count."""

    def __init__(self, max_failures: dict[str, int]) -> None:
        self.max_failures = max_failures
        self.streak = dict.fromkeys(max_failures, 0)
        self.dropped: dict[str, str] = {}

    def update(self, record: GameRecord) -> list[str]:
        """Count one finished game; return the engines it gets dropped.  Only failures
        count (Termination.is_failure: the engine could not run or talk); its time losses,
        illegal moves and resignations are results: they neither count nor reset."""
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

    def may_start(self, name: str, running: list[ScheduledGame]) -> Any:
        """Whether a worker may start ``name`` for a game, given the other games in
        play: each of those could still fail, so the engine starts only while even all of
        them failing would leave it below its limit; otherwise the worker waits for them
        (WAIT).  So an engine never starts after reaching its limit, whatever the workers."""
        if name in self.dropped:
            return False
        limit = self.max_failures.get(name, 0)
        in_play = sum(name in game.seats for game in running)
        return True if not limit or self.streak[name] + in_play < limit else WAIT


def run_tournament(
    t: Tournament,
    out: Path,
    workers: int | None = None,
    progress: Callable[[dict[str, Any], int, int], None] | None = None,
    cluster: Any = None,
    trace: bool = False,
) -> RunSummary:
    """Play every scheduled game not yet in ``out``'s database, then rate and report.

    ``cluster`` (a :class:`~arena.tournament.cluster.ClusterSpec`) plays the games on a
    Dask cluster instead of local worker processes; storing and rating stay here."""
    workers = workers or t.data.workers
    schedule = build_schedule(t)
    with _sigterm_as_interrupt(), GameStore(out) as store:
        store.open(tournament_settings(t), legacy_fingerprint(t))  # kept as meta 'settings'
        run_tag = _new_run(store)
        store.set_meta("scheduled", str(len(schedule)))  # so a reader of the folder knows how far it is
        stored = list(store.records())
        done = store.done_ids()
        sprt = sprt_test(t, stored)
        if hasattr(progress, "begin"):  # a live display (progress.Progress) starts from what is stored
            progress.begin(len(schedule), stored, sprt)
        site = LiveSite(out / "report", t, stored)
        progress = site.wrap(progress)
        todo = [g for g in schedule if g.index not in done and (sprt is None or g.index < sprt.games_needed)]
        config = WorkerConfig(
            t.name,
            t.data.game,
            t.game.options.model_dump(),
            {e.name: e for e in t.engines},
            t.time_control,
            time_controls=t.time_controls,
            run_tag=run_tag,
            max_failures=t.max_failures,
            coordinator=os.getpid(),
            affinity=t.data.affinity,
            spin=min(workers, len(todo)) < len(proctree.usable_cpus()),
            trace_dir=str(out / "traces") if trace else "",
            stderr_home=str(out / "arena.log"),
        )
        log.info("%s: %d games scheduled, %d already played, %d workers", t.name, len(schedule), len(done), workers)
        tracker = FailureTracker.resumed(t.max_failures, stored)
        try:
            if todo and not cluster:  # a cluster's workers check the same in their handshake
                _refuse_undeclared(t, run_tag, store.lock_fd, skip=set(tracker.dropped))
            errors = _play_all(config, todo, workers, store, progress, len(schedule), len(done), tracker, cluster, sprt)
        except BaseException as exc:
            site.stopped()  # its pages stop reloading themselves
            if isinstance(exc, KeyboardInterrupt):  # Ctrl-C or SIGTERM: the tables of what is stored
                _write_interrupted(t, out, store, len(schedule))
            raise
        finally:
            proctree.kill_tagged(run_tag, proctree.RUN_TAG)  # whatever a dead worker left behind
        records = list(store.records())
        dropped = dropped_engines(records) | store.note_dropped(tracker.dropped)
    return _report(
        t,
        out,
        records,
        played=len(records) - len(done),
        resumed=len(done),
        dropped=dropped,
        errors=errors,
        site=site,
        scheduled=len(schedule),
    )


def _refuse_undeclared(t: Tournament, run_tag: str, lock_fd: int | None, skip: Collection[str] = ()) -> None:
    """Before the first game, each engine is started once (side by side): if it declares
    its games it must play this one, and its options must be ones it declared, with values
    that fit.  An engine that cannot start is not refused here: its games record the
    fault.  The engines start in a worker process like the games' (a subreaper that dies
    with arena), so nothing they leave behind outlives the check."""
    checked = [spec for spec in t.engines if spec.name not in skip]  # skip: dropped earlier, never started again
    if not checked:
        return
    pool = WorkerPool(1, _preflight_in_worker, _init_preflight_host, (lock_fd, run_tag, os.getpid()))
    found: list[str | None] = [None] * len(checked)  # a worker that died refuses nobody
    try:
        for answer in pool.imap_unordered([(tuple(checked), t.data.game, run_tag)]):
            if not isinstance(answer, Lost):
                found = answer
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    problems = [f"engine {spec.name!r}: {p}" for spec, p in zip(checked, found) if p]
    if problems:
        raise ConfigError(f"{t.path}: " + "; ".join(problems) + ". Fix the engine's entry (or the engine).")


def _new_run(store: GameStore) -> str:
    """Sweep up processes of an earlier run on this folder that was killed with -9
    (it could not clean up), then tag this run's processes."""
    previous = store.get_meta("run_tag")
    if previous and proctree.kill_tagged(previous, proctree.RUN_TAG):
        log.warning("killed processes left behind by an earlier run on this folder")
    tag = proctree.new_tag()
    store.set_meta("run_tag", tag)
    return tag


def sprt_test(t: Tournament, records: Any = ()) -> SprtTest | None:
    """The tournament's SPRT (None without ``[sprt]``), with ``records`` counted."""
    return sprt_from_settings(tournament_settings(t), records)


class _LocalGames:
    """The game executor of a local run: arena's worker pool, and the drop rule shared
    with its workers.  (A cluster run uses cluster.ClusterGames, same interface.)"""

    def __init__(
        self, config: WorkerConfig, size: int, lock_fd: int | None, may_start: Callable[[str, list[ScheduledGame]], Any]
    ) -> None:
        if config.affinity and not proctree.can_pin():
            log.warning("affinity = true needs CPU affinity (Linux); this system has none, so workers are not pinned")
        self.names = list(config.engines)
        self.dropped = multiprocessing.get_context("fork").RawArray("b", len(self.names))
        limit = _watchdog_limit(config)
        self.pool = WorkerPool(
            size,
            _play_in_worker,
            _init_worker,
            (config, self.dropped, lock_fd),
            cores=proctree.usable_cpus() if config.affinity and proctree.can_pin() else (),
            answer=may_start,  # asked before a worker starts an engine
            time_limit=lambda game: limit,
        )
        self.imap_unordered = self.pool.imap_unordered
        self.close = self.pool.close
        self.terminate = self.pool.terminate
        self.cancel_queued = self.pool.cancel_queued

    def drop(self, name: str) -> None:
        self.dropped[self.names.index(name)] = 1


STDERR_LOGGED = 8192  # of a faulted engine's stderr tail, into arena.log (which has its own cap)
WATCHDOG_GRACE = 30.0  # seconds past a game's longest possible duration before its worker counts as hung


def _watchdog_limit(config: WorkerConfig) -> float | None:
    """How long a worker may take for any game: the longest game the slowest-starting
    engines can play, plus a grace (kills, sweeps and a busy machine)."""
    game = make_game(config.game, config.options)
    slowest = sorted(
        config.engines.values(), key=lambda s: (s.protocol == "gtp", s.handshake_ms or HANDSHAKE_TIMEOUT * 1000)
    )
    clocks = {config.time_control, *config.time_controls.values()}  # the loosest clock bounds every seat
    longest = max((longest_game_s(game, tc, slowest[-game.players :]) for tc in clocks), key=lambda s: s or 0)
    return None if longest is None else longest + WATCHDOG_GRACE


def _play_all(
    config: WorkerConfig,
    todo: list[ScheduledGame],
    workers: int,
    store: GameStore,
    progress,
    total: int,
    already: int,
    tracker: FailureTracker,
    cluster: Any = None,
    sprt: SprtTest | None = None,
) -> list[str]:
    """Play ``todo``, storing each game as it ends; the games not recorded (arena's own
    failures) are returned."""
    errors: list[str] = []
    if not todo:
        return errors
    pool = (
        cluster.open(config, tracker.may_start)
        if cluster
        else _LocalGames(config, min(workers, len(todo)), store.lock_fd, may_start=tracker.may_start)
    )
    for name in tracker.dropped:
        pool.drop(name)
    multiprocessing_logging.install_mp_handler()
    finished = already
    try:
        for record in pool.imap_unordered(todo):
            if not isinstance(record, GameRecord):  # Lost, or an internal error
                errors.append(_error_text(record))
                log.error("%s", errors[-1])
                continue
            store.add(record)
            for name in tracker.update(record):
                pool.drop(name)
                log.warning("%s dropped after %s", name, tracker.dropped[name])
            finished += 1
            if sprt is not None and sprt.decision is None and sprt.add(record):
                pool.cancel_queued()  # games already running finish and are stored
                log.info("SPRT: %s after %d pairs (%s)", sprt.decision, sprt.pairs, sprt.status_text())
            if progress:
                progress(record, finished, total)
        pool.close()
    except BaseException:
        pool.terminate()  # Ctrl-C, SIGTERM or an error: workers kill their engines and exit
        raise
    finally:
        multiprocessing_logging.uninstall_mp_handler()
    return errors


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Make SIGTERM stop a run like Ctrl-C does (finished games kept, engines killed),
    from its first step (the start-up check included) to its last."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _error_text(result: Any) -> str:
    if isinstance(result, Lost):
        return f"game {result.task.index} not recorded: {result.reason}"
    return f"game {result['id']} not recorded: internal error {result['internal_error']} (see arena.log)"


def _report(
    t: Tournament,
    out: Path,
    records: list[dict[str, Any]],
    played: int,
    resumed: int,
    dropped: dict[str, str],
    errors: list[str],
    site: LiveSite,
    scheduled: int,
) -> RunSummary:
    summary = _summary(t, records, dropped, errors, scheduled)
    write_exports(summary, out)
    site.finish(records, results_document(summary))
    headers, table = standings_table(summary)
    return RunSummary(
        played,
        resumed,
        headers,
        table,
        render(summary, "table"),
        out,
        summary.dropped,
        errors,
        summary.extra.get("sprt"),
    )


def _summary(
    t: Tournament, records: list[dict[str, Any]], dropped: dict[str, str], errors: list[str], scheduled: int
) -> Summary:
    settings = tournament_settings(t)
    summary = summarize(
        records,
        [e.name for e in t.engines],
        tournament=t.name,
        game=t.data.game,
        options=t.game.options.model_dump(),
        players=t.game.players,
        settings=settings,
        fingerprint=fingerprint(settings),
        dropped=dropped,
        not_recorded=errors,
        scheduled=scheduled,
    )
    if (sprt := sprt_test(t, records)) is not None:
        summary.extra["sprt"] = sprt.summary()
    return summary


def _write_interrupted(t: Tournament, out: Path, store: GameStore, scheduled: int) -> None:
    """results.json and the standings of a stopped run, as far as it got (marked not
    finished); best effort: the stop itself must not fail over them."""
    try:
        records = list(store.records())
        dropped = dropped_engines(records) | store.note_dropped({})
        write_exports(_summary(t, records, dropped, [], scheduled), out)
    except Exception:  # a full disk, a damaged record: the stop still ends cleanly
        log.exception("could not write the tables of the stopped run")
