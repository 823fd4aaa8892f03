"""The referee side of the protocol against real engine subprocesses."""

import logging
import os
import resource
import subprocess
import sys
import textwrap
import time

import pytest
from conftest import ROOT

import arena.engine.conversation as conversation_module
import arena.engine.waiting as waiting_module
from arena.engine import proctree
from arena.engine.player import EngineFault, EngineSpec, Sandbox
from arena.engine.process import EngineProcess
from arena.engine.sandbox import sandbox_problem
from arena.engine.transport import PipeSettings
from arena.match import TimeControl, play_game
from arena.rules import make_game


def script_engine(tmp_path, body: str) -> EngineSpec:
    path = tmp_path / "engine.py"
    path.write_text(textwrap.dedent(body))
    return EngineSpec("scripted", (sys.executable, str(path)))


def test_handshake_identity_and_options(python_engine):
    proc = EngineProcess(EngineSpec("r", python_engine("engines.random_engine")))
    proc.start()
    try:
        assert proc.identity == {"name": "random", "author": "arena", "go": "movestogo"}  # the SDK's go keys
        assert proc.alive
    finally:
        proc.quit()
    assert not proc.alive and proc.proc is None


def test_sdk_engines_play_a_full_game_through_subprocesses(python_engine):
    game = make_game("hex", {"size": 7})
    procs = [
        EngineProcess(EngineSpec(n, python_engine(m)))
        for n, m in (("random", "engines.random_engine"), ("pathfinder", "engines.hex_pathfinder"))
    ]
    for p in procs:
        p.start()
    try:
        result = play_game(game, procs, seed=5, time_control=TimeControl(movetime_ms=2000))
    finally:
        for p in procs:
            p.quit()
    rec = result.record
    assert rec["termination"] == "normal" and rec["winner"] in (0, 1)
    replay = game.initial_state()
    for move in rec["moves"]:
        replay.play(move)
    assert replay.winner() == rec["winner"]
    assert len(rec["times_ms"]) == len(rec["moves"])
    assert result.faulted_seats == []


@pytest.mark.slow
def test_same_seed_same_game(python_engine):
    def one():
        game = make_game("hex", {"size": 6})
        procs = [EngineProcess(EngineSpec("r", python_engine("engines.random_engine"))) for _ in range(2)]
        for p in procs:
            p.start()
        try:
            return play_game(game, procs, seed=11, time_control=TimeControl(movetime_ms=2000)).record["moves"]
        finally:
            for p in procs:
                p.quit()

    assert one() == one()


def faulty_game(tmp_path, python_engine, body, **tc):
    bad = script_engine(tmp_path, body)
    procs = [EngineProcess(bad), EngineProcess(EngineSpec("random", python_engine("engines.random_engine")))]
    for p in procs:
        p.start()
    try:
        return play_game(
            make_game("hex", {"size": 5}),
            procs,
            seed=1,
            time_control=TimeControl(movetime_ms=tc.get("movetime_ms", 300), margin_ms=50),
        )
    finally:
        for p in procs:
            p.quit()


HEADER = """
import sys, time
def out(s):
    sys.stdout.write(s + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    w = line.split()
    if not w: continue
    if w[0] == "arena": out("arenaok 1")
    elif w[0] == "isready": out("readyok")
    elif w[0] == "quit": break
"""


@pytest.mark.parametrize(
    "action,code,reason",
    [
        ('elif w[0] == "go": out("move zz99")', "illegal", "not a cell"),
        ('elif w[0] == "go": time.sleep(5)', "timeout", "no move within 350 ms"),
        ('elif w[0] == "go": out("bestmove c3")', "protocol", "not a protocol v1 engine line"),
        ('elif w[0] == "go": sys.exit(3)', "crash", "exit code 3"),
        ('elif w[0] == "go": raise RuntimeError("out of ideas")', "crash", "RuntimeError: out of ideas"),
        ('elif w[0] == "go": out("resign")', "resign", "resigned"),
        ('elif w[0] == "go": out("readyok")', "protocol", "expected a move, got 'readyok'"),  # the line, quoted
        ('elif w[0] == "go": out("id name twice")', "protocol", "expected a move, got 'id name twice'"),
        ('elif w[0] == "go": out("info " + "\u20ac" * 30000)', "protocol", "longer than 65536 bytes"),
        # one write: both lines are there before the next go (else the second may be read as its answer)
        (
            'elif w[0] == "go": out("move " + "abcde"[len(w) % 5] + "1\\nmove e5")',
            "protocol",
            "'move e5' sent when no answer was asked for",
        ),
    ],
)
@pytest.mark.slow
def test_misbehaving_engine_loses_with_a_recorded_reason(tmp_path, python_engine, action, code, reason):
    result = faulty_game(tmp_path, python_engine, HEADER + "    " + action + "\n")
    rec = result.record
    assert rec["termination"] == code
    assert reason in rec["reason"]
    assert rec["forfeit_seat"] == 0 and rec["winner"] == 1 and rec["scores"] == [0.0, 1.0]


def test_engine_that_never_answers_the_handshake(tmp_path):
    spec = script_engine(tmp_path, "import time\ntime.sleep(60)\n")
    proc = EngineProcess(spec)
    old = conversation_module.HANDSHAKE_TIMEOUT
    conversation_module.HANDSHAKE_TIMEOUT = 0.5
    try:
        with pytest.raises(EngineFault) as err:
            proc.start()
    finally:
        conversation_module.HANDSHAKE_TIMEOUT = old
        proc.kill()
    assert err.value.code == "handshake"


def test_missing_program_is_a_clear_fault():
    with pytest.raises(EngineFault, match="cannot start"):
        EngineProcess(EngineSpec("x", ("/nonexistent/engine",))).start()


def test_a_clock_that_ran_out_is_not_refilled_by_the_margin(tmp_path, python_engine):
    # 50 ms a move against a 1 ms clock and a 200 ms margin: every move fits the margin, but
    # the overdraft adds up, so the engine must lose on time within a few moves.
    body = HEADER + textwrap.indent(
        textwrap.dedent("""\
        elif w[0] == "position": played = set(w[3:])
        elif w[0] == "go":
            time.sleep(0.05)
            out("move " + next(c + r for r in "12345" for c in "abcde" if c + r not in played))
        """),
        "    ",
    )
    bad = script_engine(tmp_path, body)
    procs = [EngineProcess(bad), EngineProcess(EngineSpec("random", python_engine("engines.random_engine")))]
    for p in procs:
        p.start()
    try:
        rec = play_game(
            make_game("hex", {"size": 5, "swap": False}),
            procs,
            seed=1,
            time_control=TimeControl(base_ms=1, margin_ms=200),
        ).record
    finally:
        for p in procs:
            p.quit()
    assert (rec["termination"], rec["forfeit_seat"]) == ("timeout", 0)
    assert len(rec["times_ms"]) < 12


def test_sdk_resigns_on_none_and_ignores_commands_it_does_not_know():
    import io

    from protocol.sdk import Engine, run

    class Quitter(Engine):
        def choose_move(self, state, clock):
            return None

    out = io.StringIO()
    run(
        Quitter(),
        stdin=io.StringIO(
            "arena 1\nfuturecommand 7\nnewgame hex 0 2 size=3 swap=true\n"
            "isready\nposition start moves\ngo movetime 10\nquit\n"
        ),
        stdout=out,
    )
    lines = out.getvalue().splitlines()
    assert lines[-2:] == ["readyok", "resign"] and "arenaok 1" in lines


SCRIPTED_GOS = (
    "gos = 0\n"
    + HEADER
    + """\
    elif w[0] == "go":
        gos += 1
        what = PLAN[gos - 1]
        if what == "exit": sys.exit(4)
        time.sleep({"slow": 0.3, "hang": 60}.get(what, 0))
        out(f"move m{gos}")
"""
)

CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
several_cpus = pytest.mark.skipif(CPUS < 2, reason="needs two CPUs")


def planned_engine(tmp_path, monkeypatch, plan, spin_s, spin=True):
    # SPIN_S raised so that a Python engine's answer counts as quick on any machine.
    monkeypatch.setattr(waiting_module, "SPIN_S", spin_s)
    proc = EngineProcess(script_engine(tmp_path, f"PLAN = {plan!r}\n" + SCRIPTED_GOS), pipe=PipeSettings(spin=spin))
    proc.start()
    return proc


@several_cpus
def test_quick_answers_are_awaited_spinning_and_a_slow_one_switches_to_sleeping(tmp_path, monkeypatch):
    proc = planned_engine(tmp_path, monkeypatch, ["quick", "quick", "slow", "quick", "quick"], 0.2)
    try:
        answers, quick = [], []
        for _ in range(5):
            answers.append(proc.go("position start", "go movetime 2000", 2.0).move)
            quick.append(proc.transport.waiting.quick)
    finally:
        proc.quit()
    assert answers == ["m1", "m2", "m3", "m4", "m5"]
    assert quick == [True, True, False, True, True]


@several_cpus
@pytest.mark.parametrize("fault,code", [("hang", "timeout"), ("exit", "crash")])
@pytest.mark.slow
def test_a_fault_while_spinning_is_caught_at_the_move_limit(tmp_path, monkeypatch, fault, code):
    proc = planned_engine(tmp_path, monkeypatch, ["quick", "quick", fault], 5.0)
    try:
        for _ in range(2):
            proc.go("position start", "go movetime 2000", 2.0)
        assert proc.transport.waiting.quick
        start = time.monotonic()
        with pytest.raises(EngineFault) as err:
            proc.go("position start", "go movetime 300", 0.3)
        waited = time.monotonic() - start
    finally:
        proc.quit()
    assert err.value.code == code
    assert waited < 2.0  # the move limit (0.3 s) ends the spin, not the 5 s spin window


SHARING_GOS = (
    "gos = 0\n"
    + HEADER
    + """\
    elif w[0] == "go":
        gos += 1
        if PLAN[gos - 1] == "slow":
            # A search that starts a helper process and prints info lines as it goes: both
            # are moved off the worker's core within the patience, which the info lines do
            # not restart.
            helper = subprocess.Popen([sys.executable, "-c", HELPER])
            for _ in range(40):
                out("info depth 1")
                time.sleep(0.01)
            helper.wait()
            with open(MASKS, "a") as f:
                f.write(repr(sorted(os.sched_getaffinity(0))) + "\\n")
        out(f"move m{gos}")
"""
)


@pytest.fixture
def our_cpus():
    """Our CPUs, given back to this process whatever the test did with them."""
    cpus = sorted(os.sched_getaffinity(0))
    yield cpus
    os.sched_setaffinity(0, cpus)


@several_cpus
def test_quick_engines_share_the_workers_core_and_a_thinking_one_is_moved_off_it(tmp_path, monkeypatch, our_cpus):
    monkeypatch.setattr(waiting_module, "SPIN_S", 0.05)  # quick: within 100 ms
    monkeypatch.setattr(waiting_module, "SHARE_PATIENCE_S", 0.1)
    cpus = our_cpus
    share = waiting_module.CoreShare(cpus)
    masks = tmp_path / "masks.txt"
    helper = f"import os, time; time.sleep(0.3); open({str(masks)!r}, 'a').write(repr(sorted(os.sched_getaffinity(0))) + '\\n')"
    body = (
        f"import os, subprocess\nMASKS = {str(masks)!r}\nHELPER = {helper!r}\n"
        "PLAN = ['quick', 'quick', 'slow', 'quick']\n" + SHARING_GOS
    )
    proc = EngineProcess(script_engine(tmp_path, body), pipe=PipeSettings(share=share))
    other = None
    seen = []

    def placed():
        return sorted(os.sched_getaffinity(proc.proc.pid)), sorted(os.sched_getaffinity(0)), share.home

    try:
        proc.start()
        seen.append(placed())
        for _ in range(4):
            proc.go("position start", "go movetime 2000", 2.0)
            seen.append(placed())
            if other is None:  # started while we are pinned: it still gets every CPU
                (tmp_path / "other").mkdir()
                other = EngineProcess(script_engine(tmp_path / "other", body), pipe=PipeSettings(share=share))
                other.start()
                assert sorted(os.sched_getaffinity(other.proc.pid)) == cpus
        share.vacate()  # a game's end
        seen.append(placed())
    finally:
        for engine in (proc, other):
            if engine is not None:
                engine.quit()
    # started on every CPU; after a quick answer the engine and we are on our core (the one
    # we were on then: each stretch may have another); the slow answer's search was moved
    # off it, and the next quick answer moves it back, until the game ends
    first, second = seen[1][2], seen[4][2]
    assert first in cpus and second in cpus
    assert seen == [
        (cpus, cpus, None),
        ([first], [first], first),
        ([first], [first], first),
        (cpus, cpus, None),
        ([second], [second], second),
        (cpus, cpus, None),
    ]
    assert masks.read_text() == 2 * (repr(cpus) + "\n")  # the helper's, the search's
    assert not share.guests and sorted(os.sched_getaffinity(0)) == cpus


@pytest.mark.parametrize("how", ["our only CPU", "spin=False"])
def test_an_engine_is_never_spun_for_on_our_only_cpu_or_when_told_not_to(tmp_path, monkeypatch, how):
    mask = os.sched_getaffinity(0)
    if how == "our only CPU":
        os.sched_setaffinity(0, {min(mask)})  # as `affinity = true` pins a worker and its engines
    try:
        # spin=False: what the runner passes when every CPU has a game
        proc = planned_engine(tmp_path, monkeypatch, ["quick"] * 3, 0.2, spin=how != "spin=False")
    finally:
        os.sched_setaffinity(0, mask)
    try:
        for _ in range(3):
            assert proc.go("position start", "go movetime 2000", 2.0).move
            assert not proc.transport.waiting.quick
    finally:
        proc.quit()


BURNER = """
import signal, sys, time
sys.path.insert(0, {root!r})
from protocol.sdk import Engine, run

if {ignore_sigxcpu}:
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)

class Burner(Engine):
    name = "burner"

    def on_new_game(self):
        self.burnt = False

    def choose_move(self, state, clock):
        if not self.burnt:  # the first move of every game burns this much CPU
            self.burnt = True
            until = time.process_time() + {burn}
            while time.process_time() < until:
                pass
        return state.legal_moves()[0]

run(Burner())
"""


# The burner's CPU must outrun cpu_seconds before its move's wall clock runs out: at load 16 on
# 2 cores, 2.2 s of CPU took over 5 s of wall time and the game ended as a timeout instead.
BURNER_MOVETIME_MS = 30_000


def burner_games(
    tmp_path, python_engine, burn: float, ignore_sigxcpu: bool, games: int, wrapped: bool = False, sandbox: bool = False
) -> list[dict]:
    """Records of ``games`` Hex games, one engine process each side for all of them: a
    burner (``burn`` s of CPU on its first move of each game, cpu_seconds = 1) against random;
    ``wrapped``: started by a shell that stays its parent, as wrapper scripts do."""
    source = BURNER.format(root=str(ROOT), burn=burn, ignore_sigxcpu=ignore_sigxcpu)
    command = script_engine(tmp_path, source).command
    if wrapped:
        command = ("sh", "-c", " ".join(command) + "; exit $?")  # two commands: sh cannot exec
    procs = [
        EngineProcess(EngineSpec("burner", command, cpu_seconds=1, sandbox=Sandbox() if sandbox else None)),
        EngineProcess(EngineSpec("random", python_engine("engines.random_engine"))),
    ]
    for p in procs:
        p.start()
    try:
        return [
            play_game(
                make_game("hex", {"size": 5}),
                procs,
                seed=seed,
                time_control=TimeControl(movetime_ms=BURNER_MOVETIME_MS),
            ).record
            for seed in range(games)
        ]
    finally:
        for p in procs:
            p.quit()


@pytest.mark.timeout(90)
@pytest.mark.slow
@pytest.mark.parametrize("wrapped", [False, True])
def test_cpu_seconds_is_a_budget_per_game_for_a_reused_engine(tmp_path, python_engine, wrapped):
    # 0.7 s of CPU per game against a 1 s limit: three games in one process use 2.1 s.
    records = burner_games(tmp_path, python_engine, 0.7, False, games=3, wrapped=wrapped)
    assert [r["termination"] for r in records] == ["normal"] * 3, [r["reason"] for r in records]


def test_an_inherited_cpu_hard_limit_caps_the_budget(caplog):
    # As under `ulimit -t 3`: the budget cannot go past the hard limit, and arena says so.
    child = subprocess.Popen(["sleep", "30"], preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CPU, (1, 3)))
    try:
        with caplog.at_level(logging.WARNING, logger="arena.engine"):
            assert proctree.extend_cpu_limit(child.pid, 5) == 3.0
        assert resource.prlimit(child.pid, resource.RLIMIT_CPU) == (3, 3)
        assert "caps cpu_seconds" in caplog.text
    finally:
        child.kill()
        child.wait()
    assert proctree.extend_cpu_limit(child.pid, 5) is None  # gone: nothing to extend


def test_the_cpu_clock_reads_what_a_process_used_and_nothing_once_it_is_gone():
    # The clock a budget reads each move: one kept-open /proc file, read again and again.
    # It burns 0.25 s and the test waits for 0.2: /proc counts user and system time in whole
    # ticks, each rounded down, so a process that burned exactly 0.2 s may read 0.19 for ever.
    burn = "import sys, time\nt = time.process_time() + 0.25\nwhile time.process_time() < t: pass\nsys.stdin.read()"
    child = subprocess.Popen([sys.executable, "-c", burn], stdin=subprocess.PIPE)
    clock = proctree.CpuClock(child.pid)
    try:
        deadline = time.monotonic() + 30
        while (used := clock.seconds()) is not None and used < 0.2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert used is not None and used >= 0.2  # it counts on as the process runs
        assert clock.seconds() == proctree.cpu_time_used(child.pid)  # idle now: both read the same
    finally:
        child.kill()
        child.wait()
    assert clock.seconds() is None  # gone and reaped: never a later process's figure
    clock.close()
    assert clock.seconds() is None and proctree.CpuClock(child.pid).seconds() is None


@pytest.mark.timeout(90)
@pytest.mark.slow
def test_an_engine_that_ignores_sigxcpu_is_stopped_at_its_next_move(tmp_path, python_engine):
    [record] = burner_games(tmp_path, python_engine, 2.2, True, games=1)
    assert record["termination"] == "crash" and record["forfeit_seat"] == 0
    assert "cpu_seconds = 1 s" in record["reason"] and "ignored SIGXCPU" in record["reason"]
    assert len(record["moves"]) == 2  # its first, over-long move still counted; the next was refused


@pytest.mark.timeout(90)
@pytest.mark.slow
@pytest.mark.skipif(sandbox_problem() is not None, reason="no sandbox here")
def test_a_sandboxed_engine_that_ignores_sigxcpu_is_stopped_too(tmp_path, python_engine):
    # its CPU is the engine's own process's, inside the sandbox, not bubblewrap's
    [record] = burner_games(tmp_path, python_engine, 2.2, True, games=1, sandbox=True)
    assert record["termination"] == "crash" and record["forfeit_seat"] == 0
    assert "cpu_seconds = 1 s" in record["reason"] and "ignored SIGXCPU" in record["reason"]


@pytest.mark.slow
def test_a_position_line_over_64_kib_reaches_the_engine_and_it_plays_on():
    """A long Bases game's position line passes 64 KiB (PROTOCOL.md: arena's own lines have
    no limit); the SDK engine reads it whole and answers a legal move."""
    import random

    game = make_game("bases", {"max_plies": 11_671, "repetition": 100})
    state, rng = game.initial_state(), random.Random(6)
    while len(" ".join(state.moves)) < 70_000:
        state.play(state.random_move(rng))
    opening = list(state.moves)  # 11,667 plies, about 70 KB of moves
    engines = [
        EngineProcess(EngineSpec(f"r{k}", (sys.executable, "-m", "engines.random_engine"), cwd=str(ROOT)))
        for k in range(2)
    ]
    for engine in engines:
        engine.start()
    try:
        result = play_game(game, engines, seed=1, time_control=TimeControl(movetime_ms=5000), opening=opening)
    finally:
        for engine in engines:
            engine.quit()
    record = result.record
    assert record["termination"] == "normal", record["reason"]
    assert len(record["moves"]) == 11_671 and record["moves"][: len(opening)] == opening
