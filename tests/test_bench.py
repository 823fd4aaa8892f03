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
@pytest.mark.timeout(300)  # every section, Chromium and two runs beside a server included, on a shared machine
def test_quick_bench_prints_every_section_with_numbers(tmp_path):
    """Sections 1 to 8, watching and the targets, in one process and in order. The start-up
    section has its test in tests/test_startup.py (the same measurement, in process) and the
    sandbox its own below: running them here too would pay for each twice."""
    out = tmp_path / "bench.json"
    checked = ["referee", "manager", "scaling", "memory", "clock", "site", "engines", "progress", "watching"]
    done = subprocess.run(
        [sys.executable, "-m", "arena", "bench", "--quick", *(f"-s{name}" for name in checked), "--json", str(out)],
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
        "11. Watching",
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
    # The progress on and off (tests/test_progress.py's subject, measured in this run).
    assert "live (rich, a terminal)" in text
    progress = data["progress"]
    assert set(progress) == {"off", "lines", "live"}
    assert progress["off"]["progress_cpu_us"] == 0
    assert progress["live"]["progress_cpu_us"] > 0 and progress["lines"]["progress_cpu_us"] > 0
    assert all(f["manager_cpu_us"] > 0 for f in progress.values())
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
    assert NUMBER.search(done.stdout.split("games per task")[1])  # the coordinator's table


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_the_drop_rule_benchmark_runs_end_to_end():
    """benchmarks/drop_rule_parallel.py --quick: both settings are played and compared."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "drop_rule_parallel.py"), "--quick"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=170,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if line.strip()}
    assert NUMBER.search(rows["default"]) and NUMBER.search(rows["off"])
    assert re.search(r"default / off: \d+\.\d\dx", done.stdout)


PERFT = [  # published perft counts (the Chess Programming Wiki's positions 1 to 5)
    ("startpos", 4, 197_281),
    ("fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 97_862),
    ("fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43_238),
    ("fen r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3, 9_467),
    ("fen rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62_379),
]


@pytest.mark.timeout(60)
def test_the_uci_random_mover_knows_every_legal_chess_move(tmp_path):
    """fastchess's side of the manager benchmark plays this engine: an illegal move would end
    its games early.  Its move generator matches the published perft counts (castling, en
    passant, promotions, pins), and it plays a game's moves and reports its own CPU."""
    from arena_bench.common import read_engine_stats
    from arena_bench.fastchess import uci_mover

    mover, why = uci_mover()
    if mover is None:
        pytest.skip(why)  # no C compiler
    script = "".join(f"position {where}\ngo perft {depth}\n" for where, depth, _ in PERFT)
    script += "uci\nisready\nposition startpos moves e2e4 e7e5 g1f3\ngo movetime 1000\nquit\n"
    done = subprocess.run(
        [str(mover), "--stats", str(tmp_path)], input=script, capture_output=True, text=True, timeout=50
    )
    lines = done.stdout.splitlines()
    assert [int(line.split()[1]) for line in lines if line.startswith("perft")] == [n for *_, n in PERFT]
    assert "uciok" in lines and "readyok" in lines
    assert re.fullmatch(r"bestmove [a-h][1-8][a-h][1-8]", lines[-1])
    (stats,) = read_engine_stats(tmp_path)
    assert stats["moves"] == 1 and stats["cpu_us"] > 0


def test_without_a_fastchess_binary_the_manager_section_says_so(monkeypatch, tmp_path):
    from arena_bench.fastchess import ENV_VAR, find_fastchess

    monkeypatch.delenv(ENV_VAR, raising=False)
    assert find_fastchess(None) == (None, f"no fastchess binary given (--fastchess PATH or {ENV_VAR}=PATH)")
    assert find_fastchess(str(tmp_path / "nothing")) == (None, f"{tmp_path / 'nothing'}: no such executable")


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_fastchess_side_by_side_counts_fastchess_cpu_without_the_engines():
    """The real fastchess, when a binary is named (an optional side check: arena does not ship it)."""
    import os

    from arena_bench.fastchess import ENV_VAR, find_fastchess, play_fastchess, uci_mover

    binary, why = find_fastchess(os.environ.get(ENV_VAR))
    mover, _ = uci_mover()
    if binary is None or mover is None:
        pytest.skip(why)
    run = play_fastchess(binary, mover, rounds=1)
    assert run.games == 2 and run.moves > 20  # random chess lasts until a draw rule ends it
    assert 0 < run.engine_cpu_s < run.cpu_s and run.manager_cpu_us > 0


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_sandbox_section_measures_both_ways(tmp_path):
    from arena.engine.sandbox import sandbox_problem

    if sandbox_problem() is not None:
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, "-m", "arena", "bench", "--quick", "-s", "sandbox", "--json", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "10. Sandbox" in done.stdout and "sandboxed engine start <= +50 ms" in done.stdout
    data = strict_json(out.read_text(), out)["sandbox"]
    assert data["start_sandboxed_s"] > 0 and data["start_plain_s"] > 0
    for way in ("as it is", "sandboxed"):
        assert data["manager"][way]["cpu_us"] > 0 and data["manager"][way]["wall_us"] > 0
    assert data["moves"] > 0 and data["manager"]["ratio"]["cpu_us"] > 0  # the worker's own, engines started


def test_the_sandbox_ratio_is_the_median_of_the_pairs_ratios_not_the_ratio_of_medians():
    from arena_bench.sandboxing import Block, PerMove

    plain = [Block(cpu, 100.0, 50) for cpu in (10.0, 20.0, 30.0)]
    boxed = [Block(cpu, 100.0, 50) for cpu in (30.0, 22.0, 27.0)]  # pairs: 3.0, 1.1, 0.9
    per_move = PerMove(plain, boxed)
    assert per_move.ratio("cpu_us") == pytest.approx(1.1)  # the medians' ratio would be 27 / 20 = 1.35
    assert per_move.quartiles("cpu_us") == pytest.approx((1.0, 2.05))
    assert per_move.ratio("wall_us") == 1.0
