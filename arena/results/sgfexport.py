"""``arena export sgf``: the chosen games of a results folder written as SGF, one collection
file or one file a game, and the notes a HexGui user needs about what was written."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..record import GameRecord
from .sgf import HEXGUI_MAX_SIZE, SgfError, hex_collection_sgf, hex_game_sgf, larger_than_hexgui
from .store import read_folder


@dataclass(frozen=True)
class SgfExport:
    """What was written: how many games, and notes for the reader."""

    games: int
    notes: list[str] = field(default_factory=list)


def export_sgf(folder: Path, target: Path, game_ids: Sequence[int] = (), per_game: bool = False) -> SgfExport:
    """Write the games ``game_ids`` (default: all) of ``folder`` to ``target``. Raises
    StorageError (the folder), SgfError (a game or id) or OSError (the target)."""
    _, records = read_folder(folder)
    chosen = _chosen(folder, records, game_ids)
    if per_game:
        target.mkdir(parents=True, exist_ok=True)
        for record in chosen:
            (target / f"game-{record['id']}.sgf").write_text(hex_game_sgf(record), encoding="utf-8")
    else:
        target.write_text(hex_collection_sgf(chosen), encoding="utf-8")
    notes = []
    if not per_game and len(chosen) > 1:
        notes.append("HexGui opens the first game of a file with several; --per-game writes one file a game")
    if larger_than_hexgui(chosen):
        notes.append(
            f"HexGui draws boards up to {HEXGUI_MAX_SIZE}x{HEXGUI_MAX_SIZE}; larger ones are "
            "valid SGF for other viewers"
        )
    return SgfExport(len(chosen), notes)


def _chosen(folder: Path, records: list[GameRecord], game_ids: Sequence[int]) -> list[GameRecord]:
    """The records of ``game_ids`` in the order given (once each), or all of them."""
    by_id = {r["id"]: r for r in records}
    missing = [i for i in game_ids if i not in by_id]
    if missing:
        raise SgfError(
            f"{folder}: no game {', '.join(map(str, missing))} (games stored: {len(records)}, ids "
            f"{min(by_id, default=0)}..{max(by_id, default=0)})"
        )
    return [by_id[i] for i in dict.fromkeys(game_ids)] if game_ids else records
