"""Starting ``arena serve``'s server: its socket, its token, uvicorn in the foreground or
beside a run (a thread of the run's process), and the URL it prints.

The socket is bound here, before uvicorn starts, so a free port (port 0) is known at once
and a port in use is one clear line.  Loopback needs no token; any other address gets a
fresh one, which the printed link carries (guard.py).
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from starlette.routing import BaseRoute

from .app import ServeError, make_app

LOOPBACK = "127.0.0.1"


@dataclass
class Serving:
    """A server started: its link (the token in it, if any), and how to stop it."""

    url: str
    server: uvicorn.Server
    sock: socket.socket
    thread: threading.Thread | None = None

    def stop(self) -> None:
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout=10)
        self.sock.close()


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def prepare(
    folders: Sequence[Path], host: str = LOOPBACK, port: int = 0, extra_routes: Sequence[BaseRoute] = ()
) -> Serving:
    """The server over ``folders`` on ``host``:``port`` (0: a free one), bound, not yet
    answering; raises ServeError naming what is wrong (a folder, the address, the port)."""
    token = None if is_loopback(host) else secrets.token_urlsafe(18)
    app = make_app(folders, token=token, extra_routes=extra_routes)
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        raise ServeError(
            f"cannot listen on {host}:{port} ({exc.strerror or exc}); give another --port or --host"
        ) from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}/" + (f"?token={token}" if token else "")
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, lifespan="off")
    return Serving(url, uvicorn.Server(config), sock)


def run_in_foreground(serving: Serving) -> None:
    """Answer until Ctrl-C."""
    serving.server.run(sockets=[serving.sock])


def start_beside(serving: Serving) -> Serving:
    """Answer from a thread of this process (beside a run), until :meth:`Serving.stop`."""
    thread = threading.Thread(
        target=serving.server.run, kwargs={"sockets": [serving.sock]}, name="arena-serve", daemon=True
    )
    serving.thread = thread
    thread.start()
    return serving
