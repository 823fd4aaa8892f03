"""SPRT through `arena run`: real engines, real workers, kill -9 and resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, WIDE, arena_cmd, engine_toml, run_arena, write_tournament

from arena.cli import main

PATHFINDER = str(ROOT / "engines" / "hex_pathfinder.py")
RANDOM = str(ROOT / "engines" / "random_engine.py")


def sprt_file(tmp_path: Path, first: str, second: str, sprt: str, rounds: int, workers: int = 2) -> Path:
    engines = engine_toml("new", "{python}", first) + engine_toml("old", "{python}", second)
    return write_tournament(
        tmp_path,
        engines,
        name="sprt",
        options="size = 5",
        rounds=rounds,
        seed=3,
        workers=workers,
        time_control="movetime_ms = 2000",
        extra=f"[sprt]\n{sprt}\n[openings]\nrandom_plies = 2\n",
    )


def sprt_of(out: Path) -> dict:
    return json.loads((out / "results.json").read_text())["sprt"]


def stored_ids(out: Path) -> list[int]:
    return sorted(json.loads(line)["id"] for line in (out / "games.jsonl").read_text().splitlines())


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_strong_engine_passes_quickly_and_the_run_stops(tmp_path):
    path = sprt_file(tmp_path, PATHFINDER, RANDOM, "elo0 = 0\nelo1 = 10", rounds=1000)
    proc = run_arena("run", path, "--out", tmp_path / "out", "-q", env=WIDE)  # the SPRT's lines unwrapped
    assert proc.returncode == 0, proc.stderr
    s = sprt_of(tmp_path / "out")
    assert s["decision"] == "H1" and s["llr"] >= s["upper_bound"] == 2.9444
    assert s["engine"] == "new" and s["model"] == "normalized"
    assert 10 < s["pairs"] < 200 and sum(s["pentanomial"].values()) == s["pairs"]
    assert s["pentanomial"]["WW"] > 0.9 * s["pairs"] and s["elo"]["los"] > 0.99
    assert len(s["llr_history"]) == s["pairs"] and s["llr_history"][-1] == s["llr"]
    # Beyond the decision, only games handed out before it are played: those running, and
    # those that finished ahead of a slower game of the decisive pairs (the test counts
    # pairs in schedule order). How far ahead a worker gets depends on the machine's load
    # (pool-level: test_after_cancel_queued_only_the_tasks_already_handed_out_finish).
    ids = stored_ids(tmp_path / "out")
    assert ids == list(range(len(ids))) and 2 * s["pairs"] <= len(ids) <= 2 * s["pairs"] + 100  # of 2,000
    assert "H1 accepted" in proc.stdout and f"after {s['pairs']} pairs" in proc.stdout
    # Running again resumes a decided test: nothing more to play, the same verdict.
    again = run_arena("run", path, "--out", tmp_path / "out", "-q")
    assert again.returncode == 0 and " 0 games played" in again.stdout
    assert sprt_of(tmp_path / "out") == s
    # `arena results` and `arena report` only read the folder: in process (click's CliRunner)
    shown = CliRunner().invoke(main, ["results", str(tmp_path / "out"), "--wide"])
    assert shown.exit_code == 0 and "H1 accepted" in shown.stdout and f"after {s['pairs']} pairs" in shown.stdout
    as_json = CliRunner().invoke(main, ["results", str(tmp_path / "out"), "--format", "json"])
    assert json.loads(as_json.stdout)["sprt"] == s
    site = CliRunner().invoke(main, ["report", str(tmp_path / "out"), "-o", str(tmp_path / "site")])
    assert site.exit_code == 0 and (tmp_path / "site" / "plots" / "sprt.svg").exists()


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_kill_and_resume_gives_the_decision_of_an_uninterrupted_run(tmp_path):
    """Random against random: a long test whose decision is known only at its end.
    Uninterrupted with one worker, then with two, killed with -9 and resumed: the same
    decision after the same number of pairs, from the same pentanomial counts."""
    sprt = 'elo0 = 0\nelo1 = 40\nmodel = "logistic"'
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    straight = run_arena(
        "run", sprt_file(tmp_path / "a", RANDOM, RANDOM, sprt, 3000, workers=1), "--out", tmp_path / "a" / "out", "-q"
    )
    assert straight.returncode == 0, straight.stderr
    expected = sprt_of(tmp_path / "a" / "out")
    assert expected["decision"] in ("H0", "H1") and expected["pairs"] > 100

    path, out = sprt_file(tmp_path / "b", RANDOM, RANDOM, sprt, 3000, workers=2), tmp_path / "b" / "out"
    first = subprocess.Popen(
        arena_cmd("run", path, "--out", out, "-q"),
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not ((out / "games.jsonl").exists() and len(stored_ids(out)) >= 40):
        assert time.monotonic() < deadline and first.poll() is None
        time.sleep(0.02)
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    assert not (out / "results.json").exists()  # killed before the test decided
    midway = CliRunner().invoke(main, ["results", str(out), "--format", "json"])  # the folder alone: the test so far
    assert midway.exit_code == 0, midway.output
    so_far = json.loads(midway.stdout)["sprt"]
    ids, leading = set(stored_ids(out)), 0
    while {2 * leading, 2 * leading + 1} <= ids:
        leading += 1
    assert so_far["decision"] == "running" and so_far["pairs"] == leading  # pairs count in schedule order
    assert so_far["llr_history"] == expected["llr_history"][: so_far["pairs"]]
    resumed = run_arena("run", path, "--out", out, "-q")
    assert resumed.returncode == 0, resumed.stderr
    assert " resumed from an earlier run" in resumed.stdout
    assert sprt_of(out) == expected
