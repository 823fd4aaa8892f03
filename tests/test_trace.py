"""Transcripts (`--trace`) and what a crashed engine's reason says about its stderr."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from arena.engine import EngineSpec, open_engine
from arena.match import TimeControl, play_game
from arena.rules import make_game
from tests.helpers import ROOT, ZOO, engine_toml, run_arena, write_tournament

PY = sys.executable
RANDOM = f"{PY} -m engines.random_engine"
LINE = re.compile(r" *\d+\.\d{6} (\d) (\S+) ([<>!]) (.*)")

# What Node.js prints for an uncaught exception: the error is above the frames and the
# version line, so "the last stderr line" alone says nothing.
NODE_LIKE_CRASH = """\
import sys
for line in sys.stdin:
    if line.startswith("arena"):
        print("id name nodeish\\narenaok 1", flush=True)
    elif line.startswith("isready"):
        print("readyok", flush=True)
    elif line.startswith("go"):
        sys.stderr.write('''/home/me/bot.js:42
    throw new Error("no legal move found");
    ^

Error: no legal move found
    at choose (/home/me/bot.js:42:11)
    at Interface.<anonymous> (/home/me/bot.js:80:5)
    at Interface.emit (node:events:519:28)

Node.js v20.20.2
''')
        sys.exit(1)
"""


def parse(path: Path) -> list[tuple[str, str, str, str]]:
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# arena trace: ")
    return [LINE.fullmatch(ln).groups() for ln in lines if not ln.startswith("#")]


@pytest.mark.slow
def test_play_trace_has_both_directions_stderr_and_the_crash_points_to_it(tmp_path):
    traces = tmp_path / "traces"
    proc = run_arena(
        "play",
        "-g",
        "hex",
        "-O",
        "size=5",
        "-O",
        "swap=false",
        "--seed",
        "5",
        "--trace-dir",
        traces,
        "--name",
        "zoo",
        "--name",
        "rnd",
        f"{PY} {ZOO} crash 2",
        RANDOM,
    )
    assert proc.returncode == 0, proc.stderr
    path = Path(re.search(r"^trace: (.*)$", proc.stdout, re.M).group(1))
    assert path.parent == traces and path.exists()
    entries = parse(path)
    stamps = [float(ln.split()[0]) for ln in path.read_text().splitlines() if not ln.startswith("#")]
    assert stamps == sorted(stamps)
    assert ("0", "zoo", ">", "arena 1") in entries  # the start-up is in the game's transcript
    assert ("0", "zoo", "<", "arenaok 1") in entries
    assert ("1", "rnd", ">", "newgame hex 1 2 size=5 swap=false") in entries
    assert ("0", "zoo", "!", "zoo: giving up") in entries
    assert any(e[:3] == ("1", "rnd", "<") and e[3].startswith("move ") for e in entries)
    record = json.loads(proc.stdout.split("\ntrace:")[0].splitlines()[-1])
    assert f"last stderr line: 'zoo: giving up' (all of it: {path})" in record["reason"]


def test_a_crash_reason_quotes_the_error_above_the_stack_frames(tmp_path):
    script = tmp_path / "nodeish.py"
    script.write_text(NODE_LIKE_CRASH)
    engines = [
        open_engine(EngineSpec("nodeish", (PY, str(script)))),
        open_engine(EngineSpec("random", (PY, "-m", "engines.random_engine"), cwd=str(ROOT))),
    ]
    for e in engines:
        e.start()
    record = play_game(
        make_game("hex", {"size": 4}), engines, seed=1, time_control=TimeControl(movetime_ms=2000)
    ).record
    for e in engines:
        e.quit()
    assert record["termination"] == "crash"
    assert (
        "last stderr lines: 'throw new Error(\"no legal move found\");' | "
        "'Error: no legal move found' | 'Node.js v20.20.2'"
    ) in record["reason"]


@pytest.mark.slow
def test_run_trace_writes_one_transcript_per_game(tmp_path):
    engines = engine_toml("zoo", "{python}", ZOO, "crash", "3", extra="max_failures = 0") + engine_toml(
        "random", "{python}", "-m", "engines.random_engine", extra=f'cwd = "{ROOT}"'
    )
    path = write_tournament(tmp_path, engines, options="size = 5\nswap = false", rounds=1)
    out = tmp_path / "out"
    proc = run_arena("run", path, "--out", out, "--trace")
    assert proc.returncode == 0, proc.stderr
    files = sorted((out / "traces").iterdir())
    assert [f.name for f in files] == ["game-0.txt", "game-1.txt"]
    assert f"trace: {out / 'traces' / 'game-0.txt'}" in proc.stdout
    for f in files:
        entries = parse(f)
        assert any(e[2] == "!" and e[3] == "zoo: giving up" for e in entries)
        assert any(e[1] == "random" and e[2] == ">" and e[3].startswith("go ") for e in entries)
    records = [json.loads(ln) for ln in (out / "games.jsonl").read_text().splitlines()]
    assert all(f"(all of it: {out / 'arena.log'})" in r["reason"] for r in records)


@pytest.mark.slow
def test_play_trace_is_a_flag_before_the_commands_as_the_guide_writes_it(tmp_path):
    proc = run_arena(
        "play",
        "-g",
        "hex",
        "-O",
        "size=4",
        "--games",
        "2",
        "--trace",
        "--name",
        "one",
        "--name",
        "two",
        RANDOM,
        RANDOM,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    seed = re.search(r"^seed: (\d+)", proc.stdout, re.M).group(1)
    written = sorted(p.name for p in (tmp_path / "traces").iterdir())
    assert written == [f"game-{seed}-1.txt", f"game-{seed}-2.txt"]
    assert " one > arena 1" in (tmp_path / "traces" / written[0]).read_text()


PEEKER = """\
import glob, os, sys, time
from engines.random_engine import RandomEngine
from protocol.sdk import run


class Peek(RandomEngine):
    def choose_move(self, state, clock):
        sys.stderr.write(("e" * 1023 + "\\n") * 12)  # past the transcript's buffer: it reaches the disk
        sys.stderr.flush()
        time.sleep(0.3)
        with open(os.environ["PEEK_OUT"], "a") as out:
            for path in glob.glob(os.path.join(os.environ["PEEK_DIR"], "*.txt")):
                out.write(open(path).read())
        return super().choose_move(state, clock)


run(Peek())
"""


@pytest.mark.slow
def test_a_trace_on_disk_holds_hidden_posies_back_until_the_game_is_over(tmp_path):
    """An engine that reads the live transcript finds no 'private' line in it; the
    transcript shows them at its end once the game is over."""
    script, traces, peeked = tmp_path / "peek.py", tmp_path / "traces", tmp_path / "peeked.txt"
    script.write_text(PEEKER)
    env = {**os.environ, "PEEK_DIR": str(traces), "PEEK_OUT": str(peeked), "PYTHONPATH": str(ROOT)}
    proc = run_arena(
        "play",
        "-g",
        "posies",
        "-O",
        "players=2",
        "-O",
        "variant=2",
        "--trace-dir",
        traces,
        f"{PY} {script}",
        RANDOM,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    seen = peeked.read_text()
    assert "> private (held back until the game is over; see the end)" in seen
    assert not re.search(r"> private (?!\(held back)", seen)
    [trace] = traces.iterdir()
    final = trace.read_text().split("# hidden information, held back while the game ran:\n")
    assert len(final) == 2 and re.search(r"^ *[\d.]+ 0 \S+ > private \w", final[1], re.M)
    assert re.search(r"^ *[\d.]+ 1 \S+ > private \w", final[1], re.M)
