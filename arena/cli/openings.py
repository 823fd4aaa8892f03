"""``arena openings``: the opening suites that ship with arena, and the command that writes them."""

from __future__ import annotations

import click

from .group import Commands, Failure
from .items import parse_options


@click.group(cls=Commands)
def openings() -> None:
    """List or write the opening suites that ship with arena."""


@openings.command("list")
@click.argument("name", required=False)
def openings_list(name: str | None) -> None:
    """The suites that ship with arena, each with what it holds; with NAME, that suite's text."""
    from ..tournament.openings import SUITES, suite_names

    if name is not None:
        if name not in suite_names():
            raise Failure(f"no suite {name!r}; the suites are {', '.join(suite_names())}")
        click.echo((SUITES / f"{name}.txt").read_text(encoding="utf-8"), nl=False)
        return
    width = max(map(len, suite_names()))
    for suite in suite_names():
        first = (SUITES / f"{suite}.txt").read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
        click.echo(f"{suite:<{width}} {first.partition(': ')[2]}")


@openings.command("generate")
@click.option("--game", "-g", "game_name", required=True, help="The game: bases, groups, hex, hexgo or posies.")
@click.option("--option", "-O", "option_pairs", multiple=True, help="A game option KEY=VALUE (repeatable).")
@click.option("--first-moves", is_flag=True, help="Every legal first move, one an opening.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Balanced openings: the seed.")
@click.option("--count", type=click.IntRange(min=1), default=16, show_default=True, help="Balanced openings: how many.")
@click.option(
    "--plies", type=click.IntRange(min=1), default=4, show_default=True, help="Balanced openings: plies each."
)
@click.option("--name", default="suite", show_default=True, help="The suite's name, written in its first line.")
def openings_generate(
    game_name: str, option_pairs: tuple[str, ...], first_moves: bool, seed: int, count: int, plies: int, name: str
) -> None:
    """Print a suite (save it as NAME.txt): every first move of the game with these options
    (--first-moves), or COUNT openings of PLIES random plies from SEED that the bundled search
    engine judges even."""
    from ..rules import OptionError, make_game

    try:
        game = make_game(game_name, parse_options(option_pairs))
    except (OptionError, ValueError) as exc:
        raise Failure(f"--game {game_name} {' '.join(option_pairs)}: {exc}") from None
    if first_moves:
        if game.random_setup:
            raise Failure(
                f"{game.name} deals its board at random, so it has no first moves of its own; "
                "leave out --first-moves for balanced positions, each on a board of its own"
            )
        from ..tournament.openings import first_moves_suite

        click.echo(first_moves_suite(game, name), nl=False)
        return
    from ..balanced import balanced_suite
    from ..tournament.openings import OpeningsError

    try:
        click.echo(balanced_suite(game, name, seed, count, plies), nl=False)
    except OpeningsError as exc:
        raise Failure(str(exc)) from None
