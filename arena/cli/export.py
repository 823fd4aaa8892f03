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
    from ..results.sgf import HEXGUI_MAX_SIZE, SgfError, hex_collection_sgf, hex_game_sgf, larger_than_hexgui
    from ..results.store import StorageError, read_folder

    try:
        _, records = read_folder(folder)
    except StorageError as exc:
        raise Failure(str(exc)) from None
    by_id = {r["id"]: r for r in records}
    missing = [i for i in game_ids if i not in by_id]
    if missing:
        raise Failure(
            f"{folder}: no game {', '.join(map(str, missing))} (games stored: {len(records)}, ids "
            f"{min(by_id, default=0)}..{max(by_id, default=0)})"
        )
    chosen = [by_id[i] for i in dict.fromkeys(game_ids)] if game_ids else records
    try:
        if per_game:
            target.mkdir(parents=True, exist_ok=True)
            for r in chosen:
                (target / f"game-{r['id']}.sgf").write_text(hex_game_sgf(r), encoding="utf-8")
        else:
            target.write_text(hex_collection_sgf(chosen), encoding="utf-8")
    except SgfError as exc:
        raise Failure(str(exc)) from None
    except OSError as exc:
        raise Failure(f"{target}: cannot write ({exc.strerror}); choose another --out") from None
    click.echo(f"{len(chosen)} game(s): {target}")
    if not per_game and len(chosen) > 1:
        click.echo("note: HexGui opens the first game of a file with several; --per-game writes one file a game")
    if larger_than_hexgui(chosen):
        click.echo(
            f"note: HexGui draws boards up to {HEXGUI_MAX_SIZE}x{HEXGUI_MAX_SIZE}; larger ones are "
            f"valid SGF for other viewers"
        )
