"""docs/development.md's recipe for a new format, walked: in a copy of the package, a tiny
format is one new folder under `formats/` (loader, check kind, scoring policy), its line in
`formats/families.py` and its member of `model.evals.Format`; nothing else is edited, and its
file is discovered, loaded and graded.

The copy runs in a child process, so the package this suite imported stays as it is."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "evolve_action"

INIT = '"""Toy: a JSON list of words the answer must hold."""\n'
LOAD = """
from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import Document
from evolve_action.model.evals import Case, Check, Format, LoadResult, Suite


def load(doc: Document, ctx: LoadContext) -> LoadResult:
    problems = Problems(doc)
    words = doc.data.get("words") if isinstance(doc.data, dict) else None
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        problems.error(("words",), "must be a list of strings")
        return LoadResult(doc.rel, Format.TOY, None, tuple(problems.items))
    checks = tuple(
        Check(f"w{i}", "toy.says", f"says {w}", problems.origin("words", i), {"word": w})
        for i, w in enumerate(words)
    )
    case = Case("c1", str(doc.data.get("prompt", "")), problems.origin(), items=checks)
    suite = Suite(Format.TOY, doc.path, doc.rel, ctx.skill, (case,))
    return LoadResult(doc.rel, Format.TOY, suite, tuple(problems.items))
"""
CHECKS = """
from evolve_action.model.checking import CheckContext, register
from evolve_action.model.evals import Check
from evolve_action.model.outcomes import ItemResult


@register("toy.says")
async def says(check: Check, ctx: CheckContext) -> ItemResult:
    held = check.params["word"] in ctx.transcript.final_text
    return ItemResult(check.id, check.text, held, "seen" if held else "missing", kind=check.kind)
"""
SCORING = """
from evolve_action.model.outcomes import Status
from evolve_action.model.scoring import Verdict


class ToyPolicy:
    def judge_needed(self, suite, case, checks):
        return False

    def verdict(self, suite, case, items, judge):
        ok = all(i.passed for i in items)
        return Verdict(Status.PASS if ok else Status.FAIL, 1.0 if ok else 0.0)


POLICY = ToyPolicy()
"""
RUN = """
import asyncio, json, sys
from pathlib import Path
import evolve_action
from evolve_action.formats import load_all
from evolve_action.grade.checks import CheckContext
from evolve_action.grade.grading import grade_run
from evolve_action.model.outcomes import Transcript

root = Path(sys.argv[1])
(result,) = load_all(root)
suite = result.suite
case = suite.cases[0]

async def nothing(*args, **kwargs):
    raise AssertionError("no command runs")

def grade(answer):
    ctx = CheckContext(suite, case, root, Transcript(final_text=answer), nothing, 10.0)
    return asyncio.run(grade_run(ctx, None)).status.value

print(json.dumps({
    "package": evolve_action.__file__,
    "format": suite.format.value,
    "skill": suite.skill.name,
    "pass": grade("red and blue"),
    "fail": grade("red only"),
}))
"""


def _copy_with_toy(dest: Path) -> Path:
    package = dest / "evolve_action"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    folder = package / "formats" / "toy"
    folder.mkdir()
    for name, text in (
        ("__init__", INIT),
        ("load", LOAD),
        ("checks", CHECKS),
        ("scoring", SCORING),
    ):
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    evals = package / "model" / "evals.py"
    anchor = '    SKILL_VALIDATOR = "skill-validator"'
    text = evals.read_text(encoding="utf-8")
    evals.write_text(text.replace(anchor, f'{anchor}\n    TOY = "toy"', 1), encoding="utf-8")
    registry = package / "formats" / "families.py"
    anchor = "FAMILIES: tuple[Family, ...] = (\n"
    line = '    Family("toy", {Format.TOY: "load"}, names=("*.toy.json",)),\n'
    text = registry.read_text(encoding="utf-8")
    assert anchor in text
    registry.write_text(text.replace(anchor, anchor + line, 1), encoding="utf-8")
    return package


def test_a_new_format_is_one_folder_and_one_line(tmp_path: Path) -> None:
    package = _copy_with_toy(tmp_path / "src")
    repo = tmp_path / "repo"
    (repo / "skills" / "colours").mkdir(parents=True)
    (repo / "skills" / "colours" / "SKILL.md").write_text("---\nname: colours\n---\n")
    words = {"prompt": "name two colours", "words": ["red", "blue"]}
    (repo / "skills" / "colours" / "smoke.toy.json").write_text(json.dumps(words))
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(repo)],
        env={"PYTHONPATH": str(tmp_path / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["package"] == str(package / "__init__.py")  # the copy, not this checkout
    assert seen == {**seen, "format": "toy", "skill": "colours", "pass": "pass", "fail": "fail"}
