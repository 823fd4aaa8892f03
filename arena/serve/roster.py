"""The engines a page may start: the bundled ones, an engine list's and the results folders'.

A page names an engine; it never sends a command.  Every engine it can name is listed here
from files the person running the server chose (the engine list, the folders given), or is
one of arena's own engines, and each entry is checked as a tournament file's entry is
(arena/tournament/config.py) before it is started.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from ..engine.player import EngineSpec
from ..results.store import StorageError, decode_meta, read_stored
from ..tournament.config import ConfigError, EngineEntry, EngineTable, engine_spec, load_engine_list
from ..tournament.validation import validation_text

# arena's own engines, as a tournament file names them (engines/README.md).
BUNDLED: tuple[EngineTable, ...] = (
    {"name": "random", "command": ["{python}", "-m", "engines.random_engine"]},
    {"name": "search-easy", "command": ["{python}", "-m", "engines.search"], "options": {"level": "easy"}},
    {"name": "search-medium", "command": ["{python}", "-m", "engines.search"], "options": {"level": "medium"}},
    {"name": "search-hard", "command": ["{python}", "-m", "engines.search"], "options": {"level": "hard"}},
)


@dataclass(frozen=True)
class Offered:
    """An engine the page offers: its entry, where it comes from, and the folder its paths
    are relative to."""

    entry: EngineTable
    source: str
    base: Path

    @property
    def name(self) -> str:
        return self.entry["name"]

    def spec(self) -> EngineSpec:
        """How to start it; raises ConfigError naming the entry and what is wrong."""
        where = f"{self.source}: engine {self.name!r}"
        try:
            entry = EngineEntry.model_validate(self.entry)
        except ValidationError as exc:
            raise ConfigError(f"{where}: {validation_text(exc, self.source, model=EngineEntry)}") from None
        return engine_spec(self.source, self.base, entry)


def roster(engine_list: Path | None, folders: Sequence[Path], base: Path) -> dict[str, Offered]:
    """Every engine a page may start, by name: the bundled ones, then the engine list's,
    then each folder's (its stored settings' engines, their paths relative to ``base``);
    a name already offered keeps its first entry."""
    offered = {entry["name"]: Offered(entry, "bundled engines", base) for entry in BUNDLED}
    if engine_list is not None:
        listed = load_engine_list(engine_list)
        for name, raw in listed.entries.items():
            offered.setdefault(name, Offered(_table(raw), str(engine_list), engine_list.resolve().parent))
    for folder in folders:
        for entry in _folder_engines(folder):
            offered.setdefault(entry["name"], Offered(entry, str(folder), base))
    return offered


def _folder_engines(folder: Path) -> list[EngineTable]:
    """The engines a results folder's stored settings start (not the people who played in it)."""
    try:
        meta, _ = read_stored(folder)
        settings = decode_meta(folder, "settings", meta.get("settings"), {})
    except StorageError as exc:
        raise ConfigError(str(exc)) from None
    engines = settings.get("engines", []) if isinstance(settings, dict) else []
    return [_table(e) for e in engines if isinstance(e, dict) and "command" in e]


def _table(raw: dict[str, object]) -> EngineTable:
    """An entry with only the keys a tournament file's entry has (a stored one has more)."""
    keys = EngineEntry.model_fields
    table: EngineTable = {key: value for key, value in raw.items() if key in keys}  # type: ignore[assignment]
    if table.get("sandbox") is None:
        table.pop("sandbox", None)
    return table
