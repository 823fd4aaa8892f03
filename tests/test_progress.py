"""Live progress: the lines, their throttling on a terminal, and `arena run`'s modes: a line
per finished game, warnings as they happen, an ETA once it is steady, never past 100%, lines
fitted to the terminal, the standings after Ctrl-C, the cores warning."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import signal
import subprocess
import time

import pytest
from helpers import ROOT, ZOO, arena_cmd, engine_toml, run_arena, run_arena_in_order, write_tournament
from rich.console import Console

from arena.engine.proctree import usable_cpus
from arena.record import GameRecord
from arena.results.sprt import SprtSettings, SprtTest
from arena.tournament.progress import Progress, finished_line


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def game(index: int, players: list[str], places: list[int]) -> GameRecord:
    return GameRecord(game="hex", moves=[], id=index, players=players, places=places, termination="normal", reason="r")


def progress_lines(printed: list[str]) -> list[str]:
    """The progress report lines, without the per-game lines."""
    return [line for line in printed if not line.startswith("Finished game")]


def test_lines_every_n_games_with_score_elo_and_rate():
    clock, printed = Clock(), []
    progress = Progress(["new", "old"], 2, "lines", report_every=4, echo=printed.append, clock=clock)
    progress.begin(20, [])
    for i in range(8):
        clock.now += 3  # 20 games a minute
        seats = ["new", "old"] if i % 2 == 0 else ["old", "new"]
        places = [0, 1] if i < 6 else [0, 0]  # seat 0 wins, then draws
        progress(game(i, seats, places), i + 1, 20)
    assert len(printed) == 8 + 4  # a line per game, two reports of two lines
    printed = progress_lines(printed)
    assert printed[2] == "Games 8 of 20 (40.0%), 20.0 games/min, ETA 0m36s"
    # new won games 0, 2, 4 (seat 0), lost 1, 3, 5, drew 6 and 7.
    # The Elo is the head-to-head table's: the Wilson interval of 0.500 in 8 games is 0.215-0.785.
    assert printed[3] == "Score of new vs old: 3 - 3 - 2 [0.500] 8, Elo +0.0 +/- 224.8 (8 games, Wilson)"


def test_resumed_games_count_in_the_score_but_not_in_the_rate():
    clock, printed = Clock(), []
    progress = Progress(["a", "b"], 2, "lines", report_every=1, echo=printed.append, clock=clock)
    progress.begin(10, [game(0, ["a", "b"], [0, 1]), game(1, ["b", "a"], [1, 0])])
    for k in range(5):
        clock.now += 12
        progress(game(2 + k, ["a", "b"], [1, 0]), 3 + k, 10)
    printed = progress_lines(printed)
    assert printed[-2] == "Games 7 of 10 (70.0%), 5.0 games/min, ETA 0m36s"
    assert printed[-1].startswith("Score of a vs b: 2 - 5 - 0 [0.286] 7")


def test_the_eta_shows_only_once_a_few_games_and_seconds_made_the_rate_steady():
    clock, printed = Clock(), []
    progress = Progress(["a", "b"], 2, "lines", report_every=1, echo=printed.append, clock=clock)
    progress.begin(100, [])
    for k, gap in enumerate([0.5, 0.5, 0.5, 0.5, 0.5, 7.5, 1]):  # the first came early: 120 a minute is far off
        clock.now += gap
        progress(game(k, ["a", "b"], [0, 1]), k + 1, 100)
    games = [line for line in printed if line.startswith("Games")]
    assert games[:5] == [f"Games {k} of 100 ({k}.0%)" for k in range(1, 6)]  # five games, but in 2.5 s
    assert games[5:] == [
        "Games 6 of 100 (6.0%), 36.0 games/min, ETA 2m36s",  # 6 games in 10 s
        "Games 7 of 100 (7.0%), 38.2 games/min, ETA 2m26s",
    ]


def test_more_engines_show_the_leaders_and_three_player_tables_count_places():
    printed = []
    progress = Progress(["a", "b", "c"], 3, "lines", report_every=2, echo=printed.append, clock=Clock())
    progress.begin(12, [])
    progress(game(0, ["a", "b", "c"], [0, 1, 2]), 1, 12)
    progress(game(1, ["b", "c", "a"], [0, 0, 2]), 2, 12)
    # a: 1 + 0, b: 0.5 + 0.75, c: 0 + 0.75 of the opponents beaten per game
    assert progress_lines(printed)[1] == "Leaders: b 62.5% (2), a 50.0% (2), c 37.5% (2)"


def test_the_sprt_line_shows_llr_and_bounds():
    printed = []
    sprt = SprtTest(SprtSettings(elo0=0, elo1=10), "a", "b", max_pairs=100)
    progress = Progress(["a", "b"], 2, "lines", report_every=2, echo=printed.append, clock=Clock())
    progress.begin(200, [], sprt)
    for i, record in enumerate([game(0, ["a", "b"], [0, 1]), game(1, ["b", "a"], [1, 0])]):
        sprt.add(record)
        progress(record, i + 1, 2000)
    printed = progress_lines(printed)
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
    finished = [line for line in proc.stdout.splitlines() if line.startswith("Finished game ")]
    records = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert sorted(finished) == sorted(
        f"Finished game {r['id']} ({r['players'][0]} vs {r['players'][1]}): "
        f"{'1-0' if r['winner'] == 0 else '0-1'} {{{r['reason']}}}, {len(r['moves'])} plies"
        for r in records
    )


@pytest.mark.slow
def test_arena_run_quiet_prints_only_the_final_tables(tmp_path):
    proc = run_arena("run", hex_run(tmp_path), "--out", tmp_path / "out", "--quiet", "--report-every", "1")
    assert proc.returncode == 0, proc.stderr
    assert "Games " not in proc.stdout and "Score of" not in proc.stdout and "Finished game" not in proc.stdout
    assert "Standings" in proc.stdout and "rank" in proc.stdout


def run_on_a_terminal(path, out, columns: int) -> str:
    """``arena run`` on a pseudo-terminal ``columns`` wide: everything it wrote there."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        arena_cmd("run", path, "--out", out),
        stdout=slave,
        stderr=slave,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        env=dict(os.environ, COLUMNS=str(columns)),
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
    return b"".join(chunks).decode(errors="replace")


@pytest.mark.slow
def test_arena_run_on_a_terminal_draws_the_live_display(tmp_path):
    text = run_on_a_terminal(hex_run(tmp_path, rounds=2), tmp_path / "out", 120)
    assert "\x1b[" in text  # drawn in place, with cursor moves
    assert "Games 4 of 4 (100.0%)" in text and "Score of a vs b:" in text
    assert "Finished game 0 (a vs b): " in text
    assert "rank" in text  # the final tables follow


@pytest.mark.slow
def test_the_live_lines_of_four_engines_fit_an_80_column_terminal(tmp_path):
    names = ("search-medium-a", "search-medium-b", "pathfinder-long", "random-engine-x")
    engines = "".join(engine_toml(name, "{python}", ZOO, "good") for name in names)
    path = write_tournament(tmp_path, engines, rounds=1, time_control="movetime_ms = 1000")
    text = run_on_a_terminal(path, tmp_path / "out", 80)
    live = screen_lines(text.split("\nt: hex, ")[0])  # before the final tables, which are as wide as they are
    leaders = [line for line in live if line.startswith("Leaders: ")]
    whole = r"Leaders: (-|\S+ [\d.]+% \(\d+\)(, \S+ [\d.]+% \(\d+\))*(, \+\d more)?)"
    assert leaders and all(re.fullmatch(whole, line) for line in leaders), leaders  # whole entries, not cut
    assert any(line.endswith("more") for line in leaders)  # four do not fit
    assert any(line.startswith("Finished game ") for line in live)
    assert max(map(len, live)) <= 80, [line for line in live if len(line) > 80]


# The bench's progress section (`arena bench --quick -s progress`: the manager's and the
# progress's CPU with the progress off, as lines and live) is checked by the quick bench's test
# in tests/test_bench.py, which runs that section with the others in one process: a process of
# its own here ran the same section again.


def test_a_finished_game_line_names_the_game_engines_result_reason_and_plies():
    won = {**game(12, ["a", "b"], [0, 1]), "reason": "Red connected", "moves": ["a1"] * 21}
    assert finished_line(won) == "Finished game 12 (a vs b): 1-0 {Red connected}, 21 plies"
    forfeit = {**game(3, ["a", "b"], [0, 1]), "termination": "crash", "reason": "b (seat 1): exit code 2"}
    assert finished_line(forfeit) == "Finished game 3 (a vs b): 1-0 {crash: b (seat 1): exit code 2}, 0 plies"
    drawn = {**game(4, ["a", "b"], [0, 0]), "moves": ["x"]}
    assert finished_line(drawn) == "Finished game 4 (a vs b): 1/2-1/2 {r}, 1 ply"
    three = game(5, ["a", "b", "c"], [1, 0, 2])
    assert finished_line(three) == "Finished game 5 (a vs b vs c): places 2-1-3 {r}, 0 plies"


def test_a_decided_sprt_counts_the_games_still_finishing_and_never_passes_100_percent():
    printed = []
    sprt = SprtTest(SprtSettings(elo0=0, elo1=10), "a", "b", max_pairs=1000)
    progress = Progress(["a", "b"], 2, "lines", report_every=1, echo=printed.append, clock=Clock())
    progress.begin(2000, [], sprt)
    i = 0
    while sprt.decision is None:
        record = game(i, ["a", "b"] if i % 2 == 0 else ["b", "a"], [1, 0] if i % 2 == 0 else [0, 1])
        sprt.add(record)
        i += 1
        progress(record, i, 2000)
    decided_at = sprt.games_needed
    for _ in range(3):  # the games running when it decided finish and are stored
        i += 1
        progress(game(i, ["a", "b"], [0, 1]), i, 2000)
    games = [line for line in printed if line.startswith("Games")]
    assert games[decided_at - 1].startswith(f"Games {decided_at} of {decided_at} (100.0%)")
    assert games[-1].startswith(f"Games {i} of {i} (100.0%)")
    assert all(float(re.search(r"\(([\d.]+)%\)", line)[1]) <= 100 for line in games)


def screen_lines(text: str) -> list[str]:
    """What a terminal shows of rich's output, escape sequences removed."""
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    return [line for chunk in plain.split("\r") for line in chunk.split("\n")]


def test_the_live_lines_fit_the_terminal_and_warnings_show_above_them():
    clock, screen = Clock(), io.StringIO()
    console = Console(file=screen, force_terminal=True, width=80)
    engines = ["search-medium", "search-hard", "pathfinder", "random-engine"]
    progress = Progress(engines, 2, "live", console=console, clock=clock)
    progress.begin(120, [])
    for i in range(24):
        clock.now += 1
        a, b = engines[i % 4], engines[(i + 1 + i // 4) % 4]
        reason = "Blue connected its two edges after a long and winding fight over the whole board"
        progress({**game(i, [a, b] if a != b else [a, engines[0]], [0, 1]), "reason": reason}, i + 1, 120)
    progress.on_drop("random-engine", "3 consecutive failures, the last in game 23: crash: it exited")
    clock.now += 1
    progress(game(24, ["search-hard", "pathfinder"], [0, 1]), 25, 120)
    progress.close()
    shown = screen_lines(screen.getvalue())
    assert max(map(len, shown)) <= 80, [line for line in shown if len(line) > 80]
    leaders = [line for line in shown if line.startswith("Leaders: ")]
    assert re.fullmatch(r"Leaders: .*, \+\d more", leaders[-1])  # four entries do not fit in 80 columns
    assert any(line.startswith("Finished game 0 (search-medium vs search-hard): 1-0 {Blue") for line in shown)
    dropped = "".join(shown)
    assert "arena: engine random-engine dropped after 3 consecutive failures" in dropped  # wrapped, not cut
    assert "without starting it" in dropped


@pytest.mark.slow
def test_a_start_up_failure_a_drop_and_too_many_workers_are_told_when_they_happen(tmp_path):
    engines = engine_toml("good", "{python}", ZOO, "good") + engine_toml("good2", "{python}", ZOO, "good")
    engines += engine_toml("broken", "{python}", ZOO, "crash_start", "1", extra="max_failures = 2")
    path = write_tournament(tmp_path, engines, rounds=2, time_control="movetime_ms = 500")
    cores = len(usable_cpus())
    proc = run_arena_in_order(
        "run", path, "--out", tmp_path / "out", "--workers", cores + 1, "--report-every", "100",
        "--forfeit-failed-engines", timeout=120,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout  # finished with the broken engine dropped
    lines = proc.stdout.splitlines()

    def first(prefix: str) -> int:
        return next(i for i, line in enumerate(lines) if line.startswith(prefix))

    assert lines[0] == (
        f"arena: {cores + 1} workers on {cores} core{'s' if cores > 1 else ''}: games in parallel share the CPUs, "
        f"so engines get less thinking time than their clocks allow; --workers {cores} avoids it"
    )
    start_failure = first("arena: engine broken failed its start-up check (crash: ")
    assert "cannot load my weights" in lines[start_failure] and start_failure < first("Finished game")
    drop = first("arena: engine broken dropped after 2 consecutive failures")
    failed = [i for i, line in enumerate(lines) if line.startswith("Finished game") and "{crash: broken" in line]
    # dropped at its second failure; up to workers - 1 games that started it before then end later
    assert 2 <= len(failed) <= 2 + cores and failed[1] < drop < first("Finished game") + 12 < first("Standings")
    assert lines[drop].endswith("its remaining games are lost without starting it")


@pytest.mark.slow
def test_ctrl_c_prints_the_standings_so_far_and_the_results_command(tmp_path):
    engines = "".join(engine_toml(name, "{python}", ZOO, "good+slow") for name in ("a", "b"))
    path, out = write_tournament(tmp_path, engines, rounds=20, time_control="movetime_ms = 200"), tmp_path / "out"
    run = subprocess.Popen(
        arena_cmd("run", path, "--out", out),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not (out / "games.jsonl").exists() or len((out / "games.jsonl").read_text().splitlines()) < 2:
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGINT)
    stdout, stderr = run.communicate(timeout=60)
    kept = len((out / "games.jsonl").read_text().splitlines())
    assert run.returncode == 130 and len(stderr.splitlines()) == 1, stderr  # 128 + SIGINT
    assert f"'arena results {out.resolve()}' shows every table" in stderr
    tables = stdout.split("t: interrupted; the games stored so far:\n")[1]
    assert tables.startswith("not finished: ") and "Standings" in tables
    rows = [line.split() for line in tables.split("Standings\n")[1].split("\n\n")[0].splitlines()[2:]]
    assert sorted(row[1] for row in rows) == ["a", "b"] and all(int(row[2]) == kept for row in rows)
    standings = run_arena("results", out).stdout.split("\n\n")[1]  # the same table as arena results prints
    assert standings.startswith("Standings\n") and standings in tables


def test_the_progress_is_quiet_when_asked_live_on_a_terminal_else_lines():
    from arena.tournament.foreground import progress_mode

    assert [progress_mode(quiet, terminal) for quiet in (True, False) for terminal in (True, False)] == [
        "quiet", "quiet", "live", "lines",
    ]  # fmt: skip


def test_more_workers_than_cores_is_said_and_as_many_is_not(monkeypatch):
    from arena.tournament import foreground

    monkeypatch.setattr(foreground, "usable_cpus", lambda: [0])
    assert foreground.too_many_workers(1) is None
    assert foreground.too_many_workers(2) == (
        "2 workers on 1 core: games in parallel share the CPUs, so engines get less thinking time than their "
        "clocks allow; --workers 1 avoids it"
    )
    monkeypatch.setattr(foreground, "usable_cpus", lambda: [0, 1])
    assert foreground.too_many_workers(2) is None and "3 workers on 2 cores:" in (foreground.too_many_workers(3) or "")


# -- `arena run` in the foreground: what it hands the runner and shows (the runner itself stood in for)


class StandInRunner:
    """run_tournament's stand-in: it keeps what it was handed and tells its observers of two games,
    a then b winning, as the runner does."""

    def __init__(self) -> None:
        self.handed: dict[str, object] = {}

    def __call__(self, t, out, workers, observers, **settings):
        self.handed = {"t": t, "out": out, "workers": workers, "observers": observers, **settings}
        for observer in observers:
            observer.on_start(2, [], None)
        for index, players in enumerate((["a", "b"], ["b", "a"])):
            for observer in observers:
                observer.on_game(game(index, players, [0, 1]), index + 1, 2)
        return "the summary"


@pytest.fixture
def foreground_run(tmp_path, monkeypatch):
    """play_in_foreground of a two-engine file (two workers, no cluster) on one core, with the
    runner stood in; the run log it attaches is taken off again."""
    import logging

    from arena.tournament import foreground
    from arena.tournament.config import load_tournament

    runner = StandInRunner()
    monkeypatch.setattr(foreground, "run_tournament", runner)
    monkeypatch.setattr(foreground, "usable_cpus", lambda: [0])
    path = write_tournament(tmp_path, engine_toml("a", "{python}", ZOO) + engine_toml("b", "{python}", ZOO))
    t = load_tournament(path)
    root = logging.getLogger("arena")
    handlers, level = list(root.handlers), root.level
    printed: list[str] = []
    alerts: list[str] = []

    def play(**how):
        printed.clear()
        alerts.clear()
        summary = foreground.play_in_foreground(
            t, tmp_path / "out", foreground.Foreground(**how), [], printed.append, alerts.append
        )
        return summary, runner.handed

    yield t, play, printed, alerts
    for handler in [h for h in root.handlers if h not in handlers]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)


def test_a_foreground_run_shows_each_game_its_trace_and_the_score_every_n_games(foreground_run, tmp_path):
    t, play, printed, alerts = foreground_run
    summary, handed = play(trace=True, report_every=2, workers=1)
    out = tmp_path / "out"
    assert summary == "the summary"
    assert printed == [
        "Finished game 0 (a vs b): 1-0 {r}, 0 plies",
        f"game 0: trace: {out / 'traces' / 'game-0.txt'}",
        "Finished game 1 (b vs a): 1-0 {r}, 0 plies",
        f"game 1: trace: {out / 'traces' / 'game-1.txt'}",
        "Games 2 of 2 (100.0%)",
        "Score of a vs b: 1 - 1 - 0 [0.500] 2, Elo +0.0 +/- 392.5 (2 games, Wilson)",
    ]
    assert alerts == []  # one worker on one core
    assert (handed["t"], handed["out"], handed["workers"], handed["trace"]) == (t, out, 1, True)


def test_a_foreground_run_without_trace_shows_no_trace_lines_and_quiet_shows_no_game(foreground_run):
    _, play, printed, _ = foreground_run
    _, handed = play(report_every=10)
    assert printed == ["Finished game 0 (a vs b): 1-0 {r}, 0 plies", "Finished game 1 (b vs a): 1-0 {r}, 0 plies"]
    assert handed["trace"] is False
    play(quiet=True, report_every=1)
    assert printed == []


def test_a_foreground_run_on_a_terminal_draws_its_lines_live_rather_than_through_echo(foreground_run, capsys):
    _, play, printed, _ = foreground_run
    play(terminal=True, report_every=1)
    assert printed == []
    shown = capsys.readouterr().out
    assert "Finished game 1 (b vs a): 1-0 {r}, 0 plies" in shown and "Games 2 of 2 (100.0%)" in shown


def test_a_local_foreground_run_warns_of_more_workers_than_cores_and_watches_the_load(foreground_run, tmp_path, capsys):
    from arena.results.site.live import LiveSite
    from arena.tournament.load import LoadWatch

    _, play, _, alerts = foreground_run
    _, handed = play(idle_engines=0, forfeit_failed_engines=True)  # the file's two workers on one core
    assert alerts == [
        "2 workers on 1 core: games in parallel share the CPUs, so engines get less thinking time than their "
        "clocks allow; --workers 1 avoids it"
    ]
    assert (handed["workers"], handed["cluster"], handed["idle_engines"], handed["forfeit_failed_engines"]) == (
        None,
        None,
        0,
        True,
    )
    *_, site, progress = handed["observers"]
    assert isinstance(site, LiveSite) and site.writer.folder == tmp_path / "out" / "report"
    load = handed["load"]
    assert isinstance(load, LoadWatch)
    capsys.readouterr()
    load.warn("arena: game 3 was lost on time while the machine was loaded")  # the progress's warning: stderr
    assert capsys.readouterr().err == "arena: game 3 was lost on time while the machine was loaded\n"


def test_a_foreground_run_on_a_cluster_hands_it_over_without_the_cores_warning_or_the_load(foreground_run, capsys):
    _, play, _, alerts = foreground_run
    _, handed = play(cluster_address="local:2", workers=4)
    cluster = handed["cluster"]
    assert (cluster.address, handed["load"], alerts) == ("local:2", None, [])  # its machines' cores and load
    capsys.readouterr()
    cluster.echo("a worker cannot play")
    cluster.tell("the dashboard is at http://127.0.0.1:8787")
    assert capsys.readouterr().err == "a worker cannot play\nthe dashboard is at http://127.0.0.1:8787\n"
    _, handed = play(cluster_address="local:2", quiet=True)
    assert handed["cluster"].tell is None  # quiet: no word of the dashboard


def test_the_files_cluster_is_played_unless_the_command_line_names_another_and_a_bad_one_is_placed(tmp_path):
    from arena.tournament.cluster import ClusterError
    from arena.tournament.config import load_tournament
    from arena.tournament.foreground import Foreground, _cluster

    engines = engine_toml("a", "{python}", ZOO) + engine_toml("b", "{python}", ZOO)
    t = load_tournament(write_tournament(tmp_path, engines, extra='[cluster]\naddress = "local:3"'))
    warned: list[str] = []
    spec = _cluster(t, Foreground(), warned.append)
    assert spec is not None and (spec.address, spec.echo, spec.tell) == ("local:3", warned.append, warned.append)
    given = _cluster(t, Foreground(cluster_address="local:2", quiet=True), warned.append)
    assert given is not None and (given.address, given.tell) == ("local:2", None)
    with pytest.raises(ClusterError) as given_bad:
        _cluster(t, Foreground(cluster_address="local:0"), warned.append)
    assert str(given_bad.value) == "--cluster: cluster 'local:0': write local:N with N from 1 to 256 worker processes"
    bad = load_tournament(write_tournament(tmp_path, engines, extra='[cluster]\naddress = "nowhere"'))
    with pytest.raises(ClusterError) as file_bad:
        _cluster(bad, Foreground(), warned.append)
    assert str(file_bad.value).startswith(f"{bad.path}: [cluster] address: cluster 'nowhere': it has no transport; ")
    assert _cluster(load_tournament(write_tournament(tmp_path, engines)), Foreground(), warned.append) is None
    assert warned == []


def five_engines_of_unequal_games(warned: list[str]) -> Progress:
    """a 1 of 1 (100%), b 2 of 3 (66.7%), d 1.5 of 3 and e 0.5 of 1 (50%), c 0 of 2."""
    progress = Progress(list("abcde"), 2, "lines", echo=lambda line: None, clock=Clock(), warn=warned.append)
    progress.begin(20, [])
    played = [
        (["a", "c"], [0, 1]),
        (["b", "c"], [0, 1]),
        (["b", "d"], [0, 1]),
        (["d", "b"], [0, 1]),
        (["e", "d"], [0, 0]),
    ]
    for k, (seats, places) in enumerate(played):
        progress(game(k, seats, places), k + 1, 20)
    return progress


def test_the_leaders_are_ranked_by_their_share_of_points_four_shown_and_a_dropped_engine_last():
    warned: list[str] = []
    progress = five_engines_of_unequal_games(warned)
    assert progress.lines()[1] == "Leaders: a 100.0% (1), b 66.7% (3), d 50.0% (3), e 50.0% (1), +1 more"
    progress.on_drop("a", "3 consecutive failures")
    assert progress.lines()[1] == "Leaders: b 66.7% (3), d 50.0% (3), e 50.0% (1), c 0.0% (2), +1 more"
    assert progress.lines(200)[1] == "Leaders: b 66.7% (3), d 50.0% (3), e 50.0% (1), c 0.0% (2), a dropped"
    assert warned == [
        "arena: engine a dropped after 3 consecutive failures; its remaining games are lost without starting it"
    ]


def test_the_leaders_shown_are_as_many_whole_entries_as_fit_the_width():
    progress = five_engines_of_unequal_games([])
    every = "Leaders: a 100.0% (1), b 66.7% (3), d 50.0% (3), e 50.0% (1), c 0.0% (2)"
    four = "Leaders: a 100.0% (1), b 66.7% (3), d 50.0% (3), e 50.0% (1), +1 more"
    two = "Leaders: a 100.0% (1), b 66.7% (3), +3 more"
    three = "Leaders: a 100.0% (1), b 66.7% (3), d 50.0% (3), +2 more"
    assert (len(every), len(four), len(three), len(two)) == (72, 69, 56, 43)
    assert [progress.lines(width)[1] for width in (72, 71, 69, 68, 56, 55, 43)] == [
        every, four, four, three, three, two, two,
    ]  # fmt: skip
    assert progress.lines(10)[1] == "Leaders: -, +5 more"  # not even one fits: none, rather than one cut


def test_a_long_eta_is_told_in_hours_and_minutes():
    clock, printed = Clock(), []
    progress = Progress(["a", "b"], 2, "lines", report_every=5, echo=printed.append, clock=clock)
    progress.begin(630, [])
    for k in range(5):
        clock.now += 12  # 5 games a minute: the 625 left take 125 minutes
        progress(game(k, ["a", "b"], [0, 1]), k + 1, 630)
    assert progress_lines(printed)[0] == "Games 5 of 630 (0.8%), 5.0 games/min, ETA 2h05m"


def test_a_warning_goes_to_stderr_without_a_live_display_never_through_the_progress_lines(capsys):
    printed: list[str] = []
    progress = Progress(["a", "b"], 2, "lines", echo=printed.append)
    progress.warn("arena: game 3 was lost on time while the machine was loaded")
    progress.on_start_failure("b", "crash: it exited")
    assert printed == []
    assert capsys.readouterr() == (
        "",
        "arena: game 3 was lost on time while the machine was loaded\n"
        "arena: engine b failed its start-up check (crash: it exited); its games go on and record the fault\n",
    )


def test_a_warning_shows_whole_above_the_live_lines_wrapped_to_the_width():
    screen, warned = io.StringIO(), []
    console = Console(file=screen, force_terminal=True, width=40)
    progress = Progress(["a", "b"], 2, "live", console=console, clock=Clock(), warn=warned.append)
    progress.begin(10, [])
    progress.on_start_failure("b", "crash: it exited")
    progress.close()
    shown = " ".join(line.strip() for line in screen_lines(screen.getvalue()))  # the lines it was wrapped into
    assert warned == []
    assert "arena: engine b failed its start-up check (crash: it exited); its games go on and record the fault" in (
        shown
    )


def test_a_finished_line_too_long_for_the_terminal_is_cut_to_its_width_above_the_live_lines():
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=40)
    progress = Progress(["search-medium", "search-hard"], 2, "live", console=console, clock=Clock())
    progress.begin(10, [])
    record = game(0, ["search-medium", "search-hard"], [0, 1])
    progress(record, 1, 10)
    progress.close()
    line = finished_line(record)
    assert len(line) > 40
    shown = [text.rstrip() for text in screen_lines(screen.getvalue())]
    assert line[:39] + "…" in shown and "search-hard): 1-0 {r}, 0 plies" not in "".join(shown)  # cut, not wrapped


def test_by_default_the_progress_prints_its_lines_every_ten_games():
    printed: list[str] = []
    progress = Progress(["a", "b"], 2, echo=printed.append, clock=Clock())
    progress.begin(30, [])
    for k in range(21):
        progress(game(k, ["a", "b"], [0, 1]), k + 1, 30)
    assert [line for line in printed if line.startswith("Games ")] == [
        "Games 10 of 30 (33.3%)",
        "Games 20 of 30 (66.7%)",
    ]
    assert len(printed) == 21 + 2 * 2  # a Finished line per game and two reports of two lines


def test_before_the_run_begins_and_for_an_empty_schedule_the_lines_show_no_games_and_an_even_score():
    progress = Progress(["a", "b"], 2, clock=Clock())
    nothing = ["Games 0 of 0 (100.0%)", "Score of a vs b: 0 - 0 - 0 [0.500] 0"]  # no games to play: all played
    assert progress.lines() == nothing
    progress.begin(0, [])
    assert progress.lines() == nothing


def test_a_resumed_run_with_more_games_stored_than_its_schedule_holds_shows_100_percent():
    stored = [game(k, ["a", "b"], [0, 1]) for k in range(6)]
    progress = Progress(["a", "b", "c"], 2, clock=Clock())
    progress.begin(4, stored)  # the file now schedules fewer games than were played
    assert progress.lines()[0] == "Games 6 of 4 (100.0%)"


def test_the_eta_shows_once_five_games_took_five_seconds_and_is_a_dash_after_the_last_game():
    clock, printed = Clock(), []
    progress = Progress(["a", "b"], 2, "lines", report_every=5, echo=printed.append, clock=clock)
    progress.begin(10, [])
    for k in range(10):
        clock.now += 1  # a game a second: 60 a minute
        progress(game(k, ["a", "b"], [0, 1]), k + 1, 10)
    assert [line for line in printed if line.startswith("Games ")] == [
        "Games 5 of 10 (50.0%), 60.0 games/min, ETA 0m05s",
        "Games 10 of 10 (100.0%), 60.0 games/min, ETA -",
    ]


def test_a_game_the_second_seat_won_reads_0_1():
    assert finished_line(game(7, ["a", "b"], [1, 0])) == "Finished game 7 (a vs b): 0-1 {r}, 0 plies"


def test_a_stored_game_against_an_engine_no_longer_in_the_run_counts_only_for_the_engines_in_it():
    progress = Progress(["a", "b", "c"], 2, clock=Clock())
    progress.begin(10, [game(0, ["a", "gone"], [0, 1]), game(1, ["gone", "b"], [0, 1])])
    assert progress.lines()[1] == "Leaders: a 100.0% (1), b 0.0% (1)"  # a beat its one opponent, b lost


def terminal_screen(text: str, width: int) -> list[str]:
    """The lines a terminal ``width`` wide shows after ``text``: characters written where the
    cursor is (wrapping at the width), and rich's cursor moves (up, down, column) and line erases."""
    rows: list[list[str]] = [[]]
    row = col = 0
    for token in re.findall(r"\x1b\[[0-9;?]*[A-Za-z]|.|\n", text):
        if token.startswith("\x1b["):
            arg, op = token[2:-1], token[-1]
            n = int(arg) if arg.isdigit() else 1
            if op == "A":
                row = max(row - n, 0)
            elif op == "B":
                row += n
            elif op == "G":
                col = n - 1
            elif op == "K":
                rows[row] = [] if arg == "2" else rows[row][:col]
            continue  # colours, the cursor shown or hidden
        if token == "\r":
            col = 0
        elif token == "\n":
            row, col = row + 1, 0
        else:
            if col >= width:
                row, col = row + 1, 0
            rows.extend([] for _ in range(row + 1 - len(rows)))
            rows[row].extend(" " * (col + 1 - len(rows[row])))
            rows[row][col] = token
            col += 1
        rows.extend([] for _ in range(row + 1 - len(rows)))
    return ["".join(cells).rstrip() for cells in rows]


def live_progress(width: int, **options) -> tuple[Progress, io.StringIO, Clock]:
    clock, screen = Clock(), io.StringIO()
    console = Console(file=screen, force_terminal=True, width=width)
    return Progress(["search-medium", "search-hard"], 2, "live", console=console, clock=clock, **options), screen, clock


def test_a_live_display_shows_its_lines_at_once_redraws_only_when_asked_and_leaves_them_on_screen():
    import threading

    progress, screen, clock = live_progress(60)
    threads = threading.active_count()
    progress.begin(10, [])
    assert threading.active_count() == threads  # no thread of its own redrawing: only the games do
    start = ["Games 0 of 10 (0.0%)", "Score of search-medium vs search-hard: 0 - 0 - 0 [0.500] 0"]
    assert terminal_screen(screen.getvalue(), 60) == start
    progress.close()
    assert terminal_screen(screen.getvalue(), 60) == [*start, ""]  # kept, the cursor below them


def test_a_game_ending_just_as_the_next_redraw_is_due_is_drawn():
    progress, screen, clock = live_progress(70)
    progress.begin(10, [])
    clock.now += 0.25  # four redraws a second
    record = game(0, ["search-medium", "search-hard"], [0, 1])
    progress(record, 1, 10)
    score = progress.lines()[1]
    assert len(score) > 70
    assert terminal_screen(screen.getvalue(), 70) == [
        finished_line(record),
        "Games 1 of 10 (10.0%)",
        score[:69] + "…",  # cut to the width, not wrapped
    ]


def test_a_game_note_too_long_for_the_terminal_is_cut_to_its_width_above_the_live_lines():
    note = "game 0: trace: /home/someone/tournaments/hex-11/out/traces/game-0.txt"
    progress, screen, clock = live_progress(40, game_note=lambda record: note)
    progress.begin(10, [])
    record = game(0, ["search-medium", "search-hard"], [0, 1])
    progress(record, 1, 10)
    assert terminal_screen(screen.getvalue(), 40)[:2] == [finished_line(record)[:39] + "…", note[:39] + "…"]


def test_a_warning_with_a_word_wider_than_the_terminal_is_folded_whole_above_the_live_lines():
    progress, screen, clock = live_progress(30)
    progress.begin(10, [])
    progress.warn("arena: engine x cannot start /opt/engines/hex/search-medium-v2/bin/engine")
    assert terminal_screen(screen.getvalue(), 30)[:4] == [
        "arena: engine x cannot start",
        "/opt/engines/hex/search-medium",
        "-v2/bin/engine",
        "Games 0 of 10 (0.0%)",
    ]


def test_a_warning_after_the_live_display_closed_goes_to_the_warning_stream():
    warned: list[str] = []
    progress, screen, clock = live_progress(60, warn=warned.append)
    progress.begin(10, [])
    progress.close()
    shown = screen.getvalue()
    progress.warn("arena: game 3 was lost on time while the machine was loaded")
    assert warned == ["arena: game 3 was lost on time while the machine was loaded"]
    assert screen.getvalue() == shown
