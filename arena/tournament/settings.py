"""A loaded tournament as the settings its results folder stores (arena/results/fingerprint.py).

:func:`tournament_settings` lists everything that shapes a game: the game and its options,
every engine as it is started (protocol, resolved command and arguments, working directory,
options, environment, limits), the time control, the openings (the book's moves, not its
path), the seed, and every other key of the tournament file, so a key added later is covered
unless the fingerprint lists it as free.

The paths are the project's, not the machine's (``"paths": "relative"``): an engine's working
folder is written relative to the tournament file unless the file gives it absolute, a
command given as a relative path is kept as written (relative to that folder), and
``{python}`` stays ``{python}`` (arena's own interpreter, wherever it is installed).  So a
project moved or cloned elsewhere, the tournament file and its results folder in the same
places relative to each other, still resumes, and a changed ``cwd`` is still a change.
Folders made before stored absolute paths; they are compared with
``tournament_settings(t, portable=False)``, the settings as they were stored then.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import MutableMapping
from typing import Any

from ..results.fingerprint import digest
from ..rules.base import JsonValue
from .config import EngineEntry, Tournament, TournamentFile

PORTABLE = "relative"  # settings["paths"]: the paths are the project's (see above)


def tournament_settings(t: Tournament, portable: bool = True) -> dict[str, Any]:
    """The settings of a loaded tournament, as JSON data: the tournament file as validated,
    with each engine as it is started (the program found on PATH; with ``portable`` false,
    every path resolved as folders made before stored them) and the openings' moves in
    place of the book's path."""
    data = t.data.model_dump(mode="json")
    data["options"] = t.game.options.model_dump(mode="json")  # with the defaults filled in
    entries = {e["name"]: e for e in data.pop("engines")}
    given = {e.name: e for e in t.data.engines}
    engines = []
    for spec in t.engines:
        entry = dict(entries.get(spec.name, {}))
        entry.update(_jsonable(dataclasses.asdict(spec)))  # as started: resolved paths
        if portable:
            entry.update(cwd=_portable_cwd(given[spec.name]), command=_portable_command(given[spec.name], spec.command))
        entry.setdefault("protocol", "arena")
        if not entry.get("verify_score"):  # a key added later: folders made before it still resume
            entry.pop("verify_score", None)
        if entry.pop("sandbox", None):  # as the file says it (the paths it hides are the run's)
            entry["sandbox"] = True
        if entry.pop("restart", None):  # stored only when set: folders made before the key still resume
            entry["restart"] = "always"
        _without_unset_clock_keys(entry.get("time_control"))
        engines.append(entry)
    data["engines"] = engines
    _without_unset_clock_keys(data.get("time_control"))
    _event_keys(t, data)
    # Only the rules set: a folder made before [adjudication] (or without it) still resumes.
    data["adjudication"] = t.data.adjudication.model_dump(mode="json", exclude_defaults=True)
    if not data["adjudication"]:
        del data["adjudication"]
    if portable:
        data["paths"] = PORTABLE
    if data.get("openings") is not None:
        data["openings"] = {"moves_sha256": digest([list(o) for o in t.openings]), "count": len(t.openings)}
        if t.data.openings_entry.random_plies:  # order and start show in the moves' order
            data["openings"]["random_plies"] = t.data.openings_entry.random_plies
    return data


def _without_unset_clock_keys(clock: MutableMapping[str, object] | None) -> None:
    """Clock keys added later (moves per period, a node budget) are stored only when set,
    so folders made before them still resume."""
    for key in ("moves", "nodes"):
        if clock is not None and clock.get(key) is None:
            clock.pop(key, None)


def _event_keys(t: Tournament, data: MutableMapping[str, object]) -> None:
    """The keys of knockout and Swiss events, left out where they keep their defaults (so a
    folder made before them still resumes), the seeds as the order they give, and a
    knockout's rounds again where they cannot grow (``rounds`` may: fingerprint.GROWABLE)."""
    for key in ("seeds", "both_seats", "tiebreak_pairs", "tiebreaks"):
        if data.get(key) == TournamentFile.model_fields[key].default:
            data.pop(key, None)
    if t.data.seeds is not None:
        data["seeds"] = {"file": t.data.seeds, "order": list(t.seeded)}
    if t.data.format == "knockout":  # a match's length: growing it would draw another bracket
        data["match_rounds"] = t.data.rounds


def legacy_fingerprint(t: Tournament) -> str:
    """The hash folders were made with before they stored their settings (game, options,
    seed, engine names, openings), so such a folder still resumes when none of those changed."""
    data = t.data
    fields: dict[str, JsonValue] = {
        "game": data.game,
        "options": t.game.options.model_dump(),
        "seed": data.seed,
        "engines": [e.name for e in data.engines],
    }
    if t.openings:
        fields["openings"] = t.openings
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def _portable_cwd(entry: EngineEntry) -> str:
    """The engine's folder as the file gives it: relative to the tournament file (``.``
    by default), or absolute where the file says so."""
    return os.path.normpath(entry.cwd or ".")


def _portable_command(entry: EngineEntry, started: tuple[str, ...]) -> list[str]:
    """The command as written, but for a program found on PATH, which is kept as found
    (another program of that name is another engine)."""
    command = list(entry.command)
    program = command[0]
    if program != "{python}" and os.sep not in program:
        command[0] = started[0]
    elif os.sep in program:
        command[0] = os.path.normpath(program)
    return command


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value))  # tuples become lists, as they read back from the folder
