"""``arena check-engine`` (an engine against the protocol) and ``arena verify`` (records
against the rules)."""

from __future__ import annotations

import sys
from typing import BinaryIO

import click

from ..rules import GAMES
from .group import Command, Failure, option_meant
from .items import parse_options


@click.command(
    "check-engine",
    cls=Command,
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
@click.option(
    "--sandbox",
    is_flag=True,
    help="Run the engine in its sandbox, as a tournament's sandbox = true does (docs/sandbox.md).",
)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def check_engine(
    games: tuple[str, ...],
    protocol: str,
    handshake_ms: int,
    inits: tuple[str, ...],
    options: tuple[str, ...],
    sandbox: bool,
    command: tuple[str, ...],
) -> None:
    """Run the conformance checks on the engine started by COMMAND (one quoted command line,
    or its words). One PASS/FAIL line per check; exit 0 only when all pass."""
    from ..engine.conformance import Conformance, NotDeclared, format_check
    from ..tournament.commandline import FlagError
    from ..tournament.enginecheck import check_setup

    if command[0].startswith("-"):  # the options end where the command starts, and no program starts with '-'
        meant = option_meant(click.get_current_context(), command[0])
        raise Failure(
            f"no such option {command[0]!r}" + (f" (did you mean {meant!r}?)" if meant else "") + "; the options "
            "come before the engine's command (arena check-engine --help)"
        )
    try:
        setup = check_setup(command, games, protocol, handshake_ms, inits, parse_options(options), sandbox)
    except FlagError as exc:
        raise Failure(str(exc)) from None
    failed = 0
    try:
        for check in Conformance(setup.spec, games, dict(setup.board)).run():
            failed += check.passed is not True
            for line in format_check(check):
                click.echo(line)
    except NotDeclared as exc:
        raise Failure(f"check-engine refused: the engine {exc}") from None
    click.echo("all checks passed" if not failed else f"{failed} check(s) failed or skipped")
    sys.exit(1 if failed else 0)


@click.command(cls=Command, short_help="Check game records (JSON Lines) against the rules.")
@click.argument("records", type=click.File("rb"))  # bytes: a non-UTF-8 line is reported by number
def verify(records: BinaryIO) -> None:
    """Check game records (JSON Lines; '-' for stdin) against the rules.

    Prints one JSON verdict per record. Exit 0 if all are legal, 1 if any is
    not, 2 if the input cannot be read.
    """
    from ..results import strictjson
    from ..results.verify import RecordError, verify_lines

    all_ok = True
    try:
        for verdict in verify_lines(records, getattr(records, "name", "<stdin>")):
            all_ok &= verdict["ok"]
            click.echo(strictjson.dumps(verdict))
    except RecordError as exc:
        raise Failure(str(exc)) from None
    sys.exit(0 if all_ok else 1)
