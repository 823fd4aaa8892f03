"""The import direction of the packages, read from the source with ``ast``.

Each layer may import only the layers below it, so the lower ones can be read, tested and
reused without the upper ones, and no import cycle can form. The commands (``arena.cli``,
``python -m arena``) sit on top and may import anything of the product. The benchmarks'
package (``arena_bench``, ``arena bench``) sits above everything: it may import the product,
and no module of the product imports it (the command line finds its command through an entry
point). No private name (``_x``, a module or an attribute) is imported from another package:
what a package offers the others is its public names.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("arena", "arena_bench", "protocol", "engines")

# A layer and the layers it may import (its own included).
BELOW: dict[str, set[str]] = {
    "arena.rules": set(),
    "arena.record": {"arena.rules"},
    "protocol": {"arena.rules"},
    "arena.engine": {"arena.rules", "arena.record", "protocol"},
    "arena.match": {"arena.engine", "arena.record", "arena.rules", "protocol"},
    "arena.results": {"arena.record", "arena.rules", "protocol"},
    "arena.tournament": {"arena.results", "arena.match", "arena.engine", "arena.record", "arena.rules", "protocol"},
    "engines": {"protocol", "arena.rules"},  # the bundled bots: the SDK and the referee's rules
    "arena.machine": set(),
    # `arena ladder`: tournaments of the bundled search engine's levels, and their ratings
    "arena.ladder": {"arena.tournament", "arena.results", "arena.record", "arena.rules", "engines"},
}
BENCH = "arena_bench"  # the benchmarks: above everything, imported by no module of the product
ON_TOP = {"arena.cli", "arena.__main__", BENCH}  # the commands: anything (the product's, not the benchmarks)


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(module: str) -> str:
    """``arena.results.store`` -> ``arena.results``; ``arena.cli`` -> ``arena.cli``; ``engines.search.hex`` -> ``engines``."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "arena" else parts[0]


def layer_of(module: str) -> str | None:
    """The layer a module of ours belongs to; None for ``arena`` itself and for outside modules."""
    if module.split(".")[0] not in SCANNED or module == "arena":
        return None
    return package_of(module)


def imports(path: Path, root: Path) -> list[tuple[int, str, list[str]]]:
    """(line, absolute module, names imported from it) for every import in the file, relative ones resolved."""
    module = module_name(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            names = [alias.name for alias in node.names]
            # `from arena import rules` imports the module arena.rules: judge it as that module.
            submodules = [name for name in names if _is_module(root, f"{base}.{name}")]
            found += [(node.lineno, f"{base}.{name}", []) for name in submodules]
            rest = [name for name in names if name not in submodules]
            if rest or not submodules:
                found.append((node.lineno, base, rest))
    return found


def _is_module(root: Path, module: str) -> bool:
    path = root.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def violations(root: Path, allowed: frozenset[tuple[str, str]] = frozenset()) -> list[str]:
    """One line per import that breaks the direction or takes a private name from another package;
    ``allowed`` holds (file, imported module) pairs to pass over."""
    found = []
    for top in SCANNED:
        for path in sorted((root / top).rglob("*.py")):
            importer = module_name(path, root)
            where = path.relative_to(root).as_posix()
            for line, target, names in imports(path, root):
                if (where, target) in allowed:
                    continue
                found += [f"{where}:{line}: {problem}" for problem in _problems(importer, target, names)]
    return found


def _problems(importer: str, target: str, names: list[str]) -> list[str]:
    mine, theirs = layer_of(importer), layer_of(target)
    if theirs is None:
        return []
    problems = []
    if theirs == BENCH and mine != BENCH:
        problems.append(f"{mine or importer} must not import {target} (the product never imports the benchmarks)")
    elif mine not in ON_TOP and mine != theirs and mine is not None and theirs not in BELOW[mine]:
        problems.append(f"{mine} must not import {target} ({theirs} is not below it)")
    if package_of(importer) != package_of(target):
        private = [part for part in target.split(".") if part.startswith("_") and part != "__main__"]
        private += [name for name in names if name.startswith("_")]
        problems += [f"imports the private name {name} of {target} from another package" for name in private]
    return problems


def import_cycles(root: Path, top: str) -> list[list[str]]:
    """The groups of modules under ``top`` that import each other, directly or through others,
    counting imports inside functions and under ``TYPE_CHECKING``: such an import still ties the
    files together (neither can be read or moved without the other)."""
    graph = {
        module_name(path, root): {target for _, target, _ in imports(path, root)} for path in (root / top).rglob("*.py")
    }
    reach = {module: _reachable(graph, module) for module in graph}
    groups = {tuple(sorted(m for m in graph if m in reach[start] and start in reach[m])) for start in graph}
    return sorted(list(group) for group in groups if len(group) > 1)


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph.get(todo.pop(), set()) - seen:
            seen.add(target)
            todo.append(target)
    return seen


# Imports that break the rules today, each being removed by the restructuring (file, imported module).
# Empty means the whole tree follows the rules; an entry no longer needed should be deleted.
ALLOWED_TODAY: frozenset[tuple[str, str]] = frozenset({})


def test_every_import_follows_the_layers():
    found = violations(ROOT, ALLOWED_TODAY)
    assert not found, "imports against the layers:\n" + "\n".join(found)


def test_the_check_catches_a_violating_module(tmp_path):
    """The checker itself: a fake tree with one module breaking each rule must be reported, file and line."""
    for top in SCANNED:
        (tmp_path / top).mkdir()
        (tmp_path / top / "__init__.py").write_text("")
    for package in ("rules", "results", "tournament", "engine"):
        (tmp_path / "arena" / package).mkdir()
        (tmp_path / "arena" / package / "__init__.py").write_text("")
    (tmp_path / "arena" / "match.py").write_text("def _forfeit_result():\n    pass\n")
    (tmp_path / "arena" / "cli.py").write_text(
        "import arena.tournament\nfrom .match import _forfeit_result\n\n\ndef bench():\n    from arena_bench import run\n"
    )
    (tmp_path / "arena_bench" / "run.py").write_text("from arena.tournament import runner\nfrom arena import cli\n")
    (tmp_path / "arena" / "tournament" / "sprt.py").write_text("")
    (tmp_path / "arena" / "results" / "export.py").write_text(
        textwrap.dedent(
            """\
            import json

            from ..rules import make_game
            from ..tournament.sprt import decide
            from ..match import _forfeit_result
            """
        )
    )
    (tmp_path / "arena" / "rules" / "hex.py").write_text("def f():\n    from arena import engine\n")
    (tmp_path / "engines" / "bot.py").write_text("from arena.rules import hex\nfrom arena.results import store\n")

    found = violations(tmp_path)

    assert found == [
        "arena/cli.py:2: imports the private name _forfeit_result of arena.match from another package",
        "arena/cli.py:6: arena.cli must not import arena_bench.run (the product never imports the benchmarks)",
        "arena/results/export.py:4: arena.results must not import arena.tournament.sprt (arena.tournament is not below it)",
        "arena/results/export.py:5: arena.results must not import arena.match (arena.match is not below it)",
        "arena/results/export.py:5: imports the private name _forfeit_result of arena.match from another package",
        "arena/rules/hex.py:2: arena.rules must not import arena.engine (arena.engine is not below it)",
        "engines/bot.py:2: engines must not import arena.results (arena.results is not below it)",
    ], found
    allowed = frozenset({("arena/results/export.py", "arena.tournament.sprt")})
    assert violations(tmp_path, allowed) == [line for line in found if "sprt" not in line]


def test_the_command_line_package_is_on_top_in_every_file(tmp_path):
    """The commands are a package (a module per command): each of its files may import anything
    of the product, none the benchmarks, and no layer below imports any of them."""
    for top in SCANNED:
        (tmp_path / top).mkdir()
        (tmp_path / top / "__init__.py").write_text("")
    for package in ("cli", "rules", "tournament"):
        (tmp_path / "arena" / package).mkdir()
        (tmp_path / "arena" / package / "__init__.py").write_text("")
    (tmp_path / "arena" / "cli" / "run.py").write_text("from ..tournament import runner\nfrom arena_bench import x\n")
    (tmp_path / "arena" / "tournament" / "runner.py").write_text("from ..cli import run\n")
    (tmp_path / "arena" / "rules" / "hex.py").write_text("def f():\n    from arena.cli.run import main\n")

    assert layer_of("arena.cli.run") == "arena.cli" and "arena.cli" in ON_TOP
    assert (ROOT / "arena" / "cli" / "__init__.py").is_file()  # the commands are that package
    assert violations(tmp_path) == [
        "arena/cli/run.py:2: arena.cli must not import arena_bench (the product never imports the benchmarks)",
        "arena/rules/hex.py:2: arena.rules must not import arena.cli.run (arena.cli is not below it)",
        "arena/tournament/runner.py:1: arena.tournament must not import arena.cli.run (arena.cli is not below it)",
    ]


def test_no_file_of_the_benchmarks_is_in_an_import_cycle():
    assert import_cycles(ROOT, BENCH) == []


def test_the_cycle_check_counts_imports_in_functions_and_for_type_checking(tmp_path):
    """The package's __init__ runs a section inside a function, the section takes the package's
    Plan only for the type checker and the site through a function: one cycle of three files."""
    package = tmp_path / "bench"
    package.mkdir()
    (package / "__init__.py").write_text("class Plan:\n    pass\n\n\ndef run():\n    from . import sections\n")
    (package / "sections.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from . import Plan\n\n\n"
        "def site():\n    from .site import build\n"
    )
    (package / "site.py").write_text("from . import Plan\nfrom .common import med\n")
    (package / "common.py").write_text("import json\n")
    (package / "plan.py").write_text("from .common import med\n")

    assert import_cycles(tmp_path, "bench") == [["bench", "bench.sections", "bench.site"]]


def benchmark_imports_of_tests(root: Path) -> list[str]:
    """One line per import of a test module (or the tests' helpers) by a benchmark: the
    benchmarks' package and the scripts of benchmarks/."""
    tests = {"tests", "conftest", "helpers", "scripted", "zoo"} | {
        path.stem for path in (root / "tests").glob("test_*.py")
    }
    return [
        f"{path.relative_to(root).as_posix()}:{line}: imports {target}"
        for top in (BENCH, "benchmarks")
        for path in sorted((root / top).rglob("*.py"))
        for line, target, _ in imports(path, root)
        if target.split(".")[0] in tests
    ]


def test_no_benchmark_imports_a_test():
    """Tests may import the benchmarks, never the other way: what both need lives in the
    benchmarks' package or in the product."""
    found = benchmark_imports_of_tests(ROOT)
    assert not found, "\n".join(found)


def test_the_check_catches_a_benchmark_importing_a_test(tmp_path):
    for folder in ("tests", "benchmarks", BENCH):
        (tmp_path / folder).mkdir()
    (tmp_path / "tests" / "test_elo.py").write_text("def simulate():\n    pass\n")
    (tmp_path / "benchmarks" / "coverage.py").write_text("import random\n\nfrom tests.test_elo import simulate\n")
    (tmp_path / BENCH / "__init__.py").write_text("")
    (tmp_path / BENCH / "site.py").write_text("def chromium():\n    from helpers import CHROMIUM\n")

    assert benchmark_imports_of_tests(tmp_path) == [
        "arena_bench/site.py:2: imports helpers",
        "benchmarks/coverage.py:3: imports tests.test_elo",
    ]


def test_no_test_module_imports_another():
    """Shared engines and fixtures live in conftest.py, helpers.py and zoo.py: a test module
    imported by another would run its tests twice and tie the two together."""
    tests = ROOT / "tests"
    found = [
        f"tests/{path.name}:{line}: imports {target}"
        for path in sorted(tests.glob("test_*.py"))
        for line, target, _ in imports(path, ROOT)
        if target.removeprefix("tests.").startswith("test_")
    ]
    assert not found, "\n".join(found)
