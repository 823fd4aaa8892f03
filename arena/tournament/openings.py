"""Opening books: move sequences played before the engines take over.

A book is a text file with one opening a line: move tokens separated by spaces,
as in a ``position`` command.  Blank lines and lines starting with ``#`` are
skipped, and so is the rest of a line from a ``#`` (no move token holds one).
Every opening is checked against the rules now, so that a typo fails before any
game starts, and stored in the referee's canonical spelling.  In a game that deals
its board at random (Posies) a line is a position, as an EPD line is in chess: the
board's setup token, then the moves (maybe none).  A game played from it starts
on that board instead of its seed's, and its record says so (``opening_setup``).

Besides a book, ``random_plies`` random legal moves (after the book's, if any) are
drawn from each table's seed, so every seat order of a table gets the same ones.

Suites ship with arena (``suites/``), named by a short name (``openings = "hex9-1ply"``):
a book whose ``# options`` line says the game options it is made for, which the tournament
must play.  ``arena openings generate`` writes them; a test checks each shipped file is what
the command writes.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

from ..record import derive_seed
from ..rules import Game, IllegalMove, OptionError, State

Opening = tuple[str, ...]  # a book line's tokens: the setup token first where the game deals its board


@dataclass(frozen=True)
class Start:
    """Where a game starts: a book's setup token (None: the one its seed deals) and the
    moves played before the engines take over."""

    setup: str | None = None
    moves: Opening = ()


def book_start(game: Game, opening: Opening) -> Start:
    """A book line as the setup it names (in a game that deals its board) and its moves."""
    if game.random_setup and opening:
        return Start(opening[0], opening[1:])
    return Start(None, opening)


def book_line(start: Start) -> Opening:
    """A start as a book's line: its setup token first where it names one."""
    return start.moves if start.setup is None else (start.setup, *start.moves)


def start_state(game: Game, seed: int, start: Start) -> State:
    """The position of ``start`` (its board, or the one ``seed`` deals, then its moves); the
    hidden part of a board is not dealt (a book never depends on it)."""
    state = game.initial_state(seed) if start.setup is None else game.state_from_setup(start.setup)
    for move in start.moves:
        state.play(move)
    return state


class OpeningsError(ValueError):
    """A book that cannot be used; the message names the line and the fix."""


def load_openings(path: Path, game: Game) -> list[Opening]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise OpeningsError(
            f"cannot read the openings file {str(path)!r} ({reason}); the path is relative to the tournament file"
        ) from None
    if (problem := _options_problem(path, text, game)) is not None:
        raise OpeningsError(problem)
    book = [
        _check(path, number, moves, game)
        for number, line in enumerate(text.splitlines(), 1)
        if (moves := line.partition("#")[0].split())
    ]
    if not book:
        raise OpeningsError(f"{path}: no openings in the file (one opening a line: moves separated by spaces)")
    return book


SUITES = Path(__file__).with_name("suites")
SUITE_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
OPTIONS_LINE = "# options "


def suite_names() -> list[str]:
    """The shipped suites' short names."""
    return sorted(p.stem for p in SUITES.glob("*.txt"))


def book_path(name: str, base: Path) -> Path:
    """A tournament's ``openings``: a shipped suite's short name, else a file relative to ``base``."""
    if SUITE_NAME.fullmatch(name) and (SUITES / f"{name}.txt").is_file():
        return SUITES / f"{name}.txt"
    return base / name


def first_moves_suite(game: Game, name: str) -> str:
    """A suite of every legal first move of ``game``, one an opening, in the rules' order,
    its ``# options`` line naming the game options it is for (``swap=false`` for Hex, as
    Benzene's scripts play each first move: the opening is the only choice taken away)."""
    state = game.initial_state(0)
    options = " ".join(game.option_tokens())
    lines = [
        f"# {name}: every first move of {game.name} {options}; each engine plays each side of each",
        f"# written by: arena openings generate --game {game.name} "
        + " ".join(f"-O {t}" for t in game.option_tokens())
        + " --first-moves",
        f"{OPTIONS_LINE}{options}",
        *state.legal_moves(),
    ]
    return "\n".join(lines) + "\n"


def _options_problem(path: Path, text: str, game: Game) -> str | None:
    """Why a suite's ``# options`` line does not fit the tournament's game, or None."""
    for line in text.splitlines():
        if line.startswith(OPTIONS_LINE):
            wanted = line[len(OPTIONS_LINE) :].split()
            played = game.option_tokens()
            if any(token not in played for token in wanted):
                return (
                    f"{path.stem} is made for {game.name} {' '.join(wanted)}, but the tournament plays "
                    f"{game.name} {' '.join(played)}: set those options, or pick a suite made for these "
                    f"({', '.join(suite_names())})"
                )
    return None


def _check(path: Path, number: int, tokens: list[str], game: Game) -> Opening:
    setup, moves = _book_setup(path, number, tokens, game)
    state = start_state(game, 0, Start(setup))
    for ply, move in enumerate(moves):  # counted from 0, as everywhere (PROTOCOL.md section 5)
        if state.is_terminal():
            break
        try:
            state.play(move)
        except IllegalMove as exc:
            raise OpeningsError(
                f"{path}, line {number}: {move!r} at ply {ply} is illegal: {exc.reason}; fix or remove this opening"
            ) from None
    if state.is_terminal():
        raise OpeningsError(f"{path}, line {number}: the game is over after this opening; shorten it")
    return book_line(Start(setup, tuple(state.moves)))


def _book_setup(path: Path, number: int, tokens: list[str], game: Game) -> tuple[str | None, list[str]]:
    """A line's setup token (in a game that deals its board) and its moves."""
    if not game.random_setup:
        return None, tokens
    try:
        game.state_from_setup(tokens[0])
    except OptionError as exc:
        raise OpeningsError(
            f"{path}, line {number}: {game.name} deals its board at random, so each opening starts with the "
            f"board's setup token, then its moves ({exc}); write the setup token first"
        ) from None
    return tokens[0], tokens[1:]


def first_plies(game: Game, opening: Opening, plies: int) -> Opening:
    """A book line cut to its first ``plies`` moves (fastchess's ``plies``), its setup kept."""
    start = book_start(game, opening)
    return book_line(Start(start.setup, start.moves[:plies]))


def opening_for(book: list[Opening], round_no: int, table_no: int, tables: int) -> Opening:
    """The opening of one table in one round: the book in order, then again from the top."""
    return book[(round_no * tables + table_no) % len(book)] if book else ()


def arrange_book(book: list[Opening], order: str, start: int, seed: int) -> list[Opening]:
    """The book in the order games use it: from opening number ``start`` (1-based), and
    shuffled once by the tournament's seed when ``order = "random"``."""
    book = book[start - 1 :] + book[: start - 1]
    if order == "random":
        random.Random(derive_seed(seed, "book order")).shuffle(book)
    return book


RANDOM_TRIES = 100


def random_opening(game: Game, seed: int, prefix: Start, plies: int) -> Start:
    """``prefix`` and then ``plies`` random legal moves on its setup (else the setup of
    ``seed``), drawn from the seed; a draw that ends the game is replaced by the next one."""
    for attempt in range(RANDOM_TRIES):
        state = start_state(game, seed, prefix)
        rng = random.Random(derive_seed(seed, "random plies", attempt))
        for _ in range(plies):
            if state.is_terminal():
                break
            state.play(state.random_move(rng))
        if not state.is_terminal():
            return Start(prefix.setup, tuple(state.moves))
    raise OpeningsError(
        f"{RANDOM_TRIES} draws of {plies} random plies all ended the game (seed {seed}); lower random_plies"
    )


@dataclass(frozen=True)
class OpeningPlan:
    """Where each table's opening comes from: a book (already arranged), random plies, both."""

    book: tuple[Opening, ...] = ()
    random_plies: int = 0
    game: Game | None = None

    def start(self, round_no: int, table_no: int, tables: int, seed: int) -> Start:
        """Where one table's games start (its seat orders share it)."""
        line = opening_for(list(self.book), round_no, table_no, tables)
        start = Start(None, line) if self.game is None else book_start(self.game, line)
        if self.random_plies and self.game is not None:
            start = random_opening(self.game, seed, start, self.random_plies)
        return start
