"""Every sample under examples/formats reads with no error, each as the format its folder
names, and together they hold one sample of every format evolve-action reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from evolve_action.formats import load_all
from evolve_action.model.evals import Format

EXAMPLES = Path(__file__).parents[2] / "examples/formats"
# The folder of each sample and the formats its files read as (skill-creator files read
# through evolve's loader; trigger sets are their own format).
SAMPLES = {
    "agentv": {Format.AGENTV},
    "axis": {Format.AXIS},
    "best-practice": {Format.BEST_PRACTICE},
    "caliper": {Format.CALIPER},
    "claude-plugin": {Format.CLAUDE_PLUGIN},
    "clauditor": {Format.CLAUDITOR},
    "eval-md": {Format.EVAL_MD},
    "evolve": {Format.EVOLVE, Format.TRIGGERS},
    "promptfoo": {Format.PROMPTFOO},
    "skill-creator": {Format.EVOLVE, Format.TRIGGERS},
    "skill-evaluator": {Format.SKILL_EVALUATOR},
    "skill-test-action": {Format.SKILL_TESTS},
    "skill-validator": {Format.SKILL_VALIDATOR},
    "skillgrade": {Format.SKILLGRADE},
    "tessl": {Format.TESSL},
    "vally": {Format.VALLY},
    "waza": {Format.WAZA, Format.TRIGGERS},  # trigger_tests.yaml is a trigger set
}


def test_every_sample_folder_is_listed_and_every_format_has_a_sample() -> None:
    assert {p.name for p in EXAMPLES.iterdir() if p.is_dir()} == set(SAMPLES)
    assert set().union(*SAMPLES.values()) == set(Format)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_sample_reads_with_no_error_as_its_format(name: str) -> None:
    results = load_all(EXAMPLES / name)
    assert results, f"examples/formats/{name} has no eval file"
    for result in results:
        assert result.ok and not result.errors, [p.render() for p in result.problems]
        assert result.suite is not None and result.suite.cases
    assert {r.format for r in results} == SAMPLES[name]
