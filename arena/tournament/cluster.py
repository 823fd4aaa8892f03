"""Playing a tournament's games on a Dask cluster.

The coordinator (``arena run --cluster ADDRESS``) keeps every job it has
locally: it alone writes the database, commits each game as it arrives and
rates in schedule order (runner).  Only the playing moves: each game becomes a
Dask task that runs :meth:`worker.Worker.play`, the very code arena's own
worker processes run, on a ``Worker`` cached in the Dask worker process, so
engines stay alive between games there too.

* Handshake: before any game, every Dask worker starts every engine once
  (:func:`_handshake`); a worker that cannot is named with the reason and gets
  no games.  An engine no worker can start stops the run, as the local start-up
  check does (exit 3).  A worker that joins later checks itself before its first game.
* Worker loss: Dask runs a task whose worker died again on another worker
  (after ``distributed.scheduler.allowed-failures`` deaths it gives the game
  up as :class:`~arena.tournament.pool.Lost`); a task has one result, and the
  coordinator refuses a second record for a game, so nothing counts twice.
* The drop rule: a drop is told to every worker at once (:func:`_drop_engine`), and a task
  also carries the engines dropped when it was submitted (for workers that join later).  A
  task stops after a game in which an engine that can be dropped failed, handing its other
  games back to be submitted again; so at most the tasks in flight (two a worker thread, at
  least eight) start an engine between the failures that reach its limit and its drop.
* Quick games travel in batches: a task plays as many games, one after another, as
  take about ``TASK_S`` on a worker (one game a task once games take that long), so
  Dask's round trip per task does not cap the games per second of instant engines.
* Watching (``arena run --serve``): while the folder's watching mark is fresh the coordinator
  tells every worker each second (:func:`_watch`); a worker then sends its games' lines as Dask
  events on the run's topic, and the coordinator writes them into the folder
  (:class:`_LiveRelaying`), where the server reads them as a local run's.

``distributed`` is an optional dependency (the ``cluster`` extra); it is
imported only when a cluster is used.
"""

from __future__ import annotations

import atexit
import dataclasses
import itertools
import logging
import os
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from ..engine.player import EngineFault, EngineRefused
from ..record import GameRecord
from .droprule import DropGate
from .executor import Outcome
from .livegames import FRESH_S, MARK_S, LiveChannel, LiveMessage, LiveRelay, MessageSink, WatchMark
from .pool import Lost
from .schedule import ScheduledGame
from .verdict import startup_failure
from .worker import Worker, WorkerConfig, WorkerError

if TYPE_CHECKING:
    from distributed import Client, Future

log = logging.getLogger("arena.cluster")


def game_of(outcome: Outcome) -> int:
    """The schedule index of the game an outcome is about."""
    if isinstance(outcome, WorkerError):
        return outcome.game
    if isinstance(outcome, Lost):
        return outcome.task.index
    return outcome.id if outcome.id is not None else -1


def first_copies(outcomes: Iterable[Outcome], seen: set[int]) -> list[Outcome]:
    """The outcomes of games not seen before (adding them to ``seen``).  A game a rescued task
    played while its first task was still running comes back twice; storing both would count it
    twice (and the database refuses a second record of a game)."""
    fresh = []
    for outcome in outcomes:
        game = game_of(outcome)
        if game in seen:
            log.error("game %d arrived twice; the second copy is ignored", game)
            continue
        seen.add(game)
        fresh.append(outcome)
    return fresh


# Tasks in flight: enough that no worker thread waits for the coordinator's next task
# (a Dask round trip is milliseconds, more on a loaded machine), few enough that an
# engine dropped by max_failures is not started by many tasks already submitted.
IN_FLIGHT_PER_THREAD = 2
MIN_IN_FLIGHT = 8
# Games per task: as many as last about TASK_S on a worker, so a task's round trip through
# Dask is small beside its games; short enough that a worker lost mid-task costs little
# replaying, and results still arrive a few times a second.
TASK_S = 0.05
MAX_BATCH = 256
WORKERS_FRESH_S = 1.0  # the scheduler's list of workers is asked for again after this long
BOUNCES = 3  # times a game may come back: workers that cannot start its engines, results Dask lost
STALE_S = 600.0  # a run's idle engines on a worker are quit after this long unused
CONNECT_TIMEOUT_S = 30.0
STUCK_CHECK_S = 5.0  # how often games tied to vanished workers are looked for
LOOPBACK = "127.0.0.1"  # where local:N listens: a scheduler runs whatever its clients send


class ClusterError(Exception):
    """The cluster cannot be used (unreachable, no worker can play); the message says why."""


class EngineUnavailable(Exception):
    """Raised on a worker that cannot start every engine of the tournament."""

    def __init__(self, address: str, host: str, problems: dict[str, str]) -> None:
        super().__init__(f"{host}: " + "; ".join(f"engine {n}: {r}" for n, r in problems.items()))
        self.address = address
        self.host = host
        self.problems = problems

    # It travels from the worker to the coordinator.
    def __reduce__(self) -> tuple[type[EngineUnavailable], tuple[str, str, dict[str, str]]]:
        return EngineUnavailable, (self.address, self.host, self.problems)


# -- worker side: runs inside each Dask worker process --------------------------


class _RunState:
    """One tournament run's engines in one Dask worker process.

    A Dask worker may run several tasks at once (one per thread), so it keeps a
    set of idle ``Worker``s and lends one to each game."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        self.dropped = [0] * len(config.engines)  # 1: dropped (told by the coordinator, or by a task)
        self.idle: list[Worker] = []
        self.problems: dict[str, str] | None = None  # None until the handshake ran
        self.refused: dict[str, str] = {}  # engines whose declarations do not fit (of problems)
        self.used = time.monotonic()
        self.lock = threading.Lock()
        self.watched_until = 0.0  # someone watches until then (monotonic): told by the coordinator (_watch)
        self.live: LiveChannel | None = None  # made by the first game's task (where Dask knows its worker)

    def handshake(self, skip: Collection[str] = ()) -> dict[str, str]:
        """Start every engine once but the ``skip``ped ones (dropped by the drop rule,
        never started again); {engine: why it cannot start} (empty: all fine).  The
        started engines are kept for the first game."""
        with self.lock:
            if self.problems is not None:
                return self.problems
        worker = Worker(self.config)
        problems: dict[str, str] = {}
        for name in [n for n in worker.names if n not in skip]:
            try:
                worker.engine(name)
                worker.make_room([name])  # the handshake too keeps no more engines than the bound
            except EngineFault as exc:
                worker.discard(name)
                problems[name] = f"{exc.code}: {exc.reason}"
                if isinstance(exc, EngineRefused):
                    self.refused[name] = exc.reason
        with self.lock:
            self.problems = problems
            self.idle.append(worker)
        return problems

    def play(self, games: Sequence[ScheduledGame], dropped: tuple[int, ...]) -> list[GameRecord | WorkerError]:
        problems = self.handshake([name for name, gone in zip(self.config.engines, dropped) if gone])
        if problems:
            raise EngineUnavailable(_address(), _host(), problems)
        for index, gone in enumerate(dropped):
            if gone:
                self.dropped[index] = 1
        with self.lock:
            worker = self.idle.pop() if self.idle else Worker(self.config)
            if self.config.live_topic and self.live is None:
                self.live = _live_channel(self)
        worker.dropped = self.dropped  # read before each game: a drop told meanwhile counts
        worker.live = self.live  # its games shown over Dask's channel while someone watches
        outcomes: list[GameRecord | WorkerError] = []
        try:
            for scheduled in games:
                outcomes.append(worker.play(scheduled))
                if self._may_drop(outcomes[-1]):
                    break  # the rest go back, to be submitted with the drops of then
            return outcomes
        finally:
            with self.lock:
                self.idle.append(worker)
                self.used = time.monotonic()

    def _may_drop(self, outcome: GameRecord | WorkerError) -> bool:
        """Whether the game failed an engine the drop rule counts (max_failures > 0)."""
        if not isinstance(outcome, GameRecord) or outcome.forfeit_seat is None or outcome.termination is None:
            return False
        name = (outcome.players or [])[outcome.forfeit_seat]
        return outcome.termination.is_failure and self.config.max_failures.get(name, 0) > 0

    def shutdown(self) -> None:
        with self.lock:
            workers, self.idle = self.idle, []
        for worker in workers:
            worker.shutdown()


_RUNS: dict[str, _RunState] = {}
_RUNS_LOCK = threading.Lock()
_exit_hooked = False


def _state(config: WorkerConfig) -> _RunState:
    """This run's state in this process; quits the idle engines of runs long unused
    (a coordinator killed with -9 could not release them)."""
    global _exit_hooked
    now = time.monotonic()
    with _RUNS_LOCK:
        if not _exit_hooked:
            atexit.register(_release_all)  # a worker that stops quits its engines
            _exit_hooked = True
        state = _RUNS.get(config.run_tag)
        if state is None:
            state = _RUNS[config.run_tag] = _RunState(config)
        stale = [tag for tag, s in _RUNS.items() if tag != config.run_tag and now - s.used > STALE_S]
        stale_states = [_RUNS.pop(tag) for tag in stale]
    for s in stale_states:
        s.shutdown()
    return state


# A worker's handshake: why engines cannot play there, and which of them are refused for what
# they declare (each by name).
Handshake = tuple[dict[str, str], dict[str, str]]


class WorkerInfo(TypedDict, total=False):
    """What arena reads of a worker in Dask's scheduler information (which has more)."""

    name: str | int
    nthreads: int


def _failed_everywhere(answers: Mapping[str, Handshake | BaseException]) -> dict[str, str]:
    """The engines no worker's handshake could start, each with one worker's fault."""
    faults = [answer[0] for answer in answers.values() if not isinstance(answer, BaseException)]
    if len(faults) < len(answers):
        return {}  # a worker that cannot run arena at all says nothing of the engines
    return {name: why for name, why in faults[0].items() if all(name in f for f in faults)}


def _host() -> str:
    return f"{socket.gethostname()} (pid {os.getpid()})"


def _address() -> str:
    from distributed import get_worker

    try:
        return get_worker().address
    except ValueError:  # not in a Dask worker (tests call the worker side directly)
        return ""


def _handshake(config: WorkerConfig, skip: tuple[str, ...] = ()) -> Handshake:
    """Run on every worker by the coordinator before any game: why engines cannot play
    there, and which of them are refused for what they declare (``skip``: dropped ones)."""
    state = _state(config)
    return state.handshake(skip), state.refused


# What a task gives back: its games' outcomes (fewer than its games when it stopped early for
# the drop rule) and the seconds they took.
TaskResult = tuple[list[GameRecord | WorkerError], float]


def _play(config: WorkerConfig, games: tuple[ScheduledGame, ...], dropped: tuple[int, ...]) -> TaskResult:
    """A batch of games as one Dask task: their outcomes and the seconds they took."""
    start = time.perf_counter()
    outcomes = _state(config).play(games, dropped)
    return outcomes, time.perf_counter() - start


def _drop_engine(run_tag: str, index: int) -> None:
    """Run on every worker by the coordinator when an engine is dropped: no game of this
    run starts it there from now on, whatever the tasks already there carry."""
    with _RUNS_LOCK:
        state = _RUNS.get(run_tag)
    if state is not None:
        state.dropped[index] = 1


def _live_channel(state: _RunState) -> LiveChannel:
    """A Dask worker's games in progress, as events on the run's topic (``log_event``: batched
    with the worker's other messages to the scheduler, which hands them to the coordinator's
    subscription), sent only while the coordinator says someone watches.  Made in a task's
    thread, where Dask names the worker (its HeldLines thread sends through it too)."""
    from distributed import get_worker

    dask_worker, topic = get_worker(), state.config.live_topic

    def send(message: LiveMessage) -> None:
        dask_worker.log_event(topic, dict(message))

    return LiveChannel(lambda: time.monotonic() < state.watched_until, lambda game_id: MessageSink(send, game_id))


def _watch(run_tag: str) -> None:
    """Run on every worker by the coordinator each second someone watches the run's games."""
    with _RUNS_LOCK:
        state = _RUNS.get(run_tag)
    if state is not None:
        state.watched_until = time.monotonic() + FRESH_S


def _release_all() -> None:
    with _RUNS_LOCK:
        states = list(_RUNS.values())
        _RUNS.clear()
    for state in states:
        state.shutdown()


def _release(run_tag: str) -> None:
    """Quit this run's engines on a worker (the run is over)."""
    with _RUNS_LOCK:
        state = _RUNS.pop(run_tag, None)
    if state is not None:
        state.shutdown()


# -- coordinator side -------------------------------------------------------------


ACCEPTED = (
    "give tcp://HOST:PORT or tls://HOST:PORT of a Dask scheduler (an IPv6 HOST in brackets), "
    "or local:N for N workers on this machine"
)
SCHEMES = ("tcp", "tls")  # the Dask transports a coordinator and its workers on other hosts share
# Dask's TLS settings a client needs (the key may be appended to the certificate file instead).
TLS_SETTINGS = ("ca-file", "client.cert", "client.key")


def _tls_settings_missing() -> list[str]:
    """The Dask TLS settings a ``tls://`` client lacks (empty: Dask can make a TLS connection);
    without Dask distributed there is nothing to check (opening the cluster says it is missing)."""
    try:
        import dask.config
        import distributed  # noqa: F401  (its configuration: defaults, files, DASK_* variables)
    except ImportError:
        return []
    return [key for key in TLS_SETTINGS[:2] if not dask.config.get(f"distributed.comm.tls.{key}", None)]


def _tls_advice(address: str, missing: Sequence[str]) -> str:
    keys = ", ".join(f"distributed.comm.tls.{key}" for key in TLS_SETTINGS)
    env = ", ".join(
        "DASK_DISTRIBUTED__COMM__TLS__" + key.replace(".", "__").replace("-", "_").upper() for key in TLS_SETTINGS
    )
    unset = " and ".join(f"distributed.comm.tls.{key}" for key in missing)
    return (
        f"cluster {address!r}: a tls:// address needs Dask's TLS settings ({unset} "
        + ("is" if len(missing) == 1 else "are")
        + f" not set): give {keys} in Dask's configuration (~/.config/dask/*.yaml) "
        f"or as the environment variables {env} (see docs/cluster.md)"
    )


def _address_problem(text: str) -> str | None:
    """Why ``text`` is not a Dask scheduler address arena can use (None: it is one)."""
    scheme, _, location = text.partition("://")
    if scheme not in SCHEMES:
        return f"the transport {scheme + '://'!r} is not one arena plays over" if location else "it has no transport"
    if location.startswith("["):  # [IPv6]:PORT
        host, bracket, port = location[1:].partition("]")
        if not bracket or not port.startswith(":"):
            return "an IPv6 host needs its closing bracket and a port, as in [::1]:8786"
        port = port[1:]
    elif ":" not in location:
        return "it names no port" if location else "it names no host and no port"
    else:
        host, _, port = location.rpartition(":")
        if ":" in host:
            return "an IPv6 host goes in brackets, as in [::1]:8786"
    if not host:
        return "it names no host"
    if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        return "it has no port (1 to 65535) after the host" if not port else f"{port!r} is not a port (1 to 65535)"
    return None


@dataclass(frozen=True)
class ClusterSpec:
    """Where to play: ``local:N`` (a LocalCluster of N worker processes started here, listening
    on 127.0.0.1 only) or a Dask scheduler address such as ``tcp://host:8786``."""

    address: str
    echo: Callable[[str], None] = print  # tells the user about workers that cannot play
    tell: Callable[[str], None] | None = None  # tells the dashboard and the workers found, before the first game

    @classmethod
    def parse(
        cls, text: str, echo: Callable[[str], None] = print, tell: Callable[[str], None] | None = None
    ) -> ClusterSpec:
        """The spec for ``text``; a ClusterError of one line naming it and the accepted forms."""
        text = text.strip()
        if text.startswith("local:"):
            count = text.removeprefix("local:")
            if not (count.isascii() and count.isdigit()) or not 1 <= int(count) <= 256:  # "2" yes, a superscript no
                raise ClusterError(f"cluster {text!r}: write local:N with N from 1 to 256 worker processes")
            return cls(text, echo, tell)
        problem = _address_problem(text)
        if problem is not None:
            raise ClusterError(f"cluster {text!r}: {problem}; {ACCEPTED}")
        if text.startswith("tls://") and (missing := _tls_settings_missing()):
            raise ClusterError(_tls_advice(text, missing))
        return cls(text, echo, tell)

    @property
    def local_workers(self) -> int | None:
        return int(self.address.removeprefix("local:")) if self.address.startswith("local:") else None

    def open(self, config: WorkerConfig, may_start: DropGate | None = None) -> ClusterGames:
        return ClusterGames(self, config, may_start)


@dataclass
class _Task:
    """A task in flight: its games, and the workers it may run on (empty: any)."""

    games: list[ScheduledGame]
    allowed: list[str]


class _BatchSize:
    """How many games the next task gets: as many as take about TASK_S on a worker, learnt
    from the tasks that came back, growing at most twofold a task."""

    def __init__(self) -> None:
        self.size = 1
        self.per_game_s: float | None = None

    def learn(self, games: int, seconds: float) -> None:
        per_game = seconds / max(1, games)
        self.per_game_s = per_game if self.per_game_s is None else (self.per_game_s + per_game) / 2
        fits = int(TASK_S / max(self.per_game_s, 1e-6))
        self.size = max(1, min(MAX_BATCH, 2 * self.size, fits))


class _LiveRelaying:
    """The coordinator's side of watching a cluster's games: while the folder's watching mark
    is fresh, every worker is told each second (``_watch``), and the games they send on the
    run's topic are written into the folder (LiveRelay); with nobody watching, nothing is
    sent either way."""

    def __init__(self, live: Path) -> None:
        self.relay = LiveRelay(live)
        self.mark = WatchMark(live)
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.topic = ""

    def start(self, client: Client, topic: str, run_tag: str) -> None:
        self.topic = topic
        client.subscribe_topic(topic, lambda event: self.relay.take(event[1]))
        self.thread = threading.Thread(target=self._tell, args=(client, run_tag), name="arena-live", daemon=True)
        self.thread.start()

    def _tell(self, client: Client, run_tag: str) -> None:
        while not self.stopping.wait(MARK_S):
            if self.mark():
                try:
                    client.run(_watch, run_tag, on_error="ignore")
                except Exception as exc:  # a worker going away: told again in a second
                    log.debug("could not tell the workers that someone watches: %s", exc)

    def stop(self, client: Client) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=5)
        if self.topic:
            client.unsubscribe_topic(self.topic)
        self.relay.close()


QUIET = logging.CRITICAL + 1  # a handler level no record reaches


class _DaskLogs:
    """Dask's own log lines while arena uses a cluster: into arena.log, never the terminal.
    Dask logs its shutdown races at CRITICAL with a traceback (a worker's last log record
    forwarded to a client that just closed); they cost no game and are not the user's to
    read, so its stream handlers are muted and its warnings go to the run's log."""

    def __init__(self) -> None:
        self.logger = logging.getLogger("distributed")
        self.muted = [
            (handler, handler.level)
            for handler in self.logger.handlers
            if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler)
        ]
        for handler, _ in self.muted:
            handler.setLevel(QUIET)
        self.relay = _ToRunLog(logging.WARNING)
        self.logger.addHandler(self.relay)

    def restore(self) -> None:
        self.logger.removeHandler(self.relay)
        for handler, level in self.muted:
            handler.setLevel(level)


class _ToRunLog(logging.Handler):
    """A record handed to the handlers of the "arena" logger itself (arena.log), not to its
    ancestors: Python's last-resort handler would print it on the terminal after all."""

    def emit(self, record: logging.LogRecord) -> None:
        for handler in logging.getLogger("arena").handlers:
            if record.levelno >= handler.level:
                handler.handle(record)


class ClusterGames:
    """A :class:`~arena.tournament.executor.GameExecutor` on a Dask cluster."""

    task = staticmethod(_play)  # what a game's task runs (the coordinator benchmark swaps it)

    def __init__(
        self,
        spec: ClusterSpec,
        config: WorkerConfig,
        may_start: DropGate | None = None,
    ) -> None:
        # The drop rule's gate (droprule.FailureTracker.may_start): asked which engines are
        # dropped already (a resumed run), so that the handshake does not start them.
        self.may_start = may_start
        try:
            import distributed
        except ImportError:
            raise ClusterError(
                "running on a cluster needs Dask distributed: pip install -e '.[cluster]' in arena's source folder"
            ) from None
        self.distributed = distributed
        self.spec = spec
        # Spinning for quick engines, or lending them a worker's core, is decided per machine
        # by the local runner; on a cluster arena cannot know what else shares a worker's
        # CPUs, so it does neither.
        self.config = dataclasses.replace(config, spin=False, share_core=False, coordinator=0, affinity=False)
        # The games in progress travel over Dask (a worker may be on a machine without the
        # folder): the coordinator writes them into the folder as a local run's workers do.
        self.live = _LiveRelaying(Path(config.live_dir)) if config.live_dir else None
        if self.live is not None:
            self.config = dataclasses.replace(self.config, live_dir="", live_topic=f"arena-live-{config.run_tag}")
        self.dropped = [0] * len(config.engines)
        self.names = list(config.engines)
        self.bad: dict[str, str] = {}  # worker address -> why it cannot play
        self.cluster: distributed.LocalCluster | None = None
        self.queue: deque[ScheduledGame] = deque()
        self.batch = _BatchSize()
        self._known: tuple[float, dict[str, WorkerInfo]] | None = None  # when the workers were asked, and them
        self.dask_logs = _DaskLogs()
        try:
            self.client = self._connect()
        except BaseException:
            self.dask_logs.restore()
            raise
        self._tell(f"dashboard {self.client.dashboard_link}")
        try:
            self.client.forward_logging("arena", logging.INFO)  # workers' log lines go to arena.log
            self._check_workers()
            if self.live is not None:
                self.live.start(self.client, self.config.live_topic, self.config.run_tag)
        except BaseException:
            self._close_client()
            raise

    def _connect(self) -> Client:
        distributed = self.distributed
        n = self.spec.local_workers
        try:
            if n is not None:
                self.cluster = local = distributed.LocalCluster(
                    n_workers=n,
                    threads_per_worker=1,
                    processes=True,
                    host=LOOPBACK,  # scheduler and workers: reachable from this machine only
                    dashboard_address=f"{LOOPBACK}:0",
                    silence_logs=QUIET,  # the workers' own Dask lines: their stderr is the terminal
                )
                log.info("Dask dashboard: %s", local.dashboard_link)
                client: Client = distributed.Client(local)
            else:
                client = distributed.Client(self.spec.address, timeout=CONNECT_TIMEOUT_S)
            return client
        except (OSError, TimeoutError) as exc:
            if self.cluster is not None:
                self.cluster.close()
            tls = " and that Dask's TLS settings (distributed.comm.tls.*) name files that exist"
            raise ClusterError(
                f"cannot reach the Dask scheduler at {self.spec.address} ({exc}); start one "
                f"with 'dask scheduler' and give its address"
                + (tls if self.spec.address.startswith("tls://") else "")
                + " (see docs/cluster.md)"
            ) from None

    def _check_workers(self) -> None:
        """The handshake: every worker starts every engine, before any game."""
        if not self._workers():
            log.warning("the cluster has no workers yet; games wait for one to join")
            self._tell("no workers yet; the games wait for one to join")
            return
        dropped = tuple(n for n in self.names if self.may_start is not None and not self.may_start(n))
        answers: dict[str, Handshake | BaseException] = self.client.run(
            _handshake, self.config, dropped, on_error="return"
        )
        refused = {
            name: why
            for answer in answers.values()
            if not isinstance(answer, BaseException)
            for name, why in answer[1].items()
        }
        if refused:  # the engine's own declarations: the same on every worker
            raise ClusterError(
                f"tournament {self.config.tournament!r}: "
                + "; ".join(f"engine {name!r}: {why}" for name, why in refused.items())
                + ". Fix the engine's entry (or the engine)."
            )
        for address, answer in answers.items():
            if isinstance(answer, BaseException):
                why = f"cannot run arena there: {type(answer).__name__}: {answer}"
            elif answer[0]:
                why = "; ".join(f"engine {name}: {reason}" for name, reason in answer[0].items())
            else:
                continue
            self.bad[address] = why
            self.spec.echo(f"arena: cluster worker {self._describe(address)} cannot play: {why}; it gets no games")
            log.error("cluster worker %s cannot play: %s", address, why)
        if len(self.bad) == len(answers):
            failed = _failed_everywhere(answers)
            if failed:  # the start-up check's stop (exit 3): no worker could play the engine's games
                where = f"cluster {self.spec.address} (no worker of the cluster could start them)"
                raise startup_failure(where, list(failed.items()))
            raise ClusterError(
                f"no worker of the cluster at {self.spec.address} can start every engine; "
                f"install the engines there (see docs/cluster.md)"
            )
        log.info("cluster %s: %d workers can play", self.spec.address, len(answers) - len(self.bad))
        able = [self._describe(a) for a in answers if a not in self.bad]
        self._tell(f"{len(able)} worker{'s' if len(able) != 1 else ''} can play: {', '.join(able)}")

    def _tell(self, text: str) -> None:
        if self.spec.tell is not None:
            self.spec.tell(f"arena: cluster {self.spec.address}: {text}")

    def _describe(self, address: str) -> str:
        info = self._workers().get(address, {})
        name = info.get("name")
        return f"{address} ({name})" if name not in (None, "", address) else address

    # -- the executor interface ------------------------------------------------

    def imap_unordered(self, tasks: Iterable[ScheduledGame]) -> Iterator[Outcome]:
        """Records (or :class:`Lost`) in the order games finish."""
        for batch in self.imap_batches(tasks):
            yield from batch

    def imap_batches(self, tasks: Iterable[ScheduledGame]) -> Iterator[list[Outcome]]:
        """As :meth:`imap_unordered`, the outcomes of one task together (stored in one commit)."""
        self.queue = queue = deque(tasks)
        bounces: dict[int, int] = {}
        pending: dict[Future[TaskResult], _Task] = {}
        seen: set[int] = set()
        attempts = itertools.count()

        def fill() -> None:
            """Top up the tasks in flight."""
            capacity = max(MIN_IN_FLIGHT, IN_FLIGHT_PER_THREAD * self._threads())
            while queue and len(pending) < capacity:
                batch = [queue.popleft() for _ in range(min(self.batch.size, len(queue)))]
                pending.update([self._submit(batch, next(attempts))])

        while queue or pending:
            for future in [f for f in pending if f.cancelled()]:  # e.g. the scheduler restarted
                queue.extendleft(reversed(pending.pop(future).games))
            fill()
            try:
                done = self.distributed.wait(list(pending), timeout=STUCK_CHECK_S, return_when="FIRST_COMPLETED").done
            except TimeoutError:
                self._rescue(pending, queue)
                continue
            for future in done:
                task = pending.pop(future)
                outcomes = self._outcomes(future, task.games, bounces, queue)
                future.release()
                fill()  # first, so workers play on while the caller stores the results
                fresh = first_copies(outcomes, seen)
                if fresh:
                    yield fresh

    def cancel_queued(self) -> None:
        """Submit no more games; those already submitted still finish and are yielded."""
        self.queue.clear()

    def _submit(self, games: list[ScheduledGame], attempt: int) -> tuple[Future[TaskResult], _Task]:
        # Only once a worker turned out unable to play are games tied to the others; a
        # game tied to workers that are all gone is submitted again (_rescue).
        good = [w for w in self._workers() if w not in self.bad] if self.bad else []
        future = self.client.submit(
            self.task,
            self.config,
            tuple(games),
            tuple(self.dropped),
            pure=False,
            key=f"arena-{self.config.run_tag[:12]}-game-{games[0].index}-{attempt}-x{len(games)}",
            workers=good or None,
        )
        return future, _Task(games, good)

    def _rescue(self, pending: dict[Future[TaskResult], _Task], queue: deque[ScheduledGame]) -> None:
        """Take back the games waiting for workers that are gone (their replacements have
        new addresses) and queue them again."""
        alive = set(self._workers(fresh=True))
        for future, task in list(pending.items()):
            if task.allowed and future.status == "pending" and not alive.intersection(task.allowed):
                del pending[future]
                future.cancel()
                queue.extendleft(reversed(task.games))

    def _outcomes(
        self,
        future: Future[TaskResult],
        games: list[ScheduledGame],
        bounces: dict[int, int],
        queue: deque[ScheduledGame],
    ) -> Sequence[Outcome]:
        """The records of a task's games, or Lost, or none when they go back in the queue."""
        try:
            outcomes, seconds = future.result()
        except EngineUnavailable as exc:
            if exc.address and exc.address not in self.bad:
                self.bad[exc.address] = str(exc)
                self._known = None
                self.spec.echo(f"arena: cluster worker {exc.address} cannot play: {exc}; it gets no more games")
                log.error("cluster worker %s cannot play: %s", exc.address, exc)
            return self._again(
                games,
                bounces,
                queue,
                f"landed {BOUNCES} times on cluster workers that cannot start its engines (last: {exc})",
            )
        except self.distributed.scheduler.KilledWorker as exc:
            return [Lost(game, f"the Dask workers playing it died too often ({exc})") for game in games]
        except Exception as exc:
            if future.status == "error":  # the task itself raised: a bug; the tournament goes on
                return [Lost(game, f"its Dask task failed: {type(exc).__name__}: {exc}") for game in games]
            # The client lost the result, not the task: e.g. the worker holding the finished
            # game died before handing it over, and Dask's recomputation tripped on its own state.
            log.warning(
                "games %s: Dask lost their result (%s: %s); they are played again",
                ", ".join(str(g.index) for g in games),
                type(exc).__name__,
                exc,
            )
            why = f"had its result lost by Dask {BOUNCES} times (last: {type(exc).__name__}: {exc})"
            return self._again(games, bounces, queue, why)
        # A task stops after a game that failed an engine the drop rule counts: its other games
        # are submitted again, carrying the drops the runner makes of that failure.
        queue.extendleft(reversed(games[len(outcomes) :]))
        self.batch.learn(len(outcomes), seconds)
        return outcomes

    @staticmethod
    def _again(
        games: list[ScheduledGame], bounces: dict[int, int], queue: deque[ScheduledGame], why: str
    ) -> list[Outcome]:
        """Queue the games again, but give up (``why``) those that came back BOUNCES times."""
        lost: list[Outcome] = []
        again = []
        for game in games:
            bounces[game.index] = bounces.get(game.index, 0) + 1
            if bounces[game.index] >= BOUNCES:
                lost.append(Lost(game, f"it {why}"))
            else:
                again.append(game)
        queue.extendleft(reversed(again))
        return lost

    def _workers(self, fresh: bool = False) -> dict[str, WorkerInfo]:
        """The scheduler's workers; each asking is a round trip to it, so between games the
        answer of the last second serves."""
        now = time.monotonic()
        if fresh or self._known is None or now - self._known[0] > WORKERS_FRESH_S:
            self._known = now, self.client.scheduler_info()["workers"]
        return self._known[1]

    def _threads(self) -> int:
        return sum(info.get("nthreads", 1) for address, info in self._workers().items() if address not in self.bad)

    def drop(self, name: str) -> None:
        """Games started from now on forfeit ``name`` without starting it: told to every
        worker now, and carried by every task submitted from now on."""
        index = self.names.index(name)
        self.dropped[index] = 1
        try:
            self.client.run(_drop_engine, self.config.run_tag, index, on_error="ignore")
        except Exception as exc:  # a worker going away: the tasks still carry the drop
            log.warning("could not tell the cluster's workers that %s is dropped: %s", name, exc)

    def close(self) -> None:
        """Quit the engines on every worker and disconnect (a LocalCluster is shut down)."""
        try:
            self.client.run(_release, self.config.run_tag, on_error="ignore")
        except Exception as exc:  # the cluster going away at the end costs no game
            log.warning("could not release the engines on the cluster: %s", exc)
        self._close_client()

    def terminate(self) -> None:
        self.close()

    def _close_client(self) -> None:
        try:
            if self.live is not None:
                self.live.stop(self.client)
            self.client.close()
        finally:
            try:
                if self.cluster is not None:
                    self.cluster.close()
            finally:
                self.dask_logs.restore()
