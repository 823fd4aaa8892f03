"""``arena run --serve``: the server started beside the run, as an observer of the run: it
starts once the run's folder holds its store (``on_start``), prints its link, and stops
with the run.

The server answers from a process of its own (``python -m arena.serve.beside``), never from
the run's: its event loop, the feed's looks and the writes to every page would otherwise
take the coordinator's interpreter and count in the run's CPU.  The run binds the socket, so
its link (a free port, the token beyond loopback) is known and printed at once and a port in
use is one line; the server process takes the socket over, with the token in its
environment (never on its command line, where any user could read it).  It leaves no
terminal signal to take (a session of its own: Ctrl-C stops the run, which stops it), and
dies with the run's main thread if the run is killed.
"""

from __future__ import annotations

import atexit
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..engine.proctree import set_parent_death_signal
from ..record import GameRecord
from ..results.export import Summary
from ..results.sprt import SprtTest
from .app import ServeError, make_app
from .server import LOOPBACK, listen, uvicorn_server

TOKEN_VARIABLE = "ARENA_SERVE_TOKEN"
STOP_S = 10.0  # the server's graceful stop (its pages' streams closed within a second), then a kill


class ServeBeside:
    """A :class:`~arena.tournament.observers.RunObserver` that serves the run's folder from a
    process of its own.  ``cpu_s``: the CPU that process spent, once it stopped."""

    def __init__(self, folder: Path, echo: Callable[[str], None], host: str = LOOPBACK, port: int = 0) -> None:
        self.folder, self.echo, self.host, self.port = folder, echo, host, port
        self.process: subprocess.Popen[bytes] | None = None
        self.cpu_s = 0.0

    def on_start(self, total: int, stored: Sequence[GameRecord], sprt: SprtTest | None) -> None:
        listening = listen(self.host, self.port)
        with listening.sock:  # the server process holds its own copy
            fd = listening.sock.fileno()
            tied = threading.current_thread() is threading.main_thread()  # the kernel ties a child to a thread
            command = [sys.executable, "-m", "arena.serve.beside", str(fd), str(self.folder), str(os.getpid())]
            environment = {**os.environ, TOKEN_VARIABLE: listening.token or ""}
            self.process = subprocess.Popen(
                [*command, "tied" if tied else "untied"], pass_fds=(fd,), env=environment, start_new_session=True
            )
        atexit.register(self.stop)  # a run that ends without telling its observers
        self.echo(f"watch the games at {listening.url} (the server stops with the run)")

    def on_game(self, record: GameRecord, finished: int, total: int) -> None:
        """The feed sees the store change."""

    def on_start_failure(self, engine: str, reason: str) -> None:
        """The games record it."""

    def on_drop(self, engine: str, why: str) -> None:
        """The games record it."""

    def on_end(self, summary: Summary) -> None:
        self.stop()

    def on_stop(self) -> None:
        self.stop()

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        atexit.unregister(self.stop)
        process.terminate()  # uvicorn's graceful stop
        try:
            _, status, usage = _wait4(process.pid, STOP_S)
        except TimeoutError:
            process.kill()
            _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        self.cpu_s = usage.ru_utime + usage.ru_stime


def _wait4(pid: int, timeout: float) -> tuple[int, int, resource.struct_rusage]:
    """``os.wait4`` of ``pid`` (its status and the resources it used), within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while (found := os.wait4(pid, os.WNOHANG))[0] != pid:
        if time.monotonic() > deadline:
            raise TimeoutError
        time.sleep(0.01)
    return found


def main(fd: int, folder: Path, parent: int, tied: bool) -> None:
    """The server process: the run's folder served over the socket ``fd`` until SIGTERM."""
    if tied and set_parent_death_signal(signal.SIGTERM) and os.getppid() != parent:
        return  # the run died before the signal was armed
    sock = socket.socket(fileno=fd)
    try:
        app = make_app([folder], token=os.environ.pop(TOKEN_VARIABLE, "") or None)
    except ServeError as exc:
        print(f"arena run --serve: {exc}", file=sys.stderr)
        sys.exit(2)
    uvicorn_server(app).run(sockets=[sock])


if __name__ == "__main__":
    main(int(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "tied")
