"""Resuming a results folder: exactly the games it lacks are played, whatever it holds."""

import json
import re
import sqlite3
from pathlib import Path

import pytest
from helpers import ZOO, engine_toml, run_arena, write_tournament


def zoo_engine(name: str, fault: str = "good", at: int = 1, extra: str = "") -> str:
    return engine_toml(name, "{python}", ZOO, fault, str(at), extra=extra)


def tournament(tmp_path: Path, engines: str) -> Path:
    return write_tournament(
        tmp_path,
        engines,
        options="size = 5\nswap = false",
        seed=4,
        time_control="movetime_ms = 1000",
        extra="forfeit_failed_engines = true",  # the duds fail their start-up check: play on
    )


def stored(out: Path) -> dict[int, str]:
    """Each stored game's record text by id."""
    db = sqlite3.connect(out / "arena.db")
    try:
        return dict(db.execute("SELECT id, record FROM games"))
    finally:
        db.close()


def forget(out: Path, game_id: int) -> None:
    """Remove one game, as if a run had been stopped before it was recorded."""
    db = sqlite3.connect(out / "arena.db")
    with db:
        db.execute("DELETE FROM games WHERE id = ?", (game_id,))
    db.close()


def run(path: Path, out: Path, code: int = 0):
    """The run's process; ``code``: its exit code (1: finished with an engine dropped)."""
    proc = run_arena("run", path, "--out", out, timeout=60)
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    return proc


def played_and_resumed(stdout: str) -> tuple[int, int]:
    found = re.search(r"(\d+) games played(?:, (\d+) resumed)?", stdout)
    assert found, stdout
    return int(found[1]), int(found[2] or 0)


@pytest.mark.slow
def test_a_game_missing_from_the_middle_is_the_one_replayed(tmp_path):
    engines = zoo_engine("a") + zoo_engine("b") + zoo_engine("c")
    path, out = tournament(tmp_path, engines), tmp_path / "out"
    run(path, out)
    before = stored(out)
    assert sorted(before) == list(range(6))
    forget(out, 2)
    proc = run(path, out)
    assert played_and_resumed(proc.stdout) == (1, 5)
    after = stored(out)
    assert sorted(after) == list(range(6))
    assert {i: after[i] for i in after if i != 2} == {i: before[i] for i in before if i != 2}
    replayed, original = json.loads(after[2]), json.loads(before[2])
    for key in ("players", "seed", "round", "moves"):
        assert replayed[key] == original[key]  # the same scheduled game, played again
    ids = sorted(json.loads(line)["id"] for line in (out / "games.jsonl").read_text().splitlines())
    assert ids == list(range(6))


# After its illegal move the zoo engine sleeps, so its next game is a quick handshake fault.
DROPPED = 1  # the exit code of a run that finished with an engine dropped (the dud)
CHEATER = "handshake_ms = 300\nmax_failures = 0"


@pytest.mark.slow
def test_forfeited_games_are_kept_on_resume_not_played_again(tmp_path):
    engines = (
        zoo_engine("good")
        + zoo_engine("good2")
        + zoo_engine("crasher", "crash", 2, "max_failures = 0")
        + zoo_engine("cheater", "illegal", extra=CHEATER)
        + zoo_engine("dud", "crash_start", extra="max_failures = 1")
    )
    path, out = tournament(tmp_path, engines), tmp_path / "out"
    run(path, out, DROPPED)
    before = stored(out)
    records = {i: json.loads(text) for i, text in before.items()}
    assert sorted(records) == list(range(20))
    terminations = {r["termination"] for r in records.values()}
    assert {"normal", "crash", "illegal", "dropped"} <= terminations
    normal = next(i for i, r in records.items() if set(r["players"]) == {"good", "good2"})
    assert records[normal]["termination"] == "normal"
    forget(out, normal)
    proc = run(path, out, DROPPED)
    assert played_and_resumed(proc.stdout) == (1, 19)
    after = stored(out)
    assert {i: after[i] for i in after if i != normal} == {i: before[i] for i in before if i != normal}
    assert json.loads(after[normal])["termination"] == "normal"
    results = json.loads((out / "results.json").read_text())
    assert results["games"] == 20 and "dud" in results["dropped"]
    again = run(path, out, DROPPED)  # nothing left: nothing played, nothing broken
    assert played_and_resumed(again.stdout) == (0, 20) and stored(out) == after


@pytest.mark.slow
def test_an_engine_dropped_before_the_resume_is_not_started_again(tmp_path):
    starts = tmp_path / "dud-starts"
    dud = zoo_engine("dud", "crash_start", extra=f'max_failures = 1\nenv = {{ ZOO_PIDS = "{starts}" }}')
    engines = zoo_engine("good") + zoo_engine("good2") + dud
    path, out = tournament(tmp_path, engines), tmp_path / "out"
    run(path, out, DROPPED)
    records = [json.loads(text) for text in stored(out).values()]
    forfeits = sorted(r["id"] for r in records if r["termination"] == "dropped")
    # max_failures = 1, 2 workers: a game of the other worker may start it once more before the drop
    assert [r["termination"] for r in records].count("crash") in (1, 2) and forfeits
    why = json.loads((out / "results.json").read_text())["dropped"]["dud"]
    started_before = len(starts.read_text().split())
    for game_id in forfeits:
        forget(out, game_id)
    run(path, out, DROPPED)
    again = {i: json.loads(text) for i, text in stored(out).items()}
    assert [again[i]["termination"] for i in forfeits] == ["dropped"] * len(forfeits)
    assert json.loads((out / "results.json").read_text())["dropped"]["dud"] == why  # the first run's reason
    assert len(starts.read_text().split()) == started_before  # not even for the start-up check
