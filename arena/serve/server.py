"""Starting ``arena serve``'s server: its socket, its token, uvicorn over them, and the URL
it prints (beside a run, beside.py starts uvicorn in a process of its own over this socket).

The socket is bound here, before uvicorn starts, so a free port (port 0) is known at once
and a port in use is one clear line.  Loopback needs no token; any other address gets a
fresh one, which the printed link carries (guard.py).
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.routing import BaseRoute

from .app import ServeError, make_app

LOOPBACK = "127.0.0.1"


@dataclass
class Listening:
    """A socket bound and listening, the link that reaches it, and the token every request
    must carry (None on loopback)."""

    sock: socket.socket
    url: str
    token: str | None


@dataclass
class Serving:
    """A server made: its link (the token in it, if any), uvicorn and its socket."""

    url: str
    server: uvicorn.Server
    sock: socket.socket


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen(host: str = LOOPBACK, port: int = 0) -> Listening:
    """A socket on ``host``:``port`` (0: a free one), listening, and its token if ``host`` is
    not loopback; raises ServeError naming the address and what to do."""
    token = None if is_loopback(host) else secrets.token_urlsafe(18)
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
    return Listening(sock, url, token)


def uvicorn_server(app: Starlette) -> uvicorn.Server:
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, lifespan="off")
    return uvicorn.Server(config)


def prepare(
    folders: Sequence[Path], host: str = LOOPBACK, port: int = 0, extra_routes: Sequence[BaseRoute] = ()
) -> Serving:
    """The server over ``folders`` on ``host``:``port`` (0: a free one), bound, not yet
    answering; raises ServeError naming what is wrong (a folder, the address, the port)."""
    listening = listen(host, port)
    try:
        app = make_app(folders, token=listening.token, extra_routes=extra_routes)
    except ServeError:
        listening.sock.close()
        raise
    return Serving(listening.url, uvicorn_server(app), listening.sock)


def run_in_foreground(serving: Serving) -> None:
    """Answer until Ctrl-C."""
    serving.server.run(sockets=[serving.sock])
