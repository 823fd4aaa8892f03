"""Tiny tournaments, `arena play`'s series and `arena check-engine`'s setup run in this process: fast tests of the runner."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
from helpers import ROOT, ZOO, ctrl_c_before_games_jsonl, engine_toml, write_tournament

from arena.engine import proctree
from arena.engine.player import EngineSpec, Sandbox
from arena.engine.transport import EXIT_WAIT, QUIT_GRACE
from arena.match import TimeControl, longest_game_s
from arena.record import GameRecord, derive_seed
from arena.results.fingerprint import fingerprint
from arena.results.site.live import INTERVAL_S
from arena.results.store import StorageError
from arena.rules import make_game
from arena.tournament import enginecheck, local, runner
from arena.tournament.commandline import FlagError
from arena.tournament.config import ConfigError, load_tournament
from arena.tournament.enginecheck import check_setup, command_spec
from arena.tournament.load import LoadWatch
from arena.tournament.local import LocalGames, idle_bound, watchdog_limit
from arena.tournament.observers import QuietObserver, live_site
from arena.tournament.runner import RunInterrupted, run_tournament
from arena.tournament.series import SeriesGame, StartFailure, play_series, result_text, score, unique_names
from arena.tournament.settings import tournament_settings
from arena.tournament.verdict import StartupFailure, Terminated, Verdict
from arena.tournament.worker import Worker, WorkerConfig

HEX3 = "size = 3\nswap = false"  # the zoo's engines play the first free cell: Red wins every game
HEX3_GAME = {"size": 3, "swap": False}


def zoo(name: str, fault: str = "good", at: int = 1, extra: str = "") -> str:
    return engine_toml(name, "{python}", ZOO, fault, str(at), extra=extra)


def tiny(tmp_path: Path, engines: str, rounds: int = 1, extra: str = "", movetime: int = 100, workers: int = 1) -> Path:
    """A tournament file of Hex 3x3 games on one worker."""
    return write_tournament(
        tmp_path,
        engines,
        name="tiny",
        options=HEX3,
        rounds=rounds,
        seed=7,
        workers=workers,
        time_control=f"movetime_ms = {movetime}\nmargin_ms = 100",
        extra=extra,
    )


def games(out: Path) -> list[dict]:
    path = out / "games.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def meta(out: Path, key: str) -> str | None:
    with closing(sqlite3.connect(out / "arena.db")) as db:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row and row[0]


class Heard(QuietObserver):
    """What the runner told its observer, in order."""

    def __init__(self) -> None:
        self.said: list[tuple] = []

    def on_start(self, total, stored, sprt):
        self.said.append(("start", total, [r.id for r in stored], sprt))

    def on_game(self, record, finished, total):
        self.said.append(("game", record.id, finished, total))

    def on_start_failure(self, engine, reason):
        self.said.append(("start failure", engine, reason))

    def on_drop(self, engine, why):
        self.said.append(("drop", engine, why))

    def on_end(self, summary):
        self.said.append(("end", summary.tournament, len(summary.records)))

    def on_stop(self):
        self.said.append(("stop",))


def started_pids(marker: Path) -> list[int]:
    return [int(p) for p in marker.read_text().split()] if marker.exists() else []


def wait_until_gone(marker: Path, timeout: float = 5.0) -> None:
    """Every engine process started (each wrote its pid to ``marker``) has ended."""
    deadline = time.monotonic() + timeout
    while proctree.tagged_pids(str(marker), key="ZOO_PIDS"):
        assert time.monotonic() < deadline, "an engine outlived its series"
        time.sleep(0.02)


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The runner's log lines, whole."""
    return [r.getMessage() for r in caplog.records if r.name == "arena.runner"]


def standings(summary: runner.RunSummary) -> dict[str, dict]:
    """The summary's standings, engine -> its row by column name."""
    return {row[1]: dict(zip(summary.headers, row)) for row in summary.rows}


# -- a whole run ------------------------------------------------------------------------


def test_a_tiny_tournament_stores_its_games_rates_them_and_tells_its_observers(tmp_path, caplog):
    heard, before = Heard(), signal.getsignal(signal.SIGTERM)
    out = tmp_path / "out"
    with caplog.at_level(logging.INFO, logger="arena.runner"):
        t = load_tournament(tiny(tmp_path, zoo("red") + zoo("blue"), extra="elo_prior = 3.0"))
        summary = run_tournament(t, out, observers=[heard])
    assert said(caplog) == ["tiny: 2 games scheduled, 0 already played, 1 workers"]
    assert (summary.played, summary.resumed, summary.errors, summary.dropped) == (2, 0, [], {})
    assert summary.verdict == Verdict("finished: every scheduled game played", 0)
    assert summary.out == out and summary.sprt is None
    records = games(out)
    assert [r["id"] for r in records] == [0, 1] and [r["round"] for r in records] == [0, 0]
    assert [r["players"] for r in records] == [["red", "blue"], ["blue", "red"]]
    assert [(r["termination"], r["winner"], r["tournament"]) for r in records] == [("normal", 0, "tiny")] * 2
    rows = standings(summary)
    assert summary.headers[:6] == ["rank", "engine", "games", "wins", "losses", "draws"]
    assert [(r["games"], r["wins"], r["losses"], r["draws"], r["score %"]) for r in rows.values()] == [
        (2, 1, 1, 0, 50.0)
    ] * 2
    assert heard.said == [("start", 2, [], None), ("game", 0, 1, 2), ("game", 1, 2, 2), ("end", "tiny", 2)]
    lines = summary.table.splitlines()
    assert lines[0] == "Standings" and "Head to head (each pair: its own games)" in lines
    assert summary.table.endswith("\n") and "timeouts" not in summary.table
    results = json.loads((out / "results.json").read_text())
    assert (results["games"], results["scheduled_games"], results["finished"]) == (2, 2, True)
    assert (results["tournament"], results["game"], results["options"], results["players"]) == (
        "tiny",
        "hex",
        HEX3_GAME,
        2,
    )
    assert results["settings"] == json.loads(json.dumps(tournament_settings(t)))
    assert results["fingerprint"] == fingerprint(tournament_settings(t)) and results["elo"]["prior"] == 3.0
    assert sorted(e["engine"] for e in results["engines"]) == ["blue", "red"]
    assert meta(out, "scheduled") == "2" and len(meta(out, "run_tag") or "") == 32
    assert not (out / "traces").exists()  # transcripts only when asked
    assert signal.getsignal(signal.SIGTERM) is before  # the run's SIGTERM handler is undone
    assert not any((out / "live").iterdir()) if (out / "live").exists() else True


def test_a_crash_is_a_forfeit_and_the_standings_rank_the_winner_first(tmp_path):
    out = tmp_path / "out"
    path = tiny(tmp_path, zoo("quitter", "crash") + zoo("stayer"))
    summary = run_tournament(load_tournament(path), out)
    records = games(out)
    assert [(r["termination"], r["players"][r["winner"]]) for r in records] == [("crash", "stayer")] * 2
    assert all("exit code 3; last stderr line: 'zoo: giving up'" in r["reason"] for r in records)
    assert all(r["reason"].endswith(f"(all of it: {out / 'arena.log'})") for r in records)
    assert [r["players"][r["forfeit_seat"]] for r in records] == ["quitter"] * 2
    assert [row[:2] for row in summary.rows] == [[1, "stayer"], [2, "quitter"]]
    rows = standings(summary)
    assert (rows["stayer"]["wins"], rows["stayer"]["losses"], rows["quitter"]["wins"]) == (2, 0, 0)
    assert summary.verdict.code == 0


def test_a_finished_folder_run_again_plays_nothing_and_keeps_its_games(tmp_path, marker):
    path, out = tiny(tmp_path, zoo("a") + zoo("b")), tmp_path / "out"
    run_tournament(load_tournament(path), out)
    first_tag, first, started = meta(out, "run_tag"), games(out), started_pids(marker)
    heard = Heard()
    again = run_tournament(load_tournament(path), out, observers=[heard])
    assert (again.played, again.resumed, again.errors) == (0, 2, [])
    assert heard.said == [("start", 2, [0, 1], None), ("end", "tiny", 2)]
    assert games(out) == first and meta(out, "run_tag") != first_tag
    assert started_pids(marker) == started  # nothing to play: no engine is checked or started
    assert [r[:3] for r in again.rows] == [[1, "a", 2], [2, "b", 2]]


def stop_at_first_game(how: str) -> Heard:
    """An observer that stops the run as the first game is stored: by SIGTERM (the handler the
    run installed, called as the signal would) or by Ctrl-C."""

    class Stopper(Heard):
        def on_game(self, record, finished, total):
            super().on_game(record, finished, total)
            if how == "ctrl-c":
                raise KeyboardInterrupt
            handler = signal.getsignal(signal.SIGTERM)
            assert callable(handler), "the run handles SIGTERM"
            handler(signal.SIGTERM, None)

    return Stopper()


@pytest.mark.parametrize(("how", "code"), [("sigterm", 143), ("ctrl-c", 130)])
def test_a_stopped_run_keeps_its_games_and_the_next_plays_only_the_missing_ones(tmp_path, how, code):
    path, out = tiny(tmp_path, zoo("a") + zoo("b")), tmp_path / "out"
    stopper = stop_at_first_game(how)
    with pytest.raises(RunInterrupted) as stopped:
        run_tournament(load_tournament(path), out, observers=[stopper])
    assert stopped.value.code == code
    assert stopper.said == [("start", 2, [], None), ("game", 0, 1, 2), ("stop",)]
    assert [r["id"] for r in games(out)] == [0]
    text = stopped.value.standings
    assert text is not None and text.startswith("not finished: 1 of 2 scheduled games are stored")
    assert "\nStandings\n" in text and "Bradley-Terry Elo (" not in text and "Head to head" not in text
    partial = json.loads((out / "results.json").read_text())
    assert (partial["games"], partial["scheduled_games"], partial["finished"]) == (1, 2, False)
    assert "not finished" in (out / "standings.md").read_text()
    heard = Heard()
    summary = run_tournament(load_tournament(path), out, observers=[heard])
    assert (summary.played, summary.resumed) == (1, 1)
    assert heard.said == [("start", 2, [0], None), ("game", 1, 2, 2), ("end", "tiny", 2)]
    assert [r["id"] for r in games(out)] == [0, 1]
    assert json.loads((out / "results.json").read_text())["finished"] is True


def test_a_run_stopped_between_a_commit_and_its_line_leaves_games_jsonl_whole(tmp_path, monkeypatch):
    """Ctrl-C landing after the first game's commit and before its line in games.jsonl: the
    stopped run's tables make the mirror whole, as arena.db holds the game."""
    path, out = tiny(tmp_path, zoo("a") + zoo("b")), tmp_path / "out"
    with ctrl_c_before_games_jsonl(monkeypatch), pytest.raises(RunInterrupted) as stopped:
        run_tournament(load_tournament(path), out)
    assert stopped.value.code == 130
    with closing(sqlite3.connect(out / "arena.db")) as db:
        assert db.execute("SELECT id FROM games").fetchall() == [(0,)]
    assert [r["id"] for r in games(out)] == [0]


def test_a_sigterm_a_finalizer_dropped_still_stops_the_run_at_the_next_game_stored(tmp_path, monkeypatch):
    """Python prints and drops an exception raised in a __del__, and a SIGTERM once landed in
    a connection's finalizer while a run started: the run played on and ended as if never
    stopped.  The stop the handler noted is raised again once the next game is stored."""
    dropped: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: dropped.append(unraisable.exc_value))

    class SigtermInAFinalizer:
        def __del__(self):
            handler = signal.getsignal(signal.SIGTERM)
            assert callable(handler), "the run handles SIGTERM"
            handler(signal.SIGTERM, None)

    class StopDroppedAtStart(Heard):
        def on_start(self, total, stored, sprt):
            super().on_start(total, stored, sprt)
            SigtermInAFinalizer()  # freed at once, its exception dropped

    path, out = tiny(tmp_path, zoo("a") + zoo("b")), tmp_path / "out"
    heard = StopDroppedAtStart()
    with pytest.raises(RunInterrupted) as stopped:
        run_tournament(load_tournament(path), out, observers=[heard])
    assert [type(exc) for exc in dropped] == [Terminated]
    assert stopped.value.code == 143
    assert heard.said == [("start", 2, [], None), ("game", 0, 1, 2), ("stop",)]
    assert [r["id"] for r in games(out)] == [0]


def test_a_run_stopped_before_any_game_has_no_standings(tmp_path, caplog):
    class StopAtTheCheck(Heard):
        def on_start_failure(self, engine, reason):
            super().on_start_failure(engine, reason)
            raise KeyboardInterrupt

    path, out = tiny(tmp_path, zoo("dud", "crash_start") + zoo("good")), tmp_path / "out"
    heard = StopAtTheCheck()
    with pytest.raises(RunInterrupted) as stopped:
        run_tournament(load_tournament(path), out, observers=[heard], forfeit_failed_engines=True)
    assert (stopped.value.standings, stopped.value.code) == (None, 130)
    assert [said[0] for said in heard.said] == ["start", "start failure", "stop"]
    assert games(out) == [] and json.loads((out / "results.json").read_text())["finished"] is False


def test_the_tables_of_a_stopped_run_that_cannot_be_written_do_not_fail_the_stop(tmp_path, monkeypatch, caplog):
    def full_disk(summary, out):
        raise OSError("No space left on device")

    monkeypatch.setattr(runner, "write_exports", full_disk)
    with pytest.raises(RunInterrupted) as stopped:
        run_tournament(
            load_tournament(tiny(tmp_path, zoo("a") + zoo("b"))),
            tmp_path / "out",
            observers=[stop_at_first_game("ctrl-c")],
        )
    assert (stopped.value.standings, stopped.value.code) == (None, 130)
    assert said(caplog) == ["could not write the tables of the stopped run"]


# -- engines that fail ------------------------------------------------------------------


def test_an_engine_that_fails_its_start_up_check_stops_the_run_named_with_its_fix(tmp_path):
    path, out = tiny(tmp_path, zoo("good") + zoo("dud", "crash_start")), tmp_path / "out"
    heard = Heard()
    with pytest.raises(StartupFailure) as failed:
        run_tournament(load_tournament(path), out, observers=[heard])
    text = str(failed.value)
    assert text.startswith(f"{path}: engine 'dud' failed its start-up check (crash: ")
    assert (
        "cannot load my weights" in text and "The run stopped before its first game: check the engine's command" in text
    )
    assert "'good'" not in text and text.endswith("its games lost unplayed")
    assert heard.said == [("start", 2, [], None), ("stop",)]
    assert games(out) == []


@pytest.mark.parametrize("chosen", ["flag", "file"])
def test_forfeits_chosen_play_on_and_drop_the_engine_that_cannot_start(tmp_path, chosen, caplog):
    engines = zoo("good") + zoo("dud", "crash_start", extra="max_failures = 1")
    path, out = (
        tiny(tmp_path, engines, extra="forfeit_failed_engines = true" if chosen == "file" else ""),
        tmp_path / "out",
    )
    heard = Heard()
    summary = run_tournament(load_tournament(path), out, observers=[heard], forfeit_failed_engines=chosen == "flag")
    records = games(out)
    assert [r["termination"] for r in records] == ["crash", "dropped"]
    assert all(r["players"][r["forfeit_seat"]] == "dud" and r["players"][r["winner"]] == "good" for r in records)
    [start_failure] = [s for s in heard.said if s[0] == "start failure"]
    assert start_failure[1] == "dud" and start_failure[2].startswith("crash: ")
    why = "1 consecutive failures, the last in game 0: crash: "
    drop = [s for s in heard.said if s[0] == "drop"]
    assert len(drop) == 1 and drop[0][1] == "dud" and drop[0][2].startswith(why)
    assert [s[0] for s in heard.said] == ["start", "start failure", "game", "drop", "game", "end"]
    assert list(summary.dropped) == ["dud"] and summary.dropped["dud"].startswith(why)
    assert f"engine dud failed its start-up check: {start_failure[2]}" in said(caplog)
    assert f"dud dropped after {summary.dropped['dud']}" in said(caplog)
    assert summary.verdict == Verdict("finished with an engine dropped (dud)", 1)
    assert json.loads((out / "results.json").read_text())["dropped"]["dud"].startswith(why)
    # run again: the dropped engine is not started or checked again, and nothing is left to play
    again = run_tournament(load_tournament(path), out, forfeit_failed_engines=chosen == "flag")
    assert (again.played, again.resumed, list(again.dropped)) == (0, 2, ["dud"])


DECLARING = """\
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "arena":
        print("id name declaring\\noption name depth type int default 3 min 1 max 9\\narenaok 1", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "quit":
        break
"""


def test_options_an_engine_did_not_declare_refuse_the_run_before_its_first_game(tmp_path):
    script = tmp_path / "declaring.py"
    script.write_text(DECLARING)
    engines = engine_toml("one", "{python}", str(script), extra="options = { dpeth = 3 }")
    engines += engine_toml("two", "{python}", str(script), extra="options = { depth = 10 }")
    path, out = tiny(tmp_path, engines), tmp_path / "out"
    with pytest.raises(ConfigError) as refused:
        run_tournament(load_tournament(path), out)
    text = str(refused.value)
    assert text.startswith(f"{path}: engine 'one': option 'dpeth' is not one the engine declared")
    assert "; engine 'two': option 'depth' = '10': out of its range 1..9" in text
    assert text.endswith(". Fix the engine's entry (or the engine).")
    assert games(out) == []


def test_time_losses_are_counted_in_the_closing_text_with_the_load(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")  # the closing text is fitted to a terminal this wide
    path, out = tiny(tmp_path, zoo("hanger", "hang") + zoo("mover"), movetime=20), tmp_path / "out"
    said: list[str] = []
    watch = LoadWatch(warn=said.append, source=lambda: 9.0, cores=1)
    summary = run_tournament(load_tournament(path), out, load=watch)
    records = games(out)
    assert [(r["termination"], r["players"][r["forfeit_seat"]]) for r in records] == [("timeout", "hanger")] * 2
    assert summary.table.endswith("\ntimeouts 2 in this run (2 under load 9.0 on 1 core); the\n  losses stand\n")
    assert max(len(line) for line in summary.table.splitlines()) <= 60
    assert len(said) == 1 and "game 0 was lost on time" in said[0]


def test_the_standings_of_a_stopped_run_count_its_time_losses(tmp_path):
    path = tiny(tmp_path, zoo("hanger", "hang") + zoo("mover"), movetime=20)
    with pytest.raises(RunInterrupted) as stopped:
        run_tournament(
            load_tournament(path),
            tmp_path / "out",
            load=LoadWatch(source=lambda: 0.5, cores=1),
            observers=[stop_at_first_game("ctrl-c")],
        )
    assert stopped.value.standings is not None
    assert stopped.value.standings.endswith(
        "\ntimeouts 1 in this run (none under load: load average at most 0.5 on 1 core)\n"
    )


def test_a_game_arena_failed_to_play_is_named_and_the_others_are_stored(tmp_path, monkeypatch, caplog):
    def broken_for_game_1(self, scheduled):
        return 1 / 0 if scheduled.index == 1 else None

    monkeypatch.setattr(Worker, "_transcript", broken_for_game_1)  # the worker is forked: it inherits it
    out = tmp_path / "out"
    summary = run_tournament(load_tournament(tiny(tmp_path, zoo("a") + zoo("b"))), out)
    assert summary.errors == ["game 1 not recorded: internal error ZeroDivisionError: division by zero (see arena.log)"]
    assert summary.errors[0] in [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert summary.verdict == Verdict("1 game(s) not recorded; run the same command again to play them", 1)
    assert (summary.played, [r["id"] for r in games(out)]) == (1, [0])
    assert json.loads((out / "results.json").read_text())["not_recorded"] == summary.errors


def test_a_run_sweeps_up_the_processes_a_killed_run_left_on_its_folder(tmp_path, caplog):
    path, out = tiny(tmp_path, zoo("a") + zoo("b")), tmp_path / "out"
    run_tournament(load_tournament(path), out)
    tag = meta(out, "run_tag")
    assert tag
    env = {"PATH": "/usr/bin:/bin", proctree.RUN_TAG: tag}
    left = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)
    try:
        deadline = time.monotonic() + 5
        while not proctree.tagged_pids(tag, proctree.RUN_TAG):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        with caplog.at_level(logging.WARNING, logger="arena.runner"):
            run_tournament(load_tournament(path), out)
        assert left.wait(timeout=5) == -signal.SIGKILL
        assert "killed processes left behind by an earlier run on this folder" in said(caplog)
    finally:
        left.kill()
        left.wait()


def test_a_folder_whose_game_is_not_the_tournaments_is_refused_naming_it(tmp_path):
    path, out = tiny(tmp_path, zoo("a") + zoo("b")), tmp_path / "out"
    run_tournament(load_tournament(path), out)
    with closing(sqlite3.connect(out / "arena.db")) as db:
        (record,) = db.execute("SELECT record FROM games WHERE id = 1").fetchone()
        changed = json.loads(record) | {"players": ["a", "b"]}
        db.execute("UPDATE games SET record = ?, players = ? WHERE id = 1", (json.dumps(changed), '["a", "b"]'))
        db.commit()
    with pytest.raises(StorageError) as refused:
        run_tournament(load_tournament(path), out)
    assert str(refused.value).startswith(f"{out / 'arena.db'} holds 1 game(s) that are not the tournament's as played")
    assert "game 1: " in str(refused.value)


def test_a_knockout_draws_its_tie_break_pair_as_a_second_wave(tmp_path):
    """Both engines win as Red: the match is tied 1-1, so its one tie-break pair is drawn from
    the stored games and played by a new set of workers; still tied, the higher seed goes through."""
    heard = Heard()
    path = tiny(tmp_path, zoo("a") + zoo("b"), extra='format = "knockout"\ntiebreak_pairs = 1')
    summary = run_tournament(load_tournament(path), tmp_path / "out", observers=[heard])
    assert heard.said[0] == ("start", 2, [], None)
    assert [s[1:] for s in heard.said if s[0] == "game"] == [(0, 1, 2), (1, 2, 2), (2, 3, 4), (3, 4, 4)]
    assert (summary.played, summary.verdict.code) == (4, 0)
    assert [r["id"] for r in games(tmp_path / "out")] == [0, 1, 2, 3] and meta(tmp_path / "out", "scheduled") == "4"
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert (results["games"], results["scheduled_games"], results["finished"]) == (4, 4, True)


def test_a_knockout_whose_game_was_not_recorded_draws_no_next_wave(tmp_path, monkeypatch):
    """Game 1 fails (arena's own error): the match cannot be decided from its games, and no
    tie-break pair is drawn from a wave with a game missing; the run says what to do."""
    monkeypatch.setattr(Worker, "_transcript", lambda self, scheduled: 1 / 0 if scheduled.index == 1 else None)
    path = tiny(tmp_path, zoo("a") + zoo("b"), extra='format = "knockout"\ntiebreak_pairs = 1')
    summary = run_tournament(load_tournament(path), tmp_path / "out")
    assert [r["id"] for r in games(tmp_path / "out")] == [0] and len(summary.errors) == 1
    assert summary.verdict.code == 1 and summary.played == 1


SPRT = "[sprt]\nelo0 = 0\nelo1 = 200\nalpha = 0.4\nbeta = 0.4\n"


def test_an_sprt_that_decides_stops_the_run_and_a_resume_plays_nothing_more(tmp_path, caplog):
    engines = zoo("new") + zoo("old", "crash", extra="max_failures = 0")  # old loses every game
    path, out = tiny(tmp_path, engines, rounds=50, extra=SPRT), tmp_path / "out"
    heard = Heard()
    with caplog.at_level(logging.INFO, logger="arena.runner"):
        summary = run_tournament(load_tournament(path), out, observers=[heard])
    [decided] = [line for line in said(caplog) if line.startswith("SPRT")]
    assert decided.startswith("SPRT: new passes after 1 pairs (LLR ") and decided.endswith(" [0, 200] normalized)")
    total, _, sprt = heard.said[0][1:]
    assert total == 100 and sprt is not None and sprt.engine == "new"
    ids = [r["id"] for r in games(out)]
    assert ids == list(range(len(ids))) and len(ids) in (2, 3)  # the game in play when it decided is kept
    assert summary.sprt is not None and (summary.sprt.decision, summary.sprt.pairs) == ("H1", 1)
    assert summary.verdict == Verdict("finished: SPRT new passes after 1 pairs", 0)
    again = run_tournament(load_tournament(path), out)
    assert (again.played, again.resumed, again.verdict) == (0, len(ids), summary.verdict)


def test_a_traced_run_keeps_each_games_transcript_in_the_folder(tmp_path):
    out = tmp_path / "out"
    run_tournament(load_tournament(tiny(tmp_path, zoo("a") + zoo("b"))), out, trace=True)
    assert sorted(p.name for p in (out / "traces").iterdir()) == ["game-0.txt", "game-1.txt"]
    assert (out / "traces" / "game-1.txt").read_text().startswith("# arena trace: ")


def test_an_engine_dropped_before_a_stop_is_neither_checked_nor_started_when_the_run_goes_on(tmp_path):
    """The first run forfeits the dud's games, drops it after its first and stops after its second
    (a dropped one); the next, without forfeits, would stop at the dud's start-up check if it
    checked it again."""

    class StopAtTheSecondGame(Heard):
        def on_game(self, record, finished, total):
            super().on_game(record, finished, total)
            if finished == 2:
                raise KeyboardInterrupt

    engines = zoo("good") + zoo("dud", "crash_start", extra="max_failures = 1")
    path, out = tiny(tmp_path, engines, rounds=2), tmp_path / "out"
    with pytest.raises(RunInterrupted):
        run_tournament(load_tournament(path), out, observers=[StopAtTheSecondGame()], forfeit_failed_engines=True)
    assert [r["termination"] for r in games(out)] == ["crash", "dropped"]
    partial = json.loads((out / "results.json").read_text())  # the stopped run's tables name the drop
    assert partial["finished"] is False and list(partial["dropped"]) == ["dud"]
    summary = run_tournament(load_tournament(path), out)
    assert (summary.played, summary.resumed, list(summary.dropped)) == (2, 2, ["dud"])
    assert [r["termination"] for r in games(out)] == ["crash"] + ["dropped"] * 3


def test_a_stopped_runs_tables_keep_the_reason_an_earlier_run_gave_for_a_drop(tmp_path, monkeypatch):
    """The first run drops the dud and ends with its first game not recorded (arena's failure),
    noting why it dropped the dud; the next plays that game and is stopped as it is stored."""
    monkeypatch.setattr(Worker, "_transcript", lambda self, scheduled: 1 / 0 if scheduled.index == 0 else None)
    engines = zoo("good") + zoo("dud", "crash_start", extra="max_failures = 1")
    path, out = tiny(tmp_path, engines, rounds=2, extra="forfeit_failed_engines = true"), tmp_path / "out"
    first = run_tournament(load_tournament(path), out)
    assert len(first.errors) == 1 and first.dropped["dud"].startswith("1 consecutive failures, the last in game 1")
    monkeypatch.undo()
    with pytest.raises(RunInterrupted):
        run_tournament(load_tournament(path), out, observers=[stop_at_first_game("ctrl-c")])
    assert sorted(r["id"] for r in games(out)) == [0, 1, 2, 3]  # games.jsonl in the order stored
    partial = json.loads((out / "results.json").read_text())
    assert partial["games"] == 4 and partial["dropped"] == first.dropped  # not the records' own words


def test_the_callers_workers_and_idle_engines_override_the_files(tmp_path, caplog):
    """Three engines, one worker keeping no idle engine: it quits the engine the next game does not
    need, so more engines are started than the three the file's bound (four idle) keeps."""
    runs = {}
    for idle in (None, 0):
        folder = tmp_path / f"idle-{idle}"
        folder.mkdir()
        starts = folder / "starts"
        engines = "".join(zoo(name, extra=f'env = {{ ZOO_PIDS = "{starts}" }}') for name in "abc")
        path = tiny(folder, engines, workers=2)
        with caplog.at_level(logging.INFO, logger="arena.runner"):
            summary = run_tournament(load_tournament(path), folder / "out", workers=1, idle_engines=idle)
        assert summary.played == 6
        runs[idle] = len(starts.read_text().split()) - 3  # less the start-up check's
    assert runs[None] == 3 and runs[0] > 3, runs
    assert said(caplog).count("tiny: 6 games scheduled, 0 already played, 1 workers") == 2


def test_a_run_off_the_main_thread_leaves_the_signals_alone(tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    path = tiny(tmp_path, zoo("a") + zoo("b"))
    done: list[runner.RunSummary] = []
    thread = threading.Thread(target=lambda: done.append(run_tournament(load_tournament(path), tmp_path / "out")))
    thread.start()
    thread.join(timeout=20)
    assert [s.played for s in done] == [2] and signal.getsignal(signal.SIGTERM) is before


def test_a_game_whose_worker_keeps_dying_is_named_with_the_reason(tmp_path, monkeypatch):
    def die_in_game_1(self, scheduled):
        if scheduled.index == 1:
            os._exit(9)

    monkeypatch.setattr(Worker, "_transcript", die_in_game_1)
    out = tmp_path / "out"
    summary = run_tournament(load_tournament(tiny(tmp_path, zoo("a") + zoo("b"))), out)
    [error] = summary.errors
    assert error.startswith("game 1 not recorded: ") and "exit code 9" in error
    assert [r["id"] for r in games(out)] == [0] and summary.verdict.code == 1


# -- `arena play`'s series --------------------------------------------------------------


GOOD = EngineSpec("good", (sys.executable, ZOO, "good"))


def series(specs, names, games: int = 3, seed: int = 11, trace_dir: Path | None = None) -> list[SeriesGame]:
    return list(
        play_series(
            make_game("hex", HEX3_GAME),
            specs,
            names,
            games=games,
            seed=seed,
            time_control=TimeControl(movetime_ms=100, margin_ms=100),
            trace_dir=trace_dir,
        )
    )


def test_a_series_rotates_the_seats_shares_a_seed_per_round_and_quits_its_engines(marker):
    played = series([GOOD, GOOD], [None, "second"])
    assert [g.number for g in played] == [0, 1, 2] and [g.order for g in played] == [[0, 1], [1, 0], [0, 1]]
    records = [g.record for g in played]
    assert [r["players"] for r in records] == [["zoo-good", "second"], ["second", "zoo-good"], ["zoo-good", "second"]]
    assert [r["seed"] for r in records] == [11, 11, derive_seed(11, "round", 1)]
    assert [result_text(r) for r in records] == [
        "zoo-good wins (normal: Red connected)",
        "second wins (normal: Red connected)",
        "zoo-good wins (normal: Red connected)",
    ]
    points: dict[str, float] = {}
    for r in records:
        score(points, r)
    assert points == {"zoo-good": 2.0, "second": 1.0}
    assert all(g.trace is None for g in played)
    assert len(started_pids(marker)) == 2  # each engine started once for the three games
    wait_until_gone(marker)


def test_engines_of_the_same_name_are_told_apart_by_their_seat(marker):
    played = series([GOOD, GOOD], [None, None], games=1)
    assert played[0].record["players"] == ["zoo-good-0", "zoo-good-1"]
    assert unique_names(["a", "b", "a"]) == ["a-0", "b", "a-2"] and unique_names(["a", "b"]) == ["a", "b"]
    wait_until_gone(marker)


def test_a_series_traces_each_game_to_its_own_transcript(tmp_path, marker):
    played = series([GOOD, GOOD], ["a", "b"], games=2, seed=5, trace_dir=tmp_path / "traces")
    assert [g.trace for g in played] == [tmp_path / "traces" / "game-5-1.txt", tmp_path / "traces" / "game-5-2.txt"]
    first = (tmp_path / "traces" / "game-5-1.txt").read_text().splitlines()
    assert first[0] == "# arena trace: game 1 of 2, seed 5: hex size=3 swap=false"
    assert first[2].endswith(" 0 a > arena 1") and any(line.endswith(" 1 b > arena 1") for line in first)
    assert any(" 1 b < move " in line for line in first) and not any(" 0 b " in line for line in first)
    second = (tmp_path / "traces" / "game-5-2.txt").read_text()
    assert " 0 b > newgame hex 0 2 size=3 swap=false\n" in second and " 1 a > newgame hex 1 2 " in second
    assert "arena 1" not in second and second.endswith(" 1 a > gameover 1 0 Red connected\n")  # no quit: detached
    wait_until_gone(marker)


def test_an_engine_that_cannot_start_for_the_first_game_stops_the_series(marker):
    dud = EngineSpec("dud", (sys.executable, ZOO, "crash_start"))
    for specs, index in (([dud, GOOD], 0), ([GOOD, dud], 1)):
        with pytest.raises(StartFailure) as failed:
            series(specs, [None, None])
        assert failed.value.index == index and failed.value.fault.code == "crash"
        assert "cannot load my weights" in str(failed.value) and str(failed.value) == failed.value.fault.reason
        assert str(failed.value).endswith("(all of it: not kept; run arena play with --trace)")
    wait_until_gone(marker)


def test_an_engine_that_faults_is_restarted_and_one_that_then_cannot_start_forfeits(tmp_path, marker):
    flag = tmp_path / "started"
    once = f"[ -e {flag} ] && exit 2; touch {flag}; exec {sys.executable} {ZOO} crash"  # crashes at its first move
    played = series([EngineSpec("once", ("/bin/sh", "-c", once)), GOOD], [None, None], games=3)
    records = [g.record for g in played]
    assert [(r["termination"], r["forfeit_seat"], r["winner"]) for r in records] == [
        ("crash", 0, 1),
        ("crash", 1, 0),
        ("crash", 0, 1),
    ]
    assert records[0]["moves"] == [] and "exit code 3" in records[0]["reason"]
    assert records[0]["reason"].endswith("(all of it: not kept; run arena play with --trace)")
    assert [r["players"] for r in records] == [["zoo-crash", "zoo-good"], ["zoo-good", "zoo-crash"]] + [
        ["zoo-crash", "zoo-good"]
    ]
    assert records[1]["engine_seeds"] == [] and records[1]["seed"] == 11  # lost before its start
    assert records[2]["seed"] == derive_seed(11, "round", 1)
    assert [result_text(r).split(" (")[0] for r in records] == ["zoo-good wins"] * 3
    wait_until_gone(marker)


def test_a_series_left_early_quits_its_engines(marker):
    games_ = play_series(
        make_game("hex", HEX3_GAME),
        [GOOD, GOOD],
        [None, None],
        games=5,
        seed=1,
        time_control=TimeControl(movetime_ms=100),
    )
    assert next(games_).number == 0
    games_.close()
    wait_until_gone(marker)


def test_three_seats_rotate_one_place_a_game_and_a_round_is_three_games():
    rand = EngineSpec("random", (sys.executable, "-m", "engines.random_engine"), cwd=str(ROOT))
    played = list(
        play_series(
            make_game("posies", {"players": 3}),
            [rand] * 3,
            ["a", "b", "c"],
            games=4,
            seed=2,
            time_control=TimeControl(movetime_ms=1000),
        )
    )
    assert [g.order for g in played] == [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 1, 2]]
    assert [g.record["players"] for g in played][:3] == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]
    assert [g.record["seed"] for g in played] == [2, 2, 2, derive_seed(2, "round", 1)]


NAMELESS = """\
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "arena":
        print("arenaok 1", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        print("resign", flush=True)
    elif word == "quit":
        break
"""


def test_an_engine_that_gives_no_name_is_called_by_its_entrys(tmp_path, marker):
    script = tmp_path / "nameless.py"
    script.write_text(NAMELESS)
    [game] = series([EngineSpec("nameless", (sys.executable, str(script))), GOOD], [None, None], games=1)
    assert game.record["players"] == ["nameless", "zoo-good"]
    assert result_text(game.record) == "zoo-good wins (resign: nameless (seat 0): resigned)"
    wait_until_gone(marker)


def test_an_engine_that_faulted_but_lives_on_is_replaced_for_the_next_game(marker):
    """The zoo's hanger sleeps instead of moving: kept, it would not answer the next game's isready."""
    played = series([EngineSpec("hanger", (sys.executable, ZOO, "hang")), GOOD], [None, None], games=2)
    assert [(g.record["termination"], g.record["forfeit_seat"]) for g in played] == [("timeout", 0), ("timeout", 1)]
    assert len(started_pids(marker)) == 3  # the hanger twice
    wait_until_gone(marker)


GROUPS_ONLY = NAMELESS.replace('print("arenaok 1"', 'print("id games groups\\narenaok 1"')
GTP_HEX = str(ROOT / "tests" / "engines" / "gtp_hex_engine.py")


def test_an_engine_is_refused_at_its_start_for_a_game_or_board_it_does_not_play(tmp_path, marker):
    script = tmp_path / "groups_only.py"
    script.write_text(GROUPS_ONLY)
    with pytest.raises(StartFailure) as refused:
        series([GOOD, EngineSpec("groups", (sys.executable, str(script)))], [None, None])
    assert refused.value.index == 1 and "declares that it plays groups ('id games'), not hex" in str(refused.value)
    small = EngineSpec("small", (sys.executable, GTP_HEX, "--max-size", "2"), protocol="gtp")
    with pytest.raises(StartFailure) as refused:
        series([small, GOOD], [None, None])
    assert refused.value.index == 0 and "boardsize 3" in str(refused.value)
    wait_until_gone(marker)


def test_a_traced_series_keeps_an_engines_stderr_in_the_games_transcript(tmp_path, marker):
    traces = tmp_path / "traces"
    with pytest.raises(StartFailure) as failed:
        series([EngineSpec("dud", (sys.executable, ZOO, "crash_start")), GOOD], [None, None], trace_dir=traces)
    assert str(failed.value).endswith(f"(all of it: {traces / 'game-11-1.txt'})")
    [game] = series(
        [EngineSpec("crasher", (sys.executable, ZOO, "crash")), GOOD], [None, None], games=1, seed=3, trace_dir=traces
    )
    assert game.record["termination"] == "crash" and game.record["reason"].endswith(
        f"(all of it: {traces / 'game-3-1.txt'})"
    )
    assert "! zoo: giving up" in (traces / "game-3-1.txt").read_text()
    wait_until_gone(marker)


def test_a_draw_shares_its_point_and_says_the_scores():
    record = GameRecord(
        game="hex",
        moves=[],
        id=0,
        players=["a", "b", "c"],
        termination="max-plies",
        reason="ply limit",
        scores=[0.5, 0.5, 0.0],
        places=[0, 0, 2],
        winner=None,
    )
    points = {"a": 1.0}
    score(points, record)
    assert points == {"a": 1.5, "b": 0.5, "c": 0.0}
    assert result_text(record) == "scores 0.5 0.5 0 (max-plies: ply limit)"


# -- `arena check-engine`'s setup -------------------------------------------------------


def test_check_setup_builds_the_engine_the_flags_say():
    setup = check_setup(["python3", "my engine.py"], ["hex"], "gtp", 250, ["boardsize 5"], {"size": 5})
    spec = setup.spec
    assert (
        spec.name == "engine"
        and spec.command[1:] == ("my engine.py",)
        and Path(spec.command[0]).name.startswith("python3")
    )
    assert (spec.protocol, spec.handshake_ms, spec.init, spec.cwd, spec.sandbox) == (
        "gtp",
        250,
        ("boardsize 5",),
        None,
        None,
    )
    assert setup.board == {"size": 5}
    one = check_setup(["python3 -c 'print(1)'"], [], "arena", 100, [], {}).spec
    assert one.command[1:] == ("-c", "print(1)") and one.protocol == "arena" and one.init == ()
    with pytest.raises(FlagError) as refused:  # the one engine checked is engine 0
        check_setup(["no-such-program-here", "--fast"], [], "arena", 100, [], {})
    assert str(refused.value) == "engine 0: command 'no-such-program-here' is not on PATH; give a path or install it"


def test_check_setup_in_the_sandbox_sees_this_folder(monkeypatch):
    monkeypatch.setattr(enginecheck, "sandbox_problem", lambda: None)
    spec = check_setup(["python3"], [], "arena", 100, [], {}, sandbox=True).spec
    assert spec.sandbox == Sandbox() and spec.cwd == str(Path.cwd())
    monkeypatch.setattr(enginecheck, "sandbox_problem", lambda: "bubblewrap is not installed")
    with pytest.raises(FlagError, match=r"^--sandbox: bubblewrap is not installed$"):
        check_setup(["python3"], [], "arena", 100, [], {}, sandbox=True)


@pytest.mark.parametrize(
    ("games", "protocol", "inits", "board", "refusal"),
    [
        (
            [],
            "arena",
            ["boardsize 5"],
            {},
            "--init is for GTP engines (--protocol gtp); a protocol-1 engine gets options instead",
        ),
        ([], "arena", [], {"size": 5}, "-O: name the game it is for with --game (e.g. --game hex -O size=11)"),
        (
            ["hex"],
            "arena",
            [],
            {"sise": 5},
            "-O: hex: unknown option 'sise' (did you mean 'size'? allowed: size, swap)",
        ),
        ([], "gtp", [], {"size": 99}, "-O: hex: option 'size': Input should be less than or equal to 26 (got 99)"),
        ([], "gtp", ["boardsize 5\nquit"], {}, "--init 'boardsize 5\\nquit': one GTP command on one line"),
        ([], "gtp", ["komi 0\r"], {}, "--init 'komi 0\\r': one GTP command on one line"),
        ([], "gtp", ["  "], {}, "--init '  ': one GTP command on one line"),
    ],
)
def test_check_setup_refuses_flags_that_do_not_fit_naming_the_flag(games, protocol, inits, board, refusal):
    with pytest.raises(FlagError) as refused:
        check_setup(["python3"], games, protocol, 100, inits, board)
    assert str(refused.value) == refusal


def test_a_command_line_is_split_and_its_program_found_or_refused_naming_its_seat(tmp_path, monkeypatch):
    spec = command_spec(2, "python3 -c 'print(1)'", "gtp")
    assert spec.name == "seat2" and spec.command[1:] == ("-c", "print(1)") and spec.protocol == "gtp"
    assert command_spec(0, "python3").protocol == "arena"
    engine = tmp_path / "engine.sh"
    engine.write_text("#!/bin/sh\n")
    engine.chmod(0o755)
    monkeypatch.chdir(tmp_path)  # a path with a folder in it is found from the working folder
    assert command_spec(0, "./engine.sh --fast").command == (str(tmp_path / "engine.sh"), "--fast")
    refusals = [
        (3, 'python3 "unclosed', "engine 3: cannot split command 'python3 \"unclosed': No closing quotation"),
        (1, "   ", "engine 1: empty command"),
        (
            4,
            "no-such-program-here",
            "engine 4: command 'no-such-program-here' is not on PATH; give a path or install it",
        ),
    ]
    for seat, command, refusal in refusals:
        with pytest.raises(FlagError) as refused:
            command_spec(seat, command)
        assert str(refused.value) == refusal


# -- the local executor and the observers -----------------------------------------------


def worker_config(engines: dict[str, EngineSpec], **kw) -> WorkerConfig:
    return WorkerConfig("t", "hex", dict(HEX3_GAME), engines, TimeControl(movetime_ms=100), **kw)


def test_the_watchdog_allows_the_longest_game_of_the_slowest_engines_at_the_loosest_clock():
    slow = EngineSpec("slow", ("x",), handshake_ms=5000)
    quick = EngineSpec("quick", ("x",), handshake_ms=100)
    gtp = EngineSpec("gtp", ("x",), protocol="gtp", handshake_ms=50)
    engines = {"gtp": gtp, "slow": slow, "quick": quick}
    loose = TimeControl(movetime_ms=2000)
    config = worker_config(engines, time_controls={"quick": loose})
    game = make_game("hex", HEX3_GAME)
    assert watchdog_limit(config) == longest_game_s(game, loose, [slow, gtp]) + local.WATCHDOG_GRACE
    assert (
        watchdog_limit(worker_config(engines)) == longest_game_s(game, TimeControl(movetime_ms=100), [slow, gtp]) + 30.0
    )
    # no handshake_ms: the default limit, slower than any given here
    default = EngineSpec("default", ("x",))
    assert watchdog_limit(worker_config({"default": default, "quick": quick, "slow": slow})) == (
        longest_game_s(game, TimeControl(movetime_ms=100), [slow, default]) + 30.0
    )


def test_a_worker_keeps_every_engine_unless_the_bound_can_make_it_quit_one():
    three = {name: GOOD for name in "abc"}
    assert idle_bound(worker_config(three)) is None  # no bound
    assert idle_bound(worker_config(three, idle_engines=1)) is None  # 2 seats + 1 idle: all three fit
    assert idle_bound(worker_config(three, idle_engines=0)) == 0
    assert idle_bound(worker_config({**three, "d": GOOD}, idle_engines=1)) == 1


def test_a_workers_finished_game_gets_its_schedules_numbers_and_says_how_it_ended_unless_the_rules_ended_it(caplog):
    from arena.record import Termination
    from arena.tournament.schedule import ScheduledGame

    worker = Worker(worker_config({"a": GOOD, "b": GOOD}))
    scheduled = ScheduledGame(7, 2, ("a", "b"), seed=1)
    ended = {
        how: GameRecord(game="hex", moves=["a1"], players=["a", "b"], termination=how, reason=f"{how} here")
        for how in (Termination.NORMAL, Termination.MAX_PLIES, Termination.CRASH)
    }
    with caplog.at_level(logging.INFO, logger="arena.runner"):
        finished = {how: worker._finish(record, scheduled) for how, record in ended.items()}
    assert [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "arena.runner"] == [
        (logging.INFO, "game 7: max-plies: max-plies here"),
        (logging.WARNING, "game 7: crash here"),
    ]
    for how, record in finished.items():
        assert record == ended[how].replace(id=7, round=2, tournament="t")


class StandInEngine:
    """A running engine as a worker sees it: killed, traced, its stderr kept."""

    proc = None
    alive = True

    def __init__(self, stderr: str = "") -> None:
        self.trace: object = "its game's transcript"
        self.killed = False
        self.stderr = stderr

    def kill(self) -> None:
        self.killed = True

    def stderr_text(self) -> str:
        return self.stderr


def test_a_faulted_engine_is_killed_untraced_swept_after_and_the_tail_of_its_stderr_logged_once(monkeypatch, caplog):
    from arena.tournament.worker import STDERR_LOGGED

    swept: list[set[int]] = []
    monkeypatch.setattr(proctree, "kill_adopted", lambda keep, quiet=False: swept.append(keep))
    worker = Worker(worker_config({"a": GOOD, "b": GOOD}))
    faulted = StandInEngine("early\n" + "e" * STDERR_LOGGED)
    worker.engines["a"] = faulted  # type: ignore[assignment]
    with caplog.at_level(logging.WARNING, logger="arena.runner"):
        worker.discard("a")
        worker.discard("a")  # gone already: nothing more
        worker.discard("b")  # never started: nothing
    assert faulted.killed and faulted.trace is None and worker.engines == {} and swept == [set()]
    assert [r.getMessage() for r in caplog.records if r.name == "arena.runner"] == [
        f"a: last {STDERR_LOGGED} characters of stderr:\n" + "e" * STDERR_LOGGED
    ]


def test_a_retired_engine_quits_in_the_background_and_the_next_start_sweeps_what_it_left(monkeypatch):
    swept: list[set[int]] = []
    monkeypatch.setattr(proctree, "kill_adopted", lambda keep, quiet=False: swept.append(keep))
    worker = Worker(worker_config({"a": GOOD, "b": GOOD}))
    worker._await_room(2)
    assert swept == []  # nothing retired yet: nothing to sweep
    quitting: list[object] = []
    monkeypatch.setattr(worker.retiring, "retire", quitting.append)
    idle = StandInEngine()
    worker.engines["a"] = idle  # type: ignore[assignment]
    worker.retire("a")
    worker.retire("a")  # gone already: nothing more
    worker.retire("b")  # never started: nothing
    assert quitting == [idle] and worker.engines == {} and swept == []
    worker._await_room(2)
    worker._await_room(2)
    assert swept == [set()]  # swept once, before the next engine starts


def test_a_worker_shut_down_without_a_signal_lets_its_engines_quit_then_sweeps(monkeypatch):
    swept: list[set[int]] = []
    monkeypatch.setattr(proctree, "kill_adopted", lambda keep, quiet=False: swept.append(keep))
    worker = Worker(worker_config({"a": GOOD, "b": GOOD}))
    quitting: list[object] = []
    monkeypatch.setattr(worker.retiring, "retire", quitting.append)
    engines = [StandInEngine(), StandInEngine()]
    worker.engines = dict(zip("ab", engines))  # type: ignore[arg-type]
    worker.shutdown()
    assert quitting == engines and not any(engine.killed for engine in engines) and swept == [set()]


def test_a_bounded_worker_lets_go_now_of_the_idle_engines_the_plan_does_not_keep(monkeypatch):
    from arena.tournament import worker as worker_module

    def quitting_of(idle_engines: int | None, planned: tuple[str, ...] | None) -> list[object]:
        monkeypatch.setattr(worker_module, "planned_keep", lambda: planned)
        worker = Worker(worker_config({name: GOOD for name in "abcd"}, idle_engines=idle_engines))
        quitting: list[object] = []
        monkeypatch.setattr(worker.retiring, "retire", quitting.append)
        engines = {name: StandInEngine() for name in "abcd"}
        worker.engines = dict(engines)  # type: ignore[arg-type]
        worker.let_go_unplanned(["a", "b"])
        return [name for name, engine in engines.items() if engine in quitting]

    assert quitting_of(1, ("c",)) == ["d"]  # playing a and b; the plan keeps c
    assert quitting_of(None, ("c",)) == []  # no bound: every engine stays
    assert quitting_of(1, None) == []  # no plan (outside a pool): the bound alone decides, later


class StandInRetiring:
    """Engines told to quit and not yet gone: always some, the waits asked of them kept."""

    def __init__(self) -> None:
        self.waits: list[int] = []

    def __bool__(self) -> bool:
        return True

    def wait_fewer(self, most: int) -> None:
        self.waits.append(most)

    def pids(self) -> set[int]:
        return set()


def test_before_an_engine_starts_a_bounded_worker_waits_until_the_quitting_leave_it_room(monkeypatch):
    """Alive, quitting and the one starting never exceed the bound beside the game's seats."""
    from arena.engine.transport import QUIT_GRACE
    from arena.tournament import worker as worker_module

    reported: list[float | None] = []
    monkeypatch.setattr(worker_module, "report_progress", reported.append)

    def waits(idle_engines: int | None, players: int, running: int) -> list[int]:
        worker = Worker(worker_config({name: GOOD for name in "abcd"}, idle_engines=idle_engines))
        worker.retiring = StandInRetiring()  # type: ignore[assignment]
        worker.engines = {name: StandInEngine() for name in "abcd"[:running]}  # type: ignore[misc]
        worker._await_room(players)
        return worker.retiring.waits  # type: ignore[attr-defined]

    assert waits(1, 2, 1) == [1]  # 1 running + 1 quitting + 1 starting = 1 idle + 2 seats
    assert waits(0, 2, 1) == [0]
    assert waits(2, 3, 0) == [4]
    assert reported == [QUIT_GRACE] * 3  # the watchdog times each wait
    assert waits(None, 2, 1) == [] and len(reported) == 3  # no bound: no wait


class StartingEngine(StandInEngine):
    """A stand-in engine just opened: started by the worker, its start-up timed and traced."""

    start_limit = 7.5

    def start(self) -> None:
        self.traced_from_start = self.trace


def test_a_worker_starts_an_engine_for_its_game_traced_from_its_start_up_and_reuses_it_while_alive(monkeypatch):
    from arena.engine.transport import QUIT_GRACE
    from arena.tournament import worker as worker_module

    opened: list[tuple[object, ...]] = []

    def open_engine(spec, pipe, game, board):
        opened.append((spec, pipe, game, board))
        return StartingEngine()

    reported: list[float | None] = []
    monkeypatch.setattr(worker_module, "open_engine", open_engine)
    monkeypatch.setattr(worker_module, "report_progress", reported.append)
    worker = Worker(worker_config({"a": GOOD, "b": GOOD}, idle_engines=0))
    worker.retiring = StandInRetiring()  # type: ignore[assignment]
    trace = object()
    engine = worker.engine("a", trace)  # type: ignore[arg-type]
    assert opened == [(GOOD, worker.pipe, "hex", worker.game)] and worker.engines == {"a": engine}
    assert engine.traced_from_start is trace and engine.trace is trace  # type: ignore[attr-defined]
    assert reported == [QUIT_GRACE, StartingEngine.start_limit]  # the watchdog times the wait, then the start-up
    assert worker.retiring.waits == [0]  # type: ignore[attr-defined]  # one seat: no idle engine beside it
    assert worker.engine("a") is engine and engine.trace is None and len(opened) == 1  # alive: reused


def test_a_workers_engines_run_with_the_runs_settings_and_share_its_core_only_if_asked_and_it_has_two(monkeypatch):
    from arena.engine.transport import PipeSettings
    from arena.engine.waiting import CoreShare

    monkeypatch.setattr(proctree, "usable_cpus", lambda: [0, 1])
    engines = {"a": GOOD, "b": GOOD}
    worker = Worker(worker_config(engines, run_tag="tag", spin=False, stderr_home="/kept"))
    assert worker.pipe == PipeSettings("tag", False, None, "/kept") and worker.live is None
    shared = Worker(worker_config(engines, share_core=True))
    assert isinstance(shared.share, CoreShare) and shared.pipe == PipeSettings("", True, shared.share, "")
    monkeypatch.setattr(proctree, "usable_cpus", lambda: [0])
    assert Worker(worker_config(engines, share_core=True)).share is None  # one CPU: nothing to share


def test_affinity_without_cpu_pinning_is_said_and_the_run_goes_on(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(proctree, "can_pin", lambda: False)
    path = tiny(tmp_path, zoo("a") + zoo("b"), extra="affinity = true")
    with caplog.at_level(logging.WARNING, logger="arena.runner"):
        summary = run_tournament(load_tournament(path), tmp_path / "out")
    assert summary.played == 2
    assert "affinity = true needs CPU affinity (Linux); this system has none, so workers are not pinned" in said(caplog)
    caplog.clear()
    LocalGames(worker_config({"a": GOOD, "b": GOOD}), 1, None, lambda name: True).close()  # no affinity asked
    assert said(caplog) == []


def test_a_live_site_is_made_of_the_tournaments_name_game_and_engines(tmp_path):
    t = load_tournament(tiny(tmp_path, zoo("a") + zoo("b")))
    site = live_site(tmp_path / "site", t)
    assert (site.data.title, site.data.game, site.data.engines, site.data.records) == (
        "arena · tiny",
        "hex",
        ["a", "b"],
        [],
    )
    assert site.data.options == {"size": 3, "swap": False} and site.data.settings == tournament_settings(t)
    assert site.interval == INTERVAL_S and live_site(tmp_path / "site", t, 0.5).interval == 0.5
    quiet = QuietObserver()  # hears everything and does nothing
    assert [quiet.on_start(0, [], None), quiet.on_drop("a", "why"), quiet.on_stop()] == [None, None, None]


# -- a worker process's own set-up and stop, run in this process -------------------------


class EngineHost:
    """This process standing in for a pool's worker process (worker.py's initialisers): what they
    ask of the kernel is read back and undone, the exit and the sweep for adopted processes (which
    would end or reap this test process) are only noted."""

    PR_SET_PDEATHSIG, PR_GET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 1, 2, 36, 37

    def __init__(self) -> None:
        self.exits: list[int] = []
        self.adopted: list[tuple[object, bool]] = []

    def prctl_get(self, option: int) -> int:
        import ctypes

        value = ctypes.c_int(-1)
        assert proctree._prctl is not None and proctree._prctl(option, ctypes.byref(value), 0, 0, 0) == 0
        return value.value

    def sweep(self, keep: set[int], quiet: bool = False) -> int:
        self.adopted.append((keep, quiet))
        return 0


@pytest.fixture
def engine_host(monkeypatch):
    import multiprocessing.util

    from arena.tournament import worker

    if proctree._prctl is None:
        pytest.skip("no prctl here")
    host = EngineHost()
    monkeypatch.setattr(os, "_exit", host.exits.append)
    monkeypatch.setattr(proctree, "kill_adopted", host.sweep)
    monkeypatch.setattr(proctree, "_subreaper", proctree._subreaper)
    monkeypatch.setattr(worker, "_worker", None)
    monkeypatch.setattr(worker, "_checked_run_tag", "")
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    death, subreaper = host.prctl_get(host.PR_GET_PDEATHSIG), host.prctl_get(host.PR_GET_CHILD_SUBREAPER)
    try:
        yield host
    finally:
        for finalizer in list(multiprocessing.util._finalizer_registry.values()):  # every worker made here
            made = getattr(finalizer._callback, "__self__", None)
            if isinstance(made, worker.Worker):
                finalizer.cancel()
                for engine in list(made.engines.values()):
                    engine.kill()
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        proctree._prctl(host.PR_SET_PDEATHSIG, death, 0, 0, 0)
        proctree._prctl(host.PR_SET_CHILD_SUBREAPER, subreaper, 0, 0, 0)


def locked_fd(path: Path) -> int:
    """A descriptor holding the folder's lock, as a worker inherits it."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def lock_is_free(path: Path) -> bool:
    import fcntl

    with open(path, "a") as other:
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(other, fcntl.LOCK_UN)
        return True


def test_a_worker_process_dies_with_its_parent_ignores_ctrl_c_lets_go_of_the_lock_and_adopts_orphans(
    engine_host, zoo_c, tmp_path
):
    from arena.tournament import worker

    lock = tmp_path / "lock"
    fd = locked_fd(lock)
    try:
        worker.init_worker(worker_config({"a": EngineSpec("a", (zoo_c, "good"))}, coordinator=os.getppid()), [0], fd)
        assert os.readlink(f"/proc/self/fd/{fd}") == os.devnull and lock_is_free(lock)
    finally:
        os.close(fd)
    assert engine_host.prctl_get(engine_host.PR_GET_PDEATHSIG) == signal.SIGTERM
    assert engine_host.prctl_get(engine_host.PR_GET_CHILD_SUBREAPER) == 1 and proctree._subreaper
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # Ctrl-C is the coordinator's
    assert signal.getsignal(signal.SIGTERM) == worker._terminate_worker
    assert engine_host.exits == []  # its coordinator is its parent: it lives on


def test_a_worker_process_shuts_its_worker_down_at_exit_and_plays_with_the_shared_drops(engine_host):
    import multiprocessing.util

    from arena.record import Termination
    from arena.tournament import worker
    from arena.tournament.schedule import ScheduledGame

    dropped = [1, 0]  # shared with the coordinator: a is dropped
    worker.init_worker(worker_config({"a": GOOD, "b": GOOD}), dropped, None)
    made = worker._worker
    assert made is not None and made.config.engines == {"a": GOOD, "b": GOOD} and engine_host.exits == []
    at_exit = [f for f in multiprocessing.util._finalizer_registry.values() if f._callback == made.shutdown]
    assert len(at_exit) == 1 and at_exit[0]._key[0] is not None and at_exit[0]._key[0] >= 0  # run at the exit
    record = worker.play_in_worker(ScheduledGame(4, 1, ("b", "a"), seed=3))
    assert isinstance(record, GameRecord) and (record.id, record.round, record.termination) == (
        4,
        1,
        Termination.DROPPED,
    )
    assert (
        record.reason
        == "a (seat 1): dropped from the tournament after 0 consecutive failures (max_failures); not started"
    )
    assert made.engines == {}  # not started


def test_a_worker_whose_coordinator_is_already_gone_stops_at_once_and_sigterm_kills_its_engines(
    engine_host, zoo_c, caplog
):
    from arena.tournament import worker

    worker.init_worker(worker_config({"a": EngineSpec("a", (zoo_c, "good"))}, coordinator=0), (), None)
    assert engine_host.exits == []  # no coordinator to die with
    made = worker._worker
    assert made is not None
    engine = made.engine("a").child
    assert engine is not None and engine.proc is not None
    with caplog.at_level(logging.INFO, logger="arena"):
        worker._terminate_worker(signal.SIGTERM, None)
    assert engine.proc.wait(timeout=5) == -signal.SIGKILL  # killed, not asked to quit
    assert engine_host.exits == [128 + signal.SIGTERM] and made.stopping
    assert engine_host.adopted == [(set(), True)]  # what the engines left, swept without a word
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN  # one stop is enough
    assert caplog.records == []
    engine_host.adopted.clear()
    worker.init_worker(worker_config({"a": GOOD}, coordinator=os.getpid()), (), None)  # not its parent: gone
    assert engine_host.exits == [143, 143] and engine_host.adopted == [(set(), True)]


def test_the_start_up_checks_process_kills_every_process_of_the_run_on_sigterm_and_dies_with_its_parent(
    engine_host, tmp_path, caplog
):
    from arena.tournament import worker

    def tagged_sleeper(tag: str) -> subprocess.Popen:
        return subprocess.Popen(["sleep", "30"], env={**os.environ, proctree.RUN_TAG: tag})

    lock = tmp_path / "lock"
    fd = locked_fd(lock)
    ours, others = tagged_sleeper("run-x"), tagged_sleeper("run-y")
    try:
        worker.init_preflight_host(fd, "run-x", os.getppid())
        assert os.readlink(f"/proc/self/fd/{fd}") == os.devnull and lock_is_free(lock)
        assert engine_host.exits == [] and ours.poll() is None
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) == worker._terminate_worker
        assert engine_host.prctl_get(engine_host.PR_GET_PDEATHSIG) == signal.SIGTERM
        with caplog.at_level(logging.INFO, logger="arena"):
            worker._terminate_worker(signal.SIGTERM, None)
        assert ours.wait(timeout=5) == -signal.SIGKILL and others.poll() is None  # only the run's
        assert engine_host.exits == [143] and engine_host.adopted == [(set(), True)]
        assert caplog.records == []  # in a signal handler: nothing logged
        worker.init_preflight_host(None, "run-y", os.getpid())  # its coordinator is not its parent
        assert others.wait(timeout=5) == -signal.SIGKILL and engine_host.exits == [143, 143]
    finally:
        os.close(fd)
        for sleeper in (ours, others):
            sleeper.kill()
            sleeper.wait()


def test_the_start_up_check_in_its_process_checks_each_engine_with_the_runs_tag_and_sweeps_up(
    engine_host, zoo_c, tmp_path
):
    from arena.engine.declared import Checked
    from arena.tournament import worker

    seen = tmp_path / "tag"
    tagged = EngineSpec("tagged", ("/bin/sh", "-c", f'printf %s "${proctree.RUN_TAG}" > {seen}; exec {zoo_c} good'))
    broken = EngineSpec("broken", (sys.executable, ZOO, "crash_start"))
    # A GTP engine that plays boards up to 3x3 only: the check's board is the tournament's.
    small = EngineSpec(
        "small",
        (sys.executable, str(ROOT / "tests" / "engines" / "gtp_hex_engine.py"), "--max-size", "3"),
        protocol="gtp",
    )
    checked = worker.preflight_in_worker(((tagged, broken, small), "hex", HEX3_GAME, "run-z", 1))
    assert checked[0] == Checked() and seen.read_text() == "run-z"
    assert checked[1].problem is None and (checked[1].fault or "").startswith("crash: ")
    assert checked[2] == Checked()
    assert engine_host.adopted == [(set(), False)]  # what the engines left behind


def test_the_local_pool_is_handed_the_watchdogs_limit_the_move_grace_the_idle_bound_and_the_pinned_cores(monkeypatch):
    engines = {name: EngineSpec(name, ("x",), handshake_ms=100) for name in "abcd"}
    config = worker_config(engines, idle_engines=1, affinity=True)
    monkeypatch.setattr(proctree, "can_pin", lambda: True)
    monkeypatch.setattr(proctree, "usable_cpus", lambda: [2, 5])
    games = LocalGames(config, 1, None, lambda name: True)
    pool = games.pool
    # hex 3x3: 10 plies (9 cells and the swap) of 100 ms and the 100 ms margin; two seats of 0.1 s start-ups
    limit = 2 * (3 * 0.1 + QUIT_GRACE + EXIT_WAIT) + 10 * 0.2 + local.WATCHDOG_GRACE
    assert (pool.time_limit("any game"), pool.step_grace, pool.spare, pool.cores) == (limit, 3.0, 1, [2, 5])
    games.close()
    # pinning needs affinity asked for and a system that can pin
    monkeypatch.setattr(proctree, "can_pin", lambda: False)
    unpinned = LocalGames(config, 1, None, lambda name: True)
    assert unpinned.pool.cores == []
    unpinned.close()
    monkeypatch.setattr(proctree, "can_pin", lambda: True)
    unasked = LocalGames(worker_config(engines), 1, None, lambda name: True)
    assert (unasked.pool.cores, unasked.pool.spare) == ([], None)
    unasked.close()


def test_a_game_without_a_ply_bound_has_no_watchdog_limit_at_any_clock(monkeypatch):
    monkeypatch.setattr(type(make_game("hex", HEX3_GAME)), "max_plies", property(lambda self: None))
    engines = {"a": GOOD, "b": GOOD}
    assert watchdog_limit(worker_config(engines)) is None
    assert watchdog_limit(worker_config(engines, time_controls={"a": TimeControl(movetime_ms=2000)})) is None


def test_an_engine_without_a_handshake_limit_starts_within_the_default_ten_seconds():
    # the two slowest starters sit at the table: 10.008 s and 10.005 s; the default 10 s and 0.1 s do not
    engines = {
        "default": EngineSpec("default", ("x",)),
        "slower": EngineSpec("slower", ("x",), handshake_ms=10_005),
        "slowest": EngineSpec("slowest", ("x",), handshake_ms=10_008),
        "quick": EngineSpec("quick", ("x",), handshake_ms=100),
    }
    seats = 3 * 10.005 + 3 * 10.008 + 2 * (QUIT_GRACE + EXIT_WAIT)
    assert watchdog_limit(worker_config(engines)) == pytest.approx(seats + 10 * 0.2 + local.WATCHDOG_GRACE)


def test_the_idle_bound_counts_the_seats_of_the_games_own_options():
    # posies for three: three seats and one idle engine hold all four, so no engine is ever quit
    config = WorkerConfig(
        "t", "posies", {"players": 3}, {n: GOOD for n in "abcd"}, TimeControl(movetime_ms=100), idle_engines=1
    )
    assert idle_bound(config) is None
    config = WorkerConfig(
        "t", "posies", {"players": 3}, {n: GOOD for n in "abcde"}, TimeControl(movetime_ms=100), idle_engines=1
    )
    assert idle_bound(config) == 1


# -- what a run hands its workers ---------------------------------------------------------


class NoGames:
    """An executor that plays nothing: the run's games stay unplayed; ``during`` is called
    when the run hands it its games (the run's workers would be playing them then)."""

    def __init__(self, during=lambda: None) -> None:
        self.during = during

    def imap_unordered(self, games):
        self.during()
        return iter(())

    def drop(self, name):
        pass

    def cancel_queued(self):
        pass

    def close(self):
        pass

    def terminate(self):
        pass


def lock_path(fd: int | None) -> str | None:
    """The file an open descriptor of this process is (None: no descriptor)."""
    return None if fd is None else os.readlink(f"/proc/self/fd/{fd}")


class Handed:
    """What run_tournament hands the local pool and the start-up check, caught in their place."""

    def __init__(self, monkeypatch, during=lambda: None) -> None:
        self.pools: list[tuple] = []
        self.checks: list[tuple] = []
        self.during = during
        monkeypatch.setattr(runner, "LocalGames", self.local_games)
        monkeypatch.setattr(runner, "_check_engines", self.check_engines)

    def local_games(self, config, workers, lock_fd, may_start):
        self.pools.append((config, workers, lock_path(lock_fd), may_start))
        return NoGames(self.during)

    def check_engines(self, t, engines, run_tag, lock_fd, observers, skip=(), at_once=None, forfeit=False):
        self.checks.append(([e.name for e in engines], run_tag, lock_path(lock_fd), set(skip), at_once, forfeit))

    @property
    def config(self) -> WorkerConfig:
        [(config, _, _, _)] = self.pools
        return config


def test_the_local_pool_is_handed_the_files_clocks_rules_and_drop_limits_and_the_runs_tag_process_and_folder(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(proctree, "usable_cpus", lambda: [0, 1, 2])  # one worker leaves two CPUs without a game
    monkeypatch.setattr(proctree, "can_pin", lambda: True)
    handed = Handed(monkeypatch)
    own_clock = "time_control = { movetime_ms = 50, margin_ms = 100 }\nmax_failures = 1"
    path = tiny(tmp_path, zoo("a") + zoo("b", extra=own_clock), extra="adjudication = { max_plies = 6 }")
    out = tmp_path / "out"
    run_tournament(load_tournament(path), out)
    [(config, workers, lock, may_start)] = handed.pools
    assert (config.tournament, config.game, config.options) == ("tiny", "hex", HEX3_GAME)
    assert sorted(config.engines) == ["a", "b"]
    assert config.time_control == TimeControl(movetime_ms=100, margin_ms=100)
    assert config.time_controls == {"b": TimeControl(movetime_ms=50, margin_ms=100)}
    assert config.adjudication is not None and config.adjudication.max_plies == 6
    assert config.max_failures == {"a": 3, "b": 1}  # 3: the default
    assert (config.run_tag, config.coordinator) == (meta(out, "run_tag"), os.getpid())
    assert (config.affinity, config.spin, config.share_core) == (False, True, True)  # a CPU to spare, pinnable
    assert (config.trace_dir, config.stderr_home, config.live_dir) == ("", str(out / "arena.log"), str(out / "live"))
    assert (workers, lock) == (1, str(out / "arena.lock"))  # forked workers let go of the folder's lock
    assert may_start("a") and may_start("b")  # nobody dropped


@pytest.mark.parametrize(
    ("cpus", "can_pin", "affinity", "spin", "share_core"),
    [
        ([0], True, False, False, False),  # the one CPU plays the game: no spinning, nothing to share
        ([0, 1], False, False, True, False),  # a spare CPU, but engines cannot be moved onto a core
        ([0, 1], True, True, True, False),  # a spare CPU, but each worker keeps its own core
        ([0, 1], True, False, True, True),
    ],
)
def test_workers_spin_only_with_a_cpu_to_spare_and_share_their_core_only_if_they_can_pin_without_affinity(
    tmp_path, monkeypatch, cpus, can_pin, affinity, spin, share_core
):
    monkeypatch.setattr(proctree, "usable_cpus", lambda: cpus)
    monkeypatch.setattr(proctree, "can_pin", lambda: can_pin)
    handed = Handed(monkeypatch)
    path = tiny(tmp_path, zoo("a") + zoo("b"), extra=f"affinity = {str(affinity).lower()}")
    run_tournament(load_tournament(path), tmp_path / "out")
    assert (handed.config.spin, handed.config.share_core) == (spin, share_core)


def test_the_start_up_check_is_handed_the_runs_tag_the_folders_lock_and_as_many_engines_as_its_games_run_at_once(
    tmp_path, monkeypatch
):
    handed = Handed(monkeypatch)
    path, out = tiny(tmp_path, zoo("a") + zoo("b") + zoo("c")), tmp_path / "out"
    run_tournament(load_tournament(path), out, idle_engines=1, forfeit_failed_engines=True)
    # one worker: a game's two seats and the one idle engine it keeps
    assert handed.checks == [(["a", "b", "c"], meta(out, "run_tag"), str(out / "arena.lock"), set(), 3, True)]
    assert handed.config.run_tag == meta(out, "run_tag")


def test_a_run_forgets_the_games_in_progress_a_stopped_run_left_before_it_plays_and_a_dead_workers_after(
    tmp_path, monkeypatch
):
    out = tmp_path / "out"
    live = out / "live"
    live.mkdir(parents=True)
    (live / "5.jsonl").write_text("{}\n")  # a stopped run's game in progress
    (live / "watching").touch()  # someone watches: not a game
    seen = []

    def playing():
        seen.append(sorted(p.name for p in live.iterdir()))
        (live / "9.jsonl").write_text("{}\n")  # a worker killed in its game leaves its file

    Handed(monkeypatch, playing)
    run_tournament(load_tournament(tiny(tmp_path, zoo("a") + zoo("b"))), out)
    assert seen == [["watching"]]
    assert sorted(p.name for p in live.iterdir()) == ["watching"]


def test_the_processes_a_dead_worker_left_with_the_runs_tag_are_killed_when_the_run_ends(tmp_path, monkeypatch):
    out, left = tmp_path / "out", []

    def worker_dies_leaving_an_engine():
        tag = meta(out, "run_tag")
        env = {**os.environ, proctree.RUN_TAG: tag}
        left.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], env=env))
        while proctree.RUN_TAG not in open(f"/proc/{left[0].pid}/environ", "rb").read().decode(errors="replace"):
            time.sleep(0.005)

    Handed(monkeypatch, worker_dies_leaving_an_engine)
    try:
        run_tournament(load_tournament(tiny(tmp_path, zoo("a") + zoo("b"))), out)
        assert left[0].poll() == -signal.SIGKILL
    finally:
        left[0].kill()
        left[0].wait()


def test_a_cluster_is_handed_the_runs_worker_settings_and_the_drop_rules_gate_and_no_start_up_check(
    tmp_path, monkeypatch
):
    handed = Handed(monkeypatch)
    opened = []

    class Cluster:
        def open(self, config, may_start):
            opened.append((config, may_start))
            return NoGames()

    path, out = tiny(tmp_path, zoo("a") + zoo("b")), tmp_path / "out"
    run_tournament(load_tournament(path), out, cluster=Cluster())
    [(config, may_start)] = opened
    assert isinstance(config, WorkerConfig) and (config.tournament, config.run_tag) == ("tiny", meta(out, "run_tag"))
    assert may_start("a") and may_start("b")
    assert (handed.pools, handed.checks) == ([], [])  # a cluster's workers check the engines in their handshake


@pytest.fixture
def unchecked(monkeypatch):
    """No start-up check before the games (tests of what a resume admits: the zoo's engines start)."""
    monkeypatch.setattr(runner, "_check_engines", lambda *args, **kw: None)


# -- folders made by an older arena ---------------------------------------------------------


def as_made_before(out: Path, settings: dict | None, fingerprint_text: str | None = None) -> None:
    """Rewrite ``out``'s meta as an older arena left it: ``settings`` as it stored them (None:
    none kept), and its fingerprint."""
    with closing(sqlite3.connect(out / "arena.db")) as db:
        db.execute("DELETE FROM meta WHERE key = 'settings'")
        if settings is not None:
            db.execute("INSERT INTO meta VALUES ('settings', ?)", (json.dumps(settings, sort_keys=True),))
        if fingerprint_text is not None:
            db.execute("UPDATE meta SET value = ? WHERE key = 'fingerprint'", (fingerprint_text,))
        db.commit()


def test_a_folder_made_before_settings_were_kept_resumes_under_the_hash_of_its_game_options_seed_engines_and_book(
    tmp_path, unchecked
):
    (tmp_path / "book.txt").write_text("a1 c3\n")
    path, out = tiny(tmp_path, zoo("a") + zoo("b"), extra='openings = "book.txt"'), tmp_path / "out"
    first = run_tournament(load_tournament(path), out)
    # the documented hash: the sorted JSON of the game, its options, the seed, the engines' names and the book's lines
    fields = {"game": "hex", "options": HEX3_GAME, "seed": 7, "engines": ["a", "b"], "openings": [["a1", "c3"]]}
    as_made_before(out, None, hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest())
    again = run_tournament(load_tournament(path), out)
    assert (again.played, again.resumed) == (0, first.played)
    as_made_before(out, None, hashlib.sha256(json.dumps(fields | {"seed": 8}, sort_keys=True).encode()).hexdigest())
    with pytest.raises(StorageError) as refused:
        run_tournament(load_tournament(path), out)
    assert "Changed: settings differ (this folder was made by an older arena, which kept no list of them)." in str(
        refused.value
    )


def test_a_folder_made_when_settings_were_kept_with_every_path_resolved_resumes(tmp_path, unchecked):
    path, out = tiny(tmp_path, zoo("a") + zoo("b")), tmp_path / "out"
    run_tournament(load_tournament(path), out)
    settings = json.loads(meta(out, "settings") or "")
    assert settings.pop("paths") == "relative"
    for engine in settings["engines"]:  # as started: arena's interpreter and the tournament file's folder
        assert (engine["command"][0], engine["cwd"]) == ("{python}", ".")
        engine.update(command=[sys.executable, *engine["command"][1:]], cwd=str(tmp_path))
    as_made_before(out, settings)
    again = run_tournament(load_tournament(path), out)
    assert (again.played, again.resumed) == (0, 2)
    assert json.loads(meta(out, "settings") or "")["paths"] == "relative"  # kept the project's way from now on


# -- what a resume counts ---------------------------------------------------------------------


def test_an_sprt_decided_by_the_last_game_stored_before_a_stop_plays_no_further_game_when_resumed(tmp_path, unchecked):
    engines = zoo("new") + zoo("old", "crash", extra="max_failures = 0")  # old loses every game  # old loses every game
    path, out = tiny(tmp_path, engines, rounds=50, extra=SPRT), tmp_path / "out"
    run_tournament(load_tournament(path), out)  # decided by the first pair; the game in play then is kept
    with closing(sqlite3.connect(out / "arena.db")) as db:  # as if stopped before that game was stored
        db.execute("DELETE FROM games WHERE id > 1")
        db.commit()
    again = run_tournament(load_tournament(path), out)
    assert (again.played, again.resumed) == (0, 2)
    assert again.verdict == Verdict("finished: SPRT new passes after 1 pairs", 0)


def test_a_knockout_resumed_after_its_tie_break_wave_counts_those_games_and_plays_nothing(tmp_path, unchecked):
    path = tiny(tmp_path, zoo("a") + zoo("b"), extra='format = "knockout"\ntiebreak_pairs = 1')
    out = tmp_path / "out"
    run_tournament(load_tournament(path), out)
    heard = Heard()
    again = run_tournament(load_tournament(path), out, observers=[heard])
    assert (again.played, again.resumed, again.verdict.code) == (0, 4, 0)
    assert heard.said == [("start", 4, [0, 1, 2, 3], None), ("end", "tiny", 4)]


def test_a_folder_whose_stored_game_has_other_options_is_refused_naming_both(tmp_path, unchecked):
    path, out = tiny(tmp_path, zoo("a") + zoo("b")), tmp_path / "out"
    run_tournament(load_tournament(path), out)
    with closing(sqlite3.connect(out / "arena.db")) as db:
        (record,) = db.execute("SELECT record FROM games WHERE id = 1").fetchone()
        changed = json.loads(record) | {"options": {"size": 4, "swap": False}}
        db.execute("UPDATE games SET record = ? WHERE id = 1", (json.dumps(changed),))
        db.commit()
    with pytest.raises(StorageError) as refused:
        run_tournament(load_tournament(path), out)
    why = "game 1: it is a game of hex {'size': 4, 'swap': False}; the tournament plays hex {'size': 3, 'swap': False}."
    assert why in str(refused.value)


def test_a_start_up_check_whose_process_dies_refuses_no_engine(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "preflight_in_worker", lambda task: os._exit(3))  # the pool forks: it inherits it
    t = load_tournament(tiny(tmp_path, zoo("a") + zoo("b")))
    runner._check_engines(t, t.engines, "tag", None, [])  # no answer: nothing to refuse, the games will tell


def test_a_folder_of_games_started_on_a_books_boards_resumes_with_them_counted(tmp_path, unchecked):
    game = make_game("posies", {"players": 2})
    first, second = game.initial_state(5), game.initial_state(6)  # two boards, neither a game's seed's
    book = f"# options players=2\n{first.setup_token()} {first.legal_moves()[3]}\n{second.setup_token()}\n"
    # engines that cannot start forfeit their games quickly, each game on its book line's board
    (tmp_path / "book.txt").write_text(book)
    engines = zoo("a", "crash_start") + zoo("b", "crash_start")
    path = write_tournament(
        tmp_path,
        engines,
        game="posies",
        options="players = 2",
        seed=3,
        workers=1,
        time_control="movetime_ms = 100",
        extra='openings = "book.txt"\nforfeit_failed_engines = true',
    )
    out = tmp_path / "out"
    first = run_tournament(load_tournament(path), out)
    assert first.played == 2 and all(r["opening_setup"] is True for r in games(out))
    again = run_tournament(load_tournament(path), out)
    assert (again.played, again.resumed) == (0, 2)
