"""Live progress: the lines, their throttling on a terminal, and `arena run`'s modes."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess

import pytest
from helpers import ROOT, ZOO, arena_cmd, engine_toml, run_arena, write_tournament
from rich.console import Console

from arena.results.sprt import SprtSettings, SprtTest
from arena.tournament.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def game(index: int, players: list[str], places: list[int]) -> dict:
    return {"id": index, "players": players, "places": places}


def test_lines_every_n_games_with_score_elo_and_rate():
    clock, printed = Clock(), []
    progress = Progress(["new", "old"], 2, "lines", report_every=4, echo=printed.append, clock=clock)
    progress.begin(20, [])
    for i in range(8):
        clock.now += 3  # 20 games a minute
        seats = ["new", "old"] if i % 2 == 0 else ["old", "new"]
        places = [0, 1] if i < 6 else [0, 0]  # seat 0 wins, then draws
        progress(game(i, seats, places), i + 1, 20)
    assert len(printed) == 4  # two reports of two lines
    assert printed[2] == "Games 8 of 20 (40.0%), 20.0 games/min, ETA 0m36s"
    # new won games 0, 2, 4 (seat 0), lost 1, 3, 5, drew 6 and 7.
    # The Elo is the head-to-head table's: the Wilson interval of 0.500 in 8 games is 0.215-0.785.
    assert printed[3] == "Score of new vs old: 3 - 3 - 2 [0.500] 8, Elo +0.0 +/- 224.8 (8 games, Wilson)"


def test_resumed_games_count_in_the_score_but_not_in_the_rate():
    clock, printed = Clock(), []
    progress = Progress(["a", "b"], 2, "lines", report_every=1, echo=printed.append, clock=clock)
    progress.begin(10, [game(0, ["a", "b"], [0, 1]), game(1, ["b", "a"], [1, 0])])
    clock.now += 60
    progress(game(2, ["a", "b"], [1, 0]), 3, 10)
    assert printed[0] == "Games 3 of 10 (30.0%), 1.0 games/min, ETA 7m00s"
    assert printed[1].startswith("Score of a vs b: 2 - 1 - 0 [0.667] 3")


def test_more_engines_show_the_leaders_and_three_player_tables_count_places():
    printed = []
    progress = Progress(["a", "b", "c"], 3, "lines", report_every=2, echo=printed.append, clock=Clock())
    progress.begin(12, [])
    progress(game(0, ["a", "b", "c"], [0, 1, 2]), 1, 12)
    progress(game(1, ["b", "c", "a"], [0, 0, 2]), 2, 12)
    # a: 1 + 0, b: 0.5 + 0.75, c: 0 + 0.75 of the opponents beaten per game
    assert printed[1] == "Leaders: b 62.5% (2), a 50.0% (2), c 37.5% (2)"


def test_the_sprt_line_shows_llr_and_bounds():
    printed = []
    sprt = SprtTest(SprtSettings(elo0=0, elo1=10), "a", "b", max_pairs=100)
    progress = Progress(["a", "b"], 2, "lines", report_every=2, echo=printed.append, clock=Clock())
    progress.begin(200, [], sprt)
    for i, record in enumerate([game(0, ["a", "b"], [0, 1]), game(1, ["b", "a"], [1, 0])]):
        sprt.add(record)
        progress(record, i + 1, 2000)
    assert printed[0].startswith("Games 2 of up to 200 (1.0%)")
    assert re.fullmatch(r"SPRT LLR 0\.\d\d \(-2\.94, 2\.94\) \[0, 10\] normalized after 1 pairs", printed[2])


def test_a_decided_sprt_line_says_who_passes_or_fails():
    printed = []
    sprt = SprtTest(SprtSettings(elo0=0, elo1=10), "a", "b", max_pairs=1000)
    progress = Progress(["a", "b"], 2, "lines", report_every=1, echo=printed.append, clock=Clock())
    progress.begin(2000, [], sprt)
    for i in range(2000):
        record = game(i, ["a", "b"] if i % 2 == 0 else ["b", "a"], [1, 0] if i % 2 == 0 else [0, 1])  # b wins
        decided = sprt.add(record)  # as the run does: the test counts the game, then the lines show it
        progress(record, i + 1, 2000)
        if decided:
            break
    assert sprt.decision == "H0"
    assert re.fullmatch(
        r"SPRT LLR -\d\.\d\d \(-2\.94, 2\.94\) \[0, 10\] normalized after \d+ pairs: a fails", printed[-1]
    )


def test_a_terminal_is_redrawn_at_most_four_times_a_second():
    clock, screen = Clock(), io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    progress = Progress(["a", "b"], 2, "live", console=console, clock=clock)
    draws = []
    original = progress._draw
    progress._draw = lambda: (draws.append(clock.now), original())
    progress.begin(1000, [])
    for i in range(1000):  # 1000 games in 2.5 s
        clock.now += 0.0025
        progress(game(i, ["a", "b"], [0, 1]), i + 1, 1000)
    progress.close()
    assert 10 <= len(draws) <= 2.5 * 4 + 2
    assert all(b - a >= 0.25 - 1e-9 for a, b in zip(draws[1:-1], draws[2:-1]))
    text = screen.getvalue()
    assert "\x1b[" in text and "Score of a vs b: 1000 - 0 - 0 [1.000] 1000" in text


def hex_run(tmp_path, rounds: int = 3):
    engines = "".join(engine_toml(name, "{python}", ZOO, "good") for name in "ab")
    return write_tournament(tmp_path, engines, rounds=rounds, time_control="movetime_ms = 1000")


@pytest.mark.slow
def test_arena_run_without_a_terminal_prints_a_report_every_n_games(tmp_path):
    proc = run_arena("run", hex_run(tmp_path), "--out", tmp_path / "out", "--report-every", "2")
    assert proc.returncode == 0, proc.stderr
    games = [line for line in proc.stdout.splitlines() if line.startswith("Games ")]
    assert [g.split(" (")[0] for g in games] == ["Games 2 of 6", "Games 4 of 6", "Games 6 of 6"]
    assert proc.stdout.count("Score of a vs b: ") == 3


@pytest.mark.slow
def test_arena_run_quiet_prints_only_the_final_tables(tmp_path):
    proc = run_arena("run", hex_run(tmp_path), "--out", tmp_path / "out", "--quiet", "--report-every", "1")
    assert proc.returncode == 0, proc.stderr
    assert "Games " not in proc.stdout and "Score of" not in proc.stdout
    assert "Standings" in proc.stdout and "rank" in proc.stdout


@pytest.mark.slow
def test_arena_run_on_a_terminal_draws_the_live_display(tmp_path):
    path = hex_run(tmp_path, rounds=2)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        arena_cmd("run", path, "--out", tmp_path / "out"),
        stdout=slave,
        stderr=slave,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        env=dict(os.environ, COLUMNS="120"),
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the other side closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=120) == 0
    text = b"".join(chunks).decode(errors="replace")
    assert "\x1b[" in text  # drawn in place, with cursor moves
    assert "Games 4 of 4 (100.0%)" in text and "Score of a vs b:" in text
    assert "rank" in text  # the final tables follow


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_bench_measures_the_progress_on_and_off(tmp_path):
    out = tmp_path / "bench.json"
    done = subprocess.run(
        arena_cmd("bench", "--quick", "-s", "progress", "--json", out),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=280,
    )
    assert done.returncode == 0, done.stderr
    assert "8. Live progress" in done.stdout and "live (rich, a terminal)" in done.stdout
    figures = json.loads(out.read_text())["progress"]
    assert set(figures) == {"off", "lines", "live"}
    assert figures["off"]["progress_cpu_us"] == 0
    assert figures["live"]["progress_cpu_us"] > 0 and figures["lines"]["progress_cpu_us"] > 0
    assert all(f["manager_cpu_us"] > 0 for f in figures.values())
