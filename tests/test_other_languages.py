"""Engines in C and JavaScript written from PROTOCOL.md alone, built from source here with
the machine's gcc and node: they pass `arena check-engine` and play tournaments of Hex with
the swap and of Groups; a Node.js crash's reason shows the error, not just Node's version."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.helpers import ROOT, engine_toml, run_arena, write_tournament

ENGINES = ROOT / "tests" / "engines"
NODE = shutil.which("node")
CC = shutil.which("gcc") or shutil.which("cc")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler")


@pytest.fixture(scope="module")
def c_engine(tmp_path_factory) -> str:
    if CC is None:
        pytest.skip("no C compiler")
    binary = tmp_path_factory.mktemp("c") / "c_engine"
    subprocess.run([CC, "-O2", "-Wall", "-Werror", "-o", str(binary), str(ENGINES / "c_engine.c")], check=True)
    return str(binary)


@pytest.mark.slow
@needs_cc
def test_c_engine_passes_check_engine(c_engine):
    result = run_arena("check-engine", c_engine)
    assert result.returncode == 0, result.stdout
    assert "checking hex, groups" in result.stdout  # from its 'id games' line


@pytest.mark.slow
@needs_node
def test_node_engine_passes_check_engine():
    result = run_arena("check-engine", NODE, str(ENGINES / "node_engine.js"))
    assert result.returncode == 0, result.stdout
    assert "checking hex, groups" in result.stdout


@pytest.mark.slow
@needs_node
@needs_cc
@pytest.mark.parametrize("game, options", [("hex", "size = 7\nswap = true"), ("groups", "size = 4")])
def test_tournament_of_c_node_and_python_engines(tmp_path, c_engine, game, options):
    engines = (
        engine_toml("c", c_engine, extra="options = { seed_offset = 7 }")
        + engine_toml("node", NODE, str(ENGINES / "node_engine.js"))
        + engine_toml("python", "{python}", "-m", "engines.random_engine", extra=f'cwd = "{ROOT}"')
    )
    path = write_tournament(tmp_path, engines, game=game, options=options, rounds=2, seed=3)
    out = tmp_path / "out"
    result = run_arena("run", path, "--out", out, "-q")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 12 and all(r["termination"] == "normal" for r in records), [r["reason"] for r in records]
    if game == "hex":  # both swap as Blue when Red opens in the centre: the swap was exercised
        assert any(r["moves"][1] == "swap" and r["players"][1] in ("c", "node") for r in records)
    assert run_arena("verify", out / "games.jsonl").returncode == 0


@pytest.mark.slow
@needs_node
def test_a_node_crash_shows_the_error_and_where_the_rest_is(tmp_path):
    engines = engine_toml(
        "node", NODE, str(ENGINES / "node_engine.js"), "--crash-at", "2", extra="max_failures = 0"
    ) + engine_toml("python", "{python}", "-m", "engines.random_engine", extra=f'cwd = "{ROOT}"')
    path = write_tournament(tmp_path, engines, options="size = 5\nswap = false", rounds=1)
    out = tmp_path / "out"
    assert run_arena("run", path, "--out", out, "-q").returncode == 0
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    for r in records:
        assert r["termination"] == "crash"
        assert "Error: no legal move found at go 2" in r["reason"], r["reason"]
        assert f"(all of it: {out / 'arena.log'})" in r["reason"]
    assert "node_engine.js" in (out / "arena.log").read_text()  # the whole stack is in the log


def guide_block(language: str) -> str:
    text = (ROOT / "docs" / "writing-an-engine.md").read_text()
    start = text.index(f"```{language}\n") + len(language) + 4
    return text[start : text.index("```", start)]


@pytest.mark.slow
@needs_node
def test_the_guides_examples_pass_check_engine(tmp_path):
    (tmp_path / "jsbot.js").write_text(guide_block("javascript"))
    (tmp_path / "mybot.py").write_text(guide_block("python"))
    for command in ([NODE, str(tmp_path / "jsbot.js")], [sys.executable, str(tmp_path / "mybot.py")]):
        result = run_arena("check-engine", *command)
        assert result.returncode == 0, result.stdout
