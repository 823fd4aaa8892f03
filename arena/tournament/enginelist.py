"""One engine list for many tournaments: ``engines.toml`` (or ``arena run --engines FILE``).

A list is a file of ``[[engines]]`` entries exactly as a tournament file writes them. A
tournament's entry ``use = "NAME"`` takes the listed entry; its other keys override the
listed ones (``options``, ``env`` and ``time_control`` key by key, any other key whole), and
its own ``name`` lets one listed engine play twice under two names. The tournament holds
the resolved entry, so its fingerprint does too: editing the list is a changed setting.

A listed engine's ``cwd`` is relative to the list's folder; resolved, it is written relative
to the tournament file's folder (or absolute, for a file that may be copied anywhere), so
the engine starts in the same folder wherever the list and the tournament are.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator

from protocol.codec import quote

from ..rules.base import did_you_mean
from .config import ConfigError, EngineEntry, _Strict, read_toml, unique_names, validation_text

MERGED = ("options", "env", "time_control")  # tables an entry's overrides merge into key by key


class EngineListFile(_Strict):
    engines: list[EngineEntry] = Field(min_length=1)

    @field_validator("engines")
    @classmethod
    def _unique_names(cls, engines: list[EngineEntry]) -> list[EngineEntry]:
        return unique_names(engines)


@dataclass(frozen=True)
class EngineList:
    path: Path
    entries: dict[str, dict[str, Any]]  # each listed entry as the file gives it, by name


def load_engine_list(path: Path) -> EngineList:
    """The list at ``path``, every entry checked as a tournament file's entry is."""
    raw = read_toml(path, "engine list")
    try:
        EngineListFile.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {validation_text(exc, path.name, model=EngineListFile)}") from None
    return EngineList(path, {entry["name"]: entry for entry in raw["engines"]})


def resolve_uses(
    raw: dict[str, Any],
    where: str,
    list_path: Path,
    list_given: bool,
    base: Path | None,
    labels: Mapping[tuple[Any, ...], str],
) -> dict[str, Any]:
    """``raw`` with every ``use = "NAME"`` entry replaced by the listed entry and its
    overrides. The list is read when an entry uses it (or when it was given by name, so a
    broken list is found at once); ``base`` is the folder a listed ``cwd`` is written
    relative to (None: absolute); ``labels`` name an entry by the flag that gave it."""
    engines = raw.get("engines")
    if not isinstance(engines, list):
        return raw
    uses = [i for i, entry in enumerate(engines) if isinstance(entry, dict) and "use" in entry]
    if not uses and not list_given:
        return raw
    if not list_path.is_file() and not list_given:
        first = uses[0]
        raise ConfigError(
            f"{where}: {_entry(labels, first)}: use = {_shown(engines[first]['use'])} needs an engine list, and "
            f"there is no {list_path}; write one ([[engines]] entries) or name it with --engines FILE"
        )
    listing = load_engine_list(list_path)
    resolved: list[Any] = []
    used: dict[str, tuple[str, str]] = {}  # a resolved engine's name -> where its entry is, the listed name
    for i, entry in enumerate(engines):
        if i in uses:
            entry = _resolve(entry, _entry(labels, i), where, listing, used, base)
        resolved.append(entry)
    return {**raw, "engines": resolved}


def _resolve(
    entry: dict[str, Any],
    at: str,
    where: str,
    listing: EngineList,
    used: dict[str, tuple[str, str]],
    base: Path | None,
) -> dict[str, Any]:
    listed_name = entry["use"]
    if not isinstance(listed_name, str) or listed_name not in listing.entries:
        names = ", ".join(listing.entries)
        meant = did_you_mean(listed_name, listing.entries) if isinstance(listed_name, str) else None
        hint = f"did you mean {meant!r}? " if meant is not None else ""
        raise ConfigError(
            f"{where}: {at}: use = {_shown(listed_name)} is not in {listing.path} ({hint}it lists {names})"
        )
    name = entry.get("name", listed_name)
    if isinstance(name, str) and used.get(name, ("", None))[1] == listed_name:
        raise ConfigError(
            f"{where}: {at}: {listed_name!r} from {listing.path} is used twice under the name {name!r} "
            f"({used[name][0]} too); give one of them its own name"
        )
    if isinstance(name, str):
        used[name] = (at, listed_name)
    out = copy.deepcopy(listing.entries[listed_name])
    _move_cwd(out, listing.path.resolve().parent, base)
    for key, value in entry.items():
        if key == "use":
            continue
        if key in MERGED and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def _move_cwd(entry: dict[str, Any], list_dir: Path, base: Path | None) -> None:
    """A listed ``cwd`` (relative to the list) as the tournament file writes it."""
    cwd = entry.get("cwd")
    if isinstance(cwd, str) and os.path.isabs(cwd):
        return
    folder = os.path.normpath(os.path.join(list_dir, cwd if isinstance(cwd, str) else "."))
    if base is None:
        entry["cwd"] = folder
    elif (moved := os.path.relpath(folder, base)) != "." or cwd is not None:
        entry["cwd"] = moved


def _entry(labels: Mapping[tuple[Any, ...], str], i: int) -> str:
    return labels.get(("engines", i), f"engines.{i}")


def _shown(value: Any) -> str:
    return quote(value, 80) if isinstance(value, str) else repr(value)
