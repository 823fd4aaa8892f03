"""``arena results``, ``arena ratings`` and ``arena report``: a results folder's tables, one
rating list over several folders, the report site."""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import click

from .group import Command, Failure, say

ELO_PRIOR = click.option(
    "--elo-prior",
    type=click.FloatRange(0, 1000),
    default=None,
    help="BayesElo's prior of the Elo fit: virtual draws per engine; 0: pure maximum likelihood "
    "(default: the tournament file's elo_prior, else 2).",
)


@click.command(cls=Command, short_help="Print the standings, Elo and statistics of a results folder.")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(["table", "md", "csv", "json"]),
    default="table",
    show_default=True,
    help="Plain tables, Markdown, CSV (one row per engine) or results.json.",
)
@ELO_PRIOR
@click.option(
    "--wide",
    is_flag=True,
    help="Every column of every table and notes unwrapped (default: the tables fit the terminal's width).",
)
def results(folder: Path, fmt: str, elo_prior: float | None, wide: bool) -> None:
    """Print the standings, Bradley-Terry Elo, head to head and per-engine statistics of the
    tournament in FOLDER (finished or still running), without changing the folder."""
    from ..results.export import render, summarize_folder
    from ..results.fit import output_width
    from ..results.store import StorageError

    try:
        summary = summarize_folder(folder, elo_prior)
    except StorageError as exc:
        raise Failure(str(exc)) from None
    say(render(summary, fmt, width=None if wide else output_width()).rstrip("\n"))


@click.command(cls=Command, short_help="One rating list over the games of several results folders.")
@click.argument("folders", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--anchor",
    metavar="NAME=ELO",
    help="Fix engine NAME at ELO (default: the mean Elo of the rated engines is 0).",
)
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(["table", "md", "csv", "json", "html"]),
    default="table",
    show_default=True,
    help="Plain tables, Markdown, CSV (one row per engine), JSON, or an HTML page in the report site's style.",
)
@click.option(
    "--out",
    "-o",
    "target",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the list to FILE (default: stdout).",
)
@ELO_PRIOR
@click.option(
    "--allow-mixed",
    is_flag=True,
    help="Rate folders of different games or game options together (refused by default).",
)
@click.option(
    "--split-names",
    is_flag=True,
    help="Rate an engine name played with different settings in different folders as one engine "
    "per setting, NAME@FINGERPRINT (refused by default).",
)
@click.option(
    "--model",
    type=click.Choice(["bradley-terry", "bayeselo"]),
    default="bradley-terry",
    show_default=True,
    help="The rating model: Bradley-Terry with draws as half points (each folder's table), or BayesElo's own "
    "(White's advantage 32.8 and draw Elo 97.3, as bayeselo's mm prints it; two-player games).",
)
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Say on stderr how long reading the folders and the fit took, and the peak memory.",
)
def ratings(
    folders: tuple[Path, ...],
    anchor: str | None,
    fmt: str,
    target: Path | None,
    elo_prior: float | None,
    allow_mixed: bool,
    split_names: bool,
    model: str,
    verbose: bool,
) -> None:
    """One rating list over all the games of the results FOLDERS (of one game and its options):
    the Bradley-Terry Elo each folder's table shows, fitted to all their games at once, with
    its intervals, the LOS matrix and the folders each engine played in."""
    from ..results.ratinglist import RatingListError, parse_anchor, rating_list, read_folders, render

    try:
        fixed = parse_anchor(anchor) if anchor is not None else None
    except ValueError as exc:
        raise Failure(str(exc)) from None
    try:
        started = time.perf_counter()
        read = read_folders(folders)
        fitting = time.perf_counter()
        rl = rating_list(
            read, allow_mixed=allow_mixed, split_names=split_names, anchor=fixed, prior=elo_prior, model=model
        )
        rendering = time.perf_counter()
        text = render(rl, fmt)
        if verbose:
            click.echo(
                f"ratings: read {rl.games} games of {len(read)} folder(s) in {fitting - started:.2f} s, "
                f"fitted {len(rl.engines)} engines in {rendering - fitting:.2f} s, wrote the {fmt} in "
                f"{time.perf_counter() - rendering:.2f} s; peak memory {peak_memory_mb():.0f} MB",
                err=True,
            )
    except RatingListError as exc:
        for line in exc.lines[:-1]:
            click.echo(f"arena: {line}", err=True)
        raise Failure(exc.lines[-1]) from None
    if target is None:
        say(text.rstrip("\n"))
        return
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise Failure(f"{target}: cannot write the rating list ({exc.strerror or exc}); choose another -o") from None
    click.echo(f"ratings: {target}")


@click.command(cls=Command, short_help="Write the report site (HTML) of a results folder.")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--out",
    "-o",
    "site",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to write the site (default: FOLDER/report).",
)
@ELO_PRIOR
def report(folder: Path, site: Path | None, elo_prior: float | None) -> None:
    """Write the static report site of a results FOLDER (the --out of 'arena run').

    The site opens from disk (index.html) or any web host: standings, cross table,
    engines, settings, a filterable list of games and a viewer for every game.
    """
    from ..results.site import SiteError, load_folder, write_site
    from ..results.store import collector_paused

    try:
        with collector_paused():  # one pause for both: the records stay to the end
            # The summary is made while the site's writers replay the games (they need only the records).
            data = load_folder(folder, elo_prior, later=True)
            index = write_site(site or folder / "report", data)
    except SiteError as exc:
        raise Failure(str(exc)) from None
    except OSError as exc:
        raise Failure(f"{site or folder / 'report'}: cannot write the site ({exc}); choose another --out") from None
    click.echo(f"report: {index}")


def peak_memory_mb() -> float:
    """This process's peak resident memory (MB): Linux counts ru_maxrss in KiB, macOS in bytes."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (2**20 if sys.platform == "darwin" else 2**10)
