"""The ``arena bench`` command: its flags, and one call of :func:`arena_bench.run.run_bench`.

The product's command line finds it through the ``arena.commands`` entry point group
(pyproject.toml), so no module of ``arena`` imports the benchmarks.
"""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli import Failure

from .plan import SECTIONS


@click.command(short_help="Measure the referee and the manager next to baselines.")
@click.option("--quick", is_flag=True, help="Tiny sizes, one run each: proves the benchmark works (CI).")
@click.option(
    "--section",
    "-s",
    "sections",
    multiple=True,
    type=click.Choice(SECTIONS),
    help="Run only this section (repeatable; default: all).",
)
@click.option("--repeats", "-r", type=click.IntRange(1, 100), help="Runs per figure (default 5, quick 1).")
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write every figure to this JSON file.",
)
@click.option(
    "--fastchess",
    metavar="PATH",
    help="A fastchess binary: the manager section measures it side by side (default: $ARENA_FASTCHESS).",
)
def bench(
    quick: bool, sections: tuple[str, ...], repeats: int | None, json_path: Path | None, fastchess: str | None
) -> None:
    """Measure the referee and the manager next to baselines (docs/performance.md)."""
    from .run import run_bench  # here: `arena --help` loads this module for the help line only

    try:
        run_bench(
            quick=quick,
            sections=sections or SECTIONS,
            repeats=repeats,
            json_path=json_path,
            echo=click.echo,
            fastchess=fastchess,
        )
    except (OSError, RuntimeError) as exc:
        raise Failure(f"bench: {exc}") from None
