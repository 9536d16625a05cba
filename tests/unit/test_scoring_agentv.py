"""agentv verdicts: weighted mean of evaluator groups against the threshold, floors, aggregators."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evolve_action.formats import load_file
from evolve_action.formats.base import LoadContext
from evolve_action.grade.scoring import Verdict, policy_for
from evolve_action.model.evals import Case, Check, Format, JudgeItem, Origin, Scale, Skill, Suite
from evolve_action.model.outcomes import ItemResult, JudgeReport, Status


def suite_of(tmp_path: Path, text: str) -> Suite:
    path = tmp_path / "EVAL.yaml"
    path.write_text(dedent(text))
    result = load_file(path, "EVAL.yaml", Format.AGENTV, LoadContext(tmp_path, Skill("s", None)))
    assert result.suite is not None, [p.render() for p in result.problems]
    return result.suite


def verdict(suite: Suite, scores: dict[str, float | None], case: Case | None = None) -> Verdict:
    case = case or suite.cases[0]
    results = [
        ItemResult(item_id, item_id, None if s is None else s >= 0.8, score=s)
        for item_id, s in scores.items()
    ]
    return policy_for(Format.AGENTV).verdict(suite, case, results, JudgeReport())


def case_with(assertions: str, *, extra: str = "") -> str:
    lines = "".join(f"      {line}\n" for line in dedent(assertions).strip().splitlines())
    return f"{extra}tests:\n  - id: c\n    input: q\n    assert:\n{lines}"


THREE = case_with(
    """
    - {name: a, type: is_json}
    - {name: b, type: is_json}
    - {name: c, type: is_json}
    """
)


def test_verdict__weighted_mean_reaches_the_threshold_exactly(tmp_path: Path) -> None:
    suite = suite_of(tmp_path, THREE)
    edge = verdict(suite, {"a": 1.0, "b": 1.0, "c": 0.4})  # 2.4 / 3 is 0.7999999999999999
    assert edge.status is Status.PASS and edge.score == pytest.approx(0.8)
    below = verdict(suite, {"a": 1.0, "b": 1.0, "c": 0.39})
    assert below.status is Status.FAIL
    assert below.reason == "score 0.80 is below the threshold 0.8"


def test_verdict__evaluator_weights(tmp_path: Path) -> None:
    suite = suite_of(
        tmp_path,
        case_with("- {name: a, type: is_json, weight: 3}\n- {name: b, type: is_json, weight: 1}"),
    )
    assert verdict(suite, {"a": 1.0, "b": 0.2}).score == pytest.approx(0.8)
    assert verdict(suite, {"a": 0.2, "b": 1.0}).score == pytest.approx(0.4)


def test_verdict__file_and_case_thresholds(tmp_path: Path) -> None:
    suite = suite_of(
        tmp_path, case_with("- {type: is_json}", extra="execution: {threshold: 0.5}\n")
    )
    assert verdict(suite, {"is_json": 0.5}).status is Status.PASS
    text = case_with("- {type: is_json}") + "    execution: {threshold: 0.95}\n"
    strict = suite_of(tmp_path, text)
    assert verdict(strict, {"is_json": 0.9}).status is Status.FAIL


def test_verdict__required_evaluator_floor(tmp_path: Path) -> None:
    suite = suite_of(
        tmp_path,
        case_with(
            "- {name: must, type: is_json, required: true}\n"
            "- {name: soft, type: is_json, weight: 9}\n"
            "- {name: custom, type: is_json, required: 0.3}"
        ),
    )
    fell = verdict(suite, {"must": 0.7, "soft": 1.0, "custom": 1.0})
    assert fell.status is Status.FAIL and fell.score > 0.9
    assert fell.reason == "required must scored 0.70, below 0.8"
    assert verdict(suite, {"must": 0.8, "soft": 1.0, "custom": 0.3}).status is Status.PASS
    assert verdict(suite, {"must": 1.0, "soft": 1.0, "custom": 0.2}).status is Status.FAIL


def test_verdict__rubric_checklist_and_required_criterion(tmp_path: Path) -> None:
    text = """
    tests:
      - id: c
        criteria: x
        input: q
        rubrics:
          - {id: key, outcome: Finds the bug, weight: 3, required: true}
          - {id: fix, outcome: Fixes it, weight: 1}
    """
    suite = suite_of(tmp_path, text)
    assert verdict(suite, {"rubric/key": 1.0, "rubric/fix": 0.0}).score == pytest.approx(0.75)
    missed = verdict(suite, {"rubric/key": 0.0, "rubric/fix": 1.0})
    assert missed.status is Status.FAIL and "required rubric/key scored 0.00" in missed.reason


def test_verdict__analytic_rubric_scores_and_min_score(tmp_path: Path) -> None:
    text = """
    tests:
      - id: c
        criteria: x
        input: q
        rubrics:
          - {id: acc, weight: 2, required_min_score: 8, score_ranges: {0: bad, 8: good}}
          - {id: brev, score_ranges: {0: long, 5: short}}
    """
    suite = suite_of(tmp_path, text)
    (acc, brev) = suite.cases[0].judge_items
    assert acc.scale is Scale.RANGE10 and brev.scale is Scale.RANGE10
    good = verdict(suite, {"rubric/acc": 0.8, "rubric/brev": 0.9})
    assert good.status is Status.PASS and good.score == pytest.approx(2.5 / 3)
    low = verdict(suite, {"rubric/acc": 0.7, "rubric/brev": 1.0})
    assert low.status is Status.FAIL and "rubric/acc scored 0.70, below 0.8" in low.reason


COMPOSITE = """
- name: gate
  type: composite
  evaluators:
    - {name: safety, type: is_json}
    - {name: quality, type: is_json, weight: 2}
  aggregator: {AGG}
- {name: other, type: is_json}
"""


@pytest.mark.parametrize(
    ("aggregator", "safety", "quality", "gate"),
    [
        ("{type: weighted_average}", 0.4, 1.0, 2.4 / 3),  # children's own weights
        ("{type: weighted_average, weights: {safety: 3, quality: 1}}", 0.4, 1.0, 2.2 / 4),
        ("{type: minimum}", 0.4, 1.0, 0.4),
        ("{type: maximum}", 0.4, 1.0, 1.0),
        ("{type: safety_gate, required: [safety]}", 0.7, 1.0, 2.7 / 3),
        ("{type: safety_gate, required: [safety]}", 0.5, 1.0, 0.0),
        ("{type: all_or_nothing, threshold: 0.6}", 0.7, 1.0, 0.85),
        ("{type: all_or_nothing, threshold: 0.6}", 0.5, 1.0, 0.0),
        ("{type: all_or_nothing}", 0.7, 1.0, 0.0),  # default threshold 0.8
    ],
)
def test_verdict__composite_aggregators(
    tmp_path: Path, aggregator: str, safety: float, quality: float, gate: float
) -> None:
    suite = suite_of(tmp_path, case_with(COMPOSITE.replace("{AGG}", aggregator)))
    result = verdict(suite, {"gate/safety": safety, "gate/quality": quality, "other": 1.0})
    assert result.score == pytest.approx((gate + 1.0) / 2)


def test_verdict__safety_gate_forces_a_fail(tmp_path: Path) -> None:
    text = case_with(COMPOSITE.replace("{AGG}", "{type: safety_gate, required: [safety]}"))
    result = verdict(
        suite_of(tmp_path, text), {"gate/safety": 0.5, "gate/quality": 1.0, "other": 1}
    )
    assert result.status is Status.FAIL
    assert result.reason == "safety gate gate: safety below 0.6"


def test_verdict__nested_composites(tmp_path: Path) -> None:
    text = case_with(
        """
        - name: all
          type: composite
          evaluators:
            - name: content
              type: composite
              evaluators: [{name: acc, type: is_json}, {name: clar, type: is_json}]
              aggregator: {type: weighted_average, weights: {acc: 0.6, clar: 0.4}}
            - {name: safe, type: is_json}
          aggregator: {type: weighted_average, weights: {content: 0.7, safe: 0.3}}
        """
    )
    suite = suite_of(tmp_path, text)
    scores = {"all/content/acc": 1.0, "all/content/clar": 0.5, "all/safe": 1.0}
    assert verdict(suite, scores).score == pytest.approx(0.7 * 0.8 + 0.3)


def test_verdict__skipped_items_drop_out(tmp_path: Path) -> None:
    suite = suite_of(tmp_path, THREE)
    assert verdict(suite, {"a": 1.0, "b": None, "c": 0.7}).score == pytest.approx(0.85)
    none = verdict(suite, {"a": None, "b": None, "c": None})
    assert none.status is Status.PASS and "every item was skipped" in none.reason


def test_verdict__a_missing_verdict_counts_as_zero(tmp_path: Path) -> None:
    suite = suite_of(tmp_path, THREE)
    assert verdict(suite, {"a": 1.0, "b": 1.0}).score == pytest.approx(2 / 3)


def test_verdict__binary_results_without_scores(tmp_path: Path) -> None:
    suite = suite_of(tmp_path, THREE)
    results = [ItemResult(i, i, i != "c") for i in ("a", "b", "c")]
    got = policy_for(Format.AGENTV).verdict(suite, suite.cases[0], results, JudgeReport())
    assert got.score == pytest.approx(2 / 3) and got.status is Status.FAIL


def test_verdict__cases_built_without_groups_use_item_groups(tmp_path: Path) -> None:
    suite = suite_of(tmp_path, THREE)
    origin = Origin("x.yaml", 1)
    case = Case(
        id="hand",
        prompt="q",
        origin=origin,
        items=(
            Check("k", "agentv.is_json", "k", origin, weight=3.0),
            JudgeItem("j", "judge", origin, scale=Scale.UNIT, group="jg"),
        ),
    )
    assert verdict(suite, {"k": 1.0, "j": 0.2}, case).score == pytest.approx(0.8)


def test_judge_needed__only_with_judge_items(tmp_path: Path) -> None:
    policy = policy_for(Format.AGENTV)
    checks_only = suite_of(tmp_path, THREE)
    assert policy.judge_needed(checks_only, checks_only.cases[0], []) is False
    judged = suite_of(tmp_path, "tests: [{id: c, input: q, criteria: x}]\n")
    assert policy.judge_needed(judged, judged.cases[0], []) is True


_SCORES = st.one_of(st.none(), st.floats(0, 1))


@pytest.mark.parametrize(
    "aggregator",
    [
        "{type: weighted_average, weights: {safety: 0}}",
        "{type: minimum}",
        "{type: maximum}",
        "{type: safety_gate, required: [safety]}",
        "{type: all_or_nothing, threshold: 0.6}",
    ],
)
def test_verdict__scores_stay_in_unit_range(tmp_path: Path, aggregator: str) -> None:
    suite = suite_of(tmp_path, case_with(COMPOSITE.replace("{AGG}", aggregator)))

    @settings(max_examples=60, deadline=None)
    @given(safety=_SCORES, quality=_SCORES, other=_SCORES)
    def check(safety: float | None, quality: float | None, other: float | None) -> None:
        got = verdict(suite, {"gate/safety": safety, "gate/quality": quality, "other": other})
        assert 0.0 <= got.score <= 1.0
        if got.status is Status.PASS:
            assert got.score + 1e-9 >= 0.8 or "skipped" in got.reason

    check()
