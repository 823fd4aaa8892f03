"""`.ci/run` runs exactly the README's test command, so what CI checks is what a reader runs."""

import re
import tomllib

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
