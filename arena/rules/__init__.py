"""The rules of the five games, pure and deterministic, behind one ``Game``/``State`` interface.

``base.py`` defines that interface (options, legal moves, play, results, playouts); each game is
one module (``hex.py``, ``groups.py``, ``bases.py``, ``hexgo.py``, ``posies.py``), and
``hexgrid.py`` is the hex geometry they all stand on (cells, names, neighbours, lines,
rendering); ``picture.py`` the neutral drawing data a game gives its viewers. This module is
the registry: game name -> ``Game`` class, imported on first use. Games defined outside arena
join it with :func:`register_game`, or through the ``ARENA_GAMES`` environment variable
(``name=module:Class`` entries, comma-separated), which :func:`register_game` also sets so
that every process arena starts (workers, engines, the CLI run as a subprocess) knows the
game: see docs/adding-a-game.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Game, GameOptions, IllegalMove, OptionError, State

__all__ = [
    "GAMES",
    "GAMES_VARIABLE",
    "Game",
    "GameOptions",
    "IllegalMove",
    "OptionError",
    "State",
    "find_game",
    "game_class",
    "games_exporting",
    "games_speaking",
    "make_game",
    "register_game",
]
GAMES_VARIABLE = "ARENA_GAMES"

# name -> "module:Class"; lazy so that a worker pays only for the game it plays.
GAMES: dict[str, str] = {
    "hex": "arena.rules.hex:HexGame",
    "groups": "arena.rules.groups:GroupsGame",
    "bases": "arena.rules.bases:BasesGame",
    "hexgo": "arena.rules.hexgo:HexGoGame",
    "posies": "arena.rules.posies:PosiesGame",
}


_BASE_NAMES = {"Game", "GameOptions", "IllegalMove", "OptionError", "State"}


def __getattr__(name: str) -> Any:
    """The interface's names load base.py (and pydantic) on first use: the command line's
    game-name check needs only ``GAMES``, and answers before pydantic would have loaded."""
    if name in _BASE_NAMES:
        from . import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register_game(name: str, target: str) -> None:
    """Make the game ``target`` (``"module:Class"``, a :class:`Game` subclass) known as
    ``name``, here and in every process started from here on (it joins ``ARENA_GAMES``).
    The module must be importable there too (installed, or on ``PYTHONPATH``)."""
    _add(name, target)
    entries = [e for e in os.environ.get(GAMES_VARIABLE, "").split(",") if e and e.partition("=")[0] != name]
    os.environ[GAMES_VARIABLE] = ",".join([*entries, f"{name}={target}"])


def _add(name: str, target: str) -> None:
    from .base import OptionError

    module, colon, attr = target.partition(":")
    if not name or not name.isidentifier() or not module or not colon or not attr:
        raise OptionError(f"cannot register game {name!r} as {target!r}: expected a name and 'module:Class'")
    if GAMES.get(name, target) != target:
        raise OptionError(f"game {name!r} is already {GAMES[name]!r}")
    GAMES[name] = target


def _from_environment() -> None:
    for entry in filter(None, (e.strip() for e in os.environ.get(GAMES_VARIABLE, "").split(","))):
        name, _, target = entry.partition("=")
        _add(name.strip(), target.strip())


_from_environment()


def game_class(name: str) -> type[Game]:
    from .base import OptionError

    try:
        target = GAMES[name]
    except KeyError:
        raise OptionError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})") from None
    module, _, attr = target.partition(":")
    try:
        game: type[Game] = getattr(import_module(module), attr)
        return game
    except ImportError:
        raise OptionError(f"game {name!r} is not available in this build") from None


def find_game(name: str) -> type[Game] | None:
    """The class of a known game, or None (a record naming a game this build lacks)."""
    from .base import OptionError

    try:
        return game_class(name)
    except OptionError:
        return None


def games_speaking(protocol: str) -> list[str]:
    """The games an engine protocol can play (``Game.protocols``), in registry order."""
    return [name for name in GAMES if protocol in game_class(name).protocols]


def games_exporting(form: str) -> list[str]:
    """The games with a record format besides arena's own (``Game.exports``), in registry order."""
    return [name for name in GAMES if form in game_class(name).exports]


def make_game(name: str, options: Mapping[str, Any] | None = None, *, strict: bool = False) -> Game:
    """Build a game from its name and raw options; raises OptionError with a readable message.
    ``strict``: typed options, not text (see Game.from_options)."""
    return game_class(name).from_options(options, strict=strict)
