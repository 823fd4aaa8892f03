"""pydantic's errors as one line a person can act on: each names the key (or the command-line
item that gave it) and what is allowed, and an unknown key gets the known key it most likely
misspells. Tournament files and engine lists (config.py) are checked through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ..rules.base import did_you_mean, shown_input

_PRIMITIVES = {"str", "int", "float", "bool"}


def _one_branch(errors: list[ErrorDetails]) -> list[ErrorDetails]:
    """For a key that takes one of several forms (``openings = "book.txt"`` or an
    ``[openings]`` table), pydantic reports every form that failed, naming each by its type
    in the key's path; keep the table's errors when a table was given, and drop the type
    names from the paths."""

    def tag(err: Any) -> tuple[int, str] | None:
        for k, part in enumerate(err["loc"]):
            if isinstance(part, str) and (part in _PRIMITIVES or part[:1].isupper()):
                return k, part
        return None

    tables = {err["loc"][: t[0]] for err in errors if (t := tag(err)) and t[1] not in _PRIMITIVES}
    kept = []
    for err in errors:
        if (t := tag(err)) is not None:
            if t[1] in _PRIMITIVES and err["loc"][: t[0]] in tables and isinstance(err.get("input"), dict):
                continue  # a table was given: the plain form's complaint says nothing
            err = {**err, "loc": err["loc"][: t[0]] + err["loc"][t[0] + 1 :]}
        kept.append(err)
    return kept


def validation_text(
    exc: ValidationError,
    file: str,
    labels: Mapping[tuple[Any, ...], str] | None = None,
    model: type[BaseModel] | None = None,
) -> str:
    """pydantic's errors as one line: each names the key (or the flag's item in ``labels``
    that gave it) and what is allowed; an unknown key of ``model`` (the validated one) gets
    the known key it was most likely meant to be."""
    errors = _one_branch(exc.errors())
    missing = {tuple(err["loc"]) for err in errors if err["type"] == "missing"}
    return "; ".join(_describe(err, file, labels or {}, model, missing) for err in errors)


def _unknown_key(where: str, loc: tuple[Any, ...], model: type[BaseModel] | None, missing: set[tuple[Any, ...]]) -> str:
    """An unknown key's message, with the key of its table it most likely misspells: first
    among the table's missing keys ('elo' for a missing elo0, not elo1), then all of them."""
    table, key = loc[:-1], str(loc[-1])
    known = _keys_at(model, table) if model is not None else []
    absent = [name for name in known if (*table, name) in missing]
    if (meant := did_you_mean(key, absent) or did_you_mean(key, known)) is not None:
        return f"unknown key {where!r}; check the spelling (did you mean {meant!r}?)"
    if known:
        return f"unknown key {where!r}; check the spelling (known keys: {', '.join(known)})"
    return f"unknown key {where!r}; check the spelling (see docs/tournament-file.md for the allowed keys)"


def _keys_at(model: type[BaseModel], table: tuple[Any, ...]) -> list[str]:
    """The keys of the table at ``table`` (a path of keys and list indexes) in ``model``."""
    for part in table:
        if isinstance(part, int):
            continue  # an item of a list: the model was found from the list's type
        field = model.model_fields.get(part)
        inner = _model_in(field.annotation) if field is not None else None
        if inner is None:
            return []
        model = inner
    return list(model.model_fields)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds: itself, or inside a list, a union or an optional."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((found for arg in get_args(annotation) if (found := _model_in(arg)) is not None), None)


def _describe(
    err: ErrorDetails,
    file: str,
    labels: Mapping[tuple[Any, ...], str],
    model: type[BaseModel] | None,
    missing: set[tuple[Any, ...]],
) -> str:
    where = ".".join(str(p) for p in err["loc"])
    message = err["msg"].removeprefix("Value error, ")
    loc = tuple(err["loc"])
    label = next((labels[loc[:n]] for n in range(len(loc), 0, -1) if loc[:n] in labels), None)
    if label is not None:  # a flag's item: its own text shows the value; a whole entry's would be noise
        given = err.get("input")
        return f"{label}: {message}" + ("" if isinstance(given, dict | list) else f" (got {shown_input(given)})")
    if not where:  # a check across keys (e.g. gauntlet candidates): its message names them
        return message
    if err["loc"] == ("engines",) and err["type"] == "too_short":
        count = {0: "none", 1: "one"}.get(len(err["input"]), str(len(err["input"])))
        return f"a tournament needs at least two engines ([[engines]] blocks); {file} has {count}"
    if err["type"] == "extra_forbidden":
        return _unknown_key(where, loc, model, missing)
    if err["type"] == "missing":
        return f"missing key {where!r}; add it (see docs/tournament-file.md for an example file)"
    return f"key {where!r}: {message} (got {shown_input(err.get('input'))})"
