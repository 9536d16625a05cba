"""A `claude plugin eval` suite and a Copilot Evals suite (Vally, its environment named in
`.vally.yaml`) in one pull request, the Actions way (`INPUT_*`, an event file, real git, the
loopback fakes): each runs on base and head with its own checks, the plugin case also
without the skill (their tool's ablation), the Vally stimulus with the named environment's
skill and files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evolve_action.model.outcomes import Side
from evolve_action.publish.results.load import load_results
from tests.e2e.test_pull_request import REPO, SKILL, container_env, outputs, run_container
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import Answer, FakeLLM, Request, call, text
from tests.fakes.scripts import grading, tool_names
from tests.gitrepo import commit_base, git, put

CASE = """\
schema_version: "1.1"
name: greets-ada
execution: {prompt: Greet Ada in hello.txt., max_turns: 6}
graders:
  - {name: greeting-written, type: regex, target: {source: file, path: hello.txt},
     pattern: "Hello, Ada!"}
"""
GRADERS = {
    "skill-fires.md": "---\ntype: tool_used\ntool: Skill\ninput_match: greeter\n---\n",
    "polite.md": "---\ntype: llm\n---\nPASS if the reply says the greeting was written.\n",
}
PROJECT = """\
paths: {evals: vally}
environments:
  greeter-env:
    skills: [skills/greeter]
    files: [{src: fixtures/guests.txt, dest: guests.txt}]
"""
SPEC = """\
name: greeter-vally
area: greetings
environment: greeter-env
config: {runs: 2}
stimuli:
  - name: greets-guest
    prompt: Greet the guest listed in guests.txt, in hello.txt.
    graders:
      - {type: file-contains, config: {path: hello.txt, value: "Hello, Ada!"}}
      - {type: file-contains, config: {path: guests.txt, value: Ada}}
"""


class Greeter:
    """With the skill listed it loads it and writes the greeting; without, a bare one."""

    def __init__(self) -> None:
        self.started = {"skill": 0, "no skill": 0}

    def __call__(self, request: Request) -> Answer:
        if "submit_grading" in tool_names(request):
            return grading(request)
        listed = "- greeter:" in request.system
        if request.turn == 0:
            self.started["skill" if listed else "no skill"] += 1
            return (
                call("Skill", skill="greeter")
                if listed
                else call("Write", file_path="hello.txt", content="hi\n")
            )
        if request.turn == 1 and listed:
            return call("Write", file_path="hello.txt", content="Hello, Ada!\n")
        return text("Done: the greeting was written to hello.txt.")


@pytest.fixture
def fakes() -> Iterator[tuple[FakeLLM, GitHubFake, Greeter]]:
    greeter = Greeter()
    with FakeLLM(greeter) as llm, GitHubFake() as gh:
        yield llm, gh, greeter
        assert not llm.script_errors, llm.script_errors


def make_repo(tmp_path: Path) -> tuple[Path, str, str]:
    root = tmp_path / "repo"
    put(root, ".claude-plugin/plugin.json", '{"name": "greetings"}')
    put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body="Write `Hello, Ada!`."))
    put(root, "evals/greets-ada/case.yaml", CASE)
    for name, text_ in GRADERS.items():
        put(root, f"evals/greets-ada/graders/{name}", text_)
    put(root, ".vally.yaml", PROJECT)
    put(root, "fixtures/guests.txt", "Ada\n")
    put(root, "vally/greeter/eval.yaml", SPEC)
    base = commit_base(root)
    body = "Write `Hello, Ada!` into hello.txt."
    put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body=body))
    git(root, "commit", "-q", "-am", "head")
    return root, base, git(root, "rev-parse", "HEAD")


def test_plugin_eval_and_named_vally_environment_run_on_base_and_head_with_their_arms(
    fakes: tuple[FakeLLM, GitHubFake, Greeter], tmp_path: Path
) -> None:
    llm, gh, greeter = fakes
    root, base, head = make_repo(tmp_path)
    env = container_env(root, tmp_path, llm, gh, base, head)
    env["INPUT_MODELS"] = "anthropic"
    env["INPUT_RUNS"] = "4"

    done = run_container(env, root)

    assert done.returncode == 0, (done.stdout + done.stderr, gh.check_runs[-1]["output"])
    (check,) = gh.check_runs
    assert check["conclusion"] == "success", check["output"]["summary"]
    assert outputs(tmp_path / "output")["conclusion"] == "success"
    runs = load_results(tmp_path / "results").runs
    sides = {(r.suite, r.side) for r in runs}
    plugin, vally = "evals/greets-ada/case.yaml", "vally/greeter/eval.yaml"
    assert {(plugin, Side.BASE), (plugin, Side.HEAD), (plugin, Side.NO_SKILL)} <= sides
    assert {(vally, Side.BASE), (vally, Side.HEAD)} <= sides
    assert (vally, Side.NO_SKILL) not in sides  # Vally asks for no arm here
    head_plugin = next(r for r in runs if r.suite == plugin and r.side is Side.HEAD)
    verdicts = {i.item_id: i.passed for i in head_plugin.items}
    assert verdicts == {"greeting-written": True, "skill-fires": True, "polite": True}
    bare = next(r for r in runs if r.suite == plugin and r.side is Side.NO_SKILL)
    assert {i.item_id: i.passed for i in bare.items}["greeting-written"] is False
    head_vally = next(r for r in runs if r.suite == vally and r.side is Side.HEAD)
    assert all(i.passed for i in head_vally.items), head_vally.items
    assert greeter.started["no skill"] == 4  # the plugin case's ablation arm, 4 runs
    body = gh.comments[(REPO, 7)][0]["body"]
    assert "greets-ada" in body and "greets-guest" in body
