"""The documentation holds together (issue 30): links resolve, the README stays a README, the
code cites only what is in the repository, docs/environment.md names every reader of the
environment, and docs/development.md names functions that exist.

A failure names the file, the line and what to change.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "evolve_action"
README_LIMIT = 12_000  # bytes: the README is for users; details belong in docs/
PAGES = sorted(
    {
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        *ROOT.glob("docs/*.md"),
        ROOT / "tests" / "README.md",
        ROOT / "bench" / "README.md",
        ROOT / "examples" / "README.md",
    }
)
CODE_DIRS = ("src", "tests", "bench", "scripts")
_FENCE = re.compile(r"^(```|~~~)")
_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)|!\[[^\]\n]*\]\(([^)\s]+)\)")
# Citations of documents that are not in the repository (the design notes it was built from).
_FOREIGN = re.compile(r"DESIGN\s§|ecosystem\s§|evolve\s§|reference\s[A-C]\.\d|shared/reference/")
_DESIGN_CITE = re.compile(r"docs/design\.md\s+§")


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _prose_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of the lines outside fenced code blocks."""
    out, fenced = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if _FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, line))
    return out


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: Counter[str] = Counter()
    out = set()
    for _, line in _prose_lines(path):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*$", line)
        if heading:
            slug = _slug(heading.group(1))
            out.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
            seen[slug] += 1
    return out


def _links(path: Path) -> list[tuple[int, str]]:
    return [
        (number, match.group(1) or match.group(2))
        for number, line in _prose_lines(path)
        for match in _LINK.finditer(line)
    ]


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_relative_link_resolves_to_a_file_and_heading_in_the_repository(page: Path) -> None:
    if not page.is_file():
        pytest.skip(f"{_rel(page)} does not exist")
    broken = []
    for number, target in _links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        where = f"{_rel(page)}:{number}: ({target})"
        if not dest.is_relative_to(ROOT) or not dest.exists():
            broken.append(f"{where} names no file of the repository")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{where}: {_rel(dest)} has no heading whose anchor is #{anchor}")
    assert broken == [], "fix or remove these links:\n" + "\n".join(broken)


def test_the_link_check_finds_a_broken_link_and_a_broken_anchor(tmp_path: Path) -> None:
    """The control: the same parsing sees links, fences and anchors."""
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n## Pass rate\n\n[ok](#pass-rate) [bad](#nope) [file](missing.md)\n"
        "```\n[in code](ignored.md)\n```\n"
    )
    assert _links(page) == [(5, "#pass-rate"), (5, "#nope"), (5, "missing.md")]
    assert _anchors(page) == {"title", "pass-rate"}


def test_the_citation_check_knows_the_old_forms() -> None:
    """The control: each form the code used to cite is caught; a citation into docs/ is not."""
    old_forms = [
        " §".join(pair) for pair in (("DESIGN", "5"), ("ecosystem", "2.1"), ("evolve", "6.4"))
    ]
    for old in [*old_forms, "reference B.4"]:
        assert _FOREIGN.search(f"the rule ({old})"), old
    assert not _FOREIGN.search("the rule (docs/design.md §Trust)")


def test_readme_is_short_and_opens_with_the_workflow_then_the_demo_and_the_tests() -> None:
    readme = (ROOT / "README.md").read_bytes()
    assert len(readme) < README_LIMIT, (
        f"README.md is {len(readme):,} bytes, over {README_LIMIT:,}: move detail to a page "
        "of docs/ and link it"
    )
    text = readme.decode("utf-8")
    # The first screen: what it is, the workflow lines to paste, then the two commands.
    workflow = re.search(r"^```yaml\n(.*?)^```", text, re.M | re.S)
    first = re.search(r"^```sh\n(.*?)^```", text, re.M | re.S)
    assert workflow is not None and first is not None, "README.md lost its first blocks"
    assert "uses: bitwise-media-group/evolve@v1" in workflow.group(1)
    assert workflow.start() < first.start() and text[: workflow.start()].count("\n") < 12
    commands = [line.split("#")[0].strip() for line in first.group(1).splitlines()]
    # A fresh-clone check runs the first two fenced commands.
    assert commands[:2] == ["./dev demo", "./dev test"]


def _code_files() -> list[Path]:
    out: list[Path] = []
    for folder in CODE_DIRS:
        out += [p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".sh", ".json")]
    return sorted(p for p in out if p.is_file() and p != Path(__file__).resolve())


def test_the_code_cites_only_documents_in_the_repository() -> None:
    foreign, unknown = [], []
    sections = {m.group(1) for m in re.finditer(r"^## (.+)$", _design(), re.M)}
    for path in _code_files():
        text = path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            if _FOREIGN.search(line):
                foreign.append(f"{_rel(path)}:{number}: {line.strip()}")
        for cite in _DESIGN_CITE.finditer(text):  # a citation may break across lines
            rest = text[cite.end() :]
            if not any(rest.startswith(section) for section in sections):
                number = text.count("\n", 0, cite.start()) + 1
                unknown.append(f"{_rel(path)}:{number}: §{rest.split()[0]}")
    assert foreign == [], "cite docs/design.md §<section> instead:\n" + "\n".join(foreign)
    assert unknown == [], f"docs/design.md has no such section {sorted(sections)}:\n" + "\n".join(
        unknown
    )


def _design() -> str:
    return (ROOT / "docs" / "design.md").read_text(encoding="utf-8")


def _reads_os_environ(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "os" and node.attr in ("environ", "getenv", "environb"):
                return True
    return False


def test_docs_environment_names_every_module_that_reads_os_environ() -> None:
    page = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    readers = [_rel_src(p) for p in sorted(SRC.rglob("*.py")) if _reads_os_environ(p)]
    assert readers, "the scan found no reader at all: it is broken"
    missing = [name for name in readers if f"`{name}`" not in page]
    assert missing == [], (
        "these modules read os.environ but docs/environment.md does not say why (add a row to "
        f"'Who reads the process environment', or take the value from the command): {missing}"
    )


def test_docs_environment_documents_every_evolve_variable() -> None:
    page = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    named = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if re.fullmatch(r"EVOLVE_[A-Z0-9_]+", node.value):
                    named.add(node.value)
    assert {"EVOLVE_REQUEST_TIMEOUT_S", "EVOLVE_RETRY_BASE_DELAY_S"} <= named
    missing = sorted(name for name in named if f"`{name}`" not in page)
    assert missing == [], f"document these variables in docs/environment.md: {missing}"


def _rel_src(path: Path) -> str:
    return path.relative_to(SRC).as_posix()


def _defines(path: Path, name: str) -> bool:
    """Whether a module defines `name`: a function, class, constant or dataclass field."""
    text = path.read_text(encoding="utf-8")
    return bool(
        re.search(rf"^\s*(?:async\s+def|def|class)\s+{name}\b|^\s*{name}\s*[:=]", text, re.M)
    )


def _modules(stem: str) -> list[Path]:
    """The modules a short name may mean: `job` → pipeline/job.py, `formats` → its __init__."""
    found = [p for p in SRC.rglob(f"{stem}.py") if p.name != "__init__.py"]
    found += [p / "__init__.py" for p in SRC.rglob(stem) if (p / "__init__.py").is_file()]
    return found


def test_development_names_functions_that_exist_where_it_says() -> None:
    """docs/development.md walks a job through the code by name; a rename must update it."""
    page = ROOT / "docs" / "development.md"
    stale, checked = [], 0
    for number, line in _prose_lines(page):
        # "`pipeline/job.py` `run`": the name is defined in that file.
        for path, name in re.findall(r"`([\w/]+\.py)` `(\w+)`", line):
            module = SRC / path
            checked += 1
            if not module.is_file() or not _defines(module, name):
                stale.append(f"docs/development.md:{number}: {path} {name}")
        # "`plan_and_run.run_adaptively`", "`grade/checks` `run_check`": a module and a name.
        pairs = re.findall(r"`(\w+)\.(\w+)`", line)
        pairs += [(p.rsplit("/", 1)[-1], n) for p, n in re.findall(r"`([\w/]+)` `(\w+)`", line)]
        for stem, name in pairs:
            if name in ("py", "md", "yml", "yaml", "json"):
                continue  # a file name, not a module's member
            modules = _modules(stem)
            checked += bool(modules)
            if modules and not any(_defines(m, name) for m in modules):
                stale.append(f"docs/development.md:{number}: {stem}.{name}")
    assert stale == [], "these names moved or were renamed; update the page:\n" + "\n".join(stale)
    assert checked >= 40, f"only {checked} names checked: the page's patterns changed"
