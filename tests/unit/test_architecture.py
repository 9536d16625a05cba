"""The package layout stays true: every module lives in a stage, imports run only downstream,
and no two modules import each other, even through a chain (docs/architecture.md).

Every import counts: module level, inside functions (the lazy ones that keep start-up fast),
under `TYPE_CHECKING`, and by string: a literal that names one of the package's modules
(`importlib.import_module("evolve_action.grade.grading")`), or an f-string that starts with a
package's dotted name (`f"evolve_action.grade.checks.{name}"`) counts as importing it, because
each is a dependency a reader has to hold in mind.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "evolve_action"
ROOT = "evolve_action"

# Stage → the stages it may import, besides itself and the root package (`__version__`).
# The order of the pipeline: settings → plan → execute → grade → verdict → publish, with
# `pipeline` running them and `commands` at the edge. `formats` turns files into the model;
# after planning nobody reads eval files again, so no later stage may import it.
ALLOWED: dict[str, frozenset[str]] = {
    "util": frozenset(),
    "model": frozenset({"util"}),
    "formats": frozenset({"model", "util"}),
    "settings": frozenset({"formats", "model", "util"}),
    "plan": frozenset({"settings", "formats", "model", "util"}),
    "execute": frozenset({"plan", "settings", "model", "util"}),
    "grade": frozenset({"plan", "settings", "formats", "model", "util"}),
    "verdict": frozenset({"plan", "settings", "model", "util"}),
    "publish": frozenset({"verdict", "grade", "plan", "settings", "model", "util"}),
    "pipeline": frozenset(
        {"publish", "verdict", "grade", "execute", "plan", "settings", "formats", "model", "util"}
    ),
    "commands": frozenset(
        {
            "pipeline",
            "publish",
            "verdict",
            "grade",
            "execute",
            "plan",
            "settings",
            "formats",
            "model",
            "util",
        }
    ),
}
# Files allowed at the top of the package: the version, `python -m evolve_action`.
TOP_LEVEL = {"evolve_action", "evolve_action.__main__"}


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join([ROOT, *parts])] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """The package's own modules `name` imports, with the line of each import."""
    return _imports_of_source(path.read_text(encoding="utf-8"), name, path, known)


def _imports_of_source(
    source: str, name: str, path: Path, known: dict[str, Path]
) -> Iterator[tuple[str, int]]:
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                target = f"{base}.{alias.name}"
                target = target if target in known else base
                if target in known:
                    yield target, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in known:
                yield node.value, node.lineno
        elif isinstance(node, ast.JoinedStr) and node.values:
            head = node.values[0]
            if isinstance(head, ast.Constant) and isinstance(head.value, str):
                prefix = head.value.rstrip(".")
                if prefix in known and prefix != ROOT:
                    yield prefix, node.lineno


def stage(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ALLOWED) else None


def graph() -> dict[str, set[str]]:
    known = modules()
    return {
        name: {target for target, _ in imports(name, path, known) if target != name}
        for name, path in known.items()
    }


def test_every_module_lives_in_a_stage() -> None:
    loose = sorted(n for n in modules() if n not in TOP_LEVEL and stage(n) is None)
    assert not loose, f"modules outside every stage package: {loose}; give each a stage"
    stages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert stages == set(ALLOWED), "a stage package was added or removed: update ALLOWED"


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_each_stage_says_what_comes_in_and_goes_out(package: str) -> None:
    doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text()))
    assert doc and len(doc.splitlines()) >= 3, f"{package}/__init__.py needs its docstring"


def test_imports_only_run_downstream() -> None:
    known = modules()
    wrong = []
    for name, path in known.items():
        own = stage(name)
        for target, line in imports(name, path, known):
            other = stage(target)
            if own is None or other is None or other == own:
                continue
            if other not in ALLOWED[own]:
                rel = path.relative_to(PACKAGE.parent)
                wrong.append(f"{rel}:{line}: {own} imports {target} ({other})")
    assert not wrong, "imports against the stage order:\n" + "\n".join(sorted(wrong))


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles() -> None:
    found = cycles(graph())
    assert not found, f"modules that import each other (directly or through others): {found}"


def test_the_cycle_finder_finds_cycles() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_imports_by_string_count() -> None:
    """A module named in a string is a dependency like any other (issue 30's hidden channel)."""
    source = (
        "import importlib\n"
        "importlib.import_module('evolve_action.publish.post')\n"
        "name = 'x'\n"
        "importlib.import_module(f'evolve_action.grade.checks.{name}')\n"
    )
    known = {"evolve_action.publish.post": Path(), "evolve_action.grade.checks": Path()}
    here = PACKAGE / "execute" / "probe.py"
    found = list(_imports_of_source(source, "evolve_action.execute.probe", here, known))
    assert found == [("evolve_action.publish.post", 2), ("evolve_action.grade.checks", 4)]


def test_the_order_itself_has_no_cycle() -> None:
    deps = {k: set(v) for k, v in ALLOWED.items()}
    assert cycles(deps) == []
