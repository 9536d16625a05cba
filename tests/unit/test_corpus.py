"""Every real eval file in ../shared/corpus loads, or is rejected with a precise message.

The corpus keeps files from many public repositories under flattened names. SOURCES.md maps
each saved name to its repository and original path, so the test rebuilds each repository's
tree in a scratch directory (the eval files and the fixtures that were saved) and loads every
eval file from its original path, with the format that path implies. Fixtures, prompts and
skills that were not saved are reported missing; `Rejected` pins that every error is of that
kind, so a schema problem in a real file cannot hide behind them.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from evolve_action.formats import load_file
from evolve_action.formats.base import LoadContext
from evolve_action.formats.discovery import describe_file, discover, format_for_name
from evolve_action.model.evals import Format, LoadResult

AGENTV = Format.AGENTV
CLAUDITOR = Format.CLAUDITOR
EVOLVE = Format.EVOLVE
SKILL_EVALUATOR = Format.SKILL_EVALUATOR
TRIGGERS = Format.TRIGGERS


@dataclass(frozen=True)
class Loads:
    format: Format
    cases: int


@dataclass(frozen=True)
class Rejected:
    format: Format
    because: tuple[str, ...]  # every error contains one of these


@dataclass(frozen=True)
class Skipped:
    reason: str


NOT_SAVED = "not found"  # evolve / skill-evaluator fixtures that SOURCES.md did not copy
NO_SUCH_FILE = "no such file"  # agentv prompt files, scripts and inputs not copied
NO_SUCH_FOLDER = "no such folder"  # agentv workspace templates not copied
NO_SYSTEM_PROMPT = "no system prompt"  # clauditor: SKILL.md was not copied
NO_INPUT = "does not exist next to the eval file"  # clauditor input_files not copied

# Keyed by a unique tail of the saved name (the folder and repository prefix dropped).
EXPECTED: dict[str, Loads | Rejected | Skipped] = {
    # agentv / AgentEvals
    "spec__examples__basic__EVAL.yaml": Loads(AGENTV, 3),
    "spec__examples__composite__EVAL.yaml": Loads(AGENTV, 3),
    "spec__examples__rubric__EVAL.yaml": Loads(AGENTV, 2),
    "spec__examples__tool-trajectory__EVAL.yaml": Loads(AGENTV, 3),
    "spec__schema__eval.schema.json": Skipped("a JSON Schema"),
    "features__rubric__evals__dataset.yaml": Rejected(AGENTV, (NO_SUCH_FILE,)),
    "features__composite__evals__dataset.yaml": Rejected(AGENTV, (NO_SUCH_FILE,)),
    "features__tool-trajectory-simple__evals__dataset.yaml": Loads(AGENTV, 7),
    "features__execution-metrics__evals__dataset.yaml": Rejected(AGENTV, (NO_SUCH_FILE,)),
    "evals__dataset-field-accuracy.yaml": Rejected(AGENTV, (NO_SUCH_FILE,)),
    "basic-jsonl__evals__dataset.jsonl": Rejected(AGENTV, (NO_SUCH_FILE,)),
    "basic-jsonl__evals__dataset.yaml": Skipped("the JSONL dataset's sidecar, read with it"),
    # AgentV 5's `environment.workdir` (the workspace template) was not saved: it is no longer
    # ignored, so the file asks for it.
    "agent-skills-evals__csv-analyzer.EVAL.yaml": Rejected(AGENTV, (NO_SUCH_FOLDER,)),
    "skills__skill-invocation.eval.yaml": Rejected(AGENTV, (NO_SUCH_FILE,)),
    "rubric__evals__operators.eval.yaml": Loads(AGENTV, 1),
    # clauditor
    "find-kid-activities__SKILL.eval.json": Rejected(CLAUDITOR, (NO_SYSTEM_PROMPT,)),
    "parallel-research__SKILL.eval.json": Rejected(CLAUDITOR, (NO_SYSTEM_PROMPT, NO_INPUT)),
    "release-manager__SKILL.eval.json": Rejected(CLAUDITOR, (NO_SYSTEM_PROMPT,)),
    "commands__example-skill.eval.json": Rejected(CLAUDITOR, (NO_SYSTEM_PROMPT, NO_INPUT)),
    "assets__clauditor.eval.json": Rejected(CLAUDITOR, (NO_SYSTEM_PROMPT,)),
    "assets__review-agentskills-spec.eval.json": Rejected(CLAUDITOR, (NO_SYSTEM_PROMPT,)),
    # skill-creator (read by the evolve loader, a superset)
    "skill-inspector__evals__evals.json": Rejected(EVOLVE, (NOT_SAVED,)),
    "Mapping-Skill__evals__evals.json": Loads(EVOLVE, 3),
    "jeelpay-integration-skills__evals__evals.json": Loads(EVOLVE, 3),
    "jeelpay-integration-skills__evals__trigger-eval.json": Loads(TRIGGERS, 20),
    "user-flows-and-sitemap-plugin__evals__evals.json": Loads(EVOLVE, 5),
    "product-playbook__evals__evals.json": Loads(EVOLVE, 9),
    "tidy-files-skill__evals__evals.json": Rejected(EVOLVE, (NOT_SAVED,)),
    "tidy-files-skill__evals__trigger-eval.json": Loads(TRIGGERS, 20),
    "diataxis-docs-skill__evals__evals.json": Rejected(EVOLVE, (NOT_SAVED,)),
    "vhdl-to-sv-skill__evals__evals.json": Rejected(EVOLVE, (NOT_SAVED,)),
    "naksha-studio__evals__evals.json": Rejected(EVOLVE, (NOT_SAVED,)),
    # Kept at the skill root, it lists its saved fixture as evals/files/sales.csv from there.
    "features__agent-skills-evals__evals.json": Loads(EVOLVE, 2),
    "npm-security__evals__evals.json": Loads(EVOLVE, 3),
    "diet-optimizer__evals__evals.json": Rejected(EVOLVE, ('found "cases": rename it to "evals"',)),
    "ad-takeover-skill__evals__evals.json": Rejected(EVOLVE, ("the top level is a list",)),
    # skill-evaluator (sniffed from evals.json content)
    "assets__templates__testing-evals.json": Loads(SKILL_EVALUATOR, 3),
    "dev__acd-plan__evals__evals.json": Loads(SKILL_EVALUATOR, 3),
    "run_001___structural.json": Skipped("a structural.json output sample"),
    # evolve
    "actions-security__evals.json": Loads(EVOLVE, 2),
    "actions-security__triggers.json": Loads(TRIGGERS, 14),
    "go-style__evals.json": Rejected(EVOLVE, (NOT_SAVED,)),
    "terraform-module__evals.json": Rejected(EVOLVE, (NOT_SAVED,)),
    "python-testing__evals.json": Rejected(EVOLVE, (NOT_SAVED,)),
    "workflow-skill-evals__evals.json": Rejected(EVOLVE, (NOT_SAVED,)),
    "gamma-skill__evals.yaml": Rejected(EVOLVE, ("fixture files/seed.txt not found",)),
}


@dataclass(frozen=True)
class Source:
    saved: str  # path under corpus/
    repo: str
    path: str  # the original path in that repository


def sources(corpus: Path) -> dict[str, Source]:
    """The rows of SOURCES.md's tables whose first cell is a saved file."""
    rows: dict[str, Source] = {}
    for line in (corpus / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and re.match(r"^[a-z-]+/\S+$", cells[0]):
            original = cells[2].split(" (")[0].strip()  # drop "(JSON Schema, ...)" notes
            rows[cells[0]] = Source(cells[0], cells[1], original)
    return rows


@dataclass(frozen=True)
class Placed:
    root: Path  # the rebuilt repository
    path: str  # the file's original path in it


@pytest.fixture(scope="module")
def rebuilt(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Placed]:
    """Each source repository's tree, rebuilt under one scratch directory per repository."""
    scratch = tmp_path_factory.mktemp("corpus")
    placed: dict[str, Placed] = {}
    for saved, row in sources(corpus_dir).items():
        dest = scratch / row.repo / row.path
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus_dir / saved, dest)
        placed[saved] = Placed(scratch / row.repo, row.path)
    return placed


def saved_files(corpus: Path) -> set[str]:
    """The flattened files; `repos/` holds whole repository snapshots with their own
    SOURCES.md, read in their own layout by test_snapshots.py."""
    return {
        rel
        for p in corpus.rglob("*")
        if p.is_file() and p.name != "SOURCES.md" and "fixtures" not in p.parts
        for rel in (p.relative_to(corpus).as_posix(),)
        if not rel.startswith("repos/")
    }


def saved_name(corpus: Path, key: str) -> str:
    (match,) = [s for s in saved_files(corpus) if s.endswith(key)]
    return match


def test_corpus__every_saved_file_has_a_source_and_exactly_one_verdict(corpus_dir: Path) -> None:
    saved = saved_files(corpus_dir)
    for name in saved:
        keys = [key for key in EXPECTED if name.endswith(key)]
        assert len(keys) == 1, f"{name}: matched by {keys}; update EXPECTED"
    assert len(saved) == len(EXPECTED), "a corpus file was removed: update EXPECTED"
    assert saved <= set(sources(corpus_dir)), "SOURCES.md lacks a row for a saved file"


def load(placed: Placed) -> LoadResult:
    # skill-evaluator's template sits under a name no convention uses; it is an evals.json.
    fmt = format_for_name(Path(placed.path).name) or EVOLVE
    item = describe_file(placed.root, placed.root / placed.path, fmt, rel=placed.path)
    return load_file(item.path, item.rel, item.format, LoadContext(placed.root, item.skill))


@pytest.mark.parametrize("key", list(EXPECTED))
def test_corpus__file_loads_or_is_rejected_precisely(
    corpus_dir: Path, rebuilt: dict[str, Placed], key: str
) -> None:
    verdict = EXPECTED[key]
    if isinstance(verdict, Skipped):
        pytest.skip(verdict.reason)
    saved = saved_name(corpus_dir, key)
    result = load(rebuilt[saved])
    problems = [*result.problems, *(result.suite.warnings if result.suite else ())]
    for problem in problems:
        assert problem.origin.path == rebuilt[saved].path, problem.render()
        assert "bug in evolve-action" not in problem.message, problem.render()
    assert result.format is verdict.format
    if isinstance(verdict, Loads):
        assert result.errors == (), [p.render() for p in result.errors]
        assert result.suite is not None
        assert len(result.suite.cases) == verdict.cases
    else:
        assert result.suite is None and result.errors
        for problem in result.errors:
            assert any(reason in problem.message for reason in verdict.because), problem.render()


def test_corpus__a_jsonl_dataset_hides_its_sidecar_from_discovery(
    corpus_dir: Path, rebuilt: dict[str, Placed]
) -> None:
    jsonl = rebuilt[saved_name(corpus_dir, "basic-jsonl__evals__dataset.jsonl")]
    found = discover(jsonl.root, paths=["examples/features/basic-jsonl/**"])
    assert [(f.rel, f.format) for f in found.files] == [
        ("examples/features/basic-jsonl/evals/dataset.jsonl", AGENTV)
    ]
