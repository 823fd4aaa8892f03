"""The import direction of the packages and of the files inside them, read from the source with ``ast``.

Each layer may import only the layers below it, so the lower ones can be read, tested and
reused without the upper ones. The commands (``arena.cli``, ``python -m arena``) sit on top
and may import anything of the product. The benchmarks' package (``arena_bench``, ``arena
bench``) sits above everything: it may import the product, and no module of the product
imports it (the command line finds its command through an entry point).

Inside a package the files are not given a declared order (a list of some ninety files to
keep in step with every new one); instead no file may be in an import cycle with another,
anywhere in the product, counting imports inside functions and under ``TYPE_CHECKING``. A
graph without cycles has an order, which is what a declared one would give: every file can
be read, tested and moved with only the files below it.

No private name (``_x``: a module, a function, a class, a constant) is taken from another
module, by ``from m import _x``, ``import m._x`` or ``m._x``: what a module offers the others
is its public names. The product's packages and the scripts of ``benchmarks/`` are held to it;
the tests may reach into a module to test it.

No name is taken from a module that only imports it (a compatibility re-export): each is
imported from the module that defines it, so moving it breaks its importers loudly rather than
leaving a forwarding address. The packages ``arena.rules``, ``arena.engine`` and ``arena.cli``
are exempt: their ``__init__`` hands out the package's interface (the ``Game``; the
conversation, the process and the player; the command line's ``main``) by design, not as a
forwarding address of a moved name.
"""

from __future__ import annotations

import ast
import functools
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("arena", "arena_bench", "protocol", "engines")

# A layer and the layers it may import (its own included).
BELOW: dict[str, set[str]] = {
    "arena.rules": set(),
    "arena.record": {"arena.rules"},
    "protocol": {"arena.rules"},
    "arena.engine": {"arena.rules", "arena.record", "protocol"},
    # the rules that end a game early: settings and a game's watch, over the record and the rules
    "arena.adjudication": {"arena.record", "arena.rules"},
    "arena.match": {"arena.adjudication", "arena.engine", "arena.record", "arena.rules", "protocol"},
    "arena.results": {"arena.record", "arena.rules", "protocol"},
    "arena.tournament": {
        "arena.adjudication",
        "arena.results",
        "arena.match",
        "arena.engine",
        "arena.record",
        "arena.rules",
        "protocol",
    },
    "engines": {"protocol", "arena.rules"},  # the bundled bots: the SDK and the referee's rules
    "arena.machine": set(),
    # the local web app: it plays games (a person's), reads and draws results folders
    "arena.serve": {
        "arena.tournament",
        "arena.results",
        "arena.match",
        "arena.engine",
        "arena.record",
        "arena.rules",
        "protocol",
    },
    # `arena ladder`: tournaments of the bundled search engine's levels, and their ratings
    "arena.ladder": {"arena.tournament", "arena.results", "arena.record", "arena.rules", "engines"},
    # `arena openings generate`'s balanced suites: openings the bundled search engine judges
    "arena.balanced": {"arena.tournament", "arena.record", "arena.rules", "engines"},
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
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, path, root)
            names = [alias.name for alias in node.names]
            # `from arena import rules` imports the module arena.rules: judge it as that module.
            submodules = [name for name in names if _is_module(root, f"{base}.{name}")]
            found += [(node.lineno, f"{base}.{name}", []) for name in submodules]
            rest = [name for name in names if name not in submodules]
            if rest or not submodules:
                found.append((node.lineno, base, rest))
    return found


def _absolute(node: ast.ImportFrom, path: Path, root: Path) -> str:
    """The module a ``from ... import`` names, a relative one resolved against the file's package."""
    if not node.level:
        return node.module or ""
    module = module_name(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
    return ".".join(anchor + ([node.module] if node.module else []))


def module_aliases(path: Path, root: Path) -> dict[str, str]:
    """The names the file binds to modules of ours (``import arena.results.elo as elo``,
    ``from . import export``), each with the module it stands for."""
    aliases = {}
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, path, root)
            for alias in node.names:
                if _is_module(root, f"{base}.{alias.name}"):
                    aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
    return {name: module for name, module in aliases.items() if module.split(".")[0] in SCANNED}


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_attributes(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, problem) for each ``m._x`` where ``m`` is another module of ours."""
    importer, modules = module_name(path, root), module_aliases(path, root)
    return [
        (node.lineno, f"uses the private name {node.attr} of {modules[node.value.id]} from another module")
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
        if is_private(node.attr) and modules[node.value.id] != importer
    ]


def _is_module(root: Path, module: str) -> bool:
    path = root.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


PRIVATE_CHECKED = (*SCANNED, "benchmarks")  # the trees no private name is taken in: the product, the benchmarks


def violations(root: Path, allowed: frozenset[tuple[str, str]] = frozenset()) -> list[str]:
    """One line per import that breaks the direction or takes a private name from another module
    (and per use of another module's private name); ``allowed`` holds (file, imported module)
    pairs to pass over."""
    found = []
    for top in PRIVATE_CHECKED:
        for path in sorted((root / top).rglob("*.py")):
            importer = module_name(path, root)
            where = path.relative_to(root).as_posix()
            problems = [
                (line, problem)
                for line, target, names in imports(path, root)
                if (where, target) not in allowed
                for problem in _problems(importer, target, names)
            ]
            problems += private_attributes(path, root)
            found += [f"{where}:{line}: {problem}" for line, problem in sorted(problems, key=lambda p: p[0])]
    return found


def _problems(importer: str, target: str, names: list[str]) -> list[str]:
    mine, theirs = layer_of(importer), layer_of(target)
    if theirs is None:
        return []
    problems = []
    in_product = importer.split(".")[0] in SCANNED  # the scripts of benchmarks/ are held to privacy only
    if theirs == BENCH and in_product and mine != BENCH:
        problems.append(f"{mine or importer} must not import {target} (the product never imports the benchmarks)")
    elif mine not in ON_TOP and mine != theirs and mine is not None and theirs not in BELOW[mine]:
        problems.append(f"{mine} must not import {target} ({theirs} is not below it)")
    if importer != target:
        private = [part for part in target.split(".") if is_private(part)]
        private += [name for name in names if is_private(name)]
        problems += [f"imports the private name {name} of {target} from another module" for name in private]
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


@pytest.mark.slow
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
        "arena/cli.py:2: imports the private name _forfeit_result of arena.match from another module",
        "arena/cli.py:6: arena.cli must not import arena_bench.run (the product never imports the benchmarks)",
        "arena/results/export.py:4: arena.results must not import arena.tournament.sprt (arena.tournament is not below it)",
        "arena/results/export.py:5: arena.results must not import arena.match (arena.match is not below it)",
        "arena/results/export.py:5: imports the private name _forfeit_result of arena.match from another module",
        "arena/rules/hex.py:2: arena.rules must not import arena.engine (arena.engine is not below it)",
        "engines/bot.py:2: engines must not import arena.results (arena.results is not below it)",
    ], found
    allowed = frozenset({("arena/results/export.py", "arena.tournament.sprt")})
    assert violations(tmp_path, allowed) == [line for line in found if "sprt" not in line]


def test_the_check_catches_private_names_taken_from_another_module(tmp_path):
    """Within one package too, by an import or through a module's name; a module's own private
    names, dunders, another object's attributes and the tests stay free."""
    for top in (*SCANNED, "tests"):
        (tmp_path / top).mkdir()
        (tmp_path / top / "__init__.py").write_text("")
    (tmp_path / "arena" / "results").mkdir()
    (tmp_path / "arena" / "results" / "__init__.py").write_text("def _environment():\n    pass\n")
    (tmp_path / "arena" / "results" / "export.py").write_text("def _num():\n    pass\n\n\nx = _num()\n")
    (tmp_path / "arena" / "results" / "ratinglist.py").write_text(
        textwrap.dedent(
            """\
            import arena.results.export as numbers
            from . import _environment, export
            from .export import __doc__, _num

            a = export._num()
            b = numbers._num
            c = export.__name__
            d = self._num
            """
        )
    )
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "fit.py").write_text(
        "import os\n\nfrom arena.results import export\n\nos._exit\nexport._num()\n"
    )
    (tmp_path / "tests" / "test_export.py").write_text("from arena.results.export import _num\n")

    assert violations(tmp_path) == [
        "arena/results/ratinglist.py:2: imports the private name _environment of arena.results from another module",
        "arena/results/ratinglist.py:3: imports the private name _num of arena.results.export from another module",
        "arena/results/ratinglist.py:5: uses the private name _num of arena.results.export from another module",
        "arena/results/ratinglist.py:6: uses the private name _num of arena.results.export from another module",
        "benchmarks/fit.py:6: uses the private name _num of arena.results.export from another module",
    ]


@pytest.mark.slow
def test_no_file_is_in_an_import_cycle():
    """Across packages and between the files of one package (see the docstring above): every
    group of files that import each other, through functions and TYPE_CHECKING too, is named."""
    cycles = [group for top in SCANNED for group in import_cycles(ROOT, top)]
    assert cycles == [], "files that import each other:\n" + "\n".join(" <-> ".join(group) for group in cycles)


# Packages whose __init__ hands out the package's interface by design: the games' registry, the
# engine layer (what a conversation, a process and a player are) and the command line (its main,
# the entry point, and the Failure an added command raises).
PASSING_ON = ("arena.rules", "arena.engine", "arena.cli")


def _module_file(root: Path, module: str) -> Path:
    path = root.joinpath(*module.split("."))
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else path / "__init__.py"


@functools.cache  # a module is read once however many importers take names from it
def _bound_names(path: Path) -> tuple[set[str], set[str]]:
    """The names a module defines (def, class, assignment) and the names it imports."""
    defined: set[str] = set()
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined |= {name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            imported |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
    return defined, imported


def reexports(root: Path, tops: tuple[str, ...]) -> list[str]:
    """One line per name taken from a module of ours that only imports it."""
    found = []
    for top in tops:
        for path in sorted((root / top).rglob("*.py")):
            for line, target, names in imports(path, root):
                source = _module_file(root, target)
                if target.split(".")[0] not in SCANNED or not source.is_file():
                    continue
                if target in PASSING_ON:  # the package itself, not its modules
                    continue
                defined, imported = _bound_names(source)
                found += [
                    f"{path.relative_to(root).as_posix()}:{line}: takes {name} from {target}, which only imports it"
                    for name in names
                    if name in imported and name not in defined
                ]
    return found


@pytest.mark.slow
def test_no_name_is_taken_from_a_module_that_only_passes_it_on():
    found = reexports(ROOT, (*PRIVATE_CHECKED, "tests"))
    assert not found, "\n".join(found)


def test_the_check_catches_a_name_taken_from_a_module_that_only_imports_it(tmp_path):
    for top in SCANNED:
        (tmp_path / top).mkdir()
        (tmp_path / top / "__init__.py").write_text("")
    (tmp_path / "arena" / "record.py").write_text("def derive_seed():\n    pass\n")
    (tmp_path / "arena" / "match.py").write_text("from .record import derive_seed\n\nTIMEOUT = 5\n")
    (tmp_path / "engines" / "bot.py").write_text(
        "import json\n\nfrom arena.match import TIMEOUT, derive_seed\nfrom arena.record import derive_seed as seed\n"
    )

    assert reexports(tmp_path, SCANNED) == [
        "engines/bot.py:3: takes derive_seed from arena.match, which only imports it"
    ]


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


def test_no_file_of_the_engine_layer_is_in_an_import_cycle():
    """The handshake's checks (declared), the conversations that use them and the start-up
    check that starts conversations (preflight) import one another one way only."""
    assert import_cycles(ROOT, "arena/engine") == []


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
