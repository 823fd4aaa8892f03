"""``arena ladder``: the bundled search engine's levels, rated one against another."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ..tournament.verdict import START_UP_FAILURE
from .group import Command, Failure, stop
from .items import parse_options


@click.command(cls=Command, short_help="Rate the bundled search engine's levels, one against another.")
@click.option("--game", "-g", "game_name", required=True, help="The game: bases, groups, hex, hexgo or posies.")
@click.option("--games", "-n", type=click.IntRange(2), default=20, show_default=True, help="Games per pair.")
@click.option("--workers", "-w", type=click.IntRange(1, 256), default=2, show_default=True, help="Parallel games.")
@click.option(
    "--out",
    "-o",
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder, a subfolder per pair (default: out/ladder-<game>). Re-running resumes it.",
)
@click.option(
    "--mohex",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Hex only: the MoHex binary; every level then also plays MoHex at each --mohex-budget.",
)
@click.option(
    "--mohex-budget",
    "mohex_budgets",
    multiple=True,
    type=click.IntRange(1),
    help="MoHex's playouts a move (repeatable; default 50, 200 and 1000).",
)
@click.option("--option", "-O", "option_pairs", multiple=True, help="A game option KEY=VALUE over the ladder's.")
@click.option(
    "--iterations",
    "iteration_pairs",
    multiple=True,
    metavar="LEVEL=N",
    help="A level's simulations a move instead of its own (a quick ladder; repeatable).",
)
def ladder(
    game_name: str,
    games: int,
    workers: int,
    out: Path | None,
    mohex: Path | None,
    mohex_budgets: tuple[int, ...],
    option_pairs: tuple[str, ...],
    iteration_pairs: tuple[str, ...],
) -> None:
    """The bundled search engine's levels, rated: each against random and against the next
    level, and in Hex against MoHex when --mohex is given (engines/README.md)."""
    from ..ladder import LEVELS, MOHEX_BUDGETS, ladders, run_ladder, tables
    from ..machine import machine
    from ..results.store import StorageError
    from ..tournament.config import ConfigError
    from ..tournament.verdict import StartupFailure

    known = ladders()
    if game_name not in known:
        raise Failure(f"--game {game_name!r}: the ladders are {', '.join(sorted(known))}")
    if mohex is not None and not known[game_name].mohex:
        raise Failure("--mohex: MoHex plays Hex only; leave it out or use --game hex")
    if mohex is not None and not os.access(mohex, os.X_OK):
        raise Failure(f"--mohex {mohex}: not an executable file")
    iterations = {}
    for pair in iteration_pairs:
        level, eq, count = pair.partition("=")
        if level not in LEVELS or not eq or not (count.isascii() and count.isdigit()) or int(count) < 1:
            raise Failure(f"--iterations {pair!r}: write LEVEL=N with LEVEL one of {', '.join(LEVELS)}, N >= 1")
        iterations[level] = int(count)
    out = out or Path("out") / f"ladder-{game_name}"
    click.echo(f"arena ladder {game_name}: {games} games a pair; machine: {machine()}")
    try:
        results, moves = run_ladder(
            game_name,
            out,
            games=games,
            workers=workers,
            mohex=mohex,
            mohex_budgets=mohex_budgets or MOHEX_BUDGETS,
            options=parse_options(option_pairs),
            iterations=iterations,
            echo=click.echo,
        )
    except StartupFailure as exc:  # an engine of the ladder (MoHex, say) could not start
        stop(str(exc), START_UP_FAILURE)
    except (StorageError, ConfigError, RuntimeError) as exc:
        raise Failure(str(exc)) from None
    click.echo("\n" + tables(results, moves, known[game_name].movetime_ms))
    click.echo(f"\nfolder: {out.resolve()} (a subfolder per pair, each a tournament 'arena results' reads)")
