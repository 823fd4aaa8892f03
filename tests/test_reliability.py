"""Faults found by a fault zoo outside the project, each now handled (docs/reliability.md):
numbers engines write, late moves, the drop rule's race, option injection, secret deals,
control characters in reasons."""

import contextlib
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from helpers import ROOT, ZOO, arena_cmd, engine_toml, run_arena, write_tournament
from zoo import (
    GOOD,
    MARGIN,
    MOVETIME,
    check_clean,
    check_fault,
    play_one,
    survivors,
    zoo,
)

from arena.cli import main
from arena.cli.group import Commands, command_line
from arena.engine import pipes, proctree, waiting
from arena.engine.player import EngineSpec
from arena.engine.process import EngineProcess
from arena.match import TimeControl, play_game
from arena.record import derive_seed, new_deal
from arena.results.store import GameStore
from arena.rules import make_game
from arena.tournament import verdict
from arena.tournament.config import ConfigError, load_tournament
from arena.tournament.pool import Lost, WorkerPool, ask_coordinator
from arena.tournament.runner import run_tournament
from protocol import codec
from protocol.codec import ProtocolError

SPY = str(ROOT / "tests" / "engines" / "spy_engine.py")
# An engine kept after its fault sleeps until killed: a tenth of a second's grace, not a second
pytestmark = pytest.mark.usefixtures("short_quit_grace")


# -- numbers in engine text are ASCII digits ------------------------------------


@pytest.mark.parametrize("number", ["\u00b9", "\u0661", "\uff11", "1_0", "+1", "1 2", "9" * 5000])
def test_a_version_in_other_digits_is_a_protocol_error(number):
    with pytest.raises(ProtocolError):
        codec.parse_engine_line(f"arenaok {number}")


@pytest.mark.parametrize(
    "line",
    [
        "seed \u00b2",
        "arena \u0661",
        "newgame hex \u00b9 2",
        "go movetime \u00b9",
        "go time 1_000,2",
        "seed " + "9" * 5000,
    ],
)
def test_referee_numbers_in_other_digits_are_protocol_errors(line):
    with pytest.raises(ProtocolError):
        codec.parse_command(line)


def test_a_score_in_other_digits_is_ignored_like_a_bad_depth(marker):
    record, _, worker = play_one(zoo("foreign_score"))
    assert record["termination"] == "normal", record["reason"]
    assert record["move_info"][0] == {"depth": 2}  # not score 12.0 (from '\u0661\u0662') nor 1000.0
    check_clean(worker, marker)


def test_every_64_bit_seed_still_parses():
    assert codec.parse_command(f"seed {2**64 - 1}") == codec.Seed(2**64 - 1)
    assert codec.parse_command("go time -5,10 movetime 7").time == (-5, 10)


def test_a_superscript_version_costs_the_engine_its_game_not_the_tournament(marker):
    record, _, worker = play_one(zoo("unicode_version"), bad_seat=1)
    assert "internal_error" not in record, record
    check_fault(record, worker, 1, "protocol", "not a protocol v1 engine line: 'arenaok \u00b9'")
    check_clean(worker, marker)


def test_a_compiled_engine_with_a_superscript_version(marker, zoo_c):
    record, _, worker = play_one(EngineSpec("c-sup", (zoo_c, "superscript")), bad_seat=1)
    check_fault(record, worker, 1, "protocol", "'arenaok \u00b9'")
    check_clean(worker, marker)


@pytest.mark.slow
def test_arena_play_with_a_superscript_version_says_so_in_one_line():
    proc = run_arena(
        "play",
        "-g",
        "hex",
        "-O",
        "size=5",
        "-O",
        "swap=false",
        "--movetime",
        "200",
        f"{sys.executable} {ZOO} unicode_version",
        f"{sys.executable} {ZOO} good",
        timeout=60,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "failed to start: not a protocol v1 engine line: 'arenaok \u00b9'" in proc.stderr


def test_a_parser_bug_on_an_engine_line_is_a_protocol_fault(monkeypatch):
    """Defence in depth: whatever the parser raises, the line is the engine's fault."""

    def broken(line):
        raise KeyError(line)

    monkeypatch.setattr(codec, "parse_engine_line", broken)
    proc = EngineProcess(GOOD)
    with pytest.raises(Exception) as caught:
        proc.start()
    proc.kill()
    assert getattr(caught.value, "code", None) == "protocol" and "unreadable line 'id name" in caught.value.reason


# -- control characters are shown, not deleted -----------------------------------


@pytest.mark.slow
def test_a_nul_in_a_move_is_shown_escaped_in_the_reason(marker):
    record, _, worker = play_one(zoo("nul_move"))
    check_fault(record, worker, 0, "illegal", "illegal move 'a1\\x00'")
    check_clean(worker, marker)


def test_a_compiled_engine_with_a_nul_in_its_move(marker, zoo_c):
    record, _, worker = play_one(EngineSpec("c-nul", (zoo_c, "nul_move", "2")))
    check_fault(record, worker, 0, "illegal", "\\x00'")
    check_clean(worker, marker)


@pytest.mark.parametrize(
    "fault,shown",
    [
        ("vt_move", "'a1\\x0b'"),
        ("ff_move", "'\\x0ca1'"),
        ("nbsp_move", "'a1\\xa0'"),
        ("ls_move", "'a1\\u2028'"),
        ("fs_move", "'a1\\x1c'"),
        ("us_move", "'a1\\x1f'"),
        ("nel_move", "'a1\\x85'"),
        ("tab_move", "'a1\\x09'"),
    ],
)
@pytest.mark.slow
def test_a_blank_other_than_a_space_stays_part_of_the_move(marker, fault, shown):
    """str.strip() would delete these and record the normal move a1; only spaces separate tokens."""
    record, _, worker = play_one(zoo(fault))
    check_fault(record, worker, 0, "illegal", f"illegal move {shown}")
    check_clean(worker, marker)


@pytest.mark.parametrize(
    "line,token",
    [
        ("move b3\x0b", "b3\x0b"),
        ("move \x0cb3", "\x0cb3"),
        ("move b3\u00a0", "b3\u00a0"),
        ("move b3\u2028", "b3\u2028"),
        ("move b3\x85", "b3\x85"),
        ("move b3\x1e", "b3\x1e"),
        ("  move  b3  ", "b3"),  # spaces still separate and surround tokens
    ],
)
def test_only_spaces_separate_engine_tokens(line, token):
    assert codec.parse_engine_line(line) == codec.Move(token)


@pytest.mark.parametrize("line", ["move\x0bb3", "arenaok\x0b1", "readyok\x0c", "\u00a0", "resign\u2028"])
def test_a_line_split_only_by_other_blanks_is_malformed(line):
    with pytest.raises(ProtocolError, match="not a protocol v1 engine line|exactly one token"):
        codec.parse_engine_line(line)


def test_the_reason_shows_unicode_blanks_escaped():
    assert codec.sanitize("b3\u00a0 c4\u2028\u3000\u200b") == "b3\\xa0 c4\\u2028\\u3000\\u200b"


def test_referee_lines_split_on_spaces_only():
    assert codec.parse_command("position start moves a1 b2\n") == codec.Position("start", ("a1", "b2"))
    assert codec.parse_command("position start moves a1\x0bb2").moves == ("a1\x0bb2",)


# -- late moves always lose -----------------------------------------------------


@pytest.mark.slow
def test_a_move_just_after_the_limit_is_a_time_loss(marker):
    """5 ms past movetime + margin: the measured time decides, whatever the poll saw."""
    for _ in range(3):
        record, _, worker = play_one(zoo("just_late"))
        check_fault(record, worker, 0, "timeout", "")
        check_clean(worker, marker)


def test_a_line_read_after_the_deadline_is_late_even_if_it_came_in_time(marker, monkeypatch):
    """The engine answers at once but the referee reads the pipe only after the limit (a
    busy machine): the line is already buffered, and still the measured time decides."""
    real = pipes.read_chunk

    def slow_read(stream):
        chunk = real(stream)
        if chunk and chunk.startswith(b"move"):
            time.sleep((MOVETIME + MARGIN) / 1000 + 0.05)
        return chunk

    monkeypatch.setattr(pipes, "read_chunk", slow_read)
    monkeypatch.setattr(waiting, "Spin", waiting.Waiting)  # never spun for: always through read_chunk
    record, _, worker = play_one(zoo("good"))
    assert record["termination"] == "timeout", record["reason"]
    assert "'move a1' came after 4" in record["reason"] and "over the limit of 400 ms" in record["reason"]
    check_clean(worker, marker)


# -- the drop rule: no engine starts after its drop ----------------------------------


def _ask_on_odd(task: int):
    return ask_coordinator(task) if task % 2 else ("done", task)


def test_a_workers_question_is_answered_after_the_results_that_came_before_it():
    seen: list[int] = []
    pool = WorkerPool(1, _ask_on_odd, lambda: None, answer=lambda task: list(seen))
    for result in pool.imap_unordered([0, 1, 2, 3]):
        if result[0] == "done":
            seen.append(result[1])
        else:
            assert result == sorted(result) and result[-1] == max(seen)
    pool.close()
    assert ask_coordinator("anything", default="alone") == "alone"  # not in a worker


def test_after_cancel_queued_only_the_tasks_already_handed_out_finish():
    """The SPRT's stop: after the first result no task is started; the one the other
    worker holds and the one its worker was handed before the result was yielded finish."""
    pool = WorkerPool(2, _nap, lambda: None)
    results = []
    for result in pool.imap_unordered(range(20)):
        if not results:
            pool.cancel_queued()
        results.append(result)
    pool.close()
    assert 3 <= len(results) <= 4 and sorted(results) == list(range(len(results)))


def _nap(task: int) -> int:
    time.sleep(0.1)
    return task


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_engine_is_never_started_past_max_failures(tmp_path, monkeypatch):
    """workers = 1: the next game is dispatched while the last one is being stored (made
    slow here, as on a busy disk), before it is counted; the worker asks the coordinator
    before it starts an engine, so the dud starts exactly twice."""
    engines = engine_toml("good", "{python}", ZOO, "good")
    engines += engine_toml("dud", "{python}", ZOO, "crash_start", extra="max_failures = 2")
    path = write_tournament(
        tmp_path,
        engines,
        options="size = 5\nswap = false",
        rounds=3,
        workers=1,
        time_control="movetime_ms = 200",
        extra="forfeit_failed_engines = true",  # the dud fails its start-up check: play on
    )
    slow_add = GameStore.add
    monkeypatch.setattr(GameStore, "add", lambda self, record: (time.sleep(0.2), slow_add(self, record)))
    run_tournament(load_tournament(path), tmp_path / "out")
    records = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert [r["termination"] for r in records] == ["crash"] * 2 + ["dropped"] * 4


@pytest.mark.timeout(120)
@pytest.mark.slow
def test_with_two_workers_one_game_at_most_starts_an_engine_past_max_failures(tmp_path):
    """workers = 2: the dud's two first games run at once against a slow opponent, and it
    crashes at its second move, so one game ends a move (0.4 s) before the other.  Its games
    in play are not held against it, so the worker freed first may start it for a third game
    while the second is still in play: at most workers - 1 = 1 game starts it between the
    failures that reach the limit and the drop, and that game finishes and counts."""
    starts = tmp_path / "dud-starts"
    engines = engine_toml("tortoise", "{python}", ZOO, "good+slow", extra='env = { ZOO_SLOW_S = "0.4" }')
    engines += engine_toml(
        "dud", "{python}", ZOO, "crash", "2", extra=f'max_failures = 2\nenv = {{ ZOO_PIDS = "{starts}" }}'
    )
    path = write_tournament(
        tmp_path, engines, options="size = 5\nswap = false", rounds=3, workers=2, time_control="movetime_ms = 1000"
    )
    summary = run_tournament(load_tournament(path), tmp_path / "out")
    records = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    crashed = [r for r in records if r["termination"] == "crash"]
    assert 2 <= len(crashed) <= 3, [r["termination"] for r in records]
    assert sorted(r["termination"] for r in records) == ["crash"] * len(crashed) + ["dropped"] * (6 - len(crashed))
    assert len(starts.read_text().split()) == 1 + len(crashed)  # the start-up check and the crashed games
    named = int(summary.dropped["dud"].split("the last in game ")[1].split(":")[0])
    assert summary.dropped["dud"].startswith("2 consecutive failures") and named in {r["id"] for r in crashed}


@pytest.mark.timeout(180)
@pytest.mark.slow
def test_with_eight_workers_at_most_seven_games_start_an_engine_past_its_limit(tmp_path):
    """An engine that passes its start-up check and crashes at its first move, the default
    max_failures = 3, and 8 workers: its first eight games start at once, so it is dropped
    with games of it still in play.  At most workers - 1 = 7 games start it past the failures
    that reach the limit; they finish and count (crashes); every later game is a dropped
    forfeit that never starts it (its processes are counted)."""
    starts = tmp_path / "dud-starts"
    engines = engine_toml("good", "{python}", ZOO, "good")
    engines += engine_toml("dud", "{python}", ZOO, "crash", "1", extra=f'env = {{ ZOO_PIDS = "{starts}" }}')
    path = write_tournament(
        tmp_path, engines, options="size = 5\nswap = false", rounds=12, workers=8, time_control="movetime_ms = 1000"
    )
    summary = run_tournament(load_tournament(path), tmp_path / "out")
    records = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    crashed = [r for r in records if r["termination"] == "crash"]
    assert 3 <= len(crashed) <= 3 + 8 - 1, [r["termination"] for r in records]
    assert len(records) == 24 and all(r["termination"] == "dropped" for r in records if r not in crashed)
    assert len(starts.read_text().split()) == 1 + len(crashed)  # the start-up check and the crashed games
    assert summary.dropped["dud"].startswith("3 consecutive failures")


# -- options cannot inject protocol lines ------------------------------------------


INJECTIONS = [
    ('depth = "3\\nquit"', "must be one line"),
    ('depth = "3\\rquit"', "must be one line"),
    ('depth = "3\\u2028quit"', "must be one line"),
    ('"my depth" = 3', "must be one word"),
    ('"" = 3', "must be one word"),
]


def refused(path: Path, *args: object, real: bool) -> str:
    """What `arena run FILE ARGS` says when it refuses the file (exit 2, no traceback): in a
    real arena process for one case of each test, in process (click's runner, the same
    command) for the others, which would each pay a second of an interpreter's start."""
    if real:
        proc = run_arena("run", path, *args)
        code, said = proc.returncode, proc.stderr
    else:
        result = CliRunner().invoke(main, ["run", str(path), *map(str, args)])
        code, said = result.exit_code, result.stderr
    assert code == 2 and "Traceback" not in said, said
    return said


@pytest.mark.slow
@pytest.mark.parametrize("option,what", INJECTIONS)
def test_an_option_that_would_inject_a_command_is_refused_at_load(tmp_path, option, what):
    engines = engine_toml("a", "{python}", ZOO, extra=f"[engines.options]\n{option}") + engine_toml(
        "b", "{python}", ZOO
    )
    path = write_tournament(tmp_path, engines)
    with pytest.raises(ConfigError, match=what):
        load_tournament(path)
    said = refused(path, "--out", tmp_path / "out", real=(option, what) == INJECTIONS[0])
    assert "engine 'a': options:" in said, said


def test_setoption_lines_are_never_formatted_raw():
    assert codec.format_setoption("depth", "3 and more") == "setoption depth 3 and more"
    for name, value in [("depth", "3\nquit"), ("de pth", "3"), ("depth", "\x00")]:
        with pytest.raises(ValueError):
            codec.format_setoption(name, value)


# -- hidden posies come from a secret ------------------------------------------


def test_hidden_posies_are_dealt_from_a_secret_not_from_the_seed(tmp_path):
    """The master seed is in the tournament file, and arena play's seeds are small: a deal
    derived from them could be recomputed by an engine.  Each game deals afresh."""
    game = make_game("posies", {"players": 2, "variant": 2})
    names = ["a", "b"]
    engines = [EngineProcess(EngineSpec(n, (sys.executable, SPY, str(tmp_path / n)))) for n in names]
    deals = set()
    for engine in engines:
        engine.start()
    try:
        for _ in range(3):
            rec = play_game(game, engines, seed=5, time_control=TimeControl(movetime_ms=2000), names=names).record
            assert rec["termination"] == "normal", rec["reason"]
            deals.add(rec["deal"])
    finally:
        for engine in engines:
            engine.quit()
    assert len(deals) == 3 and derive_seed(5, "deal", *names) not in deals
    plain = make_game("hex", {"size": 5})
    assert new_deal(plain, 5, names) == new_deal(plain, 5, names)  # no secrets: reruns identical


@pytest.mark.slow
def test_a_gtp_answer_read_after_the_limit_is_a_time_loss(marker, monkeypatch):
    """The GTP bridge too: the genmove answer is judged by the measured time."""
    from arena.engine.gtp import GtpEngine

    real = GtpEngine._read_response

    def slow(self, deadline, code, reason, lines):
        answer = real(self, deadline, code, reason, lines)
        if callable(reason):  # the genmove wait (set-up commands give their reason as text)
            time.sleep((MOVETIME + MARGIN) / 1000 + 0.05)
        return answer

    monkeypatch.setattr(GtpEngine, "_read_response", slow)
    spec = EngineSpec("gtp", (sys.executable, str(ROOT / "tests" / "engines" / "gtp_hex_engine.py")), protocol="gtp")
    record, _, worker = play_one(spec)
    check_fault(record, worker, 0, "timeout", "answered after 4")
    assert "over the limit of 400 ms" in record["reason"]
    check_clean(worker, marker)


# -- workers: signals, hangs, escaped descendants -----------------------------------


def _hold_the_wait_lock(path: str) -> None:
    """A task that starts an engine and then holds its Popen wait lock, as code that a
    SIGTERM interrupts inside Popen.wait() does."""
    from arena.tournament import worker

    engine = worker._worker.engine("good")
    engine.proc._waitpid_lock.acquire()
    with open(path, "w") as f:
        f.write(str(engine.proc.pid))
    time.sleep(60)


def test_sigterm_stops_a_worker_at_once_even_inside_a_wait(marker, tmp_path):
    from arena.tournament import pool as pool_module
    from arena.tournament.worker import WorkerConfig, init_worker

    config = WorkerConfig(
        "t",
        "hex",
        {"size": 5, "swap": False},
        {"good": GOOD},
        TimeControl(movetime_ms=MOVETIME),
        coordinator=os.getpid(),
    )
    ctx = multiprocessing.get_context("fork")
    ours, theirs = ctx.Pipe()
    worker = ctx.Process(target=pool_module._serve, args=(theirs, init_worker, (config, (), None), _hold_the_wait_lock))
    worker.start()
    pid_file = tmp_path / "engine.pid"
    ours.send(str(pid_file))
    deadline = time.monotonic() + 20
    while not (pid_file.exists() and pid_file.read_text()):
        assert time.monotonic() < deadline and worker.is_alive()
        time.sleep(0.01)
    t0 = time.monotonic()
    worker.terminate()
    worker.join(5)
    stopped = time.monotonic() - t0
    if worker.is_alive():
        worker.kill()
        worker.join()
    assert stopped < 1.0, f"the worker took {stopped:.1f} s to stop"
    assert worker.exitcode == 128 + signal.SIGTERM
    wait_gone(marker)


def wait_gone(marker, timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while survivors(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert survivors(marker) == []


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def start_marked_run(tmp_path: Path, path: Path, attempt: int, **popen) -> tuple[subprocess.Popen, Path]:
    """``arena run`` into its own folder, every zoo process noting its pid in the returned marker."""
    marker = tmp_path / f"pids{attempt}"
    env = dict(os.environ, ZOO_PIDS=str(marker), PYTHONPATH=str(ROOT))
    run = subprocess.Popen(
        arena_cmd("run", path, "--out", tmp_path / f"out{attempt}", "-q"),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        **popen,
    )
    return run, marker


SLOW_PAIR = engine_toml("slow1", "{python}", ZOO, "slow") + engine_toml("slow2", "{python}", ZOO, "fork+slow")


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_no_worker_or_engine_survives_a_coordinator_killed_or_stopped_at_any_moment(tmp_path):
    """kill -9 or SIGTERM of the coordinator, or SIGTERM of a worker, at random moments
    (fixed seed): every worker and every engine process is gone within seconds."""
    rng = random.Random(18)
    path = write_tournament(
        tmp_path, SLOW_PAIR, options="size = 5\nswap = false", rounds=20, workers=2, time_control="movetime_ms = 200"
    )
    for attempt in range(8):
        run, marker = start_marked_run(tmp_path, path, attempt, stderr=subprocess.PIPE, text=True)
        delay, how = rng.uniform(0.2, 2.0), rng.choice(["kill -9", "sigterm", "sigterm a worker"])
        end = time.monotonic() + delay
        workers: set[int] = set()
        while time.monotonic() < end:  # every worker this run ever had
            workers |= set(proctree.children(run.pid))
            time.sleep(0.01)
        workers |= set(proctree.children(run.pid))
        if how == "kill -9":
            run.kill()
        elif how == "sigterm":
            run.terminate()
        elif workers:  # the pool replaces it and plays on; then the run is stopped too
            victim = min(workers)
            try:
                os.kill(victim, signal.SIGTERM)
            except ProcessLookupError:
                pass  # it had just been replaced
            gone_by = time.monotonic() + 1.0
            while alive(victim) and time.monotonic() < gone_by:
                time.sleep(0.01)
            assert not alive(victim), f"attempt {attempt}: a worker outlived SIGTERM by 1 s"
            workers |= set(proctree.children(run.pid))
            run.terminate()
        else:
            run.terminate()
        try:
            run.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            run.kill()
            pytest.fail(f"attempt {attempt} ({how} after {delay:.2f} s): the run did not end")
        deadline = time.monotonic() + 5
        while any(map(alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not [w for w in workers if alive(w)], f"attempt {attempt}: {how} after {delay:.2f} s"
        wait_gone(marker, 5)


ESCAPERS = (
    engine_toml("fs", "{python}", ZOO, "fork_setsid+slow")
    + engine_toml("esc", "{python}", ZOO, "escape_tree+slow")
    + engine_toml("crash", "{python}", ZOO, "crash", "3", extra="max_failures = 0")
)


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_nothing_survives_a_coordinator_killed_while_the_run_starts(tmp_path):
    """kill -9 in the run's first 0.4 s (the engines' start-up check, the first workers):
    the processes that started engines kill what those left behind on the way out, even
    children that left the process group or dropped their environment."""
    rng = random.Random(7)
    path = write_tournament(
        tmp_path, ESCAPERS, options="size = 5\nswap = false", rounds=20, workers=2, time_control="movetime_ms = 300"
    )
    for attempt in range(16):
        run, marker = start_marked_run(tmp_path, path, attempt, stderr=subprocess.DEVNULL, start_new_session=True)
        delay = rng.uniform(0.2, 0.4)
        time.sleep(delay)
        run.kill()
        run.wait()
        try:
            wait_gone(marker, 5)
        except AssertionError:
            left = survivors(marker)
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            pytest.fail(f"attempt {attempt}, kill -9 after {delay:.2f} s: {len(left)} process(es) survived")


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_stopped_worker_is_killed_and_its_game_played_elsewhere(tmp_path, monkeypatch, caplog):
    """An engine sends SIGSTOP to its worker (once): the backstop, with the per-move
    watchdog off (test_watchdog.py tests that one), kills the worker and its engines after
    the game's longest possible duration plus a grace, and the game is played again by a
    new worker; the tournament finishes."""
    from arena.tournament import local, runner

    monkeypatch.setattr(local, "WATCHDOG_GRACE", 1.0)
    monkeypatch.setattr(local, "MOVE_GRACE", None)
    marker = tmp_path / "pids"
    monkeypatch.setenv("ZOO_PIDS", str(marker))
    monkeypatch.setenv("ZOO_ONCE", str(tmp_path / "stopped-once"))
    engines = engine_toml("good", "{python}", ZOO, "good", extra="handshake_ms = 200") + engine_toml(
        "stopper", "{python}", ZOO, "stop_worker", "2", extra="handshake_ms = 200"
    )
    path = write_tournament(
        tmp_path,
        engines,
        options="size = 3\nswap = false",
        rounds=1,
        workers=1,
        time_control="movetime_ms = 50\nmargin_ms = 50",
    )
    t0 = time.monotonic()
    summary = runner.run_tournament(load_tournament(path), tmp_path / "out")
    elapsed = time.monotonic() - t0
    assert summary.errors == [] and summary.played == 2
    records = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert [r["termination"] for r in records] == ["normal", "normal"]
    assert "has not finished" in caplog.text and "hung (killed after" in caplog.text
    assert elapsed < 30
    wait_gone(marker)


@pytest.mark.slow
def test_pool_watchdog_gives_up_a_task_whose_workers_keep_hanging():
    pool = WorkerPool(1, _hang_on_two, lambda: None, retries=1, time_limit=lambda task: 0.5)
    t0 = time.monotonic()
    results = list(pool.imap_unordered([1, 2, 3]))
    pool.close()
    assert sorted(r for r in results if not isinstance(r, Lost)) == [1, 3]
    [lost] = [r for r in results if isinstance(r, Lost)]
    assert lost.task == 2 and "died 2 times (it last hung)" in lost.reason
    assert time.monotonic() - t0 < 5


def _hang_on_two(task: int) -> int:
    if task == 2:
        os.kill(os.getpid(), signal.SIGSTOP)
    return task


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", ["python", "c"])
def test_a_descendant_that_leaves_the_group_and_drops_its_tags_is_killed(tmp_path, zoo_c, kind):
    """A grandchild that called setsid and exec'd with an empty environment: neither the
    process group nor the tag finds it; the worker, a child subreaper, adopts and kills it."""
    marker = tmp_path / "pids"
    env = dict(os.environ, ZOO_PIDS=str(marker), PYTHONPATH=str(ROOT))
    command = ("{python}", ZOO, "escape_tree") if kind == "python" else (zoo_c, "escape_tree")
    engines = engine_toml("escaper", *command) + engine_toml("good", "{python}", ZOO, "good")
    path = write_tournament(
        tmp_path, engines, options="size = 5\nswap = false", rounds=1, workers=1, time_control="movetime_ms = 200"
    )
    proc = run_arena("run", path, "--out", tmp_path / "out", "-q", env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    started = [int(p) for p in marker.read_text().split()]
    assert len(started) >= 3  # the escaper, its grandchild (no tag, own session), good
    assert [pid for pid in started if alive(pid)] == []
    assert "left behind outside its process group" in (tmp_path / "out" / "arena.log").read_text()


# -- no input gives a traceback ------------------------------------------------------

HEX_FILE = 'name = "t"\ngame = "hex"\n[[engines]]\nname = "a"\ncommand = ["true"]\n[[engines]]\nname = "b"\ncommand = ["true"]\n'


UNREADABLE = ["seed = " + "7" * 5000, "x = " + "[" * 5000 + "]" * 5000]


@pytest.mark.slow
@pytest.mark.parametrize("extra", UNREADABLE)
def test_huge_numbers_and_deep_nesting_in_a_tournament_file_give_one_line(tmp_path, extra):
    path = tmp_path / "t.toml"
    path.write_text(extra + "\n" + HEX_FILE)
    with pytest.raises(ConfigError, match="cannot read the file"):
        load_tournament(path)
    said = refused(path, real=extra == UNREADABLE[0])
    assert len(said.splitlines()) == 1, said


HUGE_HEX, HUGE_OCT, HUGE_BIN = "0x" + "f" * 5000, "0o7" + "7" * 5000, "0b1" + "0" * 20000


HUGE_NUMBERS = [
    (f"seed = {HUGE_HEX}\n" + HEX_FILE, "seed"),
    (f"seed = {HUGE_BIN}\n" + HEX_FILE, "seed"),
    ("seed = " + "9" * 4299 + "\n" + HEX_FILE, "seed"),  # decimal, just under Python's limit
    (HEX_FILE + f"[options]\nsize = {HUGE_OCT}\n", "options.size"),
    (HEX_FILE + f"[time_control]\nmovetime_ms = {HUGE_HEX}\n", "time_control.movetime_ms"),
    (HEX_FILE.replace('["true"]\n', f'["true"]\noptions = {{hash = {HUGE_BIN}}}\n', 1), "engines.0.options.hash"),
]


@pytest.mark.slow
@pytest.mark.parametrize("text,key", HUGE_NUMBERS)
def test_a_huge_hex_octal_or_binary_number_names_its_key_in_one_line(tmp_path, text, key):
    """TOML reads 0x/0o/0b integers of any length; Python then cannot print them."""
    path = tmp_path / "t.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=f"t.toml: key '{key}': a [0-9]+-bit number; no key takes one over 64"):
        load_tournament(path)
    said = refused(path, real=(text, key) == HUGE_NUMBERS[0])
    assert len(said.splitlines()) == 1 and len(said) < 400, said


def test_a_64_bit_seed_in_hex_still_loads(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text("seed = 0xffff_ffff_ffff_ffff\n" + HEX_FILE)
    assert load_tournament(path).data.seed == 2**64 - 1


@pytest.mark.parametrize("digits", [5000, 4299])
def test_a_huge_game_option_on_the_command_line_is_not_repeated_whole(digits):
    """Refused while the command line is read, so in process: Python's limit on the digits of
    an int it reads is the same in this process as in an arena process."""
    result = CliRunner().invoke(main, ["play", "-g", "hex", "-O", "size=" + "9" * digits, "a", "b"])
    said = result.stderr
    assert result.exit_code == 2 and "Traceback" not in said and len(said.splitlines()) == 1
    assert "option 'size'" in said and len(said) < 300, said


@pytest.mark.parametrize(
    "line,what",
    [
        ('{"game": "hex", "moves": [], "seed": ' + "7" * 5000 + "}", "at most 4300 digits"),
        ('{"game": "hex", "moves": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deep"),
        ('{"game": 7, "moves": []}', '"game" must be a string (a game name such as "hex"), got a number'),
    ],
)
def test_records_arena_verify_cannot_use_give_one_line(tmp_path, line, what):
    # each unusable record gets its own verdict naming the line; the file goes on
    path = tmp_path / "r.jsonl"
    path.write_text(line + "\n" + '{"game": "hex", "options": {"size": 3}, "moves": ["a1"]}\n')
    proc = run_arena("verify", path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and not proc.stderr
    bad, good = map(json.loads, proc.stdout.splitlines())
    assert bad["ok"] is False and bad["line"] == 1 and good["ok"] and good["line"] == 2
    assert bad["error"]["reason"].startswith(f"{path}, line 1: ") and what in bad["error"]["reason"]


@pytest.fixture(scope="session")
def played_folder(tmp_path_factory) -> tuple[Path, Path]:
    """A small tournament file and the folder of its finished run, played once per worker (an
    `arena run` process, which each of the four tests started before): those that start runs of
    the file know it plays, and those that damage the folder take their own copy (:func:`_own_copy`).
    Session-wide, not module-wide: the slow tests are ordered by their timeouts across the files
    (tests/conftest.py), and a module fixture would be played again each time the module came back."""
    tmp_path = tmp_path_factory.mktemp("played")
    engines = engine_toml("a", "{python}", ZOO, "good") + engine_toml("b", "{python}", ZOO, "good")
    path = write_tournament(
        tmp_path, engines, options="size = 3\nswap = false", rounds=1, workers=1, time_control="movetime_ms = 200"
    )
    proc = run_arena("run", path, "--out", tmp_path / "out", "-q", timeout=120)
    assert proc.returncode == 0, proc.stderr
    return path, tmp_path / "out"


def _own_copy(played: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    path, out = played
    return path, Path(shutil.copytree(out, tmp_path / "out"))


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_damaged_record_in_the_database_names_the_game_and_the_way_out(played_folder, tmp_path):
    import sqlite3

    path, out = _own_copy(played_folder, tmp_path)
    db = sqlite3.connect(out / "arena.db")
    text = db.execute("SELECT record FROM games WHERE id = 1").fetchone()[0]
    for damaged in (text[: len(text) // 2], text.replace('"termination"', '"ending"')):
        with db:
            db.execute("UPDATE games SET record = ? WHERE id = 1", (damaged,))
        proc = run_arena("run", path, "--out", out, timeout=60)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert "game 1: the stored record is damaged" in proc.stderr and "DELETE FROM games WHERE id = 1" in proc.stderr
    with db:
        db.execute("DELETE FROM games WHERE id = 1")
    db.close()
    again = run_arena("run", path, "--out", out, "-q", timeout=60)  # the advice works
    assert again.returncode == 0 and "1 games played, 1 resumed" in again.stdout


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_corrupt_database_is_not_called_a_full_disk(played_folder, tmp_path):
    path, out = _own_copy(played_folder, tmp_path)
    for name in ("arena.db-wal", "arena.db-shm"):
        (out / name).unlink(missing_ok=True)
    (out / "arena.db").write_bytes(b"this is not an SQLite file" * 100)
    proc = run_arena("run", path, "--out", out, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "the database is damaged" in proc.stderr and "disk has room" not in proc.stderr


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_ctrl_c_while_arena_starts_gives_one_line(played_folder, tmp_path):
    """SIGINT at many moments of the first second of a run (imports, loading, workers
    starting): one line on stderr, never a traceback, from arena or from a worker.  (An
    interrupt while the interpreter itself starts, before any arena code runs, is Python's:
    such a traceback has no arena frame and is let through.)"""
    path, _ = played_folder
    for attempt, delay in enumerate([0.05, 0.1, 0.15, 0.25, 0.35, 0.5, 0.7, 0.9, 1.2]):
        run = subprocess.Popen(
            arena_cmd("run", path, "--out", tmp_path / f"o{attempt}", "-q"),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        time.sleep(delay)
        os.killpg(run.pid, signal.SIGINT)  # what the terminal sends to the whole job
        _, err = run.communicate(timeout=30)
        if "Traceback" in err and not _arena_frames(err):
            continue  # the interpreter was still starting (site, pip's editable-install finder)
        assert "Traceback" not in err and "Logging error" not in err, (delay, err)
        # -SIGINT: the signal came while the interpreter was already shutting down, after the line
        assert run.returncode in (0, 130, -signal.SIGINT) and len(err.splitlines()) <= 1, (delay, err)


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm"])
def test_ctrl_c_in_the_first_milliseconds_is_never_lost_nor_an_arena_traceback(played_folder, tmp_path, stop):
    """4-40 ms after the start: Python itself may still be starting (its traceback has no
    arena frame); from arena's first line on, the stop gives one line and exit 130 or 143, and it is
    never swallowed (the tournament must not run on)."""
    path, _ = played_folder
    for attempt, delay in enumerate([0.004 + 0.002 * k for k in range(19)]):
        run = subprocess.Popen(
            arena_cmd("run", path, "--out", tmp_path / f"o{attempt}", "-q"),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        time.sleep(delay)
        if stop == "ctrl-c":
            os.killpg(run.pid, signal.SIGINT)
        else:
            run.terminate()
        _, err = run.communicate(timeout=30)
        if run.returncode == 0 and "KeyboardInterrupt" in err and not _arena_frames(err):
            # CPython itself dropped it while the interpreter was still starting (in its import
            # lock's weakref callback, or in site's reading of pip's .pth file): arena's handler,
            # once in, never raises, and the CLI, which restores Ctrl-C, takes far longer than
            # this test's 40 ms to load.
            continue
        assert run.returncode != 0, (delay, err)  # the interrupt was not lost
        assert not _arena_frames(err), (delay, err)


def commands_with(command: Callable[[], None]) -> click.Group:
    """arena's command group holding ``command`` and ``fail``, which raises a real bug."""

    @click.group(cls=Commands)
    def group():
        pass

    group.command()(command)

    @group.command()
    def fail():
        raise RuntimeError("a real bug")

    return group


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_wrapped_on_its_way_up_is_still_one_line(monkeypatch, signum, code):
    """pydantic, building a model's schema while a command first imports it, turns a Ctrl-C
    into a SchemaError: the stop the handler remembers is answered as the stop, not as a crash.
    With no stop received, such an error goes up untouched."""
    monkeypatch.setattr(verdict, "_stops_received", [])

    def build():
        try:
            verdict.raise_on_stop(signum, None)
        except KeyboardInterrupt as exc:
            raise RuntimeError(f"Error building validator: {exc!r}") from None

    group = commands_with(build)
    result = CliRunner().invoke(group, ["build"])
    assert result.exit_code == code, result.output
    assert result.output.splitlines() == [
        f"arena: interrupted; nothing that was finished is lost. Resume with: {command_line()}"
    ]
    monkeypatch.setattr(verdict, "_stops_received", [])
    result = CliRunner().invoke(group, ["fail"])
    assert isinstance(result.exception, RuntimeError) and str(result.exception) == "a real bug"


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stop_a_finalizer_dropped_is_answered_when_the_command_returns(monkeypatch, signum, code):
    """Python prints and drops a stop's exception raised in a __del__: the command runs on, but
    the stop the handler noted is answered when it returns, as one line with the stop's code.
    A stop taken before the command began (another test's, in one process) is not its own."""
    monkeypatch.setattr(verdict, "_stops_received", [])
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: None)

    class StopInAFinalizer:
        def __del__(self):
            verdict.raise_on_stop(signum, None)

    def work():
        StopInAFinalizer()  # freed at once
        click.echo("done")

    group = commands_with(work)
    result = CliRunner().invoke(group, ["work"])
    assert result.exit_code == code, result.output
    assert result.output.splitlines() == [
        "done",
        f"arena: interrupted; nothing that was finished is lost. Resume with: {command_line()}",
    ]
    result = CliRunner().invoke(group, ["fail"])  # the stop above is not this command's
    assert isinstance(result.exception, RuntimeError) and str(result.exception) == "a real bug"


def test_a_lost_stop_is_raised_again_only_when_taken_since_and_as_its_own_kind(monkeypatch):
    monkeypatch.setattr(verdict, "_stops_received", [])
    since = verdict.stops_so_far()
    verdict.raise_lost_stop(since)  # no stop: nothing
    for signum, kind in [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, verdict.Terminated)]:
        with pytest.raises(KeyboardInterrupt):
            verdict.raise_on_stop(signum, None)
        with pytest.raises(KeyboardInterrupt) as again:
            verdict.raise_lost_stop(since)
        assert type(again.value) is kind
    assert verdict.stops_so_far() == 2 and verdict.stop_since(1) == 143 and verdict.stop_since(2) is None
    verdict.raise_lost_stop(2)


def test_the_command_drops_quietly_only_a_stop_lost_in_a_finalizer(monkeypatch, capsys):
    """arena's hook for exceptions Python drops: a stop (noted by the handler, raised again by
    the run) leaves no traceback to break the one line; anything else is printed as Python would."""
    from arena.__main__ import _drop_lost_stop

    monkeypatch.setattr(sys, "unraisablehook", _drop_lost_stop)

    class Raises:
        def __init__(self, exc):
            self.exc = exc

        def __del__(self):
            raise self.exc

    Raises(verdict.Terminated())  # each freed at once, its exception dropped
    Raises(KeyboardInterrupt())
    assert capsys.readouterr().err == ""
    Raises(ValueError("a finalizer's own bug"))
    assert "ValueError: a finalizer's own bug" in capsys.readouterr().err


def test_the_stop_handler_raises_ctrl_c_and_sigterm_each_as_its_own_interrupt(monkeypatch):
    """Ctrl-C is a plain KeyboardInterrupt and SIGTERM its subclass Terminated, so that a run
    exits with 130 or 143; the handler remembers the last stop's code."""
    monkeypatch.setattr(verdict, "_stops_received", [])
    assert verdict.stop_since() is None
    for signum, kind, code in [(signal.SIGTERM, verdict.Terminated, 143), (signal.SIGINT, KeyboardInterrupt, 130)]:
        with pytest.raises(KeyboardInterrupt) as caught:
            verdict.raise_on_stop(signum, None)
        assert type(caught.value) is kind
        assert verdict.interrupt_code(caught.value) == verdict.stop_since() == code


def _arena_frames(err: str) -> list[str]:
    """The traceback's frames in arena's own package (not pip's __editable___arena_* finder,
    which the interpreter imports while it starts)."""
    frames = [line for line in err.splitlines() if line.strip().startswith("File ")]
    return [line for line in frames if f"{os.sep}arena{os.sep}" in line]


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_sigterm_while_the_run_starts_gives_one_line(tmp_path):
    """SIGTERM once the run has opened its folder (the engines' start-up check, the first
    workers): one line and exit 143 (128 + SIGTERM), never a silent end."""
    rng = random.Random(3)
    path = write_tournament(
        tmp_path, SLOW_PAIR, options="size = 5\nswap = false", rounds=20, workers=2, time_control="movetime_ms = 200"
    )
    for attempt in range(8):
        out = tmp_path / f"o{attempt}"
        run = subprocess.Popen(
            arena_cmd("run", path, "--out", out, "-q"),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while not (out / "arena.db").exists():
            assert time.monotonic() < deadline and run.poll() is None
            time.sleep(0.002)
        time.sleep(rng.uniform(0, 0.3))
        run.terminate()
        _, err = run.communicate(timeout=30)
        assert run.returncode == 143 and len(err.splitlines()) == 1 and "interrupted" in err, (
            attempt,
            run.returncode,
            err,
        )


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_full_disk_under_arena_log_gives_one_line_not_logging_tracebacks(tmp_path):
    engines = engine_toml("crasher", "{python}", ZOO, "crash", extra="max_failures = 0") + engine_toml(
        "good", "{python}", ZOO, "good"
    )
    path = write_tournament(
        tmp_path, engines, options="size = 3\nswap = false", rounds=2, workers=1, time_control="movetime_ms = 200"
    )
    out = tmp_path / "out"
    out.mkdir()
    (out / "arena.log").symlink_to("/dev/full")  # every write fails with ENOSPC
    proc = run_arena("run", path, "--out", out, "-q", timeout=120)
    assert "Logging error" not in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.count("cannot write") == 1 and "No space left on device" in proc.stderr
    assert proc.returncode == 0  # the games themselves were stored


@pytest.fixture
def full_tmpfs(tmp_path):
    """A 2 MiB tmpfs filled to its last page (4 KiB): the log that lives there fills during the run."""
    mount = tmp_path / "small-disk"
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)]).returncode:
        pytest.skip("mounting a small tmpfs needs root")
    try:
        statvfs = os.statvfs(mount)
        (mount / "filler").write_bytes(b"\0" * ((statvfs.f_bavail - 1) * statvfs.f_frsize))
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_disk_that_fills_under_two_workers_gives_one_line(tmp_path, full_tmpfs):
    """The coordinator and both workers write arena.log; when the disk fills, each of them
    meets ENOSPC, and the run still says so once."""
    engines = engine_toml("crasher", "{python}", ZOO, "crash", extra="max_failures = 0") + engine_toml(
        "good", "{python}", ZOO, "good"
    )
    path = write_tournament(
        tmp_path, engines, options="size = 3\nswap = false", rounds=12, workers=2, time_control="movetime_ms = 200"
    )
    out = tmp_path / "out"
    out.mkdir()
    (out / "arena.log").symlink_to(full_tmpfs / "arena.log")
    proc = run_arena("run", path, "--out", out, "-q", timeout=120)
    log = (full_tmpfs / "arena.log").read_text()
    assert "worker-1" in log and "worker-2" in log  # each process wrote until the disk was full
    assert proc.stderr.count("cannot write") == 1 and "No space left on device" in proc.stderr
    assert "the run goes on without its log" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.returncode == 0 and json.loads((out / "results.json").read_text())["games"] == 24  # all stored


def test_arena_log_has_an_overall_cap(tmp_path):
    import logging

    from arena.results.logfile import RunLog

    handler = RunLog(tmp_path / "arena.log", max_bytes=64 * 1024)
    logger = logging.getLogger("arena.test-cap")
    logger.addHandler(handler)
    try:
        for _i in range(200):  # 20 crashes' worth of stderr tails, and more
            logger.warning("engine: last stderr:\n%s", "e" * 8000)
    finally:
        logger.removeHandler(handler)
        handler.close()
    sizes = [p.stat().st_size for p in tmp_path.iterdir()]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arena.log", "arena.log.1"]
    assert sum(sizes) <= 2 * 64 * 1024 + 8100


def test_the_run_log_is_made_with_its_folder_and_takes_arenas_info_lines_in_its_format(tmp_path, capsys):
    """``attach_run_log`` as ``arena run`` calls it, in this process: the folder made, INFO and
    up of every ``arena.*`` logger written as time, process, logger, level, message, in UTF-8;
    and a log that cannot be written says so once on stderr (the quick form of the full-disk test)."""
    import logging

    from arena.results.logfile import attach_run_log

    root = logging.getLogger("arena")
    level = root.level
    out = tmp_path / "deeper" / "out"
    handler = attach_run_log(out)
    try:
        logging.getLogger("arena.engine").debug("not kept")
        logging.getLogger("arena.engine").info("engine 'ä' said %s", "½")
        logging.getLogger("other").warning("not arena's")
        assert root.level == logging.INFO and handler in root.handlers
        again = attach_run_log(out)  # the folder may exist: a resumed run
        root.removeHandler(again)
        again.close()
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        handler.close()
    lines = (out / "arena.log").read_bytes().decode("utf-8").splitlines()
    assert len(lines) == 1 and re.fullmatch(
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} MainProcess arena\.engine INFO engine 'ä' said ½", lines[0]
    )
    assert sorted(p.name for p in out.iterdir()) == ["arena.log"]

    full = tmp_path / "full"
    full.mkdir()
    (full / "arena.log").symlink_to("/dev/full")  # every write fails with ENOSPC
    handler = attach_run_log(full)
    try:
        for _ in range(3):
            logging.getLogger("arena.engine").warning("lost")
        assert handler.failed
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        with contextlib.suppress(OSError):  # its buffer cannot be flushed either (logging.shutdown's way)
            handler.close()
    err = capsys.readouterr().err
    assert err == (
        f"arena: cannot write {full / 'arena.log'} ([Errno 28] No space left on device); "
        "the run goes on without its log\n"
    )


# -- smaller ----------------------------------------------------------------------


def test_a_deleted_working_folder_is_told_apart_from_a_missing_program(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    proc = EngineProcess(EngineSpec("z", (sys.executable, ZOO), cwd=str(gone)))
    gone.rmdir()
    with pytest.raises(Exception) as caught:
        proc.start()
    assert caught.value.code == "crash" and f"working folder {str(gone)!r} does not exist" in caught.value.reason
    missing = EngineProcess(EngineSpec("z", (str(tmp_path / "no-such-program"),)))
    with pytest.raises(Exception) as caught:
        missing.start()
    assert "No such file or directory" in caught.value.reason and "working folder" not in caught.value.reason


@pytest.mark.slow
def test_bench_reports_a_game_that_ended_by_a_fault_instead_of_aborting():
    from arena_bench.common import InstantEngine
    from arena_bench.tournaments import play_tournament

    notes: list[str] = []
    run = play_tournament(
        InstantEngine((sys.executable, ZOO, "crash", "1"), "Python", "zoo"),
        workers=1,
        rounds=1,
        size=5,
        note=notes.append,
    )
    assert run.terminations == {"crash": 2}
    assert notes and "2 of 2 benchmark games ended by a fault (2 crash)" in notes[0]


def test_the_run_log_is_written_in_utf8_whatever_the_locale(tmp_path):
    import logging

    from helpers import ascii_locale

    from arena.results.logfile import RunLog

    handler = RunLog(tmp_path / "arena.log")
    logger = logging.getLogger("arena.test-utf8")
    logger.addHandler(handler)
    try:
        with ascii_locale():  # the log opens with its first line: here, under an ASCII locale
            logger.warning("engine 'Jürgen' said ½")
    finally:
        logger.removeHandler(handler)
        handler.close()
    assert not handler.failed
    assert (tmp_path / "arena.log").read_bytes().decode("utf-8") == "engine 'Jürgen' said ½\n"


def test_a_log_that_cannot_be_opened_is_given_up_in_one_line_when_first_written_and_the_run_goes_on(tmp_path, capsys):
    import logging

    from arena.results.logfile import attach_run_log

    out = tmp_path / "out"
    (out / "arena.log").mkdir(parents=True)  # not a file: it cannot be opened for writing
    root = logging.getLogger("arena")
    level = root.level
    handler = attach_run_log(out)  # the run starts: nothing is opened before its first line
    try:
        assert not handler.failed
        for _ in range(3):
            logging.getLogger("arena.engine").warning("lost")
        assert handler.failed
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        handler.close()
    path = out / "arena.log"
    assert capsys.readouterr().err == (
        f"arena: cannot write {path} ([Errno 21] Is a directory: {str(path)!r}); the run goes on without its log\n"
    )
