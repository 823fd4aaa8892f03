"""A results folder holds one tournament: the settings its games were played under.

The settings are everything that shapes a game, as the tournament makes them
(:func:`arena.tournament.settings.tournament_settings`): every key of the tournament file,
so a key added later is covered unless it is listed here as free.  The folder stores them
with their hash (the fingerprint); a run whose settings differ is refused by
:class:`~arena.results.store.GameStore` with the list of what changed.

Free to change: ``name``, ``out``, ``workers``, ``affinity`` and ``idle_engines`` (they decide
where and how the games are run, not how they go), ``forfeit_failed_engines`` (whether a run
stops when an engine fails its start-up check), ``elo_prior`` (how the tables rate them), an
engine's ``max_failures`` (when to stop starting a broken engine), an event's ``tiebreaks``
(how its standings are ranked) and the path of its rating list (its order counts), and the keys in
:data:`GROWABLE`, which may only be raised: more rounds (with ``[sprt]``, a higher limit on
the test's pairs) extend the schedule, whose earlier games stay the same.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

# A tournament's settings as a folder stores them: a JSON document, read where it is used
# (arena/tournament/settings.py writes it; arena/tournament/config.py validates the file it comes from).
StoredSettings = dict[str, Any]

# Where and how games run or are shown, not how they go.
FREE = (
    "name",
    "out",
    "workers",
    "affinity",
    "idle_engines",
    "cluster",
    "elo_prior",
    "forfeit_failed_engines",
    "tiebreaks",
    "seeds.file",  # the order it gives is what counts
)
FREE_PER_ENGINE = ("max_failures",)
GROWABLE = ("rounds",)  # with [sprt], rounds is also the test's limit in pairs


def fingerprint(settings: Mapping[str, Any]) -> str:
    """The hash of the settings without the free and growable keys."""
    return digest(_fixed(settings, GROWABLE))


def changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What differs between two settings that would stop a resume, one line each, e.g.
    ``time_control.movetime_ms: 1000 -> 2000``; growable keys only when they went down."""
    out: list[str] = []
    _diff(_fixed(old, ()), _fixed(new, ()), "", out)
    for path in GROWABLE:
        before, after = _get(old, path), _get(new, path)
        if isinstance(before, int) and isinstance(after, int) and after < before:
            out.append(f"{path}: {before} -> {after} (may only be raised: the folder holds the games of {before})")
    return out


def _fixed(settings: Mapping[str, Any], leave_out: tuple[str, ...]) -> StoredSettings:
    """The settings that must stay: engines keyed by name, free keys and ``leave_out`` out."""
    fixed: StoredSettings = json.loads(json.dumps(settings))
    for path in FREE + leave_out:
        _pop(fixed, path)
    engines = fixed.get("engines")
    if isinstance(engines, list):
        fixed["engines"] = {
            e.get("name"): {k: v for k, v in e.items() if k not in FREE_PER_ENGINE}
            for e in engines
            if isinstance(e, dict)
        }
        # The schedule pairs engines by their place in the file: another order is another
        # schedule, whose game ids mean other pairings.
        fixed["engine_order"] = [e.get("name") for e in engines if isinstance(e, dict)]
    return fixed


def _diff(old: Any, new: Any, where: str, out: list[str]) -> None:
    if where in GROWABLE:
        return  # checked apart: it may go up
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in sorted(set(old) | set(new), key=str):
            path = f"{where}.{key}" if where else str(key)
            if key not in new:
                out.append(f"{path}: {_short(old[key])} -> (removed)")
            elif key not in old:
                if path not in GROWABLE:
                    out.append(f"{path}: (not set) -> {_short(new[key])}")
            else:
                _diff(old[key], new[key], path, out)
    elif old != new:
        out.append(f"{where}: {_short(old)} -> {_short(new)}")


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def digest(value: Any) -> str:
    """The SHA-256 of ``value`` as canonical JSON (sorted keys, no spaces)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _get(data: Mapping[str, Any], path: str) -> Any:
    for key in path.split("."):
        if not isinstance(data, Mapping) or key not in data:
            return None
        data = data[key]
    return data


def _pop(data: dict[str, Any], path: str) -> None:
    *parents, last = path.split(".")
    inner: Any = data
    for key in parents:
        inner = inner.get(key) if isinstance(inner, dict) else None
    if isinstance(inner, dict):
        inner.pop(last, None)
