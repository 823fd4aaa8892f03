"""The KEY=VALUE items of the command line: flags followed by several items, as fastchess and
cutechess-cli take them (``--engine name=new cmd=./new``), and game options (``-O size=9``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import click

from .group import Command, Failure

if TYPE_CHECKING:  # the rules load pydantic, which the command line loads only once a command needs it
    from ..rules.base import OptionValue


class ItemsCommand(Command):
    """Flags followed by several KEY=VALUE items, as fastchess and cutechess-cli take them
    (``--engine name=new cmd=./new``): the items up to the next flag are handed to the flag
    as one value."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, group_items(args))


ITEM_FLAGS = ("--engine", "--each", "--sprt", "--openings", "--gauntlet", "--adjudicate")


def group_items(args: list[str]) -> list[str]:
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


def item_groups(values: tuple[str, ...]) -> list[list[str]]:
    """Each occurrence of an item flag's items (see group_items)."""
    import json

    groups = []
    for value in values:
        try:
            items = json.loads(value)
        except ValueError:
            items = [value]  # --engine=cmd=./x: one item
        groups.append([str(item) for item in items] if isinstance(items, list) else [value])
    return groups


def parse_options(pairs: tuple[str, ...]) -> dict[str, OptionValue]:
    options: dict[str, OptionValue] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise Failure(f"--option {pair!r}: write KEY=VALUE, e.g. --option size=9")
        options[key] = _option_value(value)
    return options


def _option_value(text: str) -> OptionValue:
    """A command-line game option typed as a tournament file would type it: ASCII digits are
    an integer, true/false a boolean, anything else text (so size=5.0 is refused, not 5)."""
    if re.fullmatch(r"-?[0-9]{1,20}", text):  # longer: no option takes it, and int() of 4,300+ digits raises
        return int(text)
    return {"true": True, "false": False}.get(text, text)
