"""docs/authoring.md cannot drift from the format: every assertion kind of evolve's schema has
an example there, and every example in it loads without an error."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from evolve_action.formats import load_all
from evolve_action.model.evals import Check, JudgeItem

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "authoring.md"
SCHEMA = ROOT / "src" / "evolve_action" / "schemas" / "evolve-evals.schema.json"
FENCE = re.compile(r"^```json\n(.*?)^```$", re.S | re.M)
SKILL = (
    "---\nname: greeter\ndescription: Writes greeting files. Use to greet people.\n---\n\nGreet.\n"
)


def schema_kinds() -> list[str]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    kinds: list[str] = schema["$defs"]["assertionObject"]["properties"]["type"]["enum"]
    return kinds


def examples() -> list[dict[str, Any]]:
    return [json.loads(block) for block in FENCE.findall(GUIDE.read_text(encoding="utf-8"))]


def repository(tmp_path: Path, doc: dict[str, Any]) -> Path:
    """A repository holding the one example, its fixtures as empty files."""
    (tmp_path / "skills/greeter").mkdir(parents=True)
    (tmp_path / "skills/greeter/SKILL.md").write_text(SKILL)
    evals = tmp_path / "evals/greeter"
    evals.mkdir(parents=True)
    name = "triggers.json" if "triggers" in doc else "evals.json"
    (evals / name).write_text(json.dumps(doc))
    for case in doc.get("evals", []):
        for fixture in case.get("files", []):
            (evals / fixture).parent.mkdir(parents=True, exist_ok=True)
            (evals / fixture).write_text("fixture\n")
    return tmp_path


def test_every_assertion_kind_of_the_schema_has_an_example_in_the_guide() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    written = {
        a["type"]
        for doc in examples()
        for case in doc.get("evals", [])
        for a in case.get("assertions", [])
        if isinstance(a, dict)
    }
    for kind in schema_kinds():
        assert f"`{kind}`" in text, f"docs/authoring.md does not explain `{kind}`"
        assert kind in written, f"docs/authoring.md has no example of `{kind}`"


@pytest.mark.parametrize("number", range(len(examples())))
def test_each_example_in_the_guide_loads_without_an_error(number: int, tmp_path: Path) -> None:
    doc = examples()[number]
    (result,) = load_all(repository(tmp_path, doc))
    assert result.ok, [p.render() for p in result.errors]
    assert result.suite is not None and result.suite.cases
    for case, authored in zip(result.suite.cases, doc.get("evals", []), strict=False):
        kinds = [a["type"] for a in authored.get("assertions", []) if isinstance(a, dict)]
        checks = [i.kind for i in case.items if isinstance(i, Check)]
        judged = sum(isinstance(i, JudgeItem) for i in case.items)
        deterministic = [k for k in kinds if not k.startswith("llm")]
        assert checks == [f"evolve.{k}" for k in deterministic]
        assert judged == len(case.items) - len(checks)


def test_a_broken_example_would_be_caught(tmp_path: Path) -> None:
    """The control: an example with an unknown kind does not load."""
    doc = {"evals": [{"id": "x", "prompt": "p", "assertions": [{"type": "file_exist"}]}]}
    (result,) = load_all(repository(tmp_path, doc))
    assert not result.ok and "did you mean" in result.errors[0].message
