"""AXIS configs as AXIS reads them: `axis.config.ts`/`.js` read for their literal object
without running it (code fields left out and named), `scenarios` as a folder, a file or a
list (`./scenarios` when absent), `run_script` setup as confined setup commands, copy
actions keeping the paths below the glob's fixed folders, and a same-named file of another
tool never an error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evolve_action.formats import discovery, documents_js, load_all, load_found
from evolve_action.model.evals import Format

EXAMPLE = Path(__file__).parents[2] / "examples/formats/axis"

TS_CONFIG = """\
import type { AxisConfig } from "@netlify/axis";
import { ARMS } from "./arms";

const ready = Boolean(process.env.SPACE);

const config: AxisConfig = {
  name: "site evals",
  scenarios: "./scenarios",
  agents: ARMS.map((name) => ({ agent: "claude-code", name })),
  judging: { agents: [{ agent: "claude-code", model: MODEL }] },
  settings: { concurrency: 2, limits: { scenario: { time_minutes: 60 * 1 } } },
  beforeAll: ready ? [{ action: "run_script", command: "seed" }] : [],
};

export default config;
"""


def _repo(tmp_path: Path, config_name: str, config: str) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    (root / "axis.config.json").unlink()
    (root / config_name).write_text(config)
    return root


def _warned(result: object) -> str:
    return " ".join(p.message for p in result.problems)  # type: ignore[attr-defined]


def test_a_typescript_config_is_read_for_its_literal_fields(tmp_path: Path) -> None:
    (result,) = load_all(_repo(tmp_path, "axis.config.ts", TS_CONFIG))
    assert result.ok and result.format is Format.AXIS, result.problems
    assert result.suite is not None and [c.id for c in result.suite.cases] == ["moves-docs"]
    warned = _warned(result)
    assert "left out: agents, judging.agents[0].model, settings.limits" in warned
    assert "not run: a config's lifecycle scripts" not in warned  # beforeAll was code


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("axis.config.js", 'module.exports = { scenarios: ["./scenarios"] };'),
        ("axis.config.mjs", 'export default defineConfig({ agents: ["codex"] });'),
        ("axis.config.cjs", 'module.exports = { scenarios: "./scenarios" } satisfies X;'),
    ],
)
def test_a_javascript_config_is_read_however_it_exports(
    tmp_path: Path, name: str, text: str
) -> None:
    (result,) = load_all(_repo(tmp_path, name, text))
    assert result.ok and result.suite is not None, result.problems
    assert [c.id for c in result.suite.cases] == ["moves-docs"]


def test_a_config_that_is_all_code_is_not_run_never_an_error(tmp_path: Path) -> None:
    (result,) = load_all(_repo(tmp_path, "axis.config.ts", "export default build(opts);\n"))
    assert result.suite is None and not result.errors and not result.failed
    assert result.problems[0].message.startswith("not run: the module exports no literal")


def test_scenarios_are_a_list_of_folders_and_files_and_remotes_are_warned(
    tmp_path: Path,
) -> None:
    root = _repo(tmp_path, "axis.config.json", "{}")
    (root / "more").mkdir()
    (root / "more/one.json").write_text('{"prompt": "p", "judge": "the agent said hi"}')
    config = (
        '{"scenarios": ["./scenarios", "./more/one.json", "https://github.com/o/r"],'
        ' "mcp_servers": {}}'
    )
    (root / "axis.config.json").write_text(config)
    (result,) = load_all(root)
    assert result.ok and result.suite is not None, result.problems
    assert sorted(c.id for c in result.suite.cases) == ["moves-docs", "one"]
    warned = _warned(result)
    assert "remote repository's scenarios; not fetched" in warned
    assert "MCP servers a config names are not run" in warned


def test_a_config_without_scenarios_looks_in_the_scenarios_folder(tmp_path: Path) -> None:
    (result,) = load_all(_repo(tmp_path, "axis.config.json", '{"agents": ["claude-code"]}'))
    assert result.ok and result.suite is not None, result.problems


def test_another_tools_axis_config_is_a_notice(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "SKILL.md").write_text("---\nname: x\ndescription: d\n---\nDo x.\n")
    (root / "axis.config.json").write_text('{"project_name": "x", "paths": {"src": "src"}}')
    (item,) = discovery.discover(root).files
    result = load_found(root, item)
    assert result.not_eval and result.format is None and not result.errors
    assert result.problems[0].message.startswith("not read: this axis.config file")
    assert load_all(root) == []  # a run has nothing to do with it


def test_run_script_setup_runs_as_setup_commands_and_copy_keeps_subpaths(
    tmp_path: Path,
) -> None:
    root = _repo(tmp_path, "axis.config.json", '{"scenarios": "./scenarios"}')
    (root / "fixtures/site/deep").mkdir()
    (root / "fixtures/site/deep/page.md").write_text("hi\n")
    (root / "scenarios/moves-docs.json").write_text(
        '{"prompt": "p", "judge": [{"check": "c"}], "setup": ['
        '{"action": "run_script", "command": "git init -q"},'
        '{"action": "run_script", "command": "cp $AXIS_CONFIG_DIR/x ."},'
        '{"action": "copy", "match": "fixtures/site/**/*", "destination": "site"}]}'
    )
    (result,) = load_all(root)
    assert result.ok and result.suite is not None, result.problems
    (case,) = result.suite.cases
    assert [c.run for c in case.setup_commands] == ["git init -q", "cp $AXIS_CONFIG_DIR/x ."]
    assert sorted(f.dest for f in case.files) == ["site/_redirects", "site/deep/page.md"]
    assert "AXIS's own variables" in _warned(result)


def test_a_scenario_module_whose_skip_is_code_is_not_run(tmp_path: Path) -> None:
    root = _repo(tmp_path, "axis.config.json", '{"scenarios": "./scenarios"}')
    (root / "scenarios/space.ts").write_text(
        'export default { skip: !process.env.S, prompt: "p", judge: [{ check: "c" }] };\n'
    )
    (result,) = load_all(root)
    assert result.ok and result.suite is not None
    assert [c.id for c in result.suite.cases] == ["moves-docs"]
    assert "`skip` is written as code" in _warned(result)


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ('["a", "b"].join(" ")', "a b"),
        ('["a", "b"].join("\\n")', "a\nb"),
        ('["a", x].join(" ")', documents_js.CODE),
        ('["a"].map(f)', documents_js.CODE),
        ("60 * 2", documents_js.CODE),
        ('"s" as const', "s"),
    ],
)
def test_a_literal_followed_by_code_is_code_but_a_join_of_strings_is_a_string(
    literal: str, value: object
) -> None:
    found = documents_js.default_export(f"export default {{ prompt: {literal}, n: 1 }};")
    assert found == {"prompt": value, "n": 1}


def test_a_variants_prompt_and_a_scenarios_mcp_servers_are_warned(tmp_path: Path) -> None:
    root = _repo(tmp_path, "axis.config.json", '{"scenarios": "./scenarios"}')
    (root / "scenarios/moves-docs.json").write_text(
        '{"prompt": "p", "judge": "j", "mcp_servers": {"fs": {"type": "stdio"}},'
        ' "variants": [{"name": "bare"}, {"name": "short", "prompt": "q"}]}'
    )
    (result,) = load_all(root)
    assert result.ok and result.suite is not None, result.problems
    warned = _warned(result)
    assert "a variant's own prompt is not run" in warned
    assert "a scenario's MCP servers are not run" in warned
