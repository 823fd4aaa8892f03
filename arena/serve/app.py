"""The web app of ``arena serve``: each results folder's report site and its live games.

Folder ``k`` (in the order given) is under ``/k/``: its report site as ``arena report``
writes it (``FOLDER/report``, written first if the folder has none; a run refreshes it as
its games finish), and beside it ``live``, the page of the games in progress, which draws
their boards with the report's own board script and follows ``feed``, the folder's live
feed (feed.py).  ``/`` lists the folders, or with one folder goes to its live page.  Every
request passes the guard (guard.py).  ``extra_routes`` are added before the folders' (the
pages that let a person play).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..results.site import ASSETS, PageHeader, SiteError, asset_text, load_folder, template_environment, write_site
from ..rules.base import Options
from .feed import LiveFeed
from .guard import Guard

HERE = Path(__file__).resolve().parent
OWN_ASSETS = ("live.js",)


class ServeError(Exception):
    """A folder the server cannot show; the message names it and what to do."""


@dataclass
class Folder:
    """One results folder served: where, its title, its live feed."""

    path: Path
    title: str
    game: str
    options: Options
    feed: LiveFeed


def make_app(folders: Sequence[Path], *, token: str | None = None, extra_routes: Sequence[BaseRoute] = ()) -> Starlette:
    """The app over ``folders`` (each a results folder, finished or running); ``token``:
    every request must carry it (a server bound to another address than loopback)."""
    env = _environment()
    served = [_folder(path) for path in folders]
    play = any(getattr(route, "path", None) == "/play" for route in extra_routes)
    routes: list[BaseRoute] = [*extra_routes, Route("/", _home(env, served, play))]
    for k, folder in enumerate(served):
        routes.append(Mount(f"/{k}", routes=_folder_routes(env, folder, play)))
    app = Starlette(routes=routes)
    app.add_middleware(Guard, token=token)
    return app


def _environment() -> jinja2.Environment:
    """The report site's templates, with the live page's beside them."""
    env = template_environment()
    assert env.loader is not None
    env.loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(HERE / "templates"), env.loader])
    return env


def _folder(path: Path) -> Folder:
    """A folder to serve, its report written if it has none."""
    if not path.is_dir():
        raise ServeError(f"{path}: no such folder; give the --out folder of an 'arena run'")
    if not (path / "arena.db").exists():
        raise ServeError(f"{path}: not a results folder (no arena.db); give the --out folder of an 'arena run'")
    report = path / "report"
    try:
        data = load_folder(path)
    except SiteError:  # a run that has stored no game yet: its live site comes with the first
        report.mkdir(exist_ok=True)
        return Folder(path, f"arena · {path.name}", "", {}, LiveFeed(path))
    if not (report / "index.html").exists():
        write_site(report, data)
    return Folder(path, data.title, data.game, dict(data.options), LiveFeed(path))


def _home(env: jinja2.Environment, served: list[Folder], play: bool) -> Callable[[Request], Awaitable[Response]]:
    async def home(request: Request) -> Response:
        if len(served) == 1:  # its live page, which links the play page where there is one
            return RedirectResponse("/0/live", status_code=303)
        if not served:  # a server to play on: its play page is all there is
            return RedirectResponse("/play", status_code=303)
        page = env.get_template("folders.html").render(
            folders=[(k, f.title, str(f.path)) for k, f in enumerate(served)], play=play
        )
        return HTMLResponse(page)

    return home


def _folder_routes(env: jinja2.Environment, folder: Folder, play: bool) -> list[BaseRoute]:
    async def live(request: Request) -> Response:
        header = PageHeader(folder.title, folder.game, folder.options, 0, None, "")
        page = env.get_template("live.html").render(site=header, root="", current_page="live", play=play)
        return HTMLResponse(page)

    async def feed(request: Request) -> Response:
        # The stream ends when the page goes: Starlette cancels it on the disconnect.
        headers = {"cache-control": "no-store", "x-accel-buffering": "no"}
        stream = folder.feed.stream(request.headers.get("last-event-id"))
        return StreamingResponse(stream, media_type="text/event-stream", headers=headers)

    async def geometry(request: Request) -> Response:
        found = folder.feed.geometry.get(request.path_params["key"])
        return JSONResponse(found) if found is not None else PlainTextResponse("no such board\n", status_code=404)

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name in OWN_ASSETS:
            return Response((HERE / "static" / name).read_text(encoding="utf-8"), media_type="text/javascript")
        if name in ASSETS:  # the site's own, as this version writes them (a running folder may not have them yet)
            kind = "text/css" if name.endswith(".css") else "text/javascript"
            return Response(asset_text(name), media_type=kind)
        return PlainTextResponse("no such file\n", status_code=404)

    return [
        Route("/live", live),
        Route("/feed", feed),
        Route("/geometry/{key}", geometry),
        Route("/assets/{name}", asset),
        Mount("/", StaticFiles(directory=folder.path / "report", html=True, check_dir=False)),
    ]
