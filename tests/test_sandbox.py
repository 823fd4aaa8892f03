"""The sandbox for untrusted engines (docs/sandbox.md): hostile engines, real processes in a
real bubblewrap sandbox, each trying one thing it must not do while it plays legal moves;
every attempt checked from outside (the server, the files, the worker and the opponent), and
the same engines unsandboxed showing the harmless attempts succeed, so the checks can fail."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from contextlib import closing
from pathlib import Path

import pytest

from arena.engine.player import EngineSpec, Sandbox
from arena.engine.sandbox import bwrap_argv, sandbox_problem, with_others_hidden
from tests.helpers import ROOT, ZOO, engine_toml, run_arena, write_tournament

INTRUDER = str(ROOT / "tests" / "engines" / "intruder_engine.py")
RANDOM = str(ROOT / "engines" / "random_engine.py")
GTP = str(ROOT / "tests" / "engines" / "gtp_hex_engine.py")
SECRET = "ARENA_TEST_SECRET"

needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}")


class Listener:
    """A TCP server on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.server.close()


def intruders(attacks: dict[str, str], sandboxed: bool, extra: dict[str, str] | None = None) -> str:
    """A gauntlet's engines: the random engine (the candidate) and one intruder per attack."""
    text = engine_toml("random", "{python}", RANDOM)
    for name, attack in attacks.items():
        keys = "sandbox = true\n" if sandboxed else ""
        text += engine_toml(name, "{python}", INTRUDER, attack, extra=keys + (extra or {}).get(name, ""))
    return text


def gauntlet(tmp_path: Path, engines: str) -> Path:
    return write_tournament(
        tmp_path,
        engines,
        workers=2,
        time_control="movetime_ms = 5000",
        extra='format = "gauntlet"\ncandidates = ["random"]\nout = "out"',
    )


def stderr_lines(out: Path) -> dict[str, list[str]]:
    """Each intruder's report of its attempt, from the game transcripts."""
    said: dict[str, list[str]] = {}
    for trace in sorted((out / "traces").iterdir()):
        for line in trace.read_text().splitlines():
            words = line.split(maxsplit=4)
            if len(words) == 5 and words[3] == "!" and words[4].startswith("intruder "):
                said.setdefault(words[2], []).append(words[4])
    return said


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


@needs_sandbox
@pytest.mark.slow
@pytest.mark.timeout(300)  # a dozen engines started under a loaded machine
def test_hostile_engines_fail_in_the_sandbox_and_the_tournament_completes(tmp_path, monkeypatch):
    monkeypatch.setenv(SECRET, "the-secret-value")
    listener = Listener()
    out = tmp_path / "out"
    host_tmp = Path("/tmp") / f"arena-intruder-{uuid.uuid4().hex}"
    home_file = Path.home() / f".arena-sandbox-test-{uuid.uuid4().hex}"
    home_file.write_text("a secret in the home folder")
    attacks = {
        "reader": f"read:{RANDOM}",
        "homereader": f"read:{home_file}",
        "results": f"write:{out / 'planted.txt'}",
        "database": f"append:{out / 'arena.db'}",
        "folder": f"write:{tmp_path / 'planted.txt'}",
        "hosttmp": f"write:{host_tmp}",
        "network": f"connect:{listener.port}",
        "killer": "kill",
        "tracer": "ptrace:random_engine.py",
        "forker": "fork:10000",
        "hog": "memory:600",
        "filler": "scratch:200",
        "env": "env",
    }
    extra = {"hog": "memory_mb = 100", "env": 'env = { LISTED = "given-to-it" }'}
    burner = engine_toml(
        "burner",
        "{python}",
        ZOO,
        "cpu",
        extra="sandbox = true\ncpu_seconds = 1\ntime_control = { movetime_ms = 120000 }",
    )
    path = gauntlet(tmp_path, intruders(attacks, sandboxed=True, extra=extra) + burner)
    try:
        done = run_arena("run", path, "--trace", cwd=tmp_path, timeout=600)
    finally:
        listener.close()
        home_file.unlink()
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 1: an engine dropped is fine
    assert "finished" in done.stdout, done.stdout + done.stderr
    # Every game recorded (two per engine but the candidate), the opponent never crashed, and
    # the records verify.
    games = records(out)
    assert len(games) == 2 * (len(attacks) + 1)
    assert run_arena("verify", out / "games.jsonl").returncode == 0
    for game in games:
        if game.get("forfeit_seat") is not None:
            assert game["players"][game["forfeit_seat"]] != "random", game
    with closing(sqlite3.connect(f"file:{out / 'arena.db'}?mode=ro", uri=True)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == len(games)
    # Nothing came through: no connection, no file, no secret.
    assert listener.accepted == 0
    assert not (out / "planted.txt").exists()
    assert not (tmp_path / "planted.txt").exists()
    assert not host_tmp.exists()
    said = stderr_lines(out)
    tried = said["reader"] + said["homereader"] + said["results"] + said["database"] + said["folder"] + said["network"]
    assert len(tried) == 12 and all("failed" in line for line in tried), tried
    assert all("attached to []" in line for line in said["tracer"])
    assert all("the-secret-value" not in line and "LISTED=given-to-it" in line for line in said["env"])
    assert all("HOME=/scratch" in line for line in said["env"])
    # The limits stopped the rest, each its engine's loss with its reason recorded.
    reasons = {name: [g.get("reason") or "" for g in games if name in g["players"]] for name in attacks}
    assert all("process limit" in r for r in reasons["forker"]), reasons["forker"]
    assert all("memory limit (100 MB)" in r for r in reasons["hog"]), reasons["hog"]
    assert all("scratch" in r for r in reasons["filler"]), reasons["filler"]
    assert all("SIGXCPU" in g["reason"] for g in games if "burner" in g["players"])  # cpu_seconds holds too
    for name in ("forker", "hog", "filler", "burner"):
        assert all(g["players"][g["forfeit_seat"]] == name for g in games if name in g["players"])


@needs_sandbox
@pytest.mark.slow
@pytest.mark.timeout(300)  # a dozen engines started under a loaded machine
def test_the_same_engines_unsandboxed_succeed_so_the_checks_can_fail(tmp_path, monkeypatch):
    monkeypatch.setenv(SECRET, "the-secret-value")
    listener = Listener()
    out = tmp_path / "out"
    host_tmp = Path("/tmp") / f"arena-intruder-{uuid.uuid4().hex}"
    home_file = Path.home() / f".arena-sandbox-test-{uuid.uuid4().hex}"
    home_file.write_text("a secret in the home folder")
    attacks = {
        "reader": f"read:{RANDOM}",
        "homereader": f"read:{home_file}",
        "results": f"write:{out / 'planted.txt'}",
        "folder": f"write:{tmp_path / 'planted.txt'}",
        "hosttmp": f"write:{host_tmp}",
        "network": f"connect:{listener.port}",
        "env": "env",
    }
    path = gauntlet(tmp_path, intruders(attacks, sandboxed=False))
    try:
        done = run_arena("run", path, "--trace", cwd=tmp_path, timeout=600)
    finally:
        listener.close()
        home_file.unlink()
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        assert listener.accepted > 0
        assert (out / "planted.txt").exists() and (tmp_path / "planted.txt").exists() and host_tmp.exists()
        said = stderr_lines(out)
        assert any("Plays a uniformly random" in line for line in said["reader"])
        assert any("a secret in the home folder" in line for line in said["homereader"])
        assert any("the-secret-value" in line for line in said["env"])
    finally:
        host_tmp.unlink(missing_ok=True)


def test_the_command_line_masks_what_the_engine_must_not_see(tmp_path):
    engine = tmp_path / "mine"
    (engine / "sub").mkdir(parents=True)
    results = engine / "sub"
    other = tmp_path / "theirs.py"
    other.write_text("secret")
    argv = bwrap_argv(
        ["/usr/bin/true"],
        str(engine),
        {"PATH": "/usr/bin", "LISTED": "1"},
        Sandbox(hidden=(str(results), str(other), "/nowhere/else")),
        readable=[str(tmp_path)],
        home=str(tmp_path),
    )
    text = " ".join(argv)
    assert argv[:5] == ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]
    assert "--setenv LISTED 1" in text and argv[-2:] == ["--", "/usr/bin/true"]
    # The home folder is masked before the folders inside it are shown through the mask...
    assert text.index(f"--tmpfs {tmp_path} ") < text.index(f"--ro-bind {engine} {engine}")
    # ...and what it must not see is masked last, over whatever showed it.
    assert text.index(f"--tmpfs {results}") > text.index(f"--ro-bind {engine} {engine}")
    assert f"--ro-bind /dev/null {other}" in text
    assert "/nowhere/else" not in text  # never shown: nothing to mask
    assert "--size" in text and "--tmpfs /scratch" in text


def test_each_sandboxed_engine_hides_the_others_programs_but_not_what_it_shares(tmp_path):
    mine, theirs = tmp_path / "a.py", tmp_path / "b.py"
    mine.write_text(""), theirs.write_text("")
    specs = [
        EngineSpec("a", (sys.executable, str(mine)), str(tmp_path), sandbox=Sandbox()),
        EngineSpec("b", (sys.executable, str(theirs)), str(tmp_path)),
    ]
    a, b = with_others_hidden(specs)
    assert a.sandbox is not None and str(theirs) in a.sandbox.hidden
    assert str(tmp_path) not in a.sandbox.hidden and sys.executable not in a.sandbox.hidden  # shared
    assert b.sandbox is None  # not sandboxed: runs as it is


def fake_path(tmp_path: Path, bwrap: str | None) -> dict[str, str]:
    """An environment whose PATH holds only a fake ``bwrap`` (or none)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if bwrap is not None:
        (bin_dir / "bwrap").write_text(bwrap)
        (bin_dir / "bwrap").chmod(0o755)
    return {**os.environ, "PATH": str(bin_dir)}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("bwrap", "said"),
    [
        (None, "bubblewrap (bwrap) is not installed or not on PATH; install bubblewrap"),
        (
            "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n",
            "bubblewrap cannot make its namespaces here (bwrap: No permissions to create a new namespace); "
            "allow unprivileged user namespaces",
        ),
    ],
)
def test_a_sandbox_that_cannot_be_made_refuses_the_run_before_its_first_game(tmp_path, bwrap, said):
    path = write_tournament(
        tmp_path,
        engine_toml("a", "{python}", RANDOM, extra="sandbox = true") + engine_toml("b", "{python}", RANDOM),
        extra='out = "out"',
    )
    done = run_arena("run", path, cwd=tmp_path, env=fake_path(tmp_path, bwrap))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert "engine 'a': sandbox = true, but " in lines[0] and said in lines[0]
    assert not (tmp_path / "out" / "games.jsonl").exists()  # never unsandboxed


@needs_sandbox
@pytest.mark.slow
@pytest.mark.timeout(120)
def test_arena_play_runs_engines_of_both_protocols_in_their_sandboxes(tmp_path):
    record, planted = tmp_path / "games.jsonl", tmp_path / "planted.txt"
    proc = run_arena(
        "play", "-g", "hex", "-O", "size=5", "--games", "2", "--record", record,
        "--each", "sandbox=true", "st=5",
        "--engine", "name=gtp", f"cmd={{python}} {GTP}", "proto=gtp",
        "--engine", "name=writer", f"cmd={{python}} {INTRUDER} write:{planted}",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    games = [json.loads(line) for line in record.read_text().splitlines()]
    assert [g["termination"] for g in games] == ["normal", "normal"], games
    assert not planted.exists()  # its folder is read-only to it


@needs_sandbox
@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("protocol,command", [("arena", RANDOM), ("gtp", GTP)])
def test_check_engine_checks_an_engine_in_its_sandbox(protocol, command):
    done = run_arena("check-engine", "--sandbox", "-p", protocol, sys.executable, command)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all checks passed" in done.stdout and "stray" not in done.stderr


def test_the_probe_names_what_is_missing_on_another_system(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    problem = sandbox_problem.__wrapped__()
    assert problem is not None and problem.startswith("the sandbox needs Linux") and "darwin" in problem


def recipe_script() -> str:
    """The class-competition script, as docs/sandbox.md writes it."""
    text = (ROOT / "docs" / "sandbox.md").read_text()
    section = text[text.index("## A class competition") :]
    return section.split("```sh\n", 1)[1].split("```", 1)[0]


@needs_sandbox
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_class_competition_recipe_runs_as_written(tmp_path):
    submissions = tmp_path / "submissions"
    for name in ("alice", "bob", "mallory"):
        (submissions / name).mkdir(parents=True)
    for name in ("alice", "bob"):
        (submissions / name / "bot.py").write_text(Path(RANDOM).read_text())
        (submissions / name / "command").write_text("{python} bot.py\n")
    (submissions / "mallory" / "bot.py").write_text(Path(INTRUDER).read_text())
    (submissions / "mallory" / "command").write_text("{python} bot.py append:../alice/bot.py\n")
    alice = (submissions / "alice" / "bot.py").read_text()
    (tmp_path / "class.sh").write_text(recipe_script())
    site = tmp_path / "www" / "class"
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",  # where `arena` is installed
        "SIZE": "5",
        "ROUNDS": "1",
        "MOVE_SECONDS": "3",
        "SITE": str(site),
    }
    done = subprocess.run(["sh", "class.sh"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout + done.stderr
    out = tmp_path / "results" / "class"
    games = records(out)
    assert len(games) == 6 and all(g["termination"] == "normal" for g in games), games  # 3 engines, both seats
    assert {name for g in games for name in g["players"]} == {"alice", "bob", "mallory"}
    assert run_arena("verify", out / "games.jsonl").returncode == 0
    assert (submissions / "alice" / "bot.py").read_text() == alice  # mallory could not reach it
    assert (site / "index.html").is_file() and "mallory" in (site / "index.html").read_text()


WORKER = """
import sys, time
from arena.engine.player import EngineSpec, Sandbox
from arena.engine.transport import PipeTransport
transport = PipeTransport(EngineSpec("r", (sys.executable, sys.argv[1]), sys.argv[2], sandbox=Sandbox()))
transport.launch()
print(transport.child.tag, flush=True)
time.sleep(60)
"""


@needs_sandbox
def test_a_sandboxed_engine_dies_with_its_worker(tmp_path):
    from arena.engine import proctree

    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, RANDOM, str(tmp_path)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert worker.stdout is not None
    tag = worker.stdout.readline().strip()
    deadline = time.monotonic() + 20
    while len(proctree.tagged_pids(tag)) < 2 and time.monotonic() < deadline:  # bwrap's and the engine's
        time.sleep(0.05)
    assert len(proctree.tagged_pids(tag)) >= 2
    worker.kill()  # -9: nothing of the worker cleans up
    worker.wait()
    while proctree.tagged_pids(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proctree.tagged_pids(tag) == []
