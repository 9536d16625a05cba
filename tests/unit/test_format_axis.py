"""AXIS: `axis.config.json` and its JSON scenarios are cases with weighted judge checks, copy
setups staged, the skilled variant's skill and the bare variant's no-skill arm; scenarios
written as code are warned, and a config with nothing readable is not run, never an error."""

from __future__ import annotations

import shutil
from pathlib import Path

from evolve_action.formats import load_all
from evolve_action.model.evals import Format

EXAMPLE = Path(__file__).parents[2] / "examples/formats/axis"


def test_a_json_scenario_is_a_case_with_its_variants_arms() -> None:
    (result,) = load_all(EXAMPLE)
    assert result.ok and result.format is Format.AXIS, result.problems
    suite = result.suite
    assert suite is not None and suite.skill.name == "redirects"
    assert suite.policy.no_skill_arm is True
    (case,) = suite.cases
    assert case.id == "moves-docs" and case.prompt.startswith("Our docs moved")
    assert [i.weight for i in case.judge_items] == [2.0, 1.0]
    assert [f.dest for f in case.files] == ["_redirects"]


def test_code_scenarios_are_warned_and_a_config_of_only_code_is_not_run(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    (root / "scenarios/typed.ts").write_text("export default { name: 'x', prompt: 'y' };\n")
    (result,) = load_all(root)
    assert result.ok and any("1 scenario(s) are TypeScript" in p.message for p in result.problems)
    (root / "scenarios/moves-docs.json").unlink()
    (result,) = load_all(root)
    assert result.suite is None and not result.failed
    assert result.problems[0].message.startswith("not run: no JSON scenario reads")
