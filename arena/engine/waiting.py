"""How a transport waits for its engine's next bytes: asleep, spinning, or with the engine on our core.

The transport (``transport.py``) carries lines over the engine's pipes (``pipes.py``), and
each wait of theirs for input is a ``poll()`` that one :class:`Waiting` strategy makes,
chosen by :func:`chosen` from the worker's settings when the engine is launched, and told
by the conversation when an answer is awaited and how long it took to come.

An engine that answers quickly is waited for by polling without sleeping, for up to
``SPIN_S``, when it may run on another CPU than ours: on a VM a process that sleeps and is
woken from another vCPU pays about 20 us of CPU and 25 us of latency, more than the spin
costs (docs/performance.md).  "Quickly": the last spin caught the answer, or, waited for
asleep, it came within twice ``SPIN_S`` (the wake-up's own latency allowed for).  An engine
that thinks is waited for by sleeping; one on our own CPU needs that CPU to answer, so it is
never spun for; nor is any engine when every CPU has a game (runner: the spin would take CPU
another game's engine could use).  Where CPUs can be pinned, the worker moves a quick engine
onto its own core instead (:class:`CoreShare`): handing the move over is then a switch
between two processes on one CPU (a few us), which costs less than either.  The spin is for
the other systems.
"""

from __future__ import annotations

import math
import select
import time
from collections.abc import Sequence

from . import proctree

SPIN_S = 50e-6  # how long a quick engine's answer is spun for (see above)
# An engine on the worker's core that has not answered within this long of the go is
# moved back to all the run's CPUs before the wait goes on: a search (a multi-threaded
# one above all) is never kept on one core for longer.
SHARE_PATIENCE_S = 1e-3

Events = list[tuple[int, int]]  # what select.poll.poll returns: (descriptor, event) pairs


class CoreShare:
    """One worker's core, lent to its quick engines.  The engines run on ``cpus`` (all the
    run may use).  When the first one is moved to the worker, the worker pins itself to
    the CPU it is on; when the last one leaves, at the latest at the end of each game
    (:meth:`vacate`), it goes back to ``cpus``, so each game's CPU follows the machine's
    load.  Used from the thread that plays the games (the worker's main thread): it is
    the thread that pins itself."""

    def __init__(self, cpus: Sequence[int]) -> None:
        self.cpus = tuple(cpus)
        self.home: int | None = None  # the CPU the worker is pinned to while it has guests
        self.guests: set[int] = set()  # the engines (pids) whose main thread is on it

    def enter(self, pid: int) -> None:
        """Move the engine's main thread (the one that usually talks to us) onto our core."""
        if self.home is None:
            cpu = proctree.current_cpu()
            if cpu is None or not proctree.set_thread_cpus(0, (cpu,)):
                return
            self.home = cpu
        if proctree.set_thread_cpus(pid, (self.home,)):
            self.guests.add(pid)
        else:
            self._release()  # it is gone: the worker needs no core if it has no other guest

    def leave(self, pid: int, alive: bool = True) -> None:
        """The engine, every thread and every process it started, back on ``cpus``."""
        if pid in self.guests:
            self.guests.remove(pid)
            if alive:
                proctree.set_tree_cpus(pid, self.cpus)
        self._release()

    def vacate(self) -> None:
        """A game ended: every engine off our core and the worker free again."""
        for pid in list(self.guests):
            self.leave(pid)

    def _release(self) -> None:
        if not self.guests and self.home is not None:
            proctree.set_thread_cpus(0, self.cpus)
            self.home = None


class Waiting:
    """Asleep in every wait: an engine on our only CPU, or every CPU has a game (no spin,
    no core to share).  The base of the other two: each answer wait is framed by
    :meth:`begin` and :meth:`end`, with :meth:`answered` between when the answer came."""

    def __init__(self) -> None:
        self.quick = False  # whether the next answer is expected within SPIN_S

    def begin(self) -> None:
        """The reads that follow wait for an answer (a move): spun for if the last one was quick."""

    def answered(self, elapsed: float) -> None:
        """The answer came after ``elapsed`` seconds: learn whether the next will be quick."""

    def end(self) -> None:
        """The answer wait is over (answered or not): sleep in every wait that follows."""

    def wait(self, news: select.poll, timeout: float) -> Events:
        """What ``news`` reports within ``timeout`` seconds (none if nothing came)."""
        return news.poll(math.ceil(timeout * 1000))

    def gone(self) -> None:
        """The engine was killed."""


class Spin(Waiting):
    """Spin for a quick engine's answer for up to SPIN_S before sleeping (the engine may run
    on another CPU than ours)."""

    def __init__(self) -> None:
        super().__init__()
        self._spun = False  # the current answer wait began spinning
        self._spinning = False  # spin before sleeping in the current wait

    def begin(self) -> None:
        self._spinning = self._spun = self.quick

    def answered(self, elapsed: float) -> None:
        caught = self._spun and self._spinning  # wait() stops spinning when it misses
        self.quick = caught if self._spun else elapsed <= 2 * SPIN_S
        self._spinning = False

    def end(self) -> None:
        self._spinning = False

    def wait(self, news: select.poll, timeout: float) -> Events:
        """poll() without sleeping for up to SPIN_S, then sleeping for the rest of ``timeout``."""
        if not self._spinning:
            return super().wait(news, timeout)
        poll, now = news.poll, time.monotonic
        until = now() + min(SPIN_S, timeout)
        while True:
            events: Events = poll(0)
            if events:
                return events
            if now() >= until:
                self._spinning = False  # a slow answer this time: sleep from now on
                return poll(math.ceil((timeout - SPIN_S) * 1000)) if timeout > SPIN_S else []


class Share(Waiting):
    """A quick engine's main thread on the worker's core (:class:`CoreShare`), moved off it
    when an answer is slow or the wait outlasts SHARE_PATIENCE_S."""

    def __init__(self, share: CoreShare, pid: int) -> None:
        super().__init__()
        self.share = share
        self.pid = pid
        self._home_until: float | None = None  # when the engine leaves the worker's core in this wait

    @property
    def on_home(self) -> bool:
        """Whether the engine's main thread is on the worker's core."""
        return self.pid in self.share.guests

    def begin(self) -> None:
        self._home_until = None  # the patience counts from the first wait for this answer

    def answered(self, elapsed: float) -> None:
        self.quick = elapsed <= 2 * SPIN_S
        if self.quick and not self.on_home:
            self.share.enter(self.pid)
        elif self.on_home and not self.quick:
            self.share.leave(self.pid)

    def end(self) -> None:
        self._home_until = None

    def wait(self, news: select.poll, timeout: float) -> Events:
        """poll() with the engine on our core until SHARE_PATIENCE_S after this answer's
        first wait (an info line or stderr between does not restart it), then with the
        engine away from it for the rest."""
        if not self.on_home:
            return super().wait(news, timeout)
        now = time.monotonic()
        if self._home_until is None:
            self._home_until = now + SHARE_PATIENCE_S
        patience = self._home_until - now
        if patience > 0:
            events: Events = news.poll(math.ceil(min(timeout, patience) * 1000))
            if events or timeout <= patience:
                return events
            timeout -= patience
        self.share.leave(self.pid)
        return news.poll(math.ceil(timeout * 1000))

    def gone(self) -> None:
        self.share.leave(self.pid, alive=False)


def chosen(share: CoreShare | None, spin: bool, pid: int) -> Waiting:
    """The strategy for a newly launched engine (``pid``): its worker's core where one is
    lent, else the spin where allowed and the engine may run on another CPU, else sleep."""
    if share is not None:
        return Share(share, pid)
    if spin and len(proctree.usable_cpus()) > 1:
        return Spin()
    return Waiting()
