"""What an engine declares in its handshake (``option`` lines, ``id games``), checked
against what a tournament asks of it, before the first game.

An engine is sent only options it declared, with values of the declared type and range
(PROTOCOL.md sections 3-4); an engine that declares its games is not entered in a
tournament of another game.  ``preflight.py`` starts each engine once to learn this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from protocol import codec
from protocol.codec import OptionDecl


def describe(decl: OptionDecl) -> str:
    bounds = "" if decl.min is None and decl.max is None else f" {decl.min or '…'}..{decl.max or '…'}"
    return f"{decl.name} ({decl.type}{bounds}, default {decl.default})"


def declaration_problem(decl: OptionDecl) -> str | None:
    """What is wrong with an ``option`` line itself, or None."""
    if decl.type == "bool" and decl.default not in ("true", "false"):
        return f"a bool's default is true or false, not {codec.quote(decl.default, 40)}"
    if decl.type != "int":
        return None
    try:
        default = codec.ascii_int(decl.default, signed=True)
        low, high = (None if v is None else codec.ascii_int(v, signed=True) for v in (decl.min, decl.max))
    except codec.ProtocolError as exc:
        return str(exc)
    if (low is not None and default < low) or (high is not None and default > high):
        return f"default {default} is outside min {low} max {high}"
    return None


def value_problem(decl: OptionDecl, value: str) -> str | None:
    """Why ``value`` does not fit the declared option, or None."""
    if decl.type == "bool":
        return None if value in ("true", "false") else "a bool takes true or false"
    if decl.type == "string":
        return None
    try:
        number = codec.ascii_int(value, signed=True)
    except codec.ProtocolError:
        return "an int takes ASCII digits"
    low = codec.ascii_int(decl.min, signed=True) if decl.min and _is_int(decl.min) else None
    high = codec.ascii_int(decl.max, signed=True) if decl.max and _is_int(decl.max) else None
    if (low is not None and number < low) or (high is not None and number > high):
        return f"out of its range {low}..{high}"
    return None


def _is_int(text: str) -> bool:
    try:
        codec.ascii_int(text, signed=True)
        return True
    except codec.ProtocolError:
        return False


def option_problems(declared: Sequence[OptionDecl], options: Sequence[tuple[str, str]]) -> list[str]:
    """One message per option that is not declared or whose value does not fit."""
    by_name = {d.name: d for d in declared}
    shown = ", ".join(describe(d) for d in declared) or "no options"
    problems = []
    for name, value in options:
        decl = by_name.get(name)
        if decl is None:
            problems.append(f"option {name!r} is not one the engine declared (it declares {shown})")
        elif (why := value_problem(decl, value)) is not None:
            problems.append(f"option {name!r} = {value!r}: {why}; the engine declares {describe(decl)}")
    return problems


def games_problem(identity: dict[str, str], game: str) -> str | None:
    """An engine that declares its games (``id games hex,groups``) and not this one."""
    games = [g for g in identity.get("games", "").split(",") if g]
    if games and game not in games:
        return f"declares that it plays {', '.join(games)} ('id games'), not {game}"
    return None


@dataclass(frozen=True)
class Checked:
    """One engine's start-up check: ``problem``, what it declares does not fit (the
    tournament is refused); ``fault``, it could not start or answer (its games record that)."""

    problem: str | None = None
    fault: str | None = None
