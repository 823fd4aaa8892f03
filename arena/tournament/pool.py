"""A process pool that survives the death of its workers.

``multiprocessing.Pool`` loses the task of a worker that dies (kill -9, the OOM
killer, a crash in native code) and then waits for its result forever.  Here
each worker gets one task at a time over its own pipe, and the coordinator
watches every worker's sentinel: a worker that dies without answering is
replaced, and its task is queued again up to ``retries`` times before it is
given up as :class:`Lost`.  :meth:`WorkerPool.terminate` sends SIGTERM (a worker
kills its engines on it) and SIGKILL to any worker still alive after a grace
period.  Workers are forked, so they inherit the coordinator's logging.

The watchdog finds a worker that is alive but stopped (SIGSTOP, a stuck system call,
a deadlock): a task has a whole-task bound (``time_limit``), and where the pool has a
``step_grace``, each worker also tells the coordinator as it goes how long its next step
may take (:func:`report_progress`: an engine's start-up, a move under its limit), and
is killed once a step outlasts its bound by the grace.

Affinity: where a task names what its worker must keep running for it (``uses``: a game's
engines) and a worker keeps only a few of those beside its task's (``spare``: the idle-engine
bound), the pool plans the next LOOKAHEAD queued tasks so that few engines are restarted
(playorder.py: one order, walked by the workers from its ends) and tells a worker with each
task which of its engines to keep (:func:`planned_keep`), so that a many-engine field does not
restart engines for every game.  Which worker plays a task, and when, changes; never the task.
"""

from __future__ import annotations

import gc
import itertools
import logging
import multiprocessing
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

from ..engine import proctree
from .playorder import Walks

log = logging.getLogger("arena.runner")

TERMINATE_GRACE = 3.0
# A worker's report covers its step and this much more, so that quick steps send about two
# reports a second rather than one a step; a stopped worker is found at most twice this late.
REPORT_SLACK = 0.5
# How many queued tasks are planned at once (affinity): a round of a 32-engine round-robin, so
# that the plan sees every game of most fields, bounded so that planning stays cheap however
# long the schedule (a fraction of a second for each stretch).
LOOKAHEAD = 1024


Task = TypeVar("Task")


@dataclass(frozen=True)
class Lost(Generic[Task]):
    """A task given up because its workers kept dying."""

    task: Task
    reason: str


_NOTHING = object()


@dataclass(frozen=True)
class _Question:
    """A worker's question to the coordinator in the middle of a task (ask_coordinator)."""

    payload: Any


@dataclass(frozen=True)
class _Assigned:
    """A task, and what its worker keeps running beside what the task uses (planned_keep)."""

    task: Any
    keep: tuple[Hashable, ...]


@dataclass(frozen=True)
class _Progress:
    """A worker's report: alive at ``sent`` (time.monotonic(), one clock for every process
    of a machine), and done with its current step within ``seconds`` of it."""

    sent: float
    seconds: float


_coordinator: Connection | None = None  # in a worker: its pipe to the coordinator
_covered_until = 0.0  # in a worker: how long its last report keeps it counted alive
_keep: tuple[Hashable, ...] | None = None  # in a worker: planned_keep() of its current task


def planned_keep() -> tuple[Hashable, ...] | None:
    """In a worker: which of what it runs the coordinator planned it to keep beside its
    current task's own (the rest can go, these are needed soonest); None where there is no
    plan (outside a pool's worker, or a pool without affinity)."""
    return _keep


def report_progress(seconds: float) -> None:
    """In a worker: the step it begins (an engine's start-up, a move) ends within
    ``seconds``, or it counts as hung.  A report stands until the next one and covers
    REPORT_SLACK more than its step; it is sent when the last one does not cover this
    step, or covers it too loosely (a 10 s start-up before a 0.5 s move), so that moves
    of a few milliseconds send about two reports a second, not one a move.  Outside a
    pool's worker: nothing."""
    global _covered_until
    if _coordinator is None:
        return
    now = time.monotonic()
    if now + seconds <= _covered_until <= now + seconds + 2 * REPORT_SLACK:
        return
    _covered_until = now + seconds + REPORT_SLACK
    _coordinator.send(_Progress(now, seconds + REPORT_SLACK))


def ask_coordinator(payload: Any, default: Any = None) -> Any:
    """In a worker: the coordinator's ``answer(payload)``, given after it has taken in every
    result that reached it first (so a decision made on results is never stale by a result
    already sent).  Outside a pool's worker: ``default``."""
    if _coordinator is None:
        return default
    _coordinator.send(_Question(payload))
    return _coordinator.recv()


def _salvage(conn: Connection) -> Any:
    """A result a dead worker sent before it died, or _NOTHING: its reports and questions
    still in the pipe are passed over (nobody plays on them)."""
    try:
        while conn.poll():
            message = conn.recv()
            if not isinstance(message, (_Progress, _Question)):
                return message
    except (EOFError, OSError):
        pass
    return _NOTHING


_STARTUP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _serve(
    conn: Connection, initializer: Callable[..., None], initargs: tuple[Any, ...], func: Callable[[Any], Any]
) -> None:
    global _coordinator, _keep
    _coordinator = conn
    # Started with SIGINT and SIGTERM blocked (_spawn): Ctrl-C is the coordinator's to
    # handle, and a SIGTERM waits until the initializer has set its handler.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        initializer(*initargs)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STARTUP_SIGNALS)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        if isinstance(task, _Assigned):
            _keep, task = task.keep, task.task
        conn.send(func(task))


class WorkerPool:
    def __init__(
        self,
        size: int,
        func: Callable[[Any], Any],
        initializer: Callable[..., None],
        initargs: tuple[Any, ...] = (),
        retries: int = 1,
        cores: Sequence[int] = (),
        answer: Callable[[Any], Any] = lambda payload: None,
        time_limit: Callable[[Any], float | None] = lambda task: None,
        step_grace: float | None = None,
        uses: Callable[[Any], Collection[Hashable]] = lambda task: (),
        spare: int | None = None,
    ) -> None:
        self.size = size
        self.time_limit = time_limit  # seconds a task may take before its worker counts as hung
        # Workers report each step (report_progress); one that outlasts the step it reported
        # by this grace counts as hung.  None: the workers do not report, only time_limit holds.
        self.step_grace = step_grace
        self.started: dict[Connection, float] = {}
        self.step_until: dict[Connection, float] = {}  # the end of each worker's current step, grace included
        self.hung: dict[Connection, float] = {}  # workers killed by the watchdog, and how far into their task
        # answer(payload) answers ask_coordinator() in the workers, once the results that came
        # with or before the question are taken in; the asking worker waits, its time not counting.
        self.answer = answer
        self.waiting: dict[Connection, tuple[_Question, float]] = {}  # questions not answered yet
        # Affinity: what a task needs running (uses), and how many others a worker keeps beside
        # a task's own (spare; None: every one, so any task suits any worker and the queue's
        # order is kept).  held: what each worker runs as the pool last told it, its task's
        # last (a faulted engine is restarted anyway; the model only guides).  walks: the
        # plan of the queued tasks taken off the queue (playorder.py).
        self.uses = uses
        self.spare = spare
        self.held: dict[Connection, list[Hashable]] = {}
        self.walks: Walks[tuple[Any, int]] | None = None
        self.cores = list(cores)  # pin each worker (and the engines it starts) to one of these
        self.core_of: dict[Connection, int] = {}
        self._numbers = itertools.count(1)  # a replacement worker gets a new name in the log
        self.func = func
        self.initializer = initializer
        self.initargs = initargs
        self.retries = retries
        self.ctx = multiprocessing.get_context("fork")
        self.workers: dict[Connection, multiprocessing.process.BaseProcess] = {}
        self.busy: dict[Connection, tuple[Any, int]] = {}  # task and how often it was retried
        self.queue: deque[tuple[Any, int]] = deque()

    def _spawn(self) -> Connection:
        ours, theirs = self.ctx.Pipe()
        proc = self.ctx.Process(
            target=_serve,
            args=(theirs, self.initializer, self.initargs, self.func),
            daemon=True,
            name=f"worker-{next(self._numbers)}",
        )
        # A Ctrl-C between the fork and the worker's own handlers would print a worker's
        # KeyboardInterrupt traceback: the child starts with both blocked; here they wait.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _STARTUP_SIGNALS)
        # The worker inherits every object of ours: frozen, its garbage collector never
        # walks them (each walk would write to, and so copy, the pages they are on).
        gc.freeze()
        try:
            proc.start()
        finally:
            gc.unfreeze()
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        theirs.close()
        self.workers[ours] = proc
        if self.cores:
            # Before its first task, so every engine it starts inherits the mask.
            core = min(self.cores, key=lambda c: sum(1 for used in self.core_of.values() if used == c))
            assert proc.pid is not None  # started
            os.sched_setaffinity(proc.pid, {core})
            self.core_of[ours] = core
        return ours

    def imap_unordered(self, tasks: Iterable[Any]) -> Iterator[Any]:
        """Results (or :class:`Lost`) in the order they finish."""
        self.queue = deque((task, 0) for task in tasks)
        self.walks = None
        idle = [self._spawn() for _ in range(min(self.size, len(self.queue)))]
        self._dispatch(idle)
        while self._pending() or self.busy:
            sentinels = {proc.sentinel: conn for conn, proc in self.workers.items()}
            ready = wait([*self.busy, *sentinels], self._until_overdue())
            done: list[Any] = []
            for conn in [c for c in ready if isinstance(c, Connection)]:
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    continue  # died mid-answer: handled with the sentinels
                if isinstance(message, _Progress):
                    self._progressed(conn, message)
                    continue
                if isinstance(message, _Question):
                    self.waiting[conn] = (message, time.monotonic())
                    continue
                done.append(message)
                del self.busy[conn]
                idle.append(conn)
            for sentinel in [s for s in ready if s in sentinels]:
                conn = sentinels[sentinel]
                self.waiting.pop(conn, None)
                if conn in self.busy and (result := _salvage(conn)) is not _NOTHING:
                    del self.busy[conn]  # it answered before it died
                    done.append(result)
                lost = self._bury(conn)
                if conn in idle:
                    idle.remove(conn)
                if lost is not None:
                    done.append(lost)
                if self._pending():
                    idle.append(self._spawn())
            self._kill_overdue()  # after the reports that came are read: a late read is not a late worker
            self._dispatch(idle)  # first, so workers play on while the caller stores results
            yield from done
            self._answer_waiting()  # after the caller took in the results

    def _answer_waiting(self) -> None:
        """Answer the questions asked so far, in the order they came."""
        for conn, (question, since) in list(self.waiting.items()):
            answer = self.answer(question.payload)
            del self.waiting[conn]
            now = time.monotonic()
            if conn in self.started:
                self.started[conn] += now - since  # waiting is not playing: the watchdog's clock stops
            if self.step_grace is not None:
                self.step_until[conn] = max(self.step_until.get(conn, 0.0), now + self.step_grace)
            self._reply(conn, answer)

    def _progressed(self, conn: Connection, report: _Progress) -> None:
        """A worker's report, which stands until its next: its step ends by ``sent +
        seconds``, the grace on top.  Timed from when it was sent, so a coordinator busy
        storing results kills nobody."""
        if self.step_grace is not None:
            self.step_until[conn] = report.sent + report.seconds + self.step_grace

    def _deadline(self, conn: Connection, task: Any) -> float | None:
        """When a busy worker counts as hung: the end of its step (where workers report)
        or of the longest its task can take, whichever comes first; None: never."""
        limit = self.time_limit(task)
        ends = [self.started[conn] + limit] if limit is not None else []
        if conn in self.step_until:
            ends.append(self.step_until[conn])
        return min(ends) if ends else None

    def _until_overdue(self) -> float | None:
        """Seconds until the first busy worker runs out of time (None: no limit)."""
        ends = [
            end
            for conn, (task, _) in self.busy.items()
            if conn not in self.hung and conn not in self.waiting and (end := self._deadline(conn, task)) is not None
        ]
        return max(0.0, min(ends) - time.monotonic()) if ends else None

    def _kill_overdue(self) -> None:
        """The watchdog: a worker that has not finished its step or its task in time
        (stopped by a signal, stuck in a system call, deadlocked) is killed with everything
        it started; its sentinel then fires and the task is played again like a dead
        worker's."""
        now = time.monotonic()
        for conn, (task, _) in list(self.busy.items()):
            end = self._deadline(conn, task)
            if conn in self.hung or conn in self.waiting or end is None or now < end:
                continue
            if conn.poll():
                continue  # it has said something since: read it first (the next wait returns at once)
            proc = self.workers[conn]
            limit = self.time_limit(task)
            if limit is not None and now - self.started[conn] >= limit:
                what = f"has not finished {task!r} within {round(limit, 1):g} s, the longest it can take"
            else:
                what = (
                    f"has not reported on {task!r} for {now - end + (self.step_grace or 0):.1f} s past its "
                    f"step's limit (the step's own limit and a {self.step_grace:g} s grace)"
                )
            log.error("%s %s: killing it and its engines", proc.name, what)
            self.hung[conn] = now - self.started[conn]
            assert proc.pid is not None  # started
            proctree.kill_tree(proc.pid)

    def _reply(self, conn: Connection, answer: Any) -> None:
        try:
            conn.send(answer)
        except OSError:
            pass  # dead already: its sentinel says so at the next wait

    def cancel_queued(self) -> None:
        """Start no more tasks; the running ones still finish and are yielded."""
        self.queue.clear()
        self.walks = None

    def _pending(self) -> int:
        """Tasks not yet handed out: queued, or planned and not yet taken."""
        return len(self.queue) + (len(self.walks) if self.walks is not None else 0)

    def _dispatch(self, idle: list[Connection]) -> None:
        """Give every idle worker its next task (by affinity, :meth:`_pick`)."""
        while self._pending() and idle:
            conn = idle.pop()
            self.busy[conn], message = self._pick(conn)
            self.started[conn] = now = time.monotonic()
            if self.step_grace is not None:  # until its first report; an earlier report may still cover it
                self.step_until[conn] = max(self.step_until.get(conn, 0.0), now + self.step_grace)
            try:
                conn.send(message)
            except OSError:
                pass  # dead already: its sentinel says so at the next wait

    def _pick(self, conn: Connection) -> tuple[tuple[Any, int], Any]:
        """The next task for ``conn`` (with its retry count) and the message that hands it
        over: the queue's first task where a worker keeps everything; else the next of its
        walk of the plan, with what it keeps (:class:`~arena.tournament.playorder.Walks`)."""
        if self.spare is None:
            entry = self.queue.popleft()
            return entry, entry[0]
        if not self.walks:  # every planned task taken: plan the next stretch
            stretch = [self.queue.popleft() for _ in range(min(LOOKAHEAD, len(self.queue)))]
            room = self.spare + max(len(self.uses(task)) for task, _ in stretch)
            self.walks = Walks(stretch, lambda entry: self.uses(entry[0]), room, self.size)
        entry, keep = self.walks.take(conn, self.held.get(conn, ()))
        self.held[conn] = [*keep, *self.uses(entry[0])]
        return entry, _Assigned(entry[0], tuple(keep))

    def _bury(self, conn: Connection) -> Lost[Any] | None:
        """Forget a dead worker; queue its task again (where its walk of the plan was: the
        worker that replaces it carries on there) or give it up."""
        proc = self.workers.pop(conn)
        self.core_of.pop(conn, None)
        self.held.pop(conn, None)  # its engines died with it
        self.started.pop(conn, None)
        self.step_until.pop(conn, None)
        hung = self.hung.pop(conn, None)
        proc.join()
        conn.close()
        if conn not in self.busy:
            log.error("%s died while idle (exit code %s); starting another", proc.name, proc.exitcode)
            if self.walks is not None:
                self.walks.leave(conn)
            return None
        task, retried = self.busy.pop(conn)
        what = f"hung (killed after {hung:.1f} s)" if hung is not None else f"died (exit code {proc.exitcode})"
        log.error("%s %s in the middle of %r", proc.name, what, task)
        if retried < self.retries:
            self._requeue(conn, (task, retried + 1))
            return None
        if self.walks is not None:
            self.walks.leave(conn)
        last = "it last hung" if hung is not None else f"last exit code {proc.exitcode}"
        return Lost(task, f"its worker process died {retried + 1} times ({last})")

    def _requeue(self, conn: Connection, entry: tuple[Any, int]) -> None:
        """A dead worker's task, to be played next: on its walk where the plan handed it out
        (a stretch planned since: at the queue's head, planned with the next)."""
        if self.walks is not None and self.walks.walking(conn):
            self.walks.put_back(conn, entry)
        else:
            self.queue.appendleft(entry)

    def close(self) -> None:
        """Let every worker finish (they quit their engines) and wait for them."""
        for conn in self.workers:
            try:
                conn.send(None)
            except OSError:
                pass
        self._join()

    def terminate(self) -> None:
        """SIGTERM every worker (each kills its engines), SIGKILL the ones that linger."""
        for proc in self.workers.values():
            if proc.is_alive():
                proc.terminate()
        self._join()

    def _join(self) -> None:
        # One grace period for all workers together, not one each.
        deadline = time.monotonic() + TERMINATE_GRACE
        for proc in self.workers.values():
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in self.workers:
            conn.close()
        self.workers.clear()
        self.busy.clear()
        self.waiting.clear()
        self.step_until.clear()
        self.held.clear()
