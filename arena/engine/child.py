"""The engine program's process, as arena's child: started, watched, given CPU budgets, killed.

What fastchess's ``iprocess.hpp`` is beside its UCI engine: the process alone, apart from
what is said over its pipes (``pipes.py`` carries the bytes, ``transport.py`` puts the two
together).  The process runs in its own process group, so that killing it also kills any
children it forked, and it is always reaped; :mod:`arena.engine.proctree` adds an
environment tag (children that left the group are found and killed too), death with the
arena process that started it, and the CPU budget of each game.  A worker holds this
object to kill its engines without waiting on anything after a signal (:meth:`kill_unwaited`).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
from collections.abc import Sequence
from typing import IO

from ..record import Termination
from . import proctree
from .player import EngineFault, EngineSpec
from .sandbox import Confinement, confine


class ChildProcess:
    """One engine process and whatever it starts: its launch, life, CPU budget and end."""

    def __init__(self, spec: EngineSpec, run_tag: str = "", cpus: Sequence[int] = ()) -> None:
        self.spec = spec
        self.run_tag = run_tag  # tags every process of one tournament run (proctree)
        self.cpus = tuple(cpus)  # the CPUs it may run on (none: any)
        self.proc: subprocess.Popen[bytes] | None = None  # while it runs (None before, or once killed)
        self.exit_fd: int | None = None  # a pidfd, readable once it exits (None: no pidfd here)
        self.tag = ""  # this start's process tag (proctree): its processes, the stray ones too
        self._cpu_limit: float | None = None  # CPU seconds (since its start) this game's budget ends at
        self._cpu_clock: proctree.CpuClock | None = None  # the engine's CPU, read each move under a budget
        self._confinement: Confinement | None = None  # how it was started: as it is, or sandboxed
        self.engine_pid = 0  # the engine's own process: the one started, or the one its sandbox started

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def launch(self) -> None:
        """Start the process, its three pipes non-blocking; raises EngineFault."""
        self.tag = proctree.new_tag()
        self._cpu_limit = None
        self._stop_cpu_clock()
        self.proc = self._popen()
        assert self._confinement is not None
        self.engine_pid = self._confinement.engine_pid(self.proc.pid)
        for stream in self.pipes():
            os.set_blocking(stream.fileno(), False)
        try:
            self.exit_fd = os.pidfd_open(self.proc.pid)
        except (AttributeError, OSError):
            self.exit_fd = None  # no pidfd (old kernel): an exit is seen at end of file or at the deadline

    def _popen(self) -> subprocess.Popen[bytes]:
        spec = self.spec
        start = self._confinement = confine(spec, proctree.tagged_environment(self.tag, self.run_tag), self.tag)
        setup = proctree.child_setup(start.memory_mb, spec.cpu_seconds, self.cpus, start.enter)
        try:
            proc = subprocess.Popen(
                start.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=spec.cwd,
                env=start.env,
                start_new_session=True,
                preexec_fn=setup,
            )
        except OSError as exc:
            self._release()
            if spec.cwd and not os.path.isdir(spec.cwd):  # the same errno as a missing program
                raise EngineFault(
                    Termination.CRASH,
                    f"cannot start {spec.command[0]!r}: its working folder {spec.cwd!r} does not exist (any more)",
                ) from None
            raise EngineFault(Termination.CRASH, f"cannot start {spec.command[0]!r}: {exc.strerror}") from None
        except subprocess.SubprocessError as exc:
            self._release()
            raise EngineFault(Termination.CRASH, f"cannot start {spec.command[0]!r}: {exc}") from None
        if setup is None:  # nothing ran in the child: its OOM score is set from here
            proctree.oom_first(proc.pid)
        return proc

    def pipes(self) -> tuple[IO[bytes], IO[bytes], IO[bytes]]:
        """Its stdin, stdout and stderr (always there once launched: checked for the type)."""
        proc = self.proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        return proc.stdin, proc.stdout, proc.stderr

    def wait_exit(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the process to exit: whether it did.  With a
        pidfd the exit is seen as it happens; subprocess's own wait polls with naps growing
        to 50 ms, which would hold a worker up to that long after every engine that quits."""
        if self.proc is None:
            return True
        if self.exit_fd is not None and self.proc.returncode is None:
            exited = select.poll()
            exited.register(self.exit_fd, select.POLLIN)
            exited.poll(max(0.0, timeout) * 1000)
            timeout = 0.0  # exited now, or never within the timeout: only reap
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def exit_status(self, timeout: float, last_words: bytes = b"") -> str | None:
        """How it ended ("exit code 3", "killed by signal SIGKILL"), waiting up to ``timeout``
        seconds for it (None while it still runs), and the sandbox's limit that stopped it,
        if one did (``last_words``, its stderr's end, may name it)."""
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        limit = ""
        if self._confinement is not None:
            code, limit = self._confinement.ending(code, last_words)
        if code >= 0:
            return f"exit code {code}{limit}"
        try:
            return f"killed by signal {signal.Signals(-code).name}{limit}"
        except ValueError:
            return f"killed by signal {-code}{limit}"

    def kill(self) -> None:
        """Kill the process group and every tagged process that left it, and reap (its pipes
        are closed by whoever reads them: what is left on stderr are its last words)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        # a sandbox's processes are in their own session, and die with it: no stray to report
        proctree.kill_tagged(self.tag, quiet=self._confinement is not None and self._confinement.sandboxed)
        self._release()
        self._stop_cpu_clock()
        if self.exit_fd is not None:
            os.close(self.exit_fd)
            self.exit_fd = None

    def _release(self) -> None:
        """Remove what its start made (a sandbox's cgroups), once its processes are gone."""
        if self._confinement is not None:
            self._confinement.release()
            self._confinement = None

    def kill_unwaited(self) -> None:
        """Kill the process and whatever it started, without waiting on any process object
        and without logging: after a signal the interrupted code may hold their locks."""
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        proctree.kill_tagged(self.tag, quiet=True)

    # -- CPU budgets ------------------------------------------------------------

    def renew_cpu_budget(self) -> None:
        """cpu_seconds is a budget per game, and an engine is reused from game to game: give
        each of its processes (a wrapper script's child too, found by the engine's tag)
        that many seconds more from what it has used."""
        seconds = self.spec.cpu_seconds
        if not seconds or self.proc is None:
            return
        pid = self.engine_pid
        for other in set(proctree.tagged_pids(self.tag)) - {pid}:
            proctree.extend_cpu_limit(other, seconds)
        self._cpu_limit = proctree.extend_cpu_limit(pid, seconds)
        if self._cpu_clock is None:
            self._cpu_clock = proctree.CpuClock(pid)

    def check_cpu_budget(self) -> None:
        """The kernel's SIGXCPU ends an engine at its CPU limit, unless the engine catches
        it; one that did and went on is ended here, a second later, as RLIMIT_CPU's own
        hard limit would (arena cannot raise a hard limit game by game without privileges)."""
        if self._cpu_limit is None or self._cpu_clock is None or self.proc is None:
            return
        used = self._cpu_clock.seconds()
        if used is not None and used >= self._cpu_limit + 1:
            raise EngineFault(
                Termination.CRASH,
                f"used more than its cpu_seconds = {self.spec.cpu_seconds} s of CPU in this game and ignored SIGXCPU",
            )

    def _stop_cpu_clock(self) -> None:
        if self._cpu_clock is not None:
            self._cpu_clock.close()
            self._cpu_clock = None
