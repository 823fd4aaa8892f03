import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# One BLAS thread in this process and every process the suite starts (inherited; a value set before
# the suite started is kept). numpy and scipy each load an OpenBLAS that starts a thread
# per core, and those threads spin idle a while: about 0.3 s of CPU per `arena run`, 0.13 s per
# `arena results`, on 2 cores. Nothing here needs a second BLAS thread: the Elo fit, the only
# BLAS-heavy code, limits itself to one (arena/results/elo.py).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# Ctrl-C as a terminal sends it, for the processes the stop tests start: a shell starting the suite
# as a background job (`pytest &`) ignores SIGINT in it, the ignoring is inherited across exec, and
# an arena run told to ignore SIGINT rightly does (as under nohup), so those tests would fail.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, those allowed the longest timeout (the costliest) before the others.

    A test of a minute started last keeps one core busy alone at the end of the run. With
    `--dist worksteal` (.ci/run) each worker starts on its share of this order, the first on
    the costliest, and a worker that runs out takes the back half of another's queue: the
    quick tests, last, fill the cores to the end. Each group keeps its order; a costly fixture
    that a module's slow and quick tests share is session-wide, built once per worker, not once
    per group. `-m "not slow"` runs as it did."""
    items.sort(key=_start_rank)


def _start_rank(item: pytest.Item) -> tuple[int, float]:
    if item.get_closest_marker("slow") is None:
        return (1, 0.0)
    timeout = item.get_closest_marker("timeout")
    return (0, -float(timeout.args[0]) if timeout and timeout.args else 0.0)


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


@pytest.fixture
def short_quit_grace(monkeypatch):
    """The grace an engine told to quit has before it is killed, a tenth of a second instead of
    a second: a zoo engine that misbehaved then sleeps (tests/engines/zoo_engine.py), and every
    worker's shutdown waited out the whole grace before the kill the fault tests check.  How long
    the grace is, and that none is killed before it ends, tests/test_retiring.py guards."""
    from arena.engine import retiring, transport

    monkeypatch.setattr(retiring, "QUIT_GRACE", 0.1)
    monkeypatch.setattr(transport, "QUIT_GRACE", 0.1)


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium for the browser tests (tests/test_site.py, tests/test_viewer.py, ...),
    one per worker: the slow tests run first and apart from their modules' quick ones, and a
    launch costs a second or more of CPU each time."""
    from helpers import CHROMIUM, CHROMIUM_FLAGS
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Chromium is needed for this test; the README's test command installs it"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield b
        b.close()
