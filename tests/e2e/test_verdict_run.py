"""The verdict end to end: `evolve-action run` on a pull request, as the container runs it,
against the loopback LLM and GitHub fakes. The exit code, the check's conclusion, the headline
and the step outputs must all tell the same story (issue 11).

`greeter`'s head skill breaks `status-file` (every run passed on base, none on head) while
`farewell`'s head skill fixes `bye` (none passed on base, every run on head).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_pull_request import (
    REPO,
    SKILL,
    agent,
    container_env,
    evals,
    outputs,
    regex_case,
    run_container,
)
from tests.fakes.github_server import GitHubFake
from tests.fakes.llm_server import FakeLLM
from tests.gitrepo import commit_base, git, put


def make_repo(tmp_path: Path, *, break_greeter: bool = True) -> tuple[Path, str, str]:
    root = tmp_path / "repo"
    put(root, ".claude-plugin/plugin.json", '{"name": "demo"}')
    put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body="Write `Hello, Ada!`."))
    put(root, "skills/farewell/SKILL.md", SKILL.format(name="farewell", body="Write `Bye`."))
    put(root, "evals/greeter/evals.json", evals(regex_case("status-file", "^Hello, Ada!$")))
    put(root, "evals/farewell/evals.json", evals(regex_case("bye", "^Goodbye, Ada!$")))
    base = commit_base(root)
    if break_greeter:
        put(root, "skills/greeter/SKILL.md", SKILL.format(name="greeter", body="SHOUT `HI`."))
    fixed = SKILL.format(name="farewell", body="Write `Goodbye, Ada!`.")
    put(root, "skills/farewell/SKILL.md", fixed)
    git(root, "commit", "-q", "-am", "head")
    return root, base, git(root, "rev-parse", "HEAD")


@pytest.fixture
def fakes() -> Iterator[tuple[FakeLLM, GitHubFake]]:
    with FakeLLM(agent) as llm, GitHubFake() as gh:
        yield llm, gh
        assert not llm.script_errors, llm.script_errors


def run(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake], models: str, runs: int, **kw: bool
) -> tuple[int, str, str, dict[str, str]]:
    """(exit code, headline, check conclusion, outputs) of one pull-request job."""
    llm, gh = fakes
    root, base, head = make_repo(tmp_path, **kw)
    env = container_env(root, tmp_path, llm, gh, base, head)
    env["INPUT_MODELS"] = models
    env["INPUT_RUNS"] = str(runs)
    done = run_container(env, root)
    (comment,) = gh.comments[(REPO, 7)]
    (check,) = gh.check_runs
    headline = comment["body"].split("\n", 2)[1]
    assert check["output"]["title"] in headline  # the check says what the comment says
    assert "within noise" not in comment["body"]
    return done.returncode, comment["body"], str(check["conclusion"]), outputs(tmp_path / "output")


def test_a_break_beside_a_fix_on_two_models_fails_the_check(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    code, body, conclusion, out = run(tmp_path, fakes, "anthropic, openai", 4)
    assert (code, conclusion, out["conclusion"], out["regressions"]) == (
        1,
        "failure",
        "failure",
        "1",
    )
    assert body.split("\n", 2)[1] == "### ❌ evolve: 1 eval regressed"
    regressed = body[body.index("**▼ Regressed**") : body.index("**▲ Improved:**")]
    assert regressed.count("`status-file`") == 2 and "bye" not in regressed
    assert "**▲ Improved:** farewell / `bye` on both models (0/4 → 4/4)" in body


def test_the_same_on_one_model_still_fails(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    code, body, conclusion, out = run(tmp_path, fakes, "anthropic", 4)
    assert (code, conclusion, out["conclusion"], out["regressions"]) == (
        1,
        "failure",
        "failure",
        "1",
    )
    assert body.split("\n", 2)[1] == "### ❌ evolve: 1 eval regressed"


def test_three_runs_on_one_model_are_too_few_to_tell_and_say_how_many_would_do(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    code, body, conclusion, out = run(tmp_path, fakes, "anthropic", 3)
    assert (code, conclusion, out["conclusion"], out["regressions"]) == (
        0,
        "neutral",
        "neutral",
        "0",
    )
    assert body.split("\n", 2)[1] == (
        "### ⚠️ evolve: too few runs to tell (2 evals; 4 runs per side would do)"
    )
    assert "**Too few runs to tell:**" in body and "4 runs per side would do" in body
    assert "**▽ Dropped, not significant**" in body and "**▼ Regressed**" not in body


def test_only_a_fix_is_a_success_that_says_improved(
    tmp_path: Path, fakes: tuple[FakeLLM, GitHubFake]
) -> None:
    code, body, conclusion, out = run(tmp_path, fakes, "anthropic", 5, break_greeter=False)
    assert (code, conclusion, out["conclusion"], out["regressions"]) == (
        0,
        "success",
        "success",
        "0",
    )
    assert body.split("\n", 2)[1] == "### ✅ evolve: 1 eval improved"
