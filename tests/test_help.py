"""Every command's --help is complete, and the README's synopsis of each command names the
same options as its --help, so the two cannot drift apart."""

from __future__ import annotations

import re
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner
from helpers import ROOT, run_arena

from arena.cli import main


def leaf_commands(group: click.Group = main, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, click.Command]]:
    """Every command as `arena --help` lists it: those other packages add (``arena bench``) too."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            yield from leaf_commands(command, (*prefix, name))
        else:
            yield " ".join((*prefix, name)), command


COMMANDS = dict(leaf_commands())


def synopses() -> dict[str, str]:
    """The README's synopsis of each command: the code span that opens a paragraph of its
    Commands section with ``arena NAME`` (the first, where several do)."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Commands\n")[1].split("\n## ")[0]
    found: dict[str, str] = {}
    for paragraph in section.split("\n\n"):
        if (span := re.match(r"`(arena [^`]+)`", paragraph.strip())) is None:
            continue
        words = " ".join(span[1].split())
        name = next((n for n in sorted(COMMANDS, key=len, reverse=True) if words.startswith(f"arena {n} ")), None)
        if name is not None:
            found.setdefault(name, words)
    return found


def options_named(text: str) -> list[str]:
    return re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text)


def test_every_command_has_a_synopsis_in_the_readme():
    assert sorted(synopses()) == sorted(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_readme_synopsis_names_every_option_of_the_command_and_no_other(name):
    command = COMMANDS[name]
    by_flag = {flag: p.name for p in command.params if isinstance(p, click.Option) for flag in p.opts}
    named = options_named(synopses()[name])
    unknown = [flag for flag in named if flag not in by_flag]
    assert not unknown, f"the README's 'arena {name}' names options the command does not have: {unknown}"
    expected = {p.name for p in command.params if isinstance(p, click.Option)}
    missing = sorted(expected - {by_flag[flag] for flag in named})
    assert not missing, f"the README's 'arena {name}' synopsis leaves out: {missing}"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_and_command_has_help_text(name):
    command = COMMANDS[name]
    assert command.help and command.help.strip()
    bare = [p.opts[0] for p in command.params if isinstance(p, click.Option) and not (p.help or "").strip()]
    assert not bare, f"arena {name}: options without help: {bare}"
    shown = CliRunner().invoke(main, [*name.split(), "--help"])
    assert shown.exit_code == 0
    for flag in (p.opts[-1] for p in command.params if isinstance(p, click.Option)):
        assert flag in shown.output


def test_run_says_it_plays_round_robins_gauntlets_and_sprts():
    shown = CliRunner().invoke(main, ["run", "--help"]).output
    assert "round-robin" in shown and "gauntlet" in shown and "SPRT" in shown


def test_the_bench_command_comes_from_its_entry_point_not_from_the_product():
    from importlib.metadata import entry_points

    (entry,) = entry_points(group="arena.commands", name="bench")
    assert entry.value == "arena_bench.command:bench"
    assert "bench" not in main.commands  # the product declares no such command
    assert COMMANDS["bench"].callback.__module__ == "arena_bench.command"
    shown = run_arena("bench", "--help")
    assert shown.returncode == 0 and "--section" in shown.stdout, shown.stderr


def test_an_added_command_that_cannot_load_is_one_line(monkeypatch):
    from importlib.metadata import EntryPoint

    import arena.cli

    broken = EntryPoint(name="broken", value="no_such_module:command", group="arena.commands")
    monkeypatch.setattr(arena.cli, "_added_commands", lambda: {"broken": broken})
    done = CliRunner().invoke(main, ["broken"])
    assert done.exit_code == 2
    assert done.output == (
        "arena: broken: cannot load no_such_module:command (No module named 'no_such_module'); "
        "reinstall arena: pip install -e .\n"
    )
