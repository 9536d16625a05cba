"""AgentV read as AgentV reads it, on its own repository snapshots (issue 13, items 1-5, 10-12,
15): the whole v4.42.4 examples tree, and the files each item names.

Skipped when ../shared/corpus/repos is absent.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import Counter
from pathlib import Path

import pytest

from evolve_action.execute import workspace as workspace_module
from evolve_action.formats.agentv.checks.trace import tool_trajectory
from evolve_action.formats.agentv.kinds import CodeJudge, ToolTrajectory
from evolve_action.formats.agentv.load import suite_label
from evolve_action.formats.agentv.types import CATALOGUE, kind_of_type
from evolve_action.formats.discovery import discover
from evolve_action.grade.judge_prompt import build_prompt
from evolve_action.grade.scoring import policy_for
from evolve_action.model.evals import Check, Format, LoadResult, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status, ToolCall, Transcript
from tests.unit.snapshot_helpers import (
    V4,
    V5,
    copy_tree,
    load_one,
    load_tree,
    missing_code,
    real_errors,
    snapshot,
)
from tests.unit.test_checks_agentv import context

FEATURES = "examples/features"
# Files AgentV 4.42.4 accepts that are rejected here, each for a feature that cannot be honoured
# (docs/formats.md): the message must say so. Anything else AgentV accepts must load.
NOT_HONOURED = {
    f"{FEATURES}/composite/evals/dataset.eval.yaml": "aggregators are not supported yet",
    f"{FEATURES}/preprocessors/evals/dataset.eval.yaml": "preprocessors run commands",
    f"{FEATURES}/workspace-shared-config/evals/accuracy/dataset.eval.yaml": "cloning other",
    f"{FEATURES}/workspace-shared-config/evals/regression/dataset.eval.yaml": "cloning other",
    # AgentV rejects this one too (its hook scripts are missing); here the hooks are the reason.
    f"{FEATURES}/copilot-log-eval/evals/skill-trigger.EVAL.yaml": "workspace hooks that run",
}


@pytest.fixture(scope="module")
def v4(corpus_dir: Path) -> Path:
    return snapshot(corpus_dir, V4)


@pytest.fixture(scope="module")
def v4_tree(v4: Path) -> dict[str, LoadResult]:
    return load_tree(v4)


def suite(result: LoadResult) -> Suite:
    assert result.suite is not None, [p.render() for p in result.problems]
    return result.suite


# --- the whole tree ----------------------------------------------------------------------------


def test_v4_tree__discovers_every_eval_file_agentv_does_and_nothing_else(
    v4: Path, v4_tree: dict[str, LoadResult]
) -> None:
    """AgentV's validator reads every `*.eval.yaml`; its runner also `EVAL.yaml`. Baselines,
    helpers and files another eval reads as its cases are not eval files (item 3)."""
    evals = {
        p.relative_to(v4).as_posix()
        for p in v4.rglob("*")
        if p.name.lower().endswith(".eval.yaml") or p.name.lower() == "eval.yaml"
    }
    assert set(v4_tree) == evals
    assert len(evals) == 36
    assert not [rel for rel in v4_tree if ".baseline." in rel or "grader-scores" in rel]


def test_v4_tree__every_file_agentv_accepts_loads_or_says_which_feature_it_lacks(
    v4_tree: dict[str, LoadResult],
) -> None:
    for rel, result in v4_tree.items():
        errors = real_errors(result)
        if rel in NOT_HONOURED:
            assert errors, f"{rel} loads now: drop it from NOT_HONOURED"
            assert all(NOT_HONOURED[rel] in e or "not supported" in e for e in errors), errors
        else:
            assert errors == [], errors
        assert not any("bug in evolve-action" in p.message for p in result.problems)


def test_v4_tree__with_its_code_files_every_suite_loads_and_no_case_twice(
    v4: Path, v4_tree: dict[str, LoadResult], tmp_path: Path
) -> None:
    """With empty stand-ins for the code files the snapshot left out, every file AgentV
    accepts loads (but the features in NOT_HONOURED), and no case (one origin in one file)
    appears in two suites (item 3: `basic-jsonl` gave two suites of the same 7 cases)."""
    missing = {
        posixpath.normpath(f"{looked.group(1)}/{p.message.split(chr(39))[1]}")
        for r in v4_tree.values()
        for p in r.errors
        if missing_code(p) and (looked := re.search(r"looked in (\S+?)[;)]", p.message))
    }
    assert missing, "the snapshot should lack some code files"
    full = load_tree(copy_tree(v4, tmp_path / "v4", stand_ins=tuple(missing)))
    broken = {rel: [p.render() for p in r.errors] for rel, r in full.items() if r.errors}
    assert set(broken) == set(NOT_HONOURED), broken
    origins: Counter[tuple[str, int | None]] = Counter()
    for result in full.values():
        if result.suite is not None:
            origins.update((c.origin.path, c.origin.line) for c in result.suite.cases)
    assert len(origins) > 90 and max(origins.values()) == 1
    jsonl = [o for o in origins if o[0].endswith("basic-jsonl/evals/dataset.jsonl")]
    assert len(jsonl) == 7


def test_item11__suites_are_named_after_their_feature(
    v4: Path, v4_tree: dict[str, LoadResult]
) -> None:
    """A suite without `name:` is labelled by its feature folder, not "evals"."""
    names = {rel: r.suite.name for rel, r in v4_tree.items() if r.suite is not None}
    assert names[f"{FEATURES}/test-vars-templating/evals/dataset.eval.yaml"] == (
        "test-vars-templating"
    )
    assert suite_label(v4 / f"{FEATURES}/basic/evals/dataset.eval.yaml") == "basic"
    assert "evals" not in names.values() and "dataset" not in names.values()
    skills = {r.suite.skill.name for r in v4_tree.values() if r.suite is not None}
    assert "evals" not in skills


# --- item 1: judge prompts and their variables -----------------------------------------------


@pytest.mark.parametrize(
    "rel",
    [
        f"{FEATURES}/weighted-graders/evals/dataset.eval.yaml",
        f"{FEATURES}/basic/evals/dataset.eval.yaml",
        f"{FEATURES}/multi-turn-conversation/evals/dataset.eval.yaml",
        "examples/red-team/suites/llm01-prompt-injection.eval.yaml",
    ],
)
def test_item1__judge_prompts_load_with_every_variable_filled(
    v4_tree: dict[str, LoadResult], rel: str
) -> None:
    result = v4_tree[rel]
    assert real_errors(result) == []
    prompts = [
        item
        for r in (result,)
        if r.suite is not None
        for case in r.suite.cases
        for item in case.judge_items
        if item.params.prompt_file
    ]
    if result.suite is None:  # basic lacks a code file; the prompts are still read
        return
    assert prompts
    for item in prompts:
        assert not re.search(r"\{\{\s*(input|output|expected_output|criteria)\s*\}\}", item.text)


def test_item1__output_is_the_answer_and_input_the_question(
    v4_tree: dict[str, LoadResult],
) -> None:
    case = suite(v4_tree[f"{FEATURES}/weighted-graders/evals/dataset.eval.yaml"]).cases[0]
    safety = next(i for i in case.judge_items if i.id == "safety-check")
    assert "- Question: Explain the concept of neural networks." in safety.text
    assert "- Answer: [the agent's final response, shown below]" in safety.text
    assert "Reference Answer: Neural networks are computational models" in safety.text


def test_item1__a_conversation_reaches_input_with_role_markers(
    v4_tree: dict[str, LoadResult],
) -> None:
    case = suite(v4_tree[f"{FEATURES}/multi-turn-conversation/evals/dataset.eval.yaml"]).cases[0]
    relevancy = next(i for i in case.judge_items if i.id == "conversation_relevancy")
    assert "@[User]:\nHi, my name is Sarah." in relevancy.text
    assert "@[Assistant]:\nHello Sarah!" in relevancy.text


def test_item1__a_prompt_without_variables_is_the_criteria(
    v4_tree: dict[str, LoadResult],
) -> None:
    """refusal.md names no variable: AgentV 4 grades with it as criteria; so does the judge."""
    case = suite(v4_tree["examples/red-team/suites/llm01-prompt-injection.eval.yaml"]).cases[0]
    refusal = next(i for i in case.judge_items if i.params.prompt_file)
    assert refusal.text.startswith("You are grading whether an AI agent **refused**")


def test_item1__one_rule_for_inline_prompts_and_files(tmp_path: Path) -> None:
    from tests.unit.test_format_agentv import load, ok

    text = """
    tests:
      - id: a
        criteria: Says hi
        input: q
        assert:
          - {name: inline, type: llm-grader, prompt: "Grade {{ output }} for {{ input }}"}
          - {name: file, type: llm-grader, prompt: "file://prompts/p.md"}
          - {name: bare, type: llm-grader, prompt: ../prompts/p.md}
    """
    (case,) = ok(load(tmp_path, text, files={"prompts/p.md": "Grade {{ output }} for {{ input }}"}))
    texts = {i.id: i.text for i in case.judge_items}
    assert texts["inline"] == texts["file"] == texts["bare"]
    assert texts["inline"] == "Grade [the agent's final response, shown below] for q"


def test_item1__tool_calls_reach_the_judge_when_the_template_asks(tmp_path: Path) -> None:
    from tests.unit.test_format_agentv import load, ok

    text = """
    tests:
      - id: a
        criteria: Reads the file first
        input: q
        assert:
          - {name: order, type: llm-grader, prompt: "Check {{ tool_calls }} for {{ output }}"}
    """
    (case,) = ok(load(tmp_path, text))
    (item,) = case.judge_items
    assert item.params.needs == ("tool_calls",)
    transcript = Transcript(
        final_text="done",
        tool_calls=[ToolCall("Read", json.dumps({"file_path": "a.py"})), ToolCall("Think", "")],
    )
    prompt = build_prompt(case, [item], transcript, inspect=False)
    assert "The agent's tool calls:\n---\n- Read: a.py\n- Think\n---" in prompt


# --- item 2: composites with children under `assertions:` ------------------------------------


def test_item2__composite_children_under_assertions(v4_tree: dict[str, LoadResult]) -> None:
    result = v4_tree[f"{FEATURES}/threshold-grader/evals/dataset.eval.yaml"]
    case = suite(result).cases[0]
    assert [i.id for i in case.items] == [
        "flexible_gate/accuracy_check/rubric-1",
        "flexible_gate/completeness_check/rubric-1",
        "flexible_gate/conciseness_check/rubric-1",
    ]
    gate = case.extra.groups[0]
    assert gate.aggregator is not None
    assert gate.aggregator["type"] == "threshold" and gate.aggregator["threshold"] == 0.5
    composite = v4_tree[f"{FEATURES}/composite/evals/dataset.eval.yaml"]
    assert not any("evaluators" in p.message for p in composite.problems)


def test_item2__threshold_aggregator_scores_the_share_that_passes(
    v4_tree: dict[str, LoadResult],
) -> None:
    """AgentV 4: the composite scores passing children / children; the case's verdict is that
    score against the case threshold (0.8), as AgentV's orchestrator computes it."""
    s = suite(v4_tree[f"{FEATURES}/threshold-grader/evals/dataset.eval.yaml"])
    case = s.cases[0]
    ids = [i.id for i in case.items]

    def verdict(passed: list[bool]) -> tuple[Status, float | None]:
        pairs = zip(ids, passed, strict=True)
        results = [ItemResult(i, i, ok, score=1.0 if ok else 0.0) for i, ok in pairs]
        got = policy_for(Format.AGENTV).verdict(s, case, results, JudgeReport())
        return got.status, got.score

    assert verdict([True, True, True]) == (Status.PASS, 1.0)
    status, score = verdict([True, True, False])
    assert status is Status.FAIL and score == pytest.approx(2 / 3)


# --- item 4: ends-with, superset / subset, file:// references, case folders -------------------


def test_item4__ends_with(v4_tree: dict[str, LoadResult]) -> None:
    case = next(
        c
        for c in suite(v4_tree[f"{FEATURES}/assert-extended/evals/dataset.eval.yaml"]).cases
        if any(
            isinstance(i, Check) and getattr(i.params, "op", None) == "ends_with" for i in c.items
        )
    )
    check = next(i for i in case.checks if getattr(i.params, "op", None) == "ends_with")
    assert check.kind == "agentv.ends_with" and "ends with" in check.text


def _trajectory(v4_tree: dict[str, LoadResult], case_id: str) -> tuple[Suite, Check]:
    s = suite(v4_tree[f"{FEATURES}/tool-trajectory-simple/evals/dataset.eval.yaml"])
    case = next(c for c in s.cases if c.id == case_id)
    (check,) = case.checks
    return s, check


@pytest.mark.parametrize(
    ("case_id", "calls", "score"),
    [
        ("superset-mode", ["knowledgeSearch", "x", "documentRetrieve"], 1.0),
        ("superset-mode", ["knowledgeSearch"], 0.5),
        ("subset-mode", ["getCpuMetrics", "knowledgeSearch"], 1.0),
        ("subset-mode", ["getCpuMetrics", "deleteAll"], 0.5),
        ("subset-mode", [], 1.0),
    ],
)
async def test_item4__tool_trajectory_superset_and_subset(
    v4_tree: dict[str, LoadResult], tmp_path: Path, case_id: str, calls: list[str], score: float
) -> None:
    s, check = _trajectory(v4_tree, case_id)
    assert isinstance(check.params, ToolTrajectory)
    assert check.params.mode == case_id.split("-")[0]
    transcript = Transcript(final_text="ok", tool_calls=[ToolCall(n, "{}") for n in calls])
    case = next(c for c in s.cases if c.id == case_id)
    got = await tool_trajectory(check, context(s, case, tmp_path / "ws", transcript))
    assert got.score == pytest.approx(score)


def test_item4__args_match_modes(v4_tree: dict[str, LoadResult]) -> None:
    _, check = _trajectory(v4_tree, "mixed-args-match")
    assert isinstance(check.params, ToolTrajectory)
    assert {c.args_match for c in check.params.expected} == {"ignore"}


def test_item4__file_references_and_case_folders(v4_tree: dict[str, LoadResult]) -> None:
    external = suite(v4_tree[f"{FEATURES}/external-datasets/evals/dataset.eval.yaml"])
    assert [c.id for c in external.cases] == [
        "inline-test",
        "accuracy-basic-math",
        "accuracy-capital",
        "regression-greeting",
        "regression-farewell",
    ]
    folders = suite(v4_tree["examples/showcase/directory-discovery/EVAL.yaml"])
    assert [c.id for c in folders.cases] == ["add-greeting", "fix-null-check"]
    assert folders.cases[1].origin.path.endswith("cases/fix-null-check/case.yaml")


# --- item 5: the workspace template is installed; hooks are refused -------------------------


def test_item5__template_skill_is_the_skill_under_test(v4_tree: dict[str, LoadResult]) -> None:
    s = suite(v4_tree[f"{FEATURES}/agent-skills-evals/csv-analyzer.EVAL.yaml"])
    assert s.skill.name == "csv-analyzer" and s.agent
    assert s.skill.dir is not None
    assert s.skill.dir.as_posix().endswith("workspace/.claude/skills/csv-analyzer")
    dests = {f.dest for f in s.cases[0].files}
    assert {"AGENTS.md", ".agents/skills/csv-analyzer/SKILL.md"} <= dests
    assert ".claude/skills/csv-analyzer/SKILL.md" not in dests  # installed as the skill
    rel = f"{FEATURES}/agent-skills-evals/multi-provider-skill-trigger.EVAL.yaml"
    triggers = suite(v4_tree[rel])
    assert triggers.skill.name == "acme-deploy"


def test_item5__the_template_is_in_every_runs_workspace(
    v4_tree: dict[str, LoadResult], tmp_path: Path
) -> None:
    s = suite(v4_tree[f"{FEATURES}/agent-skills-evals/csv-analyzer.EVAL.yaml"])
    with workspace_module.prepare(s, s.cases[0], base_dir=tmp_path) as ws:
        root = ws.root
        assert (root / ".claude/skills/csv-analyzer/SKILL.md").is_file()
        assert (root / "AGENTS.md").is_file()
        assert (root / ".codex/skills/acme-deploy/SKILL.md").is_file()
        assert [info.name for info in ws.skills] == ["csv-analyzer"]


def test_item5__hooks_that_run_commands_are_refused(v4_tree: dict[str, LoadResult]) -> None:
    result = v4_tree[f"{FEATURES}/copilot-log-eval/evals/skill-trigger.EVAL.yaml"]
    (error,) = [p for p in result.errors if not missing_code(p)]
    assert error.origin.pointer == "workspace.hooks.before_all.command"
    assert "not supported" in error.message and "template" in error.message


# --- items 10, 12, 15 -----------------------------------------------------------------------


def test_item10__a_yaml_list_is_not_its_own_sidecar(v4: Path) -> None:
    result = load_one(v4, f"{FEATURES}/rubric/evals/dataset.grader-scores.yaml", Format.AGENTV)
    # A list of score ranges, not of cases: named directly, it gets a notice, not errors.
    assert result.not_eval and not any("sidecar" in p.message for p in result.problems)
    assert all(p.origin.path.endswith("dataset.grader-scores.yaml") for p in result.problems)


def test_item12__agentv_5_script_prompt_objects_and_default_test(
    corpus_dir: Path, tmp_path: Path
) -> None:
    root = copy_tree(
        snapshot(corpus_dir, V5),
        tmp_path / "v5",
        stand_ins=(f"{FEATURES}/readme-quickstart/validators/check_syntax.py",),
    )
    quickstart = load_one(root, f"{FEATURES}/readme-quickstart/evals/my-eval.eval.yaml")
    (case,) = suite(quickstart).cases
    script = next(i for i in case.checks if i.kind == "agentv.code_judge")
    assert isinstance(script.params, CodeJudge)
    assert script.params.command == ("python3", "../validators/check_syntax.py")
    assert case.extra.threshold == 0.8  # from default_test, a file:// reference
    assert any(p.field == "options.rubric_prompt" for p in quickstart.problems)
    templating = suite(load_one(root, f"{FEATURES}/test-vars-templating/evals/suite.yaml"))
    ada = next(c for c in templating.cases if c.id == "greet-ada")
    # the prompt object's JSON chat file, rendered with default_test.vars and the test's vars
    assert ada.system == (
        "You are a concise assistant answering onboarding questions for new teammates."
    )
    assert ada.prompt == "How should I greet Ada?"
    assert [i.text for i in ada.judge_items] == ["Greets Ada warmly"]


def test_item15__every_accepted_type_loads_and_the_message_lists_them_all(
    v4: Path, corpus_dir: Path, tmp_path: Path
) -> None:
    from tests.unit.test_format_agentv import errors, load

    written = {
        m.group(1)
        for root in (v4, snapshot(corpus_dir, V5))
        for path in root.rglob("*.yaml")
        for m in re.finditer(r"^\s*-?\s*type:\s*([a-z][a-z_-]*)\s*$", path.read_text(), re.M)
    }
    grader_types = written - {"threshold", "weighted_average", "host", "xlsx", "text", "file"}
    assert len(grader_types) > 12
    assert [t for t in grader_types if kind_of_type(t) is None] == []
    (message,) = errors(
        load(tmp_path, "tests:\n  - id: a\n    input: q\n    assert:\n      - {type: magic}\n")
    )
    for group, names in CATALOGUE.items():
        assert group in message
        for name, (_, others) in names.items():
            assert name in message and all(o in message for o in others)
    for group in CATALOGUE.values():
        for name in group:
            text = f"tests:\n  - id: a\n    input: q\n    assert:\n      - {{type: {name}}}\n"
            problems = load(tmp_path, text).problems
            assert not any("unknown grader type" in p.message for p in problems), name


def test_discovery__jsonl_dataset_is_read_through_its_yaml(v4: Path) -> None:
    found = {f.rel for f in discover(v4 / f"{FEATURES}/basic-jsonl").files}
    assert found == {"evals/dataset.eval.yaml"}
