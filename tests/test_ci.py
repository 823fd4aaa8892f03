"""`.ci/run` runs exactly the README's test command, so what CI checks is what a reader runs."""

import re
import subprocess
import sys
import tomllib

import pytest
from conftest import ROOT


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    (command,) = [block for block in blocks if "pytest" in block and "pip install" in block]
    ci = (ROOT / ".ci" / "run").read_text().rstrip("\n").splitlines()
    assert ci[-1] == command


def test_mypy_is_strict_for_the_product():
    """`.ci/run` runs mypy with pyproject's settings: strict, and relaxed for no module of
    arena (but the results package while its typing is under way), protocol or engines."""
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert mypy["strict"] is True
    assert {"arena", "protocol", "engines"} <= set(mypy["files"])
    relaxed = [module for override in mypy.get("overrides", []) for module in override["module"]]
    product = [m for m in relaxed if m.split(".")[0] in ("arena", "protocol", "engines")]
    assert product in ([], ["arena.results", "arena.results.*"]), product


def collected(*args: str) -> list[str]:
    """The test ids pytest collects from test_ladder.py and test_bench.py, in its order."""
    files = ["tests/test_ladder.py", "tests/test_bench.py"]
    listed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
            "-p",  # neither file uses Hypothesis: its plugin's import is 1.4 s of CPU of each of three runs
            "no:hypothesispytest",
            *args,
            *files,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    return [line for line in listed.stdout.splitlines() if "::" in line]


@pytest.mark.slow
def test_the_slow_tests_are_collected_first_the_costliest_ahead():
    """.ci/run's `--dist worksteal` starts each worker on its half of the collection order, so
    the slow tests come first (the ladder, allowed 400 s, before the bench's 180 s tests) and the
    quick ones last, in their files' order."""
    everything, slow, quick = collected(), collected("-m", "slow"), collected("-m", "not slow")
    assert everything == slow + quick and slow and quick
    assert slow[0].startswith("tests/test_ladder.py::test_the_hex_ladder")
    assert slow[1].startswith("tests/test_bench.py::test_quick_bench")  # in the files' order when timeouts tie
