"""Every command's --help is complete, the synopsis of each command in docs/command-line.md
names the same options as its --help, so the two cannot drift apart, and the README's table
of commands names every command."""

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
COMMAND_LINE_DOC = ROOT / "docs" / "command-line.md"


def synopses() -> dict[str, str]:
    """docs/command-line.md's synopsis of each command: the code span that opens a paragraph of
    its Commands section with ``arena NAME`` (the first, where several do)."""
    section = COMMAND_LINE_DOC.read_text(encoding="utf-8").split("\n## Commands\n")[1].split("\n## ")[0]
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


def test_every_command_has_a_synopsis_in_the_command_line_doc():
    assert sorted(synopses()) == sorted(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_synopsis_names_every_option_of_the_command_and_no_other(name):
    command = COMMANDS[name]
    by_flag = {flag: p.name for p in command.params if isinstance(p, click.Option) for flag in p.opts}
    named = options_named(synopses()[name])
    unknown = [flag for flag in named if flag not in by_flag]
    assert not unknown, f"docs/command-line.md's 'arena {name}' names options the command does not have: {unknown}"
    expected = {p.name for p in command.params if isinstance(p, click.Option)}
    missing = sorted(expected - {by_flag[flag] for flag in named})
    assert not missing, f"docs/command-line.md's 'arena {name}' synopsis leaves out: {missing}"


def test_the_readme_table_of_commands_names_every_command():
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Commands\n")[1].split("\n## ")[0]
    rows = [line for line in section.splitlines() if line.startswith("| `arena ")]
    named = {name for row in rows for name in COMMANDS if f"| `arena {name} " in row or f"| `arena {name}`" in row}
    assert named == set(COMMANDS)


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

    import arena.cli.group

    broken = EntryPoint(name="broken", value="no_such_module:command", group="arena.commands")
    monkeypatch.setattr(arena.cli.group, "added_commands", lambda: {"broken": broken})
    done = CliRunner().invoke(main, ["broken"])
    assert done.exit_code == 2
    assert done.output == (
        "arena: broken: cannot load no_such_module:command (No module named 'no_such_module'); "
        "reinstall arena: pip install -e .\n"
    )


def test_arena_help_lists_the_commands_by_use_each_with_a_whole_summary_on_one_line():
    shown = CliRunner().invoke(main, ["--help"], terminal_width=80).output
    listed = shown.split("Commands:\n")[1].splitlines()
    assert [line.split()[0] for line in listed] == [
        "run", "results", "report", "ratings", "serve", "play", "check-engine", "verify", "export", "openings", "ladder", "bench",
    ]  # fmt: skip
    for line in listed:  # no continuation line, no summary cut short by click's "..."
        name, summary = line.split(maxsplit=1)
        assert line.startswith("  ") and len(line) <= 80 and not summary.endswith("...")
        assert summary == main.get_command(click.Context(main), name).get_short_help_str(limit=1000)


def test_run_help_ends_with_an_example_from_a_file_and_one_from_flags():
    shown = CliRunner().invoke(main, ["run", "--help"], terminal_width=80).output
    examples = shown.rstrip("\n").split("\n  Examples:\n")[1].splitlines()
    commands = [line.strip() for line in examples if line.strip().startswith("arena run")]
    assert commands == ["arena run tournaments/hex9.toml --workers 2", commands[1]]
    assert commands[1].startswith("arena run --game hex") and commands[1].endswith("\\")  # kept on its lines
    assert examples[-1].strip() == "--rounds 200 --sprt elo0=0 elo1=5 --out out/new-vs-old"
    assert all(len(line) <= 80 for line in shown.splitlines())
    flags = {flag for p in COMMANDS["run"].params if isinstance(p, click.Option) for flag in p.opts}
    named = options_named(re.sub(r'"[^"]*"', "", " ".join(examples)))  # not the engines' own, in quotes
    assert set(named) <= flags  # the examples use run's own flags
