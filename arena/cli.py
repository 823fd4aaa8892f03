"""The ``arena`` command line: a thin layer over the modules that do the work.

Every expected failure (bad tournament file, unknown game, locked output
folder, unreadable records) is reported as one clear message and exit code 2.
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import sqlite3
import sys
from pathlib import Path
from typing import Any

import click

from .bench import SECTIONS as BENCH_SECTIONS
from .engine.process import EngineFault, EngineProcess, EngineSpec
from .match import TimeControl, play_game, starting_state
from .results.store import StorageError
from .results.verify import RecordError, verify_lines
from .rules import GAMES, OptionError, make_game
from .tournament.config import ConfigError, load_tournament, resolve_program
from .tournament.sprt import sprt_text


class Failure(click.ClickException):
    """An expected error: printed as ``arena: <message>``, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"arena: {self.format_message()}", err=True)


@click.group()
@click.version_option(package_name="arena")
def main() -> None:
    """Referee and tournament runner for hex-board games (hex, groups, bases, hexgo, posies)."""


@main.command()
@click.argument("tournament_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--workers", "-w", type=click.IntRange(1, 256), help="Parallel games (default: the file's 'workers').")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: out/<tournament name>). Re-running resumes it.")
@click.option("--quiet", "-q", is_flag=True, help="No per-game progress lines.")
def run(tournament_file: Path, workers: int | None, out: Path | None, quiet: bool) -> None:
    """Play a round-robin tournament described by TOURNAMENT_FILE (TOML)."""
    from .tournament.runner import run_tournament

    try:
        t = load_tournament(tournament_file)
    except ConfigError as exc:
        raise Failure(str(exc)) from None
    out = out or Path("out") / t.name

    def progress(record: dict[str, Any], done: int, total: int) -> None:
        if not quiet:
            names = " vs ".join(record["players"])
            _say(f"[{done}/{total}] game {record['id']}: {names}: {_result_text(record)}")

    try:
        _setup_logging(out)
        summary = run_tournament(t, out, workers, progress)
    except StorageError as exc:
        raise Failure(str(exc)) from None
    except KeyboardInterrupt:
        raise Failure(f"interrupted; finished games are kept in {out}. Run the same command to resume.") from None
    except (OSError, sqlite3.Error) as exc:
        raise Failure(f"{out}: cannot write the results ({exc}). Check that the output folder is "
                      f"writable and the disk has room, or choose another with --out.") from None
    _say(f"\n{t.name}: {t.data.game}, {summary.played} games played"
         + (f", {summary.resumed} resumed from an earlier run" if summary.resumed else ""))
    _say(summary.table)
    if summary.sprt is not None:
        _say("\n" + sprt_text(summary.sprt))
    for name, why in summary.dropped.items():
        _say(f"\ndropped: {name}: {why}")
    _say(f"\nresults: {out / 'results.json'}  games: {out / 'arena.db'}, {out / 'games.jsonl'}")
    if summary.errors:
        for error in summary.errors:
            click.echo(f"arena: {error}", err=True)
        click.echo(f"arena: {len(summary.errors)} game(s) were not recorded; run the same command "
                   f"again to play them", err=True)
        sys.exit(1)


@main.command()
@click.option("--game", "-g", "game_name", required=True, type=click.Choice(sorted(GAMES)), help="The game to play.")
@click.option("--option", "-O", "options", multiple=True, metavar="KEY=VALUE", help="A game option (repeatable).")
@click.option("--movetime", type=click.IntRange(1), default=1000, show_default=True, help="Milliseconds per move.")
@click.option("--margin", type=click.IntRange(0), default=100, show_default=True, help="Grace milliseconds per move.")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True, help="Setup and engine seed.")
@click.option("--record", type=click.Path(dir_okay=False, path_type=Path), help="Write the JSON record here.")
@click.argument("commands", nargs=-1, required=True)
def play(game_name: str, options: tuple[str, ...], movetime: int, margin: int, seed: int,
         record: Path | None, commands: tuple[str, ...]) -> None:
    """Play one game between engine COMMANDS (one quoted command line per seat)."""
    try:
        game = make_game(game_name, _parse_options(options))
    except OptionError as exc:
        raise Failure(str(exc)) from None
    if len(commands) != game.players:
        raise Failure(f"{game_name} with these options has {game.players} seats; give {game.players} engine commands")
    specs = [_spec_from_command(seat, cmd) for seat, cmd in enumerate(commands)]
    procs = [EngineProcess(spec) for spec in specs]
    try:
        for seat, proc in enumerate(procs):
            try:
                proc.start()
            except EngineFault as exc:
                raise Failure(f"engine {seat} ({commands[seat]}) failed to start: {exc.reason}") from None
        result = play_game(game, procs, seed=seed, time_control=TimeControl(movetime_ms=movetime, margin_ms=margin),
                           names=_seat_names([p.identity.get("name", s.name) for p, s in zip(procs, specs)]))
    finally:
        for proc in procs:
            proc.quit()
    rec = result.record
    state, _ = starting_state(game, seed, rec["players"])
    for move in rec["moves"]:
        state.play(move)
    click.echo(state.render())
    click.echo(f"\n{' vs '.join(rec['players'])}: {_result_text(rec)}")
    text = json.dumps(rec, indent=None)
    if record:
        try:
            record.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise Failure(f"{record}: cannot write the record ({exc.strerror}); choose another --record path") from None
        click.echo(f"record: {record}")
    else:
        click.echo(text)


@main.command()
@click.argument("records", type=click.File("rb"))  # bytes: a non-UTF-8 line is reported by number
def verify(records) -> None:
    """Check game records (JSON Lines; '-' for stdin) against the rules.

    Prints one JSON verdict per record. Exit 0 if all are legal, 1 if any is
    not, 2 if the input cannot be read.
    """
    all_ok = True
    try:
        for verdict in verify_lines(records, getattr(records, "name", "<stdin>")):
            all_ok &= verdict["ok"]
            click.echo(json.dumps(verdict))
    except RecordError as exc:
        raise Failure(str(exc)) from None
    sys.exit(0 if all_ok else 1)


@main.command()
@click.option("--quick", is_flag=True, help="Tiny sizes, one run each: proves the benchmark works (CI).")
@click.option("--section", "-s", "sections", multiple=True, type=click.Choice(BENCH_SECTIONS),
              help="Run only this section (repeatable; default: all).")
@click.option("--repeats", "-r", type=click.IntRange(1, 100), help="Runs per figure (default 5, quick 1).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write every figure to this JSON file.")
def bench(quick: bool, sections: tuple[str, ...], repeats: int | None, json_path: Path | None) -> None:
    """Measure the referee and the manager next to baselines (docs/performance.md)."""
    from .bench import run_bench

    try:
        run_bench(quick=quick, sections=sections or BENCH_SECTIONS, repeats=repeats,
                  json_path=json_path, echo=click.echo)
    except (OSError, RuntimeError) as exc:
        raise Failure(f"bench: {exc}") from None


# -- helpers ----------------------------------------------------------------


def _seat_names(names: list[str]) -> list[str]:
    """Engine names, with the seat added where two engines call themselves the same."""
    return [f"{name}-{seat}" if names.count(name) > 1 else name for seat, name in enumerate(names)]


def _say(text: str) -> None:
    """Print a line; once the reader has gone (``arena run | head``) print nothing more but
    keep playing: a tournament's results live in its output folder, not on stdout."""
    try:
        click.echo(text)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise Failure(f"--option {pair!r}: write KEY=VALUE, e.g. --option size=9")
        options[key] = value
    return options


def _spec_from_command(seat: int, command: str) -> EngineSpec:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise Failure(f"engine {seat}: cannot split command {command!r}: {exc}") from None
    if not argv:
        raise Failure(f"engine {seat}: empty command")
    try:
        argv[0] = resolve_program(argv[0], Path.cwd(), f"engine {seat}")
    except ConfigError as exc:
        raise Failure(str(exc)) from None
    return EngineSpec(f"seat{seat}", tuple(argv))


def _result_text(record: dict[str, Any]) -> str:
    if record["winner"] is not None:
        outcome = f"{record['players'][record['winner']]} wins"
    else:
        outcome = "scores " + " ".join(f"{s:g}" for s in record["scores"])
    return f"{outcome} ({record['termination']}: {record['reason']})"


def _setup_logging(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(out / "arena.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger("arena")
    root.setLevel(logging.INFO)
    root.addHandler(handler)
