"""A results folder written by an earlier arena (tests/data/legacy-hex5: a hex 5x5 round robin
of two good engines and one that crashes and is dropped) still resumes and verifies: the
stored records keep their exact text, and games.jsonl its lines."""

import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, ZOO, run_arena

from arena.cli import main

DATA = ROOT / "tests" / "data" / "legacy-hex5"
# Where the folder was made: its stored settings hold these paths, which differ on every machine.
MADE_WITH = {
    "/work/main/.venv/bin/python3": sys.executable,
    "/work/main/tests/engines/zoo_engine.py": ZOO,
}
MADE_IN = "/tmp/record_legacy"


def stored(out: Path) -> dict[int, str]:
    db = sqlite3.connect(out / "arena.db")
    try:
        return dict(db.execute("SELECT id, record FROM games"))
    finally:
        db.close()


def moved_here(tmp_path: Path) -> tuple[Path, Path]:
    """The folder and its tournament file (rounds raised to 2) as if made in ``tmp_path``."""
    out = tmp_path / "out"
    out.mkdir()
    for name in ("arena.db", "games.jsonl", "results.json"):
        shutil.copy(DATA / name, out / name)
    toml = (DATA / "tournament.toml.in").read_text().replace("{zoo}", ZOO).replace("rounds = 1", "rounds = 2")
    (tmp_path / "t.toml").write_text(toml)
    db = sqlite3.connect(out / "arena.db")
    with db:
        [(text,)] = db.execute("SELECT value FROM meta WHERE key = 'settings'")
        settings = json.loads(text)
        for engine in settings["engines"]:
            engine["command"] = [MADE_WITH.get(part, part) for part in engine["command"]]
            engine["cwd"] = engine["cwd"].replace(MADE_IN, str(tmp_path))
        db.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (json.dumps(settings, sort_keys=True),))
    db.close()
    return tmp_path / "t.toml", out


@pytest.mark.slow
def test_a_folder_written_before_resumes_with_more_rounds_and_verifies(tmp_path):
    path, out = moved_here(tmp_path)
    before = stored(out)
    lines_before = (DATA / "games.jsonl").read_text().splitlines()
    assert sorted(before) == list(range(6))
    proc = run_arena("run", path, "--out", out, "-q", timeout=120)
    assert proc.returncode == 1, proc.stderr  # finished with the folder's crashy engine dropped
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "6 games played, 6 resumed" in proc.stdout
    after = stored(out)
    assert sorted(after) == list(range(12))
    assert {k: after[k] for k in before} == before  # the old records, to the byte
    lines = (out / "games.jsonl").read_text().splitlines()
    assert lines[:6] == lines_before and len(lines) == 12
    assert [json.loads(line)["id"] for line in lines] == list(range(12))
    shape = {r["termination"]: list(r) for r in map(json.loads, before.values())}
    for record in map(json.loads, (after[k] for k in range(6, 12))):  # the same keys in the same order
        assert list(record) == shape[record["termination"]]
    assert json.loads((out / "results.json").read_text())["games"] == 12
    # `arena verify` only reads the file: in process (click's CliRunner); the resume is a process
    verified = CliRunner().invoke(main, ["verify", str(out / "games.jsonl")])
    assert verified.exit_code == 0, verified.output
    verdicts = [json.loads(line) for line in verified.stdout.splitlines()]
    assert len(verdicts) == 12 and all(v["ok"] for v in verdicts)
    old_verdicts = CliRunner().invoke(main, ["verify", str(DATA / "games.jsonl")])
    assert old_verdicts.exit_code == 0 and all(json.loads(v)["ok"] for v in old_verdicts.stdout.splitlines())
