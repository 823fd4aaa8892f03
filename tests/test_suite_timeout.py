"""The suite's per-test timeout (pyproject.toml): a test that hangs fails with its name."""

import shutil
import subprocess
import sys
import textwrap

import pytest
from conftest import ROOT

HANGING = """
import time

def test_sleeps_forever():
    while True:
        time.sleep(60)

def test_spins_forever():
    while True:
        pass

def test_after_them():
    assert True
"""


def test_this_session_runs_under_the_configured_timeout(request):
    assert request.config.pluginmanager.hasplugin("timeout")
    assert 0 < float(request.config.getini("timeout")) <= 30
    assert request.config.getini("timeout_method") == "signal"


@pytest.mark.slow
def test_a_hanging_test_fails_by_timeout_and_the_rest_still_run(tmp_path):
    # The project's own pytest settings, with the limit cut to 1 s so this stays quick.
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_hanging.py").write_text(textwrap.dedent(HANGING))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-o", "timeout=1", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=25,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "2 failed, 1 passed" in proc.stdout
    for name in ("test_sleeps_forever", "test_spins_forever"):
        assert f"FAILED tests/test_hanging.py::{name} - Failed: Timeout" in proc.stdout
