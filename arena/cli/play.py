"""``arena play``: games between engine commands, each board shown as it ends."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..rules import GAMES
from .group import Command, Failure
from .items import parse_options

if TYPE_CHECKING:
    from ..engine.process import EngineSpec


@click.command(cls=Command, short_help="Play games between engine commands, showing each board.")
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
    from ..match import TimeControl
    from ..rules import OptionError, games_speaking, make_game
    from ..tournament.series import StartFailure, play_series

    try:
        game = make_game(game_name, parse_options(options), strict=True)
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
        spec_from_command(seat, cmd, protocol_of[seat], setoptions[seat], init_lines[seat])
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
    from ..record import starting_state
    from ..results import strictjson

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

    from ..tournament.config import engine_name_problem

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


def spec_from_command(
    seat: int, command: str, protocol: str = "arena", options: Sequence[tuple[str, str]] = (), init: Sequence[str] = ()
) -> EngineSpec:
    from ..engine.process import EngineSpec
    from ..tournament.config import ConfigError, resolve_program

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
