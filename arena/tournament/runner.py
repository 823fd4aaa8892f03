"""Running a tournament: workers play games, the coordinator stores them.

The coordinator is the single writer of the database; ratings are computed from the
stored games in schedule order, so the table does not depend on which worker finished
first.  The games are played by a game executor (executor.py: local worker processes,
or a Dask cluster), engines are dropped by the drop rule (droprule.py), and whoever
watches the run (the live progress, the live site) is an observer attached by the caller.
"""

from __future__ import annotations

import functools
import logging
import os
import signal
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import multiprocessing_logging

from ..engine import proctree
from ..engine.declared import Checked
from ..engine.player import EngineSpec
from ..engine.sandbox import with_results_hidden
from ..record import GameRecord
from ..results.admit import Played, admit, refusal_text
from ..results.events import plan_event
from ..results.export import (
    STANDINGS,
    TABLES,
    Summary,
    render,
    standings_table,
    summarize,
    write_exports,
)
from ..results.fingerprint import fingerprint
from ..results.fit import output_width, wrap
from ..results.ratings import dropped_engines
from ..results.sprt import SprtSummary, SprtTest
from ..results.store import GameStore, StorageError
from .config import ConfigError, Tournament, build_schedule
from .droprule import FailureTracker
from .executor import BatchingExecutor, GameExecutor, Outcome, Venue
from .livegames import clear_live, live_folder
from .load import LoadWatch
from .local import LocalGames
from .observers import RunObserver
from .pool import Lost, WorkerPool
from .schedule import ScheduledGame
from .settings import legacy_fingerprint, tournament_settings
from .sprt import sprt_test
from .verdict import (
    Verdict,
    interrupt_code,
    raise_lost_stop,
    raise_on_stop,
    run_verdict,
    startup_failure,
    stops_so_far,
)
from .worker import WorkerConfig, WorkerError, init_preflight_host, preflight_in_worker

log = logging.getLogger("arena.runner")


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
    sprt: SprtSummary | None = None

    @property
    def verdict(self) -> Verdict:
        """The run's last line and exit code (verdict.py)."""
        return run_verdict(self.dropped, self.sprt, self.errors)


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped the run; ``standings`` are the tables of the games stored
    so far (None: none were, or they could not be computed), ``code`` the exit code of
    the stop (verdict.py: Ctrl-C's or SIGTERM's)."""

    def __init__(self, standings: str | None, code: int) -> None:
        super().__init__()
        self.standings = standings
        self.code = code


def run_tournament(
    t: Tournament,
    out: Path,
    workers: int | None = None,
    observers: Sequence[RunObserver] = (),
    cluster: Venue | None = None,
    trace: bool = False,
    idle_engines: int | None = None,
    load: LoadWatch | None = None,
    forfeit_failed_engines: bool = False,
) -> RunSummary:
    """Play every scheduled game not yet in ``out``'s database, then rate and report.

    ``observers`` are told of the run's start, every game stored and its end (observers.py).
    ``cluster`` (e.g. a :class:`~arena.tournament.cluster.ClusterSpec`) plays the games
    somewhere else than on local worker processes; storing and rating stay here.
    ``workers`` and ``idle_engines`` override the file's; ``forfeit_failed_engines`` chooses
    forfeits over the stop (:class:`~arena.tournament.verdict.StartupFailure`) when an engine fails
    its start-up check, as the file's key does.  ``load`` counts the time losses and those under
    load (load.py), and says so when one happens."""
    forfeit = forfeit_failed_engines or t.data.forfeit_failed_engines
    workers = workers or t.data.workers
    idle = t.data.idle_engines if idle_engines is None else idle_engines
    with _sigterm_as_interrupt() as check_stop, GameStore(out) as store:
        # kept as meta 'settings'; a folder made before held every path resolved
        store.open(tournament_settings(t), legacy_fingerprint(t), tournament_settings(t, portable=False))
        stored, schedule = _admitted(t, store)
        run_tag = _new_run(store)
        scheduled = _scheduled(t, schedule, stored)
        store.set_meta("scheduled", str(scheduled))  # so a reader of the folder knows how far it is
        done = store.done_ids()
        sprt = sprt_test(t, stored)
        for observer in observers:
            observer.on_start(scheduled, stored, sprt)
        todo = [g for g in schedule if g.index not in done and (sprt is None or g.index < sprt.games_needed)]
        spare_cpus = min(workers, len(todo)) < len(proctree.usable_cpus())  # some CPU without a game
        engines = with_results_hidden(t.engines, out)  # from sandboxed engines
        config = WorkerConfig(
            t.name,
            t.data.game,
            t.game.options.model_dump(),
            {e.name: e for e in engines},
            t.time_control,
            time_controls=t.time_controls,
            adjudication=t.data.adjudication,
            run_tag=run_tag,
            max_failures=t.max_failures,
            coordinator=os.getpid(),
            affinity=t.data.affinity,
            spin=spare_cpus,
            share_core=spare_cpus and proctree.can_pin() and not t.data.affinity,
            trace_dir=str(out / "traces") if trace else "",
            stderr_home=str(out / "arena.log"),
            idle_engines=idle,
            live_dir=str(live_folder(out)),
        )
        clear_live(live_folder(out))  # a stopped run's games in progress are not
        log.info("%s: %d games scheduled, %d already played, %d workers", t.name, len(schedule), len(done), workers)
        tracker = FailureTracker.resumed(t.max_failures, stored)
        lock_fd = store.lock_fd

        def open_executor(games: int) -> GameExecutor:
            if cluster is not None:
                return cluster.open(config, tracker.may_start)
            return LocalGames(config, min(workers, games), lock_fd, tracker.may_start)

        try:
            if todo and cluster is None:  # a cluster's workers check the same in their handshake
                at_once = min(workers, len(todo)) * (t.game.players + idle)  # no more engines than the games run
                _check_engines(
                    t, engines, run_tag, lock_fd, observers, skip=set(tracker.dropped), at_once=at_once, forfeit=forfeit
                )
            count = _Count(len(done), scheduled)
            played: list[GameRecord] = []

            def next_wave() -> list[ScheduledGame]:
                """An event's next games, drawn from those stored (none for a static format)."""
                nonlocal scheduled
                if t.event is None:
                    return []
                schedule[:] = build_schedule(t, [*stored, *played])
                count.total = scheduled = _scheduled(t, schedule, [*stored, *played])
                store.set_meta("scheduled", str(scheduled))
                finished = done | {r.id for r in played}
                return [g for g in schedule if g.index not in finished]

            errors = _play_all(
                open_executor, todo, store, observers, count, tracker, played, sprt, load, next_wave, check_stop
            )
        except BaseException as exc:
            for observer in observers:
                observer.on_stop()  # e.g. the site's pages stop reloading themselves
            if isinstance(exc, KeyboardInterrupt):  # Ctrl-C or SIGTERM: the tables of what is stored
                code = interrupt_code(exc)
                raise RunInterrupted(_write_interrupted(t, out, store, scheduled, load), code) from None
            raise
        finally:
            proctree.kill_tagged(run_tag, proctree.RUN_TAG)  # whatever a dead worker left behind
            clear_live(live_folder(out))  # a killed worker's game in progress is not
        # What the folder holds: the games admitted when the run began and the ones it
        # stored, kept as they were stored rather than read back and parsed again.
        records = sorted([*stored, *played], key=lambda r: r.id or 0)
        dropped = dropped_engines(records) | store.note_dropped(tracker.dropped)
    return _report(
        t,
        out,
        records,
        played=len(records) - len(done),
        resumed=len(done),
        dropped=dropped,
        errors=errors,
        observers=observers,
        scheduled=_scheduled(t, schedule, records),
        load=load,
    )


def _admitted(t: Tournament, store: GameStore) -> tuple[list[GameRecord], list[ScheduledGame]]:
    """The stored games, each one of the schedule's with the result its moves give (replayed
    unless checked before); any other refuses the folder, naming them and the way out.  And
    the schedule: an event's as far as its stored games draw it."""
    entries = store.stored()
    schedule = build_schedule(t, [entry.record for entry in entries])
    admitted = admit(entries, schedule, Played(t.data.game, t.game.options.model_dump(mode="json"), bool(t.openings)))
    if admitted.refused:
        raise StorageError(refusal_text(store.db_path, admitted.refused))
    store.mark_checked(admitted.replayed)
    return admitted.counted, schedule


def _scheduled(t: Tournament, schedule: list[ScheduledGame], records: Sequence[GameRecord]) -> int:
    """The games the tournament will have: its schedule's, or an event's as its games so
    far foresee it (tie-break games counted once drawn)."""
    if (event := t.event) is None:
        return len(schedule)
    return plan_event(event, {r.id or 0: r for r in records}).expected_games()


def _check_engines(
    t: Tournament,
    engines: Sequence[EngineSpec],
    run_tag: str,
    lock_fd: int | None,
    observers: Sequence[RunObserver],
    skip: Collection[str] = (),
    at_once: int | None = None,
    forfeit: bool = False,
) -> None:
    """Before the first game, each engine is started once (side by side): if it declares
    its games it must play this one, and its options must be ones it declared, with values
    that fit.  An engine that cannot start or answer stops the run here
    (:class:`~arena.tournament.verdict.StartupFailure`), as fastchess and cutechess-cli stop, since every game it
    would lose unplayed says nothing of the engines; with ``forfeit`` the observers are
    told and its games record the fault.  The engines start in a worker process like the
    games' (a subreaper that dies with arena), so nothing they leave behind outlives the
    check; ``at_once`` of them at a time (None: all)."""
    checked = [spec for spec in engines if spec.name not in skip]  # skip: dropped earlier, never started again
    if not checked:
        return
    pool = WorkerPool(1, preflight_in_worker, init_preflight_host, (lock_fd, run_tag, os.getpid()))
    found = [Checked()] * len(checked)  # a worker that died refuses nobody
    try:
        task = (tuple(checked), t.data.game, t.game.options.model_dump(), run_tag, at_once)
        for answer in pool.imap_unordered([task]):
            if not isinstance(answer, Lost):
                found = answer
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    problems = [f"engine {spec.name!r}: {c.problem}" for spec, c in zip(checked, found) if c.problem]
    if problems:
        raise ConfigError(f"{t.path}: " + "; ".join(problems) + ". Fix the engine's entry (or the engine).")
    failed = [(spec.name, c.fault) for spec, c in zip(checked, found) if c.fault]
    for name, fault in failed:
        log.warning("engine %s failed its start-up check: %s", name, fault)
    if failed and not forfeit:
        raise startup_failure(str(t.path), failed)
    for name, fault in failed:
        for observer in observers:
            observer.on_start_failure(name, fault)


def _new_run(store: GameStore) -> str:
    """Sweep up processes of an earlier run on this folder that was killed with -9
    (it could not clean up), then tag this run's processes."""
    previous = store.get_meta("run_tag")
    if previous and proctree.kill_tagged(previous, proctree.RUN_TAG):
        log.warning("killed processes left behind by an earlier run on this folder")
    tag = proctree.new_tag()
    store.set_meta("run_tag", tag)
    return tag


@dataclass
class _Count:
    """Games finished of the schedule's ``total``."""

    finished: int
    total: int


def _play_all(
    open_executor: Callable[[int], GameExecutor],
    todo: list[ScheduledGame],
    store: GameStore,
    observers: Sequence[RunObserver],
    count: _Count,
    tracker: FailureTracker,
    played: list[GameRecord],
    sprt: SprtTest | None = None,
    load: LoadWatch | None = None,
    next_wave: Callable[[], list[ScheduledGame]] | None = None,
    check_stop: Callable[[], None] = lambda: None,
) -> list[str]:
    """Play ``todo`` on the executor ``open_executor`` gives for that many games (opened
    only when there is a game to play), storing each game as it ends and adding it to
    ``played``; then the games ``next_wave`` draws from them (an event's), until it draws
    none or a game could not be recorded.  ``check_stop`` runs after each batch is stored: it
    raises a stop signal whose exception was lost.  The games not recorded (arena's own
    failures) are returned."""
    errors: list[str] = []
    if not todo:
        return errors
    executor = _opened(open_executor, len(todo), tracker)
    multiprocessing_logging.install_mp_handler()
    try:
        while todo:
            for batch in _batches(executor, todo):
                for failed in [r for r in batch if not isinstance(r, GameRecord)]:  # Lost, or an internal error
                    errors.append(_error_text(failed))
                    log.error("%s", errors[-1])
                records = [r for r in batch if isinstance(r, GameRecord)]
                store.add_many(records)  # each batch committed as it arrives: no finished game is lost
                played += records
                _take_in(records, executor, observers, count, tracker, sprt, load)
                check_stop()
            todo = next_wave() if next_wave is not None and not errors else []
            if todo and not isinstance(executor, BatchingExecutor):
                # a local pool starts its workers for one list of games; a cluster stays up
                executor.close()
                executor = _opened(open_executor, len(todo), tracker)
        executor.close()
    except BaseException:
        executor.terminate()  # Ctrl-C, SIGTERM or an error: workers kill their engines and exit
        raise
    finally:
        multiprocessing_logging.uninstall_mp_handler()
    return errors


def _opened(open_executor: Callable[[int], GameExecutor], games: int, tracker: FailureTracker) -> GameExecutor:
    """An executor for ``games`` games, told the engines already dropped."""
    executor = open_executor(games)
    for name in tracker.dropped:
        executor.drop(name)
    return executor


def _batches(executor: GameExecutor, todo: list[ScheduledGame]) -> Iterator[Sequence[Outcome]]:
    """The outcomes as they arrive, those that arrive together (a cluster task's) in one list."""
    if isinstance(executor, BatchingExecutor):
        return executor.imap_batches(todo)
    return ([outcome] for outcome in executor.imap_unordered(todo))


def _take_in(
    records: Sequence[GameRecord],
    executor: GameExecutor,
    observers: Sequence[RunObserver],
    count: _Count,
    tracker: FailureTracker,
    sprt: SprtTest | None,
    load: LoadWatch | None = None,
) -> None:
    """Stored games, counted by the drop rule, the SPRT and the load watch, and told to the observers."""
    for record in records:
        if load is not None:
            load.note(record)
        dropped = tracker.update(record)
        for name in dropped:
            executor.drop(name)
            log.warning("%s dropped after %s", name, tracker.dropped[name])
        count.finished += 1
        if sprt is not None and sprt.decision is None and sprt.add(record):
            executor.cancel_queued()  # games already running finish and are stored
            log.info("SPRT: %s after %d pairs (%s)", sprt.outcome, sprt.pairs, sprt.status_text())
        for observer in observers:
            observer.on_game(record, count.finished, count.total)
            for name in dropped:  # after the game that dropped it
                observer.on_drop(name, tracker.dropped[name])


@contextmanager
def _sigterm_as_interrupt() -> Iterator[Callable[[], None]]:
    """Make SIGTERM stop a run like Ctrl-C does (finished games kept, engines killed),
    from its first step (the start-up check included) to its last.  Yields the check that
    raises a stop taken since but lost in a finalizer (verdict.raise_lost_stop)."""
    check = functools.partial(raise_lost_stop, stops_so_far())
    try:
        previous = signal.signal(signal.SIGTERM, raise_on_stop)
    except ValueError:  # not the main thread: leave signals alone
        yield check
        return
    try:
        yield check
    finally:
        signal.signal(signal.SIGTERM, previous)


def _error_text(result: WorkerError | Lost[ScheduledGame]) -> str:
    if isinstance(result, Lost):
        return f"game {result.task.index} not recorded: {result.reason}"
    return f"game {result.game} not recorded: internal error {result.error} (see arena.log)"


def _report(
    t: Tournament,
    out: Path,
    records: list[GameRecord],
    played: int,
    resumed: int,
    dropped: dict[str, str],
    errors: list[str],
    observers: Sequence[RunObserver],
    scheduled: int,
    load: LoadWatch | None = None,
) -> RunSummary:
    summary = _summary(t, records, dropped, errors, scheduled)
    write_exports(summary, out)
    for observer in observers:
        observer.on_end(summary)
    headers, table = standings_table(summary)
    return RunSummary(
        played,
        resumed,
        headers,
        table,
        closing_text(summary, load),
        out,
        summary.dropped,
        errors,
        summary.sprt,
    )


def _summary(
    t: Tournament, records: list[GameRecord], dropped: dict[str, str], errors: list[str], scheduled: int
) -> Summary:
    settings = tournament_settings(t)
    sprt = sprt_test(t, records)
    return summarize(
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
        elo_prior=t.data.elo_prior,
        replayed=True,  # played by the referee in this run, or admitted when it resumed
        sprt=None if sprt is None else sprt.summary(),
    )


def closing_text(summary: Summary, load: LoadWatch | None, tables: Sequence[tuple[str, Any]] = TABLES) -> str:
    """The tables a run ends with, fitted to the terminal, and its time losses counted."""
    text = render(summary, "table", tables=tables, width=output_width())
    losses = None if load is None else load.summary_text()
    return text if losses is None else f"{text}\n{wrap(losses, output_width())}\n"


def _write_interrupted(
    t: Tournament, out: Path, store: GameStore, scheduled: int, load: LoadWatch | None = None
) -> str | None:
    """results.json and the standings of a stopped run, as far as it got (marked not
    finished), and the standings as text (None if no game is stored); best effort: the
    stop itself must not fail over them."""
    try:
        store.complete_mirror()
        records = list(store.records())
        dropped = dropped_engines(records) | store.note_dropped({})
        summary = _summary(t, records, dropped, [], scheduled)
        write_exports(summary, out)
        return closing_text(summary, load, STANDINGS) if records else None
    except Exception:  # a full disk, a damaged record: the stop still ends cleanly
        log.exception("could not write the tables of the stopped run")
        return None
