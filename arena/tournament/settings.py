"""A loaded tournament as the settings its results folder stores (arena/results/fingerprint.py).

:func:`tournament_settings` lists everything that shapes a game: the game and its options,
every engine as it is started (protocol, resolved command and arguments, working directory,
options, environment, limits), the time control, the openings (the book's moves, not its
path), the seed, and every other key of the tournament file, so a key added later is covered
unless the fingerprint lists it as free.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from ..results.fingerprint import digest
from .config import Tournament


def tournament_settings(t: Tournament) -> dict[str, Any]:
    """The settings of a loaded tournament, as JSON data: the tournament file as validated,
    with each engine as it is started (resolved command and folder) and the openings' moves
    in place of the book's path."""
    data = t.data.model_dump(mode="json")
    data["options"] = t.game.options.model_dump(mode="json")  # with the defaults filled in
    entries = {e["name"]: e for e in data.pop("engines")}
    engines = []
    for spec in t.engines:
        entry = dict(entries.get(spec.name, {}))
        entry.update(_jsonable(dataclasses.asdict(spec)))  # as started: resolved paths
        entry.setdefault("protocol", "arena")
        engines.append(entry)
    data["engines"] = engines
    if data.get("openings") is not None:
        data["openings"] = {"moves_sha256": digest([list(o) for o in t.openings]), "count": len(t.openings)}
        if t.data.openings_entry.random_plies:  # order and start show in the moves' order
            data["openings"]["random_plies"] = t.data.openings_entry.random_plies
    return data


def legacy_fingerprint(t: Tournament) -> str:
    """The hash folders were made with before they stored their settings (game, options,
    seed, engine names, openings), so such a folder still resumes when none of those changed."""
    data = t.data
    fields: dict[str, Any] = {
        "game": data.game,
        "options": t.game.options.model_dump(),
        "seed": data.seed,
        "engines": [e.name for e in data.engines],
    }
    if t.openings:
        fields["openings"] = t.openings
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value))  # tuples become lists, as they read back from the folder
