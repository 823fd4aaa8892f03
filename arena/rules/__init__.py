"""The rules of the five games, pure and deterministic, behind one ``Game``/``State`` interface.

``base.py`` defines that interface (options, legal moves, play, results, playouts); each game is
one module (``hex.py``, ``groups.py``, ``bases.py``, ``hexgo.py``, ``posies.py``), and
``hexgrid.py`` is the hex geometry they all stand on (cells, names, neighbours, lines,
rendering). This module is the registry: game name -> ``Game`` class, imported on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Game, GameOptions, IllegalMove, OptionError, State

__all__ = ["GAMES", "Game", "GameOptions", "IllegalMove", "OptionError", "State", "game_class", "make_game"]

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


def game_class(name: str) -> type[Game]:
    from .base import OptionError

    try:
        target = GAMES[name]
    except KeyError:
        raise OptionError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})") from None
    module, _, attr = target.partition(":")
    try:
        return getattr(import_module(module), attr)
    except ImportError:
        raise OptionError(f"game {name!r} is not available in this build") from None


def make_game(name: str, options: Mapping[str, Any] | None = None, *, strict: bool = False) -> Game:
    """Build a game from its name and raw options; raises OptionError with a readable message.
    ``strict``: typed options, not text (see Game.from_options)."""
    return game_class(name).from_options(options, strict=strict)
