"""Hex games as SGF, the way HexGui writes and reads them.

HexGui's writer (``hexgui/sgf/SgfWriter.java``) puts ``FF[4]``, ``AP[<program>:<version>]``,
``GM[11]`` (Hex) and ``SZ[n]`` in the root node and one ``B[cell]`` or ``W[cell]`` per move
node, cells named as arena names them (``a1`` the top-left, column letter then row); arena
adds ``CA[UTF-8]``, the files' encoding, which FF[4] readers otherwise take as ISO-8859-1.  Black
moves first and joins top and bottom, as Red (seat 0) does in arena (docs/gtp.md).

What differs between games (the board's size, SGF's game number, the swap's name, each
cell's name after a swap) is asked of the game's :class:`~arena.rules.translation.Translation`.
The swap is the one place where the two differ.  arena's ``swap`` mirrors Red's stone across
the a1 diagonal into a Blue stone and Red moves next; HexGui writes White's swap as
``W[swap-pieces]``, leaves the stone as it is and lets White move again: the players exchange
colours.  Both describe one game (the positions are mirror images with the colours exchanged),
so after a swap every later cell is written mirrored, seat 0 plays White and seat 1 Black, and
``PB``/``PW`` name the engines that hold each colour for the game (the swapper owns the black
stone from then on).  ``RE`` is the winning colour with ``+R`` (resignation), ``+T`` (time) or
``+F`` (any other forfeit) when the game did not end on the board.

Only games whose rules list ``sgf`` in ``Game.exports`` and give a translation are written
(Hex: HexGui knows no other game of arena's); any other is refused with one line.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..record import ADJUDGED, GameRecord, Termination
from ..rules import OptionError, find_game, games_exporting
from ..rules.translation import Translation
from .export import arena_version

COLOURS = ("B", "W")  # by arena seat, before any swap
HEXGUI_MAX_SIZE = 19  # HexGui's largest board (its MAX_WIDTH)
# SGF's RE: "R" a resignation (the engine's, or one its score adjudicated), "T" time, "F" any
# other forfeit; a win by the rules or by a decided position has no letter.
HOW = {Termination.RESIGN: "R", Termination.ADJUDICATED_RESIGN: "R", Termination.TIMEOUT: "T"}


class SgfError(ValueError):
    """A record that cannot be written as SGF; the message says which and why."""


def hex_game_sgf(record: GameRecord) -> str:
    """One game tree ``(;FF[4]...;B[..];W[..]...)`` for a Hex record."""
    translation = translation_of(record)
    moves, swapped = _moves(record.moves, translation)
    names = list(record.players or [])
    black, white = (names[1], names[0]) if swapped else (names[0], names[1])
    root = [
        ("FF", "4"),
        ("CA", "UTF-8"),
        ("AP", f"arena:{arena_version()}"),
        ("GM", str(translation.sgf_game)),
        ("SZ", str(translation.size)),
        ("PB", black),
        ("PW", white),
    ]
    result = _result(record, swapped)
    if result:
        root.append(("RE", result))
    if record.started:
        root.append(("DT", record.started[:10]))
    if record.tournament:
        root.append(("EV", record.tournament))
    if record.round is not None:
        root.append(("RO", str(record.round)))  # counted from 0, as everywhere in arena
    if record.id is not None:
        root.append(("GN", f"game {record.id}"))
    comment = f"{record.termination or Termination.NORMAL}: {record.reason or ''}"
    if swapped:
        comment += f". {names[1]} swapped: from the swap on, {names[1]} plays Black and {names[0]} White"
    root.append(("C", comment))
    nodes = ["".join(f"{key}[{_escape(value)}]" for key, value in root)]
    nodes += [f"{colour}[{cell}]" for colour, cell in moves]
    return "(;" + "\n;".join(nodes) + ")\n"


def hex_collection_sgf(records: Iterable[GameRecord]) -> str:
    """Several games as one SGF collection (game trees one after the other)."""
    return "".join(hex_game_sgf(r) for r in records)


def larger_than_hexgui(records: Iterable[GameRecord]) -> bool:
    """Whether a record's board (as its game's translation gives the size) is larger than
    HexGui draws: the file is still valid SGF for other viewers."""
    return any(translation_of(record).size > HEXGUI_MAX_SIZE for record in records)


def translation_of(record: GameRecord) -> Translation:
    """How SGF names the record's board and moves, from its game and options; a game without
    an SGF form, or options its rules refuse, is one line naming the game."""
    game = find_game(record.game)
    if game is None or "sgf" not in game.exports:
        known = " or ".join(name.capitalize() for name in games_exporting("sgf"))
        raise SgfError(f"game {record.id}: {record.game} is not {known}; SGF export is for {known} games")
    try:
        translation = game.from_options(record.options).translation()
    except OptionError as exc:
        raise SgfError(f"game {record.id}: {exc}") from None
    if translation is None:
        raise SgfError(f"game {record.id}: the rules of {record.game} give no SGF translation")
    return translation


def _moves(tokens: list[str], translation: Translation) -> tuple[list[tuple[str, str]], bool]:
    """(colour, SGF cell) per move, and whether the game had a swap."""
    out: list[tuple[str, str]] = []
    swapped = False
    for ply, token in enumerate(tokens):
        if token == translation.swap_move:
            out.append((COLOURS[1], translation.outside(token, swapped)))
            swapped = True
            continue
        # after a swap seat 0 (even plies) plays White, on the board as the translation names it
        out.append((COLOURS[ply % 2 ^ swapped], translation.outside(token, swapped)))
    return out, swapped


def _result(record: GameRecord, swapped: bool) -> str | None:
    winner = record.winner
    termination = record.termination or Termination.NORMAL
    if winner is None:
        return "0" if termination in ADJUDGED else None  # SGF's draw: a ply limit's or a draw adjudication's
    colour = ("W" if winner == 0 else "B") if swapped else ("B" if winner == 0 else "W")
    how = "" if termination in (Termination.NORMAL, Termination.DECIDED) else HOW.get(termination, "F")
    return f"{colour}+{how}"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")
