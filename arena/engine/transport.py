"""The line transport under both engine conversations: one engine process and its pipes.

Protocol v1 (``process.py``) and GTP (``gtp.py``) are two conversations over the same
:class:`Transport`, the few calls a conversation makes (python-chess's transport, the
reads and writes of fastchess's process seam).  :class:`PipeTransport` is the one that
runs a program: it puts together three parts, each with one job: the process
(``child.py``: launch, kill, CPU budgets, how it ended), its pipes (``pipes.py``: bounded
lines under deadlines, waiting as :mod:`arena.engine.waiting`'s strategy says) and what it
wrote on stderr (``stderrtail.py``), and turns what goes wrong into one
:class:`EngineFault` carrying the termination code recorded in the game.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

from ..record import Termination
from .child import ChildProcess
from .pipes import LinePipes, PipeEnded, Reason
from .player import EngineFault, EngineSpec
from .stderrtail import StderrTail
from .waiting import CoreShare, Waiting, chosen

QUIT_GRACE = 1.0  # after 'quit', how long an engine may take to exit before it is killed
EXIT_WAIT = 0.25  # after end of file, how long to wait for the exit status


class Trace(Protocol):
    """Where a transport copies what it carries (trace.SeatTrace: a game's transcript)."""

    def sent(self, text: str) -> None: ...

    def received(self, line: str) -> None: ...

    def stderr(self, chunk: bytes) -> None: ...


class Transport(Protocol):
    """Lines to and from one engine, under deadlines: what a conversation uses."""

    trace: Trace | None  # while a game is transcribed (--trace)

    @property
    def alive(self) -> bool: ...

    @property
    def waiting(self) -> Waiting:
        """How it waits for the engine (waiting.py): a conversation frames each answer
        with its begin(), answered(elapsed) and end()."""
        ...

    def launch(self) -> None:
        """Start the engine without waiting for it; raises EngineFault."""

    def send(self, text: str, deadline: float) -> None:
        """Write ``text`` and a newline, never blocking past ``deadline``."""

    def read_line(self, deadline: float, code: Termination, reason: Reason) -> str:
        """The next line (without its newline), or EngineFault(code, reason) at ``deadline``."""
        ...

    def poll_lines(self) -> bool:
        """Take what has come, without waiting: whether a whole line is now buffered."""
        ...

    def has_line(self) -> bool:
        """Whether a whole line is buffered (read_line(0.0, ...) returns it)."""
        ...

    def renew_cpu_budget(self) -> None:
        """A game starts: the spec's cpu_seconds again, counted from what was used."""

    def check_cpu_budget(self) -> None:
        """EngineFault if the engine went on past its CPU budget (it ignored SIGXCPU)."""

    def close(self, goodbye: str) -> None:
        """Send ``goodbye`` (the protocol's quit), give the engine QUIT_GRACE to exit,
        then kill it."""

    def say_goodbye(self, goodbye: str) -> bool:
        """The first half of :meth:`close`: send ``goodbye`` without waiting for the exit;
        whether it was sent (if not, the engine is killed at once)."""
        ...

    def see_off(self, deadline: float) -> None:
        """The second half: wait for the exit until ``deadline`` (time.monotonic()), then kill
        what is left and reap.  Needs no other thread's help: it may run in a thread of its own."""

    def kill(self) -> None:
        """Kill the engine (and whatever it started) now, and reap it."""


@dataclass(frozen=True)
class PipeSettings:
    """How a worker runs its engines' processes (the same for each of them)."""

    run_tag: str = ""  # tags every process of one tournament run (proctree)
    spin: bool = True  # may spin for quick engines (SPIN_S): not when every CPU has a game
    share: CoreShare | None = None  # quick engines move onto the worker's core instead (no spin)
    stderr_home: str = ""  # where the whole stderr tail goes (named in crash reasons)


ALONE = PipeSettings()  # an engine run on its own (a check, a test): no run, no spare core


class PipeTransport:
    """A :class:`Transport` over an engine program: its process, its pipes, its stderr."""

    def __init__(self, spec: EngineSpec, settings: PipeSettings = ALONE) -> None:
        self.settings = settings
        share = settings.share
        cpus = share.cpus if share else ()  # all the run's CPUs, not the one the worker is pinned to
        self.child = ChildProcess(spec, settings.run_tag, cpus)
        self.stderr = StderrTail(settings.stderr_home)
        self.trace: Trace | None = None
        self.waiting = Waiting()  # until launched: asleep in every wait
        self.pipes: LinePipes | None = None  # once launched

    def __repr__(self) -> str:
        proc = self.child.proc
        return f"PipeTransport({self.child.spec.name!r}, pid={proc.pid if proc is not None else None})"

    @property
    def alive(self) -> bool:
        return self.child.alive and self.pipes is not None and not self.pipes.ended

    def launch(self) -> None:
        child = self.child
        child.launch()
        assert child.proc is not None
        self.waiting = chosen(self.settings.share, self.settings.spin, child.engine_pid)
        self.pipes = LinePipes(*child.pipes(), child.exit_fd, self.waiting, self._keep_stderr)

    def send(self, text: str, deadline: float) -> None:
        pipes = self.pipes
        assert pipes is not None
        if self.trace is not None:
            self.trace.sent(text)
        try:
            pipes.write((text + "\n").encode(), deadline)
        except PipeEnded as end:
            raise EngineFault(Termination.CRASH, self._ended(end.what)) from None

    def read_line(self, deadline: float, code: Termination, reason: Reason) -> str:
        pipes = self.pipes
        assert pipes is not None
        try:
            raw = pipes.read_line(deadline, code, reason)
        except PipeEnded as end:
            raise EngineFault(Termination.CRASH, self._ended(end.what)) from None
        if self.trace is not None:
            self.trace.received(raw.decode(errors="backslashreplace").removesuffix("\r"))
        try:
            return raw.decode().removesuffix("\r")  # one: a second is part of the line
        except UnicodeDecodeError:
            raise EngineFault(Termination.PROTOCOL, "line is not valid UTF-8") from None

    def poll_lines(self) -> bool:
        assert self.pipes is not None
        return self.pipes.poll_lines()

    def has_line(self) -> bool:
        return self.pipes is not None and self.pipes.has_line()

    def renew_cpu_budget(self) -> None:
        self.child.renew_cpu_budget()

    def check_cpu_budget(self) -> None:
        self.child.check_cpu_budget()

    def close(self, goodbye: str) -> None:
        said = self.say_goodbye(goodbye)
        self.see_off(time.monotonic() + (QUIT_GRACE if said else 0.0))

    def say_goodbye(self, goodbye: str) -> bool:
        if not self.alive:
            return False
        try:
            self.send(goodbye, time.monotonic() + QUIT_GRACE)
        except EngineFault:
            return False
        # Off the worker's core now, from the thread that plays (a CoreShare pins the thread
        # that calls it); the kill, perhaps in another thread, then has nothing to move.
        self.waiting.gone()
        self.waiting = Waiting()
        return True

    def see_off(self, deadline: float) -> None:
        if self.child.proc is None:
            return
        self.child.wait_exit(max(0.0, deadline - time.monotonic()))
        self.kill()

    def kill(self) -> None:
        """Kill the process group and every tagged process that left it, reap, and close the pipes."""
        if self.child.proc is None:
            return
        self.waiting.gone()
        self.child.kill()
        if self.pipes is not None:
            self.pipes.close()

    def _keep_stderr(self, chunk: bytes) -> None:
        if self.trace is not None:
            self.trace.stderr(chunk)
        self.stderr.keep(chunk)

    def _ended(self, what: str) -> str:
        """The reason when the engine closed a pipe or exited: ``what`` it did, how its
        process ended and its last words on stderr."""
        if self.child.proc is None:
            return f"engine {what}"
        if not self.child.wait_exit(EXIT_WAIT):
            return f"engine {what} (process still running)"
        if self.pipes is not None:
            self.pipes.drain_stderr()  # before the status: a sandbox's limit may be named there
        status = self.child.exit_status(0, bytes(self.stderr.data[-2048:]))
        return f"engine {what}: {status}{self.stderr.last_words()}"
