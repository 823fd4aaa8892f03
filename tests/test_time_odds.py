"""Per-engine settings: a time control of its own (time odds) and environment variables."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT, engine_toml, refusal, run_arena, write_tournament

from arena.match import TimeControl
from arena.tournament.config import ConfigError, load_tournament

SPY = str(ROOT / "tests" / "engines" / "spy_engine.py")


def odds_file(tmp_path: Path, fast_extra: str, slow_extra: str = "", tc: str = "base_ms = 1000") -> Path:
    engines = engine_toml("fast", "{python}", SPY, str(tmp_path / "fast.txt"), extra=fast_extra) + engine_toml(
        "slow", "{python}", SPY, str(tmp_path / "slow.txt"), extra=slow_extra
    )
    return write_tournament(tmp_path, engines, options="size = 4", time_control=tc, workers=1)


@pytest.mark.slow
def test_an_engine_with_its_own_clock_and_environment(tmp_path):
    path = odds_file(
        tmp_path, 'env = { SPY_NOTE = "hello there" }\n[engines.time_control]\nbase_ms = 3000\ninc_ms = 25'
    )
    t = load_tournament(path)
    assert t.time_controls == {"fast": TimeControl(None, 3000, 25, 100)}
    assert t.time_control == TimeControl(None, 1000, 0, 100)
    assert t.engines[0].env == (("SPY_NOTE", "hello there"),) and t.engines[1].env == ()
    proc = run_arena("run", path, "--out", tmp_path / "out", "-q")
    assert proc.returncode == 0, proc.stderr
    fast, slow = ((tmp_path / f"{n}.txt").read_text().splitlines() for n in ("fast", "slow"))
    assert fast[0] == "note hello there" and not any(line.startswith("note") for line in slow)
    # Game 0 seats fast first, game 1 slow first: each go line lists both clocks in seat order.
    go_lines = [line for line in fast + slow if line.startswith("go ")]
    assert "go time 3000,1000 inc 25,0" in go_lines and "go time 1000,3000 inc 0,25" in go_lines


@pytest.mark.slow
def test_movetime_odds(tmp_path):
    path = odds_file(tmp_path, "[engines.time_control]\nmovetime_ms = 700", tc="movetime_ms = 300")
    assert run_arena("run", path, "--out", tmp_path / "out", "-q").returncode == 0
    fast, slow = ((tmp_path / f"{n}.txt").read_text() for n in ("fast", "slow"))
    assert "go movetime 700" in fast and "go movetime 700" not in slow and "go movetime 300" in slow


@pytest.mark.slow
@pytest.mark.parametrize(
    "fast_extra, tc, message",
    [
        (
            "[engines.time_control]\nmovetime_ms = 500",
            "base_ms = 1000",
            "fast play with a game clock|without; give every engine a clock or none",
        ),
        ('env = { "BAD NAME" = "x" }', "base_ms = 1000", "not a variable name"),
        ("[engines.time_control]\ninc_ms = 5", "base_ms = 1000", "set movetime_ms and/or base_ms"),
    ],
)
def test_bad_per_engine_settings_are_refused(tmp_path, fast_extra, tc, message):
    path = odds_file(tmp_path, fast_extra, tc=tc)
    with pytest.raises(ConfigError, match=message):
        load_tournament(path)
    args = ["run", str(path), "--out", str(tmp_path / "out")]
    # one case in the command's own process, the others' parse in this one
    code, stderr = refusal(*args, in_process=message != "not a variable name")
    assert code == 2 and "Traceback" not in stderr


def test_engines_that_all_have_clocks_of_their_own_need_no_clock_in_the_shared_time_control(tmp_path):
    """The file's [time_control] is for engines without one of their own: when every engine
    has a game clock, a shared movetime_ms that no engine plays on is no mixed clock."""
    clock = "[engines.time_control]\nbase_ms = {}"
    path = odds_file(tmp_path, clock.format(3000), clock.format(1000), tc="movetime_ms = 500")
    t = load_tournament(path)
    assert t.time_controls == {"fast": TimeControl(None, 3000, 0, 100), "slow": TimeControl(None, 1000, 0, 100)}
