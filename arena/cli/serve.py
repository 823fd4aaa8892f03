"""``arena serve``: a local web server over results folders, their games shown as played."""

from __future__ import annotations

from pathlib import Path

import click

from .group import Command, Failure


@click.command(cls=Command, short_help="Watch results folders in a browser, their games live.")
@click.argument("folders", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="The port (default: a free one).")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    metavar="ADDR",
    help="The address to listen on; any but loopback needs the token the printed link carries.",
)
def serve(folders: tuple[Path, ...], port: int, host: str) -> None:
    """Serve the report sites of results FOLDERs (the --out of 'arena run', finished or
    running) and their games in progress, board by board as the moves are played
    (docs/serve.md). Stops with Ctrl-C."""
    from ..serve.app import ServeError
    from ..serve.server import prepare, run_in_foreground

    try:
        serving = prepare(list(folders), host, port)
    except ServeError as exc:
        raise Failure(str(exc)) from None
    click.echo(f"arena serve: {serving.url}", nl=True)
    try:
        run_in_foreground(serving)
    except KeyboardInterrupt:
        pass
