"""The pages where a person plays an engine: choose a game, play it by clicking, store it.

:func:`play_routes` gives the server its routes (Starlette's): the setup page (``/play``),
which asks each game for its options (their types, ranges and meanings) and offers the
engines of :mod:`arena.serve.roster`; the page of a game (``/play/game/ID``), which draws
the board with the report site's drawing (board.js over boards.py's geometry and the
site's stylesheet) and follows the game by asking for its view (``/view?since=N`` waits
until something changes); and the requests that change something (a new game, a move, a
resignation), which are JSON posts and are refused from another origin.  Each game is a
:class:`~arena.serve.table.Table` whose folder lands in ``games_dir``.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypedDict, get_args, get_origin

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..match import TimeControl
from ..results.site import asset_text
from ..results.site.boards import board_geometry
from ..rules import GAMES, Game, OptionError, game_class, make_game
from ..rules.base import JsonValue, validation_model
from ..tournament.config import ConfigError, engine_name_problem
from .roster import Offered, roster
from .table import Seating, Table, attempted

HERE = Path(__file__).resolve().parent
SITE_ASSETS = ("site.css", "board.js")  # the report site's, served as they are
WAIT_S = 10.0  # the longest a view request waits for a change before answering as it is
POLL_S = 0.05


@dataclass(frozen=True)
class PlaySettings:
    """Where the games go, and which engines the pages may start: the bundled ones, those of
    ``engine_list`` and those the results ``folders`` were played by (their relative paths
    from ``base``)."""

    games_dir: Path
    engine_list: Path | None = None
    folders: tuple[Path, ...] = ()
    base: Path = field(default_factory=Path.cwd)


def play_routes(settings: PlaySettings) -> list[BaseRoute]:
    """The play pages' routes, for the server's app."""
    room = Room(settings)
    return [
        Route("/play", room.setup_page),
        Route("/play/seats", room.seats),
        Route("/play/new", room.new_game, methods=["POST"]),
        Route("/play/game/{table}", room.game_page),
        Route("/play/game/{table}/view", room.view),
        Route("/play/game/{table}/move", room.move, methods=["POST"]),
        Route("/play/game/{table}/resign", room.resign, methods=["POST"]),
        Route("/play/assets/{name}", room.site_asset),
        Mount("/play/static", StaticFiles(directory=HERE / "static"), name="play-static"),
    ]


class Room:
    """The play pages' handlers and the tables they started."""

    def __init__(self, settings: PlaySettings) -> None:
        self.settings = settings
        self.tables: dict[str, Table] = {}
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True, undefined=jinja2.StrictUndefined
        )

    def engines(self) -> dict[str, Offered]:
        """Read afresh for each page, so an edited engine list shows without a restart."""
        s = self.settings
        return roster(s.engine_list, s.folders, s.base)

    # -- pages ------------------------------------------------------------------

    async def setup_page(self, request: Request) -> Response:
        try:
            engines = list(self.engines())  # the bundled first, as the roster orders them
        except ConfigError as exc:
            return HTMLResponse(self._render("play_error.html", problem=str(exc)), status_code=500)
        data = {"games": [game_form(name) for name in GAMES], "engines": engines}
        return HTMLResponse(self._render("play_setup.html", data=data))

    async def game_page(self, request: Request) -> Response:
        table = self.tables.get(request.path_params["table"])
        if table is None:
            return HTMLResponse(self._render("play_error.html", problem="no such game here"), status_code=404)
        data = {"board": board_geometry(table.seating.game), "id": request.path_params["table"]}
        return HTMLResponse(self._render("play_game.html", data=data, table=table))

    async def site_asset(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in SITE_ASSETS:
            return Response("not found", status_code=404)
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        return Response(asset_text(name), media_type=kind)

    def _render(self, template: str, **values: Any) -> str:
        return self.env.get_template(template).render(**values)

    # -- reading ----------------------------------------------------------------

    async def seats(self, request: Request) -> Response:
        """The seats a game with these options has (Posies: 2 or 3), or what is wrong."""
        try:
            options = json.loads(request.query_params.get("options", "{}"))
            if not isinstance(options, dict):
                raise ValueError("options: expected an object of option values")
            game = _game(request.query_params.get("game", ""), options)
        except (OptionError, ValueError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse({"players": game.players, "colours": list(game.seat_names)})

    async def view(self, request: Request) -> Response:
        """The game's view once its version passes ``since`` (or after WAIT_S as it is)."""
        table = self.tables.get(request.path_params["table"])
        if table is None:
            return JSONResponse({"error": "no such game here"}, status_code=404)
        since = _int(request.query_params.get("since"), -1)
        deadline = time.monotonic() + WAIT_S
        while table.version <= since and time.monotonic() < deadline:
            await asyncio.sleep(POLL_S)
        return JSONResponse(table.view())

    # -- changing ---------------------------------------------------------------

    async def new_game(self, request: Request) -> Response:
        body = await _posted(request)
        if isinstance(body, Response):
            return body
        try:
            seating = self._seating(body)
        except (OptionError, ConfigError, ValueError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        folder = self._folder(seating)
        table = Table(seating, folder)
        self.tables[folder.name] = table
        table.start()
        return JSONResponse({"id": folder.name, "url": f"/play/game/{folder.name}"})

    async def _posted_to(self, request: Request) -> tuple[Table, Mapping[str, Any]] | Response:
        """A post to one game: its table and the body, or the answer refusing it."""
        table = self.tables.get(request.path_params["table"])
        body = await _posted(request)
        if isinstance(body, Response):
            return body
        if table is None:
            return JSONResponse({"error": "no such game here"}, status_code=404)
        return table, body

    async def move(self, request: Request) -> Response:
        posted = await self._posted_to(request)
        if isinstance(posted, Response):
            return posted
        table, body = posted
        move = body.get("move")
        if not isinstance(move, str):
            cells = body.get("cells")
            if not isinstance(cells, list) or not all(isinstance(c, str) for c in cells):
                return JSONResponse({"error": "send a move or the cells clicked"}, status_code=400)
            tried = attempted(cells, [m for m, _ in table.view()["legal"]], table.picture)
            if tried is None:
                return JSONResponse({"error": f"{'-'.join(cells)}: no legal move starts there"}, status_code=409)
            move = tried
        problem = table.offer(move)
        if problem is not None:
            return JSONResponse({"error": f"{move} is not a move now: {problem}"}, status_code=409)
        return JSONResponse({"played": move})

    async def resign(self, request: Request) -> Response:
        posted = await self._posted_to(request)
        if isinstance(posted, Response):
            return posted
        posted[0].resign()
        return JSONResponse({"resigned": True})

    def _seating(self, body: Mapping[str, Any]) -> Seating:
        """What a setup form posted, checked: the game and its options, a name, the engines
        (only those offered), the person's seat and the time control."""
        options = body.get("options", {})
        if not isinstance(options, dict):
            raise ValueError("options: expected an object of option values")
        game = _game(str(body.get("game", "")), options)
        person = str(body.get("name", "")).strip()
        if (problem := engine_name_problem(person)) is not None:
            raise ValueError(f"your name: {problem}")
        seat = _int(body.get("seat"), -1)
        if not 0 <= seat < game.players:
            raise ValueError(f"your seat: choose one of 0..{game.players - 1}")
        chosen = body.get("engines")
        if (
            not isinstance(chosen, list)
            or len(chosen) != game.players - 1
            or not all(isinstance(n, str) for n in chosen)
        ):
            raise ValueError(f"opponents: choose {game.players - 1} engine(s)")
        offered = self.engines()
        unknown = [str(name) for name in chosen if name not in offered]
        if unknown:
            raise ValueError(f"opponents: {', '.join(unknown)} is not an engine offered here")
        specs = [offered[name].spec() for name in chosen]
        if person in chosen:
            raise ValueError(f"your name: {person} is an engine's name; choose another")
        engines = (*specs[:seat], None, *specs[seat:])
        return Seating(game, engines, person, _time_control(body.get("clock")), secrets.randbelow(2**62))

    def _folder(self, seating: Seating) -> Path:
        """A new folder for the game, named by when, what and who."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        base = f"{stamp}-{seating.game.name}-{seating.person}"
        folder, n = self.settings.games_dir / base, 1
        while folder.exists() or folder.name in self.tables:
            n += 1
            folder = self.settings.games_dir / f"{base}-{n}"
        self.settings.games_dir.mkdir(parents=True, exist_ok=True)
        return folder


class OptionField(TypedDict, total=False):
    """One option of a game as the play page's form shows it."""

    name: str
    default: JsonValue
    meaning: str
    kind: Literal["choice", "switch", "number", "text"]
    choices: list[JsonValue]
    min: int
    max: int
    above: int


class GameForm(TypedDict):
    name: str
    options: list[OptionField]


def game_form(name: str) -> GameForm:
    """A game's options as a form shows them: each one's kind (a number in a range, a
    switch, a choice, text), its default and its meaning, read from the game's model."""
    fields = []
    for key, info in validation_model(game_class(name).Options).model_fields.items():
        entry: OptionField = {"name": key, "default": info.default, "meaning": info.description or ""}
        annotation = info.annotation
        if get_origin(annotation) is Literal:
            entry["kind"], entry["choices"] = "choice", list(get_args(annotation))
        elif annotation is bool:
            entry["kind"] = "switch"
        elif annotation is int:
            entry["kind"] = "number"
            for bound in info.metadata:
                if (low := getattr(bound, "ge", None)) is not None:
                    entry["min"] = low
                if (high := getattr(bound, "le", None)) is not None:
                    entry["max"] = high
                if (above := getattr(bound, "gt", None)) is not None:
                    entry["above"] = above
        else:
            entry["kind"] = "text"
        fields.append(entry)
    return {"name": name, "options": fields}


def _game(name: str, options: Mapping[str, Any]) -> Game:
    if name not in GAMES:
        raise OptionError(f"unknown game {name!r} (known: {', '.join(GAMES)})")
    return make_game(name, options)


def _time_control(clock: Any) -> TimeControl:
    """The page's clock: seconds a move, or a game's base and increment in seconds."""
    if not isinstance(clock, dict):
        raise ValueError("time control: expected seconds a move or a clock")
    try:
        if clock.get("kind") == "clock":
            base, inc = float(clock["base_s"]), float(clock.get("inc_s", 0))
            if not (0 < base <= 24 * 3600 and 0 <= inc <= 3600):
                raise ValueError
            return TimeControl(base_ms=round(base * 1000), inc_ms=round(inc * 1000))
        seconds = float(clock["move_s"])
        if not 0 < seconds <= 3600:
            raise ValueError
        return TimeControl(movetime_ms=round(seconds * 1000))
    except (KeyError, TypeError, ValueError):
        raise ValueError(
            "time control: seconds a move (over 0, at most 3600) or a clock's base (at most a day) and increment"
        ) from None


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


async def _posted(request: Request) -> dict[str, Any] | Response:
    """A change's JSON body, or the refusal: from another origin, or not JSON."""
    if not same_origin(request):
        return JSONResponse({"error": "refused: this request comes from another site"}, status_code=403)
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return JSONResponse({"error": "refused: send JSON"}, status_code=415)
    try:
        body = await request.json()
    except ValueError:
        return JSONResponse({"error": "the request is not JSON"}, status_code=400)
    return body if isinstance(body, dict) else JSONResponse({"error": "expected a JSON object"}, status_code=400)


def same_origin(request: Request) -> bool:
    """Whether a request that changes something comes from this server's own pages: its
    ``Origin`` (sent by browsers with every POST) is this server's, and the browser's
    ``Sec-Fetch-Site`` says nothing else.  A request without either is a program's, not
    another site's page (a page cannot leave out ``Origin``).  The server's own middleware
    checks the same; the handlers check again, so these routes are safe on any app."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    return origin is None or origin == f"{request.url.scheme}://{request.url.netloc}"
