import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def python_engine():
    """Argument list that runs a bundled engine module with this interpreter."""

    def command(module: str) -> tuple[str, ...]:
        return (sys.executable, "-m", module)

    return command


@pytest.fixture(scope="session")
def zoo_c(tmp_path_factory):
    binary = tmp_path_factory.mktemp("zoo") / "zoo_engine"
    subprocess.run(["gcc", "-O1", "-o", str(binary), str(ROOT / "tests" / "engines" / "zoo_engine.c")], check=True)
    return str(binary)


@pytest.fixture(scope="session")
def instant_c(tmp_path_factory):
    """benchmarks/instant_engine.c built: a Hex engine that answers at once with a random empty
    cell seeded by the referee's seed, for tests that start many engines (milliseconds each)."""
    binary = tmp_path_factory.mktemp("instant") / "instant_engine"
    subprocess.run(["gcc", "-O1", "-o", str(binary), str(ROOT / "benchmarks" / "instant_engine.c")], check=True)
    return str(binary)


@pytest.fixture
def marker(tmp_path, monkeypatch):
    """Every process the engines start inherits ZOO_PIDS=<file> and writes its pid there."""
    path = tmp_path / "pids"
    monkeypatch.setenv("ZOO_PIDS", str(path))
    return path


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the browser tests (tests/test_site.py, tests/test_viewer.py)."""
    from helpers import CHROMIUM, CHROMIUM_FLAGS
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Chromium is needed for this test; the README's test command installs it"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield b
        b.close()
