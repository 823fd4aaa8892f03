"""The fault zoo through the runner's real worker path (start, play, restart, cleanup).

Each misbehaving engine (tests/engines/zoo_engine.py, zoo_engine.c) plays one game
against a well-behaved zoo engine.  For every fault: the game is recorded with the
precise termination and reason, it is detected within the time limit plus a small
margin, the opponent keeps its process and is not blamed, and afterwards no process
that either engine started is left (checked by an environment marker every
descendant inherits).
"""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from zoo import (
    GOOD,
    HERE,
    LIMIT,
    MARGIN,
    MOVETIME,
    SLACK,
    ZOO,
    check_clean,
    check_fault,
    play_one,
    started_pids,
    survivors,
    zoo,
)

from arena.engine import proctree
from arena.engine.conversation import HANDSHAKE_TIMEOUT
from arena.engine.player import EngineSpec
from arena.engine.process import EngineProcess
from arena.match import TimeControl
from arena.tournament.schedule import ScheduledGame
from arena.tournament.worker import Worker, WorkerConfig

# An engine kept after its fault sleeps until killed: a tenth of a second's grace, not a second
pytestmark = pytest.mark.usefixtures("short_quit_grace")

IN_GAME = [
    # fault, misbehave at its N-th go, termination, reason (part), detection budget (s)
    ("crash", 2, "crash", "exit code 3; last stderr line: 'zoo: giving up'", 0),
    ("hang", 1, "timeout", "no move within 400 ms", LIMIT),
    ("late", 1, "timeout", "no move within 400 ms", LIMIT),
    ("garbage", 1, "protocol", "line is not valid UTF-8", 0),
    ("wrong_command", 1, "protocol", "not a protocol v1 engine line: 'bestmove e5'", 0),
    ("illegal", 2, "illegal", "is already occupied", 0),
    ("other_game", 1, "illegal", "illegal move 'e1-e4'", 0),
    ("shout", 1, "illegal", "illegal move 'A1': not a cell", 0),  # kept as sent, never lowered
    ("double_move", 1, "protocol", "sent when no answer was asked for", 0),
    ("flood_forever", 1, "timeout", "no move within 400 ms", LIMIT),
    ("signal", 1, "crash", "killed by signal SIGSEGV", 0),
    ("close_stdout", 1, "crash", "closed its output (process still running)", 0.25),
    ("partial", 1, "timeout", "no move within 400 ms", LIMIT),
    ("partial_exit", 1, "crash", "closed its output after a partial line 'move a': exit code 0", 0),
    ("long_line", 1, "protocol", "line longer than 65536 bytes", 0),
    ("line_over", 1, "protocol", "line longer than 65536 bytes", 0),  # a move line one byte too long
    ("child_holds_output", 1, "crash", "exited (a child process still holds its output): exit code 4", 0),
    ("resign", 1, "resign", "resigned", 0),
]


@pytest.mark.parametrize("fault,at,code,reason,budget", IN_GAME, ids=[f[0] for f in IN_GAME])
@pytest.mark.slow
def test_fault_during_the_game(marker, fault, at, code, reason, budget):
    record, elapsed, worker = play_one(zoo(fault, at))
    check_fault(record, worker, 0, code, reason)
    assert elapsed < budget + SLACK
    # every move before the fault is kept (a second move is caught at the next go)
    assert len(record["moves"]) == 2 * (at - 1) + (2 if fault == "double_move" else 0)
    check_clean(worker, marker)


def test_late_reply_is_never_read_as_a_move(marker):
    record, _, worker = play_one(zoo("late", 2))
    assert record["termination"] == "timeout" and len(record["moves"]) == 2
    check_clean(worker, marker)


def test_a_move_line_of_exactly_the_line_limit_is_accepted(marker):
    record, _, worker = play_one(zoo("line_exact"))
    assert record["termination"] == "normal", record["reason"]
    assert record["moves"][0] == "a1"
    check_clean(worker, marker)


@pytest.mark.parametrize(
    "time_control",
    [
        TimeControl(movetime_ms=100, margin_ms=1500),  # zoo's late move comes after 0.5 s
        TimeControl(base_ms=100, margin_ms=2500),  # no movetime in 'go': it comes after 1.4 s
    ],
    ids=["movetime", "clock"],
)
@pytest.mark.slow
def test_a_move_inside_the_margin_is_accepted(marker, time_control):
    record, _, worker = play_one(zoo("late"), time_control=time_control)
    assert record["termination"] == "normal", record["reason"]
    assert record["times_ms"][0] > 100  # past the limit 'go' printed, within the margin
    check_clean(worker, marker)


START = [
    ("crash_start", {}, "crash", "exit code 2; last stderr line: 'zoo: cannot load my weights'", 0),
    ("silent_start", {"handshake_ms": 500}, "handshake", "no arenaok within 0.5 s of 'arena 1'", 0.5),
    ("close_stdin", {}, "crash", "closed its input", 0),
]


# Both engines start inside the timed window, so on a loaded machine two Python start-ups
# can take a few seconds; what matters is that no fault waits for the 10 s default handshake.
START_SLACK = 4.0
assert max(f[4] for f in START) + START_SLACK < HANDSHAKE_TIMEOUT


@pytest.mark.parametrize("fault,limits,code,reason,budget", START, ids=[f[0] for f in START])
def test_fault_at_start_loses_the_game_and_spares_the_opponent(marker, fault, limits, code, reason, budget):
    record, elapsed, worker = play_one(zoo(fault, **limits), bad_seat=1)
    check_fault(record, worker, 1, code, reason)
    assert elapsed < budget + START_SLACK and record["moves"] == []
    check_clean(worker, marker)


def test_an_engine_that_faulted_is_restarted_and_the_opponent_is_reused(marker):
    bad = zoo("crash", 2)
    config = WorkerConfig(
        "zoo",
        "hex",
        {"size": 5, "swap": False},
        {bad.name: bad, GOOD.name: GOOD},
        TimeControl(movetime_ms=MOVETIME, margin_ms=MARGIN),
    )
    worker = Worker(config)
    first = worker.play(ScheduledGame(0, 0, (bad.name, GOOD.name), seed=1))
    good_pid = worker.engines["good"].proc.pid
    second = worker.play(ScheduledGame(1, 0, (GOOD.name, bad.name), seed=1))
    assert first["termination"] == second["termination"] == "crash"
    assert worker.engines["good"].proc.pid == good_pid
    assert len(started_pids(marker)) == 3  # good once, the crashing engine twice
    check_clean(worker, marker)


@pytest.mark.parametrize("fault", ["fork", "fork_setsid", "ignore_signals"])
@pytest.mark.slow
def test_children_and_stubborn_engines_are_gone_after_the_game(marker, fault):
    record, _, worker = play_one(zoo(fault))
    assert record["termination"] == "normal"
    check_clean(worker, marker)
    assert len(started_pids(marker)) == (2 if fault == "ignore_signals" else 3)


def test_a_faulting_engine_with_a_detached_child_leaves_nothing(marker):
    """The child left the process group (setsid) and closed its pipes: only the
    environment tag finds it."""
    spec = EngineSpec(
        "setsid-crash",
        (
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import os, runpy, sys
        sys.argv = [{ZOO!r}, "crash", "2"]
        if os.fork() == 0:
            os.setsid(); os.close(0); os.close(1); os.close(2)
            open(os.environ["ZOO_PIDS"], "a").write(f"{{os.getpid()}}\\n")
            import time; time.sleep(600)
        runpy.run_path(sys.argv[0], run_name="__main__")
    """),
        ),
    )
    record, _, worker = play_one(spec)
    assert record["termination"] == "crash"
    check_clean(worker, marker)


@pytest.mark.parametrize("fault", ["flood_info", "flood_stderr"])
@pytest.mark.slow
def test_floods_of_info_lines_and_stderr_do_not_slow_the_referee(marker, fault):
    """20,000 info lines (or 2 MiB of stderr) before every move: the game is normal and
    each move still arrives inside a second (the engine's own writing counts; at 300 ms a
    move this lost on time when the suite's other worker ran Chromium beside it)."""
    record, _, worker = play_one(zoo(fault), movetime=1000)
    assert record["termination"] == "normal"
    assert max(record["times_ms"]) < 1000
    if fault == "flood_stderr":
        tail = worker.engines[f"zoo-{fault}"].stderr_tail
        assert len(tail) == 64 * 1024  # only the last 64 KiB are kept
    check_clean(worker, marker)


def test_untrusted_text_from_engines_is_stripped_of_control_characters(marker):
    record, _, worker = play_one(zoo("escapes"))
    assert record["termination"] == "protocol"
    assert not any(ch in record["reason"] for ch in "\x1b\x07\x9b")
    assert "hello" in record["reason"] and "31m" not in record["reason"]  # 8-bit CSI too
    named = EngineProcess(zoo("escape_name"))
    named.start()
    try:
        assert named.identity["name"] == "evil"  # escape sequences removed with their parameters
    finally:
        named.kill()
    check_clean(worker, marker)


def test_memory_limit_from_the_spec(marker):
    record, elapsed, worker = play_one(zoo("memory", memory_mb=200), movetime=5000)
    check_fault(record, worker, 0, "crash", "MemoryError")
    assert elapsed < 5
    check_clean(worker, marker)


@pytest.mark.slow
def test_cpu_limit_from_the_spec(marker):
    record, elapsed, worker = play_one(zoo("cpu", cpu_seconds=1), movetime=8000)
    check_fault(record, worker, 0, "crash", "killed by signal SIGXCPU")
    assert elapsed < 8
    check_clean(worker, marker)


C_FAULTS = [
    ("segv", {}, "crash", "killed by signal SIGSEGV"),
    ("abort", {}, "crash", "killed by signal SIGABRT"),
    ("hog", {"memory_mb": 64}, "crash", "exit code 1; last stderr line: 'zoo: out of memory'"),
    ("partial_exit", {}, "crash", "partial line 'move a'"),
]


@pytest.mark.parametrize("fault,limits,code,reason", C_FAULTS, ids=[f[0] for f in C_FAULTS])
def test_compiled_engine_faults(marker, zoo_c, fault, limits, code, reason):
    record, elapsed, worker = play_one(EngineSpec(f"c-{fault}", (zoo_c, fault, "2"), **limits))
    check_fault(record, worker, 0, code, reason)
    assert elapsed < SLACK + 1 and len(record["moves"]) == 2
    check_clean(worker, marker)


def test_compiled_engine_with_a_detached_child(marker, zoo_c):
    record, _, worker = play_one(EngineSpec("c-setsid", (zoo_c, "setsid_child")))
    assert record["termination"] == "normal"
    # both engines and the detached child, which notes itself when the machine gets round to
    # it (a short game can end first): the worker's shutdown must find it running
    deadline = time.monotonic() + 10
    while len(started_pids(marker)) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(started_pids(marker)) == 3
    check_clean(worker, marker)


def test_engine_dies_with_the_process_that_started_it(marker, tmp_path):
    """kill -9 of the arena process: the engine gets SIGKILL from the kernel
    (PR_SET_PDEATHSIG); its own children are left to the run's sweep."""
    host = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(HERE.parent)!r})
        from arena.engine.player import EngineSpec
        from arena.engine.process import EngineProcess
        from arena.engine.transport import PipeSettings
        proc = EngineProcess(EngineSpec("z", ({sys.executable!r}, {ZOO!r}, "fork")), pipe=PipeSettings(run_tag="run-{os.getpid()}"))
        proc.start()
        print(proc.proc.pid, flush=True)
        time.sleep(600)
    """),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    engine_pid = int(host.stdout.readline())
    host.send_signal(signal.SIGKILL)
    host.wait()
    deadline = time.monotonic() + 2
    while engine_pid in survivors(marker) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert engine_pid not in survivors(marker)
    assert proctree.kill_tagged(f"run-{os.getpid()}", key=proctree.RUN_TAG) >= 1  # the forked child
    assert survivors(marker) == []


@pytest.mark.parametrize("from_thread", [False, True])
def test_engines_are_first_in_line_for_the_oom_killer(marker, from_thread):
    """Without a memory limit, an engine that eats all memory is what the kernel kills: set in
    the child by the main thread (which also ties the engine's death to it), from the parent
    when another thread starts it with nothing to set up in the child."""
    proc = EngineProcess(GOOD)
    starter = threading.Thread(target=proc.start) if from_thread else None
    if starter is None:
        proc.start()
    else:
        starter.start()
        starter.join()
    try:
        assert Path(f"/proc/{proc.proc.pid}/oom_score_adj").read_text().strip() == "1000"
    finally:
        proc.quit()
    assert survivors(marker) == []


def test_no_python_code_runs_in_an_engine_s_child_unless_something_must_be_set_up_there():
    """Python code between fork and exec can wait forever on a lock another thread held at the
    fork: a thread other than the main one starts an engine with nothing run in the child
    unless a limit, CPUs or a sandbox ask for it; the main thread always ties the engine's death to it."""
    made: dict[str, object] = {}

    def in_a_thread() -> None:
        made["plain"] = proctree.child_setup(None, None)
        made["memory"] = proctree.child_setup(64, None)
        made["cpu"] = proctree.child_setup(None, 5)
        made["cpus"] = proctree.child_setup(None, None, [0])
        made["sandbox"] = proctree.child_setup(None, None, (), lambda: None)

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert made.pop("plain") is None
    assert all(callable(setup) for setup in made.values()), made
    assert callable(proctree.child_setup(None, None))
