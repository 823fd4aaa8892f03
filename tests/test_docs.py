"""The README stays a short front page, and every relative link in the README and the docs
leads somewhere: a file that exists and, where the link names a heading, that heading."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import ROOT

README = ROOT / "README.md"
MAX_LINES = 150
MAX_WORDS = 1200

# [text](target) and ![alt](target); a target ends at whitespace or the closing parenthesis
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def markdown_files() -> list[Path]:
    """The project's own Markdown: the README, docs/ and the pages beside the code."""
    return [
        README,
        *sorted((ROOT / "docs").rglob("*.md")),
        ROOT / "engines" / "README.md",
        ROOT / "protocol" / "PROTOCOL.md",
    ]


def relative_links(page: Path) -> list[str]:
    """The page's links to the project's own files (code blocks left out: they show, not link)."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return [target for target in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", target)]


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {anchor(line.lstrip("#")) for line in text.splitlines() if re.match(r"#{1,6} ", line)}


def broken(page: Path, target: str) -> str | None:
    """Why the link does not resolve, or None when it does."""
    path, _, fragment = target.partition("#")
    linked = (page.parent / path).resolve() if path else page
    if not linked.exists():
        return f"{os.path.relpath(page, ROOT)}: {target}: no such file"
    if fragment and linked.suffix == ".md" and fragment not in anchors(linked):
        return f"{os.path.relpath(page, ROOT)}: {target}: no heading '{fragment}' in {os.path.relpath(linked, ROOT)}"
    return None


def test_the_readme_is_at_most_150_lines_and_1200_words():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_LINES
    assert len(text.split()) <= MAX_WORDS


def test_every_docs_link_of_the_readme_resolves():
    links = [target for target in relative_links(README) if target.startswith("docs/")]
    assert "docs/command-line.md" in {target.partition("#")[0] for target in links}
    assert [why for target in links if (why := broken(README, target))] == []


@pytest.mark.parametrize("page", markdown_files(), ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert [why for target in relative_links(page) if (why := broken(page, target))] == []


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n## The heading, with `code`\n")
    assert broken(page, "page.md#the-heading-with-code") is None
    assert broken(page, "#a-page") is None
    assert broken(page, "gone.md") is not None
    assert broken(page, "page.md#no-such-heading") is not None
