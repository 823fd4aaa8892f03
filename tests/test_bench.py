"""`arena bench --quick` through the real CLI: every section prints figures.

No timing assertions: the figures depend on the machine; this proves the
benchmark runs end to end (instant engine build, tournaments in child
processes, ping-pong, clock, targets) and reports what it measured.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import strict_json

ROOT = Path(__file__).resolve().parent.parent
NUMBER = re.compile(r"\d[\d,]*(\.\d+)?")


@pytest.mark.slow
@pytest.mark.timeout(180)  # every section, Chromium included, on a machine that may be shared
def test_quick_bench_prints_every_section_with_numbers(tmp_path):
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, "-m", "arena", "bench", "--quick", "--json", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    text = done.stdout
    sections = [
        "1. Referee speed",
        "2. Manager overhead",
        "3. Parallel scaling",
        "4. Memory",
        "5. Clock accuracy",
        "6. Report site",
        "7. Bundled search engine",
        "8. Live progress",
        "Targets",
    ]
    positions = [text.index(title) for title in sections]
    assert positions == sorted(positions)
    for title, start, end in zip(sections, positions, positions[1:] + [len(text)]):
        body = text[start:end]
        assert NUMBER.search(body.split("\n", 1)[1]), f"no figures under {title!r}"
    for game in ("hex", "groups", "bases", "posies"):
        assert re.search(rf"^{game}\s+\S.*\d", text, re.M), f"no referee row for {game}"
    assert "pipe round trip" in text and "raw ping-pong" in text
    data = strict_json(out.read_text(), out)  # no NaN or Infinity: a figure without a value is null
    assert data["manager"]["free"]["cpu"] > 0 and data["manager"]["free"]["wall"] > 0
    assert [row["workers"] for row in data["scaling"]][0] == 1
    assert data["memory_mib"]["coordinator"] > 0
    assert data["clock"]["moves"] > 0
    assert data["site"]["build_s"] > 0 and data["site"]["load_ms"]["index.html"] > 0
    speeds = {row["game"]: row["iterations_per_s"] for row in data["engines"]["search"]}
    assert sorted(speeds) == ["bases", "groups", "hex", "hexgo", "posies"] and min(speeds.values()) > 0
    assert data["engines"]["clock_mode"]["charged_ms"]
    assert {t["status"] for t in data["targets"]} <= {"met", "MISSED", "n/a"}


@pytest.mark.slow
def test_python_instant_engine_plays_a_legal_game():
    """The stand-in used when gcc is missing speaks the protocol and plays legal Hex."""
    engine = f"{sys.executable} {ROOT / 'benchmarks' / 'instant_engine.py'}"
    done = subprocess.run(
        [sys.executable, "-m", "arena", "play", "--game", "hex", "-O", "size=5", engine, engine],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert record["termination"] == "normal" and record["winner"] in (0, 1)


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_the_cluster_scaling_benchmark_runs_end_to_end():
    """benchmarks/cluster_scaling.py --quick: every part prints its figures (a benchmark that
    breaks when the runner's interfaces change is caught here, not by its next user)."""
    pytest.importorskip("distributed")
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "cluster_scaling.py"), "--quick"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=170,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "one coordinator's ceiling" in done.stdout and "storing alone" in done.stdout
    assert NUMBER.search(done.stdout.split("dispatch + store + rate")[1])
