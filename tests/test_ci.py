"""`.ci/run` runs exactly the README's test command, so what CI checks is what a reader runs."""

import re

from conftest import ROOT


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    (command,) = [block for block in blocks if "pytest" in block and "pip install" in block]
    ci = (ROOT / ".ci" / "run").read_text().rstrip("\n").splitlines()
    assert ci[-1] == command
