"""``arena play``: games between engine commands, each board shown as it ends."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..rules import GAMES
from .group import Failure
from .items import ItemsCommand, item_groups

if TYPE_CHECKING:
    from ..rules import Game
    from ..tournament.playsetup import PlaySetup, SeatFlags
    from ..tournament.series import SeriesGame

# Shown after the options; \b keeps a paragraph's line breaks (click rewraps the others).
PLAY_EXAMPLES = """Examples:

\b
Two engines, a fifth of a second a move, as arena run takes them:
  arena play -g hex -O size=9 --engine cmd=./new --engine name=old cmd=./old \\
    --each st=0.2 --games 2

\b
The old form (still works; a line on stderr names the new one):
  arena play -g hex --movetime 200 ./new ./old
"""


@click.command(cls=ItemsCommand, short_help="Play games between engines, showing each board.", epilog=PLAY_EXAMPLES)
@click.option("--game", "-g", "game_name", required=True, type=click.Choice(sorted(GAMES)), help="The game to play.")
@click.option("--option", "-O", "options", multiple=True, metavar="KEY=VALUE", help="A game option (repeatable).")
@click.option(
    "--engine",
    "engine_items",
    multiple=True,
    metavar="KEY=VALUE...",
    help="One engine, once per seat in order: name= cmd= args= proto= dir= option.NAME= env.NAME= init= tc= st= "
    "timemargin= conf= ..., as arena run takes them (docs/command-line.md).",
)
@click.option(
    "--each", "each_items", multiple=True, metavar="KEY=VALUE...", help="Items every engine gets (tc=10+0.1, st=0.2)."
)
@click.option("--movetime", type=click.IntRange(1), help="Old form of --each st=SECONDS: milliseconds per move.")
@click.option(
    "--base", "base_ms", type=click.IntRange(1), help="Old form of --each tc=: milliseconds per engine for the game."
)
@click.option(
    "--inc",
    "inc_ms",
    type=click.IntRange(0),
    default=0,
    help="Old form of --each tc=BASE+INC: milliseconds added a move.",
)
@click.option(
    "--margin", type=click.IntRange(0), help="Grace milliseconds per move (--each timemargin=MS; default 100)."
)
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
    help="Old form of --engine proto=: once for all seats, or once per seat in order.",
)
@click.option("--name", "names", multiple=True, help="Old form of --engine name=: once per seat in order.")
@click.option(
    "--engine-option",
    "-E",
    "engine_options",
    multiple=True,
    metavar="SEAT:NAME=VALUE",
    help="Old form of --engine option.NAME=VALUE for the engine in SEAT (0-based).",
)
@click.option(
    "--init",
    "inits",
    multiple=True,
    metavar="SEAT:COMMAND",
    help="Old form of --engine init=COMMAND for the GTP engine in SEAT.",
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
@click.argument("commands", nargs=-1)
def play(
    game_name: str,
    options: tuple[str, ...],
    engine_items: tuple[str, ...],
    each_items: tuple[str, ...],
    movetime: int | None,
    base_ms: int | None,
    inc_ms: int,
    margin: int | None,
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
    """Play games between engines: one --engine per seat, in seat order, with the items arena
    run takes (or, the old form, one quoted command line per seat as COMMANDS)."""
    from ..tournament.playsetup import SeatFlags

    if trace and trace_dir is None:
        trace_dir = Path("traces")
    each = [f"timemargin={margin}"] if margin is not None else []
    each += [item for group in item_groups(each_items) for item in group]
    old = SeatFlags(commands, movetime, base_ms, inc_ms, protocols, names, engine_options, inits)
    setup = _setup(game_name, options, item_groups(engine_items), each, old)
    if seed is None:
        import secrets

        seed = secrets.randbits(63)
    click.echo(f"seed: {seed} (replay with --seed {seed})")
    _play(setup, games, seed, record, trace_dir)


def _setup(
    game_name: str, options: tuple[str, ...], engines: list[list[str]], each: list[str], old: SeatFlags
) -> PlaySetup:
    """The game and engines of either form; the old form's line on stderr."""
    from ..tournament.commandline import FlagError
    from ..tournament.config import ConfigError
    from ..tournament.playsetup import PlayFlags, SeatFlags, from_seat_flags, play_setup

    flags = PlayFlags(game_name, options, engines, each)
    old_given = old != SeatFlags()  # any old flag or command
    try:
        if engines and old_given:
            raise FlagError("give the engines as --engine items or as COMMANDS (the old form), not both")
        if not engines:
            if not old.commands:
                raise FlagError("give an --engine cmd=... per seat (arena play --help)")
            flags, note = from_seat_flags(flags, old)
            click.echo(f"arena: {note}", err=True)
        return play_setup(flags, Path.cwd())
    except (FlagError, ConfigError) as exc:
        raise Failure(str(exc)) from None


def _play(setup: PlaySetup, games: int, seed: int, record: Path | None, trace_dir: Path | None) -> None:
    """Play the series, printing each game as it ends and the points at the end."""
    from ..tournament.series import StartFailure, play_series, score

    points: dict[str, float] = {}
    series = play_series(
        setup.game, setup.specs, setup.names, games=games, seed=seed, time_control=setup.time_control,
        trace_dir=trace_dir,
    )  # fmt: skip
    try:
        for played in series:
            _show_game(setup.game, played, games, record)
            score(points, played.record)
    except StartFailure as exc:
        where = f" (transcript: {trace_dir})" if trace_dir else " (run with --trace to see the exchange)"
        raise Failure(
            f"engine {exc.index} ({setup.commands[exc.index]}) failed to start: {exc.fault.reason}{where}"
        ) from None
    if games > 1:
        click.echo("\npoints: " + ", ".join(f"{name} {p:g}" for name, p in points.items()))
    if record:
        click.echo(f"record: {record} ({games} game(s) appended)")


def _show_game(game: Game, played: SeriesGame, games: int, record: Path | None) -> None:
    """Print one finished game of ``arena play`` and append its record."""
    from ..record import starting_state
    from ..results import strictjson
    from ..tournament.series import result_text

    rec = played.record
    state, _ = starting_state(game, rec["seed"], deal=rec["deal"])
    for move in rec["moves"]:
        state.play(move)
    if games > 1:
        click.echo(f"\ngame {played.number + 1} of {games}")
    click.echo(state.render())
    click.echo(f"\n{' vs '.join(rec['players'])}: {result_text(rec)}")
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
