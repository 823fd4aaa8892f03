"""The ``arena`` group and what every command shares: the one-line Failure, the option a
misspelling most likely meant, the stop with its own exit code, the commands other packages add.

Only what the commands' declarations need is imported here: `arena --version`, `--help` and
an input error answer at once. Each command imports the modules it uses (numpy, pydantic,
the engines, the referee) when it runs.
"""

from __future__ import annotations

import functools
import os
import shlex
import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

from ..tournament.verdict import BAD_INPUT, interrupt_code, raise_lost_stop, stop_since, stops_so_far

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint


class Failure(click.ClickException):
    """An expected error: printed as ``arena: <message>``, exit code 2 (bad input)."""

    exit_code = BAD_INPUT

    def show(self, file: Any = None) -> None:
        click.echo(f"arena: {self.format_message()}", err=True)


class Command(click.Command):
    """A command whose unknown option gets the one it most likely misspells: click's own
    suggestions compare the dashes too, so '--roundz' also suggested '--out'."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            meant = option_meant(ctx, exc.option_name)
            raise click.NoSuchOption(exc.option_name, possibilities=[meant] if meant else None, ctx=ctx) from None


def option_meant(ctx: click.Context, word: str) -> str | None:
    """The option of the context's command that ``word`` (``--roundz``) most likely misspells."""
    from ..rules.base import did_you_mean

    names = {name.lstrip("-"): name for p in ctx.command.get_params(ctx) for name in [*p.opts, *p.secondary_opts]}
    meant = did_you_mean(word.partition("=")[0].lstrip("-"), names)
    return names[meant] if meant is not None else None


# `arena --help` lists the commands by use, the everyday ones first; any other follows.
COMMAND_ORDER = (
    "run",
    "results",
    "report",
    "ratings",
    "serve",
    "play",
    "check-engine",
    "verify",
    "export",
    "openings",
    "ladder",
    "bench",
)


def stop(message: str, code: int) -> NoReturn:
    """An expected stop with an exit code of its own (verdict.py), printed as a Failure is."""
    Failure(message).show()
    sys.exit(code)


class Commands(click.Group):
    """Ctrl-C (or SIGTERM) outside the places that handle it (loading a file, starting up) is
    one line and exit code 130 (143), rather than click's "Aborted!".

    Besides its own, the top group (``offers_added``) offers the commands other installed packages
    declare in the ``arena.commands`` entry point group (``arena bench``, from the benchmarks'
    package): each is loaded only when it is run or the help lists it, and no module here imports one."""

    command_class = Command
    group_class = type  # a group's subgroups are Commands too

    def __init__(self, *args: Any, offers_added: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.offers_added = offers_added

    def invoke(self, ctx: click.Context) -> Any:
        since = stops_so_far()
        try:
            result = super().invoke(ctx)
            raise_lost_stop(since)  # a stop whose exception a finalizer dropped: answered all the same
            return result
        except KeyboardInterrupt as exc:
            interrupted(interrupt_code(exc))
        except Exception:
            code = stop_since(since)
            if code is None:
                raise
            interrupted(code)  # the interrupt came wrapped in another exception

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = {*self.commands, *(added_commands() if self.offers_added else ())}
        ordered = [name for name in COMMAND_ORDER if name in names]
        return ordered + sorted(names - set(COMMAND_ORDER))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None or not self.offers_added:
            return command
        entry = added_commands().get(cmd_name)
        if entry is None:
            return None
        try:
            loaded = entry.load()
        except (ImportError, AttributeError) as exc:
            raise Failure(f"{cmd_name}: cannot load {entry.value} ({exc}); reinstall arena: pip install -e .") from None
        return loaded if isinstance(loaded, click.Command) else None


def interrupted(code: int) -> NoReturn:
    stop(f"interrupted; nothing that was finished is lost. Resume with: {command_line()}", code)


def command_line() -> str:
    """The command this process runs, as a shell would take it again."""
    return shlex.join(["arena", *sys.argv[1:]]).replace("\n", " ")


COMMANDS_GROUP = "arena.commands"  # the entry point group of commands added by other packages


@functools.cache
def added_commands() -> dict[str, EntryPoint]:
    from importlib.metadata import entry_points  # here: only a command not built in needs the scan

    return {entry.name: entry for entry in entry_points(group=COMMANDS_GROUP)}


@click.group(cls=Commands, offers_added=True)
@click.version_option(package_name="arena")
def main() -> None:
    """Referee and tournament runner for hex-board games (hex, groups, bases, hexgo, posies)."""


def say(text: str) -> None:
    """Print a line; once the reader has gone (``arena run | head``) print nothing more but
    keep playing: a tournament's results live in its output folder, not on stdout."""
    try:
        click.echo(text)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
