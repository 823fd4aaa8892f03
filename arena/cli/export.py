"""``arena export``: a results folder's games in other formats (SGF)."""

from __future__ import annotations

from pathlib import Path

import click

from .group import Commands, Failure


@click.group(cls=Commands)
def export() -> None:
    """Write a results folder's games in other formats."""


@export.command("sgf")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--out",
    "-o",
    "target",
    required=True,
    type=click.Path(path_type=Path),
    help="The .sgf file (with --per-game: a folder, one game-<id>.sgf per game).",
)
@click.option("--game", "game_ids", multiple=True, type=click.IntRange(0), help="Only this game id (repeatable).")
@click.option("--per-game", is_flag=True, help="One file per game instead of one collection.")
def export_sgf(folder: Path, target: Path, game_ids: tuple[int, ...], per_game: bool) -> None:
    """Write the Hex games of FOLDER as SGF that HexGui opens (FF[4] GM[11])."""
    from ..results.sgf import SgfError
    from ..results.sgfexport import export_sgf as write_sgf
    from ..results.store import StorageError

    try:
        written = write_sgf(folder, target, game_ids, per_game)
    except (StorageError, SgfError) as exc:
        raise Failure(str(exc)) from None
    except OSError as exc:
        raise Failure(f"{target}: cannot write ({exc.strerror}); choose another --out") from None
    click.echo(f"{written.games} game(s): {target}")
    for note in written.notes:
        click.echo(f"note: {note}")
