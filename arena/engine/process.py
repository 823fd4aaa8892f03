"""Driving one engine subprocess over protocol v1.

The referee never trusts the engine: every read has a deadline, every write is
non-blocking with a deadline, lines are bounded, and whatever goes wrong
surfaces as one :class:`EngineFault` carrying the termination code recorded in
the game (``handshake``, ``timeout``, ``protocol``, ``crash``).  The process
runs in its own process group so that killing it also kills any children it
forked, and it is always reaped; :mod:`arena.engine.proctree` adds an environment tag
(children that left the group are found and killed too) and death with the
arena process that started it.
"""

from __future__ import annotations

import errno
import logging
import math
import os
import re
import select
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol import codec
from protocol.codec import ArenaOk, Id, Info, Move, OptionDecl, ProtocolError, ReadyOk, Resign

from . import proctree
from .declared import declaration_problem, games_problem, option_problems

log = logging.getLogger("arena.engine")

HANDSHAKE_TIMEOUT = 10.0  # default limit for the handshake and for each isready
QUIT_GRACE = 1.0
EXIT_WAIT = 0.25  # after end of file, how long to wait for the exit status
STDERR_KEEP = 64 * 1024
INFO_KEEP = 1024
INFO_LINES_PER_GAME = 10_000
STDERR_LINES_SHOWN = 3  # stderr lines quoted in a crash's reason
_STACK_FRAME = re.compile(r"\s+(at |File \")|\s*\^+\s*$")  # JavaScript / Python frames, '^' markers
# An engine that answers quickly is waited for by polling without sleeping, for up to
# this long, when it may run on another CPU than ours: on a VM a process that sleeps
# and is woken from another vCPU pays about 20 us of CPU and 25 us of latency, more
# than the spin costs (docs/performance.md).  "Quickly": the last spin caught the
# answer, or, waited for asleep, it came within twice this (the wake-up's own
# latency allowed for).  An engine that thinks is waited for by sleeping; one on our
# own CPU needs that CPU to answer, so it is never spun for; nor is any engine when every
# CPU has a game (runner: the spin would take CPU another game's engine could use).
SPIN_S = 50e-6


Reason = str | Callable[[], str]  # why a deadline fault happened, or how to say it when it does


class EngineFault(Exception):
    """The engine broke the protocol; ``code`` is the recorded termination."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class EngineRefused(EngineFault):
    """The engine started, but what it declares does not fit the tournament (options it
    did not declare, values out of range, another game in ``id games``): a fault of the
    tournament's entry as much as of the engine, refused before any game where possible."""

    def __init__(self, problem: str) -> None:
        super().__init__("handshake", f"refused: {problem}")


@dataclass(frozen=True)
class EngineSpec:
    """How to start an engine: a name for tables and an argument list (no shell)."""

    name: str
    command: tuple[str, ...]
    cwd: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    memory_mb: int | None = None  # address-space limit, enforced by the kernel
    cpu_seconds: int | None = None  # CPU-time limit per game, per process
    handshake_ms: int | None = None  # handshake / isready limit (default HANDSHAKE_TIMEOUT)
    protocol: str = "arena"  # "arena" (protocol v1, this module) or "gtp" (gtp.py)
    init: tuple[str, ...] = ()  # GTP only: commands sent after start-up, answers checked
    env: tuple[tuple[str, str], ...] = ()  # environment variables set for the engine


@dataclass
class Reply:
    """An engine's answer to ``go``: a move token or None for resignation."""

    move: str | None
    elapsed: float
    info: dict[str, int | float] | None = None  # depth / nodes / score its info lines gave


@dataclass
class EngineProcess:
    spec: EngineSpec
    run_tag: str = ""  # tags every process of one tournament run (proctree)
    spin: bool = True  # may spin for quick engines (SPIN_S): not when every CPU has a game
    game: str = ""  # the game it is started for: refused if it declares others
    proc: subprocess.Popen[bytes] | None = None
    identity: dict[str, str] = field(default_factory=dict)
    declared_options: list[OptionDecl] = field(default_factory=list)
    stderr_tail: bytearray = field(default_factory=bytearray)
    _buffer: bytearray = field(default_factory=bytearray)
    _selector: selectors.BaseSelector | None = None
    _eof: bool = False
    _exited: bool = False  # the process ended (its stdout may still be open)
    _pidfd: int | None = None
    _news: Any = None  # select.poll over stdout, stderr and the pidfd: did anything come?
    _stdout_fd: int = -1
    _tag: str = ""
    _info_lines: int = 0
    _may_spin: bool = False  # can the engine run on another CPU than this process?
    _quick: bool = False  # expect the next answer within SPIN_S?
    _spinning: bool = False  # spin before sleeping in the current wait
    _cpu_limit: float | None = None  # CPU seconds (since its start) this game's budget ends at
    trace: Any = None  # a trace.SeatTrace while a game is transcribed (--trace)
    stderr_home: str = ""  # where the whole stderr tail goes (named in crash reasons)

    # -- life cycle -----------------------------------------------------------

    def start(self) -> None:
        """Start the process and complete the handshake, or raise EngineFault."""
        self.launch()
        self.handshake()

    def launch(self) -> None:
        """Start the process without waiting for it (:meth:`start` then shakes hands);
        several engines launched first boot side by side.  Raises EngineFault."""
        self._tag = proctree.new_tag()
        self._cpu_limit = None
        self._buffer.clear()
        self._eof = self._exited = False
        try:
            self.proc = subprocess.Popen(
                list(self.spec.command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.spec.cwd,
                env={**proctree.tagged_environment(self._tag, self.run_tag), **dict(self.spec.env)},
                start_new_session=True,
                preexec_fn=proctree.child_setup(self.spec.memory_mb, self.spec.cpu_seconds),
            )
        except OSError as exc:
            if self.spec.cwd and not os.path.isdir(self.spec.cwd):  # the same errno as a missing program
                raise EngineFault(
                    "crash",
                    f"cannot start {self.spec.command[0]!r}: its working folder "
                    f"{self.spec.cwd!r} does not exist (any more)",
                ) from None
            raise EngineFault("crash", f"cannot start {self.spec.command[0]!r}: {exc.strerror}") from None
        except subprocess.SubprocessError as exc:
            raise EngineFault("crash", f"cannot start {self.spec.command[0]!r}: {exc}") from None
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            os.set_blocking(stream.fileno(), False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ, "out")
        self._selector.register(self.proc.stderr, selectors.EVENT_READ, "err")
        self._watch_exit()
        self._stdout_fd = self.proc.stdout.fileno()
        self._news = _poll_for(self._stdout_fd, self.proc.stderr.fileno(), self._pidfd)
        self._may_spin = self.spin and len(proctree.usable_cpus()) > 1

    def _watch_exit(self) -> None:
        """Wake the reader when the engine exits, even if a child keeps its stdout open."""
        assert self.proc is not None and self._selector is not None
        try:
            self._pidfd = os.pidfd_open(self.proc.pid)
        except (AttributeError, OSError):
            return  # no pidfd (old kernel): an exit is seen at end of file or at the deadline
        self._selector.register(self._pidfd, selectors.EVENT_READ, "exit")

    @property
    def start_limit(self) -> float:
        """Seconds allowed for the handshake and for each isready."""
        ms = self.spec.handshake_ms
        return ms / 1000 if ms else HANDSHAKE_TIMEOUT

    def handshake(self) -> None:
        limit = self.start_limit
        deadline = time.monotonic() + limit
        self.send(f"arena {codec.VERSION}", deadline)
        while True:
            msg = self._read_message(deadline, "handshake", f"no arenaok within {limit:g} s of 'arena 1'")
            if isinstance(msg, ArenaOk):
                if msg.version != codec.VERSION:
                    raise EngineFault(
                        "handshake", f"engine speaks protocol {msg.version}, arena speaks {codec.VERSION}"
                    )
                break
            if isinstance(msg, Id):
                self.identity[msg.key] = codec.sanitize(msg.value, 80)
            elif isinstance(msg, OptionDecl):
                problem = declaration_problem(msg) or (
                    "declared twice" if any(d.name == msg.name for d in self.declared_options) else None
                )
                if problem is not None:  # the engine's own line is wrong: a fault, as any malformed line
                    raise EngineFault("protocol", f"option {msg.name!r} ({_describe(msg)}): {problem}")
                self.declared_options.append(msg)
            elif not isinstance(msg, Info):
                raise EngineFault("protocol", f"unexpected {_describe(msg)} during the handshake")
        problems = option_problems(self.declared_options, self.spec.options)
        if problems:  # a tournament refuses these before its first game (declared.preflight)
            raise EngineRefused(problems[0])
        if self.game and (problem := games_problem(self.identity, self.game)) is not None:
            raise EngineRefused(f"it {problem}")
        for name, value in self.spec.options:
            self.send(codec.format_setoption(name, value), deadline)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and not self._eof and not self._exited

    def quit(self) -> None:
        """Ask the engine to exit, then make sure its whole process group is gone."""
        if self.proc is None:
            return
        if self.alive:
            try:
                self.send("quit", time.monotonic() + QUIT_GRACE)
                self.proc.wait(QUIT_GRACE)
            except (EngineFault, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self) -> None:
        """Kill the process group and every tagged process that left it, and reap."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        proctree.kill_tagged(self._tag)
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
                stream.close()
            except OSError:
                pass

    # -- games ----------------------------------------------------------------

    def new_game(
        self, game: str, seat: int, players: int, option_tokens: Sequence[str], seed: int, private: Sequence[str]
    ) -> None:
        """Announce a game and wait for ``readyok``."""
        self._info_lines = 0
        if self.spec.cpu_seconds and self.proc is not None:
            self._renew_cpu_budget(self.proc.pid, self.spec.cpu_seconds)
        lines = [codec.format_newgame(game, seat, players, option_tokens), f"seed {seed}"]
        lines += [f"private {p}" for p in private]
        lines.append("isready")
        deadline = time.monotonic() + self.start_limit
        self.send("\n".join(lines), deadline)
        self._await_ready(deadline)

    def _renew_cpu_budget(self, pid: int, seconds: int) -> None:
        """cpu_seconds is a budget per game, and an engine is reused from game to game: give
        each of its processes (a wrapper script's child too, found by the engine's tag)
        ``seconds`` more from what it has used."""
        for other in set(proctree.tagged_pids(self._tag)) - {pid}:
            proctree.extend_cpu_limit(other, seconds)
        self._cpu_limit = proctree.extend_cpu_limit(pid, seconds)

    def _await_ready(self, deadline: float) -> None:
        reason = f"no readyok within {self.start_limit:g} s of 'isready'"
        while True:
            msg = self._read_message(deadline, "handshake", reason)
            if isinstance(msg, ReadyOk):
                return
            if not isinstance(msg, Info):
                raise EngineFault("protocol", f"expected readyok, got {_describe(msg)}")

    def go(self, position_line: str, go_line: str, limit: float) -> Reply:
        """Send the position and ``go``; wait at most ``limit`` seconds for the answer."""
        self._discard_unsolicited()
        if self._cpu_limit is not None:
            self._check_cpu_limit()
        start = time.monotonic()
        deadline = start + limit
        self.send(f"{position_line}\n{go_line}", deadline)
        reason = lambda: f"no move within {limit * 1000:.0f} ms"  # formatted only on a timeout
        self._spinning = spun = self._quick
        info = None
        try:
            while True:
                msg = self._read_message(deadline, "timeout", reason)
                if isinstance(msg, (Move, Resign)):
                    elapsed = time.monotonic() - start
                    if elapsed > limit:  # the measured time decides, even for a line already read
                        raise EngineFault(
                            "timeout",
                            f"{_describe(msg)} came after {elapsed * 1000:.0f} ms, "
                            f"over the limit of {limit * 1000:.0f} ms",
                        )
                    caught = spun and self._spinning  # _spin stops spinning when it misses
                    self._quick = self._may_spin and (caught if spun else elapsed <= 2 * SPIN_S)
                    return Reply(msg.token if isinstance(msg, Move) else None, elapsed, info)
                if not isinstance(msg, Info):
                    raise EngineFault("protocol", f"expected a move, got {_describe(msg)}")
                info = codec.search_info(msg.text, info)
        finally:
            self._spinning = False

    def _check_cpu_limit(self) -> None:
        """The kernel's SIGXCPU ends an engine at its CPU limit, unless the engine catches
        it; one that did and went on is ended here, a second later, as RLIMIT_CPU's own
        hard limit would (arena cannot raise a hard limit game by game without privileges)."""
        assert self.proc is not None and self._cpu_limit is not None
        used = proctree.cpu_time_used(self.proc.pid)
        if used is not None and used >= self._cpu_limit + 1:
            raise EngineFault(
                "crash",
                f"used more than its cpu_seconds = {self.spec.cpu_seconds} s of CPU in this game and ignored SIGXCPU",
            )

    def game_over(self, line: str) -> None:
        """Tell the engine the result; an engine that cannot take it is left for quit()."""
        try:
            self.send(line, time.monotonic() + QUIT_GRACE)
        except EngineFault:
            pass

    # -- I/O ------------------------------------------------------------------

    def send(self, text: str, deadline: float) -> None:
        """Write lines without ever blocking past ``deadline``."""
        assert self.proc is not None and self.proc.stdin is not None
        if self.trace is not None:
            self.trace.sent(text)
        data = (text + "\n").encode()
        fd = self.proc.stdin.fileno()
        while data:
            try:
                written = os.write(fd, data)
                if written == len(data):
                    return  # the usual case: the pipe took it all
                data = data[written:]
            except BlockingIOError:
                self._wait_writable(fd, deadline)
            except (BrokenPipeError, ConnectionResetError):
                raise EngineFault("crash", self._exit_description("closed its input")) from None

    def _wait_writable(self, fd: int, deadline: float) -> None:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_WRITE)
            while not sel.select(max(0.0, deadline - time.monotonic())):
                if time.monotonic() >= deadline:
                    raise EngineFault("timeout", "engine stopped reading its input")

    def _read_message(self, deadline: float, code: str, reason: Reason) -> codec.EngineMessage:
        """The next non-empty protocol message, or EngineFault(code, reason) at the deadline."""
        while True:
            line = self._read_line(deadline, code, reason)
            try:
                msg = codec.parse_engine_line(line)
            except ProtocolError as exc:
                raise EngineFault("protocol", str(exc)) from None
            except Exception:  # a parser bug: still the engine's line, never a crash of the run
                log.exception("%s: cannot parse %s", self.spec.name, codec.quote(line))
                raise EngineFault("protocol", f"unreadable line {codec.quote(line)}") from None
            if isinstance(msg, Info):
                self._log_info(msg.text)
            if msg is not None:
                return msg

    def _read_line(self, deadline: float, code: str, reason: Reason) -> str:
        buffer = self._buffer
        while True:
            newline = buffer.find(b"\n")
            if newline > codec.MAX_LINE:  # bytes, whatever the characters (the codec counts those)
                raise EngineFault("protocol", f"line longer than {codec.MAX_LINE} bytes")
            if newline >= 0:
                raw = bytes(buffer[:newline])
                del buffer[: newline + 1]
                if self.trace is not None:
                    self.trace.received(raw.decode(errors="backslashreplace").removesuffix("\r"))
                try:
                    return raw.decode().removesuffix("\r")  # one: a second is part of the line
                except UnicodeDecodeError:
                    raise EngineFault("protocol", "line is not valid UTF-8") from None
            if len(buffer) > codec.MAX_LINE:
                raise EngineFault("protocol", f"line longer than {codec.MAX_LINE} bytes")
            if self._eof or self._exited:
                raise EngineFault("crash", self._crash_description())
            self._fill(deadline, code, reason)

    def _fill(self, deadline: float, code: str, reason: Reason) -> None:
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
            events = self._spin(timeout) if self._spinning else self._news.poll(math.ceil(timeout * 1000))
            if not events:
                return
            if len(events) == 1 and events[0][0] == self._stdout_fd:
                chunk = self._read_chunk(self.proc.stdout)
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

    def _spin(self, timeout: float) -> list[tuple[int, int]]:
        """poll() without sleeping for up to SPIN_S, then sleeping for the rest of ``timeout``."""
        poll, now = self._news.poll, time.monotonic
        until = now() + min(SPIN_S, timeout)
        while True:
            events = poll(0)
            if events:
                return events
            if now() >= until:
                self._spinning = False  # a slow answer this time: sleep from now on
                return poll(math.ceil((timeout - SPIN_S) * 1000)) if timeout > SPIN_S else []

    def _unwatch(self, fileobj: Any) -> None:
        """Stop watching a stream that ended (else poll() would report it again and again)."""
        assert self._selector is not None
        self._selector.unregister(fileobj)
        if self._news is not None:
            self._news.unregister(fileobj)

    def _on_exit(self) -> None:
        """The process ended: take what it wrote before exiting, then expect nothing more
        (a child that inherited its stdout may keep the pipe open indefinitely)."""
        assert self._selector is not None and self.proc is not None and self.proc.stdout is not None
        self._unwatch(self._pidfd)
        for _ in range(16):  # bounded: a child could keep writing
            chunk = self._read_chunk(self.proc.stdout)
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

    def _discard_unsolicited(self) -> None:
        """Lines that came while nothing was asked (PROTOCOL.md section 4): info is logged,
        anything else, above all a second move, is a violation rather than a future answer."""
        if not self._buffer and self._news is not None and not self._news.poll(0):
            return  # nothing came (the usual case): one system call, no selector round
        self._pump(0)
        while self._buffer.find(b"\n") >= 0:
            msg = self._read_message(0.0, "protocol", "unreachable: a full line is buffered")
            if not isinstance(msg, Info):
                raise EngineFault("protocol", f"{_describe(msg)} sent when no answer was asked for")

    @staticmethod
    def _read_chunk(stream) -> bytes | None:
        """Bytes read, b"" at end of file, None when nothing was ready after all."""
        try:
            return os.read(stream.fileno(), 65536)
        except BlockingIOError:
            return None
        except OSError as exc:
            if exc.errno == errno.EIO:
                return b""
            raise

    def _crash_description(self) -> str:
        what = "closed its output" if self._eof else "exited (a child process still holds its output)"
        if self._buffer:
            what += f" after a partial line {codec.quote(self._buffer[:60].decode(errors='replace'), 60)}"
        return self._exit_description(what)

    def _exit_description(self, what: str) -> str:
        proc = self.proc
        if proc is None:
            return f"engine {what}"
        try:
            code = proc.wait(EXIT_WAIT)
        except subprocess.TimeoutExpired:
            return f"engine {what} (process still running)"
        if code < 0:
            try:
                status = f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                status = f"killed by signal {-code}"
        else:
            status = f"exit code {code}"
        return f"engine {what}: {status}{self._last_stderr_line()}"

    def _last_stderr_line(self) -> str:
        """The engine's last words on stderr, for the record: its last few lines, without
        stack-frame lines (a Node.js crash ends with frames and a version line, the error
        is above them), and where the rest is."""
        if self.proc is not None:
            self._drain_stderr(self.proc)
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

    def _log_info(self, text: str) -> None:
        self._info_lines += 1
        if self._info_lines <= INFO_LINES_PER_GAME and log.isEnabledFor(logging.DEBUG):
            log.debug("%s info %s", self.spec.name, codec.sanitize(text, INFO_KEEP))


def _poll_for(*fds: int | None) -> Any:
    """A select.poll watching these descriptors for input, or None where there is no poll()."""
    if not hasattr(select, "poll"):
        return None
    poll = select.poll()
    for fd in fds:
        if fd is not None:
            poll.register(fd, select.POLLIN)
    return poll


def _describe(msg: codec.EngineMessage) -> str:
    """The line an engine sent, quoted for a reason (what it wrote, not a class name)."""
    return codec.quote(codec.format_engine_message(msg), 80)
