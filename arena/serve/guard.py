"""Who may talk to ``arena serve``: the checks every request passes before any page.

Bound to loopback (the default), only this machine reaches the server, and a request must
name it as a loopback host (``Host``), so a web page elsewhere cannot reach it through a
name of its own that resolves here (DNS rebinding).  Bound to another address, every
request carries the token printed at the start: in the link (``?token=``), after which a
cookie carries it.  In both cases a request that may change something (any method but
GET, HEAD and OPTIONS) is refused when the browser says it comes from another origin's
page (``Origin``, or without one ``Referer``).
"""

from __future__ import annotations

import hmac
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "arena_token"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class Guard:
    """ASGI middleware: the token, the loopback host and the same-origin rule."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self.refusal(scope, headers)
        if refusal is not None:
            await _refuse(send, refusal)
            return
        given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        if self.token is not None and given and self._matches(given):
            await self.app(scope, receive, _with_cookie(send, self.token))
            return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope, headers: dict[str, str]) -> str | None:
        """Why the request is refused, or None."""
        host = headers.get("host", "")
        if self.token is None and _hostname(host) not in LOOPBACK_NAMES:
            return f"this server answers only as a loopback address, not as {host!r}"
        if self.token is not None and not self._carries_token(scope, headers):
            return "this server needs its token: open the link with ?token= that 'arena serve' printed"
        if scope["method"] not in SAFE_METHODS:
            origin = headers.get("origin") or headers.get("referer")
            if origin is not None and _origin(origin) != f"{scope.get('scheme', 'http')}://{host}":
                return "refused: a request to change something must come from this server's own pages"
        return None

    def _carries_token(self, scope: Scope, headers: dict[str, str]) -> bool:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # a malformed cookie header carries no token
            return False
        candidates = [*query.get("token", []), *([cookie[COOKIE].value] if COOKIE in cookie else [])]
        return any(self._matches(c) for c in candidates)

    def _matches(self, given: str) -> bool:
        assert self.token is not None
        return hmac.compare_digest(given.encode(), self.token.encode())


def _hostname(host: str) -> str:
    """``Host``'s name without its port (``[::1]:80`` -> ``::1``)."""
    return (urlsplit(f"//{host}").hostname or "").lower()


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _with_cookie(send: Send, token: str) -> Send:
    """The response, setting the token's cookie (the pages' own requests then carry it)."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            cookie = f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
            message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie.encode())]}
        await send(message)

    return sending


async def _refuse(send: Send, why: str) -> None:
    body = (why + "\n").encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 403, "headers": headers})
    await send({"type": "http.response.body", "body": body})
