"""What crosses the product's modules is typed: ``dict[str, Any]`` is kept for the JSON and
TOML documents being read or written (docs/testing-a-change.md), and their number only falls.

Counted in the syntax tree, so a docstring or a comment that names the type does not count."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNTYPED_AT_MOST = 23  # lower it when a document gets its own type; never raise it


def untyped_dicts(source: str) -> int:
    """How many ``dict[str, Any]`` the source writes as code (annotations included)."""
    return sum(
        isinstance(node, ast.Subscript) and ast.unparse(node) == "dict[str, Any]"
        for node in ast.walk(ast.parse(source))
    )


def test_few_untyped_dicts_cross_the_product():
    found = {
        str(path.relative_to(ROOT)): n
        for path in sorted((ROOT / "arena").rglob("*.py"))
        if (n := untyped_dicts(path.read_text()))
    }
    total = sum(found.values())
    assert total <= UNTYPED_AT_MOST, f"{total} dict[str, Any] in arena/ (at most {UNTYPED_AT_MOST}): {found}"


def test_the_count_reads_code_not_words():
    source = '''
from typing import Any
x: dict[str, Any] = {}
def f(a: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Not this one: dict[str, Any]."""  # nor this dict[str, Any]
    return [dict[str, int]()]
'''
    assert untyped_dicts(source) == 3
