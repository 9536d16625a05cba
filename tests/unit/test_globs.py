"""One glob translation, four dialects: what each reads, and that every dialect but Vally's
extglob compiles with RE2."""

from __future__ import annotations

import re

import pytest

from evolve_action.util import globs
from evolve_action.util.regex import compile_re2


@pytest.mark.parametrize(
    ("dialect", "pattern", "path", "hit"),
    [
        (globs.PATHS, "evals", "evals/a/evals.json", True),  # a folder selects what is below
        (globs.PATHS, "evals/**/evals.json", "evals/evals.json", True),
        (globs.PATHS, "*.json", "a/b.json", False),
        (globs.PATHS, "[!a]*.json", "b.json", True),
        (globs.TOOL, "*.{md,bin}", "data.bin", True),
        (globs.TOOL, "{a,b}/x,y", "b/x,y", True),
        (globs.TOOL, "evals", "evals/a.json", False),  # no folder rule
        (globs.TOOL, "src/**", "src/a/b", True),
        (globs.EXPERIMENTS, "evals/!(agent.*)/*.yaml", "evals/web/e.yaml", True),
        (globs.EXPERIMENTS, "evals/!(agent.*)/*.yaml", "evals/agent.x/e.yaml", False),
        (globs.EXPERIMENTS, "[a].yaml", "[a].yaml", True),  # no classes: a literal bracket
        (globs.EXPERIMENTS, "**/e.yaml", "a/b/e.yaml", True),
        (globs.RGLOB, "*.test.ts", "src/deep/a.test.ts", True),
        (globs.RGLOB, "src/*.ts", "pkg/src/a.ts", True),
        (globs.RGLOB, "src/*.ts", "src/x/a.ts", False),
        (globs.RGLOB, "./a/**", "x/a", True),
        (globs.RGLOB, "{a,b}.md", "a.md", False),  # braces are the agent tools' only
    ],
)
def test_each_dialect(dialect: globs.Dialect, pattern: str, path: str, hit: bool) -> None:
    assert (re.fullmatch(globs.regex(pattern, dialect), path) is not None) is hit


@pytest.mark.parametrize("dialect", [globs.PATHS, globs.TOOL, globs.RGLOB])
@pytest.mark.parametrize("pattern", ["**/*.py", "a/[!b]?/{c,d}", "x/**", "[", "{a", "a*b*c*d*e"])
def test_the_re2_dialects_compile_with_re2(dialect: globs.Dialect, pattern: str) -> None:
    compile_re2(globs.regex(pattern, dialect))  # raises RegexError when RE2 refuses it


@pytest.mark.parametrize(
    ("pattern", "name", "hit"),
    [
        ("R*", "Read", True),
        ("mcp__*", "mcp__x__y", True),
        ("Read", "Reader", False),
        ("[", "[", True),
    ],
)
def test_name_matches(pattern: str, name: str, hit: bool) -> None:
    assert globs.name_matches(pattern, name) is hit
