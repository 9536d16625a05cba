"""A pull request in a repository that also holds other tools' files named like eval files
(mcpchecker's
`kind: Eval`, a list in `evals/<x>/evals.yaml`, CI workflows named `eval.yml`) gets no failed
check and no annotation from them: the job runs the real eval files (evolve's, and a Vally,
a waza and a skill-validator `eval.yaml`, each read as its own tool's, none as AgentV) and
passes. Run as the container runs it, against
the loopback LLM and GitHub fakes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_pull_request import (
    SKILL,
    agent,
    container_env,
    evals,
    git,
    outputs,
    put,
    regex_case,
    run_container,
)
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM
from tests.gitrepo import commit_base

WORKFLOW = "name: eval\non: [pull_request]\njobs:\n  run:\n    runs-on: ubuntu-latest\n"
# A waza eval of the same skill, with its task file: read as waza.
WAZA = "skill: greeter\nconfig: {trials_per_task: 2}\ntasks: ['tasks/*.yaml']\n"
WAZA_TASK = "id: greet-waza\ninputs: {prompt: Greet Ada.}\nexpected: {output_contains: [done]}\n"
# A skill-validator eval of the same skill (`<skill>/tests/eval.yaml`): read as its own.
SKILL_VALIDATOR = """\
scenarios:
  - name: greet-sv
    prompt: Greet Ada.
    assertions: [{type: output_contains, value: done}]
"""
MCPCHECKER = "kind: Eval\nmetadata: {name: greeter}\nconfig: {agentFile: agent.yaml}\n"
LIGHTSPEED = "- conversation_group_id: greet\n  turns: [{turn_id: t1, query: Greet Ada}]\n"
# A Vally eval of the same skill: read as Vally (not as AgentV), run, and passed.
VALLY = """\
name: greeter
type: capability
environment: {skills: [../../skills/greeter]}
stimuli:
  - name: greets
    prompt: Write the message for Ada.
    graders:
      - type: output-contains
        config: {substring: Done}
"""
OTHER_TOOLS = {
    ".github/workflows/eval.yml": WORKFLOW,
    "ci/eval.yml": WORKFLOW,
    "evals/mcpchecker/eval.yaml": MCPCHECKER,
    "evals/lightspeed/evals.yaml": LIGHTSPEED,
}
OURS = {
    "vally/greeter/eval.yaml": VALLY,
    "skills/greeter/tests/eval.yaml": SKILL_VALIDATOR,
    "waza/greeter/eval.yaml": WAZA,
    "waza/greeter/tasks/greet.yaml": WAZA_TASK,
}


@pytest.fixture
def fakes() -> Iterator[tuple[FakeLLM, GitHubFake]]:
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        yield llm, gh
        assert not llm.script_errors, llm.script_errors


def make_repo(tmp_path: Path) -> tuple[Path, str, str]:
    """One skill whose eval passes on both sides; the head edits the skill's wording and
    every other tool's file, so each is part of the PR."""
    root = tmp_path / "repo"
    put(root, ".claude-plugin/plugin.json", '{"name": "demo"}')
    put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body="Write `Hello, Ada!`."))
    put(root, "evals/greeter/evals.json", evals(regex_case("greet", "^Hello, Ada!$")))
    for rel, text in {**OTHER_TOOLS, **OURS}.items():
        put(root, rel, text)
    base = commit_base(root)
    body = "Write `Hello, Ada!`, and nothing else."
    put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body=body))
    for rel, text in {**OTHER_TOOLS, **OURS}.items():
        put(root, rel, text + "# edited in the PR\n")
    git(root, "commit", "-q", "-am", "head")
    return root, base, git(root, "rev-parse", "HEAD")


def test_pull_request__other_tools_files_fail_no_check(
    fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    root, base, head = make_repo(tmp_path)
    llm, gh = fakes
    env = container_env(root, tmp_path, llm, gh, base, head)
    env["INPUT_RUNS"] = "2"

    done = run_container(env, root)

    assert done.returncode == 0, done.stdout + done.stderr
    (check,) = gh.check_runs
    assert (check["head_sha"], check["status"], check["conclusion"]) == (
        head, "completed", "success"
    )  # fmt: skip
    annotated = {a["path"] for a in check.get("annotations", [])}
    assert not annotated & set(OTHER_TOOLS), annotated
    assert "invalid" not in check["output"]["summary"].lower()
    assert outputs(tmp_path / "output")["conclusion"] == "success"
    body = gh.comments[("acme/skills", 7)][0]["body"]
    assert "all 4 evals pass" in body  # evolve's, Vally's, skill-validator's, waza's
    for rel in OTHER_TOOLS:
        assert rel not in body and rel not in done.stdout


# Another tool's eval file under a name AgentV uses, with none of AgentV's keys: not certain,
# so AgentV's "no cases" is a warning and the file is reported as not run.
UNKNOWN_TOOL = "execution: {mode: case}\nrunner: {kind: cli}\njudges: [{name: j}]\n"
# Another unknown tool's spec under AgentV's `*.eval.yaml` name.
OTHER_SPEC = "suite: {name: greet}\nscenarios_dir: ./cases\nscoring: {mode: strict}\n"
FOREIGN_ONLY = {
    "eval.yaml": UNKNOWN_TOOL,
    "skills/greeter/greeter.eval.yaml": OTHER_SPEC,
    "evals/mcpchecker/eval.yaml": MCPCHECKER,
    "evals/lightspeed/evals.yaml": LIGHTSPEED,
}


def test_pull_request__only_foreign_eval_files_run_nothing_and_say_why(
    fakes: tuple[FakeLLM, GitHubFake], tmp_path: Path
) -> None:
    root = tmp_path / "repo"
    put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body="Write `Hi`."))
    for rel, text in FOREIGN_ONLY.items():
        put(root, rel, text)
    base = commit_base(root)
    for rel, text in FOREIGN_ONLY.items():
        put(root, rel, text + "# edited in the PR\n")
    git(root, "commit", "-q", "-am", "head")
    head = git(root, "rev-parse", "HEAD")
    llm, gh = fakes

    done = run_container(container_env(root, tmp_path, llm, gh, base, head), root)

    assert done.returncode == 0, done.stdout + done.stderr
    assert llm.requests == []  # nothing ran
    (check,) = gh.check_runs
    assert check["conclusion"] != "failure", check["output"]["summary"]
    body = gh.comments[("acme/skills", 7)][0]["body"]
    assert "No eval was affected" in body
    assert "`eval.yaml`: not run: its name alone made it a agentv file" in body, body
    assert "invalid" not in body.lower()
