"""`arena --version`, `--help` and input errors answer at once: importing the command line
loads none of the heavy libraries nor the engine drivers; each command imports them when it runs."""

import subprocess
import sys

from arena_bench.startup import measure

HEAVY = ("numpy", "rich", "pydantic", "matplotlib", "jinja2", "arena.engine", "arena.match")


def test_importing_the_command_line_loads_no_heavy_module():
    code = "import sys, arena.cli; print('\\n'.join(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    heavy = [name for name in loaded if any(name == h or name.startswith(h + ".") for h in HEAVY)]
    assert not heavy, f"import arena.cli loads {', '.join(sorted(heavy))}"


def test_the_startup_benchmark_times_every_command():
    figures = measure(1)
    assert set(figures.cpu_s) == set(figures.wall_s)
    assert all(cpu > 0 for cpu in figures.cpu_s.values()), figures
