"""``arena run``: a tournament from a file or from flags, played into its folder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..rules import GAMES
from .group import Failure
from .items import ItemsCommand
from .running import flag_run, run_loaded

if TYPE_CHECKING:
    from ..tournament.observers import RunObserver

RUN_EXAMPLES = """Examples:

\b
From a tournament file (the same command resumes its folder):
  arena run tournaments/hex9.toml --workers 2

\b
From flags, as fastchess takes them (an SPRT of ./new against ./old):
  arena run --game hex -O size=9 --engine name=new cmd="./new --threads 1" \\
    --engine name=old cmd=./old --each tc=10+0.1 --concurrency 2 \\
    --rounds 200 --sprt elo0=0 elo1=5 --out out/new-vs-old
"""


@click.command(
    cls=ItemsCommand,
    short_help="Play a round-robin, gauntlet or SPRT from a file or flags.",
    epilog=RUN_EXAMPLES,
)
@click.argument("tournament_file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--workers",
    "-w",
    "--concurrency",
    type=click.IntRange(1, 256),
    help="Parallel games (default: the file's 'workers'); --concurrency as fastchess names it.",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder (default: the file's 'out', relative to the file, else out/<tournament name>). "
    "Re-running resumes it.",
)
@click.option("--quiet", "-q", is_flag=True, help="Print only the final tables, no progress.")
@click.option(
    "--report-every",
    type=click.IntRange(1),
    default=10,
    show_default=True,
    help="When stdout is not a terminal: the progress lines every N games.",
)
@click.option(
    "--trace",
    is_flag=True,
    help="Write a transcript of each game into DIR/traces (every line both "
    "ways, stderr, timestamps), as cutechess-cli's -debug.",
)
@click.option(
    "--idle-engines",
    type=click.IntRange(0),
    help="Engines each worker keeps running beside its game's, those needed last quit first "
    "(default: the file's 'idle_engines', 4).",
)
@click.option(
    "--cluster",
    "cluster_address",
    metavar="ADDRESS",
    help="Play on a Dask cluster: tcp://HOST:PORT or tls://HOST:PORT of its scheduler, or local:N "
    "to start N workers here, on 127.0.0.1 (default: the file's [cluster] address; docs/cluster.md).",
)
@click.option(
    "--engines",
    "engines_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help='The engine list that use = "NAME" entries and --engine conf=NAME take engines from '
    "(default: engines.toml beside the tournament file; without a file, in this folder).",
)
@click.option(
    "--forfeit-failed-engines",
    is_flag=True,
    help="When an engine fails its start-up check (it cannot start, or does not answer), play on "
    "with its games lost unplayed instead of stopping with exit code 3 (the file's "
    "forfeit_failed_engines = true).",
)
@click.option(
    "--serve",
    "serve_live",
    is_flag=True,
    help="Start a web server beside the run (on loopback, a free port) that shows its games as they "
    "are played, and print its link (docs/serve.md).",
)
@click.option("--game", "-g", "game_name", type=click.Choice(sorted(GAMES)), help="Without a file: the game.")
@click.option("--option", "-O", "options", multiple=True, metavar="KEY=VALUE", help="Without a file: a game option.")
@click.option(
    "--engine",
    "engine_items",
    multiple=True,
    metavar="KEY=VALUE...",
    help="Without a file: one engine (repeat for each): name= cmd= args= proto= dir= option.NAME= "
    "env.NAME= init= tc= st= timemargin= conf= memory_mb= cpu_seconds= handshake_ms= max_failures= sandbox= "
    "(docs/command-line.md).",
)
@click.option(
    "--each", "each_items", multiple=True, metavar="KEY=VALUE...", help="Without a file: items every engine gets."
)
@click.option("--rounds", type=int, help="Without a file: every table plays every seat order this many times.")
@click.option("--seed", type=int, help="Without a file: the master seed (default 0).")
@click.option(
    "--sprt",
    "sprt_items",
    multiple=True,
    metavar="KEY=VALUE...",
    help="Without a file: elo0= elo1= alpha= beta= model=.",
)
@click.option(
    "--gauntlet", "gauntlet_items", multiple=True, metavar="NAME...", help="Without a file: the gauntlet's candidates."
)
@click.option(
    "--format",
    "format_name",
    type=click.Choice(["round-robin", "knockout", "swiss"]),
    help="Without a file: the format (docs/events.md); a gauntlet is --gauntlet.",
)
@click.option(
    "--tiebreaks",
    "tiebreak_items",
    multiple=True,
    metavar="NAME,...",
    help="Without a file: the event standings' tiebreaks in order: buchholz, buchholz-cut1, "
    "sonneborn-berger, direct-encounter, wins.",
)
@click.option(
    "--seeds",
    type=click.Path(path_type=Path),
    help="Without a file: the rating list a knockout or Swiss event is seeded by (JSON).",
)
@click.option(
    "--openings",
    "openings_items",
    multiple=True,
    metavar="KEY=VALUE...",
    help="Without a file: file= order= start= plies= random_plies=.",
)
@click.option(
    "--adjudicate",
    "adjudicate_items",
    multiple=True,
    metavar="RULE [KEY=VALUE...]",
    help="Without a file: end games early (repeat for each rule): resign movecount=N score=S [twosided=true], "
    "draw movenumber=M movecount=N score=S, maxplies=N, decided (Hex: hex-decided) (docs/adjudication.md).",
)
def run(
    tournament_file: Path | None,
    workers: int | None,
    out: Path | None,
    quiet: bool,
    report_every: int,
    trace: bool,
    idle_engines: int | None,
    cluster_address: str | None,
    engines_file: Path | None,
    forfeit_failed_engines: bool,
    serve_live: bool,
    game_name: str | None,
    options: tuple[str, ...],
    engine_items: tuple[str, ...],
    each_items: tuple[str, ...],
    rounds: int | None,
    seed: int | None,
    sprt_items: tuple[str, ...],
    gauntlet_items: tuple[str, ...],
    format_name: str | None,
    tiebreak_items: tuple[str, ...],
    seeds: Path | None,
    openings_items: tuple[str, ...],
    adjudicate_items: tuple[str, ...],
) -> None:
    """Play the tournament described by TOURNAMENT_FILE (TOML): a round-robin, a gauntlet,
    an SPRT, a knockout or a Swiss event, as the file says. Results go to --out; the same command resumes it.

    Without a file, the flags say it as fastchess's do (--game, -O, --engine, --each, --rounds,
    --sprt, --gauntlet, --format, --tiebreaks, --seeds, --openings, --adjudicate, --seed) and the run writes
    the same tournament file to DIR/tournament.toml (docs/command-line.md).

    \b
    Exit codes (the run's last line says the same):
      0    finished: every game played (or the SPRT decided on played games)
      1    finished, but an engine was dropped, the SPRT has no decision, or
           games were not recorded
      2    bad input or refused settings
      3    an engine failed its start-up check: the run stopped before its
           first game (--forfeit-failed-engines plays on)
      130  interrupted by Ctrl-C, 143 by SIGTERM (the line says how to resume)"""
    from ..tournament.config import ConfigError, load_tournament

    flag_given = {
        "--game": game_name,
        "-O": options,
        "--engine": engine_items,
        "--each": each_items,
        "--rounds": rounds,
        "--seed": seed,
        "--sprt": sprt_items,
        "--gauntlet": gauntlet_items,
        "--format": format_name,
        "--tiebreaks": tiebreak_items,
        "--seeds": seeds,
        "--openings": openings_items,
        "--adjudicate": adjudicate_items,
    }
    given = [flag for flag, value in flag_given.items() if value not in (None, ())]
    extra: list[RunObserver] = []
    if tournament_file is not None:
        if given:
            raise Failure(
                f"{tournament_file} and {given[0]}: a tournament file says what the flags would; "
                f"give the file or the flags (with --game and --engine), not both"
            )
        try:
            t = load_tournament(tournament_file, engines_file)
        except ConfigError as exc:
            raise Failure(str(exc)) from None
    else:
        t, out, writer = flag_run(
            game_name, given, options, engine_items, each_items, rounds, workers, seed, sprt_items,
            gauntlet_items, openings_items, out, engines_file, idle_engines, forfeit_failed_engines,
            format_name=format_name, tiebreaks=tiebreak_items, seeds=seeds, adjudicate=adjudicate_items,
        )  # fmt: skip
        extra.append(writer)
        workers = idle_engines = None  # in the tournament's data, as a file's 'workers' and 'idle_engines'
    if serve_live:
        from ..serve.beside import ServeBeside

        extra.append(ServeBeside(out or t.folder, click.echo))
    # Here, once the tournament is read: a refused file or flag never loads the runner (numpy, scipy, jinja2)
    from ..tournament.foreground import Foreground

    how = Foreground(
        workers, quiet, sys.stdout.isatty(), report_every, trace, cluster_address, idle_engines, forfeit_failed_engines
    )
    run_loaded(t, out, how, extra)
