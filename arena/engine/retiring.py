"""Engines told to quit, seen off in the background: their exit awaited, a kill after the grace.

A worker that quits an engine between games need not stand by while it exits (a Python
engine takes some tens of milliseconds to tear itself down, more on a busy machine): it sends
``quit`` and hands the engine to :class:`Retiring`, whose thread waits for each exit (on its
pidfd: seen as it happens) and kills, reaps and sweeps what is still running once the engine's
grace (QUIT_GRACE from its ``quit``) is over, as a blocking quit would.  An engine still counts
until it is gone: a worker with a bound on its engines asks :meth:`Retiring.wait_fewer` before
it starts another, so the quitting ones are counted in the bound.  The thread never starts a
process (an engine's parent-death signal is tied to the thread that started it).
"""

from __future__ import annotations

import logging
import threading
import time

from .conversation import Conversation
from .transport import QUIT_GRACE

log = logging.getLogger("arena.engine")


class Retiring:
    """The engines a worker told to quit and that may still run, seen off by one thread."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._leaving: list[tuple[float, Conversation]] = []  # (when its grace ends, engine), in quit order
        self._thread: threading.Thread | None = None

    def __len__(self) -> int:
        """How many may still run (told to quit, not yet seen gone)."""
        return len(self._leaving)

    def pids(self) -> set[int]:
        """Their processes (still the worker's children until they are reaped)."""
        # Read once: the thread may be killing one meanwhile (its process object then goes).
        return {proc.pid for _, engine in list(self._leaving) if (proc := engine.proc) is not None}

    def retire(self, engine: Conversation) -> None:
        """Tell ``engine`` to quit and see it off in the background."""
        grace = QUIT_GRACE if engine.say_quit() else 0.0  # one that cannot be told is killed at once
        with self._changed:
            self._leaving.append((time.monotonic() + grace, engine))
            if self._thread is None:
                self._thread = threading.Thread(target=self._see_off, name="retiring", daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def wait_fewer(self, most: int) -> None:
        """Return once at most ``most`` engines are still leaving (0: every one is gone)."""
        with self._changed:
            while len(self._leaving) > most:
                self._changed.wait()

    def kill_unwaited(self) -> None:
        """Kill every leaving engine without waiting on anything (after a signal: the thread
        may hold a process object's lock)."""
        for _, engine in list(self._leaving):
            if engine.child is not None:
                engine.child.kill_unwaited()

    def _see_off(self) -> None:
        while True:
            with self._changed:
                while not self._leaving:
                    self._changed.wait()
                deadline, engine = self._leaving[0]  # the oldest: the first grace to end
            try:
                engine.see_off(deadline)
            except Exception:  # a bug must neither leave the worker waiting nor stop the thread
                log.exception("seeing off %s", engine.name)
            with self._changed:
                self._leaving.pop(0)
                self._changed.notify_all()
