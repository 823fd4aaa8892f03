"""``arena serve``: a local web server over results folders, their games shown as played."""

from __future__ import annotations

from pathlib import Path

import click

from .group import Command, Failure


@click.command(cls=Command, short_help="Watch results folders in a browser, their games live.")
@click.argument("folders", nargs=-1, type=click.Path(file_okay=False, path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="The port (default: a free one).")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    metavar="ADDR",
    help="The address to listen on; any but loopback needs the token the printed link carries.",
)
@click.option(
    "--games",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("out/play"),
    show_default=True,
    help="Where the games a person plays are stored, a results folder each.",
)
@click.option(
    "--engines",
    "engine_list",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The engine list a person may choose opponents from (default: engines.toml here, if any).",
)
def serve(folders: tuple[Path, ...], port: int, host: str, games: Path, engine_list: Path | None) -> None:
    """Serve the report sites of results FOLDERs (the --out of 'arena run', finished or
    running) and their games in progress, board by board as the moves are played, and a
    page where a person plays engines (docs/serve.md, docs/play.md). Stops with Ctrl-C."""
    from ..serve.app import ServeError
    from ..serve.play import PlaySettings, play_routes
    from ..serve.server import prepare, run_in_foreground

    if engine_list is None and Path("engines.toml").is_file():
        engine_list = Path("engines.toml")
    play = play_routes(PlaySettings(games_dir=games, engine_list=engine_list, folders=tuple(folders)))
    try:
        serving = prepare(list(folders), host, port, extra_routes=play)
    except ServeError as exc:
        raise Failure(str(exc)) from None
    click.echo(f"arena serve: {serving.url}", nl=True)
    try:
        run_in_foreground(serving)
    except KeyboardInterrupt:
        pass
