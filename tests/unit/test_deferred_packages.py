"""A re-export package's body runs at the first use of a name it holds, once, and never for an
import of one of its modules by full name; the SDKs' `types` hubs are such packages."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.model import provider_table
from evolve_action.util import deferred_packages

# The hub's body counts its runs in a module outside it, so a test can see each one.
HUB = """
from {root}.counter import RUNS
RUNS.append(1)
from .models import Answer as Answer
from .models import Question as Question
from . import nested as nested
"""


@pytest.fixture
def root(tmp_path: Path) -> Iterator[str]:
    """A package `<root>` with a counter and a deferred hub `<root>.types`."""
    name = f"hubpkg_{uuid.uuid4().hex[:8]}"
    package = tmp_path / name
    types = package / "types"
    (types / "nested").mkdir(parents=True)
    (package / "__init__.py").write_text("from . import types as types\n")
    (package / "counter.py").write_text("RUNS: list[int] = []\n")
    (types / "__init__.py").write_text(HUB.format(root=name))
    (types / "models.py").write_text("class Answer: ...\nclass Question: ...\n")
    (types / "nested" / "__init__.py").write_text("from .leaf import Leaf as Leaf\n")
    (types / "nested" / "leaf.py").write_text("class Leaf: ...\n")
    sys.path.insert(0, str(tmp_path))
    remove = deferred_packages.defer([f"{name}.types"])
    try:
        yield name
    finally:
        remove()
        sys.path.remove(str(tmp_path))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


def _runs(root: str) -> int:
    return len(importlib.import_module(f"{root}.counter").RUNS)


def test_importing_the_package_or_a_module_of_its_hub_runs_no_hub_body(root: str) -> None:
    importlib.import_module(root)
    models = importlib.import_module(f"{root}.types.models")
    leaf = importlib.import_module(f"{root}.types.nested.leaf")
    assert models.Answer.__name__ == "Answer"
    assert leaf.Leaf.__name__ == "Leaf"
    assert _runs(root) == 0


def test_the_first_name_asked_for_runs_the_body_once(root: str) -> None:
    package = importlib.import_module(root)
    models = importlib.import_module(f"{root}.types.models")
    assert package.types.Answer is models.Answer
    namespace: dict[str, object] = {}
    exec(f"from {root}.types import Question, nested", namespace)
    assert namespace["Question"] is models.Question
    assert namespace["nested"] is sys.modules[f"{root}.types.nested"]
    assert _runs(root) == 1
    assert "__getattr__" not in vars(package.types)  # done: plain look-ups from now on


def test_a_sub_hub_is_deferred_too_and_a_missing_name_is_an_attribute_error(root: str) -> None:
    nested = importlib.import_module(f"{root}.types.nested")
    assert "Leaf" not in vars(nested)
    assert nested.Leaf is importlib.import_module(f"{root}.types.nested.leaf").Leaf
    types = importlib.import_module(f"{root}.types")
    with pytest.raises(AttributeError, match="has no attribute 'Missing'"):
        _ = types.Missing
    assert not hasattr(types, "AlsoMissing")
    assert _runs(root) == 1


def test_star_import_sees_every_name(root: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from {root}.types import *", namespace)
    assert {"Answer", "Question", "nested"} <= set(namespace)


def test_threads_asking_at_once_all_get_the_name(root: str) -> None:
    types = importlib.import_module(f"{root}.types")
    start = threading.Barrier(8)
    got: list[object] = []

    def ask() -> None:
        start.wait()
        got.append(types.Answer)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == [importlib.import_module(f"{root}.types.models").Answer] * 8
    assert 1 <= _runs(root) <= 8  # a body of imports may run more than once; no lock is taken


def test_outside_the_prefixes_nothing_changes(root: str) -> None:
    other = importlib.import_module("json")
    assert "__getattr__" not in vars(other)
    assert "__getattr__" not in vars(importlib.import_module(root))


def test_installing_the_same_prefixes_twice_installs_one_finder() -> None:
    before = len(sys.meta_path)
    first = deferred_packages.defer(["nothing_here.types"])
    second = deferred_packages.defer(["nothing_here.types"])
    assert len(sys.meta_path) == before + 1
    first()
    second()
    assert len(sys.meta_path) == before


def _hub_inits(sdk: str) -> list[Path]:
    spec = importlib.util.find_spec(sdk)
    if spec is None or not spec.submodule_search_locations:
        return []
    return sorted((Path(spec.submodule_search_locations[0]) / "types").rglob("__init__.py"))


# What a hub's body may hold: imports, its docstring, `__all__`. Anything else (a call, a
# class, a conditional) would run later than the SDK meant once deferred.
def _plain_statement(node: ast.stmt) -> bool:
    if isinstance(node, ast.Import | ast.ImportFrom):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return True
    targets = node.targets if isinstance(node, ast.Assign) else []
    return len(targets) == 1 and isinstance(targets[0], ast.Name) and targets[0].id == "__all__"


@pytest.mark.parametrize("hub", provider_table.sdk_type_hubs())
def test_every_pinned_sdk_hub_only_imports(hub: str) -> None:
    sdk = hub.partition(".")[0]
    inits = _hub_inits(sdk)
    assert inits, f"{sdk} has no `types` package: drop it from the deferred hubs"
    bad = []
    for init in inits:
        tree = ast.parse(init.read_text(encoding="utf-8"))
        bad += [f"{init}:{n.lineno}" for n in tree.body if not _plain_statement(n)]
    assert bad == [], "these hub bodies do more than import; deferring them is not safe"
