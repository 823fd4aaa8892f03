"""`arena check-engine`: every bundled engine passes; for each check a broken engine
fails exactly that check (the others pass, or are skipped when the handshake failed)."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.engine.conformance import Conformance
from arena.engine.player import EngineSpec
from arena.rules.hex import AFTER_SWAP
from tests.helpers import ROOT, run_arena

PY = sys.executable
BROKEN = str(ROOT / "tests" / "engines" / "broken_engine.py")
GTP = str(ROOT / "tests" / "engines" / "gtp_hex_engine.py")


def checks(command, games=(), protocol="arena"):
    spec = EngineSpec("engine", tuple(command), cwd=str(ROOT), protocol=protocol, handshake_ms=3000)
    return list(Conformance(spec, games).run())


@pytest.mark.slow
@pytest.mark.timeout(120)  # every bundled engine through every check: tens of seconds on a loaded machine
def test_the_bundled_engines_pass():
    for command, games in [
        ((PY, "-m", "engines.random_engine"), ("hex", "groups", "bases", "hexgo", "posies")),
        ((PY, "-m", "engines.hex_pathfinder"), ("hex",)),
    ]:
        results = checks(command, games)
        assert all(c.passed for c in results), [(c.name, c.detail) for c in results if not c.passed]
        # Hex has two positions; the SDK declares 'id go movestogo', so a period is checked too.
        assert len(results) == 8 + len(games) + ("hex" in games)
        assert any(c.name.startswith("move with moves to go") for c in results)
    gtp = checks((PY, GTP, "--swap"), protocol="gtp")
    assert all(c.passed for c in gtp) and [c.name.split(" ")[0] for c in gtp] == [
        "handshake",
        "hex:",
        "hex:",
        "move",
        "move",
        "several",
        "quit",
    ]


@pytest.mark.parametrize(
    "fault, games, failing",
    [
        ("no_name", ("hex",), "handshake"),
        ("bad_option", ("hex",), "handshake"),  # a malformed declaration is refused by the engine layer itself
        ("setoption_reply", ("hex",), "options"),
        ("swap", ("hex",), "hex: after a swap"),
        ("groups_multi", ("hex", "groups"), "groups: a multi-stone turn"),
        ("bases_full", ("hex", "bases"), "bases: a base one piece from full"),
        ("hexgo_captures", ("hex", "hexgo"), "hexgo: after captures"),
        ("posies_private", ("hex", "posies"), "posies: three seats"),
        ("slow", ("hex",), "move within movetime"),
        ("clock_hang", ("hex",), "move on a game clock"),
        ("period_hang", ("hex",), "move with moves to go"),
        ("always_swap", ("hex",), "hex: swap off"),
        ("second_game", ("hex",), "several games in one process"),
        ("ready_after_end", ("hex",), "isready after gameover"),
        ("slow_quit", ("hex",), "quit within 1 s"),
    ],
)
@pytest.mark.slow
def test_each_broken_engine_fails_exactly_its_check(fault, games, failing):
    results = checks((PY, BROKEN, fault), games)
    failed = [c for c in results if c.passed is False]
    assert [c.name for c in failed if c.name.startswith(failing)] and len(failed) == 1, [
        (c.name, c.passed, c.detail) for c in results
    ]
    (bad,) = failed
    assert bad.exchange and bad.hint.startswith("PROTOCOL.md section")
    others = [c.passed for c in results if c is not bad]
    assert all(p is None for p in others) if failing == "handshake" else all(others)


@pytest.mark.slow
def test_cli_prints_one_line_per_check_and_the_exchange_and_exits_1():
    good = run_arena("check-engine", "--game", "hex", PY, "-m", "engines.random_engine")
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.count("PASS  ") == 10 and "all checks passed" in good.stdout  # a period: 'id go movestogo'
    bad = run_arena("check-engine", "--handshake-ms", "2000", f"{PY} {BROKEN} swap")
    assert bad.returncode == 1
    lines = bad.stdout.splitlines()
    fail = next(i for i, ln in enumerate(lines) if ln.startswith("FAIL  hex: after a swap"))
    assert "illegal move 'c2'" in lines[fail] and "occupied" in lines[fail]
    assert any(ln.strip().endswith("> position start moves " + " ".join(AFTER_SWAP)) for ln in lines[fail:])
    assert any("see PROTOCOL.md section 6" in ln for ln in lines[fail:])
    missing = CliRunner().invoke(main, ["check-engine", "/nonexistent/engine"])  # refused as the line is read
    assert missing.exit_code == 2 and "does not exist" in missing.stderr


@pytest.mark.slow
def test_a_gtp_engine_is_checked_with_its_init_commands_and_pointed_to_the_gtp_guide():
    good = run_arena("check-engine", "-p", "gtp", "--init", "param_game allow_swap 1", PY, GTP)
    assert good.returncode == 0, good.stdout
    bad = run_arena("check-engine", "-p", "gtp", "--init", "param_mohex max_games 10", PY, GTP)
    assert bad.returncode == 1
    assert "FAIL  handshake: handshake: refused: its init command 'param_mohex max_games 10'" in bad.stdout
    assert "see docs/gtp.md" in bad.stdout and "PROTOCOL.md" not in bad.stdout
    wrong = CliRunner().invoke(main, ["check-engine", "--init", "x", PY, "-m", "engines.random_engine"])
    assert wrong.exit_code == 2 and "--init is for GTP engines" in wrong.stderr  # refused as the line is read


DECLARES_HEX = """\
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "arena":
        print("id name hex-only\\nid games hex\\narenaok 1", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "quit":
        break
"""


def test_a_game_the_engine_does_not_declare_is_refused_at_once_quoting_its_declaration(tmp_path):
    script = tmp_path / "hex_only.py"
    script.write_text(DECLARES_HEX)
    refused = run_arena("check-engine", "--game", "groups", PY, script)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stdout == ""  # no check ran: not a FAIL of the engine, a refusal of the request
    [line] = refused.stderr.strip().splitlines()
    assert line.startswith("arena: check-engine refused: the engine 'hex-only' declares 'id games hex', not groups")
    assert "--game hex" in line and "add groups to its 'id games' line" in line
    asked = Conformance(EngineSpec("engine", (PY, str(script)), cwd=str(ROOT)), ("hex",)).run()
    assert next(asked).passed  # a game it declares is checked as before


def test_a_misspelt_option_is_named_with_the_one_meant_not_started_as_the_engine():
    """Refused while the command line is read, so in process (the tests around it run
    check-engine as a real process)."""
    result = CliRunner().invoke(main, ["check-engine", "--gam", "hex", PY, "-m", "engines.random_engine"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == (
        "arena: no such option '--gam' (did you mean '--game'?); the options come before the engine's command "
        "(arena check-engine --help)"
    )
