"""Balanced opening suites: short random openings that the bundled search engine judges even.

``arena openings generate --game G --seed S --count N --plies K`` draws candidate openings of
``K`` random legal plies one after another, each from its own seed derived from ``S`` (the
rules' own random moves, as ``random_plies`` draws them), and keeps a candidate when the
search engine (``engines/search``, at its hard level's count, called in-process with a seed
derived from ``S`` too) scores the position within :data:`THRESHOLD` of even for the side to
move, until ``N`` are kept.  Nothing else is random, so the same command writes the same file byte
for byte, and a smaller ``--count`` writes the first openings of a larger one.  Each kept
opening carries its score and its draw's number in a trailing comment, which a book's reader
skips.

In a game that deals its board at random (Posies) each draw also deals its own board (the
board the draw's seed deals), and an opening is a position: that board's setup token, then
the plies.  The search judges the public position: where seats hide a posy (variant 2) it
knows none and deals them at random in each of its simulated games, as it deals the ones it
cannot see when it plays, so a score is the mean over the deals and no secret is judged
(a game's deal is drawn when it starts, after the suite was written).

It sits beside :mod:`arena.ladder` above the tournament package because it runs the bundled
engine, which the product's layers below never import.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from engines.search.engine import PARTS, judge

from .record import derive_seed
from .rules import Game
from .tournament.openings import (
    OPTIONS_LINE,
    Opening,
    OpeningsError,
    Start,
    book_line,
    book_start,
    random_opening,
    start_state,
)

# How far from even (0.5 for the side to move) the search's score may be for an opening to
# be kept: 0.4 to 0.6.  At the hard level's counts (600 to 1,500 simulations) two seeds'
# scores of one position differ by 0.06 on average (12 HexGo openings of 4 plies); at the
# medium level's (80 to 200) a score is the mean of a few simulations of the move it would
# play, and two seeds' differ by 0.2 on average (0.0 and 0.8 at worst).
THRESHOLD = 0.1
LEVEL = "hard"
TRIES_PER_OPENING = 50  # candidates drawn per opening asked for before giving up


@dataclass(frozen=True)
class Judged:
    """One kept opening, the search's score for the side to move after it, and which of
    the seed's draws it was (from 0), from which :func:`drawn_opening` and
    :func:`judge_opening` make it again."""

    moves: Opening
    score: float
    draw: int


def is_even(score: float) -> bool:
    """Whether a judged score is near enough even to keep its opening."""
    return abs(score - 0.5) <= THRESHOLD


def balanced_openings(game: Game, seed: int, plies: int, candidates: int) -> Iterator[Judged]:
    """The openings of ``seed`` kept among its first ``candidates`` draws, in the order they
    are drawn (distinct, none finished)."""
    seen: set[Opening] = set()
    for draw in range(candidates):
        moves = drawn_opening(game, seed, plies, draw)
        if moves in seen:
            continue
        seen.add(moves)
        judged = judge_opening(game, seed, moves, draw)
        if judged is not None and is_even(judged.score):
            yield judged


def drawn_opening(game: Game, seed: int, plies: int, draw: int) -> Opening:
    """Draw number ``draw`` of ``seed``: ``plies`` random legal plies (none ending the game),
    as a book's line (after the board the draw deals, in a game that deals its board)."""
    drawn = derive_seed(seed, "balanced opening", draw)
    board = Start(game.initial_state(drawn).setup_token() if game.random_setup else None)
    try:
        return book_line(random_opening(game, drawn, board, plies))
    except OpeningsError:
        raise OpeningsError(f"{plies} random plies end every {game.name} game drawn; ask fewer plies") from None


def judge_opening(game: Game, seed: int, moves: Opening, draw: int) -> Judged | None:
    """The search's score for the side to move after draw ``draw`` of ``seed``, whether it
    is kept or not (None: nothing to search, a single legal move)."""
    state = start_state(game, 0, book_start(game, moves))  # a hidden part not dealt: the search guesses it
    score = judge(state, derive_seed(seed, "judge", draw), LEVEL)
    return None if score is None else Judged(moves, score, draw)


def balanced_suite(game: Game, name: str, seed: int, count: int, plies: int) -> str:
    """A suite of ``count`` balanced openings of ``plies`` plies (see the module's docstring)."""
    kept = list(islice(balanced_openings(game, seed, plies, TRIES_PER_OPENING * count), count))
    if len(kept) < count:
        raise OpeningsError(
            f"only {len(kept)} of {TRIES_PER_OPENING * count} draws of {plies} random plies were judged even "
            f"({count} asked); ask fewer, or try fewer plies or another seed"
        )
    options = " ".join(game.option_tokens())
    simulations = PARTS[game.name].budgets[LEVEL]
    sides = "side" if game.players == 2 else "seat"  # a table of three plays every seat order
    lines = [
        f"# {name}: {count} openings of {game.name} {options}, {plies} random plies each, judged even by "
        f"the search engine; each engine plays each {sides} of each",
        f"# written by: arena openings generate --game {game.name} "
        + " ".join(f"-O {t}" for t in game.option_tokens())
        + f" --seed {seed} --count {count} --plies {plies} --name {name}",
        f"{OPTIONS_LINE}{options}",
        f"# after each opening: the search's score for the side to move ({simulations} simulations, "
        f"kept from {0.5 - THRESHOLD:.1f} to {0.5 + THRESHOLD:.1f}) and which of the seed's draws it is",
        *_board_lines(game),
        *(f"{' '.join(j.moves)}  # {j.score:.3f} (draw {j.draw})" for j in kept),
    ]
    return "\n".join(lines) + "\n"


def _board_lines(game: Game) -> list[str]:
    """What a suite of a game that deals its board says of its lines and of hidden posies."""
    if not game.random_setup:
        return []
    lines = ["# each opening is a position: the setup token of a board the seed dealt, then the plies"]
    if game.hides_information:
        lines.append("# judged without the hidden posies: the search deals them at random in each simulated game")
    return lines
