"""The ``arena`` command line: a thin layer over the modules that do the work.

Every expected failure (bad tournament file, unknown game, locked output
folder, unreadable records) is reported as one clear message and exit code 2; a run
ends with its verdict's code (arena/tournament/verdict.py: 0 to 3, 130 and 143).
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

# Only what the commands' declarations need is imported here: `arena --version`, `--help` and
# an input error answer at once. Each command imports the modules it uses (numpy, pydantic,
# the engines, the referee) when it runs.
from .rules import GAMES
from .tournament.verdict import BAD_INPUT, START_UP_FAILURE, interrupt_code

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.metadata import EntryPoint

    from .engine.player import EngineSpec
    from .tournament.progress import Mode


class Failure(click.ClickException):
    """An expected error: printed as ``arena: <message>``, exit code 2 (bad input)."""

    exit_code = BAD_INPUT

    def show(self, file: Any = None) -> None:
        click.echo(f"arena: {self.format_message()}", err=True)


class _Command(click.Command):
    """A command whose unknown option gets the one it most likely misspells: click's own
    suggestions compare the dashes too, so '--roundz' also suggested '--out'."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            meant = _option_meant(ctx, exc.option_name)
            raise click.NoSuchOption(exc.option_name, possibilities=[meant] if meant else None, ctx=ctx) from None


def _option_meant(ctx: click.Context, word: str) -> str | None:
    """The option of the context's command that ``word`` (``--roundz``) most likely misspells."""
    from .rules.base import did_you_mean

    names = {name.lstrip("-"): name for p in ctx.command.get_params(ctx) for name in [*p.opts, *p.secondary_opts]}
    meant = did_you_mean(word.partition("=")[0].lstrip("-"), names)
    return names[meant] if meant is not None else None


# `arena --help` lists the commands by use, the everyday ones first; any other follows.
COMMAND_ORDER = ("run", "results", "report", "ratings", "play", "check-engine", "verify", "export", "ladder", "bench")


def _stop(message: str, code: int) -> NoReturn:
    """An expected stop with an exit code of its own (verdict.py), printed as a Failure is."""
    Failure(message).show()
    sys.exit(code)


class _Commands(click.Group):
    """Ctrl-C (or SIGTERM) outside the places that handle it (loading a file, starting up) is
    one line and exit code 130 (143), rather than click's "Aborted!".

    Besides its own, the top group (``offers_added``) offers the commands other installed packages
    declare in the ``arena.commands`` entry point group (``arena bench``, from the benchmarks'
    package): each is loaded only when it is run or the help lists it, and no module here imports one."""

    command_class = _Command
    group_class = type  # a group's subgroups are _Commands too

    def __init__(self, *args: Any, offers_added: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.offers_added = offers_added

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            resume = f"Resume with: {_command_line()}"
            _stop(f"interrupted; nothing that was finished is lost. {resume}", interrupt_code(exc))

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = {*self.commands, *(_added_commands() if self.offers_added else ())}
        ordered = [name for name in COMMAND_ORDER if name in names]
        return ordered + sorted(names - set(COMMAND_ORDER))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None or not self.offers_added:
            return command
        entry = _added_commands().get(cmd_name)
        if entry is None:
            return None
        try:
            loaded = entry.load()
        except (ImportError, AttributeError) as exc:
            raise Failure(f"{cmd_name}: cannot load {entry.value} ({exc}); reinstall arena: pip install -e .") from None
        return loaded if isinstance(loaded, click.Command) else None


def _command_line() -> str:
    """The command this process runs, as a shell would take it again."""
    return shlex.join(["arena", *sys.argv[1:]]).replace("\n", " ")


COMMANDS_GROUP = "arena.commands"  # the entry point group of commands added by other packages


@functools.cache
def _added_commands() -> dict[str, EntryPoint]:
    from importlib.metadata import entry_points  # here: only a command not built in needs the scan

    return {entry.name: entry for entry in entry_points(group=COMMANDS_GROUP)}


@click.group(cls=_Commands, offers_added=True)
@click.version_option(package_name="arena")
def main() -> None:
    """Referee and tournament runner for hex-board games (hex, groups, bases, hexgo, posies)."""


class _ItemsCommand(_Command):
    """Flags followed by several KEY=VALUE items, as fastchess and cutechess-cli take them
    (``--engine name=new cmd=./new``): the items up to the next flag are handed to the flag
    as one value."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, _group_items(args))


ITEM_FLAGS = ("--engine", "--each", "--sprt", "--openings", "--gauntlet")


def _group_items(args: list[str]) -> list[str]:
    import json

    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            out += args[i - 1 :]
            break
        out.append(arg)
        if arg in ITEM_FLAGS:
            items = []
            while i < len(args) and not args[i].startswith("-"):
                items.append(args[i])
                i += 1
            out.append(json.dumps(items))
    return out


def _item_groups(values: tuple[str, ...]) -> list[list[str]]:
    """Each occurrence of an item flag's items (see _group_items)."""
    import json

    groups = []
    for value in values:
        try:
            items = json.loads(value)
        except ValueError:
            items = [value]  # --engine=cmd=./x: one item
        groups.append([str(item) for item in items] if isinstance(items, list) else [value])
    return groups


# Shown after the options; \b keeps a paragraph's line breaks (click rewraps the others).
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


@main.command(
    cls=_ItemsCommand,
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
    help="Engines each worker keeps running beside its game's, least recently used quit first "
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
@click.option("--game", "-g", "game_name", type=click.Choice(sorted(GAMES)), help="Without a file: the game.")
@click.option("--option", "-O", "options", multiple=True, metavar="KEY=VALUE", help="Without a file: a game option.")
@click.option(
    "--engine",
    "engine_items",
    multiple=True,
    metavar="KEY=VALUE...",
    help="Without a file: one engine (repeat for each): name= cmd= args= proto= dir= option.NAME= "
    "env.NAME= init= tc= st= timemargin= conf= memory_mb= cpu_seconds= handshake_ms= max_failures= "
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
    "--openings",
    "openings_items",
    multiple=True,
    metavar="KEY=VALUE...",
    help="Without a file: file= order= start= plies= random_plies=.",
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
    game_name: str | None,
    options: tuple[str, ...],
    engine_items: tuple[str, ...],
    each_items: tuple[str, ...],
    rounds: int | None,
    seed: int | None,
    sprt_items: tuple[str, ...],
    gauntlet_items: tuple[str, ...],
    openings_items: tuple[str, ...],
) -> None:
    """Play the tournament described by TOURNAMENT_FILE (TOML): a round-robin, a gauntlet
    or an SPRT, as the file says. Results go to --out; the same command resumes it.

    Without a file, the flags say it as fastchess's do (--game, -O, --engine, --each, --rounds,
    --sprt, --gauntlet, --openings, --seed) and the run writes the same tournament file to
    DIR/tournament.toml (docs/command-line.md).

    \b
    Exit codes (the run's last line says the same):
      0    finished: every game played (or the SPRT decided on played games)
      1    finished, but an engine was dropped, the SPRT has no decision, or
           games were not recorded
      2    bad input or refused settings
      3    an engine failed its start-up check: the run stopped before its
           first game (--forfeit-failed-engines plays on)
      130  interrupted by Ctrl-C, 143 by SIGTERM (the line says how to resume)"""
    from .tournament.config import ConfigError, load_tournament

    flag_given = {
        "--game": game_name,
        "-O": options,
        "--engine": engine_items,
        "--each": each_items,
        "--rounds": rounds,
        "--seed": seed,
        "--sprt": sprt_items,
        "--gauntlet": gauntlet_items,
        "--openings": openings_items,
    }
    given = [flag for flag, value in flag_given.items() if value not in (None, ())]
    extra: list[Any] = []
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
        t, out, writer = _flag_tournament(
            game_name, given, options, engine_items, each_items, rounds, workers, seed, sprt_items,
            gauntlet_items, openings_items, out, engines_file, idle_engines, forfeit_failed_engines,
        )  # fmt: skip
        extra.append(writer)
        workers = idle_engines = None  # in the tournament's data, as a file's 'workers' and 'idle_engines'
    _run_loaded(
        t, out, workers, quiet, report_every, trace, cluster_address, extra, idle_engines, forfeit_failed_engines
    )


def _flag_tournament(
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
) -> tuple[Any, Path, Any]:
    """A run without a tournament file: the tournament its flags say, its folder, and what
    writes its tournament file there."""
    from .tournament.commandline import FlagError, RunFlags, TournamentFileWriter, flag_tournament, tournament_text
    from .tournament.config import ConfigError

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
        _item_groups(engine_items),
        [item for group in _item_groups(each_items) for item in group],
        rounds,
        workers,
        seed,
        [item for group in _item_groups(sprt_items) for item in group] if sprt_items else None,
        [item for group in _item_groups(gauntlet_items) for item in group],
        [item for group in _item_groups(openings_items) for item in group] if openings_items else None,
        out,
        idle_engines,
        forfeit_failed_engines or None,  # written into the file only when chosen
    )
    try:
        t, out = flag_tournament(flags, Path.cwd(), engines_file)
    except (FlagError, ConfigError) as exc:
        raise Failure(str(exc)) from None
    return t, out, TournamentFileWriter(out / "tournament.toml", tournament_text(t, _command_line()))


def _run_loaded(
    t: Any,
    out: Path | None,
    workers: int | None,
    quiet: bool,
    report_every: int,
    trace: bool,
    cluster_address: str | None,
    extra: list[Any],
    idle_engines: int | None = None,
    forfeit_failed_engines: bool = False,
) -> None:
    """Play a loaded tournament into ``out``, print its tables and end with its verdict: the
    last line and the exit code (both forms of arena run)."""
    import sqlite3

    from .engine.trace import trace_path
    from .results.logfile import attach_run_log
    from .results.store import StorageError, failure_text
    from .tournament.cluster import ClusterError, ClusterSpec
    from .tournament.config import ConfigError
    from .tournament.load import LoadWatch
    from .tournament.observers import live_site
    from .tournament.progress import Progress
    from .tournament.runner import RunInterrupted, run_tournament
    from .tournament.verdict import StartupFailure

    tournament_file = t.path
    out = out or t.folder
    mode: Mode = "quiet" if quiet else "live" if sys.stdout.isatty() else "lines"
    note = (lambda record: f"game {record['id']}: trace: {trace_path(out / 'traces', record['id'])}") if trace else None
    progress = Progress(
        [e.name for e in t.engines], t.game.players, mode, report_every=report_every, echo=_say, game_note=note
    )
    address = cluster_address if cluster_address is not None else t.data.cluster.address if t.data.cluster else None
    cluster = None
    if address is not None:
        where = "--cluster" if cluster_address is not None else f"{tournament_file}: [cluster] address"
        try:
            cluster = ClusterSpec.parse(address, echo=progress.warn, tell=None if quiet else progress.warn)
        except ClusterError as exc:
            raise Failure(f"{where}: {exc}") from None
    else:
        _warn_of_too_many_workers(workers or t.data.workers)
    try:
        attach_run_log(out)
        site = live_site(out / "report", t)  # before the progress: its pages are fresh when a line shows
        try:
            summary = run_tournament(
                t,
                out,
                workers,
                [*extra, site, progress],
                cluster=cluster,
                trace=trace,
                idle_engines=idle_engines,
                forfeit_failed_engines=forfeit_failed_engines,
                load=None if cluster else LoadWatch(warn=progress.warn),  # a cluster's load is its machines'
            )
        finally:
            progress.close()
    except StartupFailure as exc:
        _stop(str(exc), START_UP_FAILURE)
    except (StorageError, ClusterError, ConfigError) as exc:
        raise Failure(str(exc)) from None
    except KeyboardInterrupt as exc:
        stopped = exc if isinstance(exc, RunInterrupted) else None
        if stopped is not None and stopped.standings:
            _say(f"\n{t.name}: interrupted; the games stored so far:\n{stopped.standings}")
        folder = shlex.quote(str(out.resolve()))
        _stop(
            f"interrupted; finished games are kept in {folder} ('arena results {folder}' shows every table). "
            f"Resume with: {_command_line()}",
            stopped.code if stopped is not None else interrupt_code(exc),
        )
    except (OSError, sqlite3.Error) as exc:
        raise Failure(failure_text(out, exc)) from None
    _say(
        f"\n{t.name}: {t.data.game}, {summary.played} games played"
        + (f", {summary.resumed} resumed from an earlier run" if summary.resumed else "")
    )
    _say(summary.table)  # with the SPRT's verdict and the dropped engines
    _say(
        f"\nfolder: {out.resolve()}\n  results.json, standings.md, standings.csv, arena.db, games.jsonl"
        f"\nreport: {(out / 'report' / 'index.html').resolve()}"
    )
    for error in summary.errors:
        click.echo(f"arena: {error}", err=True)
    verdict = summary.verdict
    _say(f"{t.name}: {verdict.text}")  # the last line, as the exit code says it
    sys.exit(verdict.code)


@main.command(short_help="Play games between engine commands, showing each board.")
@click.option("--game", "-g", "game_name", required=True, type=click.Choice(sorted(GAMES)), help="The game to play.")
@click.option("--option", "-O", "options", multiple=True, metavar="KEY=VALUE", help="A game option (repeatable).")
@click.option("--movetime", type=click.IntRange(1), help="Milliseconds per move (default 1000 without --base).")
@click.option("--base", "base_ms", type=click.IntRange(1), help="Clock: milliseconds per engine for the game.")
@click.option("--inc", "inc_ms", type=click.IntRange(0), default=0, help="Clock: milliseconds added after each move.")
@click.option("--margin", type=click.IntRange(0), default=100, show_default=True, help="Grace milliseconds per move.")
@click.option(
    "--seed", type=click.IntRange(0, 2**63 - 1), help="Setup and engine seed (default: a fresh one, printed)."
)
@click.option(
    "--games",
    "-n",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Games to play, the seats rotating from game to game.",
)
@click.option(
    "--protocol",
    "-p",
    "protocols",
    multiple=True,
    type=click.Choice(["arena", "gtp"]),
    help="Protocol of the engines: once for all seats, or once per seat in order (default arena).",
)
@click.option("--name", "names", multiple=True, help="Engine name, once per seat in order (default: its id name).")
@click.option(
    "--engine-option",
    "-E",
    "engine_options",
    multiple=True,
    metavar="SEAT:NAME=VALUE",
    help="A declared option sent to the engine in SEAT (0-based) with setoption (repeatable).",
)
@click.option(
    "--init",
    "inits",
    multiple=True,
    metavar="SEAT:COMMAND",
    help="A GTP command sent to the GTP engine in SEAT after start-up (repeatable).",
)
@click.option(
    "--record",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Append each game's JSON record to this file (JSON Lines).",
)
@click.option(
    "--trace",
    is_flag=True,
    help="Write a transcript of each game (every line both ways, stderr, timestamps) "
    "into the folder traces (or --trace-dir).",
)
@click.option(
    "--trace-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where --trace writes (implies --trace; default: traces).",
)
@click.argument("commands", nargs=-1, required=True)
def play(
    game_name: str,
    options: tuple[str, ...],
    movetime: int | None,
    base_ms: int | None,
    inc_ms: int,
    margin: int,
    seed: int | None,
    games: int,
    protocols: tuple[str, ...],
    names: tuple[str, ...],
    engine_options: tuple[str, ...],
    inits: tuple[str, ...],
    record: Path | None,
    trace: bool,
    trace_dir: Path | None,
    commands: tuple[str, ...],
) -> None:
    """Play games between engine COMMANDS (one quoted command line per seat)."""
    if trace and trace_dir is None:
        trace_dir = Path("traces")
    from .match import TimeControl
    from .rules import OptionError, games_speaking, make_game
    from .tournament.series import StartFailure, play_series

    try:
        game = make_game(game_name, _parse_options(options), strict=True)
    except OptionError as exc:
        raise Failure(str(exc)) from None
    if len(commands) != game.players:
        raise Failure(f"{game_name} with these options has {game.players} seats; give {game.players} engine commands")
    seats = len(commands)
    protocol_of = _per_seat("--protocol", protocols, seats, allow_one=True) or ["arena"] * seats
    given_names = _per_seat("--name", names, seats, allow_one=False)
    _check_names(given_names)
    setoptions = _seat_items("--engine-option", engine_options, seats, split_value=True)
    init_lines = _seat_items("--init", inits, seats, split_value=False)
    if "gtp" in protocol_of and "gtp" not in game.protocols:
        only = ", ".join(games_speaking("gtp"))
        raise Failure(f"--protocol gtp: arena drives GTP engines for {only} only, not {game_name}")
    for seat in range(seats):
        if protocol_of[seat] == "gtp" and setoptions[seat]:
            raise Failure(
                f"--engine-option {seat}:...: seat {seat} speaks GTP; send settings with --init {seat}:COMMAND"
            )
        if protocol_of[seat] == "arena" and init_lines[seat]:
            raise Failure(f"--init {seat}:...: seat {seat} speaks protocol v1; use --engine-option {seat}:NAME=VALUE")
    specs = [
        _spec_from_command(seat, cmd, protocol_of[seat], setoptions[seat], init_lines[seat])
        for seat, cmd in enumerate(commands)
    ]
    if seed is None:
        import secrets

        seed = secrets.randbits(63)
    click.echo(f"seed: {seed} (replay with --seed {seed})")
    tc = TimeControl(
        movetime_ms=movetime if movetime or base_ms else 1000,
        base_ms=base_ms,
        inc_ms=inc_ms if base_ms else 0,
        margin_ms=margin,
    )
    points: dict[str, float] = {}
    series = play_series(
        game, specs, given_names or [None] * seats, games=games, seed=seed, time_control=tc, trace_dir=trace_dir
    )
    try:
        for played in series:
            _show_game(game, played, games, record, points)
    except StartFailure as exc:
        where = f" (transcript: {trace_dir})" if trace_dir else " (run with --trace to see the exchange)"
        raise Failure(
            f"engine {exc.index} ({commands[exc.index]}) failed to start: {exc.fault.reason}{where}"
        ) from None
    if games > 1:
        click.echo("\npoints: " + ", ".join(f"{name} {p:g}" for name, p in points.items()))
    if record:
        click.echo(f"record: {record} ({games} game(s) appended)")


def _show_game(game: Any, played: Any, games: int, record: Path | None, points: dict[str, float]) -> None:
    """Print one finished game of ``arena play``, append its record, count its points."""
    from .record import starting_state
    from .results import strictjson

    rec = played.record
    state, _ = starting_state(game, rec["seed"], deal=rec["deal"])
    for move in rec["moves"]:
        state.play(move)
    if games > 1:
        click.echo(f"\ngame {played.number + 1} of {games}")
    click.echo(state.render())
    click.echo(f"\n{' vs '.join(rec['players'])}: {_result_text(rec)}")
    _score(points, rec)
    text = strictjson.dumps(rec.to_json())
    if record:
        try:
            with record.open("a", encoding="utf-8") as f:
                f.write(text + "\n")
        except OSError as exc:
            raise Failure(f"{record}: cannot write the record ({exc.strerror}); choose another --record path") from None
    else:
        click.echo(text)
    if played.trace:
        click.echo(f"trace: {played.trace}")


@main.command(
    "check-engine",
    short_help="Check an engine against the protocol: PASS/FAIL a check.",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.option(
    "--game",
    "-g",
    "games",
    multiple=True,
    type=click.Choice(sorted(GAMES)),
    help="A game to check (repeatable; default: the engine's 'id games', else hex).",
)
@click.option(
    "--protocol",
    "-p",
    type=click.Choice(["arena", "gtp"]),
    default="arena",
    show_default=True,
    help="The engine's protocol: arena's protocol v1 or GTP (docs/gtp.md).",
)
@click.option(
    "--handshake-ms",
    type=click.IntRange(1, 600_000),
    default=10_000,
    show_default=True,
    help="Milliseconds allowed for the handshake and each isready.",
)
@click.option(
    "--init",
    "inits",
    multiple=True,
    metavar="COMMAND",
    help="GTP only: a command sent after start-up, its answer checked, as a tournament's 'init' does (repeatable).",
)
@click.option(
    "--option",
    "-O",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="A game option for the timed and whole-game checks, e.g. -O size=11 (repeatable; "
    "default: the game's small check board).",
)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def check_engine(
    games: tuple[str, ...],
    protocol: str,
    handshake_ms: int,
    inits: tuple[str, ...],
    options: tuple[str, ...],
    command: tuple[str, ...],
) -> None:
    """Run the conformance checks on the engine started by COMMAND (one quoted command line,
    or its words). One PASS/FAIL line per check; exit 0 only when all pass."""
    from .engine.conformance import Conformance, NotDeclared, check_game, format_check
    from .engine.player import EngineSpec
    from .rules import OptionError, games_speaking

    if command[0].startswith("-"):  # the options end where the command starts, and no program starts with '-'
        meant = _option_meant(click.get_current_context(), command[0])
        raise Failure(
            f"no such option {command[0]!r}" + (f" (did you mean {meant!r}?)" if meant else "") + "; the options "
            "come before the engine's command (arena check-engine --help)"
        )
    if inits and protocol != "gtp":
        raise Failure("--init is for GTP engines (--protocol gtp); a protocol-1 engine gets options instead")
    board = _parse_options(options)
    named = list(games) or (games_speaking("gtp") if protocol == "gtp" else [])
    if board and not named:
        raise Failure("-O: name the game it is for with --game (e.g. --game hex -O size=11)")
    for name in named if board else []:
        try:
            check_game(name, board)
        except OptionError as exc:
            raise Failure(f"-O: {exc}") from None
    for line in inits:
        if "\n" in line or "\r" in line or not line.strip():
            raise Failure(f"--init {line!r}: one GTP command on one line")
    spec = _spec_from_command(
        0, " ".join(shlex.quote(w) for w in command) if len(command) > 1 else command[0], protocol
    )
    spec = EngineSpec("engine", spec.command, protocol=protocol, handshake_ms=handshake_ms, init=inits)
    failed = 0
    try:
        for check in Conformance(spec, games, board).run():
            failed += check.passed is not True
            for line in format_check(check):
                click.echo(line)
    except NotDeclared as exc:
        raise Failure(f"check-engine refused: the engine {exc}") from None
    click.echo("all checks passed" if not failed else f"{failed} check(s) failed or skipped")
    sys.exit(1 if failed else 0)


@main.command(short_help="Check game records (JSON Lines) against the rules.")
@click.argument("records", type=click.File("rb"))  # bytes: a non-UTF-8 line is reported by number
def verify(records) -> None:
    """Check game records (JSON Lines; '-' for stdin) against the rules.

    Prints one JSON verdict per record. Exit 0 if all are legal, 1 if any is
    not, 2 if the input cannot be read.
    """
    from .results import strictjson
    from .results.verify import RecordError, verify_lines

    all_ok = True
    try:
        for verdict in verify_lines(records, getattr(records, "name", "<stdin>")):
            all_ok &= verdict["ok"]
            click.echo(strictjson.dumps(verdict))
    except RecordError as exc:
        raise Failure(str(exc)) from None
    sys.exit(0 if all_ok else 1)


ELO_PRIOR = click.option(
    "--elo-prior",
    type=click.FloatRange(0, 1000),
    default=None,
    help="BayesElo's prior of the Elo fit: virtual draws per engine; 0: pure maximum likelihood "
    "(default: the tournament file's elo_prior, else 2).",
)


@main.command(short_help="Print the standings, Elo and statistics of a results folder.")
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
    from .results.export import render, summarize_folder
    from .results.fit import output_width
    from .results.store import StorageError

    try:
        summary = summarize_folder(folder, elo_prior)
    except StorageError as exc:
        raise Failure(str(exc)) from None
    _say(render(summary, fmt, width=None if wide else output_width()).rstrip("\n"))


@main.command(short_help="One rating list over the games of several results folders.")
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
def ratings(
    folders: tuple[Path, ...],
    anchor: str | None,
    fmt: str,
    target: Path | None,
    elo_prior: float | None,
    allow_mixed: bool,
    split_names: bool,
) -> None:
    """One rating list over all the games of the results FOLDERS (of one game and its options):
    the Bradley-Terry Elo each folder's table shows, fitted to all their games at once, with
    its intervals, the LOS matrix and the folders each engine played in."""
    from .results.ratinglist import RatingListError, parse_anchor, rating_list, read_folder, render
    from .results.store import StorageError

    try:
        fixed = parse_anchor(anchor) if anchor is not None else None
    except ValueError as exc:
        raise Failure(str(exc)) from None
    read, bad = [], []
    for path in folders:
        try:
            read.append(read_folder(path, str(path)))
        except StorageError as exc:
            bad.append(str(exc))
    try:
        if bad:
            raise RatingListError(bad)
        text = render(
            rating_list(read, allow_mixed=allow_mixed, split_names=split_names, anchor=fixed, prior=elo_prior), fmt
        )
    except RatingListError as exc:
        for line in exc.lines[:-1]:
            click.echo(f"arena: {line}", err=True)
        raise Failure(exc.lines[-1]) from None
    if target is None:
        _say(text.rstrip("\n"))
        return
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise Failure(f"{target}: cannot write the rating list ({exc.strerror or exc}); choose another -o") from None
    click.echo(f"ratings: {target}")


@main.command(short_help="Write the report site (HTML) of a results folder.")
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
    from .results.site import SiteError, load_folder, write_site

    try:
        data = load_folder(folder)
        data.elo_prior = elo_prior
        index = write_site(site or folder / "report", data)
    except SiteError as exc:
        raise Failure(str(exc)) from None
    except OSError as exc:
        raise Failure(f"{site or folder / 'report'}: cannot write the site ({exc}); choose another --out") from None
    click.echo(f"report: {index}")


@main.group()
def export() -> None:
    """Write a results folder's games in other formats."""


@export.command("sgf")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--out",
    "-o",
    "target",
    required=True,
    type=click.Path(path_type=Path),
    help="The .sgf file (with --per-game: a folder, one game-<id>.sgf per game).",
)
@click.option("--game", "game_ids", multiple=True, type=click.IntRange(0), help="Only this game id (repeatable).")
@click.option("--per-game", is_flag=True, help="One file per game instead of one collection.")
def export_sgf(folder: Path, target: Path, game_ids: tuple[int, ...], per_game: bool) -> None:
    """Write the Hex games of FOLDER as SGF that HexGui opens (FF[4] GM[11])."""
    from .results.sgf import HEXGUI_MAX_SIZE, SgfError, hex_collection_sgf, hex_game_sgf, larger_than_hexgui
    from .results.store import StorageError, read_folder

    try:
        _, records = read_folder(folder)
    except StorageError as exc:
        raise Failure(str(exc)) from None
    by_id = {r["id"]: r for r in records}
    missing = [i for i in game_ids if i not in by_id]
    if missing:
        raise Failure(
            f"{folder}: no game {', '.join(map(str, missing))} (games stored: {len(records)}, ids "
            f"{min(by_id, default=0)}..{max(by_id, default=0)})"
        )
    chosen = [by_id[i] for i in dict.fromkeys(game_ids)] if game_ids else records
    try:
        if per_game:
            target.mkdir(parents=True, exist_ok=True)
            for r in chosen:
                (target / f"game-{r['id']}.sgf").write_text(hex_game_sgf(r), encoding="utf-8")
        else:
            target.write_text(hex_collection_sgf(chosen), encoding="utf-8")
    except SgfError as exc:
        raise Failure(str(exc)) from None
    except OSError as exc:
        raise Failure(f"{target}: cannot write ({exc.strerror}); choose another --out") from None
    click.echo(f"{len(chosen)} game(s): {target}")
    if not per_game and len(chosen) > 1:
        click.echo("note: HexGui opens the first game of a file with several; --per-game writes one file a game")
    if larger_than_hexgui(chosen):
        click.echo(
            f"note: HexGui draws boards up to {HEXGUI_MAX_SIZE}x{HEXGUI_MAX_SIZE}; larger ones are "
            f"valid SGF for other viewers"
        )


@main.command(short_help="Rate the bundled search engine's levels, one against another.")
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
    from .ladder import LEVELS, MOHEX_BUDGETS, ladders, run_ladder, tables
    from .machine import machine
    from .results.store import StorageError
    from .tournament.config import ConfigError
    from .tournament.verdict import StartupFailure

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
            options=_parse_options(option_pairs),
            iterations=iterations,
            echo=click.echo,
        )
    except StartupFailure as exc:  # an engine of the ladder (MoHex, say) could not start
        _stop(str(exc), START_UP_FAILURE)
    except (StorageError, ConfigError, RuntimeError) as exc:
        raise Failure(str(exc)) from None
    click.echo("\n" + tables(results, moves, known[game_name].movetime_ms))
    click.echo(f"\nfolder: {out.resolve()} (a subfolder per pair, each a tournament 'arena results' reads)")


# -- helpers ----------------------------------------------------------------


def _warn_of_too_many_workers(workers: int) -> None:
    """More games at once than cores: engines think in turns with other games' engines, so
    each gets less CPU than its clock assumes (fastchess's concurrency advice)."""
    from .engine.proctree import usable_cpus

    cores = len(usable_cpus())
    if workers > cores:
        click.echo(
            f"arena: {workers} workers on {cores} core{'s' if cores != 1 else ''}: games in parallel share the "
            f"CPUs, so engines get less thinking time than their clocks allow; --workers {cores} avoids it",
            err=True,
        )


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
        options[key] = _option_value(value)
    return options


def _option_value(text: str) -> Any:
    """A command-line game option typed as a tournament file would type it: ASCII digits are
    an integer, true/false a boolean, anything else text (so size=5.0 is refused, not 5)."""
    if re.fullmatch(r"-?[0-9]{1,20}", text):  # longer: no option takes it, and int() of 4,300+ digits raises
        return int(text)
    return {"true": True, "false": False}.get(text, text)


def _per_seat(flag: str, values: tuple[str, ...], seats: int, allow_one: bool) -> list[str]:
    """A flag given once per seat (or, if ``allow_one``, once for all of them)."""
    if not values:
        return []
    if allow_one and len(values) == 1:
        return list(values) * seats
    if len(values) != seats:
        raise Failure(
            f"{flag}: give it once per seat ({seats} times, in seat order)"
            + (" or once for all seats" if allow_one else "")
            + f"; got {len(values)}"
        )
    return list(values)


def _check_names(names: Sequence[str]) -> None:
    """``--name`` follows a tournament file's rule for engine names."""
    from protocol.codec import quote

    from .tournament.config import engine_name_problem

    for name in names:
        if (problem := engine_name_problem(name)) is not None:
            raise Failure(f"--name {quote(name, 80)}: {problem}")


def _seat_items(flag: str, items: tuple[str, ...], seats: int, split_value: bool) -> list[list]:
    """``SEAT:NAME=VALUE`` (or ``SEAT:TEXT``) items grouped by seat."""
    grouped: list[list] = [[] for _ in range(seats)]
    for item in items:
        seat, colon, rest = item.partition(":")
        if not colon or not (seat.isascii() and seat.isdigit()) or int(seat) >= seats:
            raise Failure(f"{flag} {item!r}: start with the seat number (0 to {seats - 1}) and ':'")
        if any(ch in rest for ch in "\r\n\x00"):
            raise Failure(f"{flag} {item!r}: one line only")
        if split_value:
            name, eq, value = rest.partition("=")
            if not eq or not name or " " in name:
                raise Failure(f"{flag} {item!r}: write SEAT:NAME=VALUE, e.g. {flag} 0:depth=3")
            grouped[int(seat)].append((name, value))
        elif rest.strip():
            grouped[int(seat)].append(rest.strip())
    return grouped


def _score(points: dict[str, float], record: dict[str, Any]) -> None:
    """Points per engine: 1 a win, shared on a draw (places tied at 0)."""
    first = [seat for seat, place in enumerate(record["places"]) if place == 0]
    for seat, name in enumerate(record["players"]):
        points[name] = points.get(name, 0.0) + (1 / len(first) if seat in first else 0.0)


def _spec_from_command(
    seat: int, command: str, protocol: str = "arena", options: Sequence[tuple[str, str]] = (), init: Sequence[str] = ()
) -> EngineSpec:
    from .engine.player import EngineSpec
    from .tournament.config import ConfigError, resolve_program

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
    return EngineSpec(f"seat{seat}", tuple(argv), options=tuple(options), protocol=protocol, init=tuple(init))


def _result_text(record: dict[str, Any]) -> str:
    if record["winner"] is not None:
        outcome = f"{record['players'][record['winner']]} wins"
    else:
        outcome = "scores " + " ".join(f"{s:g}" for s in record["scores"])
    return f"{outcome} ({record['termination']}: {record['reason']})"
