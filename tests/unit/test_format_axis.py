"""AXIS: `axis.config.json` and its JSON scenarios are cases with weighted judge checks, copy
setups staged, the skilled variant's skill and the bare variant's no-skill arm; scenarios
written as code are warned, and a config with nothing readable is not run, never an error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evolve_action.formats import documents_js as literal
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


TS = """\
import type { ScenarioInput } from "@netlify/axis";
import { variants } from "../helpers/variants";

export default {
  name: "Moves the blog",
  prompt:
    "Move /blog to /posts " + 'and keep old links working.',
  judge: [
    { check: `Adds a /blog/* redirect`, weight: 2 },
    // a comment between entries
    { check: "Uses a 301" },
  ],
  setup: copyFixture("site"),
  variants: variants(),
} satisfies ScenarioInput;
"""


def test_a_module_scenario_is_read_for_its_literal_fields(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    (root / "scenarios/moves-blog.ts").write_text(TS)
    (root / "scenarios/helper.ts").write_text("export function f() { return 1; }\n")
    (result,) = load_all(root)
    assert result.ok and result.suite is not None, result.problems
    blog = next(c for c in result.suite.cases if c.id == "moves-blog")
    assert blog.prompt == "Move /blog to /posts and keep old links working."
    assert [(i.text, i.weight) for i in blog.judge_items] == [
        ("Adds a /blog/* redirect", 2.0),
        ("Uses a 301", 1.0),
    ]
    warned = " ".join(p.message for p in result.problems)
    assert "1 scenario module(s) (such as helper.ts)" in warned
    assert "write setup, variants as code" in warned


def test_a_config_with_nothing_readable_is_not_run_never_an_error(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    (root / "scenarios/moves-docs.json").unlink()
    (root / "scenarios/typed.ts").write_text("export default makeScenario('x');\n")
    (result,) = load_all(root)
    assert result.suite is None and not result.failed
    assert result.problems[0].message.startswith("not run: no scenario reads")


def test_a_scenarios_own_skills_and_skip_are_read(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    shutil.copytree(root / "skills/redirects", root / "kits/other/skills/headers")
    (root / "scenarios/headers.json").write_text(
        '{"name": "h", "prompt": "p", "agents": ["codex"],'
        ' "skills": ["./kits/other/skills/headers"], "judge": [{"check": "c"}]}'
    )
    (root / "scenarios/later.json").write_text(
        '{"name": "l", "prompt": "p", "skip": true, "judge": [{"check": "c"}]}'
    )
    (result,) = load_all(root)
    assert result.ok and result.suite is not None, result.problems
    assert sorted(c.id for c in result.suite.cases) == ["headers", "moves-docs"]
    warned = " ".join(p.message for p in result.problems)
    assert "`skip: true`: the scenario is not run" in warned
    assert "not applied: the action's inputs choose the agent" in warned


def test_a_config_whose_scenarios_folder_is_absent_is_not_run_never_an_error(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "axis.config.json").write_text('{"scenarios": "./generated", "env": ["TOKEN"]}')
    (result,) = load_all(root)
    assert result.suite is None and not result.errors and not result.failed
    assert result.problems[0].message.startswith("not run: no scenario reads")
    assert any("'./generated' is no folder or file" in p.message for p in result.problems)


@pytest.mark.parametrize(
    "module",
    [
        'export default defineScenario({ name: "n", prompt: "p", judge: [{ check: "c" }] });',
        'export default define<Input>({ name: "n", prompt: "p", judge: [{ check: "c" }] })',
        'const s: Input = { name: "n", prompt: "p", judge: [{ check: "c" }] };\nexport default s;',
        'module.exports = { name: "n", prompt: "p", judge: [{ check: "c" }] };',
        'export default { name: `n ${x}`, prompt: "p",'
        ' judge: [{ check: "c" }, { check: `${y}` }] }',
    ],
)
def test_a_module_scenario_is_read_however_the_module_exports_it(module: str) -> None:
    found = literal.default_export(module)
    assert found is not None and found["prompt"] == "p"
    assert found["judge"][0] == {"check": "c"}


def test_a_prompt_built_by_code_is_code_not_a_guess() -> None:
    found = literal.default_export('export default { prompt: `go to ${url}`, name: "a" + b }')
    assert found == {"prompt": literal.CODE, "name": literal.CODE}


def test_a_plain_text_rubric_limits_and_teardown_are_read(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    (root / "scenarios/plain.json").write_text(
        '{"name": "p", "prompt": "p", "rubric": "Moves the page and keeps links working",'
        ' "limits": {"time_minutes": 5}, "teardown": [{"action": "run_script"}],'
        ' "artifacts": ["out/**"]}'
    )
    (result,) = load_all(root)
    assert result.ok and result.suite is not None, result.problems
    plain = next(c for c in result.suite.cases if c.id == "plain")
    assert [i.text for i in plain.judge_items] == ["Moves the page and keeps links working"]
    assert plain.timeout_seconds == 300.0
    warned = " ".join(p.message for p in result.problems)
    assert "teardown" in warned or "workspace is discarded" in warned
    assert "unknown scenario key 'artifacts'" not in warned
