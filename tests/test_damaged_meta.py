"""A damaged settings or drop list in arena.db is named with the way out, never a traceback."""

import sqlite3

import pytest
from click.testing import CliRunner
from helpers import ZOO, engine_toml, run_arena, write_tournament

from arena.cli import main


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("meta")
    path = write_tournament(tmp, engine_toml("a", "{python}", ZOO, "good") + engine_toml("b", "{python}", ZOO, "good"))
    assert run_arena("run", path, "--out", tmp / "out", "-q").returncode == 0
    return path, tmp / "out"


@pytest.mark.slow
@pytest.mark.parametrize(
    "command,key",
    [
        ("results", "settings"),
        ("results", "dropped"),
        ("run", "settings"),
        ("run", "dropped"),
        ("report", "settings"),
        ("report", "dropped"),  # the site shows the summary `arena results` prints, drops included
    ],
)
def test_a_damaged_meta_value_gives_one_line(played, tmp_path, key, command):
    path, out = played
    folder = tmp_path / "copy"
    folder.mkdir()
    (folder / "arena.db").write_bytes((out / "arena.db").read_bytes())
    db = sqlite3.connect(folder / "arena.db")
    with db:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, 'garbage')", (key,))
    db.close()
    if command == "run":  # the resume, as a process
        proc = run_arena("run", path, "--out", folder, "-q")
        code, said = proc.returncode, proc.stderr
    else:  # results and report only read the folder: in process (a process costs a second of CPU)
        result = CliRunner().invoke(main, [command, str(folder)])
        code, said = result.exit_code, result.output
    assert code == 2 and "Traceback" not in said, said
    assert f"stored '{key}' is damaged" in said
