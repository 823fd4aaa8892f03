"""How a run ends, through the real ``arena`` command: each exit code of the table in
docs/command-line.md (arena/tournament/verdict.py) and the last line that says it."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, ZOO, arena_cmd, engine_toml, run_arena, write_tournament

from arena.cli import main
from arena.results.sprt import SprtSummary
from arena.tournament import verdict

MISTYPED = "cmd={python} -m engines.randm_engine"  # the baseline's module name, mistyped
RANDOM = "cmd={python} -m engines.random_engine"


CODES = [
    verdict.FINISHED,
    verdict.NOT_A_FULL_VERDICT,
    verdict.BAD_INPUT,
    verdict.START_UP_FAILURE,
    verdict.INTERRUPTED,
    verdict.TERMINATED,
]


def test_the_exit_codes_are_one_table_in_the_docs_the_readme_and_run_help():
    assert CODES == [0, 1, 2, 3, 130, 143]
    docs = (ROOT / "docs" / "command-line.md").read_text().split("## How a run ends: exit codes")[1]
    rows = [row for row in docs.split("\n## ")[0].splitlines() if re.match(r"\| \d+ \|", row)]
    assert [int(row.split("|")[1]) for row in rows] == CODES
    readme = (ROOT / "README.md").read_text()
    table = readme.split("| code | the run |")[1].split("\n\n")[0]
    assert [row.split("|")[1].strip() for row in table.splitlines()[2:]] == ["0", "1", "2", "3", "130, 143"]
    help_text = CliRunner().invoke(main, ["run", "--help"]).output
    codes = help_text.split("Exit codes")[1].split("Options:")[0]
    assert [line.split()[0] for line in codes.splitlines()[1:] if line[:6].strip().isdigit()] == [
        "0",
        "1",
        "2",
        "3",
        "130",
    ]
    assert "143 by SIGTERM" in codes and max(len(line) for line in help_text.splitlines()) <= 80


def _sprt_summary(decision: str, engine: str, pairs: int) -> SprtSummary:
    """A test's summary with the figures a verdict reads; the rest as a test could end."""
    return SprtSummary(
        engine=engine,
        opponent="old",
        model="normalized",
        elo0=0.0,
        elo1=5.0,
        alpha=0.05,
        beta=0.05,
        lower_bound=-2.9444,
        upper_bound=2.9444,
        decision=decision,
        unplayed=None,
        pairs=pairs,
        llr=3.0,
        score=0.55,
        pentanomial=(0, 10, 40, 14, 10),
        elo=None,
        llr_history=(3.0,),
    )


def test_the_verdict_of_a_finished_run():
    """Every problem a finished run had is in its one line, and any makes the code 1."""
    assert verdict.run_verdict({}, None, []) == verdict.Verdict("finished: every scheduled game played", 0)
    sprt = _sprt_summary(decision="H1", engine="new", pairs=74)
    assert verdict.run_verdict({}, sprt, []) == verdict.Verdict("finished: SPRT new passes after 74 pairs", 0)
    undecided = replace(sprt, decision="no decision", unplayed="old did not play game 4 (dropped: ...)")
    assert verdict.run_verdict({"old": "2 consecutive failures"}, undecided, ["game 9 not recorded: lost"]) == (
        verdict.Verdict(
            "SPRT no decision: old did not play game 4 (dropped: ...); finished with an engine dropped (old); "
            "1 game(s) not recorded; run the same command again to play them",
            1,
        )
    )
    assert verdict.run_verdict({"a": "x", "b": "y"}, None, []).text == "finished with engines dropped (a, b)"


def last_line(stdout: str) -> str:
    return stdout.rstrip("\n").splitlines()[-1]


def games_in(out: Path) -> list[dict]:
    jsonl = out / "games.jsonl"
    return [json.loads(line) for line in jsonl.read_text().splitlines()] if jsonl.exists() else []


def zoo_file(tmp_path: Path, engines: str, rounds: int = 1, extra: str = "", workers: int = 1) -> Path:
    return write_tournament(
        tmp_path,
        engines,
        options="size = 5\nswap = false",
        rounds=rounds,
        workers=workers,
        time_control="movetime_ms = 500",
        extra=extra,
    )


@pytest.mark.slow
def test_a_finished_run_exits_0_and_says_so_last(tmp_path):
    engines = engine_toml("a", "{python}", ZOO, "good") + engine_toml("b", "{python}", ZOO, "good")
    proc = run_arena("run", zoo_file(tmp_path, engines), "--out", tmp_path / "out", "-q")
    assert proc.returncode == 0, proc.stderr
    assert last_line(proc.stdout) == "t: finished: every scheduled game played"
    assert len(games_in(tmp_path / "out")) == 2


@pytest.mark.slow
def test_bad_input_exits_2(tmp_path):
    path = zoo_file(tmp_path, engine_toml("a", "{python}", ZOO) + engine_toml("b", "{python}", ZOO), extra="rouns = 2")
    proc = run_arena("run", path, "--out", tmp_path / "out")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1 and "rouns" in proc.stderr, proc.stderr


@pytest.mark.slow
def test_an_engine_that_cannot_start_stops_the_run_before_its_first_game(tmp_path):
    """The issue's SPRT against a mistyped baseline: no game, exit 3, one line naming the
    engine, the cause (its own stderr) and the fixes."""
    out = tmp_path / "out"
    proc = run_arena(
        "run", "--game", "hex", "-O", "size=5", "--engine", "name=new", RANDOM, "--engine", "name=base", MISTYPED,
        "--each", "st=0.05", "--rounds", "100", "--sprt", "elo0=0", "elo1=10", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    [line] = proc.stderr.splitlines()
    assert line.startswith(f"arena: {out / 'tournament.toml'}: engine 'base' failed its start-up check (crash: ")
    assert "No module named engines.randm_engine" in line and "check the engine's command" in line
    assert line.endswith(
        "or give --forfeit-failed-engines (forfeit_failed_engines = true) to play on, its games lost unplayed"
    )
    assert games_in(out) == [] and "Standings" not in proc.stdout and "passes" not in proc.stdout


@pytest.mark.slow
def test_an_engine_that_does_not_answer_stops_the_run_with_the_handshake_fix(tmp_path):
    engines = engine_toml("a", "{python}", ZOO, "good") + engine_toml(
        "mute", "{python}", ZOO, "silent_start", extra="handshake_ms = 300"
    )
    proc = run_arena("run", zoo_file(tmp_path, engines), "--out", tmp_path / "out")
    assert proc.returncode == 3, proc.stderr
    [line] = proc.stderr.splitlines()
    assert "engine 'mute' failed its start-up check (handshake: no arenaok within 0.3 s" in line
    assert "answers 'arena 1' with 'arenaok'" in line and "raise its handshake_ms" in line
    assert games_in(tmp_path / "out") == []


@pytest.mark.slow
def test_forfeits_are_a_choice_and_an_sprt_on_them_has_no_decision(tmp_path):
    """--forfeit-failed-engines plays on; the SPRT stops at the first pair the baseline did not
    play, with no decision and exit 1, where it once passed on 74 forfeit pairs."""
    out = tmp_path / "out"
    proc = run_arena(
        "run", "--game", "hex", "-O", "size=5", "--engine", "name=new", RANDOM, "--engine", "name=base", MISTYPED,
        "--each", "st=0.05", "--rounds", "100", "--sprt", "elo0=0", "elo1=10", "--out", out, "-q",
        "--forfeit-failed-engines",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    sprt = json.loads((out / "results.json").read_text())["sprt"]
    assert (sprt["decision"], sprt["pairs"], sum(sprt["pentanomial"].values())) == ("no decision", 0, 0)
    assert sprt["unplayed"].startswith("base did not play game 0 (crash: ")
    assert last_line(proc.stdout).startswith("out: SPRT no decision: base did not play game 0 (crash: ")
    assert "passes" not in proc.stdout and "H1 accepted" not in proc.stdout
    assert "forfeit_failed_engines = true" in (out / "tournament.toml").read_text()  # the same choice on resume


@pytest.mark.slow
def test_an_sprt_stops_with_no_decision_at_a_dropped_engines_first_unplayed_pair(tmp_path):
    """The baseline crashes in the games it plays (they count, as losses) and is dropped: the
    test ends at the first pair with a game it did not play."""
    engines = engine_toml("new", "{python}", ZOO, "good") + engine_toml(
        "old", "{python}", ZOO, "crash", extra="max_failures = 2"
    )
    path = zoo_file(tmp_path, engines, rounds=100, extra="[sprt]\nelo0 = 0\nelo1 = 10\n")
    out = tmp_path / "out"
    proc = run_arena("run", path, "--out", out, "-q")
    assert proc.returncode == 1, proc.stderr
    sprt = json.loads((out / "results.json").read_text())["sprt"]
    assert sprt["decision"] == "no decision" and sprt["pairs"] == 1
    assert sprt["pentanomial"] == {"LL": 0, "LD": 0, "WL+DD": 0, "WD": 0, "WW": 1}  # its two crashes
    assert sprt["unplayed"].startswith("old did not play game 2 (dropped: dropped from the tournament after 2")
    assert last_line(proc.stdout) == f"t: SPRT no decision: {sprt['unplayed']}; finished with an engine dropped (old)"
    assert [g["termination"] for g in games_in(out)][:3] == ["crash", "crash", "dropped"]


@pytest.mark.slow
def test_a_run_that_dropped_an_engine_exits_1_and_says_so_last(tmp_path):
    engines = engine_toml("good", "{python}", ZOO, "good") + engine_toml(
        "crasher", "{python}", ZOO, "crash", extra="max_failures = 1"
    )
    proc = run_arena("run", zoo_file(tmp_path, engines, rounds=2), "--out", tmp_path / "out", "-q")
    assert proc.returncode == 1, proc.stderr
    assert last_line(proc.stdout) == "t: finished with an engine dropped (crasher)"
    assert len(games_in(tmp_path / "out")) == 4


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize("stop, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_exits_128_plus_the_signal_and_names_the_command_that_resumes(tmp_path, stop, code):
    engines = "".join(engine_toml(name, "{python}", ZOO, "good+slow") for name in ("a", "b"))
    path, out = zoo_file(tmp_path, engines, rounds=3, workers=2), tmp_path / "out"
    run = subprocess.Popen(
        arena_cmd("run", path, "--out", out, "-q"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while len(games_in(out)) < 1:
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    os.killpg(run.pid, stop)  # Ctrl-C reaches the whole job; SIGTERM, as kill sends it, too
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == code, stderr
    [line] = stderr.splitlines()
    assert line.startswith("arena: interrupted; finished games are kept in ")
    command = shlex.split(line.split("Resume with: ")[1])
    assert command[:2] == ["arena", "run"]
    kept = len(games_in(out))
    with closing(sqlite3.connect(out / "arena.db")) as db:  # games.jsonl holds every stored game
        assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (kept,)
    assert 1 <= kept < 6
    resumed = run_arena(*command[1:], timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{kept} resumed" in resumed.stdout and len(games_in(out)) == 6
    assert last_line(resumed.stdout) == "t: finished: every scheduled game played"


def test_a_ladder_whose_engine_cannot_start_stops_with_the_start_up_failures_code(monkeypatch, tmp_path):
    """``arena ladder`` runs tournaments too: an engine (MoHex, say) that fails the start-up
    check stops it with the same one line and code 3, not a traceback."""
    import arena.ladder as ladder

    def fails(*args, **kwargs):
        raise verdict.startup_failure("ladder hex/mohex-50", [("mohex-50", "crash: engine closed its output")])

    monkeypatch.setattr(ladder, "run_ladder", fails)
    result = CliRunner().invoke(main, ["ladder", "--game", "hex", "--out", str(tmp_path / "out")])
    assert result.exit_code == 3, result.output
    assert "engine 'mohex-50' failed its start-up check (crash: engine closed its output)" in result.output
    assert "Traceback" not in result.output


def test_a_start_up_failure_names_each_engine_and_each_fix_once():
    failed = [("a", "handshake: no answer"), ("b", "odd: x"), ("c", "crash: exit 1")]
    assert str(verdict.startup_failure("t.toml", failed)) == (
        "t.toml: engine 'a' failed its start-up check (handshake: no answer); engine 'b' failed its start-up check "
        "(odd: x); engine 'c' failed its start-up check (crash: exit 1). The run stopped before its first game: "
        "check that the engine answers 'arena 1' with 'arenaok' (protocol/PROTOCOL.md; 'arena check-engine "
        "COMMAND'), or raise its handshake_ms if it starts slowly; check the engine's command, arguments and folder "
        "('arena check-engine COMMAND' runs it alone); or give --forfeit-failed-engines (forfeit_failed_engines = "
        "true) to play on, its games lost unplayed"
    )  # a fault of no known code gets the crash's fix, said once with the crash's own


def test_a_start_up_failure_whose_reason_has_a_colon_gets_the_fix_of_its_code():
    failed = [("a", "protocol: it printed: hello world")]
    assert str(verdict.startup_failure("t.toml", failed)) == (
        "t.toml: engine 'a' failed its start-up check (protocol: it printed: hello world). The run stopped before "
        "its first game: check what the engine prints at start-up against protocol/PROTOCOL.md ('arena "
        "check-engine COMMAND'); or give --forfeit-failed-engines (forfeit_failed_engines = true) to play on, its "
        "games lost unplayed"
    )
