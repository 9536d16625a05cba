"""The docs name the comment's sections by the titles the comment shows: a renamed section
leaves no page pointing the reader at a heading the comment no longer has."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "src/evolve_action/templates/comment.md.j2"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Titles the comment had before; a case is a case, a check a check, an eval file a file.
OLD = ("Evals that cannot tell", "Failed assertions", "evals-that-cannot-tell")
# Titles the docs quote in bold or in quotes, each one the comment really shows.
CURRENT = (
    "▼ Regressed",
    "What to do",
    "Failed checks",
    "Checks that cannot tell",
    "Cost and behaviour",
    "Too few runs to tell",
    "▽ Dropped, not significant",
)


def test_no_page_names_a_section_the_comment_no_longer_has() -> None:
    stale = [
        f"{page.relative_to(ROOT)}: {old}"
        for page in PAGES
        for old in OLD
        if old.lower() in page.read_text(encoding="utf-8").lower()
    ]
    assert not stale, stale


def test_the_titles_the_docs_quote_are_in_the_template() -> None:
    template = TEMPLATE.read_text(encoding="utf-8")
    assert [t for t in CURRENT if t not in template] == []
