"""An engine's three pipes: bytes written and lines read under deadlines, stderr handed on.

The referee never trusts the engine: every write is non-blocking with a deadline, every
read has one, and a line is bounded (``codec.MAX_LINE`` bytes); whatever goes wrong is an
:class:`EngineFault`, except the end of a pipe, which :class:`PipeEnded` reports for the
transport (``transport.py``) to say how the process ended.  How each read waits for the
engine's bytes (asleep, spinning, or with the engine on the worker's core) is
:mod:`arena.engine.waiting`'s strategy.  The process's exit is watched too (a pidfd, where
there is one): a child that inherited the engine's stdout may keep it open after the
engine exited.
"""

from __future__ import annotations

import errno
import os
import select
import selectors
import time
from collections.abc import Callable
from typing import IO, Any

from protocol import codec

from ..record import Termination
from .player import EngineFault
from .waiting import Waiting

Reason = str | Callable[[], str]  # why a deadline fault happened, or how to say it when it does


class PipeEnded(Exception):
    """The engine closed a pipe or exited: ``what`` it did ("closed its input" ...)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class LinePipes:
    """Lines to an engine's stdin and from its stdout, its stderr handed to ``on_stderr``."""

    def __init__(
        self,
        stdin: IO[bytes],
        stdout: IO[bytes],
        stderr: IO[bytes],
        exit_fd: int | None,
        waiting: Waiting,
        on_stderr: Callable[[bytes], None],
    ) -> None:
        self.waiting = waiting
        self._streams = (stdin, stdout, stderr)
        self._on_stderr = on_stderr
        self._buffer = bytearray()
        self.eof = False  # its stdout ended
        self.exited = False  # the process ended (its stdout may still be open)
        self._stdout_fd = stdout.fileno()
        self._exit_fd = exit_fd
        self._selector: selectors.BaseSelector | None = selectors.DefaultSelector()
        self._selector.register(stdout, selectors.EVENT_READ, "out")
        self._selector.register(stderr, selectors.EVENT_READ, "err")
        if exit_fd is not None:
            self._selector.register(exit_fd, selectors.EVENT_READ, "exit")
        # over stdout, stderr and the exit: did anything come?
        self._news: select.poll | None = _poll_for(self._stdout_fd, stderr.fileno(), exit_fd)

    @property
    def ended(self) -> bool:
        """Whether its output ended or the process exited: nothing more will come."""
        return self.eof or self.exited

    # -- writing ----------------------------------------------------------------

    def write(self, data: bytes, deadline: float) -> None:
        """Write all of ``data``, never blocking past ``deadline``."""
        fd = self._streams[0].fileno()
        while data:
            try:
                written = os.write(fd, data)
                if written == len(data):
                    return  # the usual case: the pipe took it all
                data = data[written:]
            except BlockingIOError:
                _wait_writable(fd, deadline)
            except (BrokenPipeError, ConnectionResetError):
                raise PipeEnded("closed its input") from None

    # -- reading ----------------------------------------------------------------

    def read_line(self, deadline: float, code: Termination, reason: Reason) -> bytes:
        """The next line's bytes (without its newline), or EngineFault(code, reason) at
        ``deadline``; PipeEnded once nothing more can come."""
        buffer = self._buffer
        while True:
            newline = buffer.find(b"\n")
            if newline > codec.MAX_LINE:  # bytes, whatever the characters (the codec counts those)
                raise EngineFault(Termination.PROTOCOL, f"line longer than {codec.MAX_LINE} bytes")
            if newline >= 0:
                raw = bytes(buffer[:newline])
                del buffer[: newline + 1]
                return raw
            if len(buffer) > codec.MAX_LINE:
                raise EngineFault(Termination.PROTOCOL, f"line longer than {codec.MAX_LINE} bytes")
            if self.eof or self.exited:
                raise PipeEnded(self._end())
            timeout = deadline - time.monotonic()
            if timeout <= 0:
                raise EngineFault(code, reason if isinstance(reason, str) else reason())
            self._pump(timeout)

    def _end(self) -> str:
        what = "closed its output" if self.eof else "exited (a child process still holds its output)"
        if self._buffer:
            what += f" after a partial line {codec.quote(self._buffer[:60].decode(errors='replace'), 60)}"
        return what

    def poll_lines(self) -> bool:
        """Take what has come, without waiting: whether a whole line is now buffered."""
        if not self._buffer and self._news is not None and not self._news.poll(0):
            return False  # nothing came (the usual case): one system call, no selector round
        self._pump(0)
        return self.has_line()

    def has_line(self) -> bool:
        return self._buffer.find(b"\n") >= 0

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
                chunk = read_chunk(self._stdout_fd)
                if chunk:
                    self._buffer += chunk
                elif chunk is not None:
                    self.eof = True
                return
            timeout = 0
        assert self._selector is not None
        for key, _ in self._selector.select(timeout):
            if key.data == "exit":
                self._on_exit()
                continue
            chunk = read_chunk(key.fileobj)
            if chunk is None:
                continue
            if key.data == "out":
                if chunk:
                    self._buffer += chunk
                else:
                    self.eof = True
            elif chunk:
                self._on_stderr(chunk)
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
        self._unwatch(self._exit_fd)
        for _ in range(16):  # bounded: a child could keep writing
            chunk = read_chunk(self._stdout_fd)
            if not chunk:
                self.eof = chunk == b""
                break
            self._buffer += chunk
        self.exited = True

    def drain_stderr(self) -> None:
        """Take what is waiting on stderr now, without blocking."""
        stderr = self._streams[2]
        if stderr.closed:
            return
        for _ in range(16):  # bounded: a child could keep writing
            if not (chunk := read_chunk(stderr)):
                break
            self._on_stderr(chunk)

    def close(self) -> None:
        """The engine is gone: its last words on stderr taken, the pipes closed."""
        self.drain_stderr()
        if self._selector is not None:
            self._selector.close()
            self._selector = None
        self._news = None
        for stream in self._streams:
            try:
                stream.close()
            except OSError:
                pass


def read_chunk(stream: Any) -> bytes | None:
    """Bytes read, b"" at end of file, None when nothing was ready after all."""
    try:
        return os.read(stream if isinstance(stream, int) else stream.fileno(), 65536)
    except BlockingIOError:
        return None
    except OSError as exc:
        if exc.errno == errno.EIO:
            return b""
        raise


def _wait_writable(fd: int, deadline: float) -> None:
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_WRITE)
        while not sel.select(max(0.0, deadline - time.monotonic())):
            if time.monotonic() >= deadline:
                raise EngineFault(Termination.TIMEOUT, "engine stopped reading its input")


def _poll_for(*fds: int | None) -> select.poll | None:
    """A select.poll watching these descriptors for input, or None where there is no poll()."""
    if not hasattr(select, "poll"):
        return None
    poll = select.poll()
    for fd in fds:
        if fd is not None:
            poll.register(fd, select.POLLIN)
    return poll
