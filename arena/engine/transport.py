"""The line transport under both engine conversations: one engine process and its pipes.

Protocol v1 (``process.py``) and GTP (``gtp.py``) are two conversations over the same
:class:`Transport`; what is not a protocol lives here, as fastchess keeps its process
class apart from its UCI engine.  The referee never trusts the engine: every read has a
deadline, every write is non-blocking with a deadline, lines are bounded, and whatever
goes wrong surfaces as one :class:`EngineFault` carrying the termination code recorded in
the game.  The process runs in its own process group so that killing it also kills any
children it forked, and it is always reaped; :mod:`arena.engine.proctree` adds an
environment tag (children that left the group are found and killed too), death with the
arena process that started it, and the CPU budget of each game.  How it waits for the
engine's bytes (asleep, spinning, or with the engine on the worker's core) is
:mod:`arena.engine.waiting`'s strategy, chosen from the :class:`PipeSettings` at each launch.
"""

from __future__ import annotations

import errno
import os
import re
import select
import selectors
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import IO, Any, Protocol

from protocol import codec

from ..record import Termination
from . import proctree
from .player import EngineFault, EngineSpec
from .sandbox import Confinement, confine
from .waiting import CoreShare, Waiting, chosen

QUIT_GRACE = 1.0  # after 'quit', how long an engine may take to exit before it is killed
EXIT_WAIT = 0.25  # after end of file, how long to wait for the exit status
STDERR_KEEP = 64 * 1024
INFO_KEEP = 1024  # characters of one engine line (info, stderr) kept for logs
STDERR_LINES_SHOWN = 3  # stderr lines quoted in a crash's reason
_STACK_FRAME = re.compile(r"\s+(at |File \")|\s*\^+\s*$")  # JavaScript / Python frames, '^' markers


Reason = str | Callable[[], str]  # why a deadline fault happened, or how to say it when it does


class Trace(Protocol):
    """Where a transport copies what it carries (trace.SeatTrace: a game's transcript)."""

    def sent(self, text: str) -> None: ...

    def received(self, line: str) -> None: ...

    def stderr(self, chunk: bytes) -> None: ...


class Transport(Protocol):
    """Lines to and from one engine, under deadlines; what a conversation needs."""

    trace: Trace | None  # while a game is transcribed (--trace)
    stderr_home: str  # where the whole stderr tail goes (named in crash reasons)
    stderr_tail: bytearray  # the last STDERR_KEEP bytes the engine wrote on stderr

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        """The engine's process while it runs (None in memory, or once killed)."""
        ...

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

    def stderr_text(self) -> str:
        """The kept stderr tail as printable lines."""
        ...

    def wait_exit(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the engine to exit: whether it did."""
        ...

    def close(self, goodbye: str) -> None:
        """Send ``goodbye`` (the protocol's quit), give the engine QUIT_GRACE to exit,
        then kill it."""

    def kill(self) -> None:
        """Kill the engine (and whatever it started) now, and reap it."""

    def kill_unwaited(self) -> None:
        """Kill the engine and whatever it started, without waiting on any process object
        and without logging: after a signal the interrupted code may hold their locks."""


@dataclass(frozen=True)
class PipeSettings:
    """How a worker runs its engines' processes (the same for each of them)."""

    run_tag: str = ""  # tags every process of one tournament run (proctree)
    spin: bool = True  # may spin for quick engines (SPIN_S): not when every CPU has a game
    share: CoreShare | None = None  # quick engines move onto the worker's core instead (no spin)
    stderr_home: str = ""  # where the whole stderr tail goes (named in crash reasons)


ALONE = PipeSettings()  # an engine run on its own (a check, a test): no run, no spare core


class PipeTransport:
    """One engine process, its three pipes and its whole process tree."""

    def __init__(self, spec: EngineSpec, settings: PipeSettings = ALONE) -> None:
        self.spec = spec
        self.settings = settings
        self.trace: Trace | None = None
        self.waiting = Waiting()  # until launched: asleep in every wait
        self.stderr_tail = bytearray()
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = bytearray()
        self._selector: selectors.BaseSelector | None = None
        self._eof = False
        self._exited = False  # the process ended (its stdout may still be open)
        self._pidfd: int | None = None
        self._news: select.poll | None = None  # over stdout, stderr and the pidfd: did anything come?
        self._stdout_fd = -1
        self._tag = ""
        self._cpu_limit: float | None = None  # CPU seconds (since its start) this game's budget ends at
        self._confinement: Confinement | None = None  # how it was started: as it is, or sandboxed
        self._engine_pid = 0  # the engine's own process: the one started, or the one its sandbox started

    def __repr__(self) -> str:
        pid = self._proc.pid if self._proc is not None else None
        return f"PipeTransport({self.spec.name!r}, pid={pid})"

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        return self._proc

    @property
    def alive(self) -> bool:
        proc = self._proc
        return proc is not None and proc.poll() is None and not self._eof and not self._exited

    @property
    def stderr_home(self) -> str:
        return self.settings.stderr_home

    @stderr_home.setter
    def stderr_home(self, where: str) -> None:
        self.settings = replace(self.settings, stderr_home=where)

    # -- life cycle -----------------------------------------------------------

    def launch(self) -> None:
        spec = self.spec
        self._tag = proctree.new_tag()
        self._cpu_limit = None
        self._buffer.clear()
        self._eof = self._exited = False
        share = self.settings.share
        cpus = share.cpus if share else ()  # all the run's CPUs, not the one the worker is pinned to
        try:
            start = self._confinement = confine(
                spec, proctree.tagged_environment(self._tag, self.settings.run_tag), self._tag
            )
            proc = subprocess.Popen(
                start.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=spec.cwd,
                env=start.env,
                start_new_session=True,
                preexec_fn=proctree.child_setup(start.memory_mb, spec.cpu_seconds, cpus, start.enter),
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
        self._proc = proc
        stdin, stdout, stderr = _pipes(proc)
        for stream in (stdin, stdout, stderr):
            os.set_blocking(stream.fileno(), False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(stdout, selectors.EVENT_READ, "out")
        self._selector.register(stderr, selectors.EVENT_READ, "err")
        self._watch_exit(proc.pid)
        self._stdout_fd = stdout.fileno()
        self._news = _poll_for(self._stdout_fd, stderr.fileno(), self._pidfd)
        self._engine_pid = start.engine_pid(proc.pid)
        self.waiting = chosen(share, self.settings.spin, self._engine_pid)

    def _watch_exit(self, pid: int) -> None:
        """Wake the reader when the engine exits, even if a child keeps its stdout open."""
        assert self._selector is not None
        try:
            self._pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            return  # no pidfd (old kernel): an exit is seen at end of file or at the deadline
        self._selector.register(self._pidfd, selectors.EVENT_READ, "exit")

    def wait_exit(self, timeout: float) -> bool:
        if self._proc is None:
            return True
        try:
            self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def close(self, goodbye: str) -> None:
        if self._proc is None:
            return
        if self.alive:
            try:
                self.send(goodbye, time.monotonic() + QUIT_GRACE)
                self.wait_exit(QUIT_GRACE)
            except EngineFault:
                pass
        self.kill()

    def kill(self) -> None:
        """Kill the process group and every tagged process that left it, and reap."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        self.waiting.gone()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        # a sandbox's processes are in their own session, and die with it: no stray to report
        proctree.kill_tagged(self._tag, quiet=self._confinement is not None and self._confinement.sandboxed)
        self._release()
        self._drain_stderr(proc)
        if self._selector is not None:
            self._selector.close()
            self._selector = None
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        self._news = None
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def _release(self) -> None:
        """Remove what its start made (a sandbox's cgroups), once its processes are gone."""
        if self._confinement is not None:
            self._confinement.release()
            self._confinement = None

    def kill_unwaited(self) -> None:
        if self._proc is not None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        proctree.kill_tagged(self._tag, quiet=True)

    # -- CPU budgets ------------------------------------------------------------

    def renew_cpu_budget(self) -> None:
        """cpu_seconds is a budget per game, and an engine is reused from game to game: give
        each of its processes (a wrapper script's child too, found by the engine's tag)
        that many seconds more from what it has used."""
        seconds = self.spec.cpu_seconds
        if not seconds or self._proc is None:
            return
        pid = self._engine_pid
        for other in set(proctree.tagged_pids(self._tag)) - {pid}:
            proctree.extend_cpu_limit(other, seconds)
        self._cpu_limit = proctree.extend_cpu_limit(pid, seconds)

    def check_cpu_budget(self) -> None:
        """The kernel's SIGXCPU ends an engine at its CPU limit, unless the engine catches
        it; one that did and went on is ended here, a second later, as RLIMIT_CPU's own
        hard limit would (arena cannot raise a hard limit game by game without privileges)."""
        if self._cpu_limit is None or self._proc is None:
            return
        used = proctree.cpu_time_used(self._engine_pid)
        if used is not None and used >= self._cpu_limit + 1:
            raise EngineFault(
                Termination.CRASH,
                f"used more than its cpu_seconds = {self.spec.cpu_seconds} s of CPU in this game and ignored SIGXCPU",
            )

    # -- I/O ------------------------------------------------------------------

    def send(self, text: str, deadline: float) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        if self.trace is not None:
            self.trace.sent(text)
        data = (text + "\n").encode()
        fd = self._proc.stdin.fileno()
        while data:
            try:
                written = os.write(fd, data)
                if written == len(data):
                    return  # the usual case: the pipe took it all
                data = data[written:]
            except BlockingIOError:
                self._wait_writable(fd, deadline)
            except (BrokenPipeError, ConnectionResetError):
                raise EngineFault(Termination.CRASH, self._exit_description("closed its input")) from None

    def _wait_writable(self, fd: int, deadline: float) -> None:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_WRITE)
            while not sel.select(max(0.0, deadline - time.monotonic())):
                if time.monotonic() >= deadline:
                    raise EngineFault(Termination.TIMEOUT, "engine stopped reading its input")

    def read_line(self, deadline: float, code: Termination, reason: Reason) -> str:
        buffer = self._buffer
        while True:
            newline = buffer.find(b"\n")
            if newline > codec.MAX_LINE:  # bytes, whatever the characters (the codec counts those)
                raise EngineFault(Termination.PROTOCOL, f"line longer than {codec.MAX_LINE} bytes")
            if newline >= 0:
                raw = bytes(buffer[:newline])
                del buffer[: newline + 1]
                if self.trace is not None:
                    self.trace.received(raw.decode(errors="backslashreplace").removesuffix("\r"))
                try:
                    return raw.decode().removesuffix("\r")  # one: a second is part of the line
                except UnicodeDecodeError:
                    raise EngineFault(Termination.PROTOCOL, "line is not valid UTF-8") from None
            if len(buffer) > codec.MAX_LINE:
                raise EngineFault(Termination.PROTOCOL, f"line longer than {codec.MAX_LINE} bytes")
            if self._eof or self._exited:
                raise EngineFault(Termination.CRASH, self._crash_description())
            self._fill(deadline, code, reason)

    def poll_lines(self) -> bool:
        if not self._buffer and self._news is not None and not self._news.poll(0):
            return False  # nothing came (the usual case): one system call, no selector round
        self._pump(0)
        return self.has_line()

    def has_line(self) -> bool:
        return self._buffer.find(b"\n") >= 0

    def _fill(self, deadline: float, code: Termination, reason: Reason) -> None:
        timeout = deadline - time.monotonic()
        if timeout <= 0:
            raise EngineFault(code, reason if isinstance(reason, str) else reason())
        self._pump(timeout)

    def _pump(self, timeout: float) -> None:
        """Move whatever the engine wrote within ``timeout`` into the buffers."""
        if self._news is not None:
            # The usual wake-up is the answer alone on stdout: one poll() and one read,
            # without a selector round (0.7 us of Python per wait); anything else (stderr,
            # the exit, several at once) goes through the selector, then without waiting.
            events = self.waiting.wait(self._news, timeout)
            if not events:
                return
            if len(events) == 1 and events[0][0] == self._stdout_fd:
                chunk = self._read_chunk(self._stdout_fd)
                if chunk:
                    self._buffer += chunk
                elif chunk is not None:
                    self._eof = True
                return
            timeout = 0
        assert self._selector is not None
        for key, _ in self._selector.select(timeout):
            if key.data == "exit":
                self._on_exit()
                continue
            chunk = self._read_chunk(key.fileobj)
            if chunk is None:
                continue
            if key.data == "out":
                if chunk:
                    self._buffer += chunk
                else:
                    self._eof = True
            elif chunk:
                self._keep_stderr(chunk)
            else:
                self._unwatch(key.fileobj)

    def _unwatch(self, fileobj: Any) -> None:
        """Stop watching a stream that ended (else poll() would report it again and again)."""
        assert self._selector is not None
        self._selector.unregister(fileobj)
        if self._news is not None:
            self._news.unregister(fileobj)

    def _on_exit(self) -> None:
        """The process ended: take what it wrote before exiting, then expect nothing more
        (a child that inherited its stdout may keep the pipe open indefinitely)."""
        assert self._proc is not None
        self._unwatch(self._pidfd)
        for _ in range(16):  # bounded: a child could keep writing
            chunk = self._read_chunk(self._stdout_fd)
            if not chunk:
                self._eof = chunk == b""
                break
            self._buffer += chunk
        self._exited = True

    def _keep_stderr(self, chunk: bytes) -> None:
        """Keep the last STDERR_KEEP bytes (a crash's last words are at the end)."""
        if self.trace is not None:
            self.trace.stderr(chunk)
        tail = self.stderr_tail
        tail += chunk
        if len(tail) > STDERR_KEEP:
            del tail[: len(tail) - STDERR_KEEP]

    @staticmethod
    def _read_chunk(stream: Any) -> bytes | None:
        """Bytes read, b"" at end of file, None when nothing was ready after all."""
        try:
            return os.read(stream if isinstance(stream, int) else stream.fileno(), 65536)
        except BlockingIOError:
            return None
        except OSError as exc:
            if exc.errno == errno.EIO:
                return b""
            raise

    # -- what to say when it ends ------------------------------------------------

    def _crash_description(self) -> str:
        what = "closed its output" if self._eof else "exited (a child process still holds its output)"
        if self._buffer:
            what += f" after a partial line {codec.quote(self._buffer[:60].decode(errors='replace'), 60)}"
        return self._exit_description(what)

    def _exit_description(self, what: str) -> str:
        proc = self._proc
        if proc is None:
            return f"engine {what}"
        try:
            code = proc.wait(EXIT_WAIT)
        except subprocess.TimeoutExpired:
            return f"engine {what} (process still running)"
        limit = ""
        if self._confinement is not None:  # how its engine ended, as the start tells (a sandbox's limits)
            self._drain_stderr(proc)
            code, limit = self._confinement.ending(code, bytes(self.stderr_tail[-2048:]))
        if code < 0:
            try:
                status = f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                status = f"killed by signal {-code}"
        else:
            status = f"exit code {code}"
        return f"engine {what}: {status}{limit}{self._last_stderr_line()}"

    def _last_stderr_line(self) -> str:
        """The engine's last words on stderr, for the record: its last few lines, without
        stack-frame lines (a Node.js crash ends with frames and a version line, the error
        is above them), and where the rest is."""
        if self._proc is not None:
            self._drain_stderr(self._proc)
        lines = [
            ln
            for ln in self.stderr_tail.decode(errors="replace").splitlines()[-40:]
            if ln.strip() and not _STACK_FRAME.match(ln)
        ][-STDERR_LINES_SHOWN:]
        if not lines:
            return ""
        shown = " | ".join(codec.quote(ln.strip(), 160 if len(lines) == 1 else 90) for ln in lines)
        where = f" (all of it: {self.stderr_home})" if self.stderr_home else ""
        return f"; last stderr line{'s' if len(lines) > 1 else ''}: {shown}{where}"

    def _drain_stderr(self, proc: subprocess.Popen[bytes]) -> None:
        """Take what is waiting on stderr now, without blocking."""
        if proc.stderr is None or proc.stderr.closed:
            return
        for _ in range(16):  # bounded: a child could keep writing
            if not (chunk := self._read_chunk(proc.stderr)):
                break
            self._keep_stderr(chunk)

    def stderr_text(self) -> str:
        """The kept stderr tail as printable lines (untrusted text: sanitized)."""
        lines = self.stderr_tail.decode(errors="replace").splitlines()
        return "\n".join(codec.sanitize(line, INFO_KEEP) for line in lines if line.strip())


def _pipes(proc: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes], IO[bytes]]:
    """The three pipes Popen was asked for (always there when asked for: checked for the type)."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    return proc.stdin, proc.stdout, proc.stderr


def _poll_for(*fds: int | None) -> select.poll | None:
    """A select.poll watching these descriptors for input, or None where there is no poll()."""
    if not hasattr(select, "poll"):
        return None
    poll = select.poll()
    for fd in fds:
        if fd is not None:
            poll.register(fd, select.POLLIN)
    return poll
