"""What both forms of ``arena run`` do once they have their tournament: play it into its folder,
print its tables and end with its verdict."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..tournament.verdict import START_UP_FAILURE, interrupt_code
from .group import Failure, command_line, say, stop
from .items import item_groups

if TYPE_CHECKING:
    from ..tournament.commandline import TournamentFileWriter
    from ..tournament.config import Tournament
    from ..tournament.foreground import Foreground
    from ..tournament.observers import RunObserver


def flag_run(
    game_name: str | None,
    given: list[str],
    options: tuple[str, ...],
    engine_items: tuple[str, ...],
    each_items: tuple[str, ...],
    rounds: int | None,
    workers: int | None,
    seed: int | None,
    sprt_items: tuple[str, ...],
    gauntlet_items: tuple[str, ...],
    openings_items: tuple[str, ...],
    out: Path | None,
    engines_file: Path | None,
    idle_engines: int | None,
    forfeit_failed_engines: bool,
    *,
    format_name: str | None = None,
    tiebreaks: tuple[str, ...] = (),
    seeds: Path | None = None,
    adjudicate: tuple[str, ...] = (),
) -> tuple[Tournament, Path, TournamentFileWriter]:
    """A run without a tournament file: the tournament its flags say, its folder, and what
    writes its tournament file there."""
    from ..tournament.commandline import FlagError, RunFlags, TournamentFileWriter, flag_tournament, tournament_text
    from ..tournament.config import ConfigError

    if game_name is None:
        if given:
            raise Failure(f"{given[0]} without a tournament file needs --game (and two or more --engine)")
        raise Failure(
            "give a TOURNAMENT_FILE, or the tournament as flags: --game GAME --engine cmd=... --engine cmd=... "
            "(arena run --help, docs/command-line.md)"
        )
    flags = RunFlags(
        game_name,
        options,
        item_groups(engine_items),
        [item for group in item_groups(each_items) for item in group],
        rounds,
        workers,
        seed,
        [item for group in item_groups(sprt_items) for item in group] if sprt_items else None,
        [item for group in item_groups(gauntlet_items) for item in group],
        [item for group in item_groups(openings_items) for item in group] if openings_items else None,
        out,
        idle_engines,
        forfeit_failed_engines or None,  # written into the file only when chosen
        format_name,
        tiebreaks,
        seeds,
        item_groups(adjudicate),
    )
    try:
        t, out = flag_tournament(flags, Path.cwd(), engines_file)
    except (FlagError, ConfigError) as exc:
        raise Failure(str(exc)) from None
    return t, out, TournamentFileWriter(out / "tournament.toml", tournament_text(t, command_line()))


def run_loaded(t: Tournament, out: Path | None, how: Foreground, extra: list[RunObserver]) -> None:
    """Play a loaded tournament into ``out``, print its tables and end with its verdict: the
    last line and the exit code (both forms of arena run)."""
    import sqlite3

    from ..results.store import StorageError, failure_text
    from ..tournament.cluster import ClusterError
    from ..tournament.config import ConfigError
    from ..tournament.foreground import play_in_foreground
    from ..tournament.runner import RunInterrupted
    from ..tournament.verdict import StartupFailure

    out = out or t.folder
    try:
        summary = play_in_foreground(t, out, how, extra, say, lambda text: click.echo(f"arena: {text}", err=True))
    except StartupFailure as exc:
        stop(str(exc), START_UP_FAILURE)
    except (StorageError, ClusterError, ConfigError) as exc:
        raise Failure(str(exc)) from None
    except KeyboardInterrupt as exc:
        stopped = exc if isinstance(exc, RunInterrupted) else None
        if stopped is not None and stopped.standings:
            say(f"\n{t.name}: interrupted; the games stored so far:\n{stopped.standings}")
        folder = shlex.quote(str(out.resolve()))
        stop(
            f"interrupted; finished games are kept in {folder} ('arena results {folder}' shows every table). "
            f"Resume with: {command_line()}",
            stopped.code if stopped is not None else interrupt_code(exc),
        )
    except (OSError, sqlite3.Error) as exc:
        raise Failure(failure_text(out, exc)) from None
    say(
        f"\n{t.name}: {t.data.game}, {summary.played} games played"
        + (f", {summary.resumed} resumed from an earlier run" if summary.resumed else "")
    )
    say(summary.table)  # with the SPRT's verdict and the dropped engines
    say(
        f"\nfolder: {out.resolve()}\n  results.json, standings.md, standings.csv, arena.db, games.jsonl"
        f"\nreport: {(out / 'report' / 'index.html').resolve()}"
    )
    for error in summary.errors:
        click.echo(f"arena: {error}", err=True)
    verdict = summary.verdict
    say(f"{t.name}: {verdict.text}")  # the last line, as the exit code says it
    sys.exit(verdict.code)
